"""The matchmaker's Kafka shell around okey101.app.matchmaker.

Per assigned partition of the requests topic (`okey.matchmaking`, keyed by house, so one
partition holds all of a house's requests): a transactional producer (transactional id =
group + partition, so a new owner fences a zombie and aborts what it left open) and the
partition's `Matchmaker`, rebuilt on assignment from the same partition of the decisions
topic (`okey.matchmaker`). Each poll, the requests read and what the time calls for (a tick)
become decisions; the decisions, the table commands a `seated` calls for and the requests'
offsets go in one transaction. So a restart (kill -9 included) finds every waiting player
in the decisions it reads back, and a seated table's commands were written exactly when its
`seated` was: nobody is seated twice, nobody waiting is lost.

A record that cannot be decoded is counted, logged and dead-lettered (okey.deadletters),
and its offset committed with the rest: it is never read again and never stops the service.

The relay (`--relay`): a consumer of the events topic that hands the `match_ended` of every
table the matchmaker seated (table ids `mm.<house>.…`) to the requests topic as a
`table_ended`, keyed by the house, so that a tournament's results come back to the partition
that holds it. At least once: a relayed end read twice is decided once (its request id).

Tournaments: in the same transaction as a tournament's schedule, its end or its cancelling,
the compacted tournaments topic (`okey.tournaments`, keyed by tournament id) gets the
schedule or a tombstone, so that it holds every unfinished tournament; the gateways read it
whole at their start. An assigned partition's unfinished tournaments are written to it
again after the rebuild.

Standings: the compacted standings topic, read from the start and followed, gives each
account's level and skill ordinal by house (a new account: level 1, the default skill).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence

import msgspec
import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import IllegalStateError, KafkaError

from okey101.app import topics
from okey101.app.matchmaker import core
from okey101.app.matchmaker import records as R
from okey101.standings.board import Standing
from okey101.table import messages as E
from services.common.kafka import (
    Rebalance,
    admin_client,
    client_security,
    close_quietly,
    provision,
    read_partitions,
    record_lag,
    start_group_clients,
)
from services.common.lifecycle import Lifecycle
from services.matchmaker import metrics
from services.matchmaker.settings import MatchmakerSettings

log = structlog.get_logger("matchmaker")

class _Head(msgspec.Struct):
    type: str
    table_id: str


class _Ended(msgspec.Struct):
    table_id: str
    places: list[int]
    totals: list[int]
    at: int = 0


_head_decoder = msgspec.json.Decoder(_Head)
_ended_decoder = msgspec.json.Decoder(_Ended)
_standing_decoder = msgspec.json.Decoder(Standing)


def now_ms() -> int:
    return int(time.time() * 1000)


class Matchmaker(Lifecycle):
    def __init__(self, bootstrap: str, prefix: str = "okey", group: str = "okey-matchmaker",
                 policy: core.Policy | None = None, tick_ms: int = 200,
                 relay: bool = True, instance_id: str | None = None) -> None:
        self.bootstrap = bootstrap
        self.prefix = prefix
        self.group = group
        self.policy = policy or core.Policy()
        self.tick_ms = tick_ms
        self.relay_on = relay
        self.instance_id = instance_id
        self.requests = topics.MATCHMAKING.name(prefix)
        self.decisions = topics.MATCHMAKER.name(prefix)
        self.commands = topics.COMMANDS.name(prefix)
        self.dead = topics.DEAD_LETTERS.name(prefix)
        self.tournaments = topics.TOURNAMENTS.name(prefix)
        self.owned: dict[int, core.Matchmaker] = {}
        self.producers: dict[int, AIOKafkaProducer] = {}
        self.accounts: dict[tuple[str, str], core.Account] = {}
        self.consumer: AIOKafkaConsumer | None = None
        self.plain: AIOKafkaProducer | None = None  # dead letters, the relay
        self.standings_ready = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []
        super().__init__()
        self._assigned_once = False

    @classmethod
    def from_settings(cls, s: MatchmakerSettings) -> Matchmaker:
        policy = core.Policy(window_base=s.window_base, window_per_s=s.window_per_s,
                             window_max=s.window_max, bot_wait_ms=s.bot_wait_ms)
        return cls(s.bootstrap, prefix=s.prefix, group=s.group, policy=policy,
                   tick_ms=s.tick_ms, relay=s.relay, instance_id=s.instance_id)

    def not_ready(self) -> str | None:
        if not self.standings_ready.is_set():
            return "reading the standings"
        if not self._assigned_once:
            return "no requests partition assigned"
        return None

    # ------------------------------------------------------------ Kafka
    async def connect(self) -> None:
        await provision(self.bootstrap, self.prefix)
        self.plain, self.consumer = await start_group_clients(
            self.bootstrap, self.group, self.instance_id, self.requests, Rebalance(self),
            linger_ms=5, fetch_max_wait_ms=50)
        log.info("matchmaker_started", group=self.group, prefix=self.prefix)

    async def assign(self, assigned: Sequence[TopicPartition]) -> None:
        for tp in assigned:
            if tp.topic != self.requests or tp.partition in self.owned:
                continue
            producer = AIOKafkaProducer(
                bootstrap_servers=self.bootstrap, enable_idempotence=True, acks="all",
                transactional_id=f"{self.group}-{tp.partition}", linger_ms=1,
                **client_security())
            await producer.start()  # init_transactions: fences and aborts an older owner
            self.producers[tp.partition] = producer
            await self._rebuild(tp.partition)
            await self._index_unfinished(tp.partition)
        self._assigned_once = True

    async def _index_unfinished(self, partition: int) -> None:
        """The partition's unfinished tournaments written to the tournaments topic again
        (idempotent upserts): one scheduled before the topic existed, or whose record was
        lost, is known to the gateways all the same."""
        producer, mm = self.producers.get(partition), self.owned.get(partition)
        unfinished = mm.unfinished() if mm is not None else []
        if producer is None or not unfinished:
            return
        try:
            async with producer.transaction():
                for d in unfinished:
                    await producer.send(self.tournaments, R.encode(d),
                                        key=d.tournament_id.encode())
        except Exception as exc:  # not fatal: the next assignment writes them again
            log.warning("tournament_index_failed", partition=partition, error=repr(exc))

    async def revoke(self, revoked: Sequence[TopicPartition]) -> None:
        for tp in revoked:
            self.owned.pop(tp.partition, None)
            producer = self.producers.pop(tp.partition, None)
            if producer is not None:
                with contextlib.suppress(KafkaError, OSError, TimeoutError):
                    await asyncio.wait_for(producer.stop(), 10)

    async def _rebuild(self, partition: int) -> None:
        started = time.perf_counter()
        mm = core.Matchmaker(self.policy)
        values = (await read_partitions(self.bootstrap, [(self.decisions, partition)]))[
            (self.decisions, partition)]
        for offset, value in enumerate(values):
            try:
                mm.apply(R.decision_decoder.decode(value))
            except (msgspec.DecodeError, msgspec.ValidationError, KeyError) as exc:
                metrics.BAD_RECORDS.labels("matchmaker").inc()
                log.warning("bad_decision", partition=partition, index=offset,
                            error=str(exc)[:200])
        self.owned[partition] = mm
        metrics.REBUILD.observe(time.perf_counter() - started)
        log.info("partition_rebuilt", partition=partition, decisions=len(values),
                 waiting=sum(len(h.waiting) for h in mm.houses.values()))

    # ------------------------------------------------------------ the loop
    async def run(self) -> None:
        if self.consumer is None:
            await self.connect()
        consumer = self.consumer
        assert consumer is not None
        self.tasks = [asyncio.create_task(self._follow_standings())]
        if self.relay_on:
            self.tasks.append(asyncio.create_task(self._relay()))
        try:
            await asyncio.wait_for(self.standings_ready.wait(), 120)
            while not self.is_stopping:
                self.beat()
                batches = await consumer.getmany(timeout_ms=self.tick_ms, max_records=500)
                await record_lag(consumer, self.requests)
                await self._step(batches)
        finally:
            for task in self.tasks:
                task.cancel()
            for task in self.tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            for producer in self.producers.values():
                with contextlib.suppress(KafkaError, OSError, TimeoutError):
                    await asyncio.wait_for(producer.stop(), 10)
            await close_quietly(consumer, self.plain)
            log.info("matchmaker_stopped")

    def _account(self, house: str, player: str) -> core.Account:
        return self.accounts.get((house, player)) or core.Account()

    async def _step(self, batches: dict[TopicPartition, list[object]]) -> None:
        now = now_ms()
        consumer = self.consumer
        assert consumer is not None
        work: dict[int, tuple[list[R.AnyDecision], int | None]] = {}
        for tp, records in batches.items():
            mm = self.owned.get(tp.partition)
            if mm is None:
                # fetched while its assignment was still being rebuilt (aiokafka fetches a
                # new assignment before the listener returns): read these again later
                if records:
                    with contextlib.suppress(IllegalStateError):
                        consumer.seek(tp, records[0].offset)  # type: ignore[attr-defined]
                continue
            decisions: list[R.AnyDecision] = []
            last = None
            for record in records:
                last = record.offset  # type: ignore[attr-defined]
                decisions += await self._request(mm, tp.partition, record, now)
            work[tp.partition] = (decisions, last)
        for partition, mm in self.owned.items():
            ticked = mm.tick(now)
            if ticked:
                decisions, last = work.get(partition, ([], None))
                work[partition] = (decisions + ticked, last)
        for partition, (decisions, last) in work.items():
            if decisions or last is not None:
                await self._transact(partition, decisions, last)
        self._gauges(now)

    async def _request(self, mm: core.Matchmaker, partition: int, record: object,
                       now: int) -> list[R.AnyDecision]:
        value: bytes | None = record.value  # type: ignore[attr-defined]
        try:
            request = R.request_decoder.decode(value or b"")
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            await self._dead_letter(f"undecodable request: {exc}", partition, record)
            return []
        kind = type(request).__struct_config__.tag
        try:
            out = mm.handle(request, self._account, now)
        except Exception as exc:  # a request the core cannot apply: never stop on one
            log.exception("request_failed", partition=partition, error=repr(exc))
            await self._dead_letter(f"request not applied: {exc!r}", partition, record)
            return []
        if not out:
            metrics.REQUESTS.labels(kind, "duplicate" if kind != "table_ended"
                                    else "ignored").inc()
        for d in out:
            if isinstance(d, R.Refused):
                metrics.REQUESTS.labels(kind, "refused").inc()
                metrics.REFUSED.labels(d.code).inc()
            elif getattr(d, "request_id", None) == request.request_id or \
                    isinstance(d, R.TableResult):
                metrics.REQUESTS.labels(kind, "accepted").inc()
        return out

    async def _dead_letter(self, reason: str, partition: int, record: object) -> None:
        metrics.BAD_RECORDS.labels("matchmaking").inc()
        key: bytes | None = record.key  # type: ignore[attr-defined]
        value: bytes | None = record.value  # type: ignore[attr-defined]
        offset: int = record.offset  # type: ignore[attr-defined]
        log.warning("bad_request", partition=partition, offset=offset, reason=reason[:200])
        letter = E.DeadLetter(reason=reason[:500], topic=self.requests, partition=partition,
                              offset=offset, key=(key or b"").decode(errors="replace"),
                              value=(value or b"").decode(errors="replace")[:4096])
        assert self.plain is not None
        with contextlib.suppress(KafkaError, OSError, TimeoutError):
            await self.plain.send_and_wait(self.dead, E.encode(letter), key=key)

    async def _transact(self, partition: int, decisions: list[R.AnyDecision],
                        last: int | None) -> None:
        producer = self.producers.get(partition)
        if producer is None:
            return
        started = time.perf_counter()
        try:
            async with producer.transaction():
                for d in decisions:
                    await producer.send(self.decisions, R.encode(d), key=d.house.encode(),
                                        partition=partition)
                    index = R.tournament_index(d)
                    if index is not None:
                        await producer.send(self.tournaments, index[1], key=index[0])
                    if isinstance(d, R.Seated):
                        for command in core.commands(d):
                            await producer.send(self.commands, E.encode(command),
                                                key=command.table_id.encode())
                if last is not None:
                    await producer.send_offsets_to_transaction(
                        {TopicPartition(self.requests, partition): last + 1}, self.group)
        except Exception as exc:
            metrics.TRANSACTIONS.labels("aborted").inc()
            log.warning("transaction_aborted", partition=partition, error=repr(exc))
            await self._recover(partition)
            return
        metrics.TRANSACTIONS.labels("committed").inc()
        metrics.TRANSACTION.observe(time.perf_counter() - started)
        for d in decisions:
            self._observe(d)

    async def _recover(self, partition: int) -> None:
        """The memory is ahead of the log after an aborted transaction: read it back, and
        read the requests again from the committed offset."""
        await self._rebuild(partition)
        consumer = self.consumer
        assert consumer is not None
        tp = TopicPartition(self.requests, partition)
        committed = await consumer.committed(tp)
        if committed is None:
            await consumer.seek_to_beginning(tp)
        else:
            consumer.seek(tp, committed)

    def _observe(self, d: R.AnyDecision) -> None:
        if isinstance(d, R.Seated):
            kind = "tournament" if d.tournament_id else "quick_play"
            metrics.SEATED.labels(d.house, kind).inc()
            bots = sum(s.bot for s in d.seats)
            if bots:
                metrics.BOT_SEATS.labels(d.house).inc(bots)
            if not d.tournament_id:
                for seat, waited in zip(d.seats, d.waited_ms, strict=True):
                    if not seat.bot:
                        metrics.WAIT.labels(d.house).observe(waited / 1000)
                humans = [s.ordinal for s in d.seats if not s.bot]
                if len(humans) > 1:
                    metrics.SPREAD.observe(max(humans) - min(humans))
            log.info("seated", table_id=d.table_id, house=d.house, hall=d.hall,
                     tournament=d.tournament_id or None, round=d.round or None,
                     bots=bots, window=d.window)
        elif isinstance(d, R.TableResult):
            metrics.TOURNAMENT_TABLES.labels(d.house).inc()
        elif isinstance(d, R.TournamentEnded):
            log.info("tournament_ended", house=d.house, tournament=d.tournament_id,
                     matches=d.matches, winner=d.standings[0].player_id if d.standings else None)

    def _gauges(self, now: int) -> None:
        metrics.WAITING.clear()
        metrics.TOURNAMENTS.clear()
        for mm in self.owned.values():
            for name, house in mm.houses.items():
                for hall, queue in house.queues.items():
                    metrics.WAITING.labels(name, hall or "-").set(len(queue))
                oldest = min((w.at for w in house.waiting.values()), default=now)
                metrics.OLDEST.labels(name).set(max(0, now - oldest) / 1000)
                counts: dict[str, int] = {}
                for t in house.tournaments.values():
                    counts[t.status] = counts.get(t.status, 0) + 1
                for status, n in counts.items():
                    metrics.TOURNAMENTS.labels(name, status).set(n)

    # ------------------------------------------------------------ the standings
    async def _follow_standings(self) -> None:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap, group_id=None, enable_auto_commit=False,
            auto_offset_reset="earliest", fetch_max_wait_ms=200, **client_security())
        await consumer.start()
        try:
            name = topics.STANDINGS.name(self.prefix)
            admin = admin_client(self.bootstrap)
            await admin.start()
            try:
                (described,) = await admin.describe_topics([name])
            finally:
                await admin.close()
            partitions = {p["partition"] for p in described["partitions"]}
            tps = [TopicPartition(name, p) for p in sorted(partitions)]
            consumer.assign(tps)
            await consumer.seek_to_beginning(*tps)
            ends = await consumer.end_offsets(tps)
            while True:
                batches = await consumer.getmany(timeout_ms=500, max_records=5000)
                for records in batches.values():
                    for record in records:
                        if record.value is None:
                            continue
                        try:
                            s = _standing_decoder.decode(record.value)
                        except (msgspec.DecodeError, msgspec.ValidationError):
                            metrics.BAD_RECORDS.labels("standings").inc()
                            continue
                        self.accounts[(s.house, s.account)] = core.Account(
                            s.level, s.skill_ordinal)
                if not self.standings_ready.is_set():
                    positions = [await consumer.position(tp) for tp in tps]
                    if all(pos >= ends[tp] for pos, tp in zip(positions, tps, strict=True)):
                        self.standings_ready.set()
                        log.info("standings_read", accounts=len(self.accounts))
        finally:
            with contextlib.suppress(KafkaError, OSError, TimeoutError):
                await asyncio.wait_for(consumer.stop(), 10)

    # ------------------------------------------------------------ the relay
    async def _relay(self) -> None:
        consumer = AIOKafkaConsumer(
            topics.EVENTS.name(self.prefix), bootstrap_servers=self.bootstrap,
            group_id=f"{self.group}-relay", enable_auto_commit=False,
            isolation_level="read_committed", auto_offset_reset="earliest",
            fetch_max_wait_ms=100, **client_security())
        await consumer.start()
        assert self.plain is not None
        try:
            while True:
                batches = await consumer.getmany(timeout_ms=500, max_records=2000)
                sent = []
                for records in batches.values():
                    for record in records:
                        request = self._relayed(record.value)
                        if request is not None:
                            sent.append(await self.plain.send(
                                self.requests, R.encode(request),
                                key=request.house.encode()))
                if sent:
                    await asyncio.gather(*sent)
                    metrics.RELAYED.inc(len(sent))
                if batches:
                    await consumer.commit()
        finally:
            with contextlib.suppress(KafkaError, OSError, TimeoutError):
                await asyncio.wait_for(consumer.stop(), 10)

    @staticmethod
    def _relayed(value: bytes | None) -> R.TableEnded | None:
        """A `table_ended` for the `match_ended` of a table the matchmaker seated."""
        if not value or b'"match_ended"' not in value or b'"mm.' not in value:
            return None
        try:
            head = _head_decoder.decode(value)
            if head.type != "match_ended" or not head.table_id.startswith("mm."):
                return None
            ended = _ended_decoder.decode(value)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        house = head.table_id.split(".")[1]
        return R.TableEnded(request_id=f"end/{head.table_id}", house=house,
                            table_id=head.table_id, players=[], places=ended.places,
                            totals=ended.totals, at=ended.at)
