"""Discards: what one costs (RULES.md §6), the finish it makes, the time-out's discard. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from okey101 import melds as M
from okey101 import solver, tiles
from okey101.profiles import Profile
from okey101.table.rules.common import _profile
from okey101.table.rules.thresholds import is_elden_open
from okey101.table.state import HandState, TableState
from okey101.terms import (
    FinishKind,
    PenaltyReason,
)
from okey101.tiles import Tile


def discard_penalty(s: TableState, seat: int, tile: Tile) -> tuple[int, PenaltyReason] | None:
    """Section 6: an okey, or a tile that could be laid off onto a run or group on the
    table, costs 101 in every house, opened or not. The finishing discard never costs."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if not _charges_discards(p, hand.seats[seat].rack):
        return None
    return _penalty(p, hand, [m.meld for m in hand.melds], tile)


def _charges_discards(p: Profile, rack: Sequence[Tile]) -> bool:
    """Whether the house charges discards at all, and this one is not the finishing one."""
    return p.penalties and len(rack) != 1


def _penalty(p: Profile, hand: HandState, table: list[M.Meld], tile: Tile
             ) -> tuple[int, PenaltyReason] | None:
    if tile == hand.okey:
        return (p.okey_discard_penalty, "okey_discarded") if p.okey_discard_penalty else None
    if p.playable_discard_penalty and M.is_playable(tile, table, hand.okey,
                                                    p.run_wraps_13_to_1):
        return (p.playable_discard_penalty, "playable_discard")
    return None


def finish_kind(s: TableState, seat: int, last: Tile) -> FinishKind:
    """How `seat` finishes by discarding `last`, its last tile (sections 7-8)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    me = hand.seats[seat]
    okey = last == hand.okey
    elden = me.opened_turn == s.turn and is_elden_open(s, seat) and \
        (p.elden_lay_off_allowed or not hand.scratch.laid_off)
    if elden:
        return "elden_okey" if okey else "elden"
    if me.opened == "pairs":
        return "pairs_okey" if okey else "pairs"
    return "okey" if okey else "normal"


def timeout_discard(s: TableState, seat: int) -> Tile:
    """The house's move for a stalled seat: the highest loose tile, never an okey or a
    playable tile when another will do."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    rack = hand.seats[seat].rack
    loose = solver.arrange(rack, hand.okey, p.run_wraps_13_to_1).leftover
    pool = [t for t in loose if t != hand.okey] or [t for t in rack if t != hand.okey] or \
        list(rack)
    table = [m.meld for m in hand.melds]
    safe = [t for t in pool if not M.is_playable(t, table, hand.okey, p.run_wraps_13_to_1)]
    return max(safe or pool, key=lambda t: (tiles.face_value(t, hand.okey), -t))
