"""The rules processor's Kafka shell around `okey101.processing`.

Per assigned commands partition: one transactional producer (transactional id = group +
partition, so a new owner fences a zombie), a `PartitionTables` rebuilt from the events
and outcomes topics, and one transaction per consumed batch holding the events, outcomes,
views, dead letters and the consumed offsets. A failed transaction is aborted, the
partition rebuilt from the log and re-read from its committed offset.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Sequence

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.errors import KafkaError, ProducerFenced

from okey101 import topics
from okey101.processing import Output, PartitionTables
from okey101.table import messages as E
from services.common.kafka import provision, read_partitions
from services.processor import metrics

log = structlog.get_logger("processor")


class Processor:
    def __init__(self, bootstrap: str, prefix: str = "okey", group: str = "okey-processor",
                 allow_stacked_deals: bool = False, partitions: int = topics.PARTITIONS,
                 instance_id: str | None = None) -> None:
        self.instance_id = instance_id
        self.bootstrap = bootstrap
        self.prefix = prefix
        self.group = group
        self.allow_stacked_deals = allow_stacked_deals
        self.partitions = partitions
        self.commands = topics.COMMANDS.name(prefix)
        self.events = topics.EVENTS.name(prefix)
        self.outcomes = topics.OUTCOMES.name(prefix)
        self.views = topics.VIEWS.name(prefix)
        self.dead_letters = topics.DEAD_LETTERS.name(prefix)
        self.tables: dict[int, PartitionTables] = {}
        self.producers: dict[int, AIOKafkaProducer] = {}
        self.consumer: AIOKafkaConsumer | None = None
        self._stopping = asyncio.Event()
        self.ready = asyncio.Event()

    # ------------------------------------------------------------ lifecycle
    async def run(self) -> None:
        await provision(self.bootstrap, self.prefix, self.partitions)
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap, group_id=self.group, enable_auto_commit=False,
            isolation_level="read_committed", auto_offset_reset="earliest",
            max_poll_interval_ms=300000, session_timeout_ms=10000, heartbeat_interval_ms=1000,
            group_instance_id=self.instance_id)
        await self.consumer.start()
        self.consumer.subscribe([self.commands], listener=_Rebalance(self))
        log.info("processor_started", bootstrap=self.bootstrap, group=self.group,
                 prefix=self.prefix)
        try:
            while not self._stopping.is_set():
                await self._poll_once()
        finally:
            await self._shutdown()

    def stop(self) -> None:
        self._stopping.set()

    async def _shutdown(self) -> None:
        if self.consumer is not None:
            await self.consumer.stop()
        for producer in self.producers.values():
            await producer.stop()
        self.producers.clear()
        log.info("processor_stopped")

    # ------------------------------------------------------------ partitions
    async def assign(self, assigned: Sequence[TopicPartition]) -> None:
        new = [tp.partition for tp in assigned
               if tp.topic == self.commands and tp.partition not in self.producers]
        await self._take_partitions(new)
        self.ready.set()

    async def revoke(self, revoked: Sequence[TopicPartition]) -> None:
        for tp in revoked:
            producer = self.producers.pop(tp.partition, None)
            self.tables.pop(tp.partition, None)
            if producer is not None:
                await producer.stop()
            log.info("partition_revoked", partition=tp.partition)

    async def _take_partitions(self, partitions: list[int]) -> None:
        """Fence older owners (one transactional producer per partition), then rebuild the
        partitions' tables from the committed log."""
        producers: dict[int, AIOKafkaProducer] = {}
        try:
            for partition in partitions:
                producer = AIOKafkaProducer(
                    bootstrap_servers=self.bootstrap, enable_idempotence=True, linger_ms=2,
                    transactional_id=f"{self.group}-{partition}", request_timeout_ms=30000)
                await producer.start()  # init_transactions: fences and aborts an older owner
                producers[partition] = producer
            await self._rebuild(partitions)
        except BaseException:
            for producer in producers.values():
                await _stop_quietly(producer)
            raise
        self.producers.update(producers)

    async def _rebuild(self, partitions: list[int]) -> None:
        started = time.perf_counter()
        wanted = [(t, p) for p in partitions for t in (self.events, self.outcomes)]
        logs = await read_partitions(self.bootstrap, wanted)
        for partition in partitions:
            tables = PartitionTables(partition, self.partitions, self.allow_stacked_deals)
            events = logs[(self.events, partition)]
            for value in events:
                tables.restore_event(E.event_decoder.decode(value))
            for value in logs[(self.outcomes, partition)]:
                tables.restore_outcome(E.outcome_decoder.decode(value))
            self.tables[partition] = tables
            metrics.REBUILDS.inc()
            log.info("partition_rebuilt", partition=partition, events=len(events),
                     tables=len(tables.tables))
        metrics.ACTIVE_TABLES.set(sum(t.active_tables() for t in self.tables.values()))
        log.info("partitions_taken", partitions=partitions,
                 seconds=round(time.perf_counter() - started, 3))

    # ------------------------------------------------------------ processing
    async def _poll_once(self) -> None:
        assert self.consumer is not None
        batches = await self.consumer.getmany(timeout_ms=100, max_records=1000)
        for tp, records in batches.items():
            if not records:
                continue
            if tp.partition in self.producers and tp.partition in self.tables:
                await self._process(tp, records)
            elif tp in self.consumer.assignment():
                self.consumer.seek(tp, records[0].offset)  # not rebuilt yet: read again
        for tp in self.consumer.assignment():
            high = self.consumer.highwater(tp)
            if high is not None:
                position = await self.consumer.position(tp)
                metrics.LAG.labels(str(tp.partition)).set(max(0, high - position))

    async def _process(self, tp: TopicPartition, records: list) -> None:  # type: ignore[type-arg]
        assert self.consumer is not None
        producer = self.producers[tp.partition]
        tables = self.tables[tp.partition]
        started = time.perf_counter()
        outputs: list[tuple[object, Output]] = []
        try:
            async with producer.transaction():
                for record in records:
                    out = tables.handle(record.key, record.value, tp.topic, record.offset,
                                        _entropy)
                    await self._send(producer, tp.partition, record, out)
                    outputs.append((record, out))
                await producer.send_offsets_to_transaction(
                    {tp: records[-1].offset + 1}, self.group)
        except ProducerFenced:
            log.warning("producer_fenced", partition=tp.partition)
            await self.revoke([tp])
            return
        except (TimeoutError, KafkaError, OSError) as exc:
            metrics.TRANSACTION_FAILURES.inc()
            log.warning("transaction_failed", partition=tp.partition, error=repr(exc))
            await self._recover(tp)
            return
        now = time.time()
        metrics.BATCH.observe(time.perf_counter() - started)
        for record, out in outputs:
            self._account(tp.partition, record, out, now)
        metrics.ACTIVE_TABLES.set(sum(t.active_tables() for t in self.tables.values()))

    async def _send(self, producer: AIOKafkaProducer, partition: int, record: object,
                    out: Output) -> None:
        key = getattr(record, "key", None)
        for event in out.events:
            await producer.send(self.events, E.encode(event), key=key, partition=partition)
        for view in out.views:
            await producer.send(self.views, E.encode(view), partition=partition,
                                key=f"{view.table_id}:{view.seat}".encode())
        if out.outcome is not None:
            await producer.send(self.outcomes, E.encode(out.outcome), key=key,
                                partition=partition)
        if out.dead_letter is not None:
            await producer.send(self.dead_letters, E.encode(out.dead_letter), key=key)

    def _account(self, partition: int, record: object, out: Output, now: float) -> None:
        offset = getattr(record, "offset", -1)
        timestamp = getattr(record, "timestamp", None)
        if timestamp:
            metrics.LATENCY.observe(max(0.0, now - timestamp / 1000))
        if out.dead_letter is not None:
            metrics.DEAD_LETTERS.inc()
            log.warning("dead_letter", partition=partition, offset=offset,
                        reason=out.dead_letter.reason)
            return
        command, outcome = out.command, out.outcome
        assert command is not None and outcome is not None
        kind = type(command).__struct_config__.tag
        bound = log.bind(table_id=command.table_id, command_id=command.command_id,
                         seq=command.seq, partition=partition, offset=offset)
        if outcome.duplicate:
            metrics.DUPLICATES.inc()
            metrics.COMMANDS.labels(kind, "duplicate").inc()
            bound.info("duplicate_command")
        elif outcome.accepted:
            metrics.COMMANDS.labels(kind, "accepted").inc()
            bound.debug("command_accepted", seqs=outcome.seqs)
        else:
            metrics.COMMANDS.labels(kind, "rejected").inc()
            metrics.REJECTIONS.labels(outcome.code).inc()
            bound.info("command_rejected", code=outcome.code, reason=outcome.message)

    async def _recover(self, tp: TopicPartition) -> None:
        """After an aborted transaction: a fresh producer (the old one may be unusable),
        the partition rebuilt from the log, and re-reading from the committed offset."""
        assert self.consumer is not None
        await _stop_quietly(self.producers.pop(tp.partition, None))
        while not self._stopping.is_set():
            try:
                await asyncio.sleep(0.5)
                if tp not in self.consumer.assignment():
                    return
                committed = await self.consumer.committed(tp)
                await self._take_partitions([tp.partition])
                if committed is None:
                    await self.consumer.seek_to_beginning(tp)
                else:
                    self.consumer.seek(tp, committed)
                return
            except (TimeoutError, KafkaError, OSError) as exc:
                await _stop_quietly(self.producers.pop(tp.partition, None))
                log.warning("recovery_retry", partition=tp.partition, error=repr(exc))


async def _stop_quietly(producer: AIOKafkaProducer | None) -> None:
    if producer is not None:
        with contextlib.suppress(KafkaError, OSError, asyncio.TimeoutError):
            await asyncio.wait_for(producer.stop(), 10)


def _entropy() -> str:
    return os.urandom(32).hex()


class _Rebalance(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, processor: Processor) -> None:
        self.processor = processor

    async def on_partitions_revoked(self, revoked: Sequence[TopicPartition]) -> None:
        await self.processor.revoke(revoked)

    async def on_partitions_assigned(self, assigned: Sequence[TopicPartition]) -> None:
        await self.processor.assign(assigned)
