"""Reading the log for replays: the directory topic, one table's offset range, the lag.

Shared by the replays service, the `okey101 replay|history|export` commands and the
benchmark. Everything is read with read_committed: what an aborted transaction wrote is no
event.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import msgspec
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError

from okey101.app import topics
from okey101.app.replays.directory import TableEntry, entry_decoder, is_newer
from okey101.app.replays.replay import Skipped
from okey101.errors import InfrastructureFault
from okey101.table import messages as E
from services.common.kafka import client_security

FETCH_BYTES = 16 * 1024 * 1024  # scans: the directory, exports
TABLE_FETCH_BYTES = 1024 * 1024  # one table's range: a fetch holds ~7,000 events
READ_TIMEOUT = 60.0  # seconds a range read may take before it is a fault
_FAULTS = (KafkaError, OSError, TimeoutError)


class TableLog(msgspec.Struct, kw_only=True):
    """One table's events from its offset range, in order, and the records skipped."""

    events: list[E.Event]
    skipped: list[Skipped]
    records: int  # records read from the partition (other tables' included)


def consumer(bootstrap: str, **extra: Any) -> AIOKafkaConsumer:
    options: dict[str, Any] = {
        "bootstrap_servers": bootstrap, "group_id": None, "enable_auto_commit": False,
        "isolation_level": "read_committed", "auto_offset_reset": "earliest",
        "max_partition_fetch_bytes": FETCH_BYTES, "fetch_max_bytes": 4 * FETCH_BYTES,
        "fetch_max_wait_ms": 20, "request_timeout_ms": 30000, **client_security()}
    return AIOKafkaConsumer(**(options | extra))


def table_reader(bootstrap: str) -> AIOKafkaConsumer:
    """A consumer for one table's range: small fetches, as a range is small."""
    return consumer(bootstrap, max_partition_fetch_bytes=TABLE_FETCH_BYTES,
                    fetch_max_bytes=4 * TABLE_FETCH_BYTES)


async def read_range(reader: AIOKafkaConsumer, topic: str, partition: int, first: int,
                     last: int, timeout: float = READ_TIMEOUT) -> AsyncIterator[list[Any]]:
    """The committed records of offsets [first, last] of one partition, batch by batch."""
    tp = TopicPartition(topic, partition)
    reader.assign([tp])
    reader.seek(tp, first)
    deadline = time.monotonic() + timeout
    wanted = first
    while True:
        # a fetch brings far more than the range: unpack only what the range can hold
        batch = await reader.getmany(tp, timeout_ms=200,
                                     max_records=max(1, min(50_000, last - wanted + 1)))
        records = batch.get(tp, [])
        if records:
            wanted = records[-1].offset + 1
        if records and records[-1].offset > last:
            records = [r for r in records if r.offset <= last]
        if records:
            yield records
        if (await reader.position(tp)) > last or (records and records[-1].offset >= last):
            return
        if time.monotonic() > deadline:
            raise InfrastructureFault(f"{topic}[{partition}] offsets {first}-{last}: not read "
                                      f"in {timeout:.0f} s")


async def read_table(reader: AIOKafkaConsumer, topic: str, entry: TableEntry,
                     last: int | None = None) -> TableLog:
    """The events of `entry`'s table from its offset range (up to offset `last`)."""
    key = entry.table_id.encode()
    events: list[E.Event] = []
    skipped: list[Skipped] = []
    decode = E.event_decoder.decode
    count = 0
    end = entry.last_offset if last is None else min(last, entry.last_offset)
    if end < entry.first_offset:
        return TableLog(events=[], skipped=[], records=0)
    async for records in read_range(reader, topic, entry.partition, entry.first_offset, end):
        count += len(records)
        for record in records:
            if record.key != key or record.value is None:
                continue
            try:
                event = decode(record.value)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                skipped.append(Skipped(partition=entry.partition, offset=record.offset,
                                       reason=f"undecodable event: {exc}"))
                continue
            if event.table_id != entry.table_id:
                skipped.append(Skipped(partition=entry.partition, offset=record.offset,
                                       reason=f"an event of table {event.table_id!r} under "
                                              f"the key {entry.table_id!r}"))
                continue
            events.append(event)
    return TableLog(events=events, skipped=skipped, records=count)


class Readers:
    """A few long-lived consumers for range reads (one read at a time on each)."""

    def __init__(self, bootstrap: str, size: int = 2) -> None:
        self.bootstrap = bootstrap
        self.size = size
        self.idle: asyncio.Queue[AIOKafkaConsumer] = asyncio.Queue()
        self.all: list[AIOKafkaConsumer] = []

    async def start(self) -> None:
        for _ in range(self.size):
            reader = table_reader(self.bootstrap)
            await reader.start()
            self.all.append(reader)
            self.idle.put_nowait(reader)

    async def stop(self) -> None:
        for reader in self.all:
            with contextlib.suppress(*_FAULTS):
                await reader.stop()

    async def read(self, topic: str, entry: TableEntry, last: int | None = None) -> TableLog:
        reader = await self.idle.get()
        try:
            return await read_table(reader, topic, entry, last)
        except _FAULTS as exc:
            raise InfrastructureFault(f"reading {topic}[{entry.partition}]: {exc!r}") from exc
        finally:
            self.idle.put_nowait(reader)


# ---------------------------------------------------------------- the directory topic
async def load_directory(bootstrap: str, topic: str, partitions: Sequence[int] | None = None,
                         keep: Callable[[bytes], bool] | None = None
                         ) -> dict[str, TableEntry]:
    """The directory as the compacted topic holds it now (the entry that knows most of each
    table wins), from `partitions` (all of them by default)."""
    out: dict[str, TableEntry] = {}
    reader = consumer(bootstrap)
    await reader.start()
    try:
        if partitions is None:
            found = await partitions_of(reader, topic)
            partitions = sorted(found)
        tps = [TopicPartition(topic, p) for p in partitions]
        ends = await reader.end_offsets(tps)
        for tp in tps:
            if ends[tp] == 0:
                continue
            async for records in read_range(reader, topic, tp.partition, 0, ends[tp] - 1):
                for record in records:
                    if record.value is None or (keep is not None and not keep(record.key)):
                        continue
                    merge(out, record.value)
        return out
    except _FAULTS as exc:
        raise InfrastructureFault(f"reading the directory {topic}: {exc!r}") from exc
    finally:
        await reader.stop()


def merge(entries: dict[str, TableEntry], value: bytes) -> TableEntry | None:
    """Fold one directory record into `entries`; the entry when it was newer, else None
    (a stale or undecodable record)."""
    try:
        entry = entry_decoder.decode(value)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if not is_newer(entry, entries.get(entry.table_id)):
        return None
    entries[entry.table_id] = entry
    return entry


async def find_entry(bootstrap: str, prefix: str, table_id: str) -> TableEntry | None:
    """`table_id`'s directory entry: only the directory partition its key hashes to."""
    topic = topics.DIRECTORY.name(prefix)
    reader = consumer(bootstrap)
    await reader.start()
    try:
        count = len(await partitions_of(reader, topic))
    except _FAULTS as exc:
        raise InfrastructureFault(f"reading the directory {topic}: {exc!r}") from exc
    finally:
        await reader.stop()
    key = table_id.encode()
    partition = topics.partition_for(key, count)
    found = await load_directory(bootstrap, topic, [partition], keep=lambda k: k == key)
    return found.get(table_id)


async def partitions_of(reader: AIOKafkaConsumer, topic: str) -> set[int]:
    for _ in range(50):
        found = reader.partitions_for_topic(topic)
        if found:
            return set(found)
        await reader._client.force_metadata_update()
        await asyncio.sleep(0.1)
    raise InfrastructureFault(f"topic {topic} does not exist: is the replays service running "
                              "with this --prefix?")


# ---------------------------------------------------------------- lag
class Lag(msgspec.Struct, frozen=True, kw_only=True):
    partition: int
    events: int  # records of the events partition the directory has not indexed
    seconds: float  # how long the oldest of them has waited (0 when none)


async def directory_lag(bootstrap: str, prefix: str, group: str, partitions: Sequence[int]
                        ) -> list[Lag]:
    """How far the replays service (consumer group `group`) is behind on `partitions` of
    the events topic: from its committed offsets and the partitions' stable ends."""
    topic = topics.EVENTS.name(prefix)
    tps = [TopicPartition(topic, p) for p in partitions]
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000,
                                **client_security())
    reader = consumer(bootstrap)
    try:
        await admin.start()
        await reader.start()
        committed = await admin.list_consumer_group_offsets(group, partitions=tps)
        ends = await reader.end_offsets(tps)
        out = []
        for tp in tps:
            meta = committed.get(tp)
            position = meta.offset if meta is not None and meta.offset >= 0 else 0
            behind = max(0, ends[tp] - position)
            seconds = 0.0
            if behind:
                first = await _first_record(reader, tp, position, ends[tp])
                if first is None:  # only transaction markers: nothing to index
                    behind = 0
                else:
                    seconds = max(0.0, time.time() - first.timestamp / 1000)
            out.append(Lag(partition=tp.partition, events=behind, seconds=round(seconds, 3)))
        return out
    except _FAULTS as exc:
        raise InfrastructureFault(f"reading the lag of group {group!r}: {exc!r}") from exc
    finally:
        with contextlib.suppress(*_FAULTS):
            await reader.stop()
        with contextlib.suppress(*_FAULTS):
            await admin.close()


async def _first_record(reader: AIOKafkaConsumer, tp: TopicPartition, position: int,
                        end: int) -> Any | None:
    """The first committed record of `tp` from `position` (before `end`), or None."""
    reader.assign([tp])
    reader.seek(tp, position)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        batch = await reader.getmany(tp, timeout_ms=100, max_records=1)
        if batch.get(tp):
            return batch[tp][0]
        if await reader.position(tp) >= end:
            return None
    return None
