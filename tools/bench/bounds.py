"""Benchmark: what the bounds cost a consumed record (`okey101.app.bounds.check`, issue 26),
by record kind, as a ratio to decoding the same bytes with msgspec's generic JSON decoder
in the same run (what any reader does next), in CPU time on one core.

The records are real: recorded matches' commands, the events the processor's logic
decides for them and the player views the views service's logic publishes for those
events (every seat's and the spectators'), as tools.bench.views builds them. Every reader
of a derived topic checks each record; the gateways and the bots service check every
player view (about 4 KB each, five a command).

With `--against REF` (a git commit) the same benchmark runs in subprocesses, the code at
REF (its libs/) and the working tree's, in alternating rounds, and prints the best of each.

Run: .venv/bin/python -m tools.bench.bounds [--tables N] [--against REF [--rounds K]]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import partial

import msgspec

from okey101.app import bounds
from okey101.app.processor.processing import PartitionTables
from okey101.app.views.playerviews import PlayerViews
from okey101.table import messages as E
from tools.bench.against import best_of_rounds
from tools.bench.kafka import interleave, record


def records(tables: int, hands: int) -> dict[str, list[bytes]]:
    """The commands, events and player views of `tables` recorded matches, encoded."""
    decided = PartitionTables(0, 1, allow_stacked_deals=True)
    views = PlayerViews()
    out: dict[str, list[bytes]] = {"commands": [], "events": [], "views": []}
    for offset, command in enumerate(interleave(record(tables, tables, hands, 101))):
        value = E.encode(command)
        events = decided.handle(command.table_id.encode(), value, "c", offset,
                                lambda: "00" * 32).events
        out["commands"].append(value)
        out["events"] += [E.encode(e) for e in events]
        published, _ = views.publish(events)
        out["views"] += [u.value for u in published]
    return out


def _per_record(values: list[bytes], read: Callable[[bytes], object]) -> float:
    """CPU µs a record of `read(value)`, best of three passes."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for value in values:
            read(value)
        best = min(best, time.process_time() - started)
    return best / len(values) * 1e6


def measure(tables: int, hands: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    decode = msgspec.json.Decoder().decode
    for kind, values in records(tables, hands).items():
        limits = bounds.COMMANDS if kind == "commands" else bounds.DERIVED
        figures[f"{kind} bytes"] = sum(map(len, values)) / len(values)
        figures[f"{kind} check"] = _per_record(values, partial(bounds.check, limits=limits))
        figures[f"{kind} decode"] = _per_record(values, decode)
    return figures


def _print(figures: dict[str, float], label: str = "") -> None:
    for kind in ("commands", "events", "views"):
        check, decode = figures[f"{kind} check"], figures[f"{kind} decode"]
        print(f"  {label}{kind:<8} ({figures[f'{kind} bytes']:5.0f} bytes a record): "
              f"check {check:7.1f} µs, generic decode {decode:6.1f} µs: "
              f"{check / decode:5.2f}x the decode")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--against", metavar="REF", help="compare with the code at git REF")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (--against)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.against:
        compare(args)
        return
    figures = measure(args.tables, args.hands)
    if args.json:
        print(json.dumps(figures))
        return
    print(f"bounds: {args.tables} tables' records, CPU time a record, best of three passes")
    _print(figures)


def compare(args: argparse.Namespace) -> None:
    """Before (the libs at `args.against`) and after (the working tree's), alternating;
    the lower time of each."""
    best = best_of_rounds("tools.bench.bounds", ["--tables", str(args.tables), "--hands",
                                                 str(args.hands)], args.against, args.rounds,
                          better=min)
    print(f"bounds before ({args.against}) and after (working tree): best of {args.rounds} "
          "alternating rounds, CPU time a record")
    for name in best:
        _print(best[name], f"{name:<7}")


if __name__ == "__main__":
    main()
