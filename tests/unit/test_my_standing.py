"""The lobby's own standing (GET /api/me/standing): the leaderboards' account page as the
player reads it, and what a new account starts with."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from okey101.app.gateway.standing import my_standing
from okey101.errors import MalformedInput
from okey101.standings import Ledger
from okey101.standings.week import week_of
from tests.unit.test_standings_rules import play

T0 = int(datetime(2026, 11, 24, 12, 0, tzinfo=UTC).timestamp() * 1000)
WEEK = week_of(T0)


def page(ledger: Ledger, house: str, account: str, week: str = WEEK) -> dict[str, object]:
    b = ledger.board
    found = b.page(house, account)
    assert found is not None
    return msgspec.json.decode(msgspec.json.encode(
        {**found, "place": b.place(house, account), "week": week,
         "league_place": b.place(house, account, week)}))


def test_a_north_sultan_winner_reads_its_sp_league_level_room_and_places() -> None:
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300], at=T0)
    a = my_standing("north-sultan", "a", WEEK, page(ledger, "north-sultan", "a"))
    d = my_standing("north-sultan", "d", WEEK, page(ledger, "north-sultan", "d"))
    assert (a.known, a.points_kind, a.points, a.place, a.league_place) == \
        (True, "sp", 1024, 1, 1)
    assert (d.points, d.place) == (976, 4)
    assert a.league > d.league >= 0 and a.xp == 70 and a.level == 1 and a.room == "Acemi"
    assert (a.played, a.won) == (1, 1)


def test_last_weeks_league_is_not_this_weeks() -> None:
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300], at=T0)
    later = week_of(T0 + 7 * 24 * 3600 * 1000)
    a = my_standing("north-sultan", "a", later, page(ledger, "north-sultan", "a", later))
    assert (a.league, a.league_place, a.place) == (0, None, 1)


def test_an_account_with_no_match_yet_has_the_houses_starting_figures() -> None:
    ns = my_standing("north-sultan", "new", WEEK, None)
    assert (ns.known, ns.points, ns.level, ns.room, ns.place, ns.has_levels) == \
        (False, 1000, 1, "Acemi", None, True)
    classic = my_standing("classic", "new", WEEK, None)
    assert (classic.points_kind, classic.points, classic.room, classic.has_levels) == \
        ("rating", 1500, "", False)


def test_an_unknown_house_or_a_page_that_is_not_one_is_malformed_input() -> None:
    with pytest.raises(MalformedInput, match="nowhere"):
        my_standing("nowhere", "a", WEEK, None)
    with pytest.raises(MalformedInput, match="account page"):
        my_standing("okeygg", "a", WEEK, {"standing": {"points": "x"}})
