"""Level 0: the plain rule-follower that drives the engine in simulations.

Not a bot of any house: a deterministic player for properties, benchmarks and `okey101
simulate`. Like every level it reads only its `PlayerView` and chooses among the moves
the engine's rules allow (the view's `rules`):

- draw; or take the previous discard when it lets the player open at once (or, once
  opened, when it lands in a new meld or pair this turn);
- open by points when `solver.opening` of the rack reaches the threshold (the solver's
  melds), else by pairs when it holds enough (declaring first where the house needs it);
- once opened, lay the new melds `solver.arrange` finds (a pairs-opener: new pairs), then
  lay off single tiles the engine offers, highest first;
- discard the highest loose tile, avoiding okeys and tiles the engine would penalise.
"""

from __future__ import annotations

from collections.abc import Sequence

from okey101 import melds as M
from okey101 import tiles
from okey101.table import messages as E
from okey101.table.views import PlayerView
from okey101.tiles import Tile

from . import plays
from .duz import duz_command
from .seat import BLANK, Seat, keep_one, notation, played


def level0(v: PlayerView) -> E.Command:
    """One command for the seat to act, from its view only."""
    s = Seat(v)
    if s.p.game == "duz":
        return duz_command(s, 0)
    if s.may_show_indicator():
        return E.ShowIndicator(**BLANK)
    if s.drawing:
        if s.may_take() and s.top is not None and _wants(s, s.top):
            return E.TakeDiscard(**BLANK)
        return E.Draw(**BLANK)
    if s.opened is None:
        opening = _try_open(s)
        if opening is not None:
            return opening
        if "put_back" in s.allowed:
            return E.PutBack(**BLANK)
    else:
        laying = _try_lay(s)
        if laying is not None:
            return laying
    return E.Discard(**BLANK, tile=tiles.name(_discard(s)))


def _points_plan(s: Seat, rack: list[Tile], must: Tile | None) -> list[M.Meld] | None:
    plan = keep_one(s.opening(rack).melds, len(rack))
    if not plan or (must is not None and must not in played(plan)):
        return None
    laid = sum(len(m.tiles) for m in plan)
    if s.worth(plan) >= s.me.points_needed or \
            (laid == len(rack) - 1 and s.elden_possible()):
        return plan
    return None


def _pairs_plan(s: Seat, rack: Sequence[Tile], must: Tile | None) -> list[M.Meld] | None:
    plan = keep_one(plays.pairs_in(s, rack), len(rack))
    if len(plan) < s.me.pairs_needed or (must is not None and must not in played(plan)):
        return None
    return plan


def _wants(s: Seat, top: Tile) -> bool:
    rack = [*s.rack, top]
    if s.opened is None:
        if _points_plan(s, rack, top) is not None:
            return True
        return s.pairs_open_to_me() and _pairs_plan(s, rack, top) is not None
    if s.opened == "pairs":  # a new pair with its twin, a tile kept to discard
        return top != s.okey and top in s.rack and len(s.rack) >= 2
    return top in played(keep_one(s.arrange(rack).melds, len(rack)))


def _try_open(s: Seat) -> E.Command | None:
    plan = _points_plan(s, s.rack, s.taken)
    if plan is not None:
        return E.Open(**BLANK, melds=notation(plan, s.okey))
    pairs = _pairs_plan(s, s.rack, s.taken)
    if pairs is None:
        return None
    if "declare_pairs" in s.allowed:
        return E.DeclarePairs(**BLANK)
    return E.Open(**BLANK, pairs=notation(pairs, s.okey))


def _try_lay(s: Seat) -> E.Command | None:
    if s.opened == "points":
        melds = keep_one(s.arrange(s.rack).melds, len(s.rack))
        if melds:
            return E.Lay(**BLANK, melds=notation(melds, s.okey))
    else:
        pairs = keep_one(plays.pairs_in(s, s.rack), len(s.rack))
        if pairs:
            return E.Lay(**BLANK, pairs=notation(pairs, s.okey))
    order = sorted(set(s.rack), key=lambda t: (-tiles.face_value(t, s.okey), t))
    for tile in order:
        if tile != s.okey:
            command = s.lay_off_for(tile)
            if command is not None:
                return command
    return None


def _discard(s: Seat) -> Tile:
    if len(s.rack) == 1:
        return s.rack[0]
    loose = s.arrange(s.rack).leftover
    pool = [t for t in loose if t != s.okey] or [t for t in s.rack if t != s.okey] or s.rack
    if s.owed is not None:
        pool = [t for t in pool if t != s.owed] or pool
    safe = [t for t in pool if not s.penalised(t)]
    return max(safe or pool, key=lambda t: (tiles.face_value(t, s.okey), -t))


__all__ = ["level0"]
