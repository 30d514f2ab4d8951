"""A seat's view, read once per command: the rack, the table, and what the rules allow now.

Everything here comes from one `PlayerView` (RULES.md section 11: a bot knows its own rack
and the public table, nothing else). What is legal comes from the view's `rules`, the
engine's own answers (`okey101.table.rules`): a bot chooses among the moves the engine
enumerates and re-implements no rule (the detail a view leaves out, lay-offs, okey takes
and penalised discards, is asked of the same rule book on the view:
`okey101.table.viewrules`, as a person's client asks the gateway). The commands are built
with a blank envelope, which the driver fills (table, command id, seq, seat).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from okey101 import melds as M
from okey101 import solver, tiles
from okey101.profiles import Profile
from okey101.table import messages as E
from okey101.table.viewrules import RulesDetail, meld_of_view, view_detail
from okey101.table.views import HandView, PlayerView, SeatView
from okey101.terms import SEATS, MeldCount
from okey101.tiles import FAKE, Tile

BLANK: dict[str, Any] = {"table_id": "", "command_id": ""}  # the driver fills the envelope


class Seat:
    """What one seat knows at one command: its view, parsed, with the rules' gates."""

    def __init__(self, v: PlayerView) -> None:
        if v.profile is None or v.hand is None or not 0 <= v.seat < SEATS:
            raise ValueError("a bot acts only for a seated player during a hand")
        self.v: PlayerView = v
        self.p: Profile = v.profile
        self.h: HandView = v.hand
        self.seat: int = v.seat
        self.me: SeatView = v.hand.seats[v.seat]
        self.okey: Tile = tiles.parse(v.hand.okey)
        self.indicator: Tile = tiles.parse(v.hand.indicator)
        self.wraps: bool = v.profile.run_wraps_13_to_1
        self.count: MeldCount = v.profile.meld_value  # what a meld is worth toward opening
        self.rack: list[Tile] = tiles.parse_many(v.rack)
        self.table: list[M.Meld] = [meld_of_view(m, self.okey) for m in v.hand.melds]
        cur = v.hand.current
        self.taken: Tile | None = tiles.parse(cur.taken) if cur.taken is not None else None
        self.laid: list[Tile] = tiles.parse_many(cur.laid)
        top = v.hand.available_discard
        self.top: Tile | None = tiles.parse(top) if top is not None else None
        self.rules = v.rules
        self.allowed: frozenset[str] = frozenset(v.rules.allowed)
        self._detail: RulesDetail | None = None
        self._penalised_tiles: frozenset[Tile] | None = None
        owed = v.rules.owed_tile
        self.owed: Tile | None = tiles.parse(owed) if owed is not None else None
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

    def worth(self, melds: Sequence[M.Meld]) -> int:
        """What `melds` are worth toward an opening, in the house's count."""
        return sum(M.counted_value(m, self.count) for m in melds)

    def in_count(self, points: int) -> int:
        """A margin given in face points, in the house's count (the "34" count: a third)."""
        return points // 3 if self.count == "third" else points

    def opening(self, rack: Sequence[Tile], exact: bool = True) -> solver.Solution:
        """The best opening of `rack` in the house's count. Not `exact` (a strategy's
        estimate), the "34" count takes the face optimum's melds at their count."""
        if self.count == "face" or exact:
            return solver.opening(rack, self.okey, self.wraps, self.count)
        face = solver.opening(rack, self.okey, self.wraps)
        return solver.Solution(self.worth(face.melds), face.melds, face.leftover)

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
        return self.rules.is_elden_open

    def pairs_open_to_me(self) -> bool:
        """May this unopened seat open with pairs now (declared where the house needs it)?"""
        return self.rules.may_open_pairs

    def may_touch_table(self) -> bool:
        """Lay off or take an okey this turn."""
        return self.rules.may_lay_off

    def may_lay_off_more(self) -> bool:
        return self.rules.lay_off_room != 0

    def may_show_indicator(self) -> bool:
        return "show_indicator" in self.allowed

    def may_take(self) -> bool:
        return "take_discard" in self.allowed

    def playable(self, tile: Tile) -> bool:
        """Could `tile` be laid off onto the table (melds.is_playable)?"""
        return M.is_playable(tile, self.table, self.okey, self.wraps)

    @property
    def detail(self) -> RulesDetail:
        """The rules' detail for this seat now, asked once."""
        if self._detail is None:
            self._detail = view_detail(self.v)
        return self._detail

    def penalised(self, tile: Tile) -> bool:
        """Would this discard cost a penalty now?"""
        if self._penalised_tiles is None:
            self._penalised_tiles = frozenset(
                tiles.parse(d.tile) for d in self.detail.penalised_discards)
        return tile in self._penalised_tiles

    def is_full(self, meld: int, end: str) -> bool:
        """Does run `meld` take no more tiles at `end` this turn?"""
        return any(m == meld and e == end for m, e in self.rules.full_run_ends)

    # ---------------------------------------------------------------- the table's options
    def lay_off_for(self, tile: Tile) -> E.LayOff | None:
        """A lay-off of `tile` the engine offers now, or None."""
        name = tiles.name(tile)
        for option in self.detail.lay_offs:
            if option.tile == name:
                end = None if option.end == "group" else option.end
                return E.LayOff(**BLANK, meld=option.meld, tiles=[name], end=end)
        return None

    def okey_takes(self) -> list[tuple[int, list[Tile]]]:
        """(meld, tiles to put) for each okey on the table this seat may take now."""
        return [(o.meld, tiles.parse_many(o.tiles)) for o in self.detail.okey_takes]


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
