"""`rules.can_open_now`, the collusion audit's "held an opening it never laid": it
answers as the bots' opening plans do, at every turn of played matches in every 101 house,
and never for an opened seat or a düz table."""

from __future__ import annotations

import pytest

from okey101.bots import plays
from okey101.bots.seat import Seat
from okey101.simulate import match_seeds, play_match
from okey101.table import rules as R
from okey101.table.state import TableState
from okey101.table.views import player_view

HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna")


def _states(house: str) -> list[TableState]:
    seen: list[TableState] = []
    profile = {"base": house, "options": {"hands_per_match": 2 if house != "okeygg" else 7}}
    for seed in match_seeds(3, 2):
        play_match(profile, seed, observer=lambda before, c, d, after: seen.append(after))
    return [s for s in seen if s.hand is not None and s.status == "playing"]


def _plans_open(s: TableState, seat: int) -> bool:
    view = player_view(s, seat)
    if view.hand is None or view.hand.seats[seat].points_needed <= 0:
        return False
    me = Seat(view)
    if plays.points_plan(me, me.rack) is not None:
        return True
    return me.pairs_open_to_me() and plays.pairs_plan(me, me.rack) is not None


@pytest.mark.parametrize("house", HOUSES)
def test_can_open_now_answers_as_the_bots_plans(house: str) -> None:
    states = _states(house)[::7]
    answers = [(R.can_open_now(s, seat), _plans_open(s, seat))
               for s in states for seat in range(4)
               if s.hand is not None and s.hand.seats[seat].opened is None]
    assert [a for a in answers if a[0] != a[1]] == []
    assert any(a for a, _ in answers) and not all(a for a, _ in answers)


def test_an_opened_seat_and_a_duz_table_hold_no_opening() -> None:
    for s in _states("okey-oyna")[::11]:
        assert s.hand is not None
        for seat, me in enumerate(s.hand.seats):
            if me.opened is not None:
                assert not R.can_open_now(s, seat)
    seen: list[TableState] = []
    play_match("okey-oyna-duz", match_seeds(1, 1)[0],
               observer=lambda before, c, d, after: seen.append(after))
    assert not any(R.can_open_now(s, seat) for s in seen[::13] if s.hand for seat in range(4))
