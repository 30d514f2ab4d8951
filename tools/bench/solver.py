"""Benchmark: the opening-value solve over seeded random 22-tile racks, the compiled core
against the Python specification, in one run.

Racks are dealt from a shuffled 106-tile set with a random indicator, so about one rack in
28 holds both okeys. Three passes over the same racks, each call timed on its own, each
pass once through each core (`solver._solve_reference`, the Python; the solver's own
uncached path, `okey101_native.solve` and the Solution built from its answer, the native):

- cold: the first calls after the import, nothing solved before;
- warm, 12-13-1 invalid (okeygg, classic, okey-oyna), after 2,000 calls on other racks;
- warm, 12-13-1 valid (north-sultan), after 2,000 calls on yet other racks.

No pass goes through `_solve_sorted`'s lru_cache, so "warm" only means the interpreter,
allocator and CPU caches have run it before, as in a long-running service; a last line
times a cache hit (`solver.opening` on a rack solved before). Each line gives the
wall-clock time (what a caller waits; the targets are p95 <= 1 ms and max <= 10 ms) and
the CPU time of the calling thread, which leaves out the time the machine gave to other
work; each pair of lines ends with the Python/native ratio of p50, p95 and max (wall).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

from okey101 import native, solver, tiles
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


Solve = Callable[[tuple[int, ...], int, bool, int | None, bool], solver.Solution]


def cores() -> list[tuple[str, Solve]]:
    found: list[tuple[str, Solve]] = [("python", solver._solve_reference)]
    if native.solve is not None:
        found.append(("native", solver._solve_sorted.__wrapped__))  # type: ignore[attr-defined]
    return found


def timed(racks: list[tuple[list[int], int]], wraps: bool, solve: Solve
          ) -> tuple[list[float], list[float]]:
    """Wall-clock and thread CPU milliseconds of each solve."""
    wall, cpu = [], []
    clock, cpu_clock = time.perf_counter, time.thread_time
    for rack, okey in racks:
        start, start_cpu = clock(), cpu_clock()
        solve(tuple(sorted(rack)), okey, wraps, None, False)
        wall.append((clock() - start) * 1000)
        cpu.append((cpu_clock() - start_cpu) * 1000)
    return wall, cpu


def cache_hits(racks: list[tuple[list[int], int]]) -> tuple[list[float], list[float]]:
    for rack, okey in racks:
        solver.opening(rack, okey)
    wall, cpu = [], []
    clock, cpu_clock = time.perf_counter, time.thread_time
    for rack, okey in racks:
        start, start_cpu = clock(), cpu_clock()
        solver.opening(rack, okey)
        wall.append((clock() - start) * 1000)
        cpu.append((cpu_clock() - start_cpu) * 1000)
    return wall, cpu


def summary(ms: list[float]) -> str:
    return (f"p50 {percentile(ms, 0.5):.3f}  p95 {percentile(ms, 0.95):.3f}  "
            f"max {max(ms):.3f} ms")


def report(label: str, times: tuple[list[float], list[float]]) -> None:
    wall, cpu = times
    print(f"{label:<30} n={len(wall)}  wall {summary(wall)}   cpu {summary(cpu)}")


def ratio(label: str, python: list[float], compiled: list[float]) -> None:
    parts = []
    for name, q in (("p50", 0.5), ("p95", 0.95), ("max", 1.0)):
        parts.append(f"{name} {percentile(python, q) / percentile(compiled, q):.1f}x")
    print(f"{label:<30} python/native wall: {'  '.join(parts)}")


def compare(label: str, racks: list[tuple[list[int], int]], wraps: bool,
            warm_up: list[tuple[list[int], int]] | None) -> None:
    walls: dict[str, list[float]] = {}
    for name, solve in cores():
        if warm_up:
            timed(warm_up, wraps, solve)
        times = timed(racks, wraps, solve)
        report(f"{label} {name}", times)
        walls[name] = times[0]
    if "native" in walls:
        ratio(label, walls["python"], walls["native"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--racks", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=101)
    args = parser.parse_args()
    racks = deal_racks(args.racks, args.seed)
    both = sum(1 for rack, okey in racks if rack.count(okey) == 2)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    built = "built" if native.solve is not None else "NOT built: Python only"
    print(f"solver: {args.racks} racks of 22 tiles (seed {args.seed}), {both} hold both okeys;"
          f" {os.cpu_count()} CPUs, load average {load}; compiled core {built}")
    compare("cold", racks, False, None)
    compare("warm (12-13-1 invalid)", racks, False, deal_racks(2000, args.seed + 1))
    compare("warm (12-13-1 valid)", racks, True, deal_racks(2000, args.seed + 2))
    report("cache hit (solver.opening)", cache_hits(racks))


if __name__ == "__main__":
    main()
