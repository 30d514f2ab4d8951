"""`rules.allowed_commands` asks only the gates of the hand's phase and of the commands the
house has (`rules.turn.is_in_house`), each past the turn's, the turn's once: it answers
what asking every command's raising gate (`check_*`, as `decide` does) would, at every
state of played matches in every house (a gate of another phase refuses with wrong_phase,
of a command the house lacks as not applicable)."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest

from okey101.errors import IllegalMove
from okey101.simulate import match_seeds, play_match
from okey101.table import rules as R
from okey101.table.decide import decide_and_fold
from okey101.table.evolve import NEW_TABLE
from okey101.table.rules import options
from okey101.table.state import TableState
from okey101.terms import SEATS

HOUSES = [("north-sultan", {"hands_per_match": 1}), ("okeygg", {"hands_per_match": 7}),
          ("classic", {"hands_per_match": 1}), ("okey-oyna", {"hands_per_match": 1}),
          ("okey-oyna-duz", {})]


# every in-hand command's raising gate, as `decide` asks it
CHECKS: dict[str, Callable[[TableState, int], object]] = {
    "draw": R.check_draw, "take_discard": R.check_take_discard,
    "put_back": R.check_put_back, "declare_pairs": R.check_declare_pairs,
    "show_indicator": R.check_show_indicator, "open": R.check_open, "lay": R.check_lay,
    "lay_off": lambda s, seat: R.check_touch_table(s, seat, "lay off", "LayOff"),
    "take_okey": lambda s, seat: R.check_touch_table(s, seat, "take an okey", "TakeOkey"),
    "discard": R.check_discard, "finish": R.check_finish}


def every_gate(state: TableState, seat: int) -> list[str]:
    out = []
    for name, _, _ in options._GATES:
        try:
            CHECKS[name](state, seat)
        except IllegalMove:
            continue
        out.append(name)
    return out


@pytest.mark.parametrize(("base", "options"), HOUSES, ids=[h for h, _ in HOUSES])
def test_the_phase_and_house_filters_change_no_answer(base: str, options: dict[str, object]
                                                      ) -> None:
    commands = play_match({"base": base, "options": options}, match_seeds(3, 1)[0]).commands
    state, compared = NEW_TABLE, 0
    for command in commands:
        state, _ = decide_and_fold(state, msgspec.structs.replace(command, seq=state.seq))
        if state.hand is None or state.status != "playing" or state.seeding is not None:
            continue
        for seat in range(SEATS):
            want = every_gate(state, seat) if state.hand.to_act == seat else []
            assert R.allowed_commands(state, seat) == want
            compared += bool(want)
    assert compared > 20
