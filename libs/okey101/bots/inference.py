"""What a seat can infer from public information: live tiles and the next player's wants.

Only `PlayerView`s go in (RULES.md section 11). A tile kind is *live* while copies of it
may still come to this seat: two copies of each kind, less those the seat can see (its own
rack, every discard pile, the melds on the table, the indicator) and less those it knows to
sit hidden in another rack. The one hidden place a seat can know of is the next player's
rack: the next player (seat + 1) is the only one who takes this seat's discards, so a
discard that is gone from this seat's pile at its next turn went there.

`Memory` holds what one seat saw in the earlier views of the same hand (its rack at its last
view and the size of its own pile), and from that alone the tiles the next player took.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from okey101 import tiles
from okey101.terms import SEATS
from okey101.tiles import FAKE, KINDS, Tile

from .seat import Seat

HandKey = tuple[str, int, int, int]  # table, seat, hand, attempt
NEAR_DISCARD = 0.7  # a kind near one the next player threw away: it holds less of it


class Memory:
    """One seat's memory of one hand, built only from its successive views."""

    def __init__(self, key: HandKey) -> None:
        self.key = key
        self.turn = -1
        self.last_rack: Counter[Tile] = Counter()
        self.last_pile = 0
        self.fed: Counter[Tile] = Counter()  # my discards the next player took

    def see(self, s: Seat) -> None:
        """Fold one view in: at the first view of a turn, settle what became of the tile
        discarded at the end of the previous turn."""
        pile = len(s.me.discards)
        if self.turn >= 0 and s.v.turn == self.turn + 4:  # my next turn: 3 seats between
            gone = self.last_rack - Counter(s.rack)
            if sum(gone.values()) == 1 and pile == self.last_pile:
                self.fed.update(gone)  # discarded, then taken by the next seat
        self.turn = s.v.turn
        self.last_rack = Counter(s.rack)
        self.last_pile = pile


class Knowledge:
    """Live counts and the next player's record, for one view (and its memory)."""

    def __init__(self, s: Seat, memory: Memory | None = None) -> None:
        self.s = s
        seen: Counter[Tile] = Counter(s.rack)
        for seat in s.h.seats:
            seen.update(tiles.parse_many(seat.discards))
        for m in s.table:
            seen.update(played for played, _ in m.tiles)
        seen[s.indicator] += 1
        self.visible = seen
        nxt = s.h.seats[(s.seat + 1) % SEATS]
        shown: Counter[Tile] = Counter(tiles.parse_many(nxt.discards))  # by the next seat
        for view, m in zip(s.h.melds, s.table, strict=True):
            if view.owner == nxt.seat:
                shown.update(played for played, _ in m.tiles)
        hidden: Counter[Tile] = Counter()
        if memory is not None:  # a tile it took and has not shown is still in its rack
            for t, n in memory.fed.items():
                hidden[t] = max(0, min(n - shown[t], 2 - seen[t]))
        self.hidden = hidden
        self.live = [max(0, 2 - seen[t] - hidden[t]) for t in range(KINDS)]
        self.unseen = max(1, sum(self.live))
        self.next_opened = nxt.opened is not None
        self.next_discards = tiles.parse_many(nxt.discards)
        self.next_took = [t for t, n in (memory.fed if memory else Counter()).items()
                          for _ in range(n)]

    def draws_left(self) -> float:
        """About how many draws are still to come to this seat: a quarter of the deck
        (the three others draw in between; a take spares the deck)."""
        return self.s.h.deck_count / 4

    def p_holds(self, seat: int, kind: Tile) -> float:
        """The chance `seat` holds a copy of `kind`: its share of the unseen tiles, for
        each live copy; certain for a tile it took from this seat and has not shown."""
        if seat == (self.s.seat + 1) % SEATS and self.hidden[kind]:
            return 1.0
        n = self.live[kind]
        if not n:
            return 0.0
        share = min(1.0, self.s.h.seats[seat].rack_size / self.unseen)
        p = 1 - (1 - share) ** n
        if seat == (self.s.seat + 1) % SEATS and any(_near(self.s, kind, t)
                                                 for t in self.next_discards):
            p *= NEAR_DISCARD  # it threw a neighbour away: less likely to collect these
        return p

    def p_feeds(self, tile: Tile) -> float:
        """The chance the next player can meld `tile` with two tiles of its own (a run or
        a group through it, or one tile and an okey): what a discard may give away."""
        s = self.s
        nxt = (s.seat + 1) % SEATS
        if tile == s.okey:
            return 1.0
        me = s.stands(tile)
        colour, number = tiles.colour_of(me), tiles.number_of(me)
        top = 14 if s.wraps else 13
        positions = [number] + ([14] if s.wraps and number == 1 else [])
        hold = {}

        def p(kind: Tile) -> float:
            if kind not in hold:
                hold[kind] = self.p_holds(nxt, kind)
            return hold[kind]

        def at(q: int) -> Tile:
            return tiles.make(colour, 1 if q == 14 else q)

        combos: list[tuple[Tile, Tile]] = []
        singles: set[Tile] = set()
        for pos in positions:
            for a, b in ((pos - 2, pos - 1), (pos - 1, pos + 1), (pos + 1, pos + 2)):
                if a >= 1 and b <= top:
                    combos.append((at(a), at(b)))
                    singles.update((at(a), at(b)))
        others = [tiles.make(c, number) for c in range(4) if c != colour]
        combos += [(others[i], others[j]) for i in range(3) for j in range(i + 1, 3)]
        singles.update(others)
        miss = 1.0
        for a, b in combos:
            miss *= 1 - p(a) * p(b)
        lone = 1.0
        for a in singles:
            lone *= 1 - p(a)
        with_okey = self.p_holds(nxt, s.okey) * (1 - lone)
        return 1 - miss * (1 - with_okey)


def _near(s: Seat, a: Tile, b: Tile) -> bool:
    """Could `a` and `b` sit in one run or group?"""
    return b in _neighbour_table(s.okey, s.wraps)[a] or (a == b == s.okey)


@lru_cache(maxsize=128)
def _neighbour_table(okey: Tile, wraps: bool) -> tuple[frozenset[Tile], ...]:
    """For each kind, the kinds that could sit in one run or group with it (built once per
    okey and house from the natural table: the bots ask this many times a decision). The
    okey sits with every kind; a fake okey with what the okey's own tile sits with."""
    natural = _natural_table(wraps)
    everything = frozenset(range(KINDS))
    table = []
    for a in range(KINDS):
        if a == okey:
            near = everything - {a}
        elif a == FAKE:
            near = (natural[okey] | {okey}) - {FAKE}
        else:
            near = natural[a] | {okey}
            if okey in natural[a]:
                near |= {FAKE}
            near -= {a}
        table.append(frozenset(near))
    return tuple(table)


@lru_cache(maxsize=2)
def _natural_table(wraps: bool) -> tuple[frozenset[Tile], ...]:
    """For each natural tile (no okey anywhere), the tiles it could sit with."""
    return tuple(frozenset(b for b in range(FAKE) if _natural_near(wraps, a, b))
                 for a in range(FAKE))


def _natural_near(wraps: bool, a: Tile, b: Tile) -> bool:
    if a == b:
        return False
    ca, na, cb, nb = tiles.colour_of(a), tiles.number_of(a), tiles.colour_of(b), \
        tiles.number_of(b)
    if na == nb:
        return True
    if ca != cb:
        return False
    gap = abs(na - nb)
    if wraps:
        gap = min(gap, abs((14 if na == 1 else na) - (14 if nb == 1 else nb)))
    return gap <= 2


def _near_uncached(okey: Tile, wraps: bool, a: Tile, b: Tile) -> bool:
    """The definition the table is built to match (kept for the tests)."""
    if a == okey or b == okey:
        return True
    a, b = (okey if a == FAKE else a), (okey if b == FAKE else b)
    return _natural_near(wraps, a, b)


def neighbours(s: Seat, tile: Tile) -> frozenset[Tile]:
    """The kinds that could sit in one run or group with `tile` (the okey among them)."""
    return _neighbour_table(s.okey, s.wraps)[tile]
