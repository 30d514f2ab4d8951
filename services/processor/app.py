"""The rules processor's Kafka shell around `okey101.app.processor.processing`.

Per assigned commands partition: a worker with its own two transactional producers, used
in turn (transactional ids = group + partition, and the same + "-b", so a new owner fences
a zombie: aiokafka has no KIP-447, so fencing must come from the transactional id), a
`PartitionTables` rebuilt from the events and outcomes topics, and one transaction per
batch holding only what must be exactly once: the events, outcomes, snapshots, dead letters
and the consumed offsets. Every view (the people's, the bots', the spectators') is built
from the events by its own service (services/views), outside this transaction: views were
most of a decision's cost. One
consumer feeds the workers; partitions commit independently, so a slow transaction on one
does not hold up another. A failed transaction is aborted, the partition rebuilt from the
log and re-read from its committed offset.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Sequence
from typing import Any

import msgspec
import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import KafkaError, ProducerFenced

from okey101.app import bounds, topics
from okey101.app.processor import snapshots as S
from okey101.app.processor.processing import (
    FINISHED_WINDOW,
    OUTCOMES_PER_TABLE,
    Output,
    PartitionTables,
    dead_letter,
)
from okey101.table import messages as E
from okey101.table.state import TableState
from services.common import deadletters
from services.common.kafka import (
    BATCH_BYTES,
    PartitionBatches,
    Rebalance,
    client_security,
    end_offsets,
    forget_lag,
    provision,
    read_partition_records,
    record_lag,
)
from services.common.lifecycle import Lifecycle
from services.common.memory import bulk_load
from services.common.tasks import TASKS
from services.processor import metrics
from services.processor.settings import SNAPSHOT_EVERY, ProcessorSettings

log = structlog.get_logger("processor")
MAX_QUEUED = 5000  # records waiting for one partition's worker before fetching pauses
_FAULTS = (KafkaError, OSError, TimeoutError)
Producers = tuple[AIOKafkaProducer, AIOKafkaProducer]
# A graceful stop (SIGTERM, a revoked partition): the transaction under way may take this
# long to commit before it is abandoned (the next owner's init_transactions aborts it),
# then each producer this long to close; the partitions close concurrently. With the
# consumer's leave-group, a stop takes at most about TRANSACTION_GRACE_S + 2 *
# CLOSE_TIMEOUT_S: the systemd unit's TimeoutStopSec leaves room above that.
TRANSACTION_GRACE_S = 10.0
CLOSE_TIMEOUT_S = 5.0
# A transaction's request refused because the transactional id's previous transaction is
# still being completed is retried after this wait. On Kafka 3.9 here, 40 s at 1,000 then
# 2,000 commands/s saw 110 offset commits refused (TxnOffsetCommit: COORDINATOR_NOT_AVAILABLE,
# the coordinator then looked up again) and 65 AddPartitionsToTxn (CONCURRENT_TRANSACTIONS,
# on a producer used for consecutive transactions; aiokafka always retries those after
# 20 ms). The two producers a partition uses in turn avoid the second kind; the first clears
# within a few ms. At aiokafka's default of 100 ms, about one transaction in fourteen took
# 100-250 ms; at 20 ms the retries were still most of the p99.
TRANSACTION_RETRY_BACKOFF_MS = 5
GAUGE_EVERY_S = 1.0  # the state gauges after transactions: at most once a second
# A partition worker that failed (any exception but a broker fault, which `_recover`
# handles as before) is restarted in the process: rebuilt from the log and re-read from
# its committed offset, the records of the failed batch then one per transaction. Each
# failure counts against the offsets it was applying; a record at `KILLS_TO_SKIP` is
# dead-lettered (kind "poison") instead of applied, so a restart loop cannot stall the
# partition. /readyz names the worker for at least `FAILURE_SHOWN_S` after a failure.
KILLS_TO_SKIP = 2
FAILURE_SHOWN_S = 5.0
RESTART_BACKOFF_S = 1.0


class Processor(Lifecycle):
    def __init__(self, bootstrap: str, prefix: str = "okey", group: str = "okey-processor",
                 allow_stacked_deals: bool = False, partitions: int = topics.PARTITIONS,
                 instance_id: str | None = None, linger: float = 0.002,
                 finished_window: int = FINISHED_WINDOW,
                 snapshot_every: int = SNAPSHOT_EVERY,
                 outcomes_per_table: int = OUTCOMES_PER_TABLE) -> None:
        self.bootstrap = bootstrap
        self.prefix = prefix
        self.group = group
        self.allow_stacked_deals = allow_stacked_deals
        self.partitions = partitions
        self.instance_id = instance_id
        self.linger = linger
        self.finished_window = finished_window
        self.snapshot_every = snapshot_every
        self.outcomes_per_table = outcomes_per_table
        # per partition, the last rebuild: (from a snapshot, events read, outcomes read)
        self.rebuilt: dict[int, tuple[bool, int, int]] = {}
        self.commands = topics.COMMANDS.name(prefix)
        self.events = topics.EVENTS.name(prefix)
        self.outcomes = topics.OUTCOMES.name(prefix)
        self.dead_letters = topics.DEAD_LETTERS.name(prefix)
        self.snapshots = topics.SNAPSHOTS.name(prefix)
        self.workers: dict[int, _Worker] = {}
        # per partition, the offsets whose batch failed a worker, with how often (kept
        # across the worker's restarts and reassignments within this process)
        self.kills: dict[int, dict[int, int]] = {}
        self._gauged = -float("inf")  # when the state gauges were last set (monotonic)
        self.consumer: AIOKafkaConsumer | None = None
        super().__init__()

    @classmethod
    def from_settings(cls, settings: ProcessorSettings) -> Processor:
        return cls(settings.bootstrap, prefix=settings.prefix, group=settings.group,
                   allow_stacked_deals=settings.allow_stacked_deals,
                   instance_id=settings.instance_id, linger=settings.linger_ms / 1000,
                   finished_window=settings.finished_window,
                   snapshot_every=settings.snapshot_every,
                   outcomes_per_table=settings.outcomes_per_table)

    # ------------------------------------------------------------ lifecycle
    async def connect(self) -> None:
        """The topics provisioned and the group consumer started (closed again on failure)."""
        self.partitions = await provision(self.bootstrap, self.prefix, self.partitions)
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap, group_id=self.group, enable_auto_commit=False,
            isolation_level="read_committed", auto_offset_reset="earliest",
            max_poll_interval_ms=300000, session_timeout_ms=10000, heartbeat_interval_ms=1000,
            group_instance_id=self.instance_id,
            # a fetch is answered as soon as records come (measured on Kafka 3.9: a
            # read_committed fetch too, once a commit moves the last stable offset);
            # the wait only bounds an idle poll
            fetch_max_wait_ms=20, **client_security())
        try:
            await consumer.start()
        except BaseException:
            await _stop_consumer_quietly(consumer)
            raise
        consumer.subscribe([self.commands], listener=Rebalance(self))
        self.consumer = consumer
        log.info("processor_started", bootstrap=self.bootstrap, group=self.group,
                 prefix=self.prefix, partitions=self.partitions)

    async def run(self) -> None:
        if self.consumer is None:
            await self.connect()
        try:
            while not self.is_stopping:
                self.beat()
                await self._poll_once()
        finally:
            await self._shutdown()

    def not_ready(self) -> str | None:
        assert self.consumer is not None
        assigned = {tp.partition for tp in self.consumer.assignment()
                    if tp.topic == self.commands}
        if not assigned:
            return "no commands partition assigned"
        missing = sorted(assigned - set(self.workers))
        return f"partitions {missing} not rebuilt yet" if missing else None

    async def _shutdown(self) -> None:
        started = time.perf_counter()
        await self.revoke([TopicPartition(self.commands, p) for p in list(self.workers)])
        if self.consumer is not None:
            await _stop_consumer_quietly(self.consumer)
        log.info("processor_stopped", seconds=round(time.perf_counter() - started, 3))

    # ------------------------------------------------------------ partitions
    async def assign(self, assigned: Sequence[TopicPartition]) -> None:
        new = [tp.partition for tp in assigned
               if tp.topic == self.commands and tp.partition not in self.workers]
        await self._take_partitions(new)

    async def revoke(self, revoked: Sequence[TopicPartition]) -> None:
        """Close the partitions' workers together, each finishing its transaction."""
        closing = [(tp.partition, self.workers.pop(tp.partition)) for tp in revoked
                   if tp.topic == self.commands and tp.partition in self.workers]
        await asyncio.gather(*(worker.close() for _, worker in closing))
        for partition, _ in closing:
            log.info("partition_revoked", partition=partition)
        forget_lag([tp.partition for tp in revoked if tp.topic == self.commands])
        self._gauge()

    def _gauge(self, every: float = 0.0) -> None:
        """The state gauges. They walk every table of every partition: after a transaction
        at most once per `every` seconds (per transaction it was the processor's tail)."""
        now = time.monotonic()
        if now - self._gauged < every:
            return
        self._gauged = now
        metrics.ACTIVE_TABLES.set(sum(w.tables.active_tables() for w in self.workers.values()))
        metrics.KEPT_COMMAND_IDS.set(sum(w.tables.command_ids() for w in self.workers.values()))
        metrics.FINISHED_TABLES.set(sum(len(w.tables.finished) for w in self.workers.values()))
        metrics.OWNED_PARTITIONS.set(len(self.workers))

    async def _take_partitions(self, partitions: list[int]) -> None:
        """Fence older owners (two transactional producers per partition), then rebuild
        the partitions' tables from the committed log."""
        producers: dict[int, Producers] = {}
        try:
            for partition in partitions:
                producers[partition] = await self._producers(partition)
            tables = await self._rebuild(partitions)
        except BaseException:
            for pair in producers.values():
                await _stop_all(pair)
            raise
        for partition in partitions:
            tp = TopicPartition(self.commands, partition)
            self.workers[partition] = _Worker(self, tp, producers[partition], tables[partition])
        self._gauge()

    async def _producers(self, partition: int) -> Producers:
        """A partition's two transactional producers, used in turn: a transaction's commit
        markers are still being written when the next transaction begins, and on the same
        transactional id its AddPartitionsToTxn would be refused (CONCURRENT_TRANSACTIONS)
        and retried 20 ms later (`TRANSACTION_RETRY_BACKOFF_MS`); the other id's markers
        are written by then. The first id is the one a single producer had, so it fences
        an older build."""
        first = await self._producer(f"{self.group}-{partition}")
        try:
            return first, await self._producer(f"{self.group}-{partition}-b")
        except BaseException:
            await _stop_quietly(first)
            raise

    async def _producer(self, transactional_id: str) -> AIOKafkaProducer:
        producer = AIOKafkaProducer(
            bootstrap_servers=self.bootstrap, enable_idempotence=True, acks="all", linger_ms=1,
            transactional_id=transactional_id, request_timeout_ms=30000,
            retry_backoff_ms=TRANSACTION_RETRY_BACKOFF_MS, max_batch_size=BATCH_BYTES,
            **client_security())
        try:
            await producer.start()  # init_transactions: fences and aborts an older owner
        except BaseException:
            await _stop_quietly(producer)
            raise
        return producer

    async def _rebuild(self, partitions: list[int], use_snapshots: bool = True
                       ) -> dict[int, PartitionTables]:
        """Each partition's memory: its latest snapshot and the tail of the events and
        outcomes logs after it, or the whole logs where no snapshot is usable (or
        `use_snapshots` is False)."""
        started = time.perf_counter()
        with bulk_load():
            shots = await read_partition_records(
                self.bootstrap, {(self.snapshots, p): 0 for p in partitions})
            if not use_snapshots:
                shots = {k: [] for k in shots}
            ends = await end_offsets(self.bootstrap, [
                (t, p) for p in partitions for t in (self.events, self.outcomes)])
            found = {p: self._latest_snapshot(p, shots[(self.snapshots, p)],
                                              (ends[(self.events, p)], ends[(self.outcomes, p)]))
                     for p in partitions}
            starts: dict[tuple[str, int], int] = {}
            for partition, shot in found.items():
                starts[(self.events, partition)] = shot[0].events_offset if shot else 0
                starts[(self.outcomes, partition)] = shot[0].outcomes_offset if shot else 0
            logs = await read_partition_records(self.bootstrap, starts)
            out = {p: self._fold(p, shots[(self.snapshots, p)], found[p], logs)
                   for p in partitions}
        log.info("partitions_taken", partitions=partitions,
                 seconds=round(time.perf_counter() - started, 3))
        return out

    def _latest_snapshot(self, partition: int, records: list[Any], ends: tuple[int, int]
                         ) -> tuple[S.Cut, dict[str, S.StoredTable]] | None:
        try:
            return S.latest(records, partition, ends)
        except Exception as exc:  # Unusable, or anything else: the full log is read
            if records:
                kind = exc.kind if isinstance(exc, S.Unusable) else "failed"
                metrics.SNAPSHOT_FALLBACKS.labels(reason=kind).inc()
                log.warning("snapshot_unusable", partition=partition, reason=str(exc),
                            kind=kind)
            return None

    def _fold(self, partition: int, shot_records: list[Any],
              shot: tuple[S.Cut, dict[str, S.StoredTable]] | None,
              logs: dict[tuple[str, int], Any]) -> PartitionTables:
        """One partition's memory from its snapshot (if any) and its logs read after it."""
        tables = PartitionTables(partition, self.partitions, self.allow_stacked_deals,
                                 finished_window=self.finished_window,
                                 outcomes_per_table=self.outcomes_per_table,
                                 snapshots=self.snapshot_every > 0)
        if shot is not None:
            tables.load(*shot)
        events = decode_log(logs[(self.events, partition)], E.event_decoder,
                            self.events, partition)
        outcomes = decode_log(logs[(self.outcomes, partition)], E.outcome_decoder,
                              self.outcomes, partition)
        tables.restore(events, outcomes)
        if shot is None and tables.snapshots:  # the next cut rewrites every key held
            present = {k.decode() for _, k, _ in shot_records
                       if k is not None and not k.startswith(b"~cut:")}
            tables.dirty = set(tables.tables) | set(tables.finished) | present
        self.rebuilt[partition] = (shot is not None, len(events), len(outcomes))
        metrics.REBUILDS.inc()
        log.info("partition_rebuilt", partition=partition, snapshot=shot is not None,
                 snapshot_records=len(shot_records), events=len(events),
                 outcomes=len(outcomes), tables=len(tables.tables),
                 finished=len(tables.finished), command_ids=tables.command_ids())
        return tables

    # ------------------------------------------------------------ the consumer loop
    async def _poll_once(self) -> None:
        assert self.consumer is not None
        batches = await self.consumer.getmany(timeout_ms=100, max_records=2000)
        for tp, records in batches.items():
            worker = self.workers.get(tp.partition)
            if worker is None:
                if records and tp in self.consumer.assignment():
                    self.consumer.seek(tp, records[0].offset)  # not rebuilt yet: again
                continue
            worker.feed(records)
        await record_lag(self.consumer, self.commands)


class _Worker:
    """One commands partition: its queue, its producers, its tables, its transactions."""

    def __init__(self, processor: Processor, tp: TopicPartition, producers: Producers,
                 tables: PartitionTables) -> None:
        self.p = processor
        self.tp = tp
        self.producers = producers
        self.turn = 0  # the producer of the next transaction
        self.tables = tables
        self.queue: list[Any] = []
        self.next_offset = -1  # records below this were already taken (a stale fetch)
        self.since_cut = 0  # commands since the last snapshot
        self.wake = asyncio.Event()
        self.paused = False
        self.closing = False
        self.inflight: list[int] = []  # the offsets of the transaction under way
        self.careful_until = -1  # records below this offset go one per transaction
        self.last_error: BaseException | None = None
        self.task = asyncio.create_task(self._run())

    @property
    def producer(self) -> AIOKafkaProducer:
        """The producer of the transaction under way (or the next one)."""
        return self.producers[self.turn]

    def feed(self, records: list[Any]) -> None:
        fresh = [r for r in records if r.offset >= self.next_offset]
        if fresh:
            self.next_offset = fresh[-1].offset + 1
            self.queue.extend(fresh)
            self.wake.set()
        consumer = self.p.consumer
        if consumer is not None and len(self.queue) > MAX_QUEUED and not self.paused:
            consumer.pause(self.tp)
            self.paused = True

    async def close(self) -> None:
        """Let the transaction under way finish (a few ms; at most TRANSACTION_GRACE_S),
        then stop."""
        self.closing = True
        self.wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), TRANSACTION_GRACE_S)
        except TimeoutError:
            log.warning("transaction_abandoned", partition=self.tp.partition,
                        grace_s=TRANSACTION_GRACE_S)
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        TASKS.recovered(self.name)
        await _stop_all(self.producers)

    @property
    def name(self) -> str:
        return f"partition {self.tp.partition} worker"

    async def _run(self) -> None:
        """`_work` under supervision: any exception restarts it (`KILLS_TO_SKIP`); it ends
        only when closing or when this instance no longer owns the partition."""
        recovering = False
        while not self.closing:
            try:
                if recovering:
                    if not await self._recover():
                        return
                    recovering = False
                    TASKS.recovered_after(self.name, FAILURE_SHOWN_S)
                await self._work()
                return
            except Exception as exc:  # no exception may end the worker
                self._failed(exc)
                recovering = True
                await asyncio.sleep(RESTART_BACKOFF_S)

    def _failed(self, exc: BaseException) -> None:
        TASKS.failed(self.name, exc, label="partition_worker")
        kills = self.p.kills.setdefault(self.tp.partition, {})
        for offset in self.inflight:
            kills[offset] = kills.get(offset, 0) + 1
        if self.inflight:
            self.careful_until = max(self.careful_until, self.inflight[-1] + 1)
        self.last_error = exc
        self.inflight = []

    async def _work(self) -> None:
        while not self.closing:
            await self.wake.wait()
            if self.closing:
                return
            if self.p.linger > 0:
                # a transaction costs five broker round trips whatever it holds: let a
                # few more commands join it
                await asyncio.sleep(self.p.linger)
            self.wake.clear()
            batch, self.queue = self.queue, []
            if self.paused and self.p.consumer is not None:
                self.p.consumer.resume(self.tp)
                self.paused = False
            while batch and batch[0].offset < self.careful_until:
                # after a failure: the records it was applying, one per transaction
                if not await self._process(batch[:1]):
                    return
                batch = batch[1:]
            if batch and not await self._process(batch):
                return

    async def _process(self, records: list[Any]) -> bool:
        """One transaction; False when this instance no longer owns the partition."""
        started = time.perf_counter()
        ended_before = self.tables.hands_ended
        outputs: list[tuple[Any, Output]] = []
        kills = self.p.kills.get(self.tp.partition, {})
        self.inflight = [r.offset for r in records]
        try:
            async with self.producer.transaction():
                batches = PartitionBatches(self.producer, self.tp.partition)
                for record in records:
                    if kills.get(record.offset, 0) >= KILLS_TO_SKIP:
                        out = self._poison(record)
                    else:
                        out = self.tables.handle(record.key, record.value, self.tp.topic,
                                                 record.offset, _entropy,
                                                 record.timestamp or 0)
                    await self._send(batches, record, out)
                    outputs.append((record, out))
                await batches.flush()
                self.since_cut += len(records)
                if self._snapshot_due(self.tables.hands_ended > ended_before):
                    await self._snapshot(batches)
                await self.producer.send_offsets_to_transaction(
                    {self.tp: records[-1].offset + 1}, self.p.group)
        except ProducerFenced:
            log.warning("producer_fenced", partition=self.tp.partition)
            if self.p.workers.get(self.tp.partition) is self:
                del self.p.workers[self.tp.partition]
            await _stop_all(self.producers)
            return False
        except _FAULTS as exc:
            metrics.TRANSACTION_FAILURES.inc()
            metrics.ABORTED_COMMANDS.inc(len(records))
            log.warning("transaction_failed", partition=self.tp.partition, error=repr(exc))
            self.inflight = []
            return await self._recover()
        self.inflight = []
        for record in records:
            kills.pop(record.offset, None)
        self.turn = 1 - self.turn
        now = time.time()
        metrics.BATCH.observe(time.perf_counter() - started)
        debug = log.bind().is_enabled_for(logging.DEBUG)
        for record, out in outputs:
            _account(self.tp.partition, record, out, now, self.tables.tables, debug)
        self.p._gauge(every=GAUGE_EVERY_S)
        return True

    def _poison(self, record: Any) -> Output:
        """A record that failed the worker `KILLS_TO_SKIP` times: dead-lettered unapplied."""
        error = self.last_error
        why = f"{type(error).__name__}: {error}"[:300] if error is not None else "?"
        return Output(dead_letter=dead_letter(
            f"failed the partition worker {KILLS_TO_SKIP} times ({why}): skipped",
            self.tp.topic, self.tp.partition, record.offset, record.key, record.value,
            "poison", type(error).__name__ if error is not None else "", "processor"))

    def _snapshot_due(self, hand_ended: bool) -> bool:
        """At a hand end once `snapshot_every` commands have passed (the tables are
        smallest there), or after twice as many whatever the hands do."""
        every = self.p.snapshot_every
        return every > 0 and (self.since_cut >= 2 * every
                              or (hand_ended and self.since_cut >= every))

    async def _snapshot(self, batches: PartitionBatches) -> None:
        """Within the transaction: the snapshot of every table changed since the last cut,
        and the cut at the offsets after this transaction's events and outcomes. Written
        only in a transaction that has both (their offsets are known once acknowledged)."""
        ends = [await batches.end(self.p.events), await batches.end(self.p.outcomes)]
        if ends[0] is None or ends[1] is None:
            return
        records = self.tables.snapshot(ends[0], ends[1])
        for key, value in records:
            await batches.add(self.p.snapshots, key, value)
        await batches.flush()
        self.since_cut = 0
        metrics.SNAPSHOTS.inc()
        metrics.SNAPSHOT_RECORDS.inc(len(records))

    async def _send(self, batches: PartitionBatches, record: Any, out: Output) -> None:
        p, key = self.p, record.key
        for event in out.events:
            await batches.add(p.events, key, E.encode(event))
        if out.outcome is not None:
            await batches.add(p.outcomes, key, out.encoded_outcome or E.encode(out.outcome))
        if out.dead_letter is not None:
            await self.producer.send(p.dead_letters, E.encode(out.dead_letter), key=key)

    async def _recover(self) -> bool:
        """After an aborted transaction: fresh producers (the old ones may be unusable),
        the tables rebuilt from the log, and re-reading from the committed offset."""
        consumer = self.p.consumer
        assert consumer is not None
        consumer.pause(self.tp)
        self.queue = []
        await _stop_all(self.producers)
        while not self.closing:
            try:
                await asyncio.sleep(0.5)
                if self.tp not in consumer.assignment():
                    return False
                committed = await consumer.committed(self.tp)
                self.producers = await self.p._producers(self.tp.partition)
                self.turn = 0
                self.tables = (await self.p._rebuild([self.tp.partition]))[self.tp.partition]
                start = committed if committed is not None else 0
                consumer.seek(self.tp, start)
                self.next_offset = start
                consumer.resume(self.tp)
                self.paused = False
                return True
            except _FAULTS as exc:
                await _stop_all(self.producers)
                log.warning("recovery_retry", partition=self.tp.partition, error=repr(exc))
        return False


def _account(partition: int, record: Any, out: Output, now: float,
             tables: dict[str, TableState], debug: bool) -> None:
    if record.timestamp:
        metrics.LATENCY.observe(max(0.0, now - record.timestamp / 1000))
    if out.dead_letter is not None:
        deadletters.count(out.dead_letter)
        return
    command, outcome = out.command, out.outcome
    assert command is not None and outcome is not None
    kind = type(command).__struct_config__.tag
    where = {"table_id": command.table_id, "command_id": command.command_id,
             "seq": command.seq, "partition": partition, "offset": record.offset}
    if outcome.accepted and not outcome.duplicate:
        metrics.COMMANDS.labels(kind, "accepted").inc()
        if debug:  # most commands: no logger bound for a line not logged
            log.debug("command_accepted", **where, seqs=outcome.seqs)
        return
    bound = log.bind(**where)
    if outcome.duplicate:
        metrics.DUPLICATES.inc()
        metrics.COMMANDS.labels(kind, "duplicate").inc()
        bound.info("duplicate_command")
    else:
        metrics.COMMANDS.labels(kind, "rejected").inc()
        metrics.REJECTIONS.labels(outcome.code).inc()
        if is_bot_move(tables.get(command.table_id), command):
            metrics.BOT_REJECTIONS.labels(outcome.code).inc()
        bound.info("command_rejected", code=outcome.code, reason=outcome.message)


def decode_log(records: list[tuple[int, bytes | None, bytes | None]],
               decoder: msgspec.json.Decoder[Any],
               topic: str, partition: int) -> list[Any]:
    """The decodable values of a log read at recovery, in order: an undecodable one (a
    foreign writer, a newer contract), one outside the bounds, or one whose key is not its
    table is skipped and logged with its offset, so one bad record does not stop the
    partition from being rebuilt (the consumers of those topics dead-letter them)."""
    out = []
    for offset, key, value in records:
        if value is None:
            continue
        try:
            bounds.check(value, bounds.DERIVED)
            decoded = decoder.decode(value)
            table_id = getattr(decoded, "table_id", None)
            if table_id is not None and (key or b"").decode("utf-8", "replace") != table_id:
                raise bounds.HostileRecord("wrong_key", f"a record of table {table_id!r:.80} "
                                           f"under the key {key!r:.80}")
            out.append(decoded)
        except Exception as exc:  # any record: the rebuild goes on
            metrics.UNDECODABLE.labels(topic.rsplit(".", 1)[-1]).inc()
            log.warning("undecodable_record_skipped", topic=topic, partition=partition,
                        offset=offset, error=bounds.describe(exc)[:300])
    return out


def is_bot_move(state: TableState | None, command: E.Command) -> bool:
    """Sent for a bot's seat by that bot (the seat is a bot's and the player is the
    seat's)."""
    return (state is not None and 0 <= command.seat < len(state.bots)
            and state.bots[command.seat] and command.player_id != ""
            and state.players[command.seat] == command.player_id)


async def _stop_all(producers: Producers) -> None:
    await asyncio.gather(*(_stop_quietly(p) for p in producers))


async def _stop_quietly(producer: AIOKafkaProducer | None) -> None:
    if producer is not None:
        with contextlib.suppress(*_FAULTS):
            await asyncio.wait_for(producer.stop(), CLOSE_TIMEOUT_S)


async def _stop_consumer_quietly(consumer: AIOKafkaConsumer) -> None:
    with contextlib.suppress(*_FAULTS):
        await asyncio.wait_for(consumer.stop(), CLOSE_TIMEOUT_S)


def _entropy() -> str:
    return os.urandom(32).hex()
