"""The table state packed for the compiled core's hand simulator (`okey101_native.HandSim`,
native/src/playout/), and a table command given to it. Pure: plain dicts, ints and lists.

The simulator is issue 39's native engine in slices: it plays a hand's commands (draw,
take_discard, put_back, discard, open, lay, lay_off, take_okey, declare_pairs,
show_indicator, düz's finish) to the hand's
end and scores it as `okey101.scoring` does, and raises `NotImplementedError` (naming
what) for whatever it does not model, so a caller falls back to the Python engine, which
stays the specification."""

from __future__ import annotations

import importlib
from typing import Any, Protocol

import msgspec

from okey101 import tiles
from okey101.errors import MalformedInput
from okey101.table import messages as E
from okey101.table.state import HandState, TableState

Tokens = list[tuple[int, int]]  # a group's tiles: (played, stands for, or -1 for none)
Groups = list[Tokens]


class NativeHand(Protocol):
    """What `okey101_native.HandSim` offers (its commands: None accepted, else the code)."""

    def draw(self, seat: int) -> str | None: ...
    def take_discard(self, seat: int) -> str | None: ...
    def put_back(self, seat: int) -> str | None: ...
    def discard(self, seat: int, tile: int) -> str | None: ...
    def open(self, seat: int, melds: Groups, pairs: Groups) -> str | None: ...
    def lay(self, seat: int, melds: Groups, pairs: Groups) -> str | None: ...
    def lay_off(self, seat: int, meld: int, tiles: Tokens, end: str | None) -> str | None: ...
    def take_okey(self, seat: int, meld: int, tiles: list[int]) -> str | None: ...
    def finish(self, seat: int, tile: int, melds: Groups, pairs: Groups) -> str | None: ...
    def declare_pairs(self, seat: int) -> str | None: ...
    def show_indicator(self, seat: int) -> str | None: ...
    def scores(self) -> tuple[str, int | None, list[int], bool] | None: ...
    def play_out(self, cap: int) -> tuple[bool, int, list[int]]: ...
    def observed(self) -> dict[str, Any]: ...


def playing_hand(state: TableState) -> HandState:
    """The hand the simulator can take over, or NotImplementedError naming why not."""
    hand = state.hand
    if hand is None or state.status != "playing" or state.profile is None:
        raise NotImplementedError(f"native playout: table status {state.status!r} with no "
                                  "hand in play")
    return hand


def pack_hand(state: TableState) -> tuple[dict[str, Any], dict[str, Any]]:
    """`HandSim`'s arguments for `state`'s hand: the profile, the hand."""
    hand = playing_hand(state)
    assert state.profile is not None
    sc = hand.scratch
    seats = [{"rack": list(h.rack), "discards": list(h.discards), "opened": h.opened,
              "opened_turn": h.opened_turn, "opening_value": h.opening_value,
              "declared_pairs": h.declared_pairs, "shown_indicator": h.shown_indicator,
              "has_played": h.has_played, "penalties": h.penalties,
              "elden_opening": h.elden_opening, "siler": h.siler} for h in hand.seats]
    melds = [{"kind": m.meld.kind, "tiles": list(m.meld.tiles), "start": m.meld.start,
              "owner": m.owner, "laid_turn": m.laid_turn} for m in hand.melds]
    packed = {"okey": hand.okey, "indicator": hand.indicator, "starter": hand.starter,
              "deck": list(hand.deck),
              "deck_pos": hand.deck_pos, "seats": seats, "melds": melds,
              "to_act": hand.to_act, "phase": hand.phase, "turn": state.turn,
              "taken": sc.taken, "taken_from": sc.taken_from, "laid": list(sc.laid),
              "lay_offs": sc.lay_offs, "laid_off": sc.laid_off,
              "end_counts": list(sc.end_counts), "put_back": sc.put_back,
              "penalties": list(state.penalties)}
    return msgspec.structs.asdict(state.profile), packed


def observed(state: TableState) -> dict[str, Any]:
    """The Python state's counterpart of `HandSim.observed()`."""
    hand = playing_hand(state)
    seats, sc = hand.seats, hand.scratch
    return {
        "racks": [list(h.rack) for h in seats], "discards": [list(h.discards) for h in seats],
        "deck_pos": hand.deck_pos, "to_act": hand.to_act, "phase": hand.phase,
        "turn": state.turn, "taken": sc.taken, "taken_from": sc.taken_from,
        "laid": list(sc.laid), "lay_offs": sc.lay_offs, "laid_off": sc.laid_off,
        "end_counts": list(sc.end_counts), "put_back": sc.put_back,
        "has_played": [h.has_played for h in seats],
        "hand_penalties": [h.penalties for h in seats], "penalties": list(state.penalties),
        "opened": [h.opened for h in seats], "opened_turn": [h.opened_turn for h in seats],
        "opening_value": [h.opening_value for h in seats],
        "elden_opening": [h.elden_opening for h in seats], "siler": [h.siler for h in seats],
        "declared_pairs": [h.declared_pairs for h in seats],
        "shown_indicator": [h.shown_indicator for h in seats],
        "melds": [(m.meld.kind, list(m.meld.tiles), m.meld.start, m.owner, m.laid_turn)
                  for m in hand.melds],
        "finish": hand.finish, "finished_by": hand.finished_by,
    }


Call = tuple[str, tuple[Any, ...]]  # a HandSim method's name and its arguments


def native_call(command: E.Command) -> Call:
    """The `HandSim` method playing `command`, with its arguments (tiles as ints);
    NotImplementedError for a command (or a malformed one) the simulator does not play."""
    match command:
        case E.Draw():
            return "draw", (command.seat,)
        case E.TakeDiscard():
            return "take_discard", (command.seat,)
        case E.PutBack():
            return "put_back", (command.seat,)
        case E.Discard():
            return "discard", (command.seat, tiles_of([command.tile])[0])
        case E.Open():
            return "open", (command.seat, groups(command.melds), groups(command.pairs))
        case E.Lay():
            return "lay", (command.seat, groups(command.melds), groups(command.pairs))
        case E.LayOff():
            return "lay_off", (command.seat, command.meld, tokens(command.tiles), command.end)
        case E.TakeOkey():
            return "take_okey", (command.seat, command.meld, tiles_of(command.tiles))
        case E.DeclarePairs():
            return "declare_pairs", (command.seat,)
        case E.ShowIndicator():
            return "show_indicator", (command.seat,)
        case E.Finish():
            return "finish", (command.seat, tiles_of([command.tile])[0],
                              groups(command.melds), groups(command.pairs))
    raise NotImplementedError(f"native playout: {type(command).__name__} is not native yet")


def play(sim: NativeHand, command: E.Command) -> str | None:
    """Give `command` to `sim`: None when accepted, else the rejection's code;
    NotImplementedError for a command (or a case of one) the simulator does not play."""
    method, args = native_call(command)
    code: str | None = getattr(sim, method)(*args)
    return code


def tokens(group: object) -> Tokens:
    """A command's meld tokens (``R7``, ``Y6=K9``) as the simulator takes them;
    NotImplementedError for tokens that are not tiles (the Python engine's `malformed`)."""
    if not isinstance(group, list):
        raise NotImplementedError("native playout: a malformed command is not native yet")
    out = []
    for token in group:
        try:
            played, stands = tiles.parse_meld_token(token)
        except MalformedInput:
            raise NotImplementedError("native playout: a malformed command (an unknown "
                                      "tile) is not native yet") from None
        out.append((played, -1 if stands is None else stands))
    return out


def groups(groups: object) -> Groups:
    if not isinstance(groups, list):
        raise NotImplementedError("native playout: a malformed command is not native yet")
    return [tokens(g) for g in groups]


def tiles_of(names: list[str]) -> list[int]:
    try:
        return tiles.parse_at(names, "tiles")
    except MalformedInput:
        raise NotImplementedError("native playout: a malformed command (an unknown tile) "
                                  "is not native yet") from None


def native_hand(state: TableState) -> NativeHand | None:
    """The compiled simulator holding `state`'s hand; None when the compiled core is not
    installed. NotImplementedError when the state is one it does not take."""
    try:
        core = importlib.import_module("okey101_native")
    except ImportError:
        return None
    sim: NativeHand = core.HandSim(*pack_hand(state))
    return sim
