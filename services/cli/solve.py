"""`okey101 solve`: the best melds of a rack under a house, as one JSON object.

101 houses: the opening value in the house's count (face values, or the "34" count's
floor(sum / 3) per meld), the melds reaching it, the most pairs, and the arrangement that
leaves the least value. Düz houses: can this rack finish (RULES.md §12)? A 15-tile rack
discards one tile and shows the rest; a smaller one must show whole.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from okey101 import profiles, solver, tiles
from okey101.errors import MalformedInput
from okey101.profiles import Profile
from okey101.table.rules import best_finish, shown_finish_kind

MAX_RACK = {"101": 22, "duz": 15}  # the starter's rack before its first discard


def register(commands: Any) -> None:
    solve = commands.add_parser("solve", help="the best melds, pairs and leftover of a rack "
                                              "(düz: can it finish?)")
    solve.add_argument("--profile", default="okeygg", choices=sorted(profiles.HOUSES))
    solve.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="a profile option (JSON value), e.g. meld_value=third")
    solve.add_argument("--indicator", required=True, help="the face-up tile, e.g. Y5")
    solve.add_argument("tiles", nargs="+", help="rack tiles: R7 Y13 B1 K10 F ...")
    solve.set_defaults(run=run)


def options(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` pairs as profile options; a VALUE that is not JSON is a string."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise MalformedInput(f"--option {pair!r}: expected KEY=VALUE")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def run(args: argparse.Namespace) -> int:
    profile = profiles.resolve({"base": args.profile, "options": options(args.option)})
    indicator = tiles.parse_at([args.indicator], "--indicator")[0]
    if indicator == tiles.FAKE:
        raise MalformedInput("indicator 'F': a fake okey cannot be the indicator")
    limit = MAX_RACK[profile.game]
    if len(args.tiles) > limit:
        game = " in düz" if profile.game == "duz" else ""
        raise MalformedInput(f"{len(args.tiles)} tiles: a rack holds at most {limit}{game}")
    rack = tiles.parse_at(args.tiles, "rack", first=1)
    tiles.check_counts([*rack, indicator], "rack and indicator")
    okey = tiles.okey_for(indicator)
    answer = duz_answer(profile, rack, okey) if profile.game == "duz" else \
        points_answer(profile, rack, okey)
    print(json.dumps({"profile": profile.id, "okey": tiles.name(okey), **answer}))
    return 0


def points_answer(profile: Profile, rack: list[int], okey: int) -> dict[str, Any]:
    wraps = profile.run_wraps_13_to_1
    best = solver.opening(rack, okey, wraps, profile.meld_value)
    arranged = solver.arrange(rack, okey, wraps, profile.okey_in_rack_value)
    return {
        "meld_value": profile.meld_value,
        "opening_points": profile.opening_points,
        "opening_value": best.value,
        "opening_melds": [m.notation(okey) for m in best.melds],
        "pairs": solver.most_pairs(rack, okey),
        "arranged_melds": [m.notation(okey) for m in arranged.melds],
        "leftover": tiles.names(arranged.leftover),
        "leftover_value": solver.leftover_value(arranged.leftover, okey,
                                                profile.okey_in_rack_value),
    }


def duz_answer(profile: Profile, rack: list[int], okey: int) -> dict[str, Any]:
    wraps = profile.run_wraps_13_to_1
    found = best_finish(profile, rack, okey)
    fewest = solver.fewest_left(rack, okey, wraps)
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
