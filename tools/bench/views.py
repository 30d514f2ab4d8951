"""Benchmark: the processor's decisions and the views service's projection of the player
views, without Kafka, by batch size.

Recorded matches (four human seats, as in tools.bench.kafka) are replayed through one
`PartitionTables` in batches of `--batch` records, as the processor's worker does in one
transaction (decide, fold, encode the events; no seat events, as the processor runs by
default); then the events they wrote are projected into player views (`PlayerViews.apply`,
the updates encoded) in the batches the views service would fold: the events of the same
`--batch` commands. Both in CPU time, as commands/s. The player views were built inside
the processor's transaction until they moved to their own service; a batch at saturation
holds many commands per table, so the coalesced views cost less per command the larger
the batch.
"""

from __future__ import annotations

import argparse
import time

import msgspec

from okey101.app.playerviews import PlayerViews
from okey101.app.processing import PartitionTables
from okey101.table import messages as E
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


def project(batches: list[list[E.Event]], commands: int) -> tuple[float, int]:
    """Commands/s of the views service's part (the same commands' events), and updates."""
    _cold_caches()
    views = PlayerViews()
    published = 0
    started = time.process_time()
    for events in batches:
        updates, _ = views.apply(events)
        for update in updates:
            E.encode(update)
        published += len(updates)
    return commands / (time.process_time() - started), published


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 250])
    args = parser.parse_args()
    per_table = record(args.tables, args.tables, args.hands, 101)  # every table its own deal
    stream = [(c.table_id.encode(), E.encode(c)) for c in interleave(per_table)]
    msgspec.json.decode(stream[0][1])
    print(f"views: {len(stream)} commands over {args.tables} tables (four human seats each), "
          "in process, CPU time")
    for batch in args.batches:
        decided, batches = decide(stream, batch)
        projected, updates = project(batches, len(stream))
        both = 1 / (1 / decided + 1 / projected)
        print(f"batches of {batch:>4} records (~{max(batch / args.tables, 1):.1f} a table): "
              f"processor {decided:7.0f} commands/s; views service {projected:7.0f} "
              f"commands/s ({updates} updates); both on one core {both:7.0f}")


if __name__ == "__main__":
    main()
