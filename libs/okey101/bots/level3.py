"""Level 3: level 2 plus inference from public information (`inference.py`).

What it adds to level 2 (`levels.Level2Play`):
- Before opening, each loose tile is weighed by what the rack loses without it: for every
  live tile kind (copies not seen in the discards, on the table, in its rack, or known to
  sit in the next player's rack), how much one draw of it would raise the rack's chance to
  open (a utility of the best opening value), weighted by its live copies. The discard is
  the tile whose loss (plus the feeding charge below) is least; ties go to a tile with no
  partner in the rack, then to the highest.
- Points or pairs by liveness: the expected draws to reach the threshold (points: the live
  draws that raise the opening value; pairs: the singles whose twin is still live, and the
  okeys) decide the plan.
- Both plans stay alive until the opening: a discard before opening is charged what it
  costs the plan not chosen as well. Playing for points, while at most `PAIRS_GAP` pairs
  are missing, a tile is charged the drop in the chance to reach the pairs threshold in the
  draws left (a pair broken: one more pair to find; a single: its twin's live copies no
  longer outs), times what a pairs opening saves; playing for pairs, a single is charged
  what it is worth to the points plan (as in the points discard). So a points player does
  not throw a tile of a pair while pairs are near, and a pairs player keeps a run's tile.
- A pairs opening waits while the points threshold is expected within the draws left,
  plus `HOLD_SPARE` (a pairs opener's rack counts twice): the rack keeps its pairs, and a
  discard that would open by pairs only is not taken. Never on the seat's last draw, nor
  for okeygg's Siler.
- After opening, a loose tile is kept by its chance to be used before the deck runs out
  (live kinds that would meld it in the rack, or would extend a run on the table up to
  it); the discard is the tile with the most at risk: its value plus `LOOSE_FLAT` (every
  loose tile stands between this seat and a finish, -101 against its rack). On the
  match's last hand, `CHASE_GAP` or more behind the best other total (public), a rack
  left over loses the match whatever its value, a finish may win it: a loose tile
  then costs `CHASE_FLAT` more.
- The next player takes this seat's discards. From public information only (the live
  kinds, its rack size, what it took from this seat, what it threw away), each discard
  is charged the chance the next player can meld it, times what that would gain it (an
  opening, if it has not opened); okeygg's 10x charge to the discarder is counted in full,
  as level 2 weighs it (`levels.feed_charge`), with what this seat remembers the next
  player took. The charge is scaled by the next player's weight as a rival in the match
  (`standing.py`: from the public totals and the hands left).
- The okey finish: after opening, when every tile but an okey can go down this turn, the
  okey is kept out of the melds and lay-offs and finishes the hand as the last discard.

The weights below were set by paired benchmark runs (same seeds) against three level 2s in
north-sultan; the discard choice is not sensitive to them within a factor of two.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Sequence

from okey101 import melds as M
from okey101 import solver, tiles
from okey101.table import messages as E
from okey101.table.views import PlayerView
from okey101.tiles import KINDS, Tile

from . import plays
from .duz import duz_play
from .inference import Knowledge, Memory, neighbours
from .levels import Level2Play, feed_charge, feeding_charged, partners, safe_choice
from .seat import BLANK, Seat, notation, played
from .standing import EVEN, hands_left, rivals

OPEN_CURVE = 3.0  # utility of an opening value v below the threshold: (v / need) ** curve
PAIRS_HANDICAP = 1.0  # pairs are played only when this much quicker than points
OPEN_SWING = 170.0  # about what opening saves: 202 unopened against a rack left after it
FEED_WEIGHT = 0.1  # how much the next player's gain counts against this seat's own, at an
# even standing (scaled by its weight as a rival in the match: `standing.rivals`)
FEED_OPENED = 0.15  # the share of a swing an opened next player gains from a discard
PAIRS_SWING = 150.0  # about what a pairs opening saves: 202 against twice a rack left
PAIRS_GAP = 3  # the pairs plan is weighed while at most this many pairs are missing
LOOSE_FLAT = 60.0  # after opening, what a loose tile costs on top of its value: one more
# tile to meld before this seat can finish (-101 against its rack)
CHASE_GAP = 120  # on the match's last hand, this far behind the best other total (0: off),
CHASE_FLAT = 50.0  # a loose tile costs this much more: only a finish can win the match
HOLD_SPARE = 2.0  # draws the points plan may need beyond the draws left before a pairs
# opening stops waiting (the previous player's discards are chances the draws leave out)


class Level3:
    """The level-3 bot: callable on views; remembers, per seat, the hand it is playing."""

    def __init__(self) -> None:
        self._memory: dict[tuple[str, int], Memory] = {}
        self.last: Level3Play | None = None  # the last decision's play (its `ranking`)
        self.duz_ranking: list[Tile] = []  # in düz, the last discard's candidates, best first

    def forget(self, table_id: str) -> None:
        """The table's match is over: its seats' memories leave (bounded memory)."""
        for seat in range(-1, 4):
            self._memory.pop((table_id, seat), None)

    @property
    def remembered(self) -> int:
        """Seats with a memory."""
        return len(self._memory)

    def __call__(self, v: PlayerView) -> E.Command:
        s = Seat(v)
        key = (v.table_id, v.seat, s.h.number, s.h.attempt)
        memory = self._memory.get((v.table_id, v.seat))
        if memory is None or memory.key != key or v.turn < memory.turn:
            memory = self._memory[(v.table_id, v.seat)] = Memory(key)
        memory.see(s)
        self.last = None
        if s.p.game == "duz":
            command, self.duz_ranking = duz_play(s, Knowledge(s, memory))
            return command
        self.last = Level3Play(s, Knowledge(s, memory))
        return self.last.command()


class Level3Play(Level2Play):
    def __init__(self, s: Seat, k: Knowledge) -> None:
        super().__init__(s)
        self.k = k
        self._outs: tuple[int, list[tuple[Tile, int, solver.Solution]]] | None = None
        self.ranking: list[Tile] = []  # the discard's candidates, best first (`discard`)

    # ------------------------------------------------------------ pairs held back
    def open(self, s: Seat) -> E.Command | None:
        if s.taken is None and self.holds_pairs(s.rack):
            return None
        return super().open(s)

    def wants(self, top: Tile) -> bool:
        s = self.s
        if s.opened is None and self.holds_pairs([*s.rack, top], top):
            return False
        return super().wants(top)

    def holds_pairs(self, rack: Sequence[Tile], must: Tile | None = None) -> bool:
        """Does `rack` open by pairs only (holding `must`), while the points threshold is
        expected within the draws left (and `HOLD_SPARE`)? Then the pairs opening waits:
        a pairs opener's rack counts twice (RULES.md section 8), about 60 points more at
        the end of the hand than a points opener's. Not on the seat's last draw, nor for
        a Siler."""
        s = self.s
        pairs = plays.pairs_plan(s, rack, must)
        if pairs is None or plays.points_plan(s, rack, must) is not None:
            return False
        if s.p.siler and len(pairs) >= s.p.siler_pairs:
            return False
        draws = self.k.draws_left()
        return draws >= 1 and self.points_draws() <= draws + HOLD_SPARE

    # ------------------------------------------------------------ the okey finish
    def lay(self, s: Seat) -> E.Command | None:
        """Keep an okey for the finishing discard when the rest of the rack can go down
        this turn without it (an okey finish: -202 for this seat, the others' racks
        doubled; RULES.md section 8); else lay as level 2 does."""
        melds = self.okey_finish_melds()
        if melds is not None:
            if s.opened == "pairs":
                return E.Lay(**BLANK, pairs=notation(melds, s.okey))
            return E.Lay(**BLANK, melds=notation(melds, s.okey))
        return plays.try_lay(s)

    def lay_off(self, s: Seat) -> E.Command | None:
        if s.okey in s.rack and self.okey_last():
            order = sorted({t for t in s.rack if t != s.okey},
                           key=lambda t: (-s.value(t), t))
            return plays.try_lay_off(s, order) if order else None
        return plays.try_lay_off(s)

    def okey_last(self) -> bool:
        """Could every tile but one okey leave the rack this turn (melds, pairs or
        lay-offs the engine offers now)?"""
        s = self.s
        if s.opened is None or s.okey not in s.rack or plays.must_lay(s) == s.okey:
            return False
        rest = plays.without(s.rack, [s.okey])
        if s.opened == "pairs":
            left = plays.without(rest, played(plays.pairs_in(s, rest)))
        else:
            left = list(s.arrange(rest).leftover)
        if not left:
            return True
        if not s.may_touch_table() or s.okey in left:
            return False
        room = s.rules.lay_off_room
        if room is not None and room < len(left):
            return False
        return all(s.lay_off_for(t) is not None for t in left) and len(set(left)) == len(left)

    def okey_finish_melds(self) -> list[M.Meld] | None:
        """The melds (or pairs) of the rack without one okey, when keeping the okey for
        the last discard finishes the hand this turn; None otherwise."""
        s = self.s
        if len(s.rack) < 2 or not self.okey_last():
            return None
        rest = plays.without(s.rack, [s.okey])
        if s.opened == "pairs":
            found = plays.pairs_in(s, rest)
        elif s.opened == "points":
            found = list(s.arrange(rest).melds)
        else:
            return None
        return found or None

    # ------------------------------------------------------------ points before opening
    def utility(self, value: int) -> float:
        need = max(1, self.s.me.points_needed)
        return 1.0 if value >= need else (value / need) ** OPEN_CURVE

    def outs(self) -> tuple[int, list[tuple[Tile, int, solver.Solution]]]:
        """(best opening value now, [(live kind, its live copies, best opening with it)])
        for the kinds that would raise the value. A drawn kind changes the opening only
        around itself: the melds holding a tile it could sit with and the loose tiles near
        them are solved again with it, the rest of the opening is kept (a lower bound of
        the whole rack's solve, a fraction of its time)."""
        if self._outs is None:
            s, rack = self.s, self.s.rack
            base = s.opening(rack, exact=False)
            v0 = base.value
            okey = s.okey
            jokers = sum(1 for t in rack if t == okey)
            near = set(range(KINDS)) if jokers >= 2 else \
                {k for t in rack if t != okey for k in neighbours(s, t)}
            found = []
            for t in range(KINDS):
                n = self.k.live[t]
                if not n or not (t in near or t == okey):
                    continue
                close = set(neighbours(s, t)) | {t, okey}
                touched = [m for m in base.melds if any(u in close for u, _ in m.tiles)]
                kept = [m for m in base.melds if not any(u in close for u, _ in m.tiles)]
                sub = [*played(touched), *(u for u in base.leftover if u in close), t]
                part = s.opening(sub, exact=False)
                value = s.worth(kept) + part.value
                if value > v0:
                    found.append((t, n, solver.Solution(value, (*kept, *part.melds), ())))
            self._outs = (v0, found)
        return self._outs

    def points_draws(self) -> float:
        """Expected draws to reach the points threshold (inf if no live draw helps)."""
        v0, found = self.outs()
        gap = self.s.me.points_needed - v0
        if gap <= 0:
            return 0.0
        rate = sum(n * min(sol.value - v0, gap) for _, n, sol in found) / self.k.unseen
        return gap / rate if rate > 0 else float("inf")

    def pairs_draws(self) -> float:
        s = self.s
        found = plays.pairs_in(s, s.rack)
        gap = s.me.pairs_needed - len(found)
        if gap <= 0:
            return 0.0
        singles = set(s.rack) - set(played(found)) - {s.okey}
        outs = sum(self.k.live[t] for t in singles) + self.k.live[s.okey]
        return gap / (outs / self.k.unseen) if outs else float("inf")

    def pairs_mode(self) -> bool:
        s = self.s
        if s.opened is not None:
            return s.opened == "pairs"
        pairs = self.pairs_draws()
        return pairs < float("inf") and pairs * PAIRS_HANDICAP < self.points_draws()

    # ------------------------------------------------------------ the discard
    def discard(self) -> Tile:
        """The best of `rank()`, which is kept as `ranking` (level 4's candidates)."""
        self.ranking = self.rank()
        return self.ranking[0]

    def rank(self) -> list[Tile]:
        s = self.s
        if len(s.rack) == 1:
            return [s.rack[0]]
        if s.opened is None:
            return self.pairs_discard() if self.pairs_mode() else self.points_discard()
        if s.opened == "pairs":
            return self.pairs_discard()
        return self.opened_discard()

    def points_discard(self) -> list[Tile]:
        s = self.s
        rack = s.rack
        loose = solver.opening(rack, s.okey, s.wraps).leftover
        pool = sorted(set(safe_choice(s, loose)))
        if len(pool) == 1:
            return pool
        points = self.points_costs(pool)
        pairs = self.pairs_costs(pool)
        cost = {d: points[d] + pairs[d] + self.feed_cost(d) for d in pool}
        return sorted(pool, key=lambda d: (round(cost[d], 9), bool(partners(s, d, rack)),
                                           -s.value(d), d))

    def points_costs(self, pool: Sequence[Tile]) -> dict[Tile, float]:
        """What discarding each tile of `pool` costs the points plan: the chance to open
        it takes away (one draw's outs, weighted by the draws left), times the swing."""
        s = self.s
        v0, found = self.outs()
        have = Counter(s.rack)
        u0 = self.utility(v0)
        loss = dict.fromkeys(pool, 0.0)
        # Without `d`, the opening with the drawn `t` is worth at least the better of the
        # rack's opening without `d` (`v0`: `d` is loose) and the opening with `t` less the
        # melds holding `d` (a bound, not a solve per pair: the decision keeps its time).
        for _t, n, sol in found:
            gain = self.utility(sol.value) - u0
            used = Counter(played(sol.melds))
            for d in pool:
                if used[d] > have[d] - 1:
                    kept = s.worth([m for m in sol.melds if d not in played([m])])
                    value = max(v0, kept)
                    loss[d] += n * (gain - (self.utility(value) - u0))
        scale = self.k.draws_left() / self.k.unseen * OPEN_SWING
        return {d: loss[d] * scale for d in pool}

    def pairs_costs(self, pool: Sequence[Tile]) -> dict[Tile, float]:
        """What discarding each tile of `pool` costs the pairs plan: the drop in the chance
        to reach the pairs threshold in the draws left (each draw a twin of a single, or an
        okey, at the live rate), times what a pairs opening saves."""
        s = self.s
        zero = dict.fromkeys(pool, 0.0)
        if not s.pairs_open_to_me() and "declare_pairs" not in s.allowed:
            return zero
        found = plays.pairs_in(s, s.rack)
        gap = s.me.pairs_needed - len(found)
        if gap <= 0 or gap > PAIRS_GAP:
            return zero
        paired = Counter(played(found))
        singles = Counter(s.rack) - paired
        live = self.k.live
        outs = sum(live[t] for t in singles if t != s.okey) + live[s.okey]
        draws = max(1, math.ceil(self.k.draws_left()))
        unseen = self.k.unseen
        now = _at_least(gap, draws, outs / unseen)
        broken = now - _at_least(gap + 1, draws, outs / unseen)  # any pair's tile alike
        out = {}
        for d in pool:
            if d == s.okey:
                out[d] = 0.0
            elif singles[d] == 0:  # breaks a pair: its twin is dead once thrown
                out[d] = broken
            else:
                out[d] = now - _at_least(gap, draws, (outs - live[d]) / unseen)
        return {d: out[d] * PAIRS_SWING for d in pool}

    def pairs_discard(self) -> list[Tile]:
        """A single: before opening the one whose twin is least live; after a pairs
        opening the one with the most doubled value at risk."""
        s = self.s
        found = plays.pairs_in(s, s.rack)
        pool = sorted(set(safe_choice(s, plays.without(s.rack, played(found)))))
        draws = self.k.draws_left()
        if s.opened is None:
            gap = max(1, s.me.pairs_needed - len(found))
            scale = draws / self.k.unseen * OPEN_SWING / gap
            points = self.points_costs(pool)
            cost = {d: self.k.live[d] * scale + points[d] + self.feed_cost(d) for d in pool}
            return sorted(pool, key=lambda d: (round(cost[d], 9), -s.value(d), d))
        flat = self.loose_flat
        score = {d: (2 * s.value(d) + flat) * float((1 - self.k.live[d] / self.k.unseen) ** draws)
                 - self.feed_cost(d) for d in pool}
        return sorted(pool, key=lambda d: (round(score[d], 9), s.value(d), -d), reverse=True)

    def opened_discard(self) -> list[Tile]:
        s = self.s
        rack = s.rack
        loose = s.arrange(rack).leftover
        pool = sorted(set(safe_choice(s, loose)))
        if len(pool) == 1:
            return pool
        draws = self.k.draws_left()
        flat = self.loose_flat
        scores = {d: (s.value(d) + flat) * (1 - self.p_used(d, rack, draws))
                  - self.feed_cost(d) for d in pool}
        return sorted(pool, key=lambda d: (round(scores[d], 9), s.value(d), -d), reverse=True)

    def feed_cost(self, d: Tile) -> float:
        """What discarding `d` may give the next player, in points of this seat's score:
        the chance it can meld `d` times the swing it gains (an opening, if it has not
        opened: likelier the higher the tile), counted at `feed_weight` (its gain is not
        this seat's loss); plus, where the house charges the discarder when the next player
        opens with its discard (okeygg), the expected charge in full."""
        s, p = self.s, self.k.p_feeds(d)
        if self.k.next_opened:
            return self.feed_weight * FEED_OPENED * p * OPEN_SWING
        number = tiles.number_of(s.stands(d))
        cost = self.feed_weight * p * (number + 4) / 17 * OPEN_SWING
        if feeding_charged(s):
            cost += feed_charge(s, self.k, d)
        return cost

    @functools.cached_property
    def feed_weight(self) -> float:
        """`FEED_WEIGHT`, scaled by the next player's weight as a rival in the match: a
        match is won on the totals, so a gain of the seat that leads this one counts more,
        one of a seat out of reach counts nothing."""
        v = self.s.v
        return FEED_WEIGHT * rivals(v)[(v.seat + 1) % len(v.totals)] / EVEN

    def behind(self) -> float:
        """How far this seat's total is above the best other's on the match's last hand
        (negative: it leads); inf before it, or where partners share a result."""
        v = self.s.v
        if hands_left(v) > 1 or (v.profile is not None and v.profile.partners):
            return float("inf")
        return v.totals[v.seat] - min(t for i, t in enumerate(v.totals) if i != v.seat)

    @functools.cached_property
    def loose_flat(self) -> float:
        """What a loose tile kept after opening costs beyond its value: `LOOSE_FLAT`, plus
        `CHASE_FLAT` on the match's last hand when this seat trails the best other total by
        `CHASE_GAP` or more (a rack left over cannot win the match then, a finish can)."""
        behind = self.behind()
        return LOOSE_FLAT + (CHASE_FLAT if 0 < CHASE_GAP <= behind < float("inf") else 0.0)

    def p_used(self, d: Tile, rack: Sequence[Tile], draws: float) -> float:
        """The chance `d` is melded by a draw still to come (one draw's outs, repeated)."""
        if draws <= 0:
            return 0.0
        s = self.s
        outs = 0
        for t in neighbours(s, d):
            n = self.k.live[t]
            if not n:
                continue
            close = neighbours(s, d)  # only the tiles that could sit with `d` matter
            after = [u for u in rack if u == d or u in close] + [t]
            melded = Counter(s.arrange(after).leftover)[d] < Counter(after)[d]
            if melded or (t != s.okey and self.opens_a_way(t, d)):
                outs += n
        miss: float = (1 - min(1.0, outs / self.k.unseen)) ** draws
        return 1 - miss

    def opens_a_way(self, t: Tile, d: Tile) -> bool:
        """Would laying `t` off on the table make `d` playable after it?"""
        s = self.s
        st, sd = s.stands(t), s.stands(d)
        for meld in s.table:
            if meld.kind != "run":
                continue
            for pos in M.lay_off_targets(st, meld, s.wraps):
                grown = M.extend(meld, (t, st), pos, s.wraps)
                if M.lay_off_targets(sd, grown, s.wraps):
                    return True
        return False


def _at_least(k: int, n: int, p: float) -> float:
    """The chance of at least `k` successes in `n` draws of chance `p` each."""
    p = min(1.0, max(0.0, p))
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return 1.0 - sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k))
