"""Writes scenario JSON files from short Python specs (tests/scenarios/specs_*.py).

The JSON files are the committed data; this only saves typing. A spec names the tiles that
matter in each rack; the builder fills each rack up to 22/21 (düz: 15/14) with tiles that do nothing
(no run, group or pair inside that rack, and away from the tiles that matter), lays out
the deck in the order the spec draws from it, and keeps books on every rack so a spec can
write its expected scores as rack sums (``S.rs(seat)``), computed here, not by the engine.

A spec runs twice: once to learn every tile it names, once with the filler chosen.

    python -m tests.scenarios.builder          # rewrite every file
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from okey101 import tiles

HERE = Path(__file__).parent
Spec = Callable[["Sc"], None]
REGISTRY: list[tuple[str, str, str, dict[str, Any] | None, Spec]] = []
FILLER = "$"  # a discard placeholder: this seat's next filler tile


def scenario(house: str, name: str, rule: str, options: dict[str, Any] | None = None
             ) -> Callable[[Spec], Spec]:
    def register(fn: Spec) -> Spec:
        REGISTRY.append((house, name, rule, options, fn))
        return fn
    return register


def _kind(name: str) -> int:
    return tiles.parse(name.split("=")[0])


def _stands(token: str) -> str:
    return token.split("=")[1] if "=" in token else token


class _Deal:
    def __init__(self, indicator: str, starter: int, racks: dict[int, list[str]]) -> None:
        self.indicator = indicator
        self.starter = starter
        self.racks = racks
        self.deck: list[str] = []  # the draws, in order
        self.named: set[str] = set()  # tiles named anywhere in this deal's commands


class Sc:
    def __init__(self, house: str, wraps: bool, plan: list[dict[str, Any]] | None,
                 sizes: tuple[int, int] = (22, 21)) -> None:
        self.house = house
        self.wraps = wraps
        self.sizes = sizes  # (the starter's tiles, every other seat's): düz deals 15, 14
        self.plan = plan  # pass 2: per deal {"filler": {seat: [...]}, "spare": [...]}
        self.deals: list[_Deal] = []
        self.commands: list[dict[str, Any]] = []
        self.lines: dict[str, dict[str, Any]] = {}
        self.final: dict[str, Any] = {}
        self.notes: list[str] = []
        self.rack_at_deal: list[list[list[str]]] = []
        # books, for the current deal
        self.rack: list[list[str]] = []
        self.pile: list[list[str]] = []
        self.filler_left: list[list[str]] = []
        self.turn = 0
        self.taken: str | None = None
        self.table: list[list[str]] = []  # what the tiles of each table meld stand for
        self.table_pairs: set[int] = set()

    # ------------------------------------------------------------ deals
    def deal(self, indicator: str = "K12", starter: int = 0, **racks: list[str]) -> None:
        given = {int(k[1:]): [t.split("=")[0] for t in v] for k, v in racks.items()}
        d = _Deal(indicator, starter, given)
        self.deals.append(d)
        filler = self.plan[len(self.deals) - 1]["filler"] if self.plan else {}
        self.rack = [given.get(s, []) + list(filler.get(s, [])) for s in range(4)]
        self.filler_left = [list(filler.get(s, [])) for s in range(4)]
        self.rack_at_deal.append([list(r) for r in self.rack])
        self.pile = [[], [], [], []]
        self.turn += 1
        self.taken = None
        self.table = []
        self.table_pairs = set()

    @property
    def d(self) -> _Deal:
        return self.deals[-1]

    @property
    def okey(self) -> str:
        return tiles.name(tiles.okey_for(tiles.parse(self.d.indicator)))

    # ------------------------------------------------------------ commands
    def _add(self, seat: int, cmd: str, x: Any, ok_books: Callable[[], None] | None,
             **fields: Any) -> int:
        i = len(self.commands)
        self.commands.append({"seat": seat, "cmd": cmd, **fields})
        for key in ("melds", "pairs"):
            for group in fields.get(key, []):
                self.d.named.update(_stands(t) for t in group)
                self.d.named.update(t.split("=")[0] for t in group)
        for t in fields.get("tiles", []):
            self.d.named.update({_stands(t), t.split("=")[0]})
        want: dict[str, Any] = {}
        if isinstance(x, str):
            want = {"ok": False, "code": x}
        elif isinstance(x, dict):
            want = dict(x)
        if want:
            self.lines[str(i)] = want
        retracted = "opening_retracted" in want.get("events", [])
        if want.get("ok", "code" not in want) and ok_books is not None and not retracted:
            ok_books()
        return i

    def _lays(self, seat: int, groups: list[list[str]], pairs: bool = False) -> None:
        self._remove(seat, [t for g in groups for t in g])
        for g in groups:
            if pairs:
                self.table_pairs.add(len(self.table))
            self.table.append([_stands(t) for t in g])

    def _safe(self, tile: str) -> bool:
        """Could not be laid off onto a run or group on the table (nor is an okey)."""
        if tile in ("F", "?") or tile == self.okey:
            return tile == "?"
        k = tiles.parse(tile)
        num, col = tiles.number_of(k), tiles.colour_of(k)
        for i, meld in enumerate(self.table):
            if i in self.table_pairs:
                continue
            ks = [tiles.parse(self.okey if t == "F" else t) for t in meld]
            nums = {tiles.number_of(t) for t in ks}
            if len(nums) == 1:  # a group
                if num in nums and len(ks) < 4 and col not in {tiles.colour_of(t) for t in ks}:
                    return False
            elif tiles.colour_of(ks[0]) == col and \
                    1 in ((min(nums) - num) % 13, (num - max(nums)) % 13):
                return False  # a run: next to either end (12-13-1 too)
        return True

    def _remove(self, seat: int, names: list[str]) -> None:
        for n in names:
            n = n.split("=")[0]
            if self.plan is not None:
                self.rack[seat].remove(n)
                if n in self.filler_left[seat]:
                    self.filler_left[seat].remove(n)

    def draw(self, seat: int, tile: str | None = None, x: Any = None, safe: bool = False
             ) -> str:
        """Draw `tile` (placed next in the deck) or, with None, a tile that does nothing
        (with `safe`, one that could not be laid off onto the table either)."""
        if tile is None:
            tile = self._spare(safe)
        else:
            self.d.named.add(tile)

        def books() -> None:
            if tile:
                self.d.deck.append(tile)
                self.rack[seat].append(tile)
        self._add(seat, "draw", x, books)
        return tile

    def _spare(self, safe: bool = True) -> str:
        if self.plan is None:
            return "?"
        spare: list[str] = self.plan[len(self.deals) - 1]["spare"]
        if not spare:
            return ""  # the deck is empty: the draw ends the hand
        tile = next((t for t in spare if self._safe(t)), None if safe else spare[0])
        if tile in ("F", self.okey):
            raise ValueError("only okeys and fake okeys are left to draw")
        if tile is None:
            raise ValueError(f"no safe tile left to draw in {spare}")
        spare.remove(tile)
        return tile

    def take(self, seat: int, x: Any = None) -> None:
        def books() -> None:
            tile = self.pile[(seat - 1) % 4].pop()
            self.rack[seat].append(tile)
            self.taken = tile
        self._add(seat, "take_discard", x, books)

    def put_back(self, seat: int, x: Any = None) -> None:
        def books() -> None:
            assert self.taken is not None
            self._remove(seat, [self.taken])
            self.pile[(seat - 1) % 4].append(self.taken)
        self._add(seat, "put_back", x, books)

    def discard(self, seat: int, tile: str = FILLER, x: Any = None) -> str:
        if tile == FILLER:
            left = self.filler_left[seat]
            tile = next((t for t in left if self._safe(t)), "") if self.plan else "?"
            if not tile:
                raise ValueError(f"seat {seat} has no safe filler tile left in {left}")
        else:
            self.d.named.add(tile)

        def books() -> None:
            self._remove(seat, [tile])
            self.pile[seat].append(tile)
            self.taken = None
            if self.plan is None or self.rack[seat]:
                self.turn += 1
        self._add(seat, "discard", x, books, tile=tile)
        return tile

    def idle(self, seat: int) -> None:
        """Draw a tile that does nothing and discard it."""
        tile = self.draw(seat)
        self.discard(seat, tile if self.plan is None or self._safe(tile) else FILLER)

    def open(self, seat: int, melds: list[list[str]] | None = None,
             pairs: list[list[str]] | None = None, x: Any = None) -> None:
        groups = melds or pairs or []
        def books() -> None:
            self._lays(seat, groups, not melds)
        key = "melds" if melds else "pairs"
        self._add(seat, "open", x, books, **{key: groups})

    def lay(self, seat: int, melds: list[list[str]] | None = None,
            pairs: list[list[str]] | None = None, x: Any = None) -> None:
        groups = melds or pairs or []
        def books() -> None:
            self._lays(seat, groups, not melds)
        key = "melds" if melds else "pairs"
        self._add(seat, "lay", x, books, **{key: groups})

    def lay_off(self, seat: int, meld: int, tiles_: list[str], end: str | None = None,
                x: Any = None) -> None:
        fields: dict[str, Any] = {"meld": meld, "tiles": tiles_}
        if end:
            fields["end"] = end
        def books() -> None:
            self._remove(seat, tiles_)
            self.table[meld].extend(_stands(t) for t in tiles_)
        self._add(seat, "lay_off", x, books, **fields)

    def take_okey(self, seat: int, meld: int, tiles_: list[str], x: Any = None) -> None:
        def books() -> None:
            self._remove(seat, tiles_)
            self.table[meld].extend(t for t in tiles_ if t not in self.table[meld])
            self.rack[seat].append(self.okey)
        self._add(seat, "take_okey", x, books, meld=meld, tiles=tiles_)

    def finish(self, seat: int, tile: str, melds: list[list[str]] | None = None,
               pairs: list[list[str]] | None = None, x: Any = None) -> None:
        """Düz: discard `tile` and show the rest as `melds` or `pairs`."""
        groups = melds or pairs or []
        self.d.named.add(tile)

        def books() -> None:
            self._remove(seat, [tile])
            self.pile[seat].append(tile)
            self._lays(seat, groups, not melds)
        key = "melds" if melds else "pairs"
        self._add(seat, "finish", x, books, tile=tile, **{key: groups})

    def declare(self, seat: int, x: Any = None) -> None:
        self._add(seat, "declare_pairs", x, None)

    def show(self, seat: int, x: Any = None) -> None:
        self._add(seat, "show_indicator", x, None)

    def timeout(self, seat: int, discards: str = "highest", draws: bool = True,
                put_back: bool = False, turn: int | None = None, x: Any = None) -> str:
        """A time-out: the engine puts back an unused taken discard (`put_back`), draws
        (`draws`) and discards `discards`, by default the highest tile of a rack that
        melds nothing (lowest kind on a tie, never the okey). The expected discard is
        added to the line's expectation."""
        drawn = self._spare() if draws else None
        rack = list(self.rack[seat])
        if put_back and self.taken is not None and self.plan is not None:
            rack.remove(self.taken)
        if drawn is not None:
            rack.append(drawn)
        tile = self._highest(rack) if discards == "highest" else discards

        def books() -> None:
            if put_back:
                assert self.taken is not None
                self._remove(seat, [self.taken])
                self.pile[(seat - 1) % 4].append(self.taken)
            if drawn is not None:
                self.d.deck.append(drawn)
                self.rack[seat].append(drawn)
            self._remove(seat, [tile])
            self.pile[seat].append(tile)
            self.turn += 1
        fields: dict[str, Any] = {} if turn is None else {"turn": turn}
        if x is None or (isinstance(x, dict) and "code" not in x):
            x = dict(x or {})
            x.setdefault("has", []).append({"type": "tile_discarded", "seat": seat,
                                            "tile": tile})
        self._add(seat, "timeout", x, books, **fields)
        return tile

    def _highest(self, rack: list[str]) -> str:
        if self.plan is None:
            return "?"
        okey = tiles.parse(self.okey)
        kinds = [tiles.parse(t) for t in rack if tiles.parse(t) != okey]
        return tiles.name(max(kinds, key=lambda t: (tiles.face_value(t, okey), -t)))

    def raw(self, seat: int, cmd: str, x: Any = None, **fields: Any) -> None:
        self._add(seat, cmd, x, None, **fields)

    # ------------------------------------------------------------ expectations
    def rs(self, seat: int) -> int:
        """The rack sum of `seat` now (section 8): F counts the okey's number, an okey 101."""
        if self.plan is None:
            return 0
        okey = self.okey
        total = 0
        for t in self.rack[seat]:
            if t == okey:
                total += 101
            elif t == "F":
                total += int(okey[1:])
            else:
                total += int(t[1:])
        return total

    def racks(self) -> list[list[str]]:
        """Every rack now, sorted as the scenario summary sorts them."""
        return [tiles.names(sorted(tiles.parse_many(r), key=tiles.sort_key))
                if self.plan else [] for r in self.rack]

    def expect(self, **final: Any) -> None:
        self.final.update(final)

    def note(self, text: str) -> None:
        self.notes.append(text)


# ---------------------------------------------------------------- choosing the filler
def _near(named: set[str]) -> set[int]:
    """Kinds a tile that does nothing should avoid: same colour within 2, same number."""
    out: set[int] = set()
    for n in named:
        if n in ("F", "?"):
            continue
        k = tiles.parse(n)
        c, num = tiles.colour_of(k), tiles.number_of(k)
        for dn in range(-2, 3):  # 12-13-1 where it is allowed: 1 sits after 13
            out.add(tiles.make(c, (num + dn - 1) % 13 + 1))
        for other in range(4):
            out.add(tiles.make(other, num))
    return out


def _melds_with(k: int, rack: list[int], okey: int, wraps: bool) -> bool:
    """Would `k` make a run, group or pair with natural tiles of `rack`? (A rack holding
    an okey cannot keep 21 tiles apart from it, so jokers are not considered.)"""
    jokers = 0
    stands = [okey if t == tiles.FAKE else t for t in rack if t != okey]
    if k in stands:
        return True  # a pair
    c, num = tiles.colour_of(k), tiles.number_of(k)
    colours = {tiles.colour_of(t) for t in stands if tiles.number_of(t) == num} - {c}
    if len(colours) + 1 + jokers >= 3:
        return True
    top = 14 if wraps else 13
    positions = {num} | ({14} if wraps and num == 1 else set())
    have = {tiles.number_of(t) for t in stands if tiles.colour_of(t) == c}
    have |= {14} if wraps and 1 in have else set()
    for pos in positions:
        for start in range(pos - 2, pos + 1):
            window = [q for q in range(start, start + 3) if q != pos]
            if start < 1 or start + 2 > top:
                continue
            if sum(1 for q in window if q not in have) <= jokers:
                return True
    return False


def _in_pattern(k: int, seat: int) -> bool:
    """A packing with no run, group or pair: seat s puts its colours s, s+1, s+2 on the
    numbers that are not 3, 1, 2 (mod 3) respectively; every tile is then used twice."""
    shift = (tiles.colour_of(k) - seat) % 4
    return shift < 3 and tiles.number_of(k) % 3 != (0, 1, 2)[shift]


def _try_filler(d: _Deal, okey: int, near: set[int], used: Counter[int], wraps: bool,
                rng: random.Random, sizes: tuple[int, int]) -> dict[int, list[str]] | None:
    filler: dict[int, list[str]] = {}
    for seat in range(4):
        want = (sizes[0] if seat == d.starter else sizes[1]) - len(d.racks.get(seat, []))
        if want < 0:
            raise ValueError(f"rack {seat} has too many tiles")
        rack = [tiles.parse(t) for t in d.racks.get(seat, [])]
        keys = {k: (k in near, not _in_pattern(k, seat), rng.random())
                for k in range(tiles.FAKE)}
        chosen: list[str] = []
        for k in sorted(range(tiles.FAKE), key=keys.__getitem__):
            if len(chosen) == want:
                break
            if k == okey or used[k] >= 2 or _melds_with(k, rack, okey, wraps):
                continue
            rack.append(k)
            used[k] += 1
            chosen.append(tiles.name(k))
        if len(chosen) < want:
            return None
        filler[seat] = chosen
    return filler


def plan_deals(sc: Sc) -> list[dict[str, Any]]:
    plans = []
    for d in sc.deals:
        okey = tiles.okey_for(tiles.parse(d.indicator))
        named_tiles = [t for r in d.racks.values() for t in r] + [d.indicator] + d.deck
        used = Counter(tiles.parse(t) for t in named_tiles if t != "?")
        meaningful = {t for r in d.racks.values() for t in r} | d.named | {d.indicator}
        meaningful |= {t for t in d.deck if t != "?"}
        near = _near(meaningful) | {okey}
        # what must stay in the deck (drawn by the spec) is reserved above; the deck's
        # spare tiles are chosen after the filler, so keep enough far tiles for the draws
        filler: dict[int, list[str]] | None = None
        for attempt in range(200):
            trial = used.copy()
            filler = _try_filler(d, okey, near, trial, sc.wraps, random.Random(attempt),
                                 sc.sizes)
            if filler is not None:
                used = trial
                break
        if filler is None:
            raise ValueError("no filler: too many tiles named")
        rest = [k for k in range(tiles.KINDS) for _ in range(2 - used[k])]
        rest.sort(key=lambda k: (k == okey or k == tiles.FAKE, k in near, k))
        plans.append({"filler": filler, "spare": [tiles.name(k) for k in rest]})
    return plans


# ---------------------------------------------------------------- writing
def build(house: str, name: str, rule: str, options: dict[str, Any] | None, fn: Spec
          ) -> dict[str, Any]:
    from okey101.profiles import resolve
    profile = resolve({"base": house, "options": options or {}})
    sizes = (profile.starter_tiles, profile.other_tiles)
    first = Sc(house, profile.run_wraps_13_to_1, None, sizes)
    fn(first)
    second = Sc(house, profile.run_wraps_13_to_1, plan_deals(first), sizes)
    fn(second)
    doc: dict[str, Any] = {"rule": rule}
    if second.notes:
        doc["notes"] = second.notes
    doc["profile"] = {"base": house, "options": options} if options else house
    deals = [{"indicator": d.indicator, "starter": d.starter,
              "racks": second.rack_at_deal[i],
              "deck": d.deck} for i, d in enumerate(second.deals)]
    if len(deals) == 1:
        doc["deal"] = deals[0]
    else:
        doc["deals"] = deals
    doc["commands"] = second.commands
    doc["expect"] = {"lines": second.lines, "final": second.final}
    return doc


def dumps(doc: dict[str, Any]) -> str:
    """JSON with one rack, one command, one expected line per line."""
    def one(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False)
    out = ["{"]
    items = list(doc.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n < len(items) - 1 else ""
        if key in ("deal", "deals"):
            deals = value if key == "deals" else [value]
            parts = []
            for d in deals:
                racks = ",\n".join(f"      {one(r)}" for r in d["racks"])
                parts.append(f'    {{"indicator": {one(d["indicator"])}, "starter": {d["starter"]},'
                             f'\n     "racks": [\n{racks}],\n     "deck": {one(d["deck"])}}}')
            body = ",\n".join(parts)
            if key == "deals":
                out.append(f'  "deals": [\n{body}]{comma}')
            else:
                out.append(f'  "deal":\n{body}{comma}')
        elif key == "commands":
            cmds = ",\n".join(f"    {one(c)}" for c in value)
            out.append(f'  "commands": [\n{cmds}]{comma}')
        elif key == "expect":
            lines = ",\n".join(f"      {one(k)}: {one(v)}" for k, v in value["lines"].items())
            lines_part = f'{{\n{lines}}}' if lines else "{}"
            final = ",\n".join(f"      {one(k)}: {one(v)}" for k, v in value["final"].items())
            final_part = f'{{\n{final}}}' if final else "{}"
            out.append(f'  "expect": {{\n    "lines": {lines_part},\n    "final": {final_part}}}'
                       f"{comma}")
        else:
            out.append(f"  {one(key)}: {one(value)}{comma}")
    out.append("}")
    return "\n".join(out) + "\n"


def main() -> None:
    import importlib
    for spec_file in sorted(HERE.glob("specs_*.py")):
        importlib.import_module(f"tests.scenarios.{spec_file.stem}")
    registry = importlib.import_module("tests.scenarios.builder").REGISTRY
    for house, name, rule, options, fn in registry:
        doc = build(house, name, rule, options, fn)
        path = HERE / house / f"{name}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(dumps(doc))
    print(f"wrote {len(registry)} scenarios")


if __name__ == "__main__":
    main()
