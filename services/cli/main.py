"""The `okey101` command line: solve a rack, play a scenario, simulate matches."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import msgspec

from okey101 import profiles, tiles
from okey101.errors import InfrastructureFault, MalformedInput
from okey101.table import scenario, simulate
from services.cli import export, health, replay, solve, standings, topics


def _scenario(args: argparse.Namespace) -> int:
    path = args.file
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except RecursionError:
        raise MalformedInput(f"{path}: JSON nested too deeply") from None
    except OSError as exc:
        raise MalformedInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise MalformedInput(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise MalformedInput(f"{path}: bad JSON at line {exc.lineno} column {exc.colno}: "
                             f"{exc.msg}") from None
    try:
        lines = scenario.run(doc)
    except MalformedInput as exc:
        raise MalformedInput(f"{path}: {exc}") from None
    for line in lines:
        print(json.dumps(line, ensure_ascii=False))
    return 0


def _simulate(args: argparse.Namespace) -> int:
    spec: dict[str, Any] = {"base": args.profile, "options": {}}
    if args.hands is not None:
        spec["options"]["hands_per_match"] = args.hands
    profiles.resolve(spec)  # a bad option fails here, naming it
    if args.matches < 0:
        raise MalformedInput(f"--matches {args.matches}: must not be negative")
    standings = simulate.simulate(spec, args.matches, args.seed)
    if args.json:
        print(msgspec.json.encode(standings).decode())
    else:
        print(simulate.render(standings))
    return 0


def _deal(args: argparse.Namespace) -> int:
    """Re-derive a hand's deal from its seed (proto/DEAL.md): what an auditor runs."""
    from okey101.table import deal as D

    try:
        seed = bytes.fromhex(args.seed)
    except ValueError:
        raise MalformedInput(f"--seed {args.seed!r} is not hex") from None
    if len(seed) != D.SEED_BYTES:
        raise MalformedInput(f"--seed is {len(seed)} bytes; a seed is exactly {D.SEED_BYTES} "
                             f"bytes ({2 * D.SEED_BYTES} hex digits)")
    if args.hand is not None:
        if args.hand < 1:
            raise MalformedInput(f"--hand {args.hand}: hands count from 1")
        if args.attempt < 0:
            raise MalformedInput(f"--attempt {args.attempt}: attempts count from 0")
        seed = D.hand_seed(seed, args.hand, args.attempt)
    profile = profiles.house(args.profile)
    dealt = D.deal(seed, args.starter, D.Sizes(profile.starter_tiles, profile.other_tiles))
    print(json.dumps({
        "seed": seed.hex(), "commitment": D.commitment(seed), "starter": dealt.starter,
        "indicator": tiles.name(dealt.indicator),
        "okey": tiles.name(tiles.okey_for(dealt.indicator)),
        "racks": [tiles.names(r) for r in dealt.racks], "deck": tiles.names(dealt.deck)}))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="okey101", description="101 Okey rules engine tools")
    commands = parser.add_subparsers(dest="command", required=True)
    solve.register(commands)
    play = commands.add_parser("scenario", help="play a scripted table (JSON); JSON lines out")
    play.add_argument("file", help="the scenario: a JSON file")
    play.set_defaults(run=_scenario)
    deal = commands.add_parser("deal", help="re-derive a deal from its seed (proto/DEAL.md)")
    deal.add_argument("--seed", required=True, help="the hand seed (hex), as HandEnded reveals"
                      " it; with --hand, the match seed")
    deal.add_argument("--starter", type=int, default=0, choices=range(4))
    deal.add_argument("--profile", default="okeygg", choices=sorted(profiles.HOUSES),
                      help="the house, for its deal sizes (okey-oyna-duz: 15 and 14)")
    deal.add_argument("--hand", type=int, help="derive the hand seed from a match seed")
    deal.add_argument("--attempt", type=int, default=0)
    deal.set_defaults(run=_deal)
    sim = commands.add_parser("simulate", help="whole matches between simple built-in players")
    sim.add_argument("--profile", default="okeygg", choices=sorted(profiles.HOUSES))
    sim.add_argument("--matches", type=int, default=10)
    sim.add_argument("--seed", type=int, default=0, help="every match seed derives from it")
    sim.add_argument("--hands", type=int, default=None,
                     help="hands per match (the house's range applies; okeygg 7-21)")
    sim.add_argument("--json", action="store_true", help="machine-readable standings")
    sim.set_defaults(run=_simulate)
    standings.register(commands)
    health.register(commands)
    topics.register(commands)
    replay.register(commands)
    export.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (MalformedInput, InfrastructureFault) as exc:
        print(f"okey101 {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
