"""The opening thresholds and elden (RULES.md §4): what a seat must reach to open. Pure."""

from __future__ import annotations

from okey101.table.rules.common import _profile
from okey101.table.state import TableState
from okey101.terms import (
    SEATS,
    OpeningKind,
)


def threshold(s: TableState, seat: int, kind: OpeningKind) -> int:
    """What an opening of `kind` needs now (escalation and team escalation included)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if p.game == "duz":
        return 0  # no opening
    base = p.opening_points if kind == "points" else p.opening_pairs
    if not p.escalating_openings:
        return base
    seats = hand.seats
    rivals = range(SEATS)
    if p.partners and p.team_escalation:
        if seats[(seat + 2) % SEATS].opened is not None:
            return base
        rivals = range((seat + 1) % 2, SEATS, 2)  # the other team
    best = [seats[r].opening_value for r in rivals if seats[r].opened == kind]
    return max(base, max(best) + 1) if best else base


def is_elden_open(s: TableState, seat: int) -> bool:
    """May `seat` still finish elden (section 7): not where the house allows it only while
    nobody else has opened and somebody has."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if p.game == "duz":
        return False
    return not (p.elden_only_while_nobody_opened and
                any(h.opened is not None for i, h in enumerate(hand.seats) if i != seat))


def is_elden_opening(s: TableState, seat: int, laid: int) -> bool:
    """An opening of `laid` tiles below the threshold is elden when it lays the whole rack
    bar the last discard, where elden is still open."""
    hand = s.hand
    assert hand is not None
    return laid == len(hand.seats[seat].rack) - 1 and is_elden_open(s, seat)
