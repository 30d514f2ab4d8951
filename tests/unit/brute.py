"""A slow, obviously-correct solver for small racks, to check the real one against.

Every run and group shape is listed; a search tries every multiset of shapes that the rack
(with its okeys filling the gaps, or standing for tiles it holds) can hold. No dynamic
programming, no pruning beyond "the shape must fit in what is left".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
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


def _best(rack: Sequence[Tile], okey: Tile, wraps: bool,
          gain: Callable[[int, int, int], int], by_size: bool = False) -> int:
    """The most `gain(shape value, value the okeys stand for, okeys used)` summed over
    disjoint shapes the rack can hold (`by_size`: a shape's value is its tile count)."""
    jokers = sum(1 for t in rack if t == okey)
    naturals = Counter(okey if t == FAKE else t for t in rack if t != okey)
    shapes = _templates(wraps)
    if by_size:
        shapes = [(need, len(need)) for need, _ in shapes]

    @cache
    def search(counts: tuple[tuple[Tile, int], ...], jokers_left: int, first: int) -> int:
        have = dict(counts)
        best = 0
        for i in range(first, len(shapes)):
            need, value = shapes[i]
            want = Counter(need)
            short = {t: n - have.get(t, 0) for t, n in want.items() if n > have.get(t, 0)}
            missing = sum(short.values())
            if missing > jokers_left or missing == len(need):
                continue
            held = [t for t, n in want.items() for _ in range(min(n, have.get(t, 0)))]
            # an okey may also stand for a tile the rack holds, which then stays out
            for extra in range(jokers_left - missing + 1):
                if missing + extra >= len(need):
                    break
                for kept_out in set(combinations(sorted(held), extra)):
                    rest = dict(have)
                    for t in held:
                        rest[t] -= 1
                    for t in kept_out:
                        rest[t] += 1
                    key = tuple(sorted((t, n) for t, n in rest.items() if n))
                    stood_for = sum(tiles.number_of(t) * n for t, n in short.items()) + \
                        sum(tiles.number_of(t) for t in kept_out)
                    best = max(best, gain(value, stood_for, missing + extra)
                               + search(key, jokers_left - missing - extra, i))
        return best

    return search(tuple(sorted(naturals.items())), jokers, 0)


def best_opening(rack: Sequence[Tile], okey: Tile, wraps: bool) -> int:
    """The largest opening value: an okey counts as the tile it stands for."""
    return _best(rack, okey, wraps, lambda value, _stood_for, _used: value)


def best_third(rack: Sequence[Tile], okey: Tile, wraps: bool) -> int:
    """The "34" count: the most floor(shape value / 3) summed over disjoint shapes."""
    return _best(rack, okey, wraps, lambda value, _stood_for, _used: value // 3)


def fewest_left(rack: Sequence[Tile], okey: Tile, wraps: bool) -> int:
    """The fewest tiles left out of disjoint runs and groups (düz)."""
    return len(rack) - _best(rack, okey, wraps, lambda size, _s, _u: size, by_size=True)


def least_leftover(rack: Sequence[Tile], okey: Tile, wraps: bool, okey_value: int = 101) -> int:
    """The least value left in the rack after laying runs and groups, an okey left counting
    `okey_value` and a fake okey the okey's number."""
    total = sum(okey_value if t == okey else tiles.face_value(t, okey) for t in rack)
    melded = _best(rack, okey, wraps,
                   lambda value, stood_for, used: value - stood_for + okey_value * used)
    return total - melded


def most_pairs(rack: Sequence[Tile], okey: Tile) -> int:
    """The most disjoint pairs: two identical tiles (a fake okey is the okey's tile), or an
    okey with any tile. Tries every way to pick the first tile's partner."""

    @cache
    def search(left: tuple[Tile, ...]) -> int:
        if len(left) < 2:
            return 0
        first, rest = left[0], left[1:]
        best = search(rest)  # the first tile stays single
        for i, other in enumerate(rest):
            a = okey if first == FAKE else first
            b = okey if other == FAKE else other
            if a == b or first == okey or other == okey:
                best = max(best, 1 + search(rest[:i] + rest[i + 1:]))
        return best

    return search(tuple(sorted(rack)))
