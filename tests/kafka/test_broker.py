"""The local Kafka broker does what the services rely on: transactions with read_committed
consumers, exactly-once consume-transform-produce (offsets committed inside the
transaction), and interoperability with librdkafka clients (kcat)."""

from __future__ import annotations

import asyncio
import json
import shutil
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.structs import ConsumerRecord

TEST_TIMEOUT_S = 60

# The make_topic fixture of conftest.py: await make_topic(prefix, partitions=1) -> topic name.
MakeTopic = Callable[..., Awaitable[str]]


@asynccontextmanager
async def started(client: AIOKafkaProducer | AIOKafkaConsumer) -> AsyncIterator[None]:
    await client.start()
    try:
        yield
    finally:
        await client.stop()


def tx_producer(bootstrap: str) -> AIOKafkaProducer:
    return AIOKafkaProducer(
        bootstrap_servers=bootstrap,
        transactional_id=f"tx-{uuid.uuid4().hex}",
        enable_idempotence=True,
    )


async def read_all(
    bootstrap: str,
    topic: str,
    *,
    isolation_level: str = "read_committed",
    partition: int = 0,
) -> list[ConsumerRecord]:
    """Every record of one partition, up to its end as seen by ``isolation_level``
    (the last stable offset for read_committed), without a consumer group. For
    read_committed, the transactions already committed are waited for: a commit is
    acknowledged before the coordinator has written its markers, and until then the last
    stable offset stays before the transaction's records."""
    tp = TopicPartition(topic, partition)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        isolation_level=isolation_level,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )
    records: list[ConsumerRecord] = []
    log_end = 0  # read_uncommitted: the log's end is the end
    if isolation_level == "read_committed":
        log_end = await _end_offset(bootstrap, tp, "read_uncommitted")
    async with started(consumer):
        consumer.assign([tp])
        end = (await consumer.end_offsets([tp]))[tp]
        while end < log_end:  # commit markers still being written
            await asyncio.sleep(0.05)
            end = (await consumer.end_offsets([tp]))[tp]
        await consumer.seek_to_beginning(tp)
        while await consumer.position(tp) < end:
            batch = await consumer.getmany(tp, timeout_ms=1000)
            records.extend(batch.get(tp, []))
    return records


async def _end_offset(bootstrap: str, tp: TopicPartition, isolation_level: str) -> int:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, isolation_level=isolation_level,
                                enable_auto_commit=False)
    async with started(consumer):
        return int((await consumer.end_offsets([tp]))[tp])


async def test_transactions_read_committed_sees_only_committed(
    kafka_bootstrap: str, make_topic: MakeTopic
) -> None:
    topic = await make_topic("txn")
    async with asyncio.timeout(TEST_TIMEOUT_S):
        producer = tx_producer(kafka_bootstrap)
        async with started(producer):
            await producer.begin_transaction()
            await producer.send_and_wait(topic, b"committed-1", key=b"k")
            await producer.commit_transaction()

            await producer.begin_transaction()
            await producer.send_and_wait(topic, b"aborted", key=b"k")
            await producer.abort_transaction()

            async with producer.transaction():  # the context-manager form commits on exit
                await producer.send_and_wait(topic, b"committed-2", key=b"k")

        committed = await read_all(kafka_bootstrap, topic, isolation_level="read_committed")
        assert [r.value for r in committed] == [b"committed-1", b"committed-2"]
        assert {r.key for r in committed} == {b"k"}

        # The aborted record is in the log all the same: read_uncommitted shows it.
        everything = await read_all(kafka_bootstrap, topic, isolation_level="read_uncommitted")
        assert [r.value for r in everything] == [b"committed-1", b"aborted", b"committed-2"]


async def test_send_offsets_to_transaction_consume_transform_produce(
    kafka_bootstrap: str, make_topic: MakeTopic
) -> None:
    source = await make_topic("ctp-in")
    sink = await make_topic("ctp-out")
    group = f"ctp-{uuid.uuid4().hex}"
    tp_in = TopicPartition(source, 0)

    async with asyncio.timeout(TEST_TIMEOUT_S):
        plain = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap, enable_idempotence=True)
        async with started(plain):
            for i in range(3):
                await plain.send_and_wait(source, str(i).encode(), key=b"g1")

        consumer = AIOKafkaConsumer(
            source,
            bootstrap_servers=kafka_bootstrap,
            group_id=group,
            isolation_level="read_committed",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
        )
        producer = tx_producer(kafka_bootstrap)
        async with started(consumer), started(producer):
            got: list[ConsumerRecord] = []
            while len(got) < 3:
                batch = await consumer.getmany(timeout_ms=1000)
                got.extend(batch.get(tp_in, []))
            assert [r.value for r in got] == [b"0", b"1", b"2"]

            # Step 1: transform records 0 and 1, commit their offsets with the output.
            async with producer.transaction():
                for r in got[:2]:
                    await producer.send_and_wait(sink, r.value * 2, key=r.key)
                await producer.send_offsets_to_transaction({tp_in: got[1].offset + 1}, group)

            # Step 2: transform record 2, then abort: neither output nor offset may show.
            await producer.begin_transaction()
            await producer.send_and_wait(sink, got[2].value * 2, key=got[2].key)
            await producer.send_offsets_to_transaction({tp_in: got[2].offset + 1}, group)
            await producer.abort_transaction()

            assert await consumer.committed(tp_in) == got[1].offset + 1

        out = await read_all(kafka_bootstrap, sink)
        assert [(r.key, r.value) for r in out] == [(b"g1", b"00"), (b"g1", b"11")]

        # A new member of the group resumes after the committed offset: record 2 again.
        resumed = AIOKafkaConsumer(
            source,
            bootstrap_servers=kafka_bootstrap,
            group_id=group,
            isolation_level="read_committed",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
        )
        async with started(resumed):
            again: list[ConsumerRecord] = []
            while not again:
                batch = await resumed.getmany(timeout_ms=1000)
                again.extend(batch.get(tp_in, []))
        assert again[0].value == b"2"


KCAT = shutil.which("kcat") or shutil.which("kafkacat")


async def run_kcat(*args: str, stdin: bytes | None = None) -> bytes:
    assert KCAT is not None
    proc = await asyncio.create_subprocess_exec(
        KCAT,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), 30)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode == 0, f"kcat {' '.join(args)} failed: {err.decode()}"
    return out


@pytest.mark.skipif(
    KCAT is None, reason="kcat is not installed (apt-get install -y kcat); CI installs it"
)
async def test_kcat_interop(kafka_bootstrap: str, make_topic: MakeTopic) -> None:
    topic = await make_topic("kcat")
    event = {"type": "TileDrawn", "game": "g-1", "seat": 2, "tile": "R7", "note": "a:b|c"}

    async with asyncio.timeout(TEST_TIMEOUT_S):
        # kcat (librdkafka) produces a keyed JSON message; aiokafka reads it.
        # The key delimiter is a tab so that the JSON may hold ':' and '|'.
        line = "game-1\t" + json.dumps(event, separators=(",", ":")) + "\n"
        await run_kcat(
            "-q", "-b", kafka_bootstrap, "-t", topic, "-P", "-K", "\t", stdin=line.encode()
        )
        records = await read_all(kafka_bootstrap, topic)
        assert len(records) == 1
        assert records[0].key == b"game-1"
        assert json.loads(records[0].value) == event

        # aiokafka produces (in a committed and an aborted transaction); kcat reads only
        # the committed one (librdkafka consumers default to read_committed).
        reply = {"type": "TileDiscarded", "game": "g-1", "seat": 2, "tile": "K13"}
        producer = tx_producer(kafka_bootstrap)
        async with started(producer):
            async with producer.transaction():
                await producer.send_and_wait(topic, json.dumps(reply).encode(), key=b"game-1")
            await producer.begin_transaction()
            await producer.send_and_wait(topic, b'{"type":"Aborted"}', key=b"game-1")
            await producer.abort_transaction()

        consume = ["-C", "-o", "beginning", "-e", "-X", "isolation.level=read_committed"]
        out = await run_kcat("-q", "-b", kafka_bootstrap, "-t", topic, *consume, "-f", "%k\t%s\n")
        lines = out.decode().splitlines()
        assert len(lines) == 2, lines
        keys_values = [ln.split("\t", 1) for ln in lines]
        assert [k for k, _ in keys_values] == ["game-1", "game-1"]
        assert [json.loads(v) for _, v in keys_values] == [event, reply]
