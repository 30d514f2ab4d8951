"""Exact rack solving: opening value, most pairs, least leftover.

The opening value is found by dynamic programming over run positions 1..13 (14 where
12-13-1 is allowed). Every tile melded at position p is worth p (a joker counts as the
tile it stands for, position 14 counts 1), so the value is a sum over positions of p times
the tiles melded there. The state between positions is, per colour, the lengths of the
open runs (capped at 3: a run of 3+ may stop) and the jokers left. Runs cross positions;
groups live at one position. Each position is folded colour by colour (runs), then once
more for groups, so each small step has few choices and equal partial states merge.

Where 12-13-1 is allowed, position 1 offers its 1s to runs only; the 1s left stay in the
state, for runs that reach 14 and then for groups of 1s, formed after 14. One pass serves
every way of sharing a colour's 1s between the two ends of its runs.

Exactness: besides merging equal states, the search only drops what cannot be better.
- A tile no run or group could ever hold is left out up front (`_meldable`).
- A state whose open runs cannot all reach length 3 with the tiles ahead and the jokers
  left is dropped; so is one whose twin with more jokers left is worth as much.
- A run never stops where another of its colour starts (one run through both is the same),
  nor, where no group can form, while a natural that could extend it stays idle.
- A joker never starts a run that cannot go on to 13 (moved to the run's far end it is
  worth more, and as much in `arrange`), never joins a run while a natural of the same
  tile stays out of the runs (swap them: the natural takes the joker's place, the joker
  the natural's group or place after 13, or if the natural was idle, an end of the run,
  or of one of two runs the run splits into), and forms a group with one natural and the
  other joker only at 12 and 13 (below, X-J-J as X, X+1, X+2 is worth more).
  Each of these moves melds more naturals, or as many and moves jokers up, or out of
  runs, never losing value, so repeating them ends: some best solution obeys them all.

A state is one int (see "Key layout"); inside a position each entry carries its value and
the state it came from packed in one int, so the inner loops only add and compare.
Back-pointers are kept per position; the moves inside a position are found again at the
end by re-running that position from the one state the best path came through.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from itertools import combinations, product

import msgspec

from okey101 import native, tiles
from okey101.errors import MalformedInput
from okey101.melds import Meld, Placed, counted_value, melds_with
from okey101.terms import MeldCount
from okey101.tiles import FAKE, Tile

# Colour state: the lengths of up to four open runs, sorted, each capped at 3. Four, not
# two: with both jokers, one colour can hold four runs over one position (9-10-11 twice
# and J-12-13 twice beats two 9-13 runs when 13 is the top and jokers can only go low).
SLOTS = 4
SOLVE_CACHE = 1 << 15  # solutions kept, by rack (a few hundred bytes each)
_LENGTHS: list[tuple[int, ...]] = sorted(
    {tuple(sorted(c)) for c in product(range(4), repeat=SLOTS)})
_INDEX = {s: i for i, s in enumerate(_LENGTHS)}
_BASE = len(_LENGTHS)  # 35
_CLOSED = [all(n in (0, 3) for n in s) for s in _LENGTHS] + [False] * (64 - _BASE)
_ACTIONS = ("-", "N", "J")  # nothing (the run stops), a natural tile, a joker
Acts = tuple[str, ...]
Order = tuple[int, ...]
Move = tuple[int, Acts, Order]  # next state, action per old slot, new slot order

# Key layout: one int per state, in bit fields.
#   bits 0-7    naturals each colour keeps for groups at this position (2 bits a colour)
#   bits 8-15   1s kept for runs reaching 14 and groups of 1s (2 bits a colour)
#   bits 16-17  jokers left
#   bits 18-19  jokers set aside inside a position for runs that will need them
#   bits 20-43  the colour states (6 bits a colour)
# Inside a position an entry is (value << _VALUE) | the key of the state it came from.
_CARRY_AT = 8
_JOKER_AT = 16
_JOKER = 1 << _JOKER_AT
_ASIDE_AT = 18
_STATE_AT = 20
_STATE = tuple(1 << (_STATE_AT + 6 * c) for c in range(4))
_VALUE = 44
_ORIGIN = (1 << _VALUE) - 1


def _joker_starts(lengths: tuple[int, ...], acts: Acts) -> bool:
    """Does a joker start a new run?"""
    return any(a == "J" and n == 0 for n, a in zip(lengths, acts, strict=True))


def _stops(lengths: tuple[int, ...], acts: Acts) -> bool:
    """Does a run stop?"""
    return any(a == "-" and n == 3 for n, a in zip(lengths, acts, strict=True))


def _starts(lengths: tuple[int, ...], acts: Acts) -> bool:
    """Does a new run start?"""
    return any(a != "-" and n == 0 for n, a in zip(lengths, acts, strict=True))


def _colour_moves() -> dict[tuple[int, int, int], list[Move]]:
    """(state, naturals, jokers) into runs -> [(next state, action per old slot, order)],
    one move per next state: one that starts no run with a joker where there is one."""
    table: dict[tuple[int, int, int], list[Move]] = {}
    for si, lengths in enumerate(_LENGTHS):
        for acts in product(_ACTIONS, repeat=SLOTS):
            if acts.count("N") > 2 or acts.count("J") > 2:
                continue
            if _stops(lengths, acts) and _starts(lengths, acts):
                continue  # a run stops where another starts: one run through both is as good
            new = []
            for length, act in zip(lengths, acts, strict=True):
                if act == "-":
                    if length not in (0, 3):
                        break
                    new.append(0)
                else:
                    new.append(min(length + 1, 3))
            else:
                order = tuple(sorted(range(SLOTS), key=lambda i: new[i]))
                nxt = _INDEX[tuple(new[i] for i in order)]
                moves = table.setdefault((si, acts.count("N"), acts.count("J")), [])
                for i, (to, old, _) in enumerate(moves):
                    if to == nxt:
                        if _joker_starts(lengths, old) and not _joker_starts(lengths, acts):
                            moves[i] = (nxt, acts, order)
                        break
                else:
                    moves.append((nxt, acts, order))
    return table


_MOVES = _colour_moves()
# tiles a colour state still needs at the next position and the one after
_NEEDS = [(sum(1 for n in s if n in (1, 2)), sum(1 for n in s if n == 1)) for s in _LENGTHS]
# [state][tiles next * 4 + tiles after] -> how many tiles short (jokers must fill them);
# 3 tiles stands for a position past the last, where not even a joker can go
_PAST = 3
_SHORT = [[(99 if n1 and a1 == _PAST else max(0, n1 - a1))
           + (99 if n2 and a2 == _PAST else max(0, n2 - a2))
           for a1 in range(4) for a2 in range(4)] for n1, n2 in _NEEDS]

Step = tuple[int, int]  # key change, naturals melded * 3 + jokers melded


def _fast_table() -> list[list[list[list[list[list[tuple[Step, ...]]]]]]]:
    """[colour][keeps naturals][joker may start a run][naturals here][short index]
    [state * 4 + jokers left] -> steps.

    Only steps after which the colour's open runs can still be fed (by the tiles at the
    next two positions and the jokers left) are listed: a necessary condition, so exact.
    The jokers they will need are set aside (bits 18-19) for the rest of the position, so
    the colours after this one see only what is really left. A joker never joins a run
    while a natural of the same tile stays out of the runs; where the flag says so, no
    joker starts a run.
    """
    base: dict[tuple[bool, bool, int, int, int], list[tuple[int, int, int, int]]] = {}
    for track in (False, True):
        for js in (False, True):
            for s in range(_BASE):
                for n in range(3):
                    for jokers in range(3):
                        found = base[track, js, s, n, jokers] = []
                        for r in range(n + 1):
                            for u in range(jokers + 1):
                                if u and r < n:
                                    continue
                                for nxt, acts, _ in _MOVES.get((s, r, u), ()):
                                    if not js and _joker_starts(_LENGTHS[s], acts):
                                        continue
                                    if r < n and not track and _stops(_LENGTHS[s], acts):
                                        continue  # go on with the idle natural instead
                                    found.append((nxt, n - r if track else 0, r, u))
    out: list[list[list[list[list[list[tuple[Step, ...]]]]]]] = []
    shared: dict[tuple[Step, ...], tuple[Step, ...]] = {}  # one copy of each equal row
    for colour in range(4):
        at = _STATE_AT + 6 * colour
        by_track = []
        for track in (False, True):
            by_js = []
            for js in (False, True):
                by_n = []
                for n in range(3):
                    by_short = []
                    for short in range(16):
                        row: list[tuple[Step, ...]] = []
                        for s in range(_BASE):
                            for jokers in range(4):
                                steps = tuple(
                                    (((nxt - s) << at) - (u + need << _JOKER_AT)
                                     + (need << _ASIDE_AT) + (spare << 2 * colour), r * 3 + u)
                                    for nxt, spare, r, u in base.get(
                                        (track, js, s, n, jokers), ())
                                    if (need := _SHORT[nxt][short]) <= jokers - u)
                                row.append(shared.setdefault(steps, steps))
                        by_short.append(row)
                    by_n.append(by_short)
                by_js.append(by_n)
            by_track.append(by_js)
        out.append(by_track)
    return out


_FAST = _fast_table()
# position 14 (the 1 after 13): [colour][1s kept][state * 4 + jokers] -> steps that also
# spend the kept 1s they meld. Made from the rows that keep naturals for groups (a 1 not
# taken here may still join a group of 1s), less that keeping.
_FAST14 = [[[tuple((dk - ((n - g // 3) << 2 * colour) - ((g // 3) << _CARRY_AT + 2 * colour), g)
              for dk, g in steps)
             for steps in _FAST[colour][True][False][n][_PAST * 5]] for n in range(3)]
           for colour in range(4)]
Group = tuple[tuple[int, ...], int]  # natural colours, jokers


def _single_groups() -> list[Group]:
    singles: list[Group] = []
    for size in range(1, 5):
        for colours in combinations(range(4), size):
            for jokers in range(3):
                if 3 <= size + jokers <= 4:
                    singles.append((colours, jokers))
    return singles


GroupOption = tuple[int, int, tuple[Group, ...]]  # naturals used (2 bits a colour), count, groups


def _group_options() -> list[list[list[GroupOption]]]:
    """[naturals kept (2 bits a colour)][jokers used] -> [(naturals used, how many,
    groups)], one entry for each distinct use of up to three groups. Three groups of one
    number take nine tiles: at most eight naturals (two a colour), so a joker or two, and
    seven naturals at least."""
    singles = _single_groups()
    options: list[tuple[Group, ...]] = [()] + [(g,) for g in singles] + [
        (g, h) for i, g in enumerate(singles) for h in singles[i:]] + [
        (g, h, k) for i, g in enumerate(singles) for j, h in enumerate(singles[i:], i)
        for k in singles[j:] if 1 <= g[1] + h[1] + k[1] <= 2]
    shapes = []
    for groups in options:
        used = [0, 0, 0, 0]
        for colours, _ in groups:
            for c in colours:
                used[c] += 1
        jokers = sum(j for _, j in groups)
        if jokers <= 2 and max(used) <= 2:
            shapes.append((used, jokers, groups))
    table: list[list[list[GroupOption]]] = [[[] for _ in range(3)] for _ in range(256)]
    for counts in product(range(3), repeat=4):
        code = counts[0] | counts[1] << 2 | counts[2] << 4 | counts[3] << 6
        seen: set[tuple[int, int]] = set()
        for used, jokers, groups in shapes:
            if len(groups) == 3 and sum(counts) < 7:
                continue
            if any(u > n for u, n in zip(used, counts, strict=True)):
                continue
            use = used[0] | used[1] << 2 | used[2] << 4 | used[3] << 6
            if (jokers, use) in seen:
                continue
            seen.add((jokers, use))
            table[code][jokers].append((use, sum(used), groups))
    return table


_GROUP_OPTIONS = _group_options()
# [naturals kept][jokers used] -> (most naturals grouped, groups) or None
_GROUPS: list[list[tuple[int, tuple[Group, ...]] | None]] = [
    [max(((n, g) for _, n, g in opts), key=lambda x: x[0], default=None) for opts in row]
    for row in _GROUP_OPTIONS]


# Acyclic (ints, tuples of ints, untracked Melds), so untracked by the cyclic collector: the
# solve cache keeps 32,768 of them for the process's life, and a full collection walked
# them all, wherever it fell (60-95 ms inside level 4's slowest decisions, of which
# 40-65 ms for the solutions and the cache's entries; 20 ms without them).
class Solution(msgspec.Struct, frozen=True, gc=False):
    value: int  # opening value: what the melds are worth
    melds: tuple[Meld, ...]
    leftover: tuple[Tile, ...]


def _split(rack: Iterable[Tile], okey: Tile) -> tuple[list[list[int]], int, int]:
    """Counts per [colour][number], jokers, fake okeys."""
    counts = [[0] * 15 for _ in range(4)]
    jokers = fakes = 0
    for t in rack:
        if t == okey:
            jokers += 1
        else:
            if t == FAKE:
                fakes += 1
                t = okey
            counts[t // 13][t % 13 + 1] += 1
    return counts, jokers, fakes


def _meldable(counts: list[list[int]], jokers: int, wraps: bool) -> list[list[int]]:
    """`counts` less the tiles that no run or group could hold, found again until nothing
    changes: a tile needs two more of its colour in a 3-window (jokers fill gaps) or two
    more colours of its number. A necessary condition, so dropping the others is exact."""
    if jokers >= 2:
        return counts
    masks = []
    for row in counts:
        m = 0
        for p in range(1, 14):
            if row[p]:
                m |= 1 << p
        masks.append(m)
    while True:
        a, b, c, d = masks
        if jokers:
            grouped = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
        else:
            grouped = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)
        kept = []
        for m in masks:
            if wraps and m & 2:
                m |= 1 << 14  # a 1 may also sit after 13
            if jokers:
                run = m & ((m << 1) | (m >> 1) | (m << 2) | (m >> 2))
            else:
                starts = m & (m >> 1) & (m >> 2)
                run = starts | (starts << 1) | (starts << 2)
            if run >> 14 & 1:
                run |= 2
            kept.append(m & (run | grouped) & 0x3FFE)
        if kept == masks:
            break
        masks = kept
    for row, m in zip(counts, masks, strict=True):
        for p in range(1, 14):
            if row[p] and not m >> p & 1:
                row[p] = 0
    return counts


def meldable_reference(rack: Sequence[Tile], okey: Tile, wraps: bool = False
                       ) -> tuple[int, int]:
    """(how many tiles of `rack` some run or group could hold, the most they are worth at
    face value): bounds of every arrangement's melds, without a solve. A joker is counted
    at 13, the most it can stand for."""
    counts, jokers, _ = _split(rack, okey)
    usable = _meldable(counts, jokers, wraps)
    naturals = sum(map(sum, usable))
    value = sum(number * n for row in usable for number, n in enumerate(row))
    return naturals + jokers, value + 13 * jokers


def holds_reference(rack: Sequence[Tile], tile: Tile, okey: Tile, wraps: bool = False) -> bool:
    """Could some run or group of `rack` (a rack holding `tile`, not the okey) hold
    `tile`? Exactly when `_meldable` keeps it: a meld's other tiles meet each test it
    makes, and each test met names the tiles of a run or group of 3."""
    counts, jokers, _ = _split(rack, okey)
    stands = okey if tile == FAKE else tile
    return _meldable(counts, jokers, wraps)[stands // 13][stands % 13 + 1] > 0


def _solve(rack: Sequence[Tile], okey: Tile, wraps: bool, joker_weight: int | None,
           unit: bool = False) -> Solution:
    return _solve_sorted(tuple(sorted(rack)), okey, wraps, joker_weight, unit)


# Why a cache: a solution depends only on the rack as a multiset, and the same racks come
# back (a bot's search plays the same world out once per candidate; the rules and a bot
# solve one rack in one turn). Solutions are frozen, so sharing one is safe. A hit costs
# about a quarter of a native solve (docs/capacity.md), so the cache stays in front of it.
@functools.lru_cache(maxsize=SOLVE_CACHE)
def _solve_sorted(rack: tuple[Tile, ...], okey: Tile, wraps: bool, joker_weight: int | None,
                  unit: bool) -> Solution:
    if native.solve is not None and (
            joker_weight is None or 0 <= joker_weight <= native.MAX_JOKER_WEIGHT):
        value, melds, leftover = native.solve(rack, okey, wraps, joker_weight, unit)
        return Solution(value, tuple(Meld(kind, tuple(placed), start)
                                     for kind, placed, start in melds), tuple(leftover))
    return _solve_reference(rack, okey, wraps, joker_weight, unit)


def _solve_reference(rack: Sequence[Tile], okey: Tile, wraps: bool, joker_weight: int | None,
                     unit: bool = False) -> Solution:
    """The solve in Python: the specification the compiled core's `solve` is checked
    against (tests/properties/test_native_solve.py); it answers where that core is not
    built, and for joker weights too large for the core's packed values."""
    plan = _plan(rack, okey, wraps, joker_weight, unit)
    history, final, last_groups = _fold(plan)
    return _rebuild(rack, okey, plan, history, final, last_groups)


def _plan(rack: Sequence[Tile], okey: Tile, wraps: bool, joker_weight: int | None,
          unit: bool = False) -> _Plan:
    counts, jokers, _ = _split(rack, okey)
    if jokers > 2 or max(map(max, counts)) > 2:
        raise MalformedInput("a rack holds at most two of each tile (two okeys, two fakes)")
    usable = _meldable(counts, jokers, wraps)
    # [position] -> naturals per colour (position 14: the 1s runs could take after 13);
    # past the last position, _PAST
    at: list[tuple[int, ...]] = list(zip(*usable, strict=True))
    ones = wraps and at[1] != (0, 0, 0, 0)
    if wraps:
        # the 1s a run could take after 13: only colours whose runs could reach 14
        at[14] = tuple(
            row[1] if (row[12] > 0) + (row[13] > 0) + jokers >= 2 else 0 for row in usable)
    else:
        at[14] = (_PAST,) * 4
    at += [(_PAST,) * 4, (_PAST,) * 4]
    return _Plan(at, jokers, 14 if wraps else 13, joker_weight, ones, unit)


class _Plan:
    """What the DP needs to know of a rack, the same for the fold and the rebuild.

    With 12-13-1 (`ones`), the 1s are first offered to runs from 1; those left are kept in
    the state (bits 8-15) for runs reaching 14 and, after 14, for groups of 1s. Deciding
    the groups of 1s last keeps the states from splitting on every way to form them."""

    def __init__(self, at: list[tuple[int, ...]], jokers: int, last: int,
                 joker_weight: int | None, ones: bool, unit: bool = False) -> None:
        self.at, self.jokers, self.last, self.ones = at, jokers, last, ones
        self.joker_weight = joker_weight
        self.unit = unit  # every tile melded is worth 1: the fewest tiles left
        self.starts = _joker_start_ok(at, jokers)

    def weight(self, position: int) -> int:
        """What a natural tile melded at `position` is worth."""
        return 1 if self.unit or position == 14 else position

    def joker_gain(self, position: int) -> int:
        weight = self.weight(position)
        return weight if self.joker_weight is None else self.joker_weight

    def flags(self, position: int) -> tuple[bool, bool]:
        """(groups are formed here, the naturals left go on in the state (1s kept))."""
        if position == 1 and self.ones:
            return False, True
        here = self.at[position]
        kept = 4 - here.count(0)
        # one natural and two jokers: below 12 the run X, J, J (X+1, X+2) is worth more
        groups_here = kept + self.jokers >= 3 and kept > 0 and position != 14 and (
            kept > 1 or position >= 12)
        return groups_here, groups_here


# per position: (the states before it, the states after it), each key -> packed value and
# origin; None where nothing could happen at that position
History = list[tuple[dict[int, int], dict[int, int]] | None]


_NO_JOKER_STARTS = [[False] * 15 for _ in range(4)]


def _joker_start_ok(at: list[tuple[int, ...]], jokers: int) -> list[list[bool]]:
    """[colour][position]: could a run that a joker starts there still reach 13, with the
    other jokers filling the gaps?"""
    if not jokers:
        return _NO_JOKER_STARTS
    out = []
    for colour in range(4):
        row = [False] * 15
        gaps = 0
        for position in range(13, 0, -1):
            row[position] = gaps <= jokers - 1
            gaps += at[position][colour] == 0
        out.append(row)
    return out


_GAINS: dict[tuple[int, int], list[int]] = {}


def _gains(weight: int, joker_gain: int) -> list[int]:
    """[naturals * 3 + jokers] -> the packed gain of melding them at a position."""
    if len(_GAINS) > 1000:  # only odd okey values make new ones
        _GAINS.clear()
    found = _GAINS[weight, joker_gain] = [
        (r * weight + u * joker_gain) << _VALUE for r in range(3) for u in range(3)]
    return found


def _fold(plan: _Plan) -> tuple[History, int, tuple[int, int]]:
    """The DP over positions 1..last: the history for the rebuild, the best final key and
    (with 12-13-1) the groups of 1s it ends with, as (1s kept, jokers they use)."""
    at, jokers = plan.at, plan.jokers
    start = jokers << _JOKER_AT
    frontier = {start: start}  # worth 0, came from itself
    opened = 0  # the union of the frontier's keys: which colours have an open run
    history: History = []
    fast = _FAST
    empty = (0, 0, 0, 0)
    past = (_PAST,) * 4
    starts = plan.starts
    for position in range(1, plan.last + 1):
        here, ahead1, ahead2 = at[position], at[position + 1], at[position + 2]
        if opened < _STATE[0] and here == empty and (
                not jokers or (ahead1 in (empty, past) and ahead2 in (empty, past))):
            history.append(None)  # nothing to meld, nothing open, no run can start
            continue
        weight = plan.weight(position)
        joker_gain = plan.joker_gain(position)
        gains = _GAINS.get((weight, joker_gain)) or _gains(weight, joker_gain)
        groups_here, track = plan.flags(position)
        partial = frontier
        for colour in range(4):
            at_state = _STATE_AT + 6 * colour
            index_at = at_state - 2
            is_open = opened >> at_state & 63
            nxt: dict[int, int] = {}
            get = nxt.get
            if position == 14:  # the 1s kept at position 1 extend runs through 13
                if not is_open:
                    continue
                carry_at = _CARRY_AT + 2 * colour
                rows = _FAST14[colour]
                for key, packed in partial.items():
                    for dk, g in rows[key >> carry_at & 3][
                            key >> index_at & 252 | key >> 16 & 3]:
                        k = key + dk
                        cand = packed + gains[g]
                        if get(k, -1) < cand:
                            nxt[k] = cand
                partial = nxt
                continue
            n = here[colour]
            a1, a2 = ahead1[colour], ahead2[colour]
            if not n and not is_open and (not jokers or not (0 < a1 < _PAST or 0 < a2 < _PAST)):
                continue  # every state keeps this colour as it is: no run could start
            short = a1 * 4 + a2
            row = fast[colour][track][starts[colour][position]][n][short]
            for key, packed in partial.items():
                for dk, g in row[key >> index_at & 252 | key >> 16 & 3]:
                    k = key + dk
                    cand = packed + gains[g]
                    if get(k, -1) < cand:
                        nxt[k] = cand
            partial = nxt
        if groups_here:
            partial = _groups_step(partial, gains[3], gains[1])
        elif track:  # the 1s left wait in the state: bits 0-7 move to 8-15
            partial = _keep_ones(partial)
        history.append((frontier, partial))
        frontier, opened = _prune(partial, jokers > 0)
    if not plan.ones:
        best = max((packed, key) for key, packed in frontier.items() if _closed(key))
        return history, best[1], (0, 0)
    # groups of the 1s still kept, with the jokers left; each tile worth 1
    gains = _GAINS.get((1, plan.joker_gain(1))) or _gains(1, plan.joker_gain(1))
    found = max((packed + used * gains[1] + entry[0] * gains[3], key, used)
                for key, packed in frontier.items() if _closed(key)
                for used in range((key >> 16 & 3) + 1)
                if (entry := _GROUPS[key >> _CARRY_AT & 255][used]) is not None)
    return history, found[1], (found[1] >> _CARRY_AT & 255, found[2])


def _keep_ones(partial: dict[int, int]) -> dict[int, int]:
    nxt: dict[int, int] = {}
    get = nxt.get
    for key, packed in partial.items():
        k = key + (key & 255) * 255
        if get(k, -1) < packed:
            nxt[k] = packed
    return nxt


def _groups_step(partial: dict[int, int], natural_step: int, joker_step: int
                 ) -> dict[int, int]:
    """Meld the naturals kept at this position into groups."""
    nxt: dict[int, int] = {}
    get = nxt.get
    groups = _GROUPS
    for key, packed in partial.items():
        left = key & 255
        if not left:
            if get(key, -1) < packed:
                nxt[key] = packed
            continue
        base = key - left
        options = groups[left]
        for used in range((key >> 16 & 3) + 1):
            entry = options[used]
            if entry is None:
                continue
            k = base - (used << _JOKER_AT)
            cand = packed + used * joker_step + entry[0] * natural_step
            if get(k, -1) < cand:
                nxt[k] = cand
    return nxt


def _prune(partial: dict[int, int], jokers: bool) -> tuple[dict[int, int], int]:
    """The states of a position's end, their jokers set aside given back, less those where
    the same state with more jokers left is worth as much (a spare joker can always stay in
    the rack, so it never hurts). Each state is now its own origin; also returns the union
    of their keys."""
    out: dict[int, int] = {}
    opened = 0
    if not jokers:
        for key, packed in partial.items():
            out[key] = (packed >> _VALUE << _VALUE) | key
            opened |= key
        return out, opened
    get = partial.get
    for key, packed in partial.items():
        left = key >> 16 & 3  # the same states set the same jokers aside: compare as is
        value = packed >> _VALUE
        if left < 2:
            better = get(key + _JOKER)
            if better is not None and better >> _VALUE >= value:
                continue
            if left == 0:
                better = get(key + 2 * _JOKER)
                if better is not None and better >> _VALUE >= value:
                    continue
        aside = key >> _ASIDE_AT & 3
        if aside:
            key += aside * (_JOKER - (1 << _ASIDE_AT))
        out[key] = (value << _VALUE) | key
        opened |= key
    return out, opened


def _aside(plan: _Plan, position: int, key: int) -> int:
    """`key` as it was inside `position`, with the jokers its runs need set aside."""
    states = key >> _STATE_AT
    if not states:
        return key
    ahead1, ahead2, short = plan.at[position + 1], plan.at[position + 2], _SHORT
    need = (short[states & 63][ahead1[0] * 4 + ahead2[0]]
            + short[states >> 6 & 63][ahead1[1] * 4 + ahead2[1]]
            + short[states >> 12 & 63][ahead1[2] * 4 + ahead2[2]]
            + short[states >> 18][ahead1[3] * 4 + ahead2[3]])
    return key - need * (_JOKER - (1 << _ASIDE_AT))


def _closed(key: int) -> bool:
    states = key >> _STATE_AT
    return (_CLOSED[states & 63] and _CLOSED[states >> 6 & 63]
            and _CLOSED[states >> 12 & 63] and _CLOSED[states >> 18])


# One position's moves, for the rebuild: per colour (actions, order) or None, then groups.
Runs = list[tuple[Acts, Order] | None]
Path = tuple[Runs, tuple[Group, ...]]


def _reverse_moves() -> dict[tuple[int, int], list[tuple[int, int, Acts, Order]]]:
    """(state, next state) -> [(naturals, jokers, actions, order)], one per (naturals, jokers)."""
    table: dict[tuple[int, int], list[tuple[int, int, Acts, Order]]] = {}
    for (s, r, u), moves in _MOVES.items():
        for to, acts, order in moves:
            found = table.setdefault((s, to), [])
            if all((m[0], m[1]) != (r, u) for m in found):
                found.append((r, u, acts, order))
    return table


_REVERSE = _reverse_moves()


def _replay(plan: _Plan, position: int, start: int, target: int, gain: int) -> Path:
    """The moves at one position that take state `start` to `target` worth `gain`."""
    weight = plan.weight(position)
    joker_gain = plan.joker_gain(position)
    groups_here, track = plan.flags(position)
    here = plan.at[position]
    jokers = start >> 16 & 3
    runs: Runs = [None, None, None, None]
    open_choices = []
    melded = used = left = ones = 0
    for colour in range(4):
        at = _STATE_AT + 6 * colour
        s, t = start >> at & 63, target >> at & 63
        n = start >> (_CARRY_AT + 2 * colour) & 3 if position == 14 else here[colour]
        if not s and not t:  # nothing placed in this colour's runs
            left += n << 2 * colour
            continue
        moves = _REVERSE[s, t]
        if len(moves) > 1:
            moves = [m for m in moves if m[0] <= n and m[1] <= jokers]
        if len(moves) == 1:  # the DP took the only way
            r, u, acts, order = moves[0]
            runs[colour] = (acts, order)
            melded, used, left = melded + r, used + u, left + ((n - r) << 2 * colour)
            if position == 14:
                ones += r << 2 * colour
        else:
            open_choices.append((colour, n, moves))
    if not open_choices and not track:
        return runs, ()
    for combo in product(*(moves for _, _, moves in open_choices)):
        all_melded, all_used, all_left, all_ones = melded, used, left, ones
        for (colour, n, _), (r, u, _, _) in zip(open_choices, combo, strict=True):
            all_melded, all_used = all_melded + r, all_used + u
            all_left += (n - r) << 2 * colour
            if position == 14:
                all_ones += r << 2 * colour
        if all_used > jokers:
            continue
        # the state after the runs: the target's colour states, the 1s kept so far
        key = (target >> _STATE_AT << _STATE_AT) + ((jokers - all_used) << _JOKER_AT) + (
            start & 0xFF00) - (all_ones << _CARRY_AT)
        options: list[GroupOption] = [(0, 0, ())]
        if groups_here:
            options = [o for grouped in range(jokers - all_used + 1)
                       for o in _GROUP_OPTIONS[all_left][grouped]]
        elif track:  # the 1s kept go on in the state
            key += all_left << _CARRY_AT
        for _, count, groups in options:
            grouped = sum(j for _, j in groups)
            k = key - (grouped << _JOKER_AT)
            if k == target and (all_melded + count) * weight + (
                    all_used + grouped) * joker_gain == gain:
                for (colour, _, _), (_, _, acts, order) in zip(open_choices, combo,
                                                               strict=True):
                    runs[colour] = (acts, order)
                return runs, groups
    raise AssertionError("no move reaches the state the DP recorded")


def _rebuild(rack: Sequence[Tile], okey: Tile, plan: _Plan, history: History, key: int,
             last_groups: tuple[int, int]) -> Solution:
    paths: list[tuple[int, Path]] = []
    if plan.ones:  # the groups of 1s decided after 14
        kept, used = last_groups
        entry = _GROUPS[kept][used]
        assert entry is not None
        paths.append((1, ([None, None, None, None], entry[1])))
    for position in range(len(history), 0, -1):
        step = history[position - 1]
        if step is None:
            continue
        before, after = step
        packed = after[_aside(plan, position, key) if plan.jokers else key]
        start = packed & _ORIGIN
        gain = (packed >> _VALUE) - (before[start] >> _VALUE)
        if start == key and gain == 0 and key < _STATE[0]:
            continue  # no run open, no tile melded, no joker spent
        paths.append((position, _replay(plan, position, start, key, gain)))
        key = start
    paths.reverse()
    pool = list(rack)
    value = 0

    def natural(stands: Tile) -> Placed:
        if stands == okey and FAKE in pool:
            pool.remove(FAKE)
            return (FAKE, okey)
        pool.remove(stands)
        return (stands, stands)

    def joker(stands: Tile) -> Placed:
        pool.remove(okey)
        return (okey, stands)

    melds: list[Meld] = []
    slots: list[list[list[Placed]]] = [[[] for _ in range(SLOTS)] for _ in range(4)]
    firsts: list[list[int]] = [[0] * SLOTS for _ in range(4)]
    for position, (runs, groups) in paths:
        number = 1 if position == 14 else position
        for colour, how in enumerate(runs):
            if how is None:
                continue
            acts, order = how
            for i, act in enumerate(acts):
                slot = slots[colour][i]
                if act == "-":
                    if slot:
                        melds.append(Meld("run", tuple(slot), firsts[colour][i]))
                        slots[colour][i] = []
                    continue
                if not slot:
                    firsts[colour][i] = position
                tile = colour * 13 + number - 1
                slot.append(natural(tile) if act == "N" else joker(tile))
                value += number
            if order != (0, 1, 2, 3):
                slots[colour] = [slots[colour][i] for i in order]
                firsts[colour] = [firsts[colour][i] for i in order]
        for colours, joker_count in groups:
            placed = [natural(c * 13 + number - 1) for c in colours]
            missing = [c for c in range(4) if c not in colours][:joker_count]
            placed += [joker(c * 13 + number - 1) for c in missing]
            placed.sort(key=lambda p: p[1])
            melds.append(Meld("group", tuple(placed)))
            value += number * len(placed)
    for colour in range(4):
        for i in range(SLOTS):
            if slots[colour][i]:
                melds.append(Meld("run", tuple(slots[colour][i]), firsts[colour][i]))
    pool.sort()  # tile kinds sort by colour, then number; the fake okey (52) last
    return Solution(value, tuple(melds), tuple(pool))


def opening(rack: Sequence[Tile], okey: Tile, wraps: bool = False,
            count: MeldCount = "face", face: Solution | None = None) -> Solution:
    """The largest total of disjoint runs and groups in `rack`, and melds that reach it:
    in face value, or in the "34" count (`count` "third": floor(value / 3) per meld).
    `face`: the face-value opening of this rack, when the caller has it already."""
    if face is None:
        face = _solve(rack, okey, wraps, None)
    return face if count == "face" else _opening_third(rack, okey, wraps, face)


def _third(melds: Iterable[Meld]) -> int:
    return sum(counted_value(m, "third") for m in melds)


def _opening_third(rack: Sequence[Tile], okey: Tile, wraps: bool, face: Solution
                   ) -> Solution:
    """The most floor(value / 3) summed over disjoint melds. The face optimum F bounds it
    (floor(F / 3)), and its own melds usually reach that bound; when they do not, a branch
    and bound settles it: the lowest tile left (by what it stands for) either stays out or
    lies in a run of 3-5 or a group holding it (a longer run splits into a run of 3 and the
    rest at no loss: a 3-run's value is a multiple of 3), naturals before jokers (a joker
    and a natural of the tile it stands for swap places at no loss); each node is bounded
    by floor(its face optimum / 3) and offers that optimum's melds as a candidate."""
    found: list[tuple[int, tuple[Meld, ...]]] = [(_third(face.melds), face.melds)]
    if found[0][0] < face.value // 3:
        pool = sorted(rack, key=lambda t: (t == okey, okey if t == FAKE else t))
        _third_search(pool, okey, wraps, 0, (), found, face)
    value, melds = found[0]
    left = list(rack)
    for m in melds:
        for played, _ in m.tiles:
            left.remove(played)
    return Solution(value, melds, tuple(sorted(left)))


def _third_search(pool: list[Tile], okey: Tile, wraps: bool, acc: int,
                  chosen: tuple[Meld, ...], found: list[tuple[int, tuple[Meld, ...]]],
                  face: Solution | None = None) -> None:
    face = face or _solve(pool, okey, wraps, None)
    if acc + face.value // 3 <= found[0][0]:
        return
    candidate = acc + _third(face.melds)
    if candidate > found[0][0]:
        found[0] = (candidate, chosen + face.melds)
        if acc + face.value // 3 <= candidate:
            return
    if not pool or pool[0] == okey:  # only jokers left: no meld of their own
        return
    lowest = pool[0]
    for meld in melds_with(pool, lowest, okey, wraps):
        rest = list(pool)
        for played, _ in meld.tiles:
            rest.remove(played)
        _third_search(rest, okey, wraps, acc + counted_value(meld, "third"),
                      (*chosen, meld), found)
    _third_search(pool[1:], okey, wraps, acc, chosen, found)


def fewest_left(rack: Sequence[Tile], okey: Tile, wraps: bool = False) -> Solution:
    """The melds that leave the fewest tiles in the rack, whatever they are worth (düz:
    a rack finishes when none is left). `value` is the melds' face value."""
    return _solve(rack, okey, wraps, 1, unit=True)


def arrange(rack: Sequence[Tile], okey: Tile, wraps: bool = False, okey_value: int = 101
            ) -> Solution:
    """The melds that leave the least value in the rack (an unmelded okey counts `okey_value`,
    at least 0)."""
    if okey_value < 0:
        raise ValueError("okey_value must not be negative")
    return _solve(rack, okey, wraps, okey_value)


def leftover_value(leftover: Iterable[Tile], okey: Tile, okey_value: int = 101) -> int:
    return sum(okey_value if t == okey else tiles.face_value(t, okey) for t in leftover)


def most_pairs_reference(rack: Sequence[Tile], okey: Tile, extra_jokers: int = 0) -> int:
    """The most pairs in `rack`: identical twins; an okey pairs with any tile."""
    counts, jokers, _ = _split(rack, okey)
    jokers += extra_jokers
    pairs = sum(n // 2 for row in counts for n in row)
    singles = sum(n % 2 for row in counts for n in row)
    matched = min(jokers, singles)
    return pairs + matched + (jokers - matched) // 2


def pairs_of(rack: Sequence[Tile], okey: Tile) -> list[Meld]:
    """One largest set of pairs from `rack`, jokers matched with singles of highest value."""
    pool = sorted(rack, key=lambda t: -tiles.face_value(t, okey) if t != okey else 0)
    jokers = [t for t in pool if t == okey]
    by_stands: dict[Tile, list[Tile]] = {}
    for t in pool:
        if t != okey:
            by_stands.setdefault(okey if t == FAKE else t, []).append(t)
    out: list[Meld] = []
    singles: list[Tile] = []
    for stands, group in by_stands.items():
        if len(group) == 2:
            out.append(Meld("pair", tuple((t, stands) for t in group)))
        else:
            singles.append(group[0])
    for single in singles:
        if not jokers:
            break
        stands = okey if single == FAKE else single
        out.append(Meld("pair", ((single, stands), (jokers.pop(), stands))))
    if len(jokers) == 2:
        out.append(Meld("pair", ((okey, okey), (okey, okey))))
    return out


class Finishing(msgspec.Struct, frozen=True):
    """Düz: one way a rack wins: `discard` (None: nothing to discard) and the rest shown
    as runs and groups, or as pairs (`pairs`)."""

    discard: Tile | None
    melds: tuple[Meld, ...]
    pairs: bool


def finishes(rack: Sequence[Tile], okey: Tile, wraps: bool = False) -> list[Finishing]:
    """Düz (RULES.md §12): every way `rack` wins, one per discard and form. An even rack (14
    tiles) must show whole; an odd one (15: the starter's, or after a draw) discards one
    tile first. The rest forms runs and groups (the fewest left: none), or pairs (an okey
    pairs with any tile). Which of them is worth most is the house's (`rules.best_finish`)."""
    odd = len(rack) % 2 == 1
    near_melds = len(fewest_left(rack, okey, wraps).leftover) <= (1 if odd else 0)
    near_pairs = most_pairs(rack, okey) * 2 >= len(rack) - (1 if odd else 0)
    if not near_melds and not near_pairs:
        return []
    found: list[Finishing] = []
    discards: list[Tile | None] = sorted(set(rack), key=lambda t: (t != okey, t)) if odd \
        else [None]
    for d in discards:
        rest = list(rack)
        if d is not None:
            rest.remove(d)
        if near_pairs and most_pairs(rest, okey) * 2 == len(rest):
            found.append(Finishing(d, tuple(pairs_of(rest, okey)), True))
        if near_melds:
            arranged = fewest_left(rest, okey, wraps)
            if not arranged.leftover:
                found.append(Finishing(d, arranged.melds, False))
    return found


# The compiled core answers when it is built; the Python above stays the specification.
meldable: native.Meldable = native.meldable or meldable_reference
holds: native.Holds = native.holds or holds_reference
most_pairs: native.MostPairs = native.most_pairs or most_pairs_reference
