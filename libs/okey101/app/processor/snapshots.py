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

A table's kept outcomes are `kept`, by command id, oldest first: a plain accepted outcome
(no code, message or duplicate flag) as the list of its seqs, any other whole. Version 1
wrote every outcome whole (`outcomes`), which made them three quarters of a cut (4.7 MB for
250 live tables) and the cut a stall for the commands behind it.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from okey101.table import messages as E
from okey101.table.state import TableState

VERSION = 2  # the snapshot schema: bump on any change of these structs


class TableSnapshot(msgspec.Struct, tag="table", frozen=True, kw_only=True):
    v: int = VERSION
    table_id: str
    state: TableState | None = None  # None: finished, in the window
    final_seq: int = 0  # a finished table's last seq
    outcomes: list[E.Outcome] = msgspec.field(default_factory=list)  # version 1 only
    # the outcomes kept, by command id, oldest first: a plain accepted one as its seqs
    kept: dict[str, E.Outcome | list[int]] = msgspec.field(default_factory=dict)


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


Record = TableSnapshot | Cut
decoder = msgspec.json.Decoder(StoredTable | Cut)
_version = msgspec.json.Decoder(dict[str, object])


def cut_key(partition: int) -> str:
    return f"~cut:{partition}"


class Unusable(Exception):
    """The snapshots cannot be used (the message says why): read the full log."""


def latest(records: Iterable[tuple[int, bytes | None, bytes | None]], partition: int
           ) -> tuple[Cut, dict[str, StoredTable]]:
    """The latest cut of `partition` and the table records it stands on, from a snapshots
    partition read in order as (offset, key, value). Raises `Unusable`."""
    values: dict[bytes, tuple[int, bytes | None]] = {}
    for offset, key, value in records:
        if key is not None:
            values[key] = (offset, value)
    found = values.get(cut_key(partition).encode())
    if found is None or found[1] is None:
        raise Unusable(f"no snapshot cut for partition {partition}")
    cut = _decode(found[0], found[1])
    assert isinstance(cut, Cut)
    tables: dict[str, StoredTable] = {}
    for key, (offset, value) in values.items():
        if value is None or key.startswith(b"~cut:"):
            continue
        if offset > found[0]:
            raise Unusable(f"a table record at offset {offset} after the cut at {found[0]}")
        record = _decode(offset, value)
        if not isinstance(record, StoredTable):
            raise Unusable(f"offset {offset}: a cut under a table key {key!r}")
        tables[record.table_id] = record
    if len(tables) != cut.tables:
        raise Unusable(f"the cut at offset {found[0]} stands on {cut.tables} table records; "
                       f"{len(tables)} found")
    return cut, tables


def _decode(offset: int, value: bytes) -> StoredTable | Cut:
    try:
        head = _version.decode(value)
    except msgspec.DecodeError as exc:
        raise Unusable(f"offset {offset}: undecodable snapshot ({exc})") from exc
    if head.get("v") != VERSION:
        raise Unusable(f"offset {offset}: snapshot version v={head.get('v')!r}, this "
                       f"processor reads v={VERSION}")
    try:
        return decoder.decode(value)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise Unusable(f"offset {offset}: undecodable snapshot ({exc})") from exc
