"""The views service's Kafka shell around `okey101.app.views.playerviews`.

Consumes the events topic (read_committed) in a consumer group and publishes every seat's
view (people's, bots', the spectators') to the player-views topic, which the gateways and
the bots service read, on the events' partition, so that a table's updates keep their order
(the spectators' before a seat's). Its memory (each live table's state) is a function of
the log: every assigned partition is re-read from the beginning into it, and updates are
published only for events at or after the group's committed offset, which is committed
once they are acknowledged. Across a crash between the two, updates go out again (at least
once) with versions the gateways already hold, which they ignore.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.structs import OffsetAndMetadata

from okey101.app import bounds, topics
from okey101.app.views.playerviews import PlayerViews
from okey101.errors import IllegalMove
from okey101.table import messages as E
from services.common.deadletters import DeadLetters
from services.common.kafka import (
    BATCH_BYTES,
    PartitionBatches,
    Rebalance,
    close_quietly,
    provision,
    record_lag,
    start_group_clients,
)
from services.common.lifecycle import Lifecycle
from services.common.reread import Reread
from services.views import metrics
from services.views.settings import ViewsSettings

log = structlog.get_logger("views")


class ViewsService(Lifecycle):
    def __init__(self, bootstrap: str, prefix: str = "okey", group: str = "okey-views",
                 instance_id: str | None = None, partitions: int = topics.PARTITIONS,
                 compression: str = "zstd") -> None:
        self.bootstrap = bootstrap
        self.compression = None if compression == "none" else compression
        self.prefix = prefix
        self.group = group
        self.instance_id = instance_id
        self.partitions = partitions
        self.events = topics.EVENTS.name(prefix)
        self.player_views = topics.PLAYER_VIEWS.name(prefix)
        self.views = PlayerViews()
        self.dead = DeadLetters("views", prefix)
        self.reread = Reread(self.events, metrics.CATCHING_UP, "views")
        self.ready = self.reread.ready
        self.consumer: AIOKafkaConsumer | None = None
        self.producer: AIOKafkaProducer | None = None
        super().__init__()

    @classmethod
    def from_settings(cls, settings: ViewsSettings) -> ViewsService:
        return cls(settings.bootstrap, prefix=settings.prefix, group=settings.group,
                   instance_id=settings.instance_id, compression=settings.compression)

    # ------------------------------------------------------------ lifecycle
    async def connect(self) -> None:
        self.partitions = await provision(self.bootstrap, self.prefix, self.partitions)
        producer, consumer = await start_group_clients(
            self.bootstrap, self.group, self.instance_id, self.events, Rebalance(self),
            linger_ms=1, fetch_max_wait_ms=20, max_batch_size=BATCH_BYTES,
            compression_type=self.compression)
        self.producer, self.consumer = producer, consumer
        self.dead.producer = producer
        log.info("views_started", bootstrap=self.bootstrap, group=self.group,
                 prefix=self.prefix)

    async def run(self) -> None:
        if self.consumer is None:
            await self.connect()
        assert self.consumer is not None
        try:
            while not self.is_stopping:
                self.beat()
                batches = await self.consumer.getmany(timeout_ms=100, max_records=5000)
                epoch = self.reread.epoch
                async with self.reread.turn:  # no partition taken or dropped meanwhile
                    await self._project(self.reread.fresh(batches, epoch))
                    await record_lag(self.consumer, self.events)
                    if self.reread.catching_up or not self.ready.is_set():
                        await self.reread.check(self.consumer, tables=len(self.views.tables))
        finally:
            await close_quietly(self.consumer, self.producer)
            log.info("views_stopped")

    def not_ready(self) -> str | None:
        return self.reread.not_ready()

    # ------------------------------------------------------------ partitions
    async def assign(self, assigned: Sequence[TopicPartition]) -> None:
        assert self.consumer is not None
        await self.reread.assign(self.consumer, assigned)

    async def revoke(self, revoked: Sequence[TopicPartition]) -> None:
        async with self.reread.turn:
            gone = self.reread.revoke(revoked)
            self.views.forget(
                lambda t: topics.partition_for(t.encode(), self.partitions) in gone)
            metrics.TABLES.set(len(self.views.tables))

    # ------------------------------------------------------------ projecting
    async def _project(self, batches: dict[TopicPartition, list[Any]]) -> None:
        """One poll's records: the views of every partition's live events published, then
        the offsets after them committed, once for all partitions."""
        assert self.producer is not None
        sending: list[PartitionBatches] = []
        offsets: dict[TopicPartition, OffsetAndMetadata] = {}
        published = 0
        oldest: float | None = None  # the record time of the first live event (ms)
        for tp, records in batches.items():
            if tp.topic != self.events or tp.partition not in self.reread.published_from:
                continue
            updates, first_at = self._fold(tp.partition, records)
            if updates:
                out = PartitionBatches(self.producer, tp.partition)
                for u in updates:
                    await out.add(self.player_views, u.key, u.value)
                await out.flush()
                sending.append(out)
            published += len(updates)
            if first_at is not None:
                oldest = first_at if oldest is None else min(oldest, first_at)
            last = records[-1].offset if records else -1
            if last >= self.reread.published_from[tp.partition]:
                offsets[tp] = OffsetAndMetadata(last + 1, "")
        for out in sending:
            await out.acknowledged()
        await self.dead.flush()
        metrics.UPDATES.inc(published)
        if oldest is not None:
            metrics.DELAY.observe(max(0.0, time.time() - oldest / 1000))
        if offsets and self.consumer is not None:
            await self.consumer.commit(offsets)
            for tp, done in offsets.items():
                if tp.partition in self.reread.published_from:
                    self.reread.published_from[tp.partition] = done.offset
        metrics.TABLES.set(len(self.views.tables))

    def _fold(self, partition: int, records: list[Any]) -> tuple[list[Any], float | None]:
        """The updates of a partition's records past its published offset (those before it
        are folded without a view: a rebuild), and the record time of the first of them.
        A live record that cannot be decoded or folded is a dead letter; one re-read before
        the published offset was one when first read, and is only skipped again."""
        first = self.reread.published_from[partition]
        live: list[E.Event] = []
        live_records: list[Any] = []
        first_at = None
        for record in records:
            if record.offset >= first:  # a null is a dead letter too: events are never null
                event = self.dead.apply(record, _decode)
                if event is None:
                    metrics.SKIPPED.labels("undecodable").inc()
                    continue
                metrics.EVENTS.inc()
                live.append(event)
                live_records.append(record)
                first_at = record.timestamp if first_at is None else first_at
                continue
            if record.value is None:
                continue
            try:
                bounds.check(record.value, bounds.DERIVED)
                self.views.fold(_decode(record))
                metrics.EVENTS.inc()
            except Exception as exc:  # dead-lettered when first read
                self._skip(partition, record.offset, "out_of_sequence"
                           if isinstance(exc, IllegalMove) else "undecodable", str(exc)[:300])
        if not live:
            return [], None
        updates, skipped = self.views.publish_each(live)
        for index, _, error in skipped:
            metrics.SKIPPED.labels("out_of_sequence").inc()
            self.dead.hold(live_records[index], error,
                           kind="invalid" if isinstance(error, IllegalMove) else "")
        return updates, first_at

    def _skip(self, partition: int, offset: int | None, reason: str, detail: str) -> None:
        metrics.SKIPPED.labels(reason).inc()
        log.warning("event_skipped", partition=partition, offset=offset, reason=reason,
                    detail=detail)


def _decode(record: Any) -> E.Event:
    event: E.Event = E.event_decoder.decode(record.value)
    return event
