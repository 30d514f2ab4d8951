"""Kafka wiring shared by the services: where the broker is, and the topics."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from typing import Protocol

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import IllegalStateError, TopicAlreadyExistsError
from prometheus_client import Gauge

from okey101.app import topics
from okey101.errors import InfrastructureFault

DEFAULT_BOOTSTRAP = "127.0.0.1:19092"
LEADER_WAIT_S = 30.0

# Every consumer reports its lag the same way, whatever the service.
LAG = Gauge("okey_consumer_lag", "Records not yet consumed, by partition of the consumed "
            "topic (a transactional topic leaves 1: its last commit marker)", ["partition"])


def bootstrap_servers(explicit: str | None = None) -> str:
    return explicit or os.environ.get("KAFKA_BOOTSTRAP") or DEFAULT_BOOTSTRAP


def topic_config(spec: topics.TopicSpec) -> dict[str, str]:
    return {"retention.ms": str(spec.retention_ms), "cleanup.policy": spec.cleanup}


async def provision(bootstrap: str, prefix: str = "okey",
                    partitions: int = topics.PARTITIONS) -> int:
    """Create every topic that is missing (with `partitions`); check that the table topics
    share one partition count, and return it."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        wanted = [NewTopic(spec.name(prefix), partitions, 1, topic_configs=topic_config(spec))
                  for spec in topics.ALL if spec.name(prefix) not in existing]
        if wanted:
            with contextlib.suppress(TopicAlreadyExistsError):  # another instance won
                await admin.create_topics(wanted)
        names = [topics.COMMANDS.name(prefix), topics.EVENTS.name(prefix),
                 topics.OUTCOMES.name(prefix), topics.VIEWS.name(prefix),
                 topics.SEAT_VIEWS.name(prefix)]
        for _ in range(50):
            described = await admin.describe_topics(names)
            counts = {d["topic"]: len(d["partitions"]) for d in described if not d["error_code"]}
            if len(counts) == len(names):
                break
            await asyncio.sleep(0.1)
        else:
            raise InfrastructureFault(f"topics {names} did not appear")
        if len(set(counts.values())) != 1:
            raise InfrastructureFault(f"topics must share one partition count: {counts}")
        await wait_for_leaders(admin, [spec.name(prefix) for spec in topics.ALL])
        return next(iter(counts.values()))
    finally:
        await admin.close()


async def wait_for_leaders(admin: AIOKafkaAdminClient, names: list[str],
                           timeout: float = LEADER_WAIT_S) -> None:
    """Until every partition of `names` has a leader: a producer that starts before that
    only logs LEADER_NOT_AVAILABLE and retries."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        described = await admin.describe_topics(names)
        leaderless = [f"{d['topic']}/{p['partition']}" for d in described
                      for p in d["partitions"] if p["leader"] < 0] + \
                     [d["topic"] for d in described if d["error_code"]]
        if not leaderless:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise InfrastructureFault(f"no leader after {timeout:.0f} s for {leaderless[:5]}")
        await asyncio.sleep(0.1)


async def record_lag(consumer: AIOKafkaConsumer, topic: str) -> None:
    """`okey_consumer_lag` of every assigned partition of `topic`, from the consumer's last
    fetch (high watermark minus position)."""
    for tp in consumer.assignment():
        high = consumer.highwater(tp)
        if tp.topic != topic or high is None:
            continue
        try:
            position = await consumer.position(tp)
        except IllegalStateError:  # revoked meanwhile
            continue
        LAG.labels(str(tp.partition)).set(max(0, high - position))


def forget_lag(partitions: Sequence[int]) -> None:
    """No lag series for partitions this instance no longer consumes."""
    for partition in partitions:
        with contextlib.suppress(KeyError):
            LAG.remove(str(partition))


async def read_partitions(bootstrap: str, wanted: list[tuple[str, int]]
                          ) -> dict[tuple[str, int], list[bytes]]:
    """Every committed value of each (topic, partition), from the beginning to the end as
    of now, with one consumer."""
    out: dict[tuple[str, int], list[bytes]] = {w: [] for w in wanted}
    if not wanted:
        return out
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                isolation_level="read_committed", group_id=None,
                                max_partition_fetch_bytes=8 * 1024 * 1024)
    await consumer.start()
    try:
        tps = [TopicPartition(t, p) for t, p in wanted]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        pending = {tp for tp in tps if ends[tp] > 0}
        while pending:
            batch = await consumer.getmany(*pending, timeout_ms=1000, max_records=10000)
            for tp, records in batch.items():
                out[(tp.topic, tp.partition)] += [r.value for r in records if r.value is not None]
            for tp in list(pending):
                if await consumer.position(tp) >= ends[tp]:
                    pending.discard(tp)
        return out
    finally:
        await consumer.stop()


class PartitionOwner(Protocol):
    async def assign(self, assigned: Sequence[TopicPartition]) -> None: ...

    async def revoke(self, revoked: Sequence[TopicPartition]) -> None: ...


class Rebalance(ConsumerRebalanceListener):  # type: ignore[misc]
    """Hands a consumer group's partition changes to the service that owns them."""

    def __init__(self, owner: PartitionOwner) -> None:
        self.owner = owner

    async def on_partitions_revoked(self, revoked: Sequence[TopicPartition]) -> None:
        await self.owner.revoke(revoked)

    async def on_partitions_assigned(self, assigned: Sequence[TopicPartition]) -> None:
        await self.owner.assign(assigned)
