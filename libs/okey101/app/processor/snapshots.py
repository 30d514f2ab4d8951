"""The processor's snapshots (issue 13): what `PartitionTables` keeps, written to a
compacted topic so that a restart reads the snapshots and only the tail of the log.

One record per table, keyed by table id: a live table's state with the outcomes of its
command ids, a finished table of the window with its final seq and outcomes (no state), or
a tombstone once it has left the window. A *cut* record per partition, keyed `~cut:<p>`,
closes each snapshot transaction: the events and outcomes offsets the snapshot stands at
(the first offset after the transaction's records), the finished window's order and the
strays. The processor writes a cut in the same transaction as the events and outcomes it
follows, with a record for every table changed since the previous cut, so the latest
record of every key up to the latest cut is exactly the memory at that cut.

Every record carries `v`, the snapshot schema version: a reader that meets another
version, an undecodable record or no cut for its partition falls back to the full log.
So does one that meets a hostile record (issue 41): bytes outside `LIMITS`, a record under
another table's key (or a cut of another partition), a finished table of the cut without
its record, or a cut at offsets beyond the events or outcomes log. `Unusable.kind` names
which, for the fallback's metric.

A table's kept outcomes are `kept`, by command id, oldest first: a plain accepted outcome
(no code, message or duplicate flag) as the list of its seqs, any other whole. Version 1
wrote every outcome whole (`outcomes`), which made them three quarters of a cut (4.7 MB for
250 live tables) and the cut a stall for the commands behind it. Version 3 adds `digests`,
by command id, the digest of each kept id's command that carried one (a reused id is
refused against it); a version 2 record still loads, its ids without digests (answered as
duplicates, as version 2 did). `READS` are the versions a reader takes.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from okey101.app import bounds
from okey101.table import messages as E
from okey101.table.state import TableState

VERSION = 3  # the snapshot schema: bump on any change of these structs
READS = (2, 3)  # version 2: no `digests`, which default to none
# What a snapshot record may be: as large as a rebuild fetches of one partition at once
# (8 MiB, `read_partition_records`) and as deep as the derived records: a state nests
# about 8 deep, and msgspec recurses (a RecursionError near 1,000) before it validates.
LIMITS = bounds.Limits(max_bytes=8 * 1024 * 1024, max_depth=32, max_string=64 * 1024)


class TableSnapshot(msgspec.Struct, tag="table", frozen=True, kw_only=True):
    v: int = VERSION
    table_id: str
    state: TableState | None = None  # None: finished, in the window
    final_seq: int = 0  # a finished table's last seq
    outcomes: list[E.Outcome] = msgspec.field(default_factory=list)  # version 1 only
    # the outcomes kept, by command id, oldest first: a plain accepted one as its seqs
    kept: dict[str, E.Outcome | list[int]] = msgspec.field(default_factory=dict)
    # the digests of the kept ids whose command carried one (version 3)
    digests: dict[str, str] = msgspec.field(default_factory=dict)


class Cut(msgspec.Struct, tag="cut", frozen=True, kw_only=True):
    v: int = VERSION
    partition: int
    events_offset: int  # the first events offset after the snapshot
    outcomes_offset: int  # the first outcomes offset after the snapshot
    finished: list[str] = msgspec.field(default_factory=list)  # the window, oldest first
    strays: list[E.Outcome] = msgspec.field(default_factory=list)  # oldest first
    tables: int = 0  # table records (live and finished) the cut stands on


class StoredTable(msgspec.Struct, tag="table", frozen=True, kw_only=True):
    """A `TableSnapshot` as the processor writes and reads it: the same JSON, its kept
    outcomes left encoded (the processor keeps them so, and only a retry decodes one)."""

    v: int = VERSION
    table_id: str
    state: TableState | None = None
    final_seq: int = 0
    outcomes: list[msgspec.Raw] = msgspec.field(default_factory=list)
    kept: dict[str, msgspec.Raw] = msgspec.field(default_factory=dict)
    digests: dict[str, str] = msgspec.field(default_factory=dict)


Record = TableSnapshot | Cut
decoder = msgspec.json.Decoder(StoredTable | Cut)
_version = msgspec.json.Decoder(dict[str, object])


def cut_key(partition: int) -> str:
    return f"~cut:{partition}"


# why a snapshot is unusable: the reason label of okey_snapshot_fallbacks_total
KINDS = ("no_cut", "version", "undecodable", "too_large", "too_deep", "too_long",
         "number_range", "key_mismatch", "incomplete", "beyond_log")


class Unusable(Exception):
    """The snapshots cannot be used (the message says why, `kind` which of `KINDS`): read
    the full log."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def latest(records: Iterable[tuple[int, bytes | None, bytes | None]], partition: int,
           ends: tuple[int, int] | None = None) -> tuple[Cut, dict[str, StoredTable]]:
    """The latest cut of `partition` and the table records it stands on, from a snapshots
    partition read in order as (offset, key, value); `ends` are the events and outcomes
    logs' end offsets, which the cut must not pass. Raises `Unusable`."""
    values: dict[bytes, tuple[int, bytes | None]] = {}
    for offset, key, value in records:
        if key is not None:
            values[key] = (offset, value)
    found = values.get(cut_key(partition).encode())
    if found is None or found[1] is None:
        raise Unusable("no_cut", f"no snapshot cut for partition {partition}")
    cut = _cut(found[0], found[1], partition, ends)
    tables: dict[str, StoredTable] = {}
    for key, (offset, value) in values.items():
        if value is None or key.startswith(b"~cut:"):
            continue
        if offset > found[0]:
            raise Unusable("incomplete", f"a table record at offset {offset} after the cut "
                           f"at {found[0]}")
        record = _table(offset, key, value)
        tables[record.table_id] = record
    if len(tables) != cut.tables:
        raise Unusable("incomplete", f"the cut at offset {found[0]} stands on {cut.tables} "
                       f"table records; {len(tables)} found")
    for table_id in cut.finished:
        held = tables.get(table_id)
        if held is None or held.state is not None:
            raise Unusable("incomplete", f"the cut at offset {found[0]}: finished table "
                           f"{table_id!r} has no finished record")
    return cut, tables


def _cut(offset: int, value: bytes, partition: int, ends: tuple[int, int] | None) -> Cut:
    cut = _decode(offset, value)
    if not isinstance(cut, Cut):
        raise Unusable("key_mismatch", f"offset {offset}: a table record under the cut key "
                       f"of partition {partition}")
    if cut.partition != partition:
        raise Unusable("key_mismatch", f"offset {offset}: the cut of partition "
                       f"{cut.partition} under the cut key of partition {partition}")
    at = (cut.events_offset, cut.outcomes_offset)
    for log, mark, end in zip(("events", "outcomes"), at, ends or at, strict=True):
        if not 0 <= mark <= end:
            raise Unusable("beyond_log", f"offset {offset}: the cut stands at {log} offset "
                           f"{mark}, the {log} log of partition {partition} ends at {end}")
    return cut


def _table(offset: int, key: bytes, value: bytes) -> StoredTable:
    record = _decode(offset, value)
    if not isinstance(record, StoredTable):
        raise Unusable("key_mismatch", f"offset {offset}: a cut under a table key {key!r}")
    held = {record.table_id, record.table_id if record.state is None
            else record.state.table_id}
    if held != {key.decode("utf-8", "replace")}:
        raise Unusable("key_mismatch", f"offset {offset}: the record of table "
                       f"{sorted(held)} under the key {key!r}")
    return record


def _decode(offset: int, value: bytes) -> StoredTable | Cut:
    try:
        bounds.check(value, LIMITS)
    except bounds.HostileRecord as exc:
        raise Unusable(exc.kind, f"offset {offset}: {exc}") from exc
    try:
        head = _version.decode(value)
    except msgspec.DecodeError as exc:  # a ValidationError is one
        raise Unusable("undecodable", f"offset {offset}: undecodable snapshot ({exc})"
                       ) from exc
    if head.get("v") not in READS:
        raise Unusable("version", f"offset {offset}: snapshot version v={head.get('v')!r}, "
                       f"this processor reads v={' or '.join(map(str, READS))}")
    try:
        return decoder.decode(value)
    except msgspec.DecodeError as exc:
        raise Unusable("undecodable", f"offset {offset}: undecodable snapshot ({exc})"
                       ) from exc
