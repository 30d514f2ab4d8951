"""The rack helpers' one answer, for `okey101 solve` and the gateway's `/api/solve`.

101 houses: the opening value in the house's count (face values, or the "34" count's
floor(sum / 3) per meld), the melds reaching it, the most pairs, and the arrangement that
leaves the least value. Düz houses: can this rack finish (RULES.md §12)? A 15-tile rack
discards one tile and shows the rest; a smaller one must show whole. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from okey101 import solver, tiles
from okey101.errors import MalformedInput
from okey101.profiles import Profile
from okey101.table.rules import best_finish, shown_finish_kind
from okey101.tiles import Tile

MAX_RACK = {"101": 22, "duz": 15}  # the starter's rack before its first discard
Kind = Literal["arrange", "opening", "pairs", "finish"]
KINDS: tuple[Kind, ...] = ("arrange", "opening", "pairs", "finish")


class Helped(msgspec.Struct, frozen=True, kw_only=True):
    """One helper's answer: the melds to lay out, what they are worth, the rest."""

    melds: list[list[str]]  # each meld's tiles
    value: int  # opening: the house's count; arrange: face value; pairs: how many;
    # finish (düz): 1 when the rack finishes now, else 0
    leftover: list[str]
    finish_kind: str | None = None  # finish: normal, okey, pairs or pairs_okey


def rack_of(profile: Profile, names: Sequence[str], first: int = 0) -> list[Tile]:
    """The rack `names` spell, within the game's size and the set's counts."""
    limit = MAX_RACK[profile.game]
    if len(names) > limit:
        game = " in düz" if profile.game == "duz" else ""
        raise MalformedInput(f"{len(names)} tiles: a rack holds at most {limit}{game}")
    rack = tiles.parse_at(list(names), "rack", first=first)
    tiles.check_counts(rack, "rack")
    return rack


def helped(kind: Kind, profile: Profile, rack: Sequence[Tile], okey: Tile) -> Helped:
    """The gateway's helpers: `arrange` (sırala), `opening` (Otomatik Seri Aç, 101 only),
    `pairs` (Otomatik Çift Aç), `finish` (düz only: the finish worth most)."""
    wraps = profile.run_wraps_13_to_1
    if kind == "pairs":
        pairs = solver.pairs_of(rack, okey)
        return Helped(melds=[m.notation(okey) for m in pairs], value=len(pairs),
                      leftover=_left(rack, [t for m in pairs for t, _ in m.tiles]))
    if kind == "finish":
        if profile.game != "duz":
            raise MalformedInput(f"finish: {profile.id} is a 101 house; ask opening")
        found = best_finish(profile, rack, okey)
        if found is None:
            arranged = solver.fewest_left(rack, okey, wraps)
            return Helped(melds=[m.notation(okey) for m in arranged.melds], value=0,
                          leftover=tiles.names(arranged.leftover))
        return Helped(melds=[m.notation(okey) for m in found.melds], value=1,
                      leftover=[tiles.name(found.discard)] if found.discard is not None
                      else [], finish_kind=shown_finish_kind(found.pairs,
                                                             found.discard == okey))
    if kind == "opening":
        if profile.game == "duz":
            raise MalformedInput(f"opening: {profile.id} is a düz house; ask finish")
        best = solver.opening(rack, okey, wraps, profile.meld_value)
        return Helped(melds=[m.notation(okey) for m in best.melds], value=best.value,
                      leftover=tiles.names(best.leftover))
    arranged = solver.fewest_left(rack, okey, wraps) if profile.game == "duz" else \
        solver.arrange(rack, okey, wraps, profile.okey_in_rack_value)
    return Helped(melds=[m.notation(okey) for m in arranged.melds], value=arranged.value,
                  leftover=tiles.names(arranged.leftover))


def answer(profile: Profile, rack: Sequence[Tile], okey: Tile) -> dict[str, Any]:
    """`okey101 solve`'s whole answer, from the same helpers."""
    if profile.game == "duz":
        return _duz_answer(profile, rack, okey)
    best = helped("opening", profile, rack, okey)
    arranged = solver.arrange(rack, okey, profile.run_wraps_13_to_1,
                              profile.okey_in_rack_value)
    return {
        "meld_value": profile.meld_value,
        "opening_points": profile.opening_points,
        "opening_value": best.value,
        "opening_melds": best.melds,
        "pairs": solver.most_pairs(rack, okey),
        "arranged_melds": [m.notation(okey) for m in arranged.melds],
        "leftover": tiles.names(arranged.leftover),
        "leftover_value": solver.leftover_value(arranged.leftover, okey,
                                                profile.okey_in_rack_value),
    }


def _duz_answer(profile: Profile, rack: Sequence[Tile], okey: Tile) -> dict[str, Any]:
    found = best_finish(profile, rack, okey)
    fewest = solver.fewest_left(rack, okey, profile.run_wraps_13_to_1)
    finish: dict[str, Any] | None = None
    if found is not None:
        finish = {"discard": tiles.name(found.discard) if found.discard is not None else None,
                  "pairs" if found.pairs else "melds": [m.notation(okey) for m in found.melds],
                  "kind": shown_finish_kind(found.pairs, found.discard == okey)}
    return {
        "game": "duz",
        "finishes": found is not None,
        "finish": finish,
        "pairs": solver.most_pairs(rack, okey),
        "arranged_melds": [m.notation(okey) for m in fewest.melds],
        "leftover": tiles.names(fewest.leftover),
    }


def _left(rack: Sequence[Tile], used: Sequence[Tile]) -> list[str]:
    left = list(rack)
    for t in used:
        left.remove(t)
    return tiles.names(sorted(left, key=tiles.sort_key))
