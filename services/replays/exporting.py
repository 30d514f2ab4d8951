"""Exports for analysts: the events of the tables a time window touches, as Parquet
(partitioned by house and date, hive style: `house=okeygg/date=2026-11-30/...`) or ndjson.

The tables come from the directory (those whose life meets the window, of one house if
asked); each events partition is read once, over the offset range those tables span, and
only their events in the window are kept (`okey101.app.replays.exports.Rows`).
"""

from __future__ import annotations

import asyncio
import gc
import threading
import uuid
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import msgspec
import pyarrow as pa
import pyarrow.parquet as pq

from okey101.app import topics
from okey101.app.replays.directory import TableEntry, is_listed
from okey101.app.replays.exports import Rows
from okey101.app.replays.replay import Skipped
from okey101.errors import InfrastructureFault
from services.replays.bulk import BulkReader
from services.replays.reading import load_directory

Format = Literal["parquet", "ndjson"]
CHUNK = 250_000  # rows held before they are written
# dictionaries only where values repeat (not the payloads)
DICTIONARY = ["table_id", "type", "player_id", "tile", "kind", "reason", "finish"]


class Exported(msgspec.Struct, kw_only=True):
    tables: int
    events: int
    files: int
    skipped: list[Skipped]
    records: int  # records read from the events topic


def selected(entries: dict[str, TableEntry], since: int, until: int, house: str | None
             ) -> list[TableEntry]:
    return [e for e in entries.values()
            if is_listed(e, house=house, since=since, until=until, public=False)]


class Writer:
    """Rows written as they fill: a file per (house, date) and chunk."""

    def __init__(self, out: Path, fmt: Format) -> None:
        self.out = out
        self.fmt = fmt
        self.run = uuid.uuid4().hex[:8]
        self.chunk = 0
        self.files = 0
        self.events = 0

    def write(self, rows: Rows) -> None:
        self.write_parts(rows.parts())
        rows.clear()

    def write_parts(self, parts: Iterable[tuple[str, str, pa.Table]]) -> None:
        """A file for each house and date, as `Rows.parts()` gives them (already apart:
        no split, no copy)."""
        self.chunk += 1
        for house, day, part in parts:
            folder = self.out / f"house={house}" / f"date={day}"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"part-{self.run}-{self.chunk}.{self.fmt}"
            if self.fmt == "parquet":
                # no Arrow schema in the file: readers take the Parquet types (plain strings
                # where the rows held dictionaries)
                pq.write_table(part, path, use_dictionary=DICTIONARY, store_schema=False)
            else:
                _ndjson(part, path)
            self.events += part.num_rows
            self.files += 1


def _ndjson(part: pa.Table, path: Path) -> None:
    with path.open("wb") as handle:
        for row in part.to_pylist():
            payload = row.pop("payload")
            row["at"] = int(row["at"].timestamp() * 1000)
            handle.write(msgspec.json.encode(row)[:-1] + b',"event":' + payload.encode()
                         + b"}\n")


async def export(bootstrap: str, prefix: str, out: Path, since: int, until: int,
                 fmt: Format = "parquet", house: str | None = None, public: bool = False,
                 entries: dict[str, TableEntry] | None = None) -> Exported:
    """Write the events in [since, until) of the tables the directory lists for it."""
    if entries is None:
        entries = await load_directory(bootstrap, topics.DIRECTORY.name(prefix))
    chosen = selected(entries, since, until, house)
    by_partition: dict[int, list[TableEntry]] = defaultdict(list)
    for entry in chosen:
        by_partition[entry.partition].append(entry)
    out.mkdir(parents=True, exist_ok=True)
    writer = Writer(out, fmt)
    # the reads block (librdkafka): a worker thread does them and all the rest; told to
    # stop (at its next batch) when the export is cancelled (Ctrl-C)
    stop = threading.Event()
    try:
        skipped, records = await asyncio.to_thread(
            _write, bootstrap, topics.EVENTS.name(prefix), by_partition, writer, since, until,
            public, stop)
    finally:
        stop.set()
    return Exported(tables=len(chosen), events=writer.events, files=writer.files,
                    skipped=[s for s in skipped if _under(s, by_partition)], records=records)


def _write(bootstrap: str, events: str, by_partition: dict[int, list[TableEntry]],
           writer: Writer, since: int, until: int, public: bool, stop: threading.Event
           ) -> tuple[list[Skipped], int]:
    """Each partition's range read once and written: the records skipped, those read."""
    skipped: list[Skipped] = []
    records = 0
    reader = BulkReader(bootstrap)
    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived structs: the collector's passes cost more than they free
    try:
        for partition, tables in sorted(by_partition.items()):
            houses = {e.table_id: e.house for e in tables}
            first = min(e.first_offset for e in tables)
            last = max(e.last_offset for e in tables)
            rows = Rows()
            for offsets, values in reader.read(events, partition, first, last):
                if stop.is_set():
                    raise InfrastructureFault("the export was stopped")
                records += len(offsets)
                skipped += rows.collect_values(partition, offsets, values, houses, since,
                                               until, public)
                if len(rows) >= CHUNK:
                    writer.write(rows)
            writer.write(rows)
    finally:
        if collecting:
            gc.enable()
        reader.close()
    return skipped, records


def _under(skipped: Skipped, by_partition: dict[int, list[TableEntry]]) -> bool:
    """Whether a skipped record belongs to an exported table (its entry noted it)."""
    return any(skipped.offset in e.skipped for e in by_partition.get(skipped.partition, []))
