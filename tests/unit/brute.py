"""A slow, obviously-correct solver for small racks, to check the real one against."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

from okey101 import tiles
from okey101.tiles import FAKE, Tile


def _templates(wraps: bool) -> list[tuple[tuple[Tile, ...], int]]:
    """Every run and group shape as (tiles it needs, value)."""
    out = []
    top = 14 if wraps else 13
    for colour in range(4):
        for start in range(1, top + 1):
            for end in range(start + 2, top + 1):
                need = tuple(tiles.make(colour, 1 if p == 14 else p) for p in range(start, end + 1))
                value = sum(1 if p == 14 else p for p in range(start, end + 1))
                out.append((need, value))
    for number in range(1, 14):
        for size in (3, 4):
            for colours in combinations(range(4), size):
                out.append((tuple(tiles.make(c, number) for c in colours), number * size))
    return out


def best_opening(rack: Sequence[Tile], okey: Tile, wraps: bool) -> int:
    jokers = sum(1 for t in rack if t == okey)
    naturals = Counter(okey if t == FAKE else t for t in rack if t != okey)
    shapes = _templates(wraps)

    @lru_cache(maxsize=None)
    def search(counts: tuple[tuple[Tile, int], ...], jokers_left: int, first: int) -> int:
        have = dict(counts)
        best = 0
        for i in range(first, len(shapes)):
            need, value = shapes[i]
            want = Counter(need)
            missing = sum(max(0, n - have.get(t, 0)) for t, n in want.items())
            if missing > jokers_left or missing == len(need):
                continue
            rest = dict(have)
            for t, n in want.items():
                rest[t] = rest.get(t, 0) - min(n, have.get(t, 0))
            key = tuple(sorted((t, n) for t, n in rest.items() if n))
            best = max(best, value + search(key, jokers_left - missing, i))
        return best

    return search(tuple(sorted(naturals.items())), jokers, 0)
