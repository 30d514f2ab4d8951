"""Benchmark: what the processor keeps per table, in memory and in its snapshots, by how
many command ids it keeps a table (`--outcomes-per-table`; the bound before it existed is
printed as "all").

Whole north-sultan matches (`--hands` hands) are played by the simple players and
recorded; `--tables` copies of them under fresh ids go through `PartitionTables.handle`
(encoded as on the wire), interleaved, up to `--at` commands each (live tables), and then
as many again to their ends (finished tables, in the finished window). For each bound it
prints, per table: the memory the processor's structures hold (tracemalloc, what the
tables added), the bytes of its snapshot record, and the command ids kept; live and
finished. The views service's memory per live table (`PlayerViews`: the state only) is printed
once for comparison. The snapshot records are those a cut writes (`PartitionTables.snapshot`).

Run: .venv/bin/python -m tools.bench.footprint [--tables N] [--at C] [--hands H]
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc

import msgspec

from okey101.app.processor.processing import PartitionTables
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E

ALL = 10**9  # no bound in practice: every command id of a table


def matches(tables: int, hands: int, seed: int) -> list[list[E.Command]]:
    profile = {"base": "north-sultan", "options": {"hands_per_match": hands}}
    played = [list(play_match(profile, s).commands) for s in match_seeds(seed, 8)]
    return [[msgspec.structs.replace(c, table_id=f"fp-{n}", command_id=f"fp-{n}-{i}")
             for i, c in enumerate(played[n % len(played)])] for n in range(tables)]


def allocated() -> int:
    """The bytes allocated since tracing started and still held."""
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def feed(tables: PartitionTables, stream: list[list[E.Command]], start: int, stop: int
         ) -> None:
    for i in range(start, stop):
        for commands in stream:
            if i < len(commands):
                c = commands[i]
                out = tables.handle(c.table_id.encode(), E.encode(c), "c", i,
                                    lambda: "00" * 32, at=1_000 + i)
                assert out.outcome is not None and out.outcome.accepted, out.outcome


def measure(stream: list[list[E.Command]], at: int, bound: int) -> None:
    n = len(stream)
    tables = PartitionTables(0, 1, allow_stacked_deals=True, finished_window=n,
                             outcomes_per_table=bound)
    tracemalloc.start()
    feed(tables, stream, 0, at)
    live_bytes = allocated()
    live_ids = tables.command_ids()
    live_shot = sum(len(v or b"") for _, v in tables.snapshot(0, 0)[:-1])
    feed(tables, stream, at, max(len(c) for c in stream))
    finished_bytes = allocated()
    tracemalloc.stop()
    assert not tables.tables and len(tables.finished) == n
    finished_ids = tables.command_ids()
    finished_shot = sum(len(v or b"") for _, v in tables.snapshot(0, 0)[:-1])
    name = "all" if bound == ALL else str(bound)
    print(f"{name:>5} ids a table | live: {live_bytes / n / 1024:7.1f} KB memory, "
          f"{live_shot / n / 1024:6.1f} KB snapshot, {live_ids / n:6.0f} ids | "
          f"finished: {finished_bytes / n / 1024:7.1f} KB memory, "
          f"{finished_shot / n / 1024:6.1f} KB snapshot, {finished_ids / n:6.0f} ids",
          flush=True)


def views_memory(stream: list[list[E.Command]], at: int) -> float:
    from okey101.app.views.playerviews import PlayerViews
    recorder = PartitionTables(0, 1, allow_stacked_deals=True)
    events: list[E.Event] = []
    for i in range(at):
        for commands in stream:
            if i < len(commands):
                c = commands[i]
                events += recorder.handle(c.table_id.encode(), E.encode(c), "c", i,
                                          lambda: "00" * 32, at=1_000 + i).events
    views = PlayerViews()
    tracemalloc.start()
    for event in events:
        views.fold(event)
    used = allocated()
    tracemalloc.stop()
    return used / len(stream) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--at", type=int, default=200, help="commands into each match")
    parser.add_argument("--hands", type=int, default=11)
    parser.add_argument("--bounds", default="all,100",
                        help="outcomes kept per table, comma-separated ('all': no bound)")
    parser.add_argument("--seed", type=int, default=101)
    args = parser.parse_args()
    stream = matches(args.tables, args.hands, args.seed)
    mean = sum(len(c) for c in stream) / len(stream)
    print(f"footprint: {args.tables} north-sultan tables of {args.hands} hands "
          f"({mean:.0f} commands a match), live at {args.at} commands in", flush=True)
    for bound in args.bounds.split(","):
        measure(stream, args.at, ALL if bound == "all" else int(bound))
    print(f"views service: {views_memory(stream, args.at):.1f} KB a live table "
          f"(PlayerViews, the state only)")


if __name__ == "__main__":
    main()
