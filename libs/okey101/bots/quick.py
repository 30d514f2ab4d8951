"""Level 4's playout policy: level 0's play, read from the table state for speed.

A playout plays a whole hand in a sampled world (`level4.world`) for every seat, so its
policy must be cheap; building each seat's `PlayerView` (its rules above all) costs more
than the move. `quick` answers the turns where level 0's move is plain, from the state and
the engine's own rule queries: draw, or (opened) take the previous discard when it lands in
a new meld; once opened by points, lay the rack's new melds, then lay off the highest tile
the engine offers a place for; discard the highest loose tile (never an okey, nor a tile
the engine would penalise while another will do). For anything else (an opening, an
unopened take, an okey take, pairs play, düz, a taken tile still owed) it answers None and
the playout asks level 0 from the seat's view. Each seat's rack is solved once per rack (`Racks`).
"""

from __future__ import annotations

from okey101 import solver, tiles
from okey101.profiles import Profile
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.table.state import TableState
from okey101.tiles import Tile

from .inference import neighbours_of
from .seat import BLANK, keep_one, notation, played

NEAR_OPENING = 0.75  # an unopened seat this close to its threshold weighs a take (level 0)


class Racks:
    """Solutions by rack, shared by the seats of one search (the racks repeat across
    candidates of a world)."""

    def __init__(self) -> None:
        self.openings: dict[tuple[Tile, ...], solver.Solution] = {}
        self.arranged: dict[tuple[Tile, ...], solver.Solution] = {}

    def opening(self, rack: tuple[Tile, ...], p: Profile, okey: Tile) -> solver.Solution:
        key = tuple(sorted(rack))
        found = self.openings.get(key)
        if found is None:
            found = self.openings[key] = solver.opening(key, okey, p.run_wraps_13_to_1,
                                                        p.meld_value)
        return found

    def keep(self, rack: tuple[Tile, ...], gone: Tile, sol: solver.Solution,
             opened: bool) -> None:
        """`rack` less the loose tile `gone` has `sol`'s melds (no better ones: a tile
        fewer cannot make more), the leftover less `gone`."""
        left = list(sol.leftover)
        left.remove(gone)
        rest = list(rack)
        rest.remove(gone)
        cache = self.arranged if opened else self.openings
        cache.setdefault(tuple(sorted(rest)), solver.Solution(sol.value, sol.melds,
                                                              tuple(left)))

    def arrange(self, rack: tuple[Tile, ...], p: Profile, okey: Tile) -> solver.Solution:
        key = tuple(sorted(rack))
        found = self.arranged.get(key)
        if found is None:
            found = self.arranged[key] = solver.arrange(key, okey, p.run_wraps_13_to_1,
                                                        p.okey_in_rack_value)
        return found


def quick(state: TableState, seat: int, racks: Racks) -> E.Command | None:
    """Level 0's move when it is plain, else None (ask level 0)."""
    p, hand = state.profile, state.hand
    if p is None or hand is None or p.game == "duz":
        return None
    me = hand.seats[seat]
    if me.opened == "pairs" or hand.scratch.taken is not None:
        return None
    okey = hand.okey
    if hand.phase == "draw":
        top = R.available_discard(hand) if not hand.scratch.put_back else None
        if top is None or hand.deck_left == 0:
            return E.Draw(**BLANK) if hand.deck_left else None
        if me.opened is None:
            need = R.threshold(state, seat, "points")
            if racks.opening(me.rack, p, okey).value < NEAR_OPENING * need:
                return E.Draw(**BLANK)
            return None
        near = neighbours_of(okey, p.run_wraps_13_to_1)[top]
        if top == okey or not any(t in near for t in me.rack):
            return E.Draw(**BLANK) if top != okey else None
        rack = (*me.rack, top)  # level 0 takes it when it lands in a new meld
        melds = keep_one(racks.arrange(rack, p, okey).melds, len(rack))
        return E.TakeDiscard(**BLANK) if top in played(melds) else E.Draw(**BLANK)
    if hand.phase != "play" or len(me.rack) < 2:
        return None
    if me.opened is None:
        sol = racks.opening(me.rack, p, okey)
        if sol.value >= R.threshold(state, seat, "points") - 1 or len(sol.leftover) <= 1:
            return None  # an opening, or an elden one, may be there: level 0 knows
        if (R.may_open_with_pairs(state, seat) or (
                p.pairs_need_declaration and not me.declared_pairs)) and \
                len(solver.pairs_of(me.rack, okey)) >= R.threshold(state, seat, "pairs") - 1:
            return None
        loose = sol.leftover
    else:
        sol = racks.arrange(me.rack, p, okey)
        melds = keep_one(sol.melds, len(me.rack))
        if melds:
            return E.Lay(**BLANK, melds=notation(melds, okey))
        offs = R.lay_off_options(state, seat)
        if offs:  # level 0's: the highest tile the engine offers a place for, no okey
            best = max((o for o in offs if o[0] != okey), default=None,
                       key=lambda o: (tiles.face_value(o[0], okey), -o[0]))
            if best is not None:
                tile, meld, end = best
                if tile in sol.leftover:
                    racks.keep(me.rack, tile, sol, opened=True)
                return E.LayOff(**BLANK, meld=meld, tiles=[tiles.name(tile)],
                                end=None if end == "group" else end)
        if R.okey_take_options(state, seat):
            return None
        loose = sol.leftover
    if p.indicator_pair and hand.indicator in me.rack and \
            "show_indicator" in R.allowed_commands(state, seat):
        return None
    pool = [t for t in loose if t != okey] or [t for t in me.rack if t != okey]
    if not pool:
        return None
    penalised = {t for t, _, _ in R.penalised_discards(state, seat)}
    safe = [t for t in pool if t not in penalised] or pool
    tile = max(safe, key=lambda t: (tiles.face_value(t, okey), -t))
    if tile in loose:  # the rack left keeps the melds: its solution is known already
        racks.keep(me.rack, tile, sol, opened=me.opened is not None)
    return E.Discard(**BLANK, tile=tiles.name(tile))


__all__ = ["Racks", "quick"]
