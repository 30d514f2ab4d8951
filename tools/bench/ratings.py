"""Benchmark: how well each rating orders a population of bots of known strength (no Kafka).

Bots: `okey101.bots.bot(level)`, levels 0-3. A calibration (one bot of each level per
match, seats rotating) measures their order; on our runs it is L1 < L0 < L2 < L3 (mean place
3.10, 2.61, 2.45, 1.83 over 80 three-hand matches), so that is the CHAIN the population is
spread along.

Population: `--accounts` accounts, account i with strength s_i = 3 i / (n - 1) along the
chain: each MOVE it plays the chain level floor(s) or the next one, the next with
probability frac(s) (a per-move mix; a per-account choice would tie whole classes and cap
Kendall's tau below 1). So the true order is the order of s, with no ties.

Rounds: each round deals the accounts at random into tables of four and plays every table
one whole match (`play_match`, north-sultan rules, `--hands` hands); so after round k every
account has played k matches. The same results feed three ratings side by side:
- classic: the classic rating (start 1500, +N, +N/2, -N/2, -N), `okey101.standings`;
- SP: North Sultan's SP by place (24, 8, -8, -24), the repeated-pair rule off (it is about
  fairness, not skill);
- OpenSkill: `okey101.standings.skill`, the service's code: every hand one Plackett-Luce
  game of four ranked by the hand's scores, ordered by the ordinal mu - 3 sigma;
and, as a reference that is no rating, "hand mean": each account's mean hand score so far
(what the results alone say, with no model; with random tables the opponents even out).
Printed per seed: Kendall's tau-b between each order and the true order after 10, 25 and 50
matches (the checkpoints reached), and the favourite-wins rate: over the matches after the
10th round (half the rounds if fewer than 20), how often the account the rating ranked
highest at the table (a unique highest) took first place (parity 25%). Over `--seeds`
populations: the mean, standard deviation and range of each tau, the pooled favourite rate.

What limits tau here is the population, not the rating: 200 strengths spread evenly along
a chain whose levels differ little (L0 and L2 by 0.17 of a mean place), 3-hand matches. On
seed 1 the mean hand score of all 50 matches orders the accounts at tau 0.73, and OpenSkill
rated by hand reaches 0.70 (over seeds 1-3: 0.717 ± 0.022 and 0.688 ± 0.014; the classic
rating 0.666 ± 0.023): a goal of 0.9 needs far more hands per account than 50 three-hand
matches give, or strengths further apart.

Run: .venv/bin/python -m tools.bench.ratings [--accounts 200] [--rounds 50] [--hands 3]
     [--seed 1] [--seeds 3] [--jobs min(3, cores)] [--calibration 80]
Full size: about 8 minutes per seed on one core.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

import msgspec
from scipy.stats import kendalltau

from okey101.bots import Level3, bot
from okey101.simulate import Player, match_seeds, play_match
from okey101.standings import Board, MatchResult, Participant
from okey101.standings.house import HOUSE_RULES
from okey101.standings.skill import BETA, TAU
from okey101.table import messages as E
from okey101.table.views import PlayerView

CHAIN = (1, 0, 2, 3)  # weakest first, as the calibration measures it
CHECKPOINTS = (10, 25, 50)
SYSTEMS = ("classic", "SP", "OpenSkill", "hand mean")


def level_player(level: int) -> Player:
    return bot(level)


class Mixed:
    """Plays each move as chain level floor(s), or the next one with probability frac(s)."""

    def __init__(self, strength: float, rng: random.Random) -> None:
        low = min(int(strength), len(CHAIN) - 2)
        self.p = strength - low
        self.players = (self._fresh(CHAIN[low]), self._fresh(CHAIN[low + 1]))
        self.rng = rng

    @staticmethod
    def _fresh(level: int) -> Player:
        return Level3() if level == 3 else level_player(level)

    def __call__(self, view: PlayerView) -> E.Command:
        strong = self.rng.random() < self.p
        return self.players[1 if strong else 0](view)


def profile(hands: int) -> dict[str, object]:
    return {"base": "north-sultan", "options": {"hands_per_match": hands}}


def calibrate(matches: int, hands: int, seed: int) -> dict[int, float]:
    places: dict[int, list[int]] = {level: [] for level in CHAIN}
    for k, match_seed in enumerate(match_seeds(seed + 1000, matches)):
        levels = [CHAIN[(k + i) % 4] for i in range(4)]
        players: list[Player] = [Level3() if lv == 3 else level_player(lv) for lv in levels]
        ended = play_match(profile(hands), match_seed, players=players).events[-1]
        assert isinstance(ended, E.MatchEnded)
        for seat, level in enumerate(levels):
            places[level].append(ended.places[seat])
    return {level: statistics.fmean(p) for level, p in places.items()}


@dataclass
class Ratings:
    classic: Board = field(default_factory=lambda: Board({"classic": HOUSE_RULES["classic"]}))
    sp: Board = field(default_factory=lambda: Board({"north-sultan": msgspec.structs.replace(
        HOUSE_RULES["north-sultan"], repeat_limit=None)}))
    favourite: dict[str, list[bool]] = field(default_factory=lambda: {s: [] for s in SYSTEMS})
    hand_total: dict[str, int] = field(default_factory=dict)  # the reference, not a rating
    hand_count: dict[str, int] = field(default_factory=dict)

    def value(self, system: str, account: str) -> float:
        if system == "classic":
            s = self.classic.standing("classic", account)
            return float(s.points if s else 1500)
        if system == "SP":
            s = self.sp.standing("north-sultan", account)
            return float(s.points if s else 1000)
        if system == "hand mean":  # lower scores are better
            count = self.hand_count.get(account, 0)
            return -self.hand_total[account] / count if count else 0.0
        skill = self.classic.skills.get(account)
        return skill.ordinal if skill else 25.0 - 3 * 25.0 / 3

    def apply(self, table: str, at: int, accounts: list[str], ended: E.MatchEnded,
              hand_scores: list[list[int]], count_favourite: bool) -> None:
        if count_favourite:
            for system in SYSTEMS:
                values = [self.value(system, a) for a in accounts]
                best = max(values)
                if values.count(best) == 1:
                    self.favourite[system].append(ended.places[values.index(best)] == 1)
        people = [Participant(account=a, seat=s, role="played") for s, a in enumerate(accounts)]
        for seat, account in enumerate(accounts):
            self.hand_total[account] = (self.hand_total.get(account, 0)
                                        + sum(h[seat] for h in hand_scores))
            self.hand_count[account] = self.hand_count.get(account, 0) + len(hand_scores)
        for board, house in ((self.classic, "classic"), (self.sp, "north-sultan")):
            board.apply(MatchResult(table_id=table, house=house, ended_at=at,
                                    hands=len(hand_scores), partners=False,
                                    totals=list(ended.totals), places=list(ended.places),
                                    participants=people, hand_scores=hand_scores))


def tau(ratings: Ratings, system: str, strengths: dict[str, float]) -> float:
    accounts = sorted(strengths)
    statistic = kendalltau([strengths[a] for a in accounts],
                           [ratings.value(system, a) for a in accounts]).statistic
    return float(statistic)


class SeedRun(NamedTuple):
    seed: int
    lines: list[str]
    taus: dict[int, dict[str, float]]  # checkpoint -> system -> tau
    favourite: dict[str, list[bool]]
    matches: int
    seconds: float


def run_seed(args: argparse.Namespace, seed: int) -> SeedRun:
    """One population, `args.rounds` rounds, every rating fed the same matches."""
    started = time.perf_counter()
    rng = random.Random(seed)
    n = args.accounts
    strengths = {f"a{i:03d}": 3 * i / (n - 1) for i in range(n)}
    ratings = Ratings()
    warm = min(CHECKPOINTS[0], args.rounds // 2)
    at = 1_780_000_000_000
    played = 0
    lines = [f"seed {seed}:", f"{'matches':>7}  " + "  ".join(f"{s + ' tau':>13}"
                                                                for s in SYSTEMS)]
    taus: dict[int, dict[str, float]] = {}
    for round_no in range(1, args.rounds + 1):
        order = sorted(strengths)
        rng.shuffle(order)
        for t in range(n // 4):
            accounts = order[4 * t: 4 * t + 4]
            match_seed = rng.randbytes(32).hex()
            players: list[Player] = [Mixed(strengths[a], random.Random(f"{match_seed}{a}"))
                                     for a in accounts]
            events = play_match(profile(args.hands), match_seed, players=players).events
            ended = events[-1]
            assert isinstance(ended, E.MatchEnded)
            hand_scores = [list(e.scores) for e in events
                           if isinstance(e, E.HandEnded) and not e.replay]
            at += 60_000
            played += 1
            ratings.apply(f"r{round_no}-{t}", at, accounts, ended, hand_scores,
                          count_favourite=round_no > warm)
        if round_no in CHECKPOINTS or round_no == args.rounds:
            taus[round_no] = {s: tau(ratings, s, strengths) for s in SYSTEMS}
            lines.append(f"{round_no:>7}  " + "  ".join(f"{taus[round_no][s]:>13.3f}"
                                                        for s in SYSTEMS))
    lines.append("favourite wins (the table's unique highest-rated account takes first "
                 f"place), matches after round {warm}; parity 25%:")
    for system in SYSTEMS:
        wins = ratings.favourite[system]
        rate = 100 * sum(wins) / len(wins) if wins else float("nan")
        lines.append(f"  {system:<10} {rate:5.1f}% of {len(wins)} matches with a unique "
                     "favourite")
    took = time.perf_counter() - started
    lines.append(f"{played} matches in {took:.0f} s")
    return SeedRun(seed, lines, taus, ratings.favourite, played, took)


def spread(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.3f}"
    return (f"{statistics.fmean(values):.3f} ± {statistics.stdev(values):.3f} "
            f"[{min(values):.3f}-{max(values):.3f}]")


def run(args: argparse.Namespace, say: Callable[[str], None]) -> None:
    started = time.perf_counter()
    if args.calibration:
        measured = calibrate(args.calibration, args.hands, args.seed)
        order = " < ".join(f"L{lv} {measured[lv]:.2f}" for lv in
                           sorted(measured, key=lambda lv: -measured[lv]))
        say(f"calibration, mean place of each level over {args.calibration} matches "
            f"(weakest first): {order}; the chain used: {' < '.join(f'L{c}' for c in CHAIN)}")
    n = args.accounts
    seeds = list(range(args.seed, args.seed + args.seeds))
    say(f"{n} accounts, strengths spread along the chain, {args.rounds} rounds of "
        f"{n // 4} tables, {args.hands}-hand north-sultan matches; seeds "
        f"{', '.join(map(str, seeds))} ({args.jobs} at a time)")
    say("OpenSkill rates every hand (a Plackett-Luce game ranked by the hand's scores; "
        f"beta {BETA:g}, tau {TAU:.4g}); the order is the ordinal mu - 3 sigma. 'hand mean' "
        "is no rating: each account's mean hand score so far, the reference for what the "
        "results alone say")
    runs: list[SeedRun] = []
    with ProcessPoolExecutor(args.jobs) if args.jobs > 1 else nullcontext() as pool:
        done = (pool.map(partial(run_seed, args), seeds) if pool is not None
                else map(partial(run_seed, args), seeds))
        for one in done:
            runs.append(one)
            for line in one.lines:
                say(line)
    if len(runs) > 1:
        say(f"over {len(runs)} seeds: Kendall tau, mean ± standard deviation [min-max]")
        for checkpoint in sorted(runs[0].taus):
            say(f"{checkpoint:>7}  " + "  ".join(
                f"{s} {spread([r.taus[checkpoint][s] for r in runs])}" for s in SYSTEMS))
        say("favourite wins over every seed's matches after the warm-up:")
        for system in SYSTEMS:
            wins = [w for r in runs for w in r.favourite[system]]
            per_seed = [100 * sum(r.favourite[system]) / len(r.favourite[system])
                        for r in runs if r.favourite[system]]
            say(f"  {system:<10} {100 * sum(wins) / len(wins):5.1f}% of {len(wins)} "
                f"(per seed {min(per_seed):.1f}-{max(per_seed):.1f}%)")
    say(f"{sum(r.matches for r in runs)} matches in {time.perf_counter() - started:.0f} s")


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m tools.bench.ratings", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--accounts", type=int, default=200)
    p.add_argument("--rounds", type=int, default=50)
    p.add_argument("--hands", type=int, default=3)
    p.add_argument("--seed", type=int, default=1, help="the first seed")
    p.add_argument("--seeds", type=int, default=3, help="populations, seeds seed, seed+1, ...")
    p.add_argument("--jobs", type=int, default=min(3, os.cpu_count() or 1),
                   help="seeds run at once (processes)")
    p.add_argument("--calibration", type=int, default=80,
                   help="calibration matches (0: skip)")
    args = p.parse_args()
    if args.accounts < 8 or args.accounts % 4:
        p.error("--accounts: a multiple of 4, at least 8")
    if args.seeds < 1 or args.jobs < 1:
        p.error("--seeds and --jobs: at least 1")
    print("ratings benchmark (tools.bench.ratings)")
    run(args, lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
