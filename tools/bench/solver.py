"""Benchmark: the opening-value solve over seeded random 22-tile racks.

Racks are dealt from a shuffled 106-tile set with a random indicator, so about one rack in
28 holds both okeys. A warm-up on other seeded racks fills the per-position transition
cache first, as in a long-running service; the cold figure is printed too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from okey101 import solver, tiles


def deal_racks(count: int, seed: int) -> list[tuple[list[int], int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = tiles.full_set()
        rng.shuffle(deck)
        indicator = next(t for t in deck[22:] if t != tiles.FAKE)
        out.append((deck[:22], tiles.okey_for(indicator)))
    return out


def timed(racks: list[tuple[list[int], int]], wraps: bool) -> list[float]:
    out = []
    for rack, okey in racks:
        start = time.perf_counter()
        solver.opening(rack, okey, wraps)
        out.append((time.perf_counter() - start) * 1000)
    return out


def report(label: str, ms: list[float]) -> None:
    ms = sorted(ms)
    p50 = statistics.median(ms)
    p95 = ms[int(len(ms) * 0.95) - 1]
    print(f"{label:<34} n={len(ms)}  p50 {p50:.3f} ms  p95 {p95:.3f} ms  max {ms[-1]:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--racks", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=101)
    args = parser.parse_args()
    racks = deal_racks(args.racks, args.seed)
    both = sum(1 for rack, okey in racks if rack.count(okey) == 2)
    print(f"solver: {args.racks} racks of 22 tiles (seed {args.seed}), {both} hold both okeys")
    report("cold cache (first pass)", timed(racks, False))
    timed(deal_racks(2000, args.seed + 1), False)
    report("warm cache (12-13-1 invalid)", timed(racks, False))
    timed(deal_racks(2000, args.seed + 2), True)
    report("warm cache (12-13-1 valid)", timed(racks, True))


if __name__ == "__main__":
    main()
