"""What every section of the rules shares: the refusal, the house, the hand being played. Pure."""

from __future__ import annotations

from collections.abc import Callable

from okey101.errors import IllegalMove
from okey101.profiles import Profile
from okey101.table.state import HandState, TableState


def fail(code: str, message: str) -> IllegalMove:
    return IllegalMove(message, code)


def _profile(s: TableState) -> Profile:
    assert s.profile is not None
    return s.profile


def is_duz(s: TableState) -> bool:
    """Is this table playing düz (classic) Okey (RULES.md §12)?"""
    return _profile(s).game == "duz"


def _check_101(s: TableState, seat: int, what: str) -> None:
    """Düz has no opening and lays nothing before the finish."""
    if is_duz(s):
        raise fail("not_in_duz", f"seat {seat}: düz okey has no {what}; win with 'finish', "
                                 "showing the whole rack")


def playing_hand(s: TableState) -> HandState:
    """The hand being played, or `no_hand`."""
    if s.hand is None or s.status != "playing":
        raise fail("no_hand", "no hand is being played at this table")
    return s.hand


def _passes(gate: Callable[[TableState, int], object], s: TableState, seat: int) -> bool:
    try:
        gate(s, seat)
    except IllegalMove:
        return False
    return True
