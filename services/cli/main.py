"""The `okey101` command line: solve a rack, play a scenario, simulate matches."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import msgspec

from okey101 import profiles, simulate
from okey101.errors import InfrastructureFault, MalformedInput
from okey101.table import scenario
from services.cli import (
    audit,
    deal,
    export,
    health,
    replay,
    solve,
    standings,
    token,
    topics,
    tournament,
)


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="okey101", description="101 Okey rules engine tools")
    commands = parser.add_subparsers(dest="command", required=True)
    solve.register(commands)
    play = commands.add_parser("scenario", help="play a scripted table (JSON); JSON lines out")
    play.add_argument("file", help="the scenario: a JSON file")
    play.set_defaults(run=_scenario)
    deal.register(commands)
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
    token.register(commands)
    audit.register(commands)
    tournament.register(commands)
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
