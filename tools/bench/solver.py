"""Benchmark: the opening-value solve over seeded random 22-tile racks.

Racks are dealt from a shuffled 106-tile set with a random indicator, so about one rack in
28 holds both okeys. Three passes over the same racks, each call timed on its own:

- cold: the first calls after the import, nothing solved before;
- warm, 12-13-1 invalid (okeygg, classic, okey-oyna), after 2,000 calls on other racks;
- warm, 12-13-1 valid (north-sultan), after 2,000 calls on yet other racks.

The solver keeps nothing between calls, so "warm" only means the interpreter, allocator and
CPU caches have run it before, as in a long-running service. Each line gives the wall-clock
time (what a caller waits; the targets are p95 <= 1 ms and max <= 10 ms) and the CPU time
of the calling thread, which leaves out the time the machine gave to other work.
"""

from __future__ import annotations

import argparse
import os
import random
import time

from okey101 import solver, tiles
from tools.bench.stats import percentile


def deal_racks(count: int, seed: int) -> list[tuple[list[int], int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = tiles.full_set()
        rng.shuffle(deck)
        indicator = next(t for t in deck[22:] if t != tiles.FAKE)
        out.append((deck[:22], tiles.okey_for(indicator)))
    return out


def timed(racks: list[tuple[list[int], int]], wraps: bool) -> tuple[list[float], list[float]]:
    """Wall-clock and thread CPU milliseconds of each solve."""
    wall, cpu = [], []
    clock, cpu_clock = time.perf_counter, time.thread_time
    for rack, okey in racks:
        start, start_cpu = clock(), cpu_clock()
        solver.opening(rack, okey, wraps)
        wall.append((clock() - start) * 1000)
        cpu.append((cpu_clock() - start_cpu) * 1000)
    return wall, cpu


def summary(ms: list[float]) -> str:
    return (f"p50 {percentile(ms, 0.5):.3f}  p95 {percentile(ms, 0.95):.3f}  "
            f"max {max(ms):.3f} ms")


def report(label: str, times: tuple[list[float], list[float]]) -> None:
    wall, cpu = times
    print(f"{label:<30} n={len(wall)}  wall {summary(wall)}   cpu {summary(cpu)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--racks", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=101)
    args = parser.parse_args()
    racks = deal_racks(args.racks, args.seed)
    both = sum(1 for rack, okey in racks if rack.count(okey) == 2)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"solver: {args.racks} racks of 22 tiles (seed {args.seed}), {both} hold both okeys;"
          f" {os.cpu_count()} CPUs, load average {load}")
    report("cold (first pass)", timed(racks, False))
    timed(deal_racks(2000, args.seed + 1), False)
    report("warm (12-13-1 invalid)", timed(racks, False))
    timed(deal_racks(2000, args.seed + 2), True)
    report("warm (12-13-1 valid)", timed(racks, True))


if __name__ == "__main__":
    main()
