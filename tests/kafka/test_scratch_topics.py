"""A benchmark run deletes the topics it made (`tools.bench.scratch`), and only those:
left behind, they piled up on the local broker run after run."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from aiokafka.admin import AIOKafkaAdminClient

from okey101.app import topics
from services.common.kafka import drop_topics, provision
from tools.bench import scratch

pytestmark = pytest.mark.kafka


async def _names(bootstrap: str) -> set[str]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return set(await admin.list_topics())
    finally:
        await admin.close()


async def _gone(bootstrap: str, names: set[str]) -> bool:
    for _ in range(100):  # deletion completes asynchronously on the broker
        if not names & await _names(bootstrap):
            return True
        await asyncio.sleep(0.1)
    return False


async def test_a_benchmark_run_deletes_the_topics_of_its_prefixes_and_no_other(
        kafka_bootstrap: str) -> None:
    kept = scratch.prefix("keep", kafka_bootstrap)
    scratch._made.clear()  # a prefix not taken by this run: its topics must stay
    await provision(kafka_bootstrap, kept, 1)
    taken: list[str] = []

    async def bench() -> None:
        for stem in ("one", "two"):
            taken.append(scratch.prefix(stem, kafka_bootstrap))
            await provision(kafka_bootstrap, taken[-1], 1)

    await scratch.dropped_after(bench())
    made = {spec.name(p) for p in taken for spec in topics.ALL}
    assert await _gone(kafka_bootstrap, made)
    assert {spec.name(kept) for spec in topics.ALL} <= await _names(kafka_bootstrap)
    assert not scratch._made
    await drop_topics(kafka_bootstrap, kept)


async def test_the_topics_are_deleted_when_the_benchmark_fails_too(
        kafka_bootstrap: str) -> None:
    taken: list[str] = []

    async def failing() -> None:
        taken.append(scratch.prefix("fail", kafka_bootstrap))
        await provision(kafka_bootstrap, taken[-1], 1)
        raise RuntimeError("the benchmark broke")

    with pytest.raises(RuntimeError, match="the benchmark broke"):
        await scratch.dropped_after(failing())
    assert await _gone(kafka_bootstrap, {spec.name(taken[0]) for spec in topics.ALL})


async def test_keep_topics_leaves_them_for_a_look(
        kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_KEEP_TOPICS", "1")
    taken: list[str] = []

    async def bench() -> None:
        taken.append(scratch.prefix("look", kafka_bootstrap))
        await provision(kafka_bootstrap, taken[-1], 1)

    await scratch.dropped_after(bench())
    names = {spec.name(taken[0]) for spec in topics.ALL}
    assert names <= await _names(kafka_bootstrap)
    scratch._made.append((kafka_bootstrap, taken[0]))
    monkeypatch.delenv("BENCH_KEEP_TOPICS")
    await scratch.dropped_after(asyncio.sleep(0))


async def test_a_test_sessions_topics_are_the_ones_holding_its_tags_and_only_those_go(
        kafka_bootstrap: str) -> None:
    from tests.kafka.support import drop_tagged, fresh_tag

    mine, other = fresh_tag(), uuid.uuid4().hex[:8]  # `other`: another session's
    for prefix in (f"t{mine}", f"t{other}"):
        await provision(kafka_bootstrap, prefix, 1)
    dropped = await drop_tagged(kafka_bootstrap, {mine})
    assert set(dropped) == {spec.name(f"t{mine}") for spec in topics.ALL}
    assert await _gone(kafka_bootstrap, set(dropped))
    assert {spec.name(f"t{other}") for spec in topics.ALL} <= await _names(kafka_bootstrap)
    await drop_topics(kafka_bootstrap, f"t{other}")
