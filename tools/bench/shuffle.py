"""Benchmark: is the shuffle uniform? Chi-square over tile-by-position counts.

    python -m tools.bench.shuffle [--deals 1000000] [--workers 2] [--seed 1]

Shuffles `--deals` hand seeds with the engine's own `okey101.table.deal.shuffled` (the
seeds derived as the server derives them, `hand_seed(M, n, 0)` from a match seed `M` per
worker) and counts, for each of the 106 positions of the shuffled order, how often each of
the 53 tile kinds (R1 ... K13, F; two copies of each) lands there. Uniform: each kind at
each position 2/106 of the deals. Prints the chi-square statistic of the 106 x 53 table
(every row sums to the deals, every column to twice the deals: (106-1) x (53-1) = 5460
degrees of freedom), its p-value, the largest standardised deviation of one cell, and the
same test for the first tile alone (the starter's first tile, 52 degrees of freedom).
"""

from __future__ import annotations

import argparse
import hashlib
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy import stats

from okey101.table import deal as D
from okey101.tiles import FAKE

POSITIONS = 106
KINDS = FAKE + 1  # 52 numbered kinds and the fake okey


def count(job: tuple[int, int, int]) -> np.ndarray:
    """Counts[position, kind] over `deals` shuffles of worker `worker`'s seeds."""
    worker, deals, seed = job
    match_seed = hashlib.sha256(f"shuffle-bench:{seed}:{worker}".encode()).digest()
    counts = np.zeros(POSITIONS * KINDS, dtype=np.int64)
    batch = 20_000
    index = np.arange(POSITIONS, dtype=np.int64) * KINDS
    for start in range(0, deals, batch):
        n = min(batch, deals - start)
        orders = np.empty((n, POSITIONS), dtype=np.int64)
        for i in range(n):
            orders[i] = D.shuffled(D.hand_seed(match_seed, start + i + 1, 0))
        counts += np.bincount((orders + index).ravel(), minlength=POSITIONS * KINDS)
    return counts.reshape(POSITIONS, KINDS)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=1_000_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    started = time.perf_counter()
    share = [args.deals // args.workers + (1 if w < args.deals % args.workers else 0)
             for w in range(args.workers)]
    with ProcessPoolExecutor(args.workers) as pool:
        counts = sum(pool.map(count, [(w, n, args.seed) for w, n in enumerate(share)]))
    assert isinstance(counts, np.ndarray)
    seconds = time.perf_counter() - started
    deals = int(counts[0].sum())
    expected = deals * 2 / POSITIONS
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    dof = (POSITIONS - 1) * (KINDS - 1)
    p_value = float(stats.chi2.sf(chi2, dof))
    worst = float(np.abs((counts - expected) / np.sqrt(expected)).max())
    first = counts[0]
    chi2_first = float(((first - expected) ** 2 / expected).sum())
    p_first = float(stats.chi2.sf(chi2_first, KINDS - 1))
    print(f"shuffle uniformity: {deals:,} deals (okey101.table.deal.shuffled), "
          f"{seconds:.0f} s ({deals / seconds:,.0f} deals/s, {args.workers} workers)")
    print(f"tile-by-position counts, {POSITIONS} positions x {KINDS} kinds, expected "
          f"{expected:,.1f} per cell")
    print(f"chi-square {chi2:,.1f} with {dof} degrees of freedom (chi2/dof "
          f"{chi2 / dof:.4f}): p-value {p_value:.4f}")
    print(f"largest standardised cell deviation {worst:.2f} (of {POSITIONS * KINDS} cells)")
    print(f"first position alone: chi-square {chi2_first:.1f} with {KINDS - 1} degrees of "
          f"freedom: p-value {p_first:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
