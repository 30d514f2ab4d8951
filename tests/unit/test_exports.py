"""Exports for analysts: one row per event with typed columns and the payload as JSON,
Parquet partitioned by house and date (or ndjson), read back with DuckDB."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import duckdb
import pyarrow as pa

from okey101.app.replays.exports import SCHEMA, Rows
from okey101.table import messages as E
from okey101.table.views import public_event
from services.replays.exporting import Writer

from .matches import T0, timed_events

DAY = 86_400_000


class Record(NamedTuple):
    offset: int
    value: bytes | None


def records(events: tuple[E.Event, ...]) -> list[Record]:
    return [Record(i, E.encode(e)) for i, e in enumerate(events)]


def test_every_event_is_one_row_with_typed_columns_and_its_payload() -> None:
    events = timed_events()
    rows = Rows()
    assert rows.collect(5, records(events), {"sim": "north-sultan"}) == []
    table = rows.table()
    assert table.schema == SCHEMA and table.num_rows == len(events)
    by_offset = sorted(table.to_pylist(), key=lambda r: r["offset"])
    for event, row in zip(events, by_offset, strict=True):
        assert json.loads(row["payload"]) == json.loads(E.encode(event))
        assert (row["table_id"], row["seq"], row["partition"]) == ("sim", event.seq, 5)
        assert row["type"] == json.loads(row["payload"])["type"]
        assert int(row["at"].timestamp() * 1000) == event.at
        assert row["house"] == "north-sultan" and row["date"] == "2025-11-30"
        assert row["seat"] == getattr(event, "seat", None)
    opened = next(r for r in by_offset if r["type"] == "hand_opened")
    assert opened["tiles"] == [t for m in opened["melds"] for t in m]
    assert opened["value"] > 0 and opened["kind"] in ("points", "pairs")
    ended = [r for r in by_offset if r["type"] == "hand_ended"]
    assert [r["hand"] for r in ended] == [1, 2] and all(r["finish"] for r in ended)
    assert by_offset[0]["hand"] is None  # before any hand
    assert table.schema.field("at").type == pa.timestamp("ms", tz="UTC")


def test_a_public_export_holds_what_spectators_saw() -> None:
    events = timed_events()
    rows = Rows()
    rows.collect(0, records(events), {"sim": "north-sultan"}, public=True)
    got = rows.table().to_pylist()
    shown = [s for e in events if (s := public_event(e)) is not None]
    assert len(got) == len(shown)
    kinds = Counter(r["type"] for r in got)
    assert kinds["hand_dealt"] == kinds["match_seeded"] == kinds["rack_dealt"] == 0
    assert all(r["tile"] is None for r in got if r["type"] == "tile_drawn")


def test_only_the_window_and_the_tables_asked_for_are_exported() -> None:
    events = timed_events()
    rows = Rows()
    since, until = T0 + 50_000, T0 + 90_000
    rows.collect(0, records(events), {"sim": "north-sultan"}, since=since, until=until)
    assert sorted(rows.table()["seq"].to_pylist()) == list(range(50, 90))
    other = Rows()
    other.collect(0, records(events), {"another": "okeygg"})
    assert len(other) == 0


def test_an_undecodable_record_is_skipped_and_named_by_its_offset() -> None:
    events = timed_events()
    rows = Rows()
    bad = [*records(events[:5]), Record(5, b'{"type":"nope"}'), Record(6, b"\xff")]
    skipped = rows.collect(2, bad, {"sim": "north-sultan"})
    assert [(s.partition, s.offset) for s in skipped] == [(2, 5), (2, 6)]
    assert all(s.reason.startswith("undecodable event") for s in skipped)
    assert len(rows) == 5


def _export(tmp: Path, fmt: str) -> tuple[Path, tuple[E.Event, ...]]:
    events = timed_events()
    later = tuple(type(e)(**{**{f: getattr(e, f) for f in e.__struct_fields__},
                             "table_id": "sim2", "at": e.at + DAY}) for e in events)
    writer = Writer(tmp, fmt)  # type: ignore[arg-type]
    rows = Rows()
    rows.collect(0, records(events), {"sim": "north-sultan"})
    rows.collect(1, records(later), {"sim2": "okeygg"})
    writer.write(rows)
    return tmp, events


def test_duckdb_reads_the_parquet_export_by_house_and_date(tmp_path: Path) -> None:
    out, events = _export(tmp_path, "parquet")
    assert sorted(p.relative_to(out).parts[:2] for p in out.rglob("*.parquet")) == [
        ("house=north-sultan", "date=2025-11-30"), ("house=okeygg", "date=2025-12-01")]
    db = duckdb.connect()
    glob = f"{out}/**/*.parquet"
    per_house = db.execute(f"select house, cast(date as varchar), count(*) from read_parquet("
                           f"'{glob}', hive_partitioning = true) group by all order by house"
                           ).fetchall()
    assert per_house == [("north-sultan", "2025-11-30", len(events)),
                         ("okeygg", "2025-12-01", len(events))]
    finishes = db.execute(f"select finish, count(*) from read_parquet('{glob}', hive_partitioning "
                      "= true) where type = 'hand_ended' and table_id = 'sim' group by all"
                      ).fetchall()
    expected = Counter(e.finish for e in events if isinstance(e, E.HandEnded))
    assert dict(finishes) == dict(expected)
    payload = db.execute(f"select payload->>'$.type' as t, type from read_parquet('{glob}') "
                     "limit 50").fetchall()
    assert all(t == kind for t, kind in payload)


def test_duckdb_reads_the_ndjson_export_too(tmp_path: Path) -> None:
    out, events = _export(tmp_path, "ndjson")
    files = sorted(out.rglob("*.ndjson"))
    assert len(files) == 2
    db = duckdb.connect()
    got = db.execute(f"select count(*), count(distinct event.seq), min(seq) from read_json_auto("
                 f"'{out}/house=north-sultan/**/*.ndjson')").fetchone()
    assert got == (len(events), len(events), 1)


def test_the_five_queries_of_the_analysts_guide_run_on_an_export(tmp_path: Path) -> None:
    out, events = _export(tmp_path, "parquet")
    guide = (Path(__file__).resolve().parents[2] / "docs" / "analysts.md").read_text()
    queries = re.findall(r"```sql\n(.*?)```", guide, re.DOTALL)
    assert len(queries) == 5
    db = duckdb.connect()
    results = [db.execute(q.replace("'export/", f"'{out}/")).fetchall() for q in queries]
    finishes, openings, _, lengths, players = results
    assert sum(n for house, _, n in finishes if house == "north-sultan") == \
        sum(1 for e in events if isinstance(e, E.HandEnded))
    assert openings and lengths
    assert [row[:2] for row in players] == [("human", 8)]  # 4 seats at each of 2 tables
