"""The table state packed for the compiled core's hand simulator (`okey101_native.HandSim`,
native/src/playout/). Pure: plain ints, bools and lists in the order `HandSim` takes.

The simulator is a first slice of issue 39's native engine: it plays draw, take_discard,
put_back and discard, and raises `NotImplementedError` (naming what) for whatever it does
not model, so a caller falls back to the Python engine, which stays the specification."""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from okey101.table.state import HandState, TableState
from okey101.terms import SEATS

PHASES = {"draw": 0, "play": 1, "over": 2}
MELD_KINDS = {"run": 0, "group": 1, "pair": 2}


class NativeHand(Protocol):
    """What `okey101_native.HandSim` offers (its methods: None accepted, else the code)."""

    def draw(self, seat: int) -> str | None: ...
    def take_discard(self, seat: int) -> str | None: ...
    def put_back(self, seat: int) -> str | None: ...
    def discard(self, seat: int, tile: int) -> str | None: ...
    def observed(self) -> tuple[Any, ...]: ...


def playing_hand(state: TableState) -> HandState:
    """The hand the simulator can take over, or NotImplementedError naming why not."""
    hand = state.hand
    if hand is None or state.status != "playing" or state.profile is None:
        raise NotImplementedError(f"native playout: table status {state.status!r} with no "
                                  "hand in play")
    return hand


def pack_hand(state: TableState) -> tuple[Any, ...]:
    """`HandSim`'s arguments for `state`'s hand, in order."""
    hand = playing_hand(state)
    p = state.profile
    assert p is not None
    options = (p.game == "duz", p.put_back_allowed, p.discarded_okey_takeable,
               p.opened_take_must_use, p.penalties, p.okey_discard_penalty,
               p.playable_discard_penalty, p.run_wraps_13_to_1)
    seats = hand.seats
    sc = hand.scratch
    return (options, hand.okey, list(hand.deck), hand.deck_pos,
            [list(h.rack) for h in seats], [list(h.discards) for h in seats],
            [h.opened is not None for h in seats], [h.has_played for h in seats],
            [h.penalties for h in seats], list(state.penalties), hand.to_act,
            PHASES[hand.phase], state.turn, sc.taken, sc.taken_from,
            sc.taken is not None and sc.taken in sc.laid, bool(sc.laid), sc.put_back,
            [(MELD_KINDS[m.meld.kind], m.meld.start, [stands for _, stands in m.meld.tiles])
             for m in hand.melds])


def observed(state: TableState) -> tuple[Any, ...]:
    """The Python state's counterpart of `HandSim.observed()`."""
    hand = playing_hand(state)
    seats = hand.seats
    return ([list(h.rack) for h in seats], [list(h.discards) for h in seats], hand.deck_pos,
            hand.to_act, PHASES[hand.phase], state.turn, hand.scratch.taken,
            hand.scratch.put_back, [h.has_played for h in seats],
            [h.penalties for h in seats], [state.penalties[i] for i in range(SEATS)])


def native_hand(state: TableState) -> NativeHand | None:
    """The compiled simulator holding `state`'s hand; None when the compiled core is not
    installed. NotImplementedError when the state is one it does not take."""
    try:
        core = importlib.import_module("okey101_native")
    except ImportError:
        return None
    sim: NativeHand = core.HandSim(*pack_hand(state))
    return sim
