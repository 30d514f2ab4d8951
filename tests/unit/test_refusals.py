"""Each gate is written once, as a `*_refusal` answering a `Refusal` or None; its `check_*`
raises it. At every state of played matches (every house, seeding windows included), for
every seat: a gate refuses exactly when its `check_*` raises, with the `IllegalMove`'s
very code and message, and the `*_refusal_in_turn` that `allowed_commands` asks past the
turn answers as the whole gate wherever the turn's passes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from okey101.errors import IllegalMove
from okey101.simulate import match_seeds, play_match
from okey101.table import rules as R
from okey101.table.rules import turn
from okey101.table.state import TableState
from okey101.terms import SEATS

HOUSES = [("north-sultan", {"hands_per_match": 1}), ("okeygg", {"hands_per_match": 7}),
          ("classic", {"hands_per_match": 1, "seeding_seconds": 10}),
          ("okey-oyna", {"hands_per_match": 1}), ("okey-oyna-duz", {})]

Gate = Callable[[TableState, int], object]

# (the refusal, its raising gate)
PAIRS: dict[str, tuple[Callable[[TableState, int], R.Refusal | None], Gate]] = {
    "turn": (R.turn_refusal, R.check_turn),
    "turn_play": (lambda s, i: R.turn_refusal(s, i, "play", "Lay"),
                  lambda s, i: R.check_turn(s, i, "play", "Lay")),
    "draw": (lambda s, i: R.turn_refusal(s, i, "draw", "Draw"), R.check_draw),
    "take_discard": (R.take_discard_refusal, R.check_take_discard),
    "put_back": (R.put_back_refusal, R.check_put_back),
    "declare_pairs": (R.declare_pairs_refusal, R.check_declare_pairs),
    "show_indicator": (R.show_indicator_refusal, R.check_show_indicator),
    "open": (R.open_refusal, R.check_open),
    "lay": (R.lay_refusal, R.check_lay),
    "table_access": (lambda s, i: R.table_access_refusal(s, i, "take an okey"),
                     lambda s, i: R.check_table_access(s, i, "take an okey")),
    "lay_off": (lambda s, i: R.touch_table_refusal(s, i, "lay off", "LayOff"),
                lambda s, i: R.check_touch_table(s, i, "lay off", "LayOff")),
    "discard": (R.discard_refusal, R.check_discard),
    "finish": (R.finish_refusal, R.check_finish),
    "commit_seed": (R.commit_seed_refusal, R.check_commit_seed),
    "reveal_seed": (R.reveal_seed_refusal, R.check_reveal_seed),
    "commit_seed_late": (lambda s, i: R.commit_seed_refusal(s, i, 10**15),
                         lambda s, i: R.check_commit_seed(s, i, 10**15)),
}

# (the gate, the turn's phase it asks, its part past the turn)
IN_TURN: dict[str, tuple[Callable[[TableState, int], R.Refusal | None], str | None,
                         Callable[[TableState, int], R.Refusal | None]]] = {
    "take_discard": (R.take_discard_refusal, "draw", turn.take_discard_refusal_in_turn),
    "put_back": (R.put_back_refusal, "play", turn.put_back_refusal_in_turn),
    "declare_pairs": (R.declare_pairs_refusal, None, turn.declare_pairs_refusal_in_turn),
    "show_indicator": (R.show_indicator_refusal, None, turn.show_indicator_refusal_in_turn),
    "open": (R.open_refusal, "play", turn.open_refusal_in_turn),
    "lay": (R.lay_refusal, "play", turn.lay_refusal_in_turn),
    "discard": (R.discard_refusal, "play", R.owed_take_refusal),
    "finish": (R.finish_refusal, "play", turn.finish_refusal_in_turn),
}


def _states(base: str, options: dict[str, object]) -> list[TableState]:
    seen: list[TableState] = []
    play_match({"base": base, "options": options}, match_seeds(11, 1)[0],
               contributions=["honest", "silent", "withholds", "mismatches"],
               observer=lambda before, c, d, after: seen.append(after))
    return seen


def _answer(refusal: R.Refusal | None) -> tuple[str, str] | None:
    return None if refusal is None else (refusal.code, refusal.message)


@pytest.mark.parametrize(("base", "options"), HOUSES, ids=[h for h, _ in HOUSES])
def test_a_refusal_is_its_gates_illegal_move(base: str, options: dict[str, object]) -> None:
    codes: set[str] = set()
    for state in _states(base, options):
        for seat in range(SEATS):
            for name, (refusal, check) in PAIRS.items():
                try:
                    check(state, seat)
                    raised = None
                except IllegalMove as e:
                    raised = (e.code, e.message)
                    assert str(e) == e.message
                assert _answer(refusal(state, seat)) == raised, (name, seat)
                codes.add(raised[0] if raised else "passes")
            if R.turn_refusal(state, seat) is not None:
                continue
            assert state.hand is not None
            for name, (gate, phase, in_turn) in IN_TURN.items():
                if phase is None or phase == state.hand.phase:
                    assert _answer(in_turn(state, seat)) == _answer(gate(state, seat)), name
    assert {"passes", "not_your_turn", "wrong_phase"} <= codes


def test_refused_raises_the_refusal_and_passes_none() -> None:
    R.refused(None)
    with pytest.raises(IllegalMove) as e:
        R.refused(R.Refusal("no_hand", lambda: "no hand is being played at this table"))
    assert (e.value.code, e.value.message) == ("no_hand", "no hand is being played at this table")


def test_a_refusal_builds_its_message_only_when_asked() -> None:
    asked: list[int] = []
    refusal = R.Refusal("not_your_turn", lambda: asked.append(1) or "seat 1 acted")
    assert refusal.code == "not_your_turn" and not asked
    assert refusal.message == "seat 1 acted" and asked == [1]
