"""Runs, groups and pairs, with jokers and fake okeys, under a profile.

A meld on the table is a `Meld`: its kind and its tiles in order, each tile as
(`played`, `stands`): the tile put down and the tile it plays as. A natural tile stands for
itself; a fake okey stands for the okey's own tile; a joker (a real okey tile) stands for
whatever the player names (``Y6=K9``). Run positions run 1..13, and 14 is "1 after 13"
where the profile allows 12-13-1; position 14 counts 1 point.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Literal

import msgspec

from okey101 import tiles
from okey101.errors import IllegalMove, MalformedInput
from okey101.terms import LayOffEnd, MeldCount, RunEnd
from okey101.tiles import FAKE, Tile

MeldKind = Literal["run", "group", "pair"]
Placed = tuple[Tile, Tile]  # (played, stands)


class Meld(msgspec.Struct, frozen=True, array_like=True, gc=False):  # acyclic: untracked
    kind: MeldKind
    tiles: tuple[Placed, ...]
    # first run position (1..14): 14 only appears as the last tile of a wrapping run
    start: int = 0

    def positions(self) -> list[int]:
        if self.kind != "run":
            return [tiles.number_of(s) for _, s in self.tiles]
        return list(range(self.start, self.start + len(self.tiles)))

    @property
    def colour(self) -> int:
        return tiles.colour_of(self.tiles[0][1])

    @property
    def number(self) -> int:
        return tiles.number_of(self.tiles[0][1])

    def value(self) -> int:
        """Tile values added up; a joker counts as the tile it stands for, position 14 as 1."""
        if self.kind == "run":  # positions start..end: their sum, 14 (always last) as 1
            n = len(self.tiles)
            end = self.start + n - 1
            return (self.start + end) * n // 2 - (13 if end == 14 else 0)
        return sum(s % 13 + 1 for _, s in self.tiles)

    def notation(self, okey: Tile) -> list[str]:
        return list(_notation(self, okey))

    def describe(self, okey: Tile) -> str:
        names = self.notation(okey)
        if self.kind == "run" and len(names) > 3:
            return f"{self.kind} ({names[0]}-{names[-1]})"
        return f"{self.kind} ({' '.join(names)})"

    def jokers(self, okey: Tile) -> list[int]:
        """Indexes of the joker tiles in this meld."""
        return [i for i, (played, _) in enumerate(self.tiles) if played == okey]


def counted_value(meld: Meld, count: MeldCount) -> int:
    """What `meld` is worth toward an opening in a house's count: its face value, or (the
    "34" count of seeds/003) floor(face value / 3). The page computes the latter as the
    middle tile of a 3-tile core plus a third of each extra tile; its totals (13-13-13 is
    13, 7-8-9-10 is 11, 4-5-6-7-8 is 10) are floor(sum / 3) of the whole meld."""
    value = meld.value()
    return value // 3 if count == "third" else value


def position_value(position: int) -> int:
    return 1 if position == 14 else position


def placed_name(placed: Placed, okey: Tile) -> str:
    played, stands = placed
    if played == okey and stands != okey:
        return f"{tiles.name(played)}={tiles.name(stands)}"
    return tiles.name(played)


@functools.lru_cache(maxsize=8192)
def _notation(meld: Meld, okey: Tile) -> tuple[str, ...]:
    # every player view names every meld on the table: the same melds, update after update
    return tuple(placed_name(p, okey) for p in meld.tiles)


def place(played: Tile, stands: Tile | None, okey: Tile, token: str = "") -> Placed:
    """What a played tile stands for: a joker what is named, a fake okey the okey, else itself."""
    label = token or tiles.name(played)
    if played == FAKE:
        if stands is not None and stands != okey:
            raise IllegalMove(f"{label}: a fake okey plays only as the okey {tiles.name(okey)}",
                              "fake_okey_is_not_a_joker")
        return (FAKE, okey)
    if played == okey:
        return (played, okey if stands is None else stands)
    if stands is not None and stands != played:
        raise IllegalMove(f"{label}: only an okey ({tiles.name(okey)}) can stand for another tile",
                          "not_a_joker")
    return (played, played)


def parse_placed(tokens: Sequence[str], okey: Tile) -> list[Placed]:
    if not isinstance(tokens, (list, tuple)):
        raise MalformedInput(f"a meld must be a list of tiles, got {tokens!r}")
    out = []
    for token in tokens:
        played, stands = tiles.parse_meld_token(token)
        out.append(place(played, stands, okey, token))
    return out


def _run_start(numbers: list[int], wraps: bool) -> int | None:
    """The start position if `numbers` (in the order given, or sorted) is one run."""
    n = len(numbers)
    for candidate in (numbers, sorted(numbers)):
        if all(candidate[i + 1] == candidate[i] + 1 for i in range(n - 1)):
            return candidate[0]
    if wraps and 1 in numbers and 13 in numbers:
        lifted = sorted(14 if x == 1 else x for x in numbers)
        if numbers.count(1) == 2:  # 1..13 and 1 again: one 1 at each end
            lifted = sorted([1] + [x for x in lifted if x != 14] + [14])
        if all(lifted[i + 1] == lifted[i] + 1 for i in range(n - 1)):
            return lifted[0]
    return None


def as_run(placed: Sequence[Placed], wraps: bool) -> Meld | None:
    n = len(placed)
    if n < 3:
        return None
    colour = placed[0][1] // 13
    numbers = []
    for _, s in placed:
        if s // 13 != colour:
            return None
        numbers.append(s % 13 + 1)
    low = min(numbers)
    if max(numbers) - low == n - 1 and len(set(numbers)) == n:
        # n distinct numbers from low to low + n - 1: the run, each tile at its number
        return Meld("run", tuple(sorted(placed, key=_number_of_stands)), low)
    start = _run_start(numbers, wraps)
    if start is None or start + n - 1 > (14 if wraps else 13):
        return None
    pool = list(placed)
    ordered_list = []
    for q in range(start, start + n):
        wanted = 1 if q == 14 else q
        match = next(p for p in pool if tiles.number_of(p[1]) == wanted)
        pool.remove(match)
        ordered_list.append(match)
    ordered = tuple(ordered_list)
    return Meld("run", ordered, start)


def _number_of_stands(placed: Placed) -> int:
    return placed[1] % 13


def _colour_of_stands(placed: Placed) -> int:
    return placed[1] // 13


def as_group(placed: Sequence[Placed]) -> Meld | None:
    n = len(placed)
    if n != 3 and n != 4:
        return None
    number = placed[0][1] % 13
    colours = 0
    for _, s in placed:
        if s % 13 != number:
            return None
        colours |= 1 << (s // 13)
    if colours.bit_count() != n:  # a colour twice
        return None
    return Meld("group", tuple(sorted(placed, key=_colour_of_stands)))


def as_pair(placed: Sequence[Placed], okey: Tile, pair_jokers: frozenset[Tile] = frozenset()
            ) -> Meld | None:
    """Two identical tiles; an okey (or an okeygg indicator pair tile) pairs with any tile."""
    if len(placed) != 2:
        return None
    (a_played, a), (b_played, b) = placed
    wild = {okey} | pair_jokers
    if a == b or a_played in wild or b_played in wild:
        if a_played in wild and b_played not in wild:
            return Meld("pair", ((a_played, b), placed[1]))
        if b_played in wild and a_played not in wild:
            return Meld("pair", (placed[0], (b_played, a)))
        return Meld("pair", tuple(placed))
    return None


def classify(placed: Sequence[Placed], wraps: bool) -> Meld:
    """A run or a group from placed tiles, or IllegalMove naming the tiles."""
    meld = as_group(placed) or as_run(placed, wraps)
    if meld is None:
        shown = " ".join(tiles.name(s) for _, s in placed)
        raise IllegalMove(f"[{shown}] is neither a run nor a group", "invalid_meld")
    return meld


def extension_positions(meld: Meld, wraps: bool) -> list[int]:
    """Run positions a tile could be added at (either end), or [] for groups and pairs."""
    if meld.kind != "run":
        return []
    out = []
    end = meld.start + len(meld.tiles) - 1
    if meld.start > 1:
        out.append(meld.start - 1)
    if end < (14 if wraps else 13):
        out.append(end + 1)
    return out


def stands_at(colour: int, position: int) -> Tile:
    return tiles.make(colour, 1 if position == 14 else position)


def missing_colours(meld: Meld) -> list[int]:
    if meld.kind != "group":
        return []
    present = {tiles.colour_of(s) for _, s in meld.tiles}
    return [c for c in range(4) if c not in present]


@functools.lru_cache(maxsize=1 << 16)  # a meld on the table is asked at every turn
def fitting_stands(meld: Meld, wraps: bool) -> frozenset[Tile]:
    """The tiles a tile must stand for to fit on `meld` now (an okey fits wherever there is
    room, whatever it stands for): `lay_off_targets` is empty for any other."""
    if meld.kind == "run":
        return frozenset(stands_at(meld.colour, p) for p in extension_positions(meld, wraps))
    if meld.kind == "group":
        return frozenset(tiles.make(c, meld.number) for c in missing_colours(meld))
    return frozenset()


def lay_off_targets(stands: Tile, meld: Meld, wraps: bool) -> list[int]:
    """Where a tile standing for `stands` fits on `meld`: run positions, or 0 for a group."""
    if meld.kind == "run":
        return [p for p in extension_positions(meld, wraps)
                if stands_at(meld.colour, p) == stands]
    if meld.kind == "group" and tiles.number_of(stands) == meld.number and \
            tiles.colour_of(stands) in missing_colours(meld):
        return [0]
    return []


def extend(meld: Meld, placed: Placed, position: int, wraps: bool) -> Meld:
    """`meld` with one more tile: at a run `position`, or into a group (position 0)."""
    if meld.kind == "group":
        grown = as_group([*meld.tiles, placed])
        if grown is None:
            raise IllegalMove(f"{tiles.name(placed[1])} does not complete group", "cannot_lay_off")
        return grown
    if position == meld.start - 1:
        return Meld("run", (placed, *meld.tiles), meld.start - 1)
    return Meld("run", (*meld.tiles, placed), meld.start)


def is_playable(tile: Tile, melds: Sequence[Meld], okey: Tile, wraps: bool) -> bool:
    """Could `tile` be laid off onto a run or group on the table (the discard penalty)?"""
    if tile == okey:
        return any(m.kind != "pair" and (extension_positions(m, wraps) or missing_colours(m))
                   for m in melds)
    stands = okey if tile == FAKE else tile
    colour, number = stands // 13, stands % 13 + 1
    top = 14 if wraps else 13
    for m in melds:  # the arithmetic of `lay_off_targets`, on the discard's hot path
        if m.kind == "run":
            if m.tiles[0][1] // 13 != colour:
                continue
            low, high = m.start - 1, m.start + len(m.tiles)
            if (low >= 1 and low == number) or (high <= top and (
                    high == number or (high == 14 and number == 1))):
                return True
        elif m.kind == "group" and len(m.tiles) < 4 and m.tiles[0][1] % 13 + 1 == number \
                and all(s // 13 != colour for _, s in m.tiles):
            return True
    return False


# ---------------------------------------------------------------- lay-off geometry
def lay_off_ends(tile: Tile, meld: Meld, okey: Tile, wraps: bool) -> list[LayOffEnd]:
    """Where one `tile` fits on `meld` now: the run ends it extends, or "group" (an okey
    goes on any end, or fills any missing colour). Pairs take no lay-offs."""
    if meld.kind == "pair":
        return []
    if tile == okey:
        if meld.kind == "group":
            return ["group"] if missing_colours(meld) else []
        positions = extension_positions(meld, wraps)
    else:
        positions = lay_off_targets(okey if tile == FAKE else tile, meld, wraps)
    if meld.kind == "group":
        return ["group"] if positions else []
    return ["low" if p == meld.start - 1 else "high" for p in positions]


def lay_off_plan(meld: Meld, placed: Sequence[Placed], tokens: Sequence[str],
                 end: RunEnd | None, okey: Tile, wraps: bool, label: Callable[[], str]
                 ) -> tuple[list[Placed], LayOffEnd]:
    """`placed` laid off on `meld` one by one, at one end of a run (`end`, or whichever
    fits) or into a group: the tiles in laying order, and where they went. `label()`
    names the meld in an error (made only for one)."""
    if meld.kind == "group":
        grown, added = meld, []
        for token, pl in zip(tokens, placed, strict=True):
            plain_okey = pl[0] == okey and pl[1] == okey
            if not lay_off_targets(pl[1], grown, wraps) and not (
                    plain_okey and missing_colours(grown)):
                raise IllegalMove(f"{token} does not fit {label()}", "cannot_lay_off")
            if plain_okey:
                pl = (pl[0], tiles.make(missing_colours(grown)[0], grown.number))
            grown = extend(grown, pl, 0, wraps)
            added.append(pl)  # grown.tiles is sorted by colour: its tail is not the new tiles
        return added, "group"
    ends: list[RunEnd] = [end] if end else ["high", "low"]
    for side in ends:
        order = run_order(meld, placed, side, okey, wraps)
        if order is not None:
            return order, side
    raise IllegalMove(f"{' '.join(tokens)} cannot extend {label()}", "cannot_lay_off")


def run_order(meld: Meld, placed: Sequence[Placed], end: RunEnd, okey: Tile, wraps: bool
              ) -> list[Placed] | None:
    """The tiles in the order that extends run `meld` at `end`, or None if they do not."""
    pool = list(placed)
    grown, out = meld, []
    while pool:
        pos = (grown.start - 1) if end == "low" else grown.start + len(grown.tiles)
        if pos not in extension_positions(grown, wraps):
            return None
        want = stands_at(meld.colour, pos)
        pick = next((pl for pl in pool if pl[1] == want and pl[0] != okey), None) or \
            next((pl for pl in pool if pl[0] == okey and pl[1] in (want, okey)), None)
        if pick is None:
            return None
        pool.remove(pick)
        pick = (pick[0], want)
        grown = extend(grown, pick, pos, wraps)
        out.append(pick)
    return out


def lay_off_position(meld: Meld, end: LayOffEnd) -> int:
    """The run position a lay-off at `end` takes (0 for a group)."""
    if end == "group":
        return 0
    return meld.start - 1 if end == "low" else meld.start + len(meld.tiles)


def replace_okey(meld: Meld, okey: Tile, put: Sequence[Tile]) -> Meld:
    """`meld` with its okey swapped for the real tile(s) `put` (a 3-group gets both)."""
    items = list(meld.tiles)
    rest = list(put)
    for i, (played, stands) in enumerate(items):
        if played == okey and stands in rest:
            items[i] = (stands, stands)
            rest.remove(stands)
            break
    for t in rest:  # the fourth colour completing a group
        items.append((t, t))
    if meld.kind == "group":
        return Meld("group", tuple(sorted(items, key=lambda p: tiles.colour_of(p[1]))))
    return Meld(meld.kind, tuple(items), meld.start)


def melds_with(rack: Sequence[Tile], tile: Tile, okey: Tile, wraps: bool) -> list[Meld]:
    """Runs (3-5 long: longer runs split) and groups from `rack` that use `tile`."""
    have = Counter(rack)
    jokers = have.pop(okey, 0)
    stands = okey if tile == FAKE else tile
    out = []
    for kind, need, start in _shapes_with(stands, wraps):
        placed = _fill(need, have, jokers, tile, stands, okey)
        if placed is None or not any(pl[0] == tile for pl in placed):
            continue
        meld = Meld("run", tuple(placed), start) if kind == "run" else as_group(placed)
        if meld is not None:
            out.append(meld)
    return out


def _shapes_with(stands: Tile, wraps: bool) -> list[tuple[MeldKind, list[Tile], int]]:
    """Every run (3-5 long) and group shape holding `stands`: (kind, tiles, run start)."""
    colour, number = tiles.colour_of(stands), tiles.number_of(stands)
    shapes: list[tuple[MeldKind, list[Tile], int]] = []
    top = 14 if wraps else 13
    for pos in [number] + ([14] if wraps and number == 1 else []):
        for length in (3, 4, 5):
            for start in range(max(1, pos - length + 1), min(pos, top - length + 1) + 1):
                shapes.append(("run", [stands_at(colour, q)
                                       for q in range(start, start + length)], start))
    others = [c for c in range(4) if c != colour]
    for size in (2, 3):
        for i in range(len(others)):
            for j in range(i + 1, len(others)):
                cols = [others[i], others[j]] if size == 2 else others
                shapes.append(("group", [stands, *(tiles.make(x, number) for x in cols)], 0))
    return shapes


def _fill(need: list[Tile], have: Counter[Tile], jokers: int, tile: Tile, stands: Tile,
          okey: Tile) -> list[Placed] | None:
    """`need` filled from `have` (naturals first, `tile` itself where it stands, then
    jokers), or None when the rack cannot."""
    pool = Counter(have)
    placed: list[Placed] = []
    spare, first = jokers, True
    for want in need:
        natural = FAKE if want == okey and pool[FAKE] > 0 else want
        if first and want == stands:
            natural, first = tile, False
        if pool[natural] > 0:
            pool[natural] -= 1
            placed.append((natural, want))
        elif spare > 0:
            spare -= 1
            placed.append((okey, want))
        else:
            return None
    return placed
