"""The replays service's Kafka shell: it keeps the table directory and serves replays.

The directory is built from the events topic (read_committed) in a consumer group, so
instances share its partitions, with idempotent upserts (`okey101.app.replays.directory.fold`):
each batch's changed entries are written to the compacted directory topic, and only once
every one of them is acknowledged are the batch's offsets committed. A restart (or a new
owner of a partition) loads the directory from the compacted topic and goes on from the
committed offsets, not from the start of the events log; an event read again is already in
its entry and changes nothing.

Every instance follows the whole directory topic, so its HTTP API lists every table; an
entry read back only replaces the one in memory when it knows more of the log. A write
that is staler than memory and is the latest for its key (a dead instance's last send) is
repaired by writing the fresher entry again.

The HTTP API (`services/replays/api.py`) reads one table's offset range through the
directory with a few long-lived consumers.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import structlog
from aiohttp import web
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import CommitFailedError, KafkaError

from okey101.app import bounds, topics
from okey101.app.bounds import HostileRecord
from okey101.app.replays.directory import TableEntry, entry_decoder, fold, is_newer, skip
from okey101.table import messages as E
from services.common.deadletters import DeadLetters
from services.common.kafka import Rebalance, client_security, provision
from services.common.lifecycle import Lifecycle
from services.replays import api, metrics
from services.replays.reading import Readers, consumer

if TYPE_CHECKING:
    from services.replays.settings import ReplaysSettings

log = structlog.get_logger("replays")
_FAULTS = (KafkaError, OSError, TimeoutError)
REPAIR_EVERY = 5.0  # seconds between checks that the topic's latest entries are ours
MAX_KEY = 256  # characters of a key under which a dead record's offset is still indexed


class Replays(Lifecycle):
    def __init__(self, bootstrap: str, prefix: str = "okey", group: str = "okey-replays",
                 host: str = "127.0.0.1", port: int = 9180, auditor: bool = False,
                 instance_id: str | None = None, readers: int = 2) -> None:
        self.bootstrap = bootstrap
        self.prefix = prefix
        self.group = group
        self.host = host
        self.port = port
        self.auditor = auditor
        self.instance_id = instance_id
        self.events = topics.EVENTS.name(prefix)
        self.directory = topics.DIRECTORY.name(prefix)
        self.entries: dict[str, TableEntry] = {}
        self.dirty: dict[str, TableEntry] = {}  # changed, not yet acknowledged by Kafka
        self.dead = DeadLetters("replays", prefix)
        self.latest: dict[str, int] = {}  # table -> last_offset of its latest record read back
        self.owned: set[int] = set()  # events partitions this instance indexes
        self.lag: dict[int, int] = {}  # events partition -> records not yet indexed
        self.newest: dict[int, int] = {}  # events partition -> record time (ms) last indexed
        self.readers = Readers(bootstrap, readers)
        self.consumer: AIOKafkaConsumer | None = None
        self.tail: AIOKafkaConsumer | None = None
        self.producer: AIOKafkaProducer | None = None
        self.tail_lock = asyncio.Lock()
        self.ready = asyncio.Event()  # the directory is loaded and the HTTP API is up
        self.bound_port = 0
        super().__init__()

    @classmethod
    def from_settings(cls, settings: ReplaysSettings) -> Replays:
        return cls(settings.bootstrap, prefix=settings.prefix, group=settings.group,
                   host=settings.http_host, port=settings.http_port,
                   auditor=settings.auditor, instance_id=settings.instance_id,
                   readers=settings.readers)

    # ------------------------------------------------------------ lifecycle
    async def connect(self) -> None:
        """The topics provisioned, the directory loaded, the clients started and the
        group joined; a broker fault is raised with what was opened closed again (the
        runtime logs it and retries)."""
        await provision(self.bootstrap, self.prefix)
        try:
            await self.readers.start()
            self.producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap,
                                             enable_idempotence=True, linger_ms=5,
                                             request_timeout_ms=30000, **client_security())
            await self.producer.start()
            self.dead.producer = self.producer
            await self._load_directory()
            self.consumer = AIOKafkaConsumer(
                bootstrap_servers=self.bootstrap, group_id=self.group,
                enable_auto_commit=False, isolation_level="read_committed",
                auto_offset_reset="earliest", session_timeout_ms=10000,
                heartbeat_interval_ms=1000, group_instance_id=self.instance_id,
                max_partition_fetch_bytes=8 * 1024 * 1024, fetch_max_wait_ms=20,
                **client_security())
            await self.consumer.start()
        except BaseException:
            await self._shutdown(quiet=True)
            self.consumer = self.tail = self.producer = None
            self.readers = Readers(self.bootstrap, self.readers.size)
            raise
        self.consumer.subscribe([self.events], listener=Rebalance(self))

    async def run(self) -> None:
        if self.consumer is None:
            await self.connect()
        runner: web.AppRunner | None = None
        try:
            runner = web.AppRunner(api.build(self), access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
            self.bound_port = _bound_port(site) or self.port
            self.ready.set()
            log.info("replays_started", group=self.group, prefix=self.prefix,
                     tables=len(self.entries), auditor=self.auditor,
                     http=f"http://{self.host}:{self.bound_port}")
            await self._loop()
        finally:
            if runner is not None:
                await runner.cleanup()
            await self._shutdown()

    def not_ready(self) -> str | None:
        """Ready once the directory is loaded and the HTTP API answers: every instance
        serves the whole directory, whichever events partitions the group gave it."""
        return None if self.ready.is_set() else "loading the directory"

    async def _loop(self) -> None:
        assert self.consumer is not None
        next_repair = time.monotonic() + REPAIR_EVERY
        while not self.is_stopping:
            self.beat()
            batches = await self.consumer.getmany(timeout_ms=100, max_records=5000)
            await self._index(batches)
            await self._follow_directory()
            await self._gauge_lag()
            if time.monotonic() >= next_repair:
                await self._repair()
                next_repair = time.monotonic() + REPAIR_EVERY

    async def _shutdown(self, quiet: bool = False) -> None:
        for client in (self.consumer, self.tail):
            if client is not None:
                with contextlib.suppress(*_FAULTS):
                    await client.stop()
        if self.producer is not None:
            with contextlib.suppress(*_FAULTS):
                await asyncio.wait_for(self.producer.stop(), 10)
        await self.readers.stop()
        if not quiet:
            log.info("replays_stopped")

    # ------------------------------------------------------------ partitions
    async def assign(self, assigned: Sequence[TopicPartition]) -> None:
        partitions = {tp.partition for tp in assigned if tp.topic == self.events}
        await self._follow_directory(to_end=True)  # another owner's last writes first
        self.owned |= partitions
        log.info("partitions_assigned", partitions=sorted(partitions))

    async def revoke(self, revoked: Sequence[TopicPartition]) -> None:
        await self._flush()  # what was indexed so far is written, not left to the next owner
        for tp in revoked:
            self.owned.discard(tp.partition)
            self.lag.pop(tp.partition, None)

    # ------------------------------------------------------------ the directory topic
    async def _load_directory(self) -> None:
        started = time.perf_counter()
        self.tail = consumer(self.bootstrap)
        await self.tail.start()
        partitions = self.tail.partitions_for_topic(self.directory)
        while not partitions:
            await asyncio.sleep(0.1)
            await self.tail._client.force_metadata_update()
            partitions = self.tail.partitions_for_topic(self.directory)
        tps = [TopicPartition(self.directory, p) for p in sorted(partitions)]
        self.tail.assign(tps)
        await self.tail.seek_to_beginning(*tps)
        await self._follow_directory(to_end=True)
        metrics.TABLES.set(len(self.entries))
        log.info("directory_loaded", tables=len(self.entries),
                 seconds=round(time.perf_counter() - started, 3))

    async def _follow_directory(self, to_end: bool = False) -> None:
        """Read the directory topic on: what is fetched already, or (`to_end`) up to the
        end it has now."""
        tail = self.tail
        if tail is None:
            return
        async with self.tail_lock:
            ends = await tail.end_offsets(list(tail.assignment())) if to_end else {}
            while True:
                batches = await tail.getmany(timeout_ms=200 if ends else 0, max_records=20000)
                for records in batches.values():
                    for record in records:
                        if record.value is not None:
                            self._read_back(record)
                if not ends:
                    return
                positions = {tp: await tail.position(tp) for tp in ends}
                if all(positions[tp] >= end for tp, end in ends.items()):
                    return

    def _read_back(self, record: Any) -> None:
        """One directory record read back. Once serving, one that is not an entry is a
        dead letter; while the directory loads (every start reads it all) it is only
        logged: it was dead-lettered when first read."""
        if self.ready.is_set():
            entry = self.dead.apply(record, lambda r: entry_decoder.decode(r.value))
            if entry is None:
                return
        else:
            try:
                bounds.check(record.value, bounds.DERIVED)
                entry = entry_decoder.decode(record.value)
            except Exception as exc:  # any record: the load goes on
                log.warning("undecodable_directory_entry", offset=record.offset,
                            error=str(exc)[:300])
                return
        self.latest[entry.table_id] = entry.last_offset
        if is_newer(entry, self.entries.get(entry.table_id)):
            self.entries[entry.table_id] = entry
            metrics.TABLES.set(len(self.entries))

    async def _repair(self) -> None:
        """Entries of our partitions whose latest record in the topic is not the one in
        memory (a stale write landed after ours): written again."""
        if self.dirty:
            return  # writes under way: their read-back is not due yet
        await self._follow_directory(to_end=True)
        for table_id, entry in self.entries.items():
            if (entry.partition in self.owned and table_id not in self.dirty
                    and self.latest.get(table_id, -1) < entry.last_offset):
                self.dirty[table_id] = entry
                metrics.REPAIRS.inc()

    # ------------------------------------------------------------ indexing
    async def _index(self, batches: dict[TopicPartition, list[Any]]) -> None:
        commits: dict[TopicPartition, int] = {}
        stamps: list[int] = []
        for tp, records in batches.items():
            if not records:
                continue
            if tp.partition not in self.owned:  # its assignment is not through yet: again
                if self.consumer is not None and tp in self.consumer.assignment():
                    self.consumer.seek(tp, records[0].offset)
                continue
            for record in records:
                self._fold_record(tp.partition, record)
                stamps.append(record.timestamp)
            # the position, past a transaction's commit marker, not just the last record
            commits[tp] = max(records[-1].offset + 1, await self._position(tp))
            self.newest[tp.partition] = records[-1].timestamp
        await self.dead.flush()
        if not await self._flush():
            return
        now = time.time()
        for stamp in stamps:
            metrics.LAG.observe(max(0.0, now - stamp / 1000))
        if commits and self.consumer is not None:
            try:
                await self.consumer.commit(commits)
            except (CommitFailedError, *_FAULTS) as exc:  # read again later: idempotent
                log.warning("commit_failed", error=repr(exc))

    async def _position(self, tp: TopicPartition) -> int:
        assert self.consumer is not None
        try:
            return int(await self.consumer.position(tp))
        except Exception:  # no longer assigned: the last record's offset + 1 will do
            return -1

    def _fold_record(self, partition: int, record: Any) -> None:
        """One events record into its table's entry. A record that is not an event of the
        table its key names (or that cannot be folded) is a dead letter, and its offset is
        kept in the entry of the table its key names (`directory.skip`)."""
        key = record.key.decode("utf-8", "replace") if record.key is not None else ""
        try:
            if record.value is None:
                raise HostileRecord("empty", "no value (a null record)")
            bounds.check(record.value, bounds.DERIVED)
            event = E.event_decoder.decode(record.value)
            if event.table_id != key:
                raise HostileRecord("wrong_key", f"an event of table {event.table_id!r:.80} "
                                    f"under the key {key!r:.80}")
            table_id = event.table_id
            entry = fold(self.entries.get(table_id), event, partition, record.offset)
        except Exception as exc:  # any record: the index goes on
            metrics.UNDECODABLE.inc()
            self.dead.hold(record, exc)
            if not key or len(key) > MAX_KEY:
                return
            table_id, entry = key, skip(self.entries.get(key), key, partition, record.offset)
        else:
            metrics.EVENTS.inc()
        if entry is not self.entries.get(table_id):
            self.entries[table_id] = entry
            self.dirty[table_id] = entry

    async def _flush(self) -> bool:
        """Write every changed entry; True once all are acknowledged."""
        if not self.dirty or self.producer is None:
            return not self.dirty
        writing = dict(self.dirty)
        try:
            sends = [await self.producer.send(self.directory, E.encode(entry),
                                              key=table_id.encode())
                     for table_id, entry in writing.items()]
            await asyncio.gather(*sends)
        except _FAULTS as exc:
            log.warning("directory_write_failed", entries=len(writing), error=repr(exc))
            return False
        for table_id, entry in writing.items():
            if self.dirty.get(table_id) is entry:
                del self.dirty[table_id]
        metrics.WRITES.inc(len(writing))
        metrics.TABLES.set(len(self.entries))
        return not self.dirty

    async def _gauge_lag(self) -> None:
        if self.consumer is None:
            return
        for tp in self.consumer.assignment():
            stable = self.consumer.last_stable_offset(tp)
            if stable is None:
                continue
            position = await self.consumer.position(tp)
            self.lag[tp.partition] = max(0, stable - position)
            metrics.LAG_EVENTS.labels(str(tp.partition)).set(self.lag[tp.partition])

    def partition_lag(self, partition: int) -> tuple[int, float] | None:
        """(events behind, seconds since the newest indexed event was written) on one
        events partition this instance indexes; None when another instance does."""
        if partition not in self.owned:
            return None
        behind = self.lag.get(partition, 0)
        newest = self.newest.get(partition)
        seconds = max(0.0, time.time() - newest / 1000) if behind and newest else 0.0
        return behind, round(seconds, 3)


def _bound_port(site: web.TCPSite) -> int | None:
    server = site._server
    sockets = getattr(server, "sockets", None) or []
    for sock in sockets:
        return int(sock.getsockname()[1])
    return None
