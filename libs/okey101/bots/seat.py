"""A seat's view, read once per command: the rack, the table, and what the rules allow now.

Everything here comes from one `PlayerView` (RULES.md section 11: a bot knows its own rack
and the public table, nothing else). The gates mirror the engine's checks
(`okey101.table.decide`), so a bot asks for nothing the engine would refuse; the commands
are built with a blank envelope, which the driver fills (table, command id, seq, seat).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from okey101 import melds as M
from okey101 import solver, tiles
from okey101.profiles import Profile
from okey101.table import messages as E
from okey101.table.views import HandView, MeldView, PlayerView, SeatView
from okey101.tiles import FAKE, Tile

BLANK: dict[str, Any] = {"table_id": "", "command_id": ""}  # the driver fills the envelope


def table_meld(m: MeldView, okey: Tile) -> M.Meld:
    """A meld on the table, as the engine holds it, from its public notation."""
    placed = tuple(M.parse_placed(list(m.tiles), okey))
    kind: M.MeldKind = "run" if m.kind == "run" else "group" if m.kind == "group" else "pair"
    return M.Meld(kind, placed, m.start)


class Seat:
    """What one seat knows at one command: its view, parsed, with the rules' gates."""

    def __init__(self, v: PlayerView) -> None:
        if v.profile is None or v.hand is None or not 0 <= v.seat < 4:
            raise ValueError("a bot acts only for a seated player during a hand")
        self.v: PlayerView = v
        self.p: Profile = v.profile
        self.h: HandView = v.hand
        self.seat: int = v.seat
        self.me: SeatView = v.hand.seats[v.seat]
        self.okey: Tile = tiles.parse(v.hand.okey)
        self.indicator: Tile = tiles.parse(v.hand.indicator)
        self.wraps: bool = v.profile.run_wraps_13_to_1
        self.rack: list[Tile] = tiles.parse_many(v.rack)
        self.table: list[M.Meld] = [table_meld(m, self.okey) for m in v.hand.melds]
        cur = v.hand.current
        self.taken: Tile | None = tiles.parse(cur.taken) if cur.taken is not None else None
        self.laid: list[Tile] = tiles.parse_many(cur.laid)
        top = v.hand.available_discard
        self.top: Tile | None = tiles.parse(top) if top is not None else None
        self._arranged: dict[tuple[Tile, ...], solver.Solution] = {}

    # ---------------------------------------------------------------- values
    def value(self, tile: Tile) -> int:
        """What `tile` costs left in the rack when the hand ends (an okey: the house's)."""
        return self.p.okey_in_rack_value if tile == self.okey else tiles.face_value(tile,
                                                                                     self.okey)

    def arrange(self, rack: Sequence[Tile]) -> solver.Solution:
        key = tuple(sorted(rack))
        found = self._arranged.get(key)
        if found is None:
            found = self._arranged[key] = solver.arrange(key, self.okey, self.wraps,
                                                         self.p.okey_in_rack_value)
        return found

    def leftover(self, rack: Sequence[Tile]) -> int:
        return solver.leftover_value(self.arrange(rack).leftover, self.okey,
                                     self.p.okey_in_rack_value)

    def stands(self, tile: Tile) -> Tile:
        return self.okey if tile == FAKE else tile

    # ---------------------------------------------------------------- phases and gates
    @property
    def drawing(self) -> bool:
        return self.h.phase == "draw"

    @property
    def opened(self) -> str | None:
        return self.me.opened

    def anybody_opened_pairs(self) -> bool:
        return any(s.opened == "pairs" for s in self.h.seats)

    def elden_possible(self) -> bool:
        return not (self.p.elden_only_while_nobody_opened and
                    any(s.opened is not None for s in self.h.seats if s.seat != self.seat))

    def pairs_open_to_me(self) -> bool:
        """May this unopened seat open with pairs now (declared where the house needs it)?"""
        return not self.p.pairs_need_declaration or self.me.declared_pairs

    def may_touch_table(self) -> bool:
        """Lay off or take an okey now (decide._may_touch_table)."""
        me, turn = self.me, self.v.turn
        if me.opened is None:
            return False
        if me.opened_turn == turn:
            # an elden opening (below the threshold) may not touch the table in that turn
            # where the house says so; the view does not say which opening was elden, but
            # an elden opening lays the whole rack bar one tile: two or more left, it was not
            return self.p.lay_off_in_opening_turn and (
                self.p.elden_lay_off_allowed or len(self.rack) >= 2)
        return turn - me.opened_turn >= 4 * self.p.lay_off_wait_rounds

    def may_lay_off_more(self) -> bool:
        limit = self.p.pairs_opener_lay_off_limit
        return not (self.me.opened == "pairs" and limit is not None
                    and self.h.current.lay_offs >= limit)

    def may_show_indicator(self) -> bool:
        return (self.p.indicator_pair and not self.me.shown_indicator
                and not self.me.has_played and self.taken is None
                and (self.seat == self.h.starter or self.drawing)
                and self.indicator in self.rack)

    def may_take(self) -> bool:
        """Is there a discard this seat could ask for (before any opening check)?"""
        top = self.top
        if top is None or self.h.current.put_back:
            return False
        return top != self.okey or self.p.discarded_okey_takeable

    def playable(self, tile: Tile) -> bool:
        """Would discarding `tile` be penalised as playable on the table?"""
        return M.is_playable(tile, self.table, self.okey, self.wraps)

    def penalised(self, tile: Tile) -> bool:
        """Would this (non-finishing) discard cost a penalty?"""
        if len(self.rack) == 1 or not self.p.penalties:
            return False
        if tile == self.okey:
            return bool(self.p.okey_discard_penalty)
        if self.me.opened is None and not self.p.playable_discard_penalty_unopened:
            return False
        return bool(self.p.playable_discard_penalty) and self.playable(tile)

    # ---------------------------------------------------------------- lay-off targets
    def lay_off_for(self, tile: Tile) -> E.LayOff | None:
        """A lay-off of `tile` the engine accepts now, or None (gates checked by caller)."""
        if len(self.rack) < 2 or tile not in self.rack:
            return None
        used = {(m, e): n for m, e, n in self.h.current.end_counts}
        limit = self.p.run_end_lay_off_limit
        for i, meld in enumerate(self.table):
            if meld.kind == "pair":
                continue
            if tile == self.okey:
                if meld.kind == "group":
                    if M.missing_colours(meld):
                        return E.LayOff(**BLANK, meld=i, tiles=[tiles.name(tile)])
                    continue
                ends = M.extension_positions(meld, self.wraps)
            else:
                ends = M.lay_off_targets(self.stands(tile), meld, self.wraps)
            for pos in ends:
                if meld.kind == "group":
                    return E.LayOff(**BLANK, meld=i, tiles=[tiles.name(tile)])
                end: E.End = "low" if pos == meld.start - 1 else "high"
                if limit is not None and used.get((i, end), 0) >= limit:
                    continue
                return E.LayOff(**BLANK, meld=i, tiles=[tiles.name(tile)], end=end)
        return None

    def okey_takes(self) -> list[tuple[int, list[Tile]]]:
        """(meld, tiles to put) for each okey on the table this seat could take now."""
        out: list[tuple[int, list[Tile]]] = []
        have = Counter(self.rack)
        for i, meld in enumerate(self.table):
            jokers = [stands for played, stands in meld.tiles if played == self.okey]
            if not jokers:
                continue
            if meld.kind == "group" and len(meld.tiles) == 3:
                if self.p.take_okey_from_groups == "four_only":
                    continue
                put = sorted([*(tiles.make(c, meld.number) for c in M.missing_colours(meld)),
                              *jokers])
            else:
                put = [jokers[0]]
            if all(have[t] >= n for t, n in Counter(put).items()):
                out.append((i, put))
        return out


def played(melds: Sequence[M.Meld]) -> list[Tile]:
    return [t for m in melds for t, _ in m.tiles]


def notation(melds: Sequence[M.Meld], okey: Tile) -> list[list[str]]:
    return [m.notation(okey) for m in melds]


def keep_one(melds: Sequence[M.Meld], rack_size: int, protect: Tile | None = None
             ) -> list[M.Meld]:
    """`melds`, trimmed so that a tile stays in the rack for the discard (the engine's
    must_keep_a_discard). A tile of a 4+ run or a 4-group goes back first, never
    `protect` (a taken discard that must be laid)."""
    melds = list(melds)
    if sum(len(m.tiles) for m in melds) < rack_size:
        return melds
    for i, m in enumerate(melds):
        if m.kind == "run" and len(m.tiles) >= 4:
            if m.tiles[-1][0] != protect:
                return [*melds[:i], M.Meld("run", m.tiles[:-1], m.start), *melds[i + 1:]]
            if m.tiles[0][0] != protect and m.start < 14:
                return [*melds[:i], M.Meld("run", m.tiles[1:], m.start + 1), *melds[i + 1:]]
        if m.kind == "group" and len(m.tiles) == 4:
            for j in range(4):
                if m.tiles[j][0] != protect:
                    rest = m.tiles[:j] + m.tiles[j + 1:]
                    return [*melds[:i], M.Meld("group", rest), *melds[i + 1:]]
    if not melds:
        return melds
    order = sorted(range(len(melds)), key=lambda i: (protect in played([melds[i]]),
                                                     melds[i].value()))
    return [m for i, m in enumerate(melds) if i != order[0]]
