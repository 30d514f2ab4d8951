"""Events as analysts' rows: one row per event, typed columns, the payload as JSON. Pure
(it builds Arrow tables in memory; writing them is the caller's).

Columns: where the event is (`partition`, `offset`), what table and house, `seq`, `at` (a
UTC timestamp) and `date` (its UTC day: with `house`, how exports are partitioned), `type`,
`seat`, `hand` (the hand being played, carried from each table's `hand_started`), and the
fields analysts query most, typed: `player_id`, `bot`, `tile`, `tiles` (every tile the
event names, melds flattened), `melds`, `kind`, `value`, `threshold`, `elden`, `points`,
`reason`, `finish`, `finished_by`, `scores`, `replay`, `totals`, `places`; `payload` is the
whole event as JSON (as the log holds it, or as spectators saw it in a public export).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date, timedelta
from typing import Any, Protocol

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from okey101.app.replays.directory import is_bot
from okey101.app.replays.replay import Skipped
from okey101.table import messages as E
from okey101.table.views import public_event

SCHEMA = pa.schema([
    ("table_id", pa.string()),
    ("house", pa.string()),
    ("date", pa.string()),
    ("partition", pa.int32()),
    ("offset", pa.int64()),
    ("seq", pa.int64()),
    ("at", pa.timestamp("ms", tz="UTC")),
    ("type", pa.string()),
    ("seat", pa.int8()),
    ("hand", pa.int16()),
    ("player_id", pa.string()),
    ("bot", pa.bool_()),
    ("tile", pa.string()),
    ("tiles", pa.list_(pa.string())),
    ("melds", pa.list_(pa.list_(pa.string()))),
    ("kind", pa.string()),
    ("value", pa.int32()),
    ("threshold", pa.int32()),
    ("elden", pa.bool_()),
    ("points", pa.int32()),
    ("reason", pa.string()),
    ("finish", pa.string()),
    ("finished_by", pa.int8()),
    ("scores", pa.list_(pa.int32())),
    ("replay", pa.bool_()),
    ("totals", pa.list_(pa.int32())),
    ("places", pa.list_(pa.int8())),
    ("payload", pa.string()),
])
COLUMNS = SCHEMA.names
# columns taken from the event's own field of the same name, where it has one
_FIELDS = ("seat", "player_id", "bot", "melds", "kind", "value", "threshold", "elden",
           "points", "reason", "finish", "finished_by", "scores", "replay", "totals", "places")
# what `parts()` gives: no house and date (the folder names them); the table ids and the
# types as dictionaries (indices into the table ids met, the one type of a chunk): no
# string a row to convert, nor for the Parquet writer to hash (it writes them as
# dictionaries anyway)
TABLE_IDS = pa.dictionary(pa.int32(), pa.string())
PART_SCHEMA = pa.schema([
    pa.field(f.name, TABLE_IDS) if f.name in ("table_id", "type") else f
    for f in SCHEMA if f.name not in ("house", "date")])
DAY_MS = 86_400_000
EPOCH = date(1970, 1, 1)
# a row's numbers, kept in one array of int64 a group (W numbers a row, taken while the
# event is fresh in the cache; no Python object a number for Arrow to visit later): the
# table (index into Rows.table_ids), seq, at, partition, offset, hand (-1: none yet), the
# payload's length
W = 7
NO_HAND = -1
_PACK = struct.Struct(f"={W}q").pack
_UNSEEN: Any = object()
_TAGS: dict[type[E.Event], str] = {
    cls: cls.__struct_config__.tag for cls in E.AnyEvent.__args__
}


class Record(Protocol):
    """A Kafka record as the reader hands it over."""

    @property
    def offset(self) -> int: ...

    @property
    def value(self) -> bytes | None: ...


class Rows:
    """Events being collected, already apart by house, UTC day and event type: `parts()`
    turns them into Arrow a (house, date) at a time (what a Parquet file of the export
    holds), column by column for each event type (list comprehensions over one type's
    structs, not a loop over fields); `table()` into one table."""

    def __init__(self) -> None:
        # (house, day) -> event type -> the group's rows: their events, numbers (`W` a
        # row) and payloads one after another; then the appending methods of these three
        self.days: dict[tuple[str, int], dict[type[E.Event], Group]] = {}
        self.hands: dict[str, int] = {}  # table -> the hand being played
        self.table_ids: list[str] = []  # the tables met, in order
        self.numbers: dict[str, int] = {}  # table -> its index in table_ids

    def __len__(self) -> int:
        return sum(len(g[0]) for kinds in self.days.values() for g in kinds.values())

    def collect(self, partition: int, records: Iterable[Record], houses: Mapping[str, str],
                since: int = 0, until: int = 2**63 - 1, public: bool = False
                ) -> list[Skipped]:
        """Rows for the events of `records` (one partition, in offset order) whose table is
        in `houses` (table -> house) and whose time is in [since, until); as spectators
        saw them when `public`. Undecodable records are returned, never raised."""
        listed = list(records)
        return self.collect_values(partition, [r.offset for r in listed],
                                   [r.value for r in listed], houses, since, until, public)

    def collect_values(self, partition: int, offsets: Sequence[int],
                       values: Sequence[bytes | None], houses: Mapping[str, str],
                       since: int = 0, until: int = 2**63 - 1, public: bool = False
                       ) -> list[Skipped]:
        """`collect` of records given as their offsets and values (as the bulk reader
        hands them over)."""
        decode, hands, pack = E.event_decoder.decode, self.hands, _PACK
        hand_started: type[E.Event] = E.HandStarted
        skipped: list[Skipped] = []
        # table -> [house, its number, the day of its last row, that day's groups, its
        # hand], or None when it is not exported: one look-up a row
        known: dict[str, list[Any] | None] = {}
        for offset, value in zip(offsets, values, strict=True):
            if value is None:
                continue
            try:
                event = decode(value)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                skipped.append(Skipped(partition=partition, offset=offset,
                                       reason=f"undecodable event: {exc}"))
                continue
            table = event.table_id
            state = known.get(table, _UNSEEN)
            if state is _UNSEEN:
                state = known[table] = self._state(table, houses)
            kind = type(event)
            if kind is hand_started:
                hand = hands[table] = event.hand  # type: ignore[union-attr]
                if state is not None:
                    state[4] = hand
            if state is None:
                continue
            at = event.at
            if not since <= at < until:
                continue
            if public:
                seen = public_event(event)
                if seen is None:
                    continue
                if seen is not event:
                    event, value = seen, E.encode(seen)
                    kind = type(event)
            day = at // DAY_MS
            if day != state[2]:
                state[2], state[3] = day, self.days.setdefault((state[0], day), {})
            group = state[3].get(kind)
            if group is None:
                group = state[3][kind] = _new_group()
            group[3](event)
            group[4](pack(state[1], event.seq, at, partition, offset, state[4], len(value)))
            group[5](value)
        return skipped

    def _state(self, table: str, houses: Mapping[str, str]) -> list[Any] | None:
        house = houses.get(table)
        if house is None:
            return None
        number = self.numbers.get(table)
        if number is None:
            number = self.numbers[table] = len(self.table_ids)
            self.table_ids.append(table)
        return [house, number, None, None, self.hands.get(table, NO_HAND)]

    def parts(self) -> Iterator[tuple[str, str, pa.Table]]:
        """(house, date, the rows of that house and UTC date) for each pair, the `house`
        and `date` columns left out (the folder names them); a type's rows in the order
        added. The tables are chunked: a chunk per event type."""
        table_ids = pa.array(self.table_ids, pa.string())
        for (house, day), kinds in self.days.items():
            if kinds:
                yield house, _date(day), pa.concat_tables(
                    [_group(kind, group, table_ids) for kind, group in kinds.items()])

    def table(self) -> pa.Table:
        """All the rows as one table of `SCHEMA`: house by house, day by day, a type's
        rows in the order added."""
        parts = []
        for house, day, part in self.parts():
            n = part.num_rows
            part = part.cast(pa.schema([SCHEMA.field(name) for name in part.column_names]))
            parts.append(part.add_column(0, "house", pa.array([house] * n, pa.string()))
                         .add_column(1, "date", pa.array([day] * n, pa.string()))
                         .select(COLUMNS))
        return pa.concat_tables(parts).combine_chunks() if parts else SCHEMA.empty_table()

    def clear(self) -> None:
        self.days = {}


def _date(day: int) -> str:
    return (EPOCH + timedelta(days=day)).isoformat()


Group = tuple[list[Any], bytearray, bytearray, Callable[[Any], None],
              Callable[[bytes], None], Callable[[bytes], None]]


def _new_group() -> Group:
    events: list[Any] = []
    numbers = bytearray()  # W int64 a row (`_PACK`)
    payloads = bytearray()
    return events, numbers, payloads, events.append, numbers.extend, payloads.extend


def _group(kind: type[E.Event], group: Group, table_ids: pa.Array) -> pa.Table:
    events, numbers, payloads = group[:3]
    n = len(events)
    with memoryview(numbers) as raw, raw.cast("q") as view:
        table, seq, at, partition, offset, hand, size = (
            pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(view[i::W].tobytes())])
            for i in range(W))
    ends = pc.cumulative_sum(size)
    fields = set(kind.__struct_fields__)
    cols: dict[str, Any] = {
        "table_id": pa.DictionaryArray.from_arrays(table.cast(pa.int32()), table_ids),
        "seq": seq,
        "at": at.view(SCHEMA.field("at").type),
        "partition": partition.cast(pa.int32()),
        "offset": offset,
        "payload": pa.Array.from_buffers(pa.string(), n, [
            None, pa.concat_arrays([pa.array([0], pa.int64()), ends]).cast(pa.int32())
            .buffers()[1], pa.py_buffer(bytes(payloads))]),
        "hand": pc.if_else(pc.equal(hand, NO_HAND), pa.scalar(None, pa.int64()), hand)
                .cast(pa.int16()),
        "type": pa.DictionaryArray.from_arrays(pa.nulls(n, pa.int32()).fill_null(0),
                                               pa.array([_TAGS[kind]], pa.string())),
    }
    for name in _FIELDS:
        if name in fields:
            cols[name] = [getattr(e, name) for e in events]
    if kind is E.OkeyTaken:
        cols["tile"] = [e.okey for e in events]
    elif "tile" in fields:
        cols["tile"] = [e.tile or None for e in events]
    if "melds" in fields:
        cols["tiles"] = [[t for m in e.melds for t in m] for e in events]
    elif "tiles" in fields:
        cols["tiles"] = [e.tiles for e in events]
    if kind is E.PlayerSat:
        cols["bot"] = [is_bot(e) for e in events]
    if kind is E.SeatHandedToBot:
        cols["player_id"] = [e.bot_id for e in events]
        cols["bot"] = [True] * n
    arrays = [_array(cols[f.name], f.type) if f.name in cols else pa.nulls(n, f.type)
              for f in PART_SCHEMA]
    return pa.Table.from_arrays(arrays, schema=PART_SCHEMA)


def _array(values: Any, kind: pa.DataType) -> pa.Array:
    return values if isinstance(values, pa.Array) else pa.array(values, kind)
