"""Benchmark: the processor's decisions and the views service's projection of the player
views, without Kafka, by batch size.

Recorded matches (four human seats, as in tools.bench.kafka) are replayed through one
`PartitionTables` in batches of `--batch` records, as the processor's worker does in one
transaction (decide, fold, encode the events: all its transaction carries); then the
events they wrote are projected into every seat's and the spectators' views
(`PlayerViews.publish`, the updates encoded) in the batches the views service would fold:
the events of the same `--batch` commands. Both in CPU time, as commands/s, with the views'
figure as a ratio to the processor's in the same run (the goal: at or above 1). The views
were built inside the processor's transaction until they moved to their own service; a
batch at saturation holds many commands per table, so the coalesced views cost less per
command the larger the batch.

With `--against REF` (a git commit) the same benchmark runs in subprocesses, the code at
REF (its libs/, exported to a temporary folder) and the working tree's, in alternating
rounds, and prints the best of each: before and after in one run. `--against python-core`:
before is the working tree with the compiled core hidden (the Python reference answers:
`tools.bench.cores`), after the same tree with it.

Run: .venv/bin/python -m tools.bench.views [--tables N] [--hands H] [--batches B ...]
     [--against REF [--rounds K]]
"""

from __future__ import annotations

import argparse
import json
import time

import msgspec

from okey101.app.processor.processing import PartitionTables
from okey101.app.views.playerviews import PlayerViews
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.table.views import SPECTATOR, has_rules, seat_rules, update_seats
from tools.bench.against import best_of_rounds
from tools.bench.engine import _cold_caches
from tools.bench.kafka import interleave, record


def decide(stream: list[tuple[bytes, bytes]], batch: int
           ) -> tuple[float, list[list[E.Event]]]:
    """Commands/s of the processor's part, and the events of each batch."""
    _cold_caches()  # no run is handed the answers of an earlier one
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    batches: list[list[E.Event]] = []
    started = time.process_time()
    for i in range(0, len(stream), batch):
        events: list[E.Event] = []
        for offset, (key, value) in enumerate(stream[i:i + batch], start=i):
            out = tables.handle(key, value, "c", offset, lambda: "00" * 32)
            for event in out.events:
                E.encode(event)
            events += out.events
        batches.append(events)
    return len(stream) / (time.process_time() - started), batches


def project(batches: list[list[E.Event]], commands: int) -> tuple[float, int, int]:
    """Commands/s of the views service's part (the same commands' events), the updates
    (the records it publishes, encoded: `PlayerViews.publish`; before it, `apply` and
    encoding each update) and their bytes (the values, uncompressed)."""
    _cold_caches()
    views = PlayerViews()
    published = size = 0
    started = time.process_time()
    if hasattr(views, "publish"):
        for events in batches:
            out, _ = views.publish(events)
            published += len(out)
            size += sum(len(p.value) for p in out)
    else:  # the code before the projection was incremental (--against)
        for events in batches:
            updates, _ = views.apply(events)
            size += sum(len(E.encode(update)) for update in updates)
            published += len(updates)
    return commands / (time.process_time() - started), published, size


def parts_alone(batches: list[list[E.Event]], commands: int) -> tuple[float, float]:
    """Commands/s of two parts of the projection alone, each timed on its own over the
    same batches: the fold of the events (`evolve`, which any projection must do) and the
    seat rules (`table.views.seat_rules`) its updates carry, each changed table's built
    once a batch for the seats that have any. Below these the projection cannot go while
    it folds every event and every update carries its seat's whole rules."""
    _cold_caches()
    tables: dict[str, TableState] = {}
    folding = ruling = 0.0
    clock = time.process_time
    for events in batches:
        changed: dict[str, TableState] = {}
        started = clock()
        for event in events:
            state = changed.get(event.table_id) or tables.get(event.table_id, NEW_TABLE)
            changed[event.table_id] = evolve(state, event)
        folding += clock() - started
        started = clock()
        for state in changed.values():
            for seat in update_seats(state):
                if has_rules(state, seat):
                    seat_rules(state, seat)
        ruling += clock() - started
        tables |= changed
    return commands / max(folding, 1e-9), commands / max(ruling, 1e-9)


def one_record(batches: list[list[E.Event]], commands: int) -> float:
    """Commands/s of the projection publishing one record a change, the spectators' (the
    fold, the table's part diffed and encoded, the public events): the ceiling of a
    contract sending one record a change for all seats, before any seat's own part or
    rules (which `parts_alone` times)."""
    _cold_caches()
    views = PlayerViews(seats=lambda _: [SPECTATOR])
    started = time.process_time()
    for events in batches:
        views.publish(events)
    return commands / (time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 250])
    parser.add_argument("--against", metavar="REF", help="compare with the code at git "
                        "REF (python-core: this tree without the compiled core)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (--against)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.against:
        compare(args)
        return
    per_table = record(args.tables, args.tables, args.hands, 101)  # every table its own deal
    stream = [(c.table_id.encode(), E.encode(c)) for c in interleave(per_table)]
    msgspec.json.decode(stream[0][1])
    print(f"views: {len(stream)} commands over {args.tables} tables (four human seats each), "
          "in process, CPU time")
    figures: dict[str, float] = {}
    for batch in args.batches:
        decided, batches = decide(stream, batch)
        projected, updates, size = project(batches, len(stream))
        folded, rules = parts_alone(batches, len(stream))
        single = one_record(batches, len(stream))
        both = 1 / (1 / decided + 1 / projected)
        figures |= {f"processor {batch}": decided, f"views {batch}": projected,
                    f"fold {batch}": folded, f"rules {batch}": rules,
                    f"one record {batch}": single,
                    f"bytes {batch}": size / len(stream)}
        if args.json:
            continue
        print(f"batches of {batch:>4} records (~{max(batch / args.tables, 1):.1f} a table): "
              f"processor {decided:7.0f} commands/s; views service {projected:7.0f} "
              f"commands/s ({updates} updates, {size / len(stream):.0f} bytes a command; "
              f"{projected / decided:.2f} of the processor); both on one core {both:7.0f}")
        rest = 1 / max(1 / projected - 1 / rules - 1 / folded, 1e-9)
        print(f"  the views' parts alone, commands/s (of the processor): the fold "
              f"{folded:7.0f} ({folded / decided:.2f}), the seat rules {rules:7.0f} "
              f"({rules / decided:.2f}), the rest (building and encoding the views) "
              f"{rest:7.0f} ({rest / decided:.2f})")
        with_rules = 1 / (1 / single + 1 / rules)
        print(f"  one record a change (the spectators' alone: the ceiling of a contract "
              f"not per seat) {single:7.0f} ({single / decided:.2f}); with the acting "
              f"seat's rules {with_rules:7.0f} ({with_rules / decided:.2f})")
    if args.json:
        print(json.dumps(figures))


def compare(args: argparse.Namespace) -> None:
    """Before (the libs at `args.against`) and after (the working tree's), alternating."""
    best = best_of_rounds("tools.bench.views", [
        "--tables", str(args.tables), "--hands", str(args.hands),
        "--batches", *map(str, args.batches)], args.against, args.rounds)
    print(f"views before ({args.against}) and after (working tree): {args.tables} tables, "
          f"best of {args.rounds} alternating rounds, CPU time, one core, commands/s")
    for batch in args.batches:
        b, a = best["before"], best["after"]
        print(f"  batches of {batch:>4}: processor before {b[f'processor {batch}']:7.0f} "
              f"after {a[f'processor {batch}']:7.0f}; views service before "
              f"{b[f'views {batch}']:7.0f} after {a[f'views {batch}']:7.0f} "
              f"({a[f'views {batch}'] / b[f'views {batch}']:.2f}x; of the processor "
              f"{b[f'views {batch}'] / b[f'processor {batch}']:.2f} before, "
              f"{a[f'views {batch}'] / a[f'processor {batch}']:.2f} after); bytes published "
              f"a command before {b[f'bytes {batch}']:.0f} after {a[f'bytes {batch}']:.0f} "
              f"({a[f'bytes {batch}'] / b[f'bytes {batch}']:.2f}x)")


if __name__ == "__main__":
    main()
