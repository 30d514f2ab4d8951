"""The `okey101` command line: solve a rack (and more as the engine grows)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from okey101 import profiles, solver, tiles
from okey101.errors import MalformedInput


def _solve(args: argparse.Namespace) -> int:
    profile = profiles.resolve(args.profile)
    indicator = tiles.parse(args.indicator)
    if indicator == tiles.FAKE:
        raise MalformedInput("indicator 'F': a fake okey cannot be the indicator")
    rack = tiles.parse_many(args.tiles)
    tiles.check_counts([*rack, indicator], "rack and indicator")
    okey = tiles.okey_for(indicator)
    wraps = profile.run_wraps_13_to_1
    best = solver.opening(rack, okey, wraps)
    arranged = solver.arrange(rack, okey, wraps, profile.okey_in_rack_value)
    print(json.dumps({
        "profile": profile.id,
        "okey": tiles.name(okey),
        "opening_value": best.value,
        "opening_melds": [m.notation(okey) for m in best.melds],
        "pairs": solver.most_pairs(rack, okey),
        "arranged_melds": [m.notation(okey) for m in arranged.melds],
        "leftover": tiles.names(arranged.leftover),
        "leftover_value": solver.leftover_value(arranged.leftover, okey,
                                                profile.okey_in_rack_value),
    }))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="okey101", description="101 Okey rules engine tools")
    commands = parser.add_subparsers(dest="command", required=True)
    solve = commands.add_parser("solve", help="the best melds, pairs and leftover of a rack")
    solve.add_argument("--profile", default="okeygg", choices=sorted(profiles.HOUSES))
    solve.add_argument("--indicator", required=True, help="the face-up tile, e.g. Y5")
    solve.add_argument("tiles", nargs="+", help="rack tiles: R7 Y13 B1 K10 F ...")
    solve.set_defaults(run=_solve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except MalformedInput as exc:
        print(f"okey101 {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
