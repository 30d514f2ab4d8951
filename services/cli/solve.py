"""`okey101 solve`: the best melds of a rack under a house, as one JSON object
(`okey101.app.solve.answer`, the gateway's helpers' answer too)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from okey101 import profiles, tiles
from okey101.app import solve
from okey101.errors import MalformedInput


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
    rack = solve.rack_of(profile, args.tiles, first=1)
    tiles.check_counts([*rack, indicator], "rack and indicator")
    okey = tiles.okey_for(indicator)
    print(json.dumps({"profile": profile.id, "okey": tiles.name(okey),
                      **solve.answer(profile, rack, okey)}))
    return 0
