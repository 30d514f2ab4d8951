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
    """(state, naturals, jokers) into runs -> [(next state, action per old slot, order)],
    one move per next state: one that starts no run with a joker where there is one."""
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
                for i, (to, old, _) in enumerate(moves):
                    if to == nxt:
                        if _joker_starts(lengths, old) and not _joker_starts(lengths, acts):
                            moves[i] = (nxt, acts, order)
                        break
                else:
                    moves.append((nxt, acts, order))
    return table


def _joker_starts(lengths: tuple[int, ...], acts: Acts) -> bool:
    """Does a joker start a new run? Then it could move to the run's far end (worth more)
    unless the run goes on to 13."""
    return any(a == "J" and n == 0 for n, a in zip(lengths, acts, strict=True))


_MOVES = _colour_moves()
# tiles a colour state still needs at the next position and the one after
_NEEDS = [(sum(1 for n in s if n in (1, 2)), sum(1 for n in s if n == 1)) for s in _LENGTHS]
# [state][tiles next * 3 + tiles after] -> how many tiles short (jokers must fill them)
_SHORT = [[max(0, n1 - a1) + max(0, n2 - a2) for a1 in range(3) for a2 in range(3)]
          for n1, n2 in _NEEDS]

Step = tuple[int, int, int]  # key change, naturals melded, jokers melded


def _fast_table() -> list[list[list[list[list[list[tuple[Step, ...]]]]]]]:
    """[colour][keeps left][joker may start a run][naturals here][short index]
    [state * 3 + jokers] -> steps.

    Only steps after which the colour's open runs can still be fed (by the tiles at the
    next two positions and the jokers left) are listed: a necessary condition, so exact.
    A joker never takes a run's place while a natural of the same tile stays idle (swap
    them), nor starts a run that cannot reach 13 (move it to the run's other end).
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
                                if u and r < n and not track:
                                    continue
                                for nxt, acts, _ in _MOVES.get((s, r, u), ()):
                                    if js or not _joker_starts(_LENGTHS[s], acts):
                                        found.append((nxt, n - r if track else 0, r, u))
    out: list[list[list[list[list[list[tuple[Step, ...]]]]]]] = []
    for colour in range(4):
        mul, lmul = _STATE[colour], _LEFT[colour]
        by_track = []
        for track in (False, True):
            by_js = []
            for js in (False, True):
                by_n = []
                for n in range(3):
                    by_short = []
                    for short in range(9):
                        row = [tuple((nxt * mul - s * mul - u * _JOKER + spare * lmul, r, u)
                                     for nxt, spare, r, u in base[track, js, s, n, jokers]
                                     if _SHORT[nxt][short] <= jokers - u)
                               for s in range(_BASE) for jokers in range(3)]
                        by_short.append(row)
                    by_n.append(by_short)
                by_js.append(by_n)
            by_track.append(by_js)
        out.append(by_track)
    return out


_FAST = _fast_table()
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
                m |= 1 << 14
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


def _solve(rack: Sequence[Tile], okey: Tile, wraps: bool, joker_weight: int | None) -> Solution:
    counts, jokers, _ = _split(rack, okey)
    usable = _meldable(counts, jokers, wraps)
    # [position] -> naturals per colour; positions 0 and 14 hold none
    at: list[tuple[int, ...]] = list(zip(*usable, strict=True))
    carry: tuple[int, ...] = (0, 0, 0, 0)
    if wraps:
        # 1s can be kept back for 12-13-1 only in colours whose runs could reach 14
        carry = tuple(
            row[1] if (row[12] > 0) + (row[13] > 0) + jokers >= 2 else 0 for row in usable)
        at[14] = carry
    at += [(0, 0, 0, 0), (0, 0, 0, 0)]
    history, final = _fold(at, jokers, 14 if wraps else 13, joker_weight, carry)
    return _rebuild(rack, okey, at, jokers, joker_weight, carry, history, final)


# per position: the keys before it, their values, the packing shift, key -> packed value
# and origin; None where nothing could happen at that position
History = list[tuple[list[int], dict[int, int], int, dict[int, int]] | None]


def _flags(position: int, here: tuple[int, ...], jokers: int, carry: tuple[int, ...]
           ) -> tuple[bool, bool]:
    """(groups are possible here, 1s are kept here for position 14)."""
    kept = (here[0] > 0) + (here[1] > 0) + (here[2] > 0) + (here[3] > 0)
    # one natural and two jokers: below 12 the run X, J, J (X+1, X+2) is worth more
    groups_here = position != 14 and (kept >= 3 or (kept == 2 and jokers > 0) or (
        kept == 1 and jokers == 2 and position >= 12))
    return groups_here, position == 1 and carry != (0, 0, 0, 0)


def _fold(at: list[tuple[int, ...]], jokers: int, last: int, joker_weight: int | None,
          carry: tuple[int, ...]) -> tuple[History, int]:
    """The DP over positions 1..last: the history for the rebuild and the best final key."""
    frontier: dict[int, int] = {jokers * _JOKER: 0}
    history: History = []
    fast = _FAST
    empty = (0, 0, 0, 0)
    starts = _joker_start_ok(at, jokers)
    for position in range(1, last + 1):
        here, ahead1, ahead2 = at[position], at[position + 1], at[position + 2]
        keys = list(frontier)
        open_runs = keys[-1] >= 19683 or any(k >= 19683 for k in keys)
        if not open_runs and here == empty and (
                not jokers or (ahead1 == empty and ahead2 == empty)):
            history.append(None)  # nothing to meld, nothing open, no run can start
            continue
        weight = 1 if position == 14 else position
        joker_gain = weight if joker_weight is None else joker_weight
        shift = max(16, len(keys).bit_length())
        if len(keys) == 1:
            partial = {keys[0]: frontier[keys[0]] << shift}
        else:
            partial = {k: (v << shift) | i for i, (k, v) in enumerate(frontier.items())}
        natural_step, joker_step = weight << shift, joker_gain << shift
        groups_here, keeps_ones = _flags(position, here, jokers, carry)
        track = groups_here or keeps_ones
        opened = 0  # colours with an open run in some state
        if open_runs:
            for k in keys:
                states = k // 19683
                if states:
                    opened |= ((states % 35 > 0) | (states // 35 % 35 > 0) << 1
                               | (states // 1225 % 35 > 0) << 2 | (states // 42875 > 0) << 3)
        for colour in range(4):
            mul = _STATE[colour]
            short = ahead1[colour] * 3 + ahead2[colour]
            if position == 14:
                if not carry[colour] and not opened >> colour & 1:
                    continue
                nxt: dict[int, int] = {}
                get = nxt.get
                cmul = _CARRY[colour]
                rows = fast[colour][False][False]
                for key, packed in partial.items():
                    for dk, r, u in rows[key // cmul % 3][0][
                            key // mul % 35 * 3 + key // 6561 % 3]:
                        k = key + dk
                        cand = packed + r * natural_step + u * joker_step
                        if get(k, -1) < cand:
                            nxt[k] = cand
                partial = nxt
                continue
            n = here[colour]
            row = fast[colour][track][starts[colour][position]][n][short]
            if not n and not opened >> colour & 1 and (not short or not jokers):
                continue  # every state keeps this colour as it is
            nxt = {}
            get = nxt.get
            for key, packed in partial.items():
                for dk, r, u in row[key // mul % 35 * 3 + key // 6561 % 3]:
                    k = key + dk
                    cand = packed + r * natural_step + u * joker_step
                    if get(k, -1) < cand:
                        nxt[k] = cand
            partial = nxt
        if track:
            partial = _groups_step(partial, natural_step, joker_step, groups_here,
                                   carry if keeps_ones else None)
        history.append((keys, frontier, shift, partial))
        if jokers:
            frontier = _prune(partial, shift, ahead1, ahead2)
        else:  # each colour's table already kept only states it can close
            frontier = {k: p >> shift for k, p in partial.items()}
    finals = [(v, k) for k, v in frontier.items() if _closed(k)]
    return history, max(finals)[1]


def _joker_start_ok(at: list[tuple[int, ...]], jokers: int) -> list[list[bool]]:
    """[colour][position]: could a run that a joker starts there still reach 13, with the
    other jokers filling the gaps?"""
    out = []
    for colour in range(4):
        row = [False] * 15
        gaps = 0
        for position in range(13, 0, -1):
            row[position] = jokers > 0 and gaps <= jokers - 1
            gaps += at[position][colour] == 0
        out.append(row)
    return out


def _groups_step(partial: dict[int, int], natural_step: int, joker_step: int,
                 groups_here: bool, carry: tuple[int, ...] | None) -> dict[int, int]:
    """Meld the naturals kept at this position into groups; with `carry`, the 1s that stay
    go on to position 14 (in the colours that can reach it)."""
    nxt: dict[int, int] = {}
    get = nxt.get
    if carry is None:
        groups = _GROUPS
        for key, packed in partial.items():
            left = key % 81
            base = key - left
            options = groups[left]
            for used in range(key // 6561 % 3 + 1):
                entry = options[used]
                if entry is None:
                    continue
                k = base - used * 6561
                cand = packed + used * joker_step + entry[0] * natural_step
                if get(k, -1) < cand:
                    nxt[k] = cand
        return nxt
    for key, packed in partial.items():
        left = key % 81
        base = key - left
        top = key // 6561 % 3 if groups_here else 0
        for used in range(top + 1):
            k0 = base - used * 6561
            gain = packed + used * joker_step
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
    s0 = ahead1[0] * 3 + ahead2[0]
    s1 = ahead1[1] * 3 + ahead2[1]
    s2 = ahead1[2] * 3 + ahead2[2]
    s3 = ahead1[3] * 3 + ahead2[3]
    short = _SHORT
    out: dict[int, int] = {}
    get = partial.get
    for key, packed in partial.items():
        left = key // 6561 % 3
        states = key // 19683
        if states and (short[states % 35][s0] + short[states // 35 % 35][s1]
                       + short[states // 1225 % 35][s2] + short[states // 42875][s3]) > left:
            continue
        if left < 2:
            better = get(key + 6561)
            if better is not None and better >> shift >= packed >> shift:
                continue
            if left == 0:
                better = get(key + 13122)
                if better is not None and better >> shift >= packed >> shift:
                    continue
        out[key] = packed >> shift
    return out


def _closed(key: int) -> bool:
    states = key // 19683
    return (_CLOSED[states % 35] and _CLOSED[states // 35 % 35]
            and _CLOSED[states // 1225 % 35] and _CLOSED[states // 42875])


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


def _replay(start: int, target: int, gain: int, position: int, here: tuple[int, ...],
            joker_gain: int, groups_here: bool, carry: tuple[int, ...] | None) -> Path:
    """The moves at one position that take state `start` to `target` worth `gain`."""
    weight = 1 if position == 14 else position
    track = groups_here or carry is not None
    jokers = start // 6561 % 3
    runs: Runs = [None, None, None, None]
    open_choices = []
    melded = used = left = 0
    for colour in range(4):
        mul = _STATE[colour]
        s, t = start // mul % 35, target // mul % 35
        n = start // _CARRY[colour] % 3 if position == 14 else here[colour]
        if s == t == 0:  # nothing placed in this colour's runs
            left += n * _LEFT[colour]
            continue
        moves = [m for m in _REVERSE.get((s, t), ()) if m[0] <= n and m[1] <= jokers]
        if len(moves) == 1:
            r, u, acts, order = moves[0]
            runs[colour] = (acts, order)
            melded, used, left = melded + r, used + u, left + (n - r) * _LEFT[colour]
        else:
            open_choices.append((colour, n, moves))
    for combo in product(*(moves for _, _, moves in open_choices)):
        all_melded, all_used, all_left = melded, used, left
        for (colour, n, _), (r, u, _, _) in zip(open_choices, combo, strict=True):
            all_melded, all_used = all_melded + r, all_used + u
            all_left += (n - r) * _LEFT[colour]
        if all_used > jokers:
            continue
        if not track:
            all_left = 0
        key = target - target % 19683 + (jokers - all_used) * 6561 + start % 6561 - start % 81
        for grouped in range(jokers - all_used + 1 if groups_here else 1):
            k0 = key - grouped * 6561
            for use, count, groups in _GROUP_OPTIONS[all_left][grouped]:
                k = k0 + (_carried(all_left - use, carry) * 81 if carry is not None else 0)
                if k == target and (all_melded + count) * weight + (
                        all_used + grouped) * joker_gain == gain:
                    for (colour, _, _), (_, _, acts, order) in zip(open_choices, combo,
                                                                   strict=True):
                        runs[colour] = (acts, order)
                    return runs, groups
    raise AssertionError("no move reaches the state the DP recorded")


def _rebuild(rack: Sequence[Tile], okey: Tile, at: list[tuple[int, ...]], jokers: int,
             joker_weight: int | None, carry: tuple[int, ...], history: History,
             key: int) -> Solution:
    paths: list[tuple[int, Path]] = []
    for position in range(len(history), 0, -1):
        step = history[position - 1]
        if step is None:
            continue
        keys, before, shift, packed_of = step
        packed = packed_of[key]
        start = keys[packed & ((1 << shift) - 1)]
        gain = (packed >> shift) - before[start]
        if start == key and gain == 0 and key < 19683:
            continue  # no run open, no tile melded, no joker spent
        weight = 1 if position == 14 else position
        groups_here, keeps_ones = _flags(position, at[position], jokers, carry)
        paths.append((position, _replay(start, key, gain, position, at[position],
                                        weight if joker_weight is None else joker_weight,
                                        groups_here, carry if keeps_ones else None)))
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
    starts: list[list[int]] = [[0] * SLOTS for _ in range(4)]
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
                        melds.append(Meld("run", tuple(slot), starts[colour][i]))
                        slots[colour][i] = []
                    continue
                if not slot:
                    starts[colour][i] = position
                tile = colour * 13 + number - 1
                slot.append(natural(tile) if act == "N" else joker(tile))
                value += number
            if order != (0, 1, 2, 3):
                slots[colour] = [slots[colour][i] for i in order]
                starts[colour] = [starts[colour][i] for i in order]
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
                melds.append(Meld("run", tuple(slots[colour][i]), starts[colour][i]))
    pool.sort(key=_SORT_KEY.__getitem__)
    return Solution(value, tuple(melds), tuple(pool))


_SORT_KEY = [t for t in range(tiles.KINDS)]  # kinds already sort by colour, number; F last


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
