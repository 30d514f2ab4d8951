"""Benchmark: the bot levels' strength, in process (no Kafka), seeded and reproducible.

Four pairings, each played over whole matches through the real engine (`play_match`):
- level 2 in one seat against three level 1;
- level 3 in one seat against three level 2;
- level 4 (the search) in one seat against three level 3, and against three level 2.
The strong bot's seat turns with the match (match k: seat k mod 4), so it meets every
starting order equally. Level 4 searches within `--l4-budget-ms` of its thread's CPU time
(`time.thread_time`, as the bots service gives it `time.process_time`) and at most
`--l4-playouts` playouts a decision: a CPU budget makes a run not exactly reproducible.
The level-4 pairings against level 3 are also played with level 3 in the strong seat on the
same match seeds (the same deals: `--paired`), so that the seat's advantage is measured
against the deals' own: the "paired" line is level 4's win rate less level 3's there.
For each pairing it prints:
- the mean hand score of each level, with a 95% confidence interval (lower is better;
  in-game penalties included, so the hand scores add up to the match totals). The weaker
  level's sample is the mean of its three seats in each hand;
- the strong bot's mean advantage per hand (weak mean minus strong, paired by hand);
- the strong bot's match win rate (win = lowest total, a shared first split evenly) with a
  95% Wilson interval; parity is 25%;
- the strong bot's penalty points a hand by reason (the weaker level's: a seat's mean), and
  its decision time per command: wall clock (which counts the waits of a shared machine)
  and the thread's CPU time (what the decision itself costs), p50, p99 and max.
For level 4 it also prints what its search did: the decisions searched, how many of them
overruled level 3's move, and the worlds and playouts a search (too few worlds, and the
search cannot tell its candidates apart: level 4 then plays level 3's move).
It also counts rejected commands (a bot must never send one) and capped matches.
Each process freezes what is alive after its imports out of the cyclic collector's reach
before it plays (the services' own `freeze_startup`), so that the decision times are the
service's: a full collection otherwise walks the whole startup heap inside some decision.

Defaults: 2000 hands per pairing in each of the four houses, 4-hand matches (okeygg: 7,
its minimum), seed 1, two worker processes: about 6 minutes on two cores.

Run: .venv/bin/python -m tools.bench.bots [--hands N] [--seed S] [--match-hands H]
     [--house NAME|all] [--workers W] [--pairing L2|L3|L4|L4v2|L4v3|all] [--partners]
     [--l4-budget-ms MS] [--l4-playouts N] [--paired]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from okey101.bots import Level4, bot
from okey101.profiles import house
from okey101.simulate import Player, match_seeds, play_match
from okey101.table import messages as E
from okey101.table.views import PlayerView
from services.common.memory import freeze_startup
from tools.bench.stats import percentile

HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna", "okey-oyna-duz")
PARTNER_HOUSES = ("okeygg", "classic", "okey-oyna-duz")  # partners_allowed
PAIRINGS: dict[str, tuple[int, int]] = {"L2 vs 3 x L1": (2, 1), "L3 vs 3 x L2": (3, 2),
                                        "L4 vs 3 x L3": (4, 3), "L4 vs 3 x L2": (4, 2)}
SHORT = {"L4 vs 3 x L3": "L4v3", "L4 vs 3 x L2": "L4v2"}
L4_BUDGET = 0.035  # s of CPU a decision (the bots service's default)
L4_PLAYOUTS = 200
Z95 = 1.959964


@dataclass
class MatchResult:
    hands: list[list[int]]  # per hand, per seat (penalties included)
    totals: list[int]
    rejections: int
    codes: dict[str, int]
    capped: bool
    strong_seat: int
    penalties: list[dict[str, int]] = field(default_factory=list)  # per seat, by reason
    latencies: list[float] = field(default_factory=list)  # the strong bot's decisions, s
    cpu: list[float] = field(default_factory=list)  # the same decisions' CPU time, s
    partners: bool = False
    search: tuple[int, int, int, int] = (0, 0, 0, 0)  # level 4's decisions searched,
    # overruled (a candidate replaced level 3's move), worlds and playouts in them

    def won(self) -> float:
        """The strong seat's share of the match win (its team's, with partners)."""
        seat, totals = self.strong_seat, self.totals
        if self.partners:
            mine, theirs = totals[seat] + totals[(seat + 2) % 4], \
                totals[(seat + 1) % 4] + totals[(seat + 3) % 4]
            return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        best = min(totals)
        firsts = [i for i in range(4) if totals[i] == best]
        return 1 / len(firsts) if seat in firsts else 0.0

    def margin(self) -> float:
        """The strong seat's total less the mean of the others' (lower is better)."""
        seat = self.strong_seat
        return self.totals[seat] - statistics.fmean(
            self.totals[i] for i in range(4) if i != seat)


Task = tuple[str, int, int, str, int, int, bool, float, int]


def make_bot(level: int, budget: float, playouts: int) -> Player:
    if level == 4:
        return Level4(playouts=playouts, clock=time.thread_time, budget=budget)
    return bot(level)


def play_one(task: Task) -> MatchResult:
    """One match of a pairing: (house, match hands, strong level, seed, seat, weak level,
    partners, level 4's budget, its playouts)."""
    name, hands, strong, seed, seat, weak, partners, budget, playouts = task
    players: list[Player] = [bot(weak) for _ in range(4)]
    strong_bot = make_bot(strong, budget, playouts)
    latencies: list[float] = []
    cpu: list[float] = []

    def timed(view: PlayerView) -> E.Command:
        start, start_cpu = time.perf_counter(), time.thread_time()
        command = strong_bot(view)
        cpu.append(time.thread_time() - start_cpu)
        latencies.append(time.perf_counter() - start)
        return command

    players[seat] = timed
    options: dict[str, object] = {"hands_per_match": hands}
    if partners:
        options["partners"] = True
    record = play_match({"base": name, "options": options}, seed, players=players)
    per_hand: list[list[int]] = []
    pending = [0, 0, 0, 0]  # penalties since the last scored hand (a void deal's too)
    by_reason: list[dict[str, int]] = [{} for _ in range(4)]
    for event in record.events:
        if isinstance(event, E.PenaltyImposed):
            pending[event.seat] += event.points
            reasons = by_reason[event.seat]
            reasons[event.reason] = reasons.get(event.reason, 0) + event.points
        elif isinstance(event, E.HandEnded) and not event.replay:
            per_hand.append([event.scores[i] + pending[i] for i in range(4)])
            pending = [0, 0, 0, 0]
    totals = record.final.totals()
    if per_hand:  # penalties after the last scored hand (none in practice) go to it
        for i in range(4):
            per_hand[-1][i] += pending[i]
    return MatchResult(hands=per_hand, totals=totals, rejections=record.rejections,
                       codes=record.rejection_codes, capped=record.capped, strong_seat=seat,
                       penalties=by_reason, latencies=latencies,
                       cpu=cpu, partners=partners,
                       search=(strong_bot.searched, strong_bot.overruled, strong_bot.worlds,
                               strong_bot.playouts_run) if isinstance(strong_bot, Level4)
                       else (0, 0, 0, 0))


@dataclass
class PairingResult:
    name: str
    house: str
    match_hands: int
    matches: list[MatchResult] = field(default_factory=list)
    seconds: float = 0.0
    partners: bool = False
    baseline: list[MatchResult] = field(default_factory=list)  # the weak level in the
    # strong seat on the same seeds (`--paired`)


def mean_ci(xs: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (normal approximation)."""
    m = statistics.fmean(xs)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return m, half


def wilson(wins: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (fractional wins allowed)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return centre - half, centre + half


def report(r: PairingResult) -> list[str]:
    strong_level, weak_level = PAIRINGS[r.name]
    strong: list[float] = []
    weak: list[float] = []
    diff: list[float] = []
    wins = 0.0
    for m in r.matches:
        seat = m.strong_seat
        for h in m.hands:
            others = [h[i] for i in range(4) if i != seat]
            strong.append(h[seat])
            weak.append(statistics.fmean(others))
            diff.append(weak[-1] - strong[-1])
        wins += m.won()
    n = len(r.matches)
    sm, sh = mean_ci(strong)
    wm, wh = mean_ci(weak)
    dm, dh = mean_ci(diff)
    lo, hi = wilson(wins, n)
    rejections = sum(m.rejections for m in r.matches)
    codes: Counter[str] = Counter()
    for m in r.matches:
        codes.update(m.codes)
    capped = sum(m.capped for m in r.matches)
    strong_pen: Counter[str] = Counter()
    weak_pen: Counter[str] = Counter()
    for m in r.matches:
        for i, reasons in enumerate(m.penalties):
            (strong_pen if i == m.strong_seat else weak_pen).update(reasons)
    hands = max(1, len(strong))
    pen_line = "  penalty points a hand, by reason: " + (", ".join(
        f"{reason} L{strong_level} {strong_pen[reason] / hands:.1f} "
        f"L{weak_level} {weak_pen[reason] / hands / 3:.1f}"
        for reason in sorted(set(strong_pen) | set(weak_pen))) or "none")
    def pct(times: list[float], q: float) -> float:  # seconds in, ms out
        return percentile(times, q) * 1000

    wall = [t for m in r.matches for t in m.latencies]
    cpu = [t for m in r.matches for t in m.cpu]
    lat_line = (f"  level {strong_level} decision ({len(wall)}): wall p50 {pct(wall, 0.5):.2f} ms, "
                f"p99 {pct(wall, 0.99):.2f} ms, max {pct(wall, 1.0):.1f} ms; "
                f"CPU p50 {pct(cpu, 0.5):.2f} ms, p99 {pct(cpu, 0.99):.2f} ms, "
                f"max {pct(cpu, 1.0):.1f} ms")
    searched, overruled, worlds, playouts = (sum(m.search[i] for m in r.matches)
                                             for i in range(4))
    parity = "50% (teams)" if r.partners else "25%"
    lines = [
        f"{r.name}  ({r.house}{' partners' if r.partners else ''}, {n} matches of "
        f"{r.match_hands} hands = {len(strong)} hands, {r.seconds:.0f} s)",
        f"  mean hand score  level {strong_level}: {sm:7.1f} +/- {sh:5.1f}   "
        f"level {weak_level}: {wm:7.1f} +/- {wh:5.1f}   (lower is better)",
        f"  level {strong_level} better by {dm:6.1f} +/- {dh:5.1f} points a hand",
        f"  level {strong_level} match wins: {wins:.1f} / {n} = {wins / n:6.1%}  "
        f"(95% CI {lo:.1%} - {hi:.1%}; parity {parity})",
        f"  rejected commands: {rejections}"
        + (f" {dict(codes)}" if codes else "") + f"; capped matches: {capped}",
        pen_line,
        lat_line,
    ]
    if searched:
        lines.append(f"  level 4 search: {searched} decisions searched, {overruled} overruled "
                     f"level 3's move ({overruled / searched:.1%}); a search "
                     f"{worlds / searched:.1f} worlds, {playouts / searched:.1f} playouts")
    if r.baseline:
        pairs = list(zip(r.matches, r.baseline, strict=True))
        base = sum(b.won() for b in r.baseline)
        blo, bhi = wilson(base, len(r.baseline))
        gm, gh = mean_ci([m.won() - b.won() for m, b in pairs])
        mm, mh = mean_ci([m.margin() - b.margin() for m, b in pairs])
        lines += [
            f"  paired (the same deals, level {weak_level} in the seat): level {weak_level} "
            f"wins {base / len(r.baseline):.1%} (95% CI {blo:.1%} - {bhi:.1%}); level "
            f"{strong_level} less level {weak_level}: {gm:+.1%} +/- {gh:.1%} match wins, "
            f"{mm:+.1f} +/- {mh:.1f} points of match margin (seat less the others' mean)"]
    return lines


def run(houses: Sequence[str], hands: int, seed: int, match_hands: int, workers: int,
        out: Callable[[str], None] = print, pairings: Sequence[str] = tuple(PAIRINGS),
        partners: bool = False, budget: float = L4_BUDGET, playouts: int = L4_PLAYOUTS,
        paired: bool = False) -> list[PairingResult]:
    results: list[PairingResult] = []
    pool = ProcessPoolExecutor(workers, initializer=freeze_startup) if workers > 1 else None
    if pool is None:
        freeze_startup()
    try:
        for k, name in enumerate(houses):
            lo, hi = house(name).hands_range
            length = min(max(match_hands, lo), hi)
            matches = math.ceil(hands / length)
            for j, (pairing, (strong, weak)) in enumerate(PAIRINGS.items()):
                if pairing not in pairings:
                    continue
                seeds = match_seeds(seed * 1000 + k * 10 + j, matches)
                tasks: list[Task] = [(name, length, strong, s, i % 4, weak, partners, budget,
                                      playouts) for i, s in enumerate(seeds)]
                start = time.perf_counter()
                played = list(pool.map(play_one, tasks, chunksize=4)) if pool else \
                    [play_one(t) for t in tasks]
                baseline: list[MatchResult] = []
                if paired and strong == 4:
                    same = [(*t[:2], weak, *t[3:]) for t in tasks]
                    baseline = list(pool.map(play_one, same, chunksize=4)) if pool else \
                        [play_one(t) for t in same]
                result = PairingResult(pairing, name, length, played,
                                       time.perf_counter() - start, partners, baseline)
                results.append(result)
                for line in report(result):
                    out(line)
                out("")
    finally:
        if pool is not None:
            pool.shutdown()
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2000,
                        help="hands per pairing and house (2000)")
    parser.add_argument("--seed", type=int, default=1, help="the benchmark seed (1)")
    parser.add_argument("--match-hands", type=int, default=4,
                        help="hands per match (4; okeygg's minimum is 7)")
    parser.add_argument("--house", default="all",
                        help=f"one of {', '.join(HOUSES)}, or all (all)")
    parser.add_argument("--workers", type=int, default=2, help="processes (2)")
    parser.add_argument("--pairing", choices=("all", "L2", "L3", "L4", "L4v3", "L4v2"),
                        default="all",
                        help="L2 (level 2 vs 3 x level 1), L3 (level 3 vs 3 x level 2), "
                             "L4v3, L4v2 (level 4 vs 3 x level 3, 2), L4 (both) or all (all)")
    parser.add_argument("--partners", action="store_true",
                        help="partners (eşli) play, in the houses that have it")
    parser.add_argument("--l4-budget-ms", type=float, default=L4_BUDGET * 1000,
                        help=f"level 4's CPU time a decision ({L4_BUDGET * 1000:.0f})")
    parser.add_argument("--l4-playouts", type=int, default=L4_PLAYOUTS,
                        help=f"level 4's most playouts a decision ({L4_PLAYOUTS})")
    parser.add_argument("--paired", action="store_true",
                        help="also play level 3 in level 4's seat on the same seeds")
    args = parser.parse_args(argv)
    houses: tuple[str, ...] = HOUSES if args.house == "all" else (args.house,)
    if args.partners:
        houses = tuple(h for h in houses if h in PARTNER_HOUSES)
    pairings = tuple(p for p in PAIRINGS if args.pairing == "all" or
                     SHORT.get(p, p).startswith(args.pairing))
    start = time.perf_counter()
    print(f"bot strength: {args.hands} hands per pairing, seed {args.seed}, "
          f"{args.workers} worker(s)" + (", partners" if args.partners else "")
          + (f"; level 4: {args.l4_budget_ms:g} ms CPU, {args.l4_playouts} playouts"
             if any(PAIRINGS[p][0] == 4 for p in pairings) else "") + "\n", flush=True)
    run(houses, args.hands, args.seed, args.match_hands, args.workers,
        out=lambda line: print(line, flush=True), pairings=pairings,
        partners=args.partners, budget=args.l4_budget_ms / 1000, playouts=args.l4_playouts,
        paired=args.paired)
    print(f"elapsed: {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
