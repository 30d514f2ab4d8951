"""The turn-timer service's Kafka shell around `okey101.app.timers.deadlines`.

Consumes the events topic (read_committed) in a consumer group, so instances share the
partitions; every assigned partition is re-read from the beginning into a fresh
`TurnClock`, with each event's Kafka record timestamp as its time, so after a crash or a
rebalance the deadlines are rebuilt exactly as they were. A partition issues nothing until
its re-read has reached the end offset it had when it was assigned (no timeouts against an
old seq). No offsets are committed: the log is the timer's only state.

Every tick the due `TimeOut`, `ExpireReconnectWindow` and `CloseSeeding` commands are
published to the commands topic, keyed by the table id (the murmur2 partitioner puts them
with the table's other commands), from an idempotent producer. A timeout's command id is
(table, turn, seq), an expiry's (table, seat, window, seq), a seeding close's (table, hand,
attempt, stage, seq): a restarted timer that issues one again gets the processor's original
outcome back (duplicate detection); a timeout for a turn that was played meanwhile is
rejected by its turn and seq, an expiry for a window closed meanwhile by the window, a
seeding close for a window closed meanwhile (everybody committed or revealed) likewise.

The clock is injected (`now`, seconds on the same scale as the record timestamps).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import IllegalStateError

from okey101.app import bounds, topics
from okey101.app.timers.deadlines import Due, TurnClock
from okey101.table import messages as E
from services.common.deadletters import DeadLetters
from services.common.kafka import (
    Rebalance,
    close_quietly,
    forget_lag,
    provision,
    record_lag,
    start_group_clients,
)
from services.common.lifecycle import Lifecycle
from services.timers import metrics
from services.timers.settings import TimersSettings

log = structlog.get_logger("timers")


class Timers(Lifecycle):
    def __init__(self, bootstrap: str, prefix: str = "okey", group: str = "okey-timers",
                 tick: float = 0.1, now: Callable[[], float] = time.time,
                 instance_id: str | None = None, partitions: int = topics.PARTITIONS) -> None:
        self.bootstrap = bootstrap
        self.prefix = prefix
        self.group = group
        self.tick_seconds = tick
        self.now = now
        self.instance_id = instance_id
        self.partitions = partitions
        self.events = topics.EVENTS.name(prefix)
        self.commands = topics.COMMANDS.name(prefix)
        self.clocks: dict[int, TurnClock] = {}
        self.catching_up: dict[int, int] = {}  # partition -> the end offset to reach first
        self.consumer: AIOKafkaConsumer | None = None
        self.producer: AIOKafkaProducer | None = None
        self.dead = DeadLetters("timers", prefix)
        super().__init__()
        self.ready = asyncio.Event()  # set once every assigned partition has caught up

    @classmethod
    def from_settings(cls, settings: TimersSettings) -> Timers:
        return cls(settings.bootstrap, prefix=settings.prefix, group=settings.group,
                   tick=settings.tick_ms / 1000, instance_id=settings.instance_id)

    # ------------------------------------------------------------ lifecycle
    async def connect(self) -> None:
        """The topics provisioned, the producer and the group consumer started (closed
        again on failure)."""
        self.partitions = await provision(self.bootstrap, self.prefix, self.partitions)
        producer, consumer = await start_group_clients(
            self.bootstrap, self.group, self.instance_id, self.events, Rebalance(self),
            linger_ms=0, fetch_max_wait_ms=20)
        self.producer, self.consumer = producer, consumer
        self.dead.producer = producer
        log.info("timers_started", bootstrap=self.bootstrap, group=self.group,
                 prefix=self.prefix, tick_ms=round(self.tick_seconds * 1000))

    async def run(self) -> None:
        if self.consumer is None:
            await self.connect()
        assert self.consumer is not None
        try:
            next_tick = time.monotonic()
            while not self.is_stopping:
                self.beat()
                wait = max(0.0, next_tick - time.monotonic())
                batches = await self.consumer.getmany(timeout_ms=int(wait * 1000),
                                                      max_records=10000)
                for tp, records in batches.items():
                    self._fold(tp, records)
                await self.dead.flush()
                await record_lag(self.consumer, self.events)
                await self._check_caught_up()
                if time.monotonic() >= next_tick:
                    await self.tick()
                    next_tick = time.monotonic() + self.tick_seconds
        finally:
            await self._shutdown()

    def not_ready(self) -> str | None:
        if not self.clocks:
            return "no events partition assigned"
        if self.catching_up:
            return f"partitions {sorted(self.catching_up)} still being re-read"
        return None

    async def _shutdown(self) -> None:
        await close_quietly(self.consumer, self.producer)
        log.info("timers_stopped")

    # ------------------------------------------------------------ partitions
    async def assign(self, assigned: Sequence[TopicPartition]) -> None:
        assert self.consumer is not None
        tps = [tp for tp in assigned if tp.topic == self.events]
        if not tps:
            return
        ends = await self.consumer.end_offsets(tps)  # read_committed: the last stable offset
        for tp in tps:
            self.clocks[tp.partition] = TurnClock()
            self.catching_up[tp.partition] = ends[tp]
        await self.consumer.seek_to_beginning(*tps)
        metrics.CATCHING_UP.set(len(self.catching_up))
        log.info("partitions_assigned", partitions=sorted(tp.partition for tp in tps),
                 end_offsets={tp.partition: ends[tp] for tp in tps})

    async def revoke(self, revoked: Sequence[TopicPartition]) -> None:
        for tp in revoked:
            if tp.topic == self.events:
                self.clocks.pop(tp.partition, None)
                self.catching_up.pop(tp.partition, None)
        forget_lag([tp.partition for tp in revoked if tp.topic == self.events])
        self.ready.clear()
        metrics.CATCHING_UP.set(len(self.catching_up))
        self._gauge()

    async def _check_caught_up(self) -> None:
        assert self.consumer is not None
        for partition, end in list(self.catching_up.items()):
            tp = TopicPartition(self.events, partition)
            try:
                position = await self.consumer.position(tp)
            except IllegalStateError:  # no longer assigned
                self.catching_up.pop(partition, None)
                continue
            if position >= end:
                self.catching_up.pop(partition, None)
                clock = self.clocks.get(partition)
                log.info("partition_caught_up", partition=partition, offset=position,
                         tables=clock.tracked if clock is not None else 0)
        metrics.CATCHING_UP.set(len(self.catching_up))
        if not self.catching_up and self.clocks and not self.ready.is_set():
            self.ready.set()
            log.info("timers_ready", partitions=sorted(self.clocks))

    # ------------------------------------------------------------ folding
    def _fold(self, tp: TopicPartition, records: list[Any]) -> None:
        clock = self.clocks.get(tp.partition)
        if clock is None or tp.topic != self.events:
            return
        live = tp.partition not in self.catching_up  # a re-read one was dead-lettered live
        for record in records:
            if record.value is None:
                continue
            if live:
                folded = self.dead.apply(record, lambda r: clock.fold(
                    E.event_decoder.decode(r.value), r.timestamp / 1000))
            else:
                try:
                    bounds.check(record.value, bounds.DERIVED)
                    folded = clock.fold(E.event_decoder.decode(record.value),
                                        record.timestamp / 1000)
                except Exception as exc:  # any record: the fold goes on
                    log.warning("undecodable_event", partition=tp.partition,
                                offset=record.offset, error=str(exc)[:300])
                    folded = None
            if not folded:
                metrics.IGNORED.inc()
        self._gauge()

    def _gauge(self) -> None:
        metrics.TABLES.set(sum(c.tracked for c in self.clocks.values()))

    # ------------------------------------------------------------ issuing
    async def tick(self) -> int:
        """Publish every due timeout of the caught-up partitions; the number published."""
        assert self.producer is not None
        started = time.perf_counter()
        now = self.now()
        due: list[tuple[TurnClock, Due, float]] = []
        for partition, clock in self.clocks.items():
            if partition in self.catching_up:
                continue
            for command in clock.due(now):
                deadline = clock.when(command)
                due.append((clock, command, deadline if deadline is not None else now))
        sent = 0
        if due:
            results = await asyncio.gather(*(self._send(c) for _, c, _ in due),
                                           return_exceptions=True)
            for (clock, command, at), result in zip(due, results, strict=True):
                bound = log.bind(table_id=command.table_id, command_id=command.command_id,
                                 seat=command.seat, seq=command.seq)
                what = _what(command)
                if isinstance(result, BaseException):
                    clock.release(command)  # issued again next tick
                    metrics.SEND_FAILURES.inc()
                    bound.warning(f"{what}_send_failed", error=repr(result))
                    continue
                sent += 1
                if isinstance(command, E.ExpireReconnectWindow):
                    metrics.EXPIRIES.inc()
                    bound = bound.bind(since=command.since)
                elif isinstance(command, E.CloseSeeding):
                    metrics.SEEDING_CLOSES.inc()
                    bound = bound.bind(hand=command.hand, attempt=command.attempt,
                                       stage=command.stage)
                else:
                    metrics.TIMEOUTS.inc()
                    metrics.LATENESS.observe(max(0.0, now - at))
                    bound = bound.bind(turn=command.turn)
                bound.info(f"{what}_issued", lateness=round(now - at, 3))
        metrics.TICK.observe(time.perf_counter() - started)
        return sent

    async def _send(self, command: Due) -> None:
        assert self.producer is not None
        future = await self.producer.send(self.commands, E.encode(command),
                                          key=command.table_id.encode())
        await future


def _what(command: Due) -> str:
    """The command's name in the log lines (`<what>_issued`, `<what>_send_failed`)."""
    if isinstance(command, E.ExpireReconnectWindow):
        return "reconnect_expiry"
    if isinstance(command, E.CloseSeeding):
        return "seeding_close"
    return "timeout"
