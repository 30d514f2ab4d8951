"""The leaderboards service's Kafka shell around `okey101.standings.Ledger`.

Why aiokafka and not faust-streaming: faust's at-least-once mode (the only one we may use:
its exactly-once mode duplicates on rebalance) reads with isolation_level=read_uncommitted
and offers no setting to change it, so a faust agent folds events of ABORTED processor
transactions (a fenced or killed processor's), and the re-decided match that follows has
another seed. tests/kafka/test_faust_isolation.py shows it on our broker. Faust's consumer
also fixes fetch.max.wait.ms at 1,500 ms: an idle fetch then answers up to 1.5 s late,
which alone would break the 1 s goal from match_ended to the standing (on Kafka 3.9 a
commit marker does wake a parked read_committed fetch, docs/capacity.md, so the 20 ms
wait below only bounds an idle poll).

So every instance reads every events partition itself (no consumer group, read_committed,
fetch wait 20 ms) from the beginning, as the timers do: the log is the only state, and the
board of a restarted instance is a rebuild by construction. Until the end offsets found at
start are reached, finished matches are buffered and then applied sorted (no undo needed);
afterwards each is applied as it comes, a late one put in its canonical place.

Every standing that changes goes to the compacted standings topic, keyed "house/account",
from an idempotent producer. At start the topic is read first; after the rebuild only the
standings that differ from what it holds are written, so a restart (even after kill -9)
rewrites nothing it had already written, and writes what it had not. Several instances can
run side by side: each is a whole replica and writes the same values.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import msgspec
import structlog
from aiohttp import web
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import KafkaError

from okey101.app import bounds, topics
from okey101.standings import Ledger, Notice
from okey101.standings.board import AccountKey
from okey101.standings.ledger import BAD_INPUT, Fed
from services.common.deadletters import DeadLetters
from services.common.kafka import client_security, provision
from services.common.lifecycle import Lifecycle
from services.leaderboards import api, metrics
from services.leaderboards.reading import read_records

if TYPE_CHECKING:
    from services.leaderboards.settings import LeaderboardsSettings

# notices of a record the ledger cannot take at all (the others are gaps in a log it
# reads from a horizon, or accounts it does not rank)
DEAD_NOTICES = ("undecodable", "bad_event")
log = structlog.get_logger("leaderboards")


def standing_key(key: AccountKey) -> bytes:
    return f"{key[0]}/{key[1]}".encode()


class Leaderboards(Lifecycle):
    def __init__(self, bootstrap: str, prefix: str = "okey", http_host: str = "127.0.0.1",
                 http_port: int = 9110, horizon: int = 50_000,
                 partitions: int = topics.PARTITIONS) -> None:
        self.bootstrap = bootstrap
        self.prefix = prefix
        self.http_host = http_host
        self.http_port = http_port
        self.partitions = partitions
        self.events = topics.EVENTS.name(prefix)
        self.standings_topic = topics.STANDINGS.name(prefix)
        self.ledger = Ledger(horizon=horizon, buffering=True)
        self.published: dict[bytes, bytes] = {}
        self.ready = asyncio.Event()
        self.progress = 0.0
        self.consumer: AIOKafkaConsumer | None = None
        self.producer: AIOKafkaProducer | None = None
        super().__init__()
        self._runner: web.AppRunner | None = None
        self._rewinds = 0
        self._duplicates: Counter[str] = Counter()
        self.dead = DeadLetters("leaderboards", prefix)

    # ------------------------------------------------------------ lifecycle
    async def run(self) -> None:
        self.partitions = await provision(self.bootstrap, self.prefix, self.partitions)
        await self._serve_http()
        self.producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap,
                                         enable_idempotence=True, acks="all", linger_ms=5,
                                         request_timeout_ms=30000, **client_security())
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap, group_id=None, enable_auto_commit=False,
            isolation_level="read_committed", fetch_max_wait_ms=20,
            max_partition_fetch_bytes=8 * 1024 * 1024, **client_security())
        self.dead.producer = self.producer
        try:
            await self.producer.start()
            await self.consumer.start()
            await self._load_published()
            tps = [TopicPartition(self.events, p) for p in range(self.partitions)]
            self.consumer.assign(tps)
            await self.consumer.seek_to_beginning(*tps)
            ends = await self.consumer.end_offsets(tps)
            log.info("rebuild_started", prefix=self.prefix, records=sum(ends.values()),
                     standings_known=len(self.published))
            await self._loop(tps, ends)
        finally:
            await self._shutdown()

    # ------------------------------------------------------------ start-up (runtime.run)
    @classmethod
    def from_settings(cls, settings: LeaderboardsSettings) -> Leaderboards:
        return cls(settings.bootstrap, prefix=settings.prefix, http_host=settings.http_host,
                   http_port=settings.http_port, horizon=settings.horizon)

    async def connect(self) -> None:
        """The broker answers and the topics exist (a broker fault is raised: the runtime
        logs it and retries); `run()` starts the clients."""
        self.partitions = await provision(self.bootstrap, self.prefix, self.partitions)

    def not_ready(self) -> str | None:
        """Ready once the start-up rebuild is applied (every events partition is assigned:
        this service reads them all)."""
        if not self.ready.is_set():
            return f"rebuilding: {self.progress:.0%} of the events read"
        return None

    async def _shutdown(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self.consumer is not None:
            with contextlib.suppress(KafkaError, OSError, asyncio.TimeoutError):
                await self.consumer.stop()
        if self.producer is not None:
            with contextlib.suppress(KafkaError, OSError, asyncio.TimeoutError):
                await asyncio.wait_for(self.producer.stop(), 10)
        log.info("leaderboards_stopped", matches=self.ledger.counts["matches"])

    async def _serve_http(self) -> None:
        if not self.http_port:
            return
        self._runner = web.AppRunner(api.build(self), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.http_host, self.http_port).start()
        log.info("http_serving", host=self.http_host, port=self.http_port)

    async def _load_published(self) -> None:
        wanted = [(self.standings_topic, p) for p in range(self.partitions)]
        for records in (await read_records(self.bootstrap, wanted)).values():
            for record in records:
                if record.key is not None and record.value is not None:
                    self.published[record.key] = record.value

    # ------------------------------------------------------------ the fold
    async def _loop(self, tps: list[TopicPartition], ends: dict[TopicPartition, int]) -> None:
        assert self.consumer is not None
        total = sum(ends.values())
        last_lag = 0.0
        while not self.is_stopping:
            self.beat()
            batch = await self.consumer.getmany(timeout_ms=100, max_records=20000)
            changed: set[AccountKey] = set()
            ended: list[int] = []
            for records in batch.values():
                for record in records:
                    fed = self._read(record)
                    if fed is None:
                        continue
                    for notice in fed.notices:
                        self._report(notice)
                        if notice.kind in DEAD_NOTICES and self.ready.is_set():
                            self.dead.hold(record, f"{notice.kind}: {notice.detail}",
                                           "undecodable" if notice.kind == "undecodable"
                                           else "invalid")
                    if fed.result is not None:
                        metrics.MATCHES.labels(fed.result.house).inc()
                        ended.append(record.timestamp)
                    changed |= fed.changed
            if not self.ready.is_set():
                positions = [await self.consumer.position(tp) for tp in tps]
                done = sum(min(p, ends[tp]) for p, tp in zip(positions, tps, strict=True))
                self.progress = done / total if total else 1.0
                metrics.REBUILD.set(self.progress)
                if all(p >= ends[tp] for p, tp in zip(positions, tps, strict=True)):
                    await self._go_live()
                    continue
            elif changed:
                await self._publish(changed, ended)
            await self.dead.flush()
            self._count_rewinds()
            now = time.monotonic()
            if now - last_lag > 1:
                last_lag = now
                await self._gauge_lag(tps)

    def _read(self, record: Any) -> Fed | None:
        """One events record into the ledger, whatever it holds. Once live, a record it
        cannot take is a dead letter; while rebuilding (every start reads the whole topic)
        it is only logged: it was dead-lettered when first read live."""
        if self.ready.is_set():
            return self.dead.apply(record, lambda r: self.ledger.read(r.value, r.partition,
                                                                      r.offset))
        try:
            if record.value is not None:
                bounds.check(record.value, bounds.DERIVED)
            return self.ledger.read(record.value, record.partition, record.offset)
        except Exception as exc:  # any record: the fold goes on
            metrics.BAD_INPUT.labels("undecodable").inc()
            log.warning("bad_input", kind=bounds.kind_of(exc), detail=str(exc)[:300],
                        partition=record.partition, offset=record.offset)
            return None

    async def _gauge_lag(self, tps: list[TopicPartition]) -> None:
        assert self.consumer is not None
        lag = 0
        for tp in tps:
            highwater = self.consumer.highwater(tp)  # the last stable offset, read_committed
            if highwater is not None:
                lag += max(0, highwater - await self.consumer.position(tp))
        metrics.LAG.set(lag)

    async def _go_live(self) -> None:
        started = time.monotonic()
        self.ledger.flush()
        keys = list(self.ledger.board.standings)
        written = await self._publish(keys, [], only_changed=True)
        self.ready.set()
        metrics.READY.set(1)
        metrics.REBUILD.set(1)
        log.info("leaderboards_ready", matches=self.ledger.counts["matches"],
                 accounts=len(keys), written=written, records=self.ledger.records,
                 apply_seconds=round(time.monotonic() - started, 3),
                 bad_input={k: self.ledger.counts[k] for k in BAD_INPUT
                            if self.ledger.counts[k]})

    def _count_rewinds(self) -> None:
        rewinds = self.ledger.board.rewinds
        if rewinds > self._rewinds:
            metrics.REWINDS.inc(rewinds - self._rewinds)
            self._rewinds = rewinds

    def _report(self, notice: Notice) -> None:
        if notice.kind in BAD_INPUT:
            metrics.BAD_INPUT.labels(notice.kind).inc()
            log.warning("bad_input", kind=notice.kind, detail=notice.detail,
                        partition=notice.partition, offset=notice.offset,
                        table_id=notice.table_id)

    # ------------------------------------------------------------ publishing
    async def _publish(self, keys: Iterable[AccountKey], ended: list[int],
                       only_changed: bool = False) -> int:
        assert self.producer is not None
        board = self.ledger.board
        futures = []
        for key in keys:
            standing = board.standings.get(key)
            if standing is None:
                continue
            value = msgspec.json.encode(standing)
            raw_key = standing_key(key)
            if only_changed and self.published.get(raw_key) == value:
                continue
            self.published[raw_key] = value
            futures.append(await self.producer.send(self.standings_topic, value, key=raw_key))
        if futures:
            await asyncio.gather(*futures)
            metrics.PUBLISHED.inc(len(futures))
        now_ms = time.time() * 1000
        for timestamp in ended:
            metrics.DELAY.observe(max(0.0, (now_ms - timestamp) / 1000))
        self._count_duplicates()
        return len(futures)

    def _count_duplicates(self) -> None:
        for kind in ("duplicate_event", "duplicate_match"):
            new = self.ledger.counts[kind] - self._duplicates[kind]
            if new > 0:
                metrics.DUPLICATES.labels(kind).inc(new)
                self._duplicates[kind] += new
