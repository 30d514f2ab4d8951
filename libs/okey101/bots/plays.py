"""The moves the bots share: opening plans, laying, laying off, taking an okey.

Each function reads a `Seat` and answers with one command the engine accepts, or None when
that move does not apply. The levels (`levels.py`) differ in which moves they use and in how
they choose a discard; the rules are kept here once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from okey101 import melds as M
from okey101 import solver, tiles
from okey101.melds import melds_with
from okey101.table import messages as E
from okey101.tiles import FAKE, Tile

from .seat import BLANK, Seat, keep_one, notation, played


def without(rack: Sequence[Tile], gone: Sequence[Tile]) -> list[Tile]:
    out = list(rack)
    for t in gone:
        out.remove(t)
    return out


# ---------------------------------------------------------------- opening plans
def points_plan(s: Seat, rack: Sequence[Tile], must: Tile | None = None
                ) -> list[M.Meld] | None:
    """Runs and groups from `rack` that open by points now (the threshold, or elden: the
    whole rack bar one tile), holding `must` if given; the least leftover first."""
    rack = list(rack)
    need = s.me.points_needed
    arranged = s.arrange(rack)
    candidates: list[Sequence[M.Meld]] = [arranged.melds]
    best = s.opening(rack)
    if best.value > s.worth(arranged.melds):
        candidates.append(best.melds)
    for melds in candidates:
        plan = _reaches(s, melds, rack, must, need)
        if plan is not None:
            return plan
    if must is None or best.value < need:
        return None
    for m in melds_with(rack, must, s.okey, s.wraps):  # the engine's own alternatives
        rest = s.opening(without(rack, played([m])))
        plan = _reaches(s, [m, *rest.melds], rack, must, need)
        if plan is not None:
            return plan
    return None


def _reaches(s: Seat, melds: Sequence[M.Meld], rack: list[Tile], must: Tile | None,
             need: int) -> list[M.Meld] | None:
    plan = keep_one(melds, len(rack), must)
    if not plan or (must is not None and must not in played(plan)):
        return None
    laid = sum(len(m.tiles) for m in plan)
    if s.worth(plan) >= need or (laid == len(rack) - 1 and s.elden_possible()):
        return plan
    return None


def pairs_in(s: Seat, rack: Sequence[Tile]) -> list[M.Meld]:
    """Most pairs from `rack`; okeygg's shown indicator twin pairs like an okey."""
    okey = s.okey
    wild = s.indicator if s.me.shown_indicator else None
    if wild is None or wild not in rack:
        return solver.pairs_of(rack, okey)
    rest = without(rack, [wild])
    found = solver.pairs_of(rest, okey)
    left = Counter(rest) - Counter(played(found))
    single = max((t for t in left if t != okey), default=None,
                 key=lambda t: tiles.face_value(t, okey))
    if single is not None:
        stands = okey if single == FAKE else single
        found.append(M.Meld("pair", ((single, stands), (wild, stands))))
    return found


def pairs_plan(s: Seat, rack: Sequence[Tile], must: Tile | None = None
               ) -> list[M.Meld] | None:
    plan = keep_one(pairs_in(s, rack), len(rack), must)
    if len(plan) < s.me.pairs_needed or (must is not None and must not in played(plan)):
        return None
    return plan


def can_open_with(s: Seat, tile: Tile, pairs: bool = True) -> bool:
    rack = [*s.rack, tile]
    if points_plan(s, rack, tile) is not None:
        return True
    return pairs and s.pairs_open_to_me() and pairs_plan(s, rack, tile) is not None


def try_open(s: Seat) -> E.Command | None:
    """Open now if the rack allows it: by points, else by pairs (declaring first where the
    house needs it). A taken discard is part of the opening."""
    plan = points_plan(s, s.rack, s.taken)
    if plan is not None:
        return E.Open(**BLANK, melds=notation(plan, s.okey))
    pairs = pairs_plan(s, s.rack, s.taken)
    if pairs is None:
        return None
    if "declare_pairs" in s.allowed:
        return E.DeclarePairs(**BLANK)
    return E.Open(**BLANK, pairs=notation(pairs, s.okey))


# ---------------------------------------------------------------- after opening
def must_lay(s: Seat) -> Tile | None:
    """The taken discard this turn still owes a lay (okey-oyna), or None."""
    return s.owed if s.opened is not None else None


def try_lay(s: Seat) -> E.Command | None:
    """New melds (a points-opener) or new pairs, keeping a tile for the discard."""
    if len(s.rack) < 2:
        return None
    protect = must_lay(s)
    if s.opened == "points":
        melds = keep_one(s.arrange(s.rack).melds, len(s.rack), protect)
        if melds:
            return E.Lay(**BLANK, melds=notation(melds, s.okey))
        if not s.anybody_opened_pairs():
            return None
        naturals = [t for t in s.rack if t != s.okey]
        pairs = solver.pairs_of(naturals, s.okey)
    else:
        pairs = pairs_in(s, s.rack)
    pairs = keep_one(pairs, len(s.rack), protect)
    if pairs:
        return E.Lay(**BLANK, pairs=notation(pairs, s.okey))
    return None


def try_lay_off(s: Seat, order: Sequence[Tile] | None = None) -> E.Command | None:
    """Lay off one tile onto the table (the taken tile first where it must be laid, then
    `order` or the highest first; an okey last)."""
    if not s.may_touch_table() or not s.may_lay_off_more() or len(s.rack) < 2:
        return None
    first = must_lay(s)
    if order is None:
        order = sorted(set(s.rack), key=lambda t: (t == s.okey, -s.value(t), t))
    tried = ([first] if first is not None else []) + [t for t in order if t != first]
    for tile in tried:
        command = s.lay_off_for(tile)
        if command is not None:
            return command
    return None


def try_take_okey(s: Seat) -> E.Command | None:
    """Take an okey from the table when it lowers what is left: it lands in a new meld of
    the rack, or is laid off at once (the tile put in its place leaves the rack too)."""
    if not s.may_touch_table() or s.okey in s.rack or s.okey in s.laid:
        return None
    if s.opened == "pairs" and not s.may_lay_off_more():
        return None
    now = s.leftover(s.rack)
    for meld, put in s.okey_takes():
        rack = [*without(s.rack, put), s.okey]
        after = s.leftover(rack)
        if s.okey in s.arrange(rack).leftover:
            if s.opened == "pairs" or not _okey_still_playable(s, meld, put):
                continue
            after -= s.value(s.okey)
        if s.opened == "pairs":  # the okey pairs with the highest single at once
            after = now - sum(s.value(t) for t in put)
        if after < now:
            return E.TakeOkey(**BLANK, meld=meld, tiles=tiles.names(put))
    return None


def _okey_still_playable(s: Seat, index: int, put: Sequence[Tile]) -> bool:
    """After the swap, could the okey be laid off somewhere (an end still open this turn)?"""
    table = list(s.table)
    table[index] = M.replace_okey(table[index], s.okey, put)
    for i, m in enumerate(table):
        if m.kind == "group" and M.missing_colours(m):
            return True
        if m.kind == "run":
            for pos in M.extension_positions(m, s.wraps):
                if not s.is_full(i, "low" if pos == m.start - 1 else "high"):
                    return True
    return False
