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

from array import array
from collections.abc import Iterable, Mapping, Sequence
from itertools import accumulate
from operator import itemgetter
from typing import Any, Protocol, cast

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from okey101.app.directory import is_bot
from okey101.app.replay import Skipped
from okey101.table import messages as E
from okey101.table.views import public_event

astuple = msgspec.structs.astuple

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
_TAGS: dict[type[E.Event], str] = {
    cls: cls.__struct_config__.tag for cls in E.AnyEvent.__args__
}


class Record(Protocol):
    """A Kafka record as the reader hands it over."""

    @property
    def offset(self) -> int: ...

    @property
    def value(self) -> bytes | None: ...


class ReferenceRows:
    """Events being collected; `table()` turns them into Arrow, column by column for each
    event type (list comprehensions over one type's structs, not a loop over fields).

    The way `Rows` did it before its plans: kept as the reference it is tested and
    benchmarked against (tests/unit/test_exports.py, tools/bench/exports.py)."""

    def __init__(self) -> None:
        # (event, house, partition, offset, payload, hand)
        self.rows: list[tuple[E.Event, str, int, int, bytes, int | None]] = []
        self.hands: dict[str, int] = {}  # table -> the hand being played

    def __len__(self) -> int:
        return len(self.rows)

    def collect(self, partition: int, records: Iterable[Record], houses: Mapping[str, str],
                since: int = 0, until: int = 2**63 - 1, public: bool = False
                ) -> list[Skipped]:
        """Rows for the events of `records` (one partition, in offset order) whose table is
        in `houses` (table -> house) and whose time is in [since, until); as spectators
        saw them when `public`. Undecodable records are returned, never raised."""
        decode, rows, hands = E.event_decoder.decode, self.rows, self.hands
        skipped: list[Skipped] = []
        for record in records:
            value = record.value
            if value is None:
                continue
            try:
                event = decode(value)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                skipped.append(Skipped(partition=partition, offset=record.offset,
                                       reason=f"undecodable event: {exc}"))
                continue
            table = event.table_id
            if type(event) is E.HandStarted:
                hands[table] = event.hand
            house = houses.get(table)
            if house is None or not since <= event.at < until:
                continue
            if public:
                seen = public_event(event)
                if seen is None:
                    continue
                if seen is not event:
                    event, value = seen, E.encode(seen)
            rows.append((event, house, partition, record.offset, value, hands.get(table)))
        return skipped

    def table(self) -> pa.Table:
        """The rows, grouped by event type (each group in the order added)."""
        groups: dict[type[E.Event], list[tuple[Any, ...]]] = {}
        for row in self.rows:
            kind = type(row[0])
            group = groups.get(kind)
            if group is None:
                group = groups[kind] = []
            group.append(row)
        parts = [_group(kind, rows) for kind, rows in groups.items()]
        # one chunk per column: the Parquet writer splits it by house and date far faster
        return pa.concat_tables(parts).combine_chunks() if parts else SCHEMA.empty_table()

    def clear(self) -> None:
        self.rows = []


class Rows:
    """Events being collected, grouped by type as they are decoded; `table()` turns each
    type's rows into columns through its plan (`_Plan`: one pass in C over the rows, not a
    list comprehension a field) and joins them. The same rows, in the same order, as
    `ReferenceRows`."""

    def __init__(self) -> None:
        # by event type: (event, house, partition, offset, payload, hand) in the order added
        self.groups: dict[type[E.Event], list[tuple[Any, ...]]] = {}
        self.count = 0
        self.hands: dict[str, int] = {}  # table -> the hand being played

    def __len__(self) -> int:
        return self.count

    def collect(self, partition: int, records: Iterable[Record], houses: Mapping[str, str],
                since: int = 0, until: int = 2**63 - 1, public: bool = False
                ) -> list[Skipped]:
        """Rows for the events of `records` (one partition, in offset order) whose table is
        in `houses` (table -> house) and whose time is in [since, until); as spectators
        saw them when `public`. Undecodable records are returned, never raised."""
        decode, groups, hands = E.event_decoder.decode, self.groups, self.hands
        started = E.HandStarted
        skipped: list[Skipped] = []
        added = 0
        for record in records:
            value = record.value
            if value is None:
                continue
            try:
                event = decode(value)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                skipped.append(Skipped(partition=partition, offset=record.offset,
                                       reason=f"undecodable event: {exc}"))
                continue
            table = event.table_id
            kind = type(event)
            if kind is started:
                hands[table] = cast(E.HandStarted, event).hand
            house = houses.get(table)
            if house is None or not since <= event.at < until:
                continue
            if public:
                seen = public_event(event)
                if seen is None:
                    continue
                if seen is not event:
                    event, value = seen, E.encode(seen)
            group = groups.get(kind)
            if group is None:
                group = groups[kind] = []
            group.append((event, house, partition, record.offset, value, hands.get(table)))
            added += 1
        self.count += added
        return skipped

    def table(self) -> pa.Table:
        """The rows, grouped by event type (each group in the order added), one chunk a
        column (the Parquet writer splits it by house and date far faster than many)."""
        if not self.count:
            return SCHEMA.empty_table()
        parts: dict[str, list[pa.Array]] = {name: [] for name in COLUMNS}
        for kind, rows in self.groups.items():
            n = len(rows)
            got = _PLANS[kind].columns(rows)
            for name, arrays in parts.items():
                column = got.get(name)
                arrays.append(column if column is not None else pa.nulls(n, _TYPES[name]))
        columns = {name: pa.concat_arrays(arrays) for name, arrays in parts.items()}
        columns["date"] = pc.cast(pc.cast(columns["at"], pa.date32()), pa.string())
        return pa.Table.from_arrays([columns[name] for name in COLUMNS], schema=SCHEMA)

    def clear(self) -> None:
        self.groups, self.count = {}, 0

class _Plan:
    """How the rows of one event type become columns, worked out once per type: the
    struct fields its columns come from, picked by position out of
    `msgspec.structs.astuple` and turned into columns by one `zip` (all in C), instead of
    a list comprehension a field."""

    def __init__(self, kind: type[E.Event]) -> None:
        fields = kind.__struct_fields__
        self.tag = _TAGS[kind]
        pairs = [("table_id", "table_id"), ("seq", "seq"), ("at", "at")]  # (column, field)
        pairs += [(name, name) for name in _FIELDS if name in fields]
        self.blank_tile = False
        if kind is E.OkeyTaken:
            pairs.append(("tile", "okey"))
        elif "tile" in fields:
            pairs.append(("tile", "tile"))
            self.blank_tile = True  # "" (a tile the seat may not see) is no tile
        self.flatten = "melds" in fields  # `tiles`: every tile of the melds, in order
        if not self.flatten and "tiles" in fields:
            pairs.append(("tiles", "tiles"))
        self.player_sat = kind is E.PlayerSat  # `bot`: said, or a bot's level kept
        if self.player_sat:
            pairs.append(("bot_level", "bot_level"))
        self.handed = kind is E.SeatHandedToBot  # `player_id` is the bot's, `bot` true
        if self.handed:
            pairs.append(("player_id", "bot_id"))
        self.names = [column for column, _ in pairs]
        self.getter = itemgetter(*(fields.index(field) for _, field in pairs))

    def columns(self, rows: list[tuple[Any, ...]]) -> dict[str, pa.Array]:
        """The columns of `rows` ((event, house, partition, offset, payload, hand) each)."""
        events, houses, partitions, offsets, payloads, hands = zip(*rows, strict=True)
        n = len(rows)
        values: dict[str, Any] = dict(zip(
            self.names, zip(*map(self.getter, map(astuple, events)), strict=True),
            strict=True))
        if self.blank_tile:
            values["tile"] = [t or None for t in values["tile"]]
        if self.flatten:
            values["tiles"] = [[t for m in melds for t in m] for melds in values["melds"]]
        if self.player_sat:
            values["bot"] = [bot or level is not None for bot, level
                             in zip(values["bot"], values.pop("bot_level"), strict=True)]
        if self.handed:
            values["bot"] = [True] * n
        out = {name: pa.array(column, _TYPES[name]) for name, column in values.items()}
        out["house"] = pa.array(houses, pa.string())
        out["partition"] = pa.array(partitions, pa.int32())
        out["offset"] = pa.array(offsets, pa.int64())
        out["hand"] = pa.array(hands, pa.int16())
        out["payload"] = _strings(payloads)
        out["type"] = pa.array([self.tag] * n, pa.string())
        return out


_TYPES = {f.name: f.type for f in SCHEMA}
_PLANS = {kind: _Plan(kind) for kind in _TAGS}

def _group(kind: type[E.Event], rows: list[tuple[Any, ...]]) -> pa.Table:
    events: list[Any] = [r[0] for r in rows]
    n = len(rows)
    fields = set(kind.__struct_fields__)
    at = pa.array([e.at for e in events], SCHEMA.field("at").type)
    cols: dict[str, Any] = {
        "table_id": [e.table_id for e in events],
        "house": [r[1] for r in rows],
        "date": pc.cast(pc.cast(at, pa.date32()), pa.string()),
        "partition": [r[2] for r in rows],
        "offset": [r[3] for r in rows],
        "seq": [e.seq for e in events],
        "at": at,
        "type": pa.array([_TAGS[kind]] * n, pa.string()),
        "hand": [r[5] for r in rows],
        "payload": _strings([r[4] for r in rows]),
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
              for f in SCHEMA]
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def _strings(utf8: Sequence[bytes]) -> pa.Array:
    """A string array straight from UTF-8 bytes (the log's own JSON): no str objects."""
    offsets = array("i", [0])
    offsets.extend(accumulate(map(len, utf8)))
    return pa.Array.from_buffers(pa.string(), len(utf8),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(utf8))])


def _array(values: Any, kind: pa.DataType) -> pa.Array:
    return values if isinstance(values, pa.Array) else pa.array(values, kind)
