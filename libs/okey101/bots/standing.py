"""The match standing, from the public totals: how much each opponent's score matters.

A match is won by the lowest total after the last hand. Modelling each seat's total at the
end as its total now plus a normal spread (`HAND_SD` a hand still to play, the hands
independent), the chance this seat wins is one integral over its own final total; how
much it moves when one opponent's total moves is that opponent's weight as a rival. The
weights are shares (they add up to 1): at an even start each opponent counts a third;
the leader counts more for a seat that trails it, a seat far behind counts nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from okey101.table.views import PlayerView
from okey101.terms import SEATS

HAND_SD = 100.0  # the spread of one seat's hand score (north-sultan, bots: about 100)
EVEN = 1.0 / (SEATS - 1)
_GRID = tuple(-4.0 + 8.0 * i / 48 for i in range(49))  # own final total, in spreads


def hands_left(v: PlayerView) -> int:
    """Hands still to score, the one being played included."""
    return max(1, v.hands_total - len(v.hand_scores))


def rival_weights(totals: Sequence[int], seat: int, left: int) -> list[float]:
    """Each seat's weight as this seat's rival (0 for itself); the weights add up to 1."""
    sd = HAND_SD * math.sqrt(left)
    others = [i for i in range(len(totals)) if i != seat]
    # d P(win) / d (opponent's total), up to a common factor: the density of the
    # opponent's total at this seat's, times the chance every other opponent is above
    slope = dict.fromkeys(others, 0.0)
    for x in _GRID:
        own = totals[seat] + x * sd
        above = {i: 0.5 * math.erfc((own - totals[i]) / (sd * math.sqrt(2))) for i in others}
        weight = math.exp(-x * x / 2)
        for i in others:
            rest = math.prod(above[j] for j in others if j != i)
            z = (own - totals[i]) / sd
            slope[i] += weight * math.exp(-z * z / 2) * rest
    total = sum(slope.values())
    if total <= 0:
        return [0.0 if i == seat else EVEN for i in range(len(totals))]
    return [0.0 if i == seat else slope[i] / total for i in range(len(totals))]


def rivals(v: PlayerView) -> list[float]:
    """The rival weights at this view (even where partners share a team's result)."""
    if v.profile is not None and v.profile.partners:
        return [0.0 if i == v.seat else EVEN for i in range(SEATS)]
    return rival_weights(v.totals, v.seat, hands_left(v))
