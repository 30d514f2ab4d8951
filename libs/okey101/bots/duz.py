"""Düz (classic) Okey at every bot level (RULES.md §12), from the seat's view only.

Düz has no opening: a seat draws (or takes the previous discard, free to keep it) and
discards, and wins with `finish` when, after its discard, the rest of the rack forms runs
and groups or seven pairs. A finish costs the others a fixed count (2; x2 for an okey
discarded last, x2 for seven pairs), never the rack's value, so these bots count tiles,
not points: a rack's distance to a finish is the fewest tiles its best arrangement leaves
out (`solver.fewest_left`), or the tiles outside its pairs, whichever is less. What is
legal comes from the view's rules (`allowed`), as for 101.

- Level 0 (simulations): finishes when it can (the biggest finish), takes the discard only
  when it finishes at once, else draws; discards the highest loose tile, never an okey.
- Level 1: always draws; finishes when it can; discards the drawn tile when it is loose,
  else a loose tile picked by a hash of its view; never an okey.
- Level 2: takes the discard when it brings the rack closer to a finish; discards the tile
  whose loss leaves the rest closest to one (ties: the tile with the fewest partners).
- Level 3: level 2, its ties broken by what is public: the discard that leaves the most
  live draws bringing the rack closer (tile efficiency over the live tiles), then level
  2's order (the fewest partners, the highest). It does not weigh the next seat's chance
  to meld the discard, as it does in 101: that put a tile extending its own melds out
  before an isolated one, and level 3 lost to level 2 (README, "The bot levels").
Every level shows the indicator's twin when it may (it costs every other seat a point).
"""

from __future__ import annotations

from collections.abc import Sequence

from okey101 import solver, tiles
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.tiles import Tile

from .inference import Knowledge, neighbours
from .seat import BLANK, Seat, notation


class DuzPlay:
    """One command of a düz turn for `level` (0-3); level 3 reads `knowledge`."""

    def __init__(self, s: Seat, level: int, knowledge: Knowledge | None = None) -> None:
        self.s = s
        self.level = level
        self.k = knowledge
        self._fewest: dict[tuple[Tile, ...], int] = {}
        self.pairs_play = False  # set by `loose`: pairs are the closer way to a finish
        self.ranking: list[Tile] = []  # level 3's discards, best first (level 4's candidates)

    def command(self) -> E.Command:
        s = self.s
        if "show_indicator" in s.allowed:
            return E.ShowIndicator(**BLANK)
        if s.drawing:
            if self.level != 1 and "take_discard" in s.allowed and s.top is not None and \
                    self.wants(s.top):
                return E.TakeDiscard(**BLANK)
            return E.Draw(**BLANK)
        if "finish" in s.allowed:
            finish = best_finish(s, s.rack)
            if finish is not None:
                return finish
        return E.Discard(**BLANK, tile=tiles.name(self.discard()))

    # ------------------------------------------------------------ reading the rack
    def distance(self, rack: Sequence[Tile]) -> int:
        """The fewest tiles `rack` leaves out of runs and groups, or out of pairs."""
        key = tuple(sorted(rack))
        found = self._fewest.get(key)
        if found is None:
            melds = len(solver.fewest_left(key, self.s.okey, self.s.wraps).leftover)
            pairs = len(key) - 2 * solver.most_pairs(key, self.s.okey)
            found = self._fewest[key] = min(melds, pairs)
        return found

    def wants(self, top: Tile) -> bool:
        """Take the previous discard instead of drawing? Level 0: only to finish at once;
        levels 2-3: when the rack absorbs it (no farther from a finish with it than
        without it, so the discard that follows brings it closer), and always an okey."""
        s = self.s
        rack = [*s.rack, top]
        if self.level == 0:
            return best_finish(s, rack) is not None
        return top == s.okey or self.distance(rack) <= self.distance(s.rack)

    # ------------------------------------------------------------ the discard
    def discard(self) -> Tile:
        s = self.s
        pool = sorted(set(t for t in s.rack if t != s.okey)) or list(s.rack)
        if self.level == 0:
            loose = [t for t in solver.fewest_left(s.rack, s.okey, s.wraps).leftover
                     if t != s.okey] or pool
            return max(loose, key=lambda t: (tiles.face_value(t, s.okey), -t))
        if self.level == 1:
            loose = sorted(set(solver.fewest_left(s.rack, s.okey, s.wraps).leftover)
                           - {s.okey}) or pool
            drawn = s.rack[-1]
            if drawn in loose:
                return drawn
            spin = (s.v.turn * 7919 + sum((i + 1) * t for i, t in enumerate(s.rack)))
            return loose[spin % len(loose)]
        loose = self.loose()
        best = loose or self.cheapest(pool)
        if self.level >= 3 and self.k is not None:
            # Not the next seat's chance to meld it (`Knowledge.p_feeds`, 101's reading):
            # a düz discard taken costs nothing by itself, and putting it before partners
            # threw tiles that extend this rack's own melds (paired runs: README).
            ranked = sorted(best, key=lambda d: (-self.outs([t for t in loose if t != d]),
                                                 *self.level2_key(d))) if len(best) > 1 \
                else list(best)
            self.ranking = ranked + sorted(set(pool) - set(ranked), key=self.level2_key)
            return ranked[0]
        return min(best, key=self.level2_key)

    def level2_key(self, d: Tile) -> tuple[int, int, int]:
        """Level 2's order of the loose tiles: the fewest partners first, then the highest."""
        return self.partners(d), -tiles.face_value(d, self.s.okey), -d

    def loose(self) -> list[Tile]:
        """The tiles out of the closer way to a finish (runs and groups, or pairs), no okey:
        each of them leaves the rest one tile closer, the most a discard can."""
        s = self.s
        melds = solver.fewest_left(s.rack, s.okey, s.wraps)
        paired = [t for m in solver.pairs_of(s.rack, s.okey) for t, _ in m.tiles]
        singles = _less_all(s.rack, paired)
        self.pairs_play = len(singles) < len(melds.leftover)
        out = singles if self.pairs_play else list(melds.leftover)
        return sorted(set(out) - {s.okey})

    def cheapest(self, pool: Sequence[Tile]) -> list[Tile]:
        """Every tile is in a meld or a pair: those whose loss leaves the rest closest."""
        cost = {d: self.distance(_less(self.s.rack, d)) for d in pool}
        least = min(cost.values())
        return [d for d in pool if cost[d] == least]

    def partners(self, tile: Tile) -> int:
        """The other rack tiles that could share a run or group with `tile`."""
        s = self.s
        near = set(neighbours(s, tile)) - {s.okey}
        return sum(1 for t in _less(s.rack, tile) if t in near)

    def outs(self, loose: Sequence[Tile]) -> int:
        """Level 3: the live copies of the kinds a draw of which brings the rack one tile
        closer to a finish with `loose` left out: a tile making a run or a group with two
        of them (or the okey, with any two), or, in pairs play, the twin of one."""
        assert self.k is not None
        s, live = self.s, self.k.live
        if self.pairs_play:
            return sum(live[t] for t in set(loose)) + live[s.okey]
        wanted: set[Tile] = set()
        kinds = sorted(set(loose))
        for i, a in enumerate(kinds):
            for b in kinds[i + 1:]:
                wanted |= completions(s.stands(a), s.stands(b), s.wraps)
        return sum(live[t] for t in wanted) + (live[s.okey] if wanted else 0)


def completions(a: Tile, b: Tile, wraps: bool) -> set[Tile]:
    """The kinds that make a run or a group with the tiles standing for `a` and `b`."""
    ca, na, cb, nb = tiles.colour_of(a), tiles.number_of(a), tiles.colour_of(b), \
        tiles.number_of(b)
    if na == nb:
        return {tiles.make(c, na) for c in range(4) if c not in (ca, cb)} if ca != cb else set()
    if ca != cb:
        return set()
    top = 14 if wraps else 13
    out: set[Tile] = set()
    for pa in [na] + ([14] if wraps and na == 1 else []):
        for pb in [nb] + ([14] if wraps and nb == 1 else []):
            low, high = min(pa, pb), max(pa, pb)
            if high - low == 1:
                wanted = [low - 1, high + 1]
            elif high - low == 2:
                wanted = [low + 1]
            else:
                continue
            out |= {tiles.make(ca, 1 if q == 14 else q) for q in wanted if 1 <= q <= top}
    return out


def best_finish(s: Seat, rack: Sequence[Tile]) -> E.Finish | None:
    """The biggest finish `rack` allows (`solver.best_finish`), as the command."""
    found = R.best_finish(s.p, rack, s.okey)
    if found is None or found.discard is None:
        return None
    shown = notation(found.melds, s.okey)
    tile = tiles.name(found.discard)
    return E.Finish(**BLANK, tile=tile, pairs=shown) if found.pairs else \
        E.Finish(**BLANK, tile=tile, melds=shown)


def _less(rack: Sequence[Tile], tile: Tile) -> list[Tile]:
    out = list(rack)
    out.remove(tile)
    return out


def _less_all(rack: Sequence[Tile], gone: Sequence[Tile]) -> list[Tile]:
    out = list(rack)
    for t in gone:
        out.remove(t)
    return out


def duz_command(s: Seat, level: int, knowledge: Knowledge | None = None) -> E.Command:
    """The düz command of a bot of `level` for the seat to act."""
    return DuzPlay(s, level, knowledge).command()


def duz_play(s: Seat, knowledge: Knowledge) -> tuple[E.Command, list[Tile]]:
    """Level 3's düz command and, for a discard, its discards best first (the first is
    the command's tile)."""
    play = DuzPlay(s, 3, knowledge)
    return play.command(), play.ranking


__all__ = ["DuzPlay", "best_finish", "duz_command", "duz_play"]
