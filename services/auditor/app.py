"""The auditor's Kafka shell around `okey101.audit`.

Consumes the events topic (read_committed) in a consumer group. The auditor's state (each
table's hand so far, every pair's figures over their shared matches) is a function of the
log: every assigned partition is re-read from the beginning into it. Records are published
to the audit topic (keyed by table, idempotent producer) only for events at or after the
group's committed offset, which is committed once they are published: a restart rebuilds
the figures without publishing a verdict or a flag twice (at least once across a crash
between the publishing and the commit).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.structs import OffsetAndMetadata

from okey101.app import bounds, topics
from okey101.audit.auditor import Auditor
from okey101.audit.collusion import MAX_ACCOUNTS, MAX_PAIRS
from okey101.audit.records import AnyRecord, CollusionFlag, HandFailed, HandVerified, encode
from okey101.table import messages as E
from services.auditor import metrics
from services.auditor.settings import AuditorSettings
from services.common.deadletters import DeadLetters
from services.common.kafka import (
    Rebalance,
    close_quietly,
    provision,
    record_lag,
    start_group_clients,
)
from services.common.lifecycle import Lifecycle
from services.common.reread import Reread

log = structlog.get_logger("auditor")


class AuditorService(Lifecycle):
    def __init__(self, bootstrap: str, prefix: str = "okey", group: str = "okey-auditor",
                 collusion: bool = True, instance_id: str | None = None,
                 partitions: int = topics.PARTITIONS, max_pairs: int = MAX_PAIRS,
                 max_accounts: int = MAX_ACCOUNTS) -> None:
        self.bootstrap = bootstrap
        self.prefix = prefix
        self.group = group
        self.instance_id = instance_id
        self.partitions = partitions
        self.events = topics.EVENTS.name(prefix)
        self.audit = topics.AUDIT.name(prefix)
        self.limits = (max_pairs, max_accounts)
        self.auditor = Auditor(collusion, *self.limits)
        self.reread = Reread(self.events, metrics.CATCHING_UP, "auditor")
        self.ready = self.reread.ready
        self.consumer: AIOKafkaConsumer | None = None
        self.producer: AIOKafkaProducer | None = None
        self.dead = DeadLetters("auditor", prefix)
        super().__init__()

    @classmethod
    def from_settings(cls, settings: AuditorSettings) -> AuditorService:
        return cls(settings.bootstrap, prefix=settings.prefix, group=settings.group,
                   collusion=settings.collusion, instance_id=settings.instance_id,
                   max_pairs=settings.max_pairs, max_accounts=settings.max_accounts)

    # ------------------------------------------------------------ lifecycle
    async def connect(self) -> None:
        self.partitions = await provision(self.bootstrap, self.prefix, self.partitions)
        producer, consumer = await start_group_clients(
            self.bootstrap, self.group, self.instance_id, self.events, Rebalance(self),
            linger_ms=5, fetch_max_wait_ms=50)
        self.producer, self.consumer = producer, consumer
        self.dead.producer = producer
        log.info("auditor_started", bootstrap=self.bootstrap, group=self.group,
                 prefix=self.prefix)

    async def run(self) -> None:
        if self.consumer is None:
            await self.connect()
        assert self.consumer is not None
        try:
            while not self.is_stopping:
                self.beat()
                batches = await self.consumer.getmany(timeout_ms=200, max_records=5000)
                epoch = self.reread.epoch
                async with self.reread.turn:  # no partition taken or dropped meanwhile
                    for tp, records in self.reread.fresh(batches, epoch).items():
                        await self._fold(tp, records)
                    await record_lag(self.consumer, self.events)
                    await self.reread.check(self.consumer)
        finally:
            await close_quietly(self.consumer, self.producer)
            log.info("auditor_stopped")

    def not_ready(self) -> str | None:
        return self.reread.not_ready()

    # ------------------------------------------------------------ partitions
    async def assign(self, assigned: Sequence[TopicPartition]) -> None:
        assert self.consumer is not None
        await self.reread.assign(self.consumer, assigned)

    async def revoke(self, revoked: Sequence[TopicPartition]) -> None:
        async with self.reread.turn:
            self.reread.revoke(revoked)
            # the tables of a revoked partition are audited by their new owner from the start
            if revoked:
                self.auditor = Auditor(self.auditor.collusion is not None, *self.limits)

    # ------------------------------------------------------------ folding
    async def _fold(self, tp: TopicPartition, records: list[Any]) -> None:
        if tp.topic != self.events or tp.partition not in self.reread.published_from:
            return
        first = self.reread.published_from[tp.partition]
        out: list[AnyRecord] = []
        last_offset = -1
        for record in records:
            last_offset = record.offset
            if record.value is None:
                continue
            if record.offset >= first:
                found = self.dead.apply(record, self._fold_one)
            else:  # a re-read: a record it cannot take was dead-lettered when first read
                try:
                    bounds.check(record.value, bounds.DERIVED)
                    found = self._fold_one(record)
                except Exception as exc:  # any record: the audit goes on
                    log.warning("undecodable_event", partition=tp.partition,
                                offset=record.offset, error=str(exc)[:300])
                    found = None
            if found is None:
                metrics.UNDECODABLE.inc()
                continue
            if record.offset >= first:
                out += found
            metrics.LAG_SECONDS.set(max(0.0, time.time() - record.timestamp / 1000))
        collusion = self.auditor.collusion
        if collusion is not None:
            metrics.KEPT.labels("pairs").set(len(collusion.pairs))
            metrics.KEPT.labels("accounts").set(len(collusion.accounts))
            metrics.FORGOTTEN.set(collusion.forgotten)
        if out:
            await self._publish(out)
        await self.dead.flush()
        if last_offset >= first and self.consumer is not None:
            await self.consumer.commit({tp: OffsetAndMetadata(last_offset + 1, "")})
            self.reread.published_from[tp.partition] = last_offset + 1

    def _fold_one(self, record: Any) -> list[AnyRecord]:
        event = E.event_decoder.decode(record.value)
        metrics.EVENTS.inc()
        return self.auditor.fold(event)

    async def _publish(self, out: list[AnyRecord]) -> None:
        assert self.producer is not None
        futures = [await self.producer.send(self.audit, encode(r), key=r.table_id.encode())
                   for r in out]
        await asyncio.gather(*futures)
        for r in out:
            bound = log.bind(table_id=r.table_id)
            if isinstance(r, HandVerified):
                metrics.HANDS_VERIFIED.inc()
            elif isinstance(r, HandFailed):
                metrics.HANDS_FAILED.labels(r.finding).inc()
                bound.warning("hand_failed", hand=r.hand, attempt=r.attempt,
                              finding=r.finding, seq=r.seq, event_type=r.event,
                              message=r.message)
            elif isinstance(r, CollusionFlag):
                metrics.FLAGS.labels(r.kind).inc()
                bound.warning("collusion_flag", kind=r.kind, players=r.players,
                              summary=r.summary)
