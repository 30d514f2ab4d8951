"""Benchmark: what publishing the players' views costs the processor, without Kafka.

Recorded matches (four human seats, as in tools.bench.kafka) are replayed through one
`PartitionTables` in batches of `--batch` records, as the processor's worker does in one
transaction; commands/s (CPU time) with and without the player views (`player_updates`,
encoded as the worker encodes them). A batch at saturation holds many commands per table,
so the coalesced views cost less per command the larger the batch.
"""

from __future__ import annotations

import argparse
import time

import msgspec

from okey101.app.processing import Changed, PartitionTables
from okey101.table import messages as E
from tools.bench.engine import _cold_caches
from tools.bench.kafka import interleave, record


def run(stream: list[tuple[bytes, bytes]], batch: int, views: bool) -> float:
    _cold_caches()  # no run is handed the answers of an earlier one
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    tables.partitions = 1
    started = time.process_time()
    for i in range(0, len(stream), batch):
        changed = Changed()
        for offset, (key, value) in enumerate(stream[i:i + batch], start=i):
            out = tables.handle(key, value, "c", offset, lambda: "00" * 32)
            for event in out.events:
                E.encode(event)
            for view in out.views:
                E.encode(view)
            changed.note(out)
        if views:
            for update in tables.player_updates(changed):
                E.encode(update)
    return len(stream) / (time.process_time() - started)


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
          "decided, folded and encoded in process")
    for batch in args.batches:
        without = run(stream, batch, views=False)
        with_views = run(stream, batch, views=True)
        per_table_batch = batch / args.tables
        print(f"batches of {batch:>4} records (~{max(per_table_batch, 1):.1f} a table): "
              f"{without:7.0f} commands/s without player views, {with_views:7.0f} with "
              f"({100 * (with_views / without - 1):+.0f}%)")


if __name__ == "__main__":
    main()
