"""`okey101 export` on the real broker: it reads the events with read_committed, so what an
aborted transaction wrote into a table's offset range is never exported; the range's
bounds hold (the records before and after it, of another table, are not read as its)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import msgspec
from aiokafka import AIOKafkaProducer

from okey101.app import topics
from okey101.app.replays.directory import TableEntry, fold
from okey101.table import messages as E
from services.common.kafka import provision
from services.replays.exporting import export
from tests.kafka.support import fresh_tag
from tests.unit.matches import timed_events


class _Abort(Exception):
    pass


async def _write(producer: AIOKafkaProducer, topic: str, partition: int,
                 events: list[E.Event], commit: bool) -> list[int]:
    """The events in one transaction, committed or aborted: their offsets."""
    offsets: list[int] = []
    try:
        async with producer.transaction():
            sent = [await producer.send(topic, E.encode(e), key=e.table_id.encode(),
                                        partition=partition) for e in events]
            offsets += [(await s).offset for s in sent]
            if not commit:
                raise _Abort
    except _Abort:
        pass
    return offsets


async def test_what_an_aborted_transaction_wrote_is_never_exported(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    prefix = f"ex{fresh_tag()}"
    await provision(kafka_bootstrap, prefix)
    topic = topics.EVENTS.name(prefix)
    table = f"{prefix}-t"
    partition = topics.partition_for(table.encode(), topics.PARTITIONS)
    events = [msgspec.structs.replace(e, table_id=table) for e in timed_events()]
    half = len(events) // 2
    # what the aborted transaction wrote: the same table's events, seq numbers again, and
    # a record of another table, all inside the table's offset range
    aborted = [*events[half - 5:half], msgspec.structs.replace(events[3], table_id="other")]
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap,
                                transactional_id=f"{prefix}-test")
    await producer.start()
    try:
        await _write(producer, topic, partition,
                     [msgspec.structs.replace(events[0], table_id="before")], commit=True)
        committed = await _write(producer, topic, partition, events[:half], commit=True)
        dropped = await _write(producer, topic, partition, aborted, commit=False)
        committed += await _write(producer, topic, partition, events[half:], commit=True)
        await _write(producer, topic, partition,
                     [msgspec.structs.replace(events[0], table_id="after")], commit=True)
    finally:
        await producer.stop()
    entry: TableEntry | None = None
    for event, offset in zip(events, committed, strict=True):
        entry = fold(entry, event, partition, offset)
    assert entry is not None and entry.house
    # the aborted records lie inside the range read: only read_committed leaves them out
    assert len(dropped) == len(aborted)
    assert all(entry.first_offset < o < entry.last_offset for o in dropped)

    done = await export(kafka_bootstrap, prefix, tmp_path, 0, 2**63 - 1,
                        entries={table: entry})

    assert (done.tables, done.events, done.skipped) == (1, len(events), [])
    db = duckdb.connect()
    source = f"read_parquet('{tmp_path}/**/*.parquet', hive_partitioning = true)"
    rows = db.execute(f"select table_id, seq, \"offset\", payload from {source} "
                      "order by \"offset\"").fetchall()
    assert [(t, s, o) for t, s, o, _ in rows] == [
        (table, e.seq, o) for e, o in zip(events, committed, strict=True)]
    assert [p.encode() for *_, p in rows] == [E.encode(e) for e in events]
