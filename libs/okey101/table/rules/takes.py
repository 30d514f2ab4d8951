"""Feasibility of a take: can the taken discard be used or opened with now (RULES.md §5). Pure."""

from __future__ import annotations

from collections.abc import Sequence

from okey101 import melds as M
from okey101 import solver, tiles
from okey101.table.notation import without
from okey101.table.rules.common import _profile
from okey101.table.rules.thresholds import is_elden_open, threshold
from okey101.table.state import TableState
from okey101.terms import (
    MeldCount,
)
from okey101.tiles import Tile


def can_open_with(s: TableState, seat: int, tile: Tile) -> bool:
    """Could `seat` open this turn with `tile` (or its twin) in the opening?"""
    hand = s.hand
    assert hand is not None
    rack = [*hand.seats[seat].rack, tile]
    if can_open_pairs_with(s, seat, rack, tile):
        return True
    if tile != hand.okey and not solver.holds(rack, tile, hand.okey,
                                              _profile(s).run_wraps_13_to_1):
        return False  # no meld holds `tile`: neither an opening nor an elden one can
    return can_open_points_with(s, seat, rack, tile)


def can_open_pairs_with(s: TableState, seat: int, rack: list[Tile], tile: Tile) -> bool:
    """Could `rack` (holding the taken `tile`) open with pairs, `tile` among them?"""
    p, hand = _profile(s), s.hand
    assert hand is not None
    me = hand.seats[seat]
    if p.pairs_need_declaration and not me.declared_pairs:
        return False
    # a shown indicator twin is a pairs joker, not a natural tile as well
    extra = 1 if me.shown_indicator and hand.indicator in me.rack else 0
    pool = list(without(tuple(rack), [hand.indicator])) if extra else rack
    twin = rack.count(tile) >= 2 or hand.okey in me.rack or \
        (extra == 1 and tile != hand.indicator)
    return twin and solver.most_pairs(pool, hand.okey, extra) >= threshold(s, seat, "pairs")


def can_open_points_with(s: TableState, seat: int, rack: list[Tile], tile: Tile) -> bool:
    """Could `rack` (holding the taken `tile`) open with points, or elden, `tile` laid?"""
    p, hand = _profile(s), s.hand
    assert hand is not None
    need = threshold(s, seat, "points")
    wraps, count = p.run_wraps_13_to_1, p.meld_value
    held, ceiling = solver.meldable(rack, hand.okey, wraps)
    best = opening_within(rack, hand.okey, wraps, count, need, ceiling)
    if best is not None and best.value >= need:
        if any(pl[0] == tile for m in best.melds for pl in m.tiles):
            return True
        for m in M.melds_with(rack, tile, hand.okey, wraps):
            rest = without(tuple(rack), [pl[0] for pl in m.tiles])
            value = M.counted_value(m, count)
            found = opening_within(rest, hand.okey, wraps, count, need - value)
            if found is not None and value + found.value >= need:
                return True
    most = best.value if best is not None and count == "face" else ceiling
    return _can_go_elden_with(s, seat, rack, tile, held, most)


def opening_within(rack: Sequence[Tile], okey: Tile, wraps: bool, count: MeldCount,
                   need: int, ceiling: int | None = None) -> solver.Solution | None:
    """The best opening of `rack` in the house's count, or None when it cannot reach
    `need`: found without a solve when even every meldable tile's value (`ceiling`, the
    second of `solver.meldable`, when the caller has it) cannot, and in the "34" count
    without the exact search when the face optimum's third cannot."""
    if ceiling is None:
        ceiling = solver.meldable(rack, okey, wraps)[1]
    if (ceiling if count == "face" else ceiling // 3) < need:
        return None
    face = solver.opening(rack, okey, wraps)
    if count == "face":
        return face
    if face.value // 3 < need:
        return None
    return solver.opening(rack, okey, wraps, count, face)


def _can_go_elden_with(s: TableState, seat: int, rack: list[Tile], tile: Tile,
                       held: int, most: int) -> bool:
    """Could `rack` (holding the taken `tile`) be laid whole bar one discard, `tile` laid?
    An elden opening is an opening, with no threshold (section 7). `held`: how many of
    `rack`'s tiles some meld could hold (`solver.meldable`); `most`: a bound on the face
    value of any melds of `rack` (its best opening's, or `solver.meldable`'s ceiling)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if not is_elden_open(s, seat):
        return False
    wraps = p.run_wraps_13_to_1
    if held < len(rack) - 1:
        return False  # more than one tile no meld could hold
    naturals = [tiles.face_value(t, hand.okey) for t in rack if t != hand.okey]
    if naturals and most < sum(naturals) - max(naturals):
        return False  # melds holding every natural tile but one would be worth more
    first = solver.arrange(rack, hand.okey, wraps)
    if len(first.leftover) == 1 and (first.leftover[0] != tile or rack.count(tile) > 1):
        return True
    # a rack laid whole bar `u` is an arrangement leaving `u` alone, so `u` is worth at
    # least the least any arrangement leaves: only such tiles need a solve
    least = solver.leftover_value(first.leftover, hand.okey)
    for u in sorted(set(rack)):
        if (u == tile and rack.count(tile) < 2) or \
                solver.leftover_value([u], hand.okey) < least:
            continue
        if not solver.arrange(without(tuple(rack), [u]), hand.okey, wraps).leftover:
            return True
    return False


def can_use(s: TableState, seat: int, tile: Tile) -> bool:
    """Could an opened `seat` lay `tile` this turn (on the table or in a new meld)?"""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if M.is_playable(tile, [m.meld for m in hand.melds], hand.okey, p.run_wraps_13_to_1):
        return True
    me = hand.seats[seat]
    # a new pair with it, keeping a tile for the discard
    if (me.opened == "pairs" or any(h.opened == "pairs" for h in hand.seats)) and \
            len(me.rack) >= 2 and (tile in me.rack or hand.okey in me.rack or tile == hand.okey):
        return True
    if me.opened == "pairs":  # a pairs-opener lays no runs or groups
        return False
    rack = [*me.rack, tile]
    return any(len(m.tiles) <= len(me.rack)
               for m in M.melds_with(rack, tile, hand.okey, p.run_wraps_13_to_1))
