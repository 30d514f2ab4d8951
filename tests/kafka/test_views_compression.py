"""The views service compresses the player views (zstd by default, `--compression`): every
update repeats the house's rules and the whole table, so the topic's bytes on the broker
fall several times over, and readers we did not write (kcat, librdkafka) still read them.
The broker's own account of the partition sizes (Kafka's LogDirsCommand) is the measure."""

from __future__ import annotations

import asyncio
import shutil
import subprocess

import msgspec
import pytest
from aiokafka import AIOKafkaProducer

from okey101.app import topics
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.viewpatch import decode_update
from services.common.kafka import provision
from tests.kafka.support import ViewsProcess, fresh_tag, read_all
from tools.bench.disk import LIBS, log_sizes

pytestmark = pytest.mark.kafka

KCAT = shutil.which("kcat") or shutil.which("kafkacat")
JAVA = shutil.which("java")


@pytest.fixture
def tools(kafka_bootstrap: str) -> str:
    """The broker's address, once kcat, java and Kafka's jars are known to be here (the
    jars are fetched when the broker first starts, after the tests are collected)."""
    if KCAT is None or JAVA is None or not any(LIBS.glob("kafka-tools-*.jar")):
        pytest.skip("needs kcat, java and Kafka's jars (tools/kafka/broker.sh fetches them)")
    return kafka_bootstrap


async def _publish_events(bootstrap: str, prefix: str, tables: int) -> int:
    """Recorded matches' events on the events topic, keyed by table; how many."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    sent = 0
    try:
        profile = {"base": "north-sultan", "options": {"hands_per_match": 1}}
        for i, seed in enumerate(match_seeds(31, tables)):
            table_id = f"{prefix}-t{i}"
            for event in play_match(profile, seed).events:
                event = msgspec.structs.replace(event, table_id=table_id)
                await producer.send(topics.EVENTS.name(prefix), E.encode(event),
                                    key=table_id.encode())
                sent += 1
                if sent % 50 == 0:  # several batches for the views, not one
                    await producer.flush()
                    await asyncio.sleep(0.02)
        await producer.flush()
    finally:
        await producer.stop()
    return sent


async def _views_of(bootstrap: str, compression: str | None) -> tuple[list[bytes], int, str]:
    """(the player views' values, their bytes on the broker, the topic) for the same
    matches' events projected by a views service with `compression` (its default: None)."""
    prefix = f"vz{fresh_tag()}"
    await provision(bootstrap, prefix)
    views = ViewsProcess(bootstrap, prefix, f"{prefix}-views")
    if compression is not None:
        views.args += ["--compression", compression]
    views.start()
    try:
        await views.wait_for("views_ready")
        await _publish_events(bootstrap, prefix, tables=3)
        topic = topics.PLAYER_VIEWS.name(prefix)
        values = await read_all(bootstrap, topic, timeout=60)
    finally:
        views.terminate()
    sizes = await asyncio.to_thread(log_sizes, bootstrap, [topic])
    return values, sizes[topic], topic


async def test_the_player_views_are_stored_compressed_and_kcat_reads_them(
        tools: str) -> None:
    values, stored, topic = await _views_of(tools, None)
    raw = sum(len(v) for v in values)
    assert values and stored * 4 < raw, f"{stored} bytes stored for {raw} bytes of views"
    out = subprocess.run([str(KCAT), "-b", tools, "-C", "-t", topic, "-e", "-q",
                          "-f", "%s\n"], capture_output=True, timeout=60, check=True).stdout
    read = [decode_update(line) for line in out.splitlines() if line]
    assert sorted((u.table_id, u.seat, u.version) for u in read) == \
        sorted((u.table_id, u.seat, u.version) for u in map(decode_update,
                                                             values))


async def test_without_compression_the_broker_stores_every_byte_of_the_views(
        tools: str) -> None:
    values, stored, _ = await _views_of(tools, "none")
    assert values and stored >= sum(len(v) for v in values)
