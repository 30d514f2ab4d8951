"""What every section of the rules shares: the refusal, the house, the hand being played. Pure."""

from __future__ import annotations

from collections.abc import Callable

from okey101.errors import IllegalMove
from okey101.profiles import Profile
from okey101.table.state import HandState, TableState


def fail(code: str, message: str) -> IllegalMove:
    return IllegalMove(message, code)


class Refusal:
    """Why a gate refuses: its stable code, and its message, built only when asked. A
    gate written as a `*_refusal` function returns one (None: it passes); its `check_*`
    raises it (`refused`), so `decide` refuses with the very code and message, while
    `options.allowed_commands`, which asks most gates only whether they pass, builds no
    message and raises nothing."""

    __slots__ = ("_say", "code")

    def __init__(self, code: str, say: Callable[[], str]) -> None:
        self.code = code
        self._say = say

    @property
    def message(self) -> str:
        return self._say()

    def error(self) -> IllegalMove:
        """The `IllegalMove` the gate's `check_*` raises."""
        return fail(self.code, self.message)

    def __repr__(self) -> str:
        return f"Refusal({self.code!r}, {self.message!r})"


def refused(refusal: Refusal | None) -> None:
    """Raise `refusal` (a gate's answer) as its `IllegalMove`; nothing when it is None."""
    if refusal is not None:
        raise refusal.error()


def _profile(s: TableState) -> Profile:
    assert s.profile is not None
    return s.profile


def is_duz(s: TableState) -> bool:
    """Is this table playing düz (classic) Okey (RULES.md §12)?"""
    return _profile(s).game == "duz"


def _duz_refusal(s: TableState, seat: int, what: str) -> Refusal | None:
    """Düz has no opening and lays nothing before the finish."""
    if is_duz(s):
        return Refusal("not_in_duz", lambda: f"seat {seat}: düz okey has no {what}; win "
                                             "with 'finish', showing the whole rack")
    return None


def hand_refusal(s: TableState) -> Refusal | None:
    """`no_hand` unless a hand is being played (`playing_hand`)."""
    if s.hand is None or s.status != "playing":
        return Refusal("no_hand", lambda: "no hand is being played at this table")
    return None


def playing_hand(s: TableState) -> HandState:
    """The hand being played, or `no_hand`."""
    refusal = hand_refusal(s)  # not `refused`: `decide` asks it often, a call less
    if refusal is not None:
        raise refusal.error()
    assert s.hand is not None
    return s.hand


def _passes(gate: Callable[[TableState, int], object], s: TableState, seat: int) -> bool:
    try:
        gate(s, seat)
    except IllegalMove:
        return False
    return True
