"""The standings fold over event records: each match once, bad input counted, any arrival
order giving the board a sorted rebuild gives."""

from __future__ import annotations

import random

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101.simulate import play_match
from okey101.standings import Ledger
from okey101.standings.synthetic import Seating, encoded, match_events
from okey101.table import messages as E

T0 = 1_780_000_000_000
HOUR = 3600 * 1000


def records(table: str, house: str, accounts: list[str], totals: list[int], at: int = T0,
            **seating: object) -> list[bytes]:
    return encoded(match_events(table, house, Seating(accounts=accounts, **seating),  # type: ignore[arg-type]
                                totals, at))


def feed(ledger: Ledger, values: list[bytes], partition: int = 0) -> list[str]:
    kinds = []
    for offset, value in enumerate(values):
        kinds += [n.kind for n in ledger.read(value, partition, offset).notices]
    return kinds


def test_a_table_replayed_twice_is_applied_once() -> None:
    ledger = Ledger()
    values = records("t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300])
    assert feed(ledger, values + values) == []
    a = ledger.board.standing("north-sultan", "a")
    assert a is not None and (a.points, a.played) == (1024, 1)
    assert ledger.counts["duplicate_match"] == 1
    assert ledger.counts["duplicate_event"] == len(values)


def test_a_match_of_an_unknown_house_is_counted_and_logged_with_its_offset() -> None:
    values = records("t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300])
    created = msgspec.json.decode(values[0])
    created["profile"]["id"] = "elsewhere"
    ledger = Ledger()
    notices = [n for i, v in enumerate([msgspec.json.encode(created), *values[1:]])
               for n in ledger.read(v, 3, 100 + i).notices]
    assert [(n.kind, n.partition, n.offset, n.table_id) for n in notices] == \
        [("unknown_house", 3, 100, "t1")]
    assert ledger.board.standings == {}


def test_events_of_a_table_never_created_are_counted_once_and_ignored() -> None:
    values = records("t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300])
    ledger = Ledger()
    assert feed(ledger, values[1:]) == ["unknown_table"]
    assert ledger.board.standings == {}


def test_an_empty_or_too_long_account_id_is_not_ranked_and_the_others_are() -> None:
    ledger = Ledger()
    kinds = feed(ledger, records("t1", "north-sultan", ["", "b", "x" * 65, "d"],
                                 [10, 50, 90, 300]))
    assert kinds == ["bad_account", "bad_account"]
    assert sorted(a for _, a in ledger.board.standings) == ["b", "d"]


def test_garbage_is_counted_never_raised() -> None:
    ledger = Ledger()
    garbage = [b"", b"{", b"null", b'{"type":"match_ended"}', b'{"type":"nope","table_id":'
               b'"t","seq":1}', "\u00ff".encode("latin-1"), None]
    assert feed(ledger, garbage) == ["undecodable"] * 4 + ["unknown_table"] + ["undecodable"] * 2


def test_a_wrongly_typed_needed_event_is_undecodable_and_changes_nothing() -> None:
    values = records("t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300])
    broken = msgspec.json.decode(values[-1])
    broken["totals"] = "many"
    ledger = Ledger()
    assert feed(ledger, [*values[:-1], msgspec.json.encode(broken)]) == ["undecodable"]
    assert ledger.board.standings == {}


def test_match_ended_before_match_started_is_a_bad_event() -> None:
    values = records("t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300])
    ended = msgspec.json.decode(values[-1])
    ended["seq"] = 6
    ledger = Ledger()
    assert feed(ledger, [*values[:5], msgspec.json.encode(ended)]) == ["bad_event"]


def test_a_seq_gap_is_reported_and_the_match_still_counts() -> None:
    values = records("t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300])
    ledger = Ledger()
    assert feed(ledger, [*values[:6], *values[7:]]) == ["seq_gap"]
    assert len(ledger.board.standings) == 4


def test_a_real_match_from_the_engine_is_ranked_from_its_events() -> None:
    record = play_match("north-sultan", "ab" * 32)  # ranked: 11 hands, the house's options
    ledger = Ledger()
    assert feed(ledger, [E.encode(e) for e in record.events]) == []
    ended = record.events[-1]
    assert isinstance(ended, E.MatchEnded)
    winners = [f"p{s}" for s in range(4) if ended.places[s] == 1]
    assert all(ledger.board.standing("north-sultan", w).won == 1  # type: ignore[union-attr]
               for w in winners)


def _population(seed: int, matches: int) -> list[list[bytes]]:
    rng = random.Random(seed)
    out = []
    for m in range(matches):
        house = rng.choice(["north-sultan", "classic", "okeygg"])
        accounts = rng.sample([f"a{i}" for i in range(7)], 4)
        totals = [rng.randrange(-200, 600) for _ in range(4)]
        leaves = {rng.randrange(4): rng.choice(["s1", "bot:b9", ""])} if m % 3 == 0 else {}
        at = T0 + rng.randrange(0, 30) * HOUR // 4
        out.append(records(f"t{m}", house, accounts, totals, at, leaves=leaves))
    return out


def _snapshot(ledger: Ledger) -> bytes:
    b = ledger.board
    return msgspec.json.encode([sorted(b.standings.items()), sorted(b.skills.items()),
                                sorted(b.history.items())])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), order_seed=st.integers(0, 10_000))
def test_any_arrival_order_gives_the_board_of_the_sorted_rebuild(seed: int,
                                                                 order_seed: int) -> None:
    tables = _population(seed, 12)
    rebuild = Ledger(buffering=True)
    for values in tables:
        feed(rebuild, values)
    rebuild.flush()
    live = Ledger()
    cursors = [0] * len(tables)
    rng = random.Random(order_seed)
    while any(c < len(t) for c, t in zip(cursors, tables, strict=True)):
        i = rng.choice([i for i, t in enumerate(tables) if cursors[i] < len(t)])
        live.read(tables[i][cursors[i]], i % 4, cursors[i])
        cursors[i] += 1
    assert _snapshot(live) == _snapshot(rebuild)


def test_a_match_older_than_the_undo_horizon_is_applied_last_and_counted() -> None:
    ledger = Ledger(horizon=2)
    for i, hours in enumerate((5, 6, 7, 1)):
        feed(ledger, records(f"t{i}", "okeygg", ["a", "b", "c", "d"], [10, 50, 90, 300],
                             at=T0 + hours * HOUR))
    assert ledger.board.late_beyond_horizon == 1
    assert ledger.board.rewinds == 0
