"""Benchmark: how far apart level 4's candidates are, and how many worlds it would take
to tell them apart (the signal its search looks for, against the noise of a playout).

Level 3 plays one seat against three level 3 (the moves level 4 would be asked about); at
each decision where level 4 has candidates (`Level4.candidates`: level 3's move first,
then its alternatives) the search runs `--worlds` worlds with no clock (every candidate
played out in each world, paired) and the seat then plays level 3's move. For each
alternative it keeps the paired difference (alternative less level 3's move, lower is
better for the seat) over the worlds: its mean and standard deviation, how many worlds a
difference of that size needs to stand 1.96 standard errors clear (`(1.96 sd / mean)^2`)
and whether it did over all the worlds run.

It prints:
- the CPU a playout costs (median and p90, ms) and so the worlds a 35 ms and a 50 ms
  decision buys with the candidates a search has;
- per kind of decision (the draw: a take against a draw; the discard), the median of |mean|
  and of sd, the median and p25 of the worlds needed, the share of alternatives a 50 ms
  budget could separate, and the share where one was separated over every world run,
  with the mean gain (points of the playout utility a decision) of picking it;
- the sum over the decisions of those gains divided by the hands played: what a search with
  unlimited CPU could gain a hand by this playout model (an upper bound for this design).

Run: .venv/bin/python -m tools.bench.search_signal [--house NAME] [--matches N]
     [--worlds W] [--seed S]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from dataclasses import dataclass, field

from okey101.bots import Level3, Level4
from okey101.simulate import Player, match_seeds, play_match
from okey101.table import messages as E
from okey101.table.views import PlayerView
from tools.bench.stats import percentile

Z95 = 1.959964


@dataclass
class Alternative:
    kind: str  # "draw" or "discard"
    diffs: list[float]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.diffs)

    @property
    def sd(self) -> float:
        return statistics.stdev(self.diffs) if len(self.diffs) > 1 else 0.0

    def worlds_needed(self) -> float:
        """Worlds for the mean to stand 1.96 standard errors clear (inf: never)."""
        if self.mean == 0:
            return math.inf
        return (Z95 * self.sd / self.mean) ** 2 if self.sd else 1.0

    def is_separated(self) -> bool:
        n = len(self.diffs)
        return n > 1 and abs(self.mean) > Z95 * self.sd / math.sqrt(n)


@dataclass
class Probe:
    """Level 3 in the seat, level 4's search run beside it at each decision."""

    worlds: int
    level4: Level4 = field(default_factory=lambda: Level4(playouts=0))
    alternatives: list[Alternative] = field(default_factory=list)
    playout_cpu: list[float] = field(default_factory=list)  # s a playout
    candidates: list[int] = field(default_factory=list)  # candidates a search

    def __call__(self, v: PlayerView) -> E.Command:
        default, search = self.level4.search_for(v)
        if search is None:
            return default
        cands = search.candidates
        start = time.thread_time()
        search.run(self.worlds * len(cands), None, 0.0, 0.0)
        if search.playouts:
            self.playout_cpu.append((time.thread_time() - start) / search.playouts)
        self.candidates.append(len(cands))
        kind = "draw" if search.s.drawing else "discard"
        base = search.scores[0]
        for k in range(1, len(cands)):
            n = min(len(base), len(search.scores[k]))
            if n > 1:
                self.alternatives.append(Alternative(
                    kind, [search.scores[k][i] - base[i] for i in range(n)]))
        return default


def summary(probe: Probe, hands: int) -> list[str]:
    cpu = sorted(probe.playout_cpu)
    per = statistics.median(cpu)
    cands = statistics.median(probe.candidates)
    lines = [f"  a playout: CPU p50 {per * 1e3:.2f} ms, p90 {percentile(cpu, 0.9) * 1e3:.2f} ms;"
             f" a search weighs {cands:.0f} candidates (median), so 35 ms buys "
             f"{0.035 / per / cands:.1f} worlds and 50 ms {0.050 / per / cands:.1f}"]
    affordable = 0.050 / per / cands
    gain_total = 0.0
    for kind in ("draw", "discard"):
        alts = [a for a in probe.alternatives if a.kind == kind]
        if not alts:
            continue
        needed = sorted(a.worlds_needed() for a in alts)
        separated = [a for a in alts if a.is_separated() and a.mean < 0]
        gain = -sum(a.mean for a in separated)
        gain_total += gain
        finite = [x for x in needed if math.isfinite(x)]
        lines.append(
            f"  {kind}: {len(alts)} alternatives; paired difference |mean| median "
            f"{statistics.median(abs(a.mean) for a in alts):.1f}, sd median "
            f"{statistics.median(a.sd for a in alts):.1f} points; worlds to separate: "
            f"median {statistics.median(needed):.0f}, p25 {percentile(needed, 0.25):.0f} "
            f"({len(finite)} of {len(alts)} ever); "
            f"{sum(1 for x in needed if x <= affordable) / len(alts):.1%} within 50 ms; "
            f"better than level 3's move by 1.96 SE over {probe.worlds} worlds: "
            f"{len(separated) / len(alts):.1%} (worse: "
            f"{sum(1 for a in alts if a.is_separated() and a.mean > 0) / len(alts):.1%}), "
            f"gaining {gain / max(1, len(separated)):.1f} points each")
    lines.append(f"  picking every separated better move: {gain_total / hands:.2f} points a "
                 f"hand of playout utility, over {hands} hands")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--house", default="north-sultan")
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--match-hands", type=int, default=4)
    ap.add_argument("--worlds", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    probe = Probe(worlds=args.worlds)
    hands = 0
    start = time.perf_counter()
    for k, seed in enumerate(match_seeds(args.seed, args.matches)):
        players: list[Player] = [Level3() for _ in range(4)]
        players[k % 4] = probe
        record = play_match({"base": args.house, "options": {
            "hands_per_match": args.match_hands}}, seed, players=players)
        hands += sum(1 for e in record.events if isinstance(e, E.HandEnded))
    print(f"level 4's search signal ({args.house}, {args.matches} matches, {hands} hands, "
          f"{args.worlds} worlds a search, seed {args.seed}, "
          f"{time.perf_counter() - start:.0f} s)")
    for line in summary(probe, hands):
        print(line)


if __name__ == "__main__":
    main()
