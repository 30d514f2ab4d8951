"""Exact rack solving: opening value, most pairs, least leftover.

The opening value is found by dynamic programming over run positions 1..13 (14 where
12-13-1 is allowed). Every tile melded at position p is worth p (a joker counts as the
tile it stands for, position 14 counts 1), so the value is a sum over positions of p times
the tiles melded there. The state between positions is, per colour, the lengths of the
open runs (capped at 3: a run of 3+ may stop) and the jokers left. Runs cross positions;
groups live at one position. Each position is folded colour by colour (runs), then once
more for groups, so each small step has few choices and equal partial states merge.

Where 12-13-1 is allowed, the 1s a colour does not meld at position 1 are carried in the
state to position 14 (only for colours whose runs could reach 14), so one pass serves.

A state is one int (see "Key layout"); inside a position each entry carries its value and
the index of the state it came from packed in one int, so the inner loops only add.
Back-pointers are kept per position; the moves inside a position are found again at the
end by re-running that position from the one state the best path came through.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, product

import msgspec

from okey101 import tiles
from okey101.melds import Meld, Placed
from okey101.tiles import FAKE, Tile

# Colour state: the lengths of up to four open runs, sorted, each capped at 3. Four, not
# two: with both jokers, one colour can hold four runs over one position (9-10-11 twice
# and J-12-13 twice beats two 9-13 runs when 13 is the top and jokers can only go low).
SLOTS = 4
_LENGTHS: list[tuple[int, ...]] = sorted(
    {tuple(sorted(c)) for c in product(range(4), repeat=SLOTS)})
_INDEX = {s: i for i, s in enumerate(_LENGTHS)}
_BASE = len(_LENGTHS)  # 35
_CLOSED = [all(n in (0, 3) for n in s) for s in _LENGTHS]
# the state with one more run of 3+ (which may stop at once), so at least as good
_UP = [_INDEX[tuple(sorted((*s[1:], 3)))] if s[0] == 0 else -1 for s in _LENGTHS]
_ACTIONS = ("-", "N", "J")  # nothing (the run stops), a natural tile, a joker
Acts = tuple[str, ...]
Order = tuple[int, ...]
Move = tuple[int, Acts, Order]  # next state, action per old slot, new slot order

# Key layout: one int per state,
#   left (naturals each colour keeps for groups at this position, base 3)   * 1
#   carry (1s each colour keeps for position 14, base 3)                    * 81
#   jokers left (0..2)                                                      * 6561
#   colour states (base 35 each)                                            * 19683
_LEFT = (1, 3, 9, 27)
_CARRY = (81, 243, 729, 2187)
_JOKER = 6561
_STATE = (19683, 19683 * 35, 19683 * 35**2, 19683 * 35**3)


def _colour_moves() -> dict[tuple[int, int, int], list[Move]]:
    """(state, naturals, jokers) into runs -> [(next state, action per old slot, order)]."""
    table: dict[tuple[int, int, int], list[Move]] = {}
    for si, lengths in enumerate(_LENGTHS):
        for acts in product(_ACTIONS, repeat=SLOTS):
            if acts.count("N") > 2 or acts.count("J") > 2:
                continue
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
                if all(m[0] != nxt for m in moves):
                    moves.append((nxt, acts, order))
    return table


_MOVES = _colour_moves()
# tiles a colour state still needs at the next position and the one after
_NEEDS = [(sum(1 for n in s if n in (1, 2)), sum(1 for n in s if n == 1)) for s in _LENGTHS]
# [state][tiles next * 3 + tiles after] -> how many tiles short (jokers must fill them)
_SHORT = [[max(0, n1 - a1) + max(0, n2 - a2) for a1 in range(3) for a2 in range(3)]
          for n1, n2 in _NEEDS]

Step = tuple[int, int, int]  # key change, naturals melded, jokers melded


def _fast_table() -> list[list[list[list[list[tuple[Step, ...]]]]]]:
    """[colour][keeps left][naturals here][short index][state * 3 + jokers] -> steps.

    Only steps after which the colour's open runs can still be fed (by the tiles at the
    next two positions and the jokers left) are listed: a necessary condition, so exact.
    """
    out: list[list[list[list[list[tuple[Step, ...]]]]]] = []
    for colour in range(4):
        by_track = []
        for track in (False, True):
            by_n = []
            for n in range(3):
                by_short = []
                for short in range(9):
                    row: list[tuple[Step, ...]] = []
                    for s in range(_BASE):
                        for jokers in range(3):
                            steps = []
                            for r in range(n + 1):
                                for u in range(jokers + 1):
                                    for nxt, _, _ in _MOVES.get((s, r, u), ()):
                                        if _SHORT[nxt][short] > jokers - u:
                                            continue
                                        dk = (nxt - s) * _STATE[colour] - u * _JOKER
                                        if track:
                                            dk += (n - r) * _LEFT[colour]
                                        steps.append((dk, r, u))
                            row.append(tuple(steps))
                    by_short.append(row)
                by_n.append(by_short)
            by_track.append(by_n)
        out.append(by_track)
    return out


_FAST = _fast_table()
_POW = (1, 35, 1225, 42875)
UPDOM = False
Group = tuple[tuple[int, ...], int]  # natural colours, jokers


def _single_groups() -> list[Group]:
    singles: list[Group] = []
    for size in range(1, 5):
        for colours in combinations(range(4), size):
            for jokers in range(3):
                if 3 <= size + jokers <= 4:
                    singles.append((colours, jokers))
    return singles


def _group_options() -> list[list[list[tuple[int, int, tuple[Group, ...]]]]]:
    """[naturals kept per colour, base 3][jokers used] -> [(naturals used per colour (base
    3), naturals used, groups)], one entry for each distinct use (at most two groups)."""
    singles = _single_groups()
    options: list[tuple[Group, ...]] = [()] + [(g,) for g in singles] + [
        (g, h) for i, g in enumerate(singles) for h in singles[i:]]
    table: list[list[list[tuple[int, int, tuple[Group, ...]]]]] = [
        [[] for _ in range(3)] for _ in range(81)]
    seen: set[tuple[int, int, int]] = set()
    for counts in product(range(3), repeat=4):
        code = counts[0] + 3 * counts[1] + 9 * counts[2] + 27 * counts[3]
        for groups in options:
            used = [0, 0, 0, 0]
            for colours, _ in groups:
                for c in colours:
                    used[c] += 1
            if any(u > n for u, n in zip(used, counts, strict=True)):
                continue
            jokers = sum(j for _, j in groups)
            if jokers > 2:
                continue
            use = used[0] + 3 * used[1] + 9 * used[2] + 27 * used[3]
            if (code, jokers, use) in seen:
                continue
            seen.add((code, jokers, use))
            table[code][jokers].append((use, sum(used), groups))
    return table


_GROUP_OPTIONS = _group_options()
# [naturals kept, base 3][jokers used] -> (most naturals grouped, groups) or None
_GROUPS: list[list[tuple[int, tuple[Group, ...]] | None]] = [
    [max(((n, g) for _, n, g in opts), key=lambda x: x[0], default=None) for opts in row]
    for row in _GROUP_OPTIONS]


class Solution(msgspec.Struct, frozen=True):
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
            stands = okey if t == FAKE else t
            fakes += t == FAKE
            counts[tiles.colour_of(stands)][tiles.number_of(stands)] += 1
    return counts, jokers, fakes


def _meldable(counts: list[list[int]], jokers: int, wraps: bool) -> list[list[int]]:
    """`counts` less the tiles that no run or group could hold (a necessary condition,
    repeated until nothing changes), so the DP sees fewer tiles."""
    if jokers >= 2:
        return counts
    top = 14 if wraps else 13
    at = [row[:] for row in counts]
    changed = True
    while changed:
        changed = False
        for c in range(4):
            if wraps:
                at[c][14] = at[c][1]
            for p in range(1, 14):
                if not at[c][p]:
                    continue
                others = sum(1 for d in range(4) if d != c and at[d][p])
                if others + jokers >= 2:
                    continue
                ok = False
                spots = (p, 14) if wraps and p == 1 else (p,)
                for q in spots:
                    for a in range(max(1, q - 2), min(q, top - 2) + 1):
                        missing = sum(1 for x in range(a, a + 3) if x != q and not at[c][x])
                        if missing <= jokers:
                            ok = True
                            break
                    if ok:
                        break
                if not ok:
                    at[c][p] = 0
                    changed = True
    for row in at:
        row[14] = 0
    return at


def _solve(rack: Sequence[Tile], okey: Tile, wraps: bool, joker_weight: int | None) -> Solution:
    counts, jokers, _ = _split(rack, okey)
    usable = _meldable(counts, jokers, wraps)
    at = [(0, 0, 0, 0)] + [tuple(usable[c][p] for c in range(4)) for p in range(1, 14)]
    carry = (0, 0, 0, 0)
    if wraps:
        # 1s can be kept back for 12-13-1 only in colours whose runs could reach 14
        carry = tuple(
            usable[c][1] if (usable[c][12] > 0) + (usable[c][13] > 0) + jokers >= 2 else 0
            for c in range(4))
        at.append(carry)
    at += [(0, 0, 0, 0), (0, 0, 0, 0)]
    last = 14 if wraps else 13
    history, final = _fold(at, jokers, last, joker_weight, carry)
    return _rebuild(rack, okey, at, jokers, last, joker_weight, carry, history, final)


History = list[tuple[list[int], dict[int, int], int, dict[int, int]]]


def _fold(at: list[tuple[int, ...]], jokers: int, last: int, joker_weight: int | None,
          carry: tuple[int, ...]) -> tuple[History, int]:
    """The DP over positions 1..last: returns per position (the keys before it, their
    values, the packing shift, key -> packed value and origin) and the best final key."""
    frontier: dict[int, int] = {jokers * _JOKER: 0}
    history: History = []
    carry_mask = [c for c in range(4) if carry[c]]
    for position in range(1, last + 1):
        weight = 1 if position == 14 else position
        joker_gain = weight if joker_weight is None else joker_weight
        here, ahead1, ahead2 = at[position], at[position + 1], at[position + 2]
        keys = list(frontier)
        shift = max(16, len(keys).bit_length())
        partial = {k: (v << shift) | i for i, (k, v) in enumerate(frontier.items())}
        natural_step, joker_step = weight << shift, joker_gain << shift
        most_jokers = max(k // _JOKER % 3 for k in keys)
        kept = sum(1 for c in range(4) if here[c])
        groups_here = position != 14 and kept > 0 and kept + most_jokers >= 3
        keeps_ones = position == 1 and bool(carry_mask)
        track = groups_here or keeps_ones
        for colour in range(4):
            n, mul = here[colour], _STATE[colour]
            short = ahead1[colour] * 3 + ahead2[colour]
            if position == 14:
                if not carry[colour] and not any(k // mul % _BASE for k in partial):
                    continue
            elif not n and not any(k // mul % _BASE for k in partial) and \
                    (not short or not most_jokers):
                continue
            nxt: dict[int, int] = {}
            get = nxt.get
            if position == 14:
                cmul = _CARRY[colour]
                rows = _FAST[colour][False]
                for key, packed in partial.items():
                    for dk, r, u in rows[key // cmul % 3][0][
                            key // mul % _BASE * 3 + key // _JOKER % 3]:
                        k = key + dk
                        cand = packed + r * natural_step + u * joker_step
                        if get(k, -1) < cand:
                            nxt[k] = cand
            else:
                row = _FAST[colour][track][n][short]
                for key, packed in partial.items():
                    for dk, r, u in row[key // mul % _BASE * 3 + key // _JOKER % 3]:
                        k = key + dk
                        cand = packed + r * natural_step + u * joker_step
                        if get(k, -1) < cand:
                            nxt[k] = cand
            partial = nxt
        if track:
            partial = _groups_step(partial, natural_step, joker_step, groups_here,
                                   carry if keeps_ones else None)
        history.append((keys, frontier, shift, partial))
        frontier = _prune(partial, shift, ahead1, ahead2)
    finals = [(v, k) for k, v in frontier.items() if _closed(k)]
    return history, max(finals)[1]


def _groups_step(partial: dict[int, int], natural_step: int, joker_step: int,
                 groups_here: bool, carry: tuple[int, ...] | None) -> dict[int, int]:
    """Meld the naturals kept at this position into groups; with `carry`, the 1s that stay
    go on to position 14 (in the colours that can reach it)."""
    nxt: dict[int, int] = {}
    get = nxt.get
    for key, packed in partial.items():
        left = key % 81
        base = key - left
        top = key // _JOKER % 3 if groups_here else 0
        for used in range(top + 1):
            k0 = base - used * _JOKER
            gain = packed + used * joker_step
            if carry is None:
                entry = _GROUPS[left][used]
                if entry is None:
                    continue
                cand = gain + entry[0] * natural_step
                if get(k0, -1) < cand:
                    nxt[k0] = cand
                continue
            for use, count, _ in _GROUP_OPTIONS[left][used]:
                k = k0 + _carried(left - use, carry) * 81
                cand = gain + count * natural_step
                if get(k, -1) < cand:
                    nxt[k] = cand
    return nxt


def _carried(rest: int, carry: tuple[int, ...]) -> int:
    """The kept-naturals code `rest` (base 3) less the colours that cannot reach 14."""
    out = 0
    for c in range(4):
        if carry[c]:
            out += (rest // _LEFT[c] % 3) * _LEFT[c]
    return out


def _prune(partial: dict[int, int], shift: int, ahead1: tuple[int, ...],
           ahead2: tuple[int, ...]) -> dict[int, int]:
    """Unpacked values of the states that can still close all their runs with the jokers
    left, less those where the same state with more jokers left is worth as much: a spare
    joker can always stay in the rack, so it never hurts."""
    shorts = [ahead1[c] * 3 + ahead2[c] for c in range(4)]
    s0, s1, s2, s3 = shorts
    out: dict[int, int] = {}
    for key, packed in partial.items():
        left = key // _JOKER % 3
        states = key // _STATE[0]
        if (_SHORT[states % _BASE][s0] + _SHORT[states // 35 % _BASE][s1]
                + _SHORT[states // 1225 % _BASE][s2] + _SHORT[states // 42875][s3]) > left:
            continue
        value = packed >> shift
        if left < 2:
            better = partial.get(key + _JOKER)
            if better is not None and better >> shift >= value:
                continue
            if left == 0:
                better = partial.get(key + 2 * _JOKER)
                if better is not None and better >> shift >= value:
                    continue
        if UPDOM:
            dominated = False
            for c in range(4):
                cs = states // _POW[c] % _BASE
                up = _UP[cs]
                if up >= 0:
                    better = partial.get(key + (up - cs) * _STATE[c])
                    if better is not None and better >> shift >= value:
                        dominated = True
                        break
            if dominated:
                continue
        out[key] = value
    return out


def _closed(key: int) -> bool:
    states = key // _STATE[0]
    return (_CLOSED[states % _BASE] and _CLOSED[states // 35 % _BASE]
            and _CLOSED[states // 1225 % _BASE] and _CLOSED[states // 42875])


# One position's moves, for the rebuild: per colour (actions, order), then the groups.
Path = tuple[tuple[tuple[Acts, Order] | None, ...], tuple[Group, ...]]


def _replay(start: int, target: int, gain: int, position: int, here: tuple[int, ...],
            weight: int, joker_gain: int, track: bool, groups_here: bool,
            carry: tuple[int, ...] | None) -> Path:
    """The moves at one position that take state `start` to `target` worth `gain`."""
    Colours = tuple[tuple[Acts, Order] | None, ...]
    entries: dict[tuple[int, int], Colours] = {(start, 0): ()}
    for colour in range(4):
        mul = _STATE[colour]
        wanted = target // mul % _BASE
        nxt: dict[tuple[int, int], Colours] = {}
        for (key, value), path in entries.items():
            s = key // mul % _BASE
            jokers = key // _JOKER % 3
            n = key // _CARRY[colour] % 3 if position == 14 else here[colour]
            for r in range(n + 1):
                for u in range(jokers + 1):
                    for to, acts, order in _MOVES.get((s, r, u), ()):
                        if to != wanted:
                            continue
                        k = key + (to - s) * mul - u * _JOKER
                        if track:
                            k += (n - r) * _LEFT[colour]
                        nxt.setdefault((k, value + r * weight + u * joker_gain),
                                       (*path, (acts, order)))
        entries = nxt
    for (key, value), path in entries.items():
        left = key % 81 if track else 0
        top = key // _JOKER % 3 if groups_here else 0
        for used in range(top + 1):
            k0 = key - left - used * _JOKER
            for use, count, groups in _GROUP_OPTIONS[left][used]:
                k = k0 + (_carried(left - use, carry) * 81 if carry is not None else 0)
                if k == target and value + count * weight + used * joker_gain == gain:
                    return path, groups
    raise AssertionError("no move reaches the state the DP recorded")


def _rebuild(rack: Sequence[Tile], okey: Tile, at: list[tuple[int, ...]], jokers: int,
             last: int, joker_weight: int | None, carry: tuple[int, ...], history: History,
             key: int) -> Solution:
    paths: list[Path] = []
    for position in range(last, 0, -1):
        keys, before, shift, packed_of = history[position - 1]
        packed = packed_of[key]
        start = keys[packed & ((1 << shift) - 1)]
        weight = 1 if position == 14 else position
        here = at[position]
        kept = sum(1 for c in range(4) if here[c])
        most_jokers = max(k // _JOKER % 3 for k in keys)
        groups_here = position != 14 and kept > 0 and kept + most_jokers >= 3
        keeps_ones = position == 1 and any(carry)
        paths.append(_replay(start, key, (packed >> shift) - before[start], position, here,
                             weight, weight if joker_weight is None else joker_weight,
                             groups_here or keeps_ones, groups_here,
                             carry if keeps_ones else None))
        key = start
    paths.reverse()
    pool = list(rack)

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
    starts: list[list[int]] = [[0] * SLOTS for _ in range(4)]
    for position, (runs, groups) in enumerate(paths, start=1):
        number = 1 if position == 14 else position
        for colour, how in enumerate(runs):
            if how is None:
                continue
            acts, order = how
            for i, act in enumerate(acts):
                slot = slots[colour][i]
                if act == "-":
                    if slot:
                        melds.append(Meld("run", tuple(slot), starts[colour][i]))
                    slots[colour][i] = []
                    continue
                if not slot:
                    starts[colour][i] = position
                tile = tiles.make(colour, number)
                slot.append(natural(tile) if act == "N" else joker(tile))
            slots[colour] = [slots[colour][i] for i in order]
            starts[colour] = [starts[colour][i] for i in order]
        for colours, joker_count in groups:
            placed = [natural(tiles.make(c, number)) for c in colours]
            missing = [c for c in range(4) if c not in colours][:joker_count]
            placed += [joker(tiles.make(c, number)) for c in missing]
            placed.sort(key=lambda p: tiles.colour_of(p[1]))
            melds.append(Meld("group", tuple(placed)))
    for colour in range(4):
        for i in range(SLOTS):
            if slots[colour][i]:
                melds.append(Meld("run", tuple(slots[colour][i]), starts[colour][i]))
    value = sum(m.value() for m in melds)
    return Solution(value, tuple(melds), tuple(sorted(pool, key=tiles.sort_key)))


def opening(rack: Sequence[Tile], okey: Tile, wraps: bool = False) -> Solution:
    """The largest total of disjoint runs and groups in `rack`, and melds that reach it."""
    return _solve(rack, okey, wraps, None)


def arrange(rack: Sequence[Tile], okey: Tile, wraps: bool = False, okey_value: int = 101
            ) -> Solution:
    """The melds that leave the least value in the rack (an unmelded okey counts `okey_value`)."""
    return _solve(rack, okey, wraps, okey_value)


def leftover_value(leftover: Iterable[Tile], okey: Tile, okey_value: int = 101) -> int:
    return sum(okey_value if t == okey else tiles.face_value(t, okey) for t in leftover)


def most_pairs(rack: Sequence[Tile], okey: Tile, extra_jokers: int = 0) -> int:
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
