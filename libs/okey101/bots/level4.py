"""Level 4: a determinized Monte Carlo search over the moves level 3 weighs.

At a decision with a real choice (draw or take the previous discard; which tile to
discard), level 4 plays each candidate move forward to the end of the hand in sampled
worlds and keeps the one with the best expected hand score; everywhere else, and whenever
the search cannot tell the candidates apart, it plays level 3's move.

- **Worlds.** The hidden tiles are the 106 less what the seat's view shows (its rack, every
  discard pile, the melds on the table, the indicator). A world deals them out again at
  random: the other racks at their public sizes, the rest as the deck; the tiles this seat
  knows to sit in the next player's rack (its discards the next player took and has not
  shown: level 3's memory) are put there first. A world's own view for this seat is the
  seat's view itself (`world`, tested).
- **Candidates.** Level 3's move first (the reference), then: in the draw phase, where
  level 3 takes the previous discard, a draw (a take where level 3 draws is not weighed:
  in the playouts it lost by about 70 points a hand, 3 standard errors, and was never
  chosen); for a discard, level 3's own next best (`Level3Play.ranking`, its discards best
  first), `CANDIDATES` in all, less any tile the engine would penalise (without a ranking:
  the highest loose tile, the highest without a partner, the next). In düz, level 3's düz
  discards best first (`Level3.duz_ranking`: the loose tiles by the live draws they
  leave, then the rest). Only moves the view's `rules` allow are offered.
- **Playouts.** In each world every candidate is played on the pure engine
  (`decide_and_fold`), then the hand is played out by level 2 in every seat (each from its
  own view of the world, `player_view`) until `HandEnded`: in the compiled core where it
  is built (the same commands: tests/properties/test_native_whole_playout.py), else in
  Python. The score of a playout is the
  change of each seat's total: the hand's scores and every penalty the engine imposed
  (okeygg's feeding charge, RULES.md section 6), nothing weighed by hand.
- **Choice.** A playout's utility is this seat's change less its rivals', weighted by the
  match standing (`standing.rivals`); with partners, the team's change less the other
  team's. The candidates are compared paired by world (the same deal for each); one
  replaces level 3's move only when its mean advantage exceeds `Z` standard errors after at
  least `MIN_WORLDS` worlds, in `MIN_APART` of which it scored differently (the paired
  differences are mostly zero: two discards of junk lead to the same hand).
- **Why level 2 plays the playouts (measured 2026-12-05).** The playout policy decides
  whether the search pays. North-sultan, 400 hands against three level 3 at a 350 ms
  budget of the Python playouts, level 3 in the seat on the same deals as the reference:
  with level 0 in the playouts (the rule-follower: it throws the highest loose tile,
  near-melds included) 60 worlds a search gave -2.0 +/- 7.4 points of match win rate
  against level 3's; with level 2 (it cuts isolated tiles first), 37 worlds, +10.0 +/- 7.6.
- **What the worlds buy now (measured 2026-12-07).** A playout is native (`_native_rest`:
  `HandSim.play_out`, level 2 in the compiled core, about 30x the Python), so the 35 ms
  default searches 38.5 worlds (110 playouts) where it searched 3. The same north-sultan
  pairing gave +0.0 +/- 7.4 points of match wins at 35 ms, and +2.0 +/- 7.4 at 350 ms
  with 429 worlds a search (1,225 playouts, overruling level 3 in 30% of its searches):
  ten times the worlds bought no measurable strength. What limits level 4 is what a
  level-2 playout can tell about level 3's candidates (`tools.bench.search_signal`), not
  the CPU.
- **Budget.** At most `playouts` playouts a decision, and, with a `clock` (a callable the
  shell injects, e.g. `time.process_time`; the pure code reads none), no playout is started
  that could end past `budget` seconds (it may take as long as the longest yet): the search
  is anytime, it returns the best move found so far.
- **Seeded.** The worlds come from a `random.Random` seeded with a hash of the view and the
  bot's `seed`: the same view gives the same move (with a playout count as the budget).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence

import msgspec

from okey101 import tiles
from okey101.native_table import native_hand
from okey101.table import messages as E
from okey101.table.decide import decide_and_fold
from okey101.table.state import TableState
from okey101.table.viewrules import hand_of_view
from okey101.table.views import PlayerView, player_view
from okey101.terms import SEATS
from okey101.tiles import COPIES, KINDS, Tile

from . import plays
from .inference import Knowledge
from .level3 import Level3
from .levels import level2, partners, safe_choice
from .seat import BLANK, Seat
from .standing import rivals

Clock = Callable[[], float]
PLAYOUTS = 8  # most playouts a decision without a clock (about 3 ms of CPU natively);
# with one (the bots service), the clock stops it first: `services.bots` passes a cap of 200
BUDGET = 0.035  # seconds of the injected clock a decision (level 3's own move included;
# 40 left the CPU p99 at 50-54 ms here, its first playouts the longest)
CANDIDATES = 3  # discards weighed: level 3's own best three (`Level3Play.ranking`)
MIN_WORLDS = 4  # worlds before a candidate may replace level 3's move
MIN_APART = 2  # ... of which at least this many where it scored differently from it
Z = 1.0  # standard errors by which it must be better
PLAYOUT_CAP = 400  # commands a playout may take (a hand takes about 60)


class Level4:
    """The level-4 bot: callable on views; level 3's memory per seat, a search per move."""

    def __init__(self, playouts: int = PLAYOUTS, clock: Clock | None = None,
                 budget: float = BUDGET, seed: int = 0) -> None:
        if playouts < 0 or budget < 0:
            raise ValueError(f"playouts {playouts} and budget {budget} must be >= 0")
        self.playouts = playouts
        self.clock = clock
        self.budget = budget
        self.seed = seed
        self.level3 = Level3()
        self.search_draws = False  # weigh a take where level 3 draws
        self.longest = 0.0  # by the clock: about the longest playout of late
        self.searched = 0  # decisions searched
        self.overruled = 0  # ... where a candidate replaced level 3's move
        self.worlds = 0  # worlds sampled in them, all told
        self.playouts_run = 0  # playouts run in them, all told

    def forget(self, table_id: str) -> None:
        self.level3.forget(table_id)

    @property
    def remembered(self) -> int:
        return self.level3.remembered

    def __call__(self, v: PlayerView) -> E.Command:
        start = self.clock() if self.clock is not None else 0.0
        default, search = self.search_for(v)
        if search is None or self.playouts < 2:
            return default
        self.searched += 1
        best = search.run(self.playouts, self.clock, start, self.budget, self.longest)
        self.worlds += len(search.scores[0])
        self.playouts_run += search.playouts
        if search.playouts:  # a decision that ran none has learnt nothing of their length
            # the next decision's first playout may take as long as this one's longest
            self.longest = max(search.longest, 0.5 * self.longest)
        if best != 0:
            self.overruled += 1
        return search.candidates[best]

    def search_for(self, v: PlayerView) -> tuple[E.Command, Search | None]:
        """Level 3's move for `v`, and the search of its candidates (None: nothing to
        weigh)."""
        default = self.level3(v)
        s = Seat(v)
        last = self.level3.last
        ranking = self.level3.duz_ranking if s.p.game == "duz" else \
            last.ranking if last is not None else None
        candidates = self.candidates(s, default, ranking)
        if len(candidates) < 2:
            return default, None
        memory = self.level3._memory.get((v.table_id, v.seat))
        return default, Search(v, s, candidates, Knowledge(s, memory).hidden, self.seed)

    # ------------------------------------------------------------ candidates
    @staticmethod
    def may_take(s: Seat, top: Tile) -> bool:
        """Is taking `top` a move level 3 can carry through this turn (it plays the rest
        of the turn)? Unopened: only a take it can open with; opened: a free take, where
        the house does not want the tile laid this turn (okey-oyna)."""
        if s.opened is None:
            return plays.can_open_with(s, top, pairs=s.pairs_open_to_me())
        return s.opened == "points" and not s.p.opened_take_must_use and top != s.okey

    def candidates(self, s: Seat, default: E.Command,
                   ranking: Sequence[Tile] | None = None) -> list[E.Command]:
        """Level 3's move first, then the alternatives worth a search (none: no search).
        A discard's alternatives are level 3's next best (`ranking`, its discards best
        first, when given), else the highest loose tiles. A draw is not searched (a take
        instead lost by far in the playouts: ~70 points a hand, 3 standard errors)."""
        if s.drawing:
            if isinstance(default, E.TakeDiscard) and "draw" in s.allowed:
                return [default, E.Draw(**BLANK)]
            if self.search_draws and isinstance(default, E.Draw) and s.may_take() and \
                    s.top is not None and self.may_take(s, s.top):
                return [default, E.TakeDiscard(**BLANK)]
            return [default]
        if not isinstance(default, E.Discard) or "discard" not in s.allowed or \
                len(s.rack) < 3:
            return [default]
        chosen = tiles.parse(default.tile)
        if ranking is not None and ranking and ranking[0] == chosen:
            ranked = [t for t in ranking[1:] if t != s.owed and not s.penalised(t)]
            return [default, *(E.Discard(**BLANK, tile=tiles.name(t))
                               for t in ranked[:CANDIDATES - 1])]
        loose = list(s.arrange(s.rack).leftover)
        pool = sorted({t for t in safe_choice(s, loose) if not s.penalised(t)},
                      key=lambda t: (-s.value(t), t))
        if s.owed is not None:
            pool = [t for t in pool if t != s.owed]
        alone = [t for t in pool if not partners(s, t, s.rack)]
        picks: list[Tile] = [chosen]
        for t in (*pool[:1], *alone[:1], *pool):
            if len(picks) >= CANDIDATES:
                break
            if t not in picks:
                picks.append(t)
        return [default, *(E.Discard(**BLANK, tile=tiles.name(t)) for t in picks[1:])]


# ---------------------------------------------------------------- worlds
def hidden_tiles(s: Seat) -> Counter[Tile] | None:
    """The tiles this seat cannot see (106 less its rack, the piles, the table and the
    indicator), or None when the view shows more copies of a kind than exist."""
    seen: Counter[Tile] = Counter(s.rack)
    for seat in s.h.seats:
        seen.update(tiles.parse_many(seat.discards))
    for m in s.table:
        seen.update(t for t, _ in m.tiles)
    seen[s.indicator] += 1
    if any(n > COPIES for n in seen.values()):
        return None
    return Counter({t: COPIES - seen[t] for t in range(KINDS) if seen[t] < COPIES})


def world(v: PlayerView, s: Seat, rng: random.Random,
          pinned: Counter[Tile] | None = None) -> TableState | None:
    """A table state this seat's view is consistent with: the hidden tiles dealt at random
    into the other racks (at their sizes; `pinned` into the next player's first) and the
    deck. None when the view's counts do not add up (106 tiles)."""
    h = v.hand
    assert h is not None and v.profile is not None
    unseen = hidden_tiles(s)
    if unseen is None:
        return None
    others = [i for i in range(SEATS) if i != s.seat]
    if sum(unseen.values()) != sum(h.seats[i].rack_size for i in others) + h.deck_count:
        return None
    racks: dict[int, list[Tile]] = {i: [] for i in others}
    nxt = (s.seat + 1) % SEATS
    for t, n in sorted((pinned or Counter()).items()):
        for _ in range(min(n, unseen[t])):
            if len(racks[nxt]) < h.seats[nxt].rack_size:
                racks[nxt].append(t)
                unseen[t] -= 1
    pool = sorted(unseen.elements())
    rng.shuffle(pool)
    at = 0
    for i in others:
        need = h.seats[i].rack_size - len(racks[i])
        racks[i].extend(pool[at:at + need])
        at += need
    hand = hand_of_view(v, [tuple(s.rack) if i == s.seat else tuple(racks[i])
                            for i in range(SEATS)], tuple(pool[at:]))
    # hands_total: the match ends with this hand, so a playout deals no next hand
    return TableState(table_id=v.table_id or "world", seq=v.seq, profile=v.profile,
                      status="playing", players=tuple(p or f"seat{i}" for i, p in
                                                      enumerate(v.players)),
                      bots=tuple(v.bots), hands_total=h.number, match_seed="00" * 32,
                      turn=v.turn, hand=hand, private=v.private, owner=v.owner,
                      bots_requested=v.bots_requested,
                      hand_scores=tuple(tuple(x) for x in v.hand_scores),
                      penalties=tuple(v.penalties))


def playout(state: TableState, first: E.Command, cap: int = PLAYOUT_CAP) -> list[int] | None:
    """`first` for the seat to act in `state`, then level 2 in every seat (each from its
    own view of the world) until the hand ends: each seat's total change (the hand's
    scores and the penalties imposed), or None when the engine refuses `first`."""
    before = state.totals()
    seat = state.hand.to_act if state.hand is not None else 0
    state, decision = decide_and_fold(state, _envelope(first, state, seat))
    if isinstance(decision, E.Rejection):
        return None
    if not _ended(decision):
        rest = _native_rest(state, cap)
        if rest is not None:
            return [a + r - b for a, r, b in zip(state.totals(), rest, before, strict=True)]
    for _ in range(cap):
        if _ended(decision) or state.status != "playing" or state.hand is None:
            break
        seat = state.hand.to_act
        intent = level2(player_view(state, seat))
        state, decision = decide_and_fold(state, _envelope(intent, state, seat))
        if isinstance(decision, E.Rejection):  # as the table would: the turn times out
            state, decision = decide_and_fold(state, E.TimeOut(
                table_id=state.table_id, command_id="w", seat=seat, seq=state.seq,
                turn=state.turn))
            if isinstance(decision, E.Rejection):
                break
    after = state.totals()
    return [a - b for a, b in zip(after, before, strict=True)]


def _native_rest(state: TableState, cap: int) -> list[int] | None:
    """The rest of `playout` in the compiled core (`HandSim.play_out`: the same commands,
    checked by tests/properties/test_native_whole_playout.py): each seat's change of total
    from `state`; None where the core is not built or refuses (the Python plays it)."""
    if state.status != "playing" or state.hand is None:
        return None
    try:
        sim = native_hand(state)
        if sim is None:  # the core is not built
            return None
        _, _, penalties = sim.play_out(cap)
    except NotImplementedError:
        return None
    change = [p - b for p, b in zip(penalties, state.penalties, strict=True)]
    ended = sim.scores()
    if ended is not None and not ended[3]:  # a replayed hand's scores are not kept
        change = [c + s for c, s in zip(change, ended[2], strict=True)]
    return change


def _envelope(intent: E.Command, state: TableState, seat: int) -> E.Command:
    return msgspec.structs.replace(intent, table_id=state.table_id, command_id="w", seat=seat,
                                   player_id=state.players[seat], seq=state.seq)


def _ended(decision: list[E.Event] | E.Rejection) -> bool:
    return isinstance(decision, list) and any(isinstance(e, E.HandEnded) for e in decision)


def utility(change: Sequence[int], seat: int, weights: Sequence[float], teams: bool) -> float:
    """What a playout's total changes mean to `seat` (lower is better): its own less its
    rivals' by their weight; with partners, its team's less the other team's."""
    if teams:
        mate = (seat + 2) % SEATS
        return float(change[seat] + change[mate] - change[(seat + 1) % SEATS]
                     - change[(seat + 3) % SEATS])
    return change[seat] - sum(w * change[i] for i, w in enumerate(weights))


def view_seed(v: PlayerView, seed: int) -> int:
    """The search's seed: a hash of the whole view and the bot's own seed."""
    digest = hashlib.sha256(msgspec.json.encode(v) + b"|level4|" + str(seed).encode())
    return int.from_bytes(digest.digest()[:8], "big")


class Search:
    """One decision's search: worlds, a playout of every candidate in each."""

    def __init__(self, v: PlayerView, s: Seat, candidates: Sequence[E.Command],
                 pinned: Counter[Tile], seed: int) -> None:
        self.v, self.s = v, s
        self.candidates = list(candidates)
        self.pinned = pinned
        self.rng = random.Random(view_seed(v, seed))
        self.weights = rivals(v)
        self.teams = bool(v.profile is not None and v.profile.partners)
        self.scores: list[list[float]] = [[] for _ in self.candidates]  # by world
        self.longest = 0.0  # the longest playout of this search, by the clock
        self.playouts = 0

    def run(self, playouts: int, clock: Clock | None, start: float, budget: float,
            longest: float = 0.0) -> int:
        """The index of the chosen candidate (0: level 3's). `longest`: how long a playout
        may take, by the clock (the next may take as long as the longest yet)."""
        live = list(range(len(self.candidates)))
        self.longest = 0.0
        while self.playouts + len(live) <= playouts and len(live) > 1:
            w = world(self.v, self.s, self.rng, self.pinned)
            if w is None:
                return 0
            row: dict[int, float] = {}
            for k in live:
                if clock is not None:
                    now = clock()
                    if now - start + longest > budget:
                        return self.best()
                    change = playout(w, self.candidates[k])
                    self.longest = max(self.longest, clock() - now)
                    longest = max(longest, self.longest)
                else:
                    change = playout(w, self.candidates[k])
                self.playouts += 1
                if change is None:  # the engine refused it: not a candidate after all
                    if k == 0:
                        return 0
                    live.remove(k)
                    self.scores[k] = []
                    continue
                row[k] = utility(change, self.s.seat, self.weights, self.teams)
            for k in live:
                self.scores[k].append(row[k])
        return self.best()

    def best(self) -> int:
        """The candidate whose paired advantage over level 3's move is largest and beyond
        `Z` standard errors; else 0."""
        base = self.scores[0]
        best, best_mean = 0, 0.0
        for k in range(1, len(self.candidates)):
            n = min(len(self.scores[k]), len(base))
            if n < MIN_WORLDS:
                continue
            diffs = [self.scores[k][i] - base[i] for i in range(n)]
            if sum(1 for d in diffs if d) < MIN_APART:
                continue
            mean = sum(diffs) / n
            sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
            if mean < -Z * sd / math.sqrt(n) and mean < best_mean:
                best, best_mean = k, mean
        return best


__all__ = ["BUDGET", "PLAYOUTS", "Level4", "Search", "hidden_tiles", "playout", "utility",
           "view_seed", "world"]
