"""Issue 26 on the real broker: no record can stop a table. A record nested 1,500 deep on
the commands topic is a dead letter and its partition plays on; a record that kills a
partition worker twice is dead-lettered and skipped, the worker restarted and /readyz
naming it meanwhile; and bursts of hostile records (tests/kafka/hostile.py) written
straight to every input topic while tables play stop nothing."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from prometheus_client import REGISTRY

from okey101.app import topics
from okey101.table import messages as E
from services.common.http import HealthServer
from services.common.kafka import provision
from services.common.tasks import TASKS
from services.processor import app as processor_app
from services.processor.app import Processor
from tests.kafka import hostile
from tests.kafka.support import (
    ProcessorProcess,
    check_log,
    interleave,
    publish,
    read_all,
    record_timeout_match,
)


def _names() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"t{tag}", f"proc-{tag}"


def _tables_on(prefix: str, partition: int, count: int, start: int = 0) -> list[str]:
    """`count` table ids whose records land on `partition`."""
    out, i = [], start
    while len(out) < count:
        name = f"{prefix}-table{i}"
        if topics.partition_for(name.encode(), topics.PARTITIONS) == partition:
            out.append(name)
        i += 1
    return out


async def _send(bootstrap: str, topic: str, value: bytes, key: bytes) -> Any:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        return await producer.send_and_wait(topic, value, key=key)
    finally:
        await producer.stop()


async def _outcomes(bootstrap: str, prefix: str, recorded: dict[str, Any],
                    timeout: float = 120) -> None:
    total = sum(len(c) for c, _ in recorded.values())
    deadline = time.monotonic() + timeout
    while True:
        outcomes = _ours(await read_all(bootstrap, topics.OUTCOMES.name(prefix), until=total,
                                        timeout=max(1.0, deadline - time.monotonic())),
                         E.outcome_decoder, recorded)
        if len(outcomes) >= total or time.monotonic() > deadline:
            break
    events = _ours(await read_all(bootstrap, topics.EVENTS.name(prefix)), E.event_decoder,
                   recorded)
    check_log(outcomes, events, recorded)  # every command answered; replay equals live


def _ours(values: list[bytes], decoder: Any, recorded: dict[str, Any]) -> list[bytes]:
    """The records of the recorded tables (the topics also hold the hostile ones)."""
    out = []
    for value in values:
        try:
            if decoder.decode(value).table_id in recorded:
                out.append(value)
        except Exception:  # a hostile record
            continue
    return out


def _deep_create(table: str, depth: int) -> bytes:
    return (b'{"type":"create_table","table_id":"' + table.encode() +
            b'","command_id":"deep","player_id":"p0","options":{"x":' + b"[" * depth +
            b"]" * depth + b"}}")


async def test_a_create_table_nested_1500_deep_is_a_dead_letter_and_its_partition_plays_on(
        kafka_bootstrap: str) -> None:
    prefix, group = _names()
    await provision(kafka_bootstrap, prefix)
    deep_table, *tables = _tables_on(prefix, 3, 4)
    deep = await _send(kafka_bootstrap, topics.COMMANDS.name(prefix),
                       _deep_create(deep_table, 1500), deep_table.encode())
    recorded = {t: record_timeout_match(t, 60 + i) for i, t in enumerate(tables)}
    proc = ProcessorProcess(kafka_bootstrap, prefix, group)
    proc.start()
    try:
        await publish(kafka_bootstrap, prefix, interleave([c for c, _ in recorded.values()]))
        await _outcomes(kafka_bootstrap, prefix, recorded)
        dead = await read_all(kafka_bootstrap, topics.DEAD_LETTERS.name(prefix), until=1)
        assert proc.proc is not None and proc.proc.poll() is None, proc.tail()
    finally:
        proc.terminate()
    (letter,) = [E.dead_letter_decoder.decode(v) for v in dead]
    assert (letter.topic, letter.partition, letter.offset) == \
        (topics.COMMANDS.name(prefix), deep.partition, deep.offset)
    assert letter.kind == "too_deep" and "nested more than" in letter.reason
    assert letter.service == "processor" and letter.key == deep_table


def _failures(task: str) -> float:
    return REGISTRY.get_sample_value("okey_task_failures_total", {"task": task}) or 0.0


async def test_a_record_that_kills_a_partition_worker_twice_is_dead_lettered_and_skipped(
        kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch) -> None:
    prefix, group = _names()
    await provision(kafka_bootstrap, prefix)
    partition = 5
    killer, *tables = _tables_on(prefix, partition, 3)
    recorded = {t: record_timeout_match(t, 80 + i) for i, t in enumerate(tables)}
    original = processor_app._Worker._send

    async def send(self: Any, batches: Any, record: Any, out: Any) -> None:
        if b"kill-the-worker" in (record.value or b"") and out.dead_letter is None:
            raise RuntimeError("a bug no record should reach")
        await original(self, batches, record, out)

    monkeypatch.setattr(processor_app._Worker, "_send", send)
    monkeypatch.setattr(processor_app, "FAILURE_SHOWN_S", 2.0)
    TASKS.reset()
    before = _failures("partition_worker")
    proc = Processor(kafka_bootstrap, prefix=prefix, group=group, allow_stacked_deals=True)
    health = HealthServer(proc, None)
    running = asyncio.create_task(proc.run())
    try:
        deadline = time.monotonic() + 90
        while not health.readiness().ready:
            assert time.monotonic() < deadline, health.readiness()
            await asyncio.sleep(0.1)
        kill = E.CreateTable(table_id=killer, command_id="kill-the-worker", player_id="p0")
        landed = await _send(kafka_bootstrap, topics.COMMANDS.name(prefix), E.encode(kill),
                             killer.encode())
        sent = time.monotonic()
        while "partition 5 worker" not in health.readiness().reason:
            assert time.monotonic() - sent < 5, "the failed worker was not named in 5 s"
            await asyncio.sleep(0.05)
        assert not health.readiness().ready
        await publish(kafka_bootstrap, prefix, interleave([c for c, _ in recorded.values()]))
        await _outcomes(kafka_bootstrap, prefix, recorded)
        dead = await read_all(kafka_bootstrap, topics.DEAD_LETTERS.name(prefix), until=1)
        while not health.readiness().ready:  # restarted, and shown long enough
            assert time.monotonic() - sent < 60, health.readiness()
            await asyncio.sleep(0.1)
    finally:
        proc.stop()
        await asyncio.wait_for(running, 60)
        TASKS.reset()
    (letter,) = [E.dead_letter_decoder.decode(v) for v in dead]
    assert (letter.partition, letter.offset, letter.kind) == (partition, landed.offset,
                                                              "poison")
    assert "RuntimeError" in letter.reason and letter.error == "RuntimeError"
    assert _failures("partition_worker") >= before + 2


async def test_bursts_of_hostile_records_on_every_input_topic_stop_no_table(
        kafka_bootstrap: str) -> None:
    """Three bursts of hypothesis-drawn hostile records, each written while tables play;
    after each: every table created after it gets its outcomes, every hostile record is
    dead-lettered by its topic's first reader with its reason, no service failed or
    restarted; at the end the log replays to the states decided in process."""
    stack = hostile.HostileStack(kafka_bootstrap)
    await provision(kafka_bootstrap, stack.prefix)
    prefix = stack.prefix
    drawn = hostile.bursts(3, 20, seed=26)
    stack.start()
    recorded: dict[str, Any] = {}
    try:
        await stack.ready()
        started = time.monotonic()
        for n, burst in enumerate(drawn):
            during = {f"{prefix}-d{n}-{i}": record_timeout_match(f"{prefix}-d{n}-{i}",
                                                                 900 + 10 * n + i)
                      for i in range(2)}
            recorded |= during
            await asyncio.gather(
                hostile.write(kafka_bootstrap, prefix, burst),
                publish(kafka_bootstrap, prefix,
                        interleave([c for c, _ in during.values()]), rate=400))
            after = {f"{prefix}-a{n}-{i}": record_timeout_match(f"{prefix}-a{n}-{i}",
                                                                500 + 10 * n + i)
                     for i in range(2)}
            recorded |= after
            await publish(kafka_bootstrap, prefix, interleave([c for c, _ in after.values()]))
            await _outcomes(kafka_bootstrap, prefix, recorded, timeout=90)
            found = await hostile.dead_letters(kafka_bootstrap, prefix, burst, timeout=60)
            lost = hostile.missing(prefix, burst, found)
            assert not lost, [(r.topic, r.why) for r in lost]
            assert stack.failures() == {}
            print(f"burst {n}: {len(burst)} hostile records, all dead-lettered, "
                  f"{len(recorded)} tables played ({time.monotonic() - started:.0f} s)")
    finally:
        stack.stop()
    assert all(p.returncode == 0 for p in stack.procs.values()), \
        {n: p.returncode for n, p in stack.procs.items()}
