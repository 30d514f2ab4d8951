"""`okey101 export`: the events of a time window as Parquet (or ndjson) for analysts.

    okey101 export --since 2026-11-30 --until 2026-12-01 --out DIR [--format ndjson]
                   [--house okeygg] [--public]

One row per event with typed columns and the payload as JSON, partitioned by house and
date (`DIR/house=okeygg/date=2026-11-30/part-....parquet`); DuckDB reads it with
`read_parquet('DIR/**/*.parquet', hive_partitioning = true)`. The tables come from the
directory; only their offset ranges of the events topic are read. The export holds what
the server knows, the deal included, unless --public.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from okey101 import profiles
from okey101.app import topics
from okey101.app.replays.directory import parse_time
from okey101.errors import MalformedInput
from services.common.kafka import bootstrap_servers


def _export(args: argparse.Namespace) -> int:
    since = parse_time(args.since, "--since") if args.since else 0
    until = parse_time(args.until, "--until") if args.until else 2**63 - 1
    if until <= since:
        raise MalformedInput(f"--until {args.until} is not after --since {args.since}")
    from services.replays.exporting import export  # pyarrow: only when exporting

    started = time.perf_counter()
    done = asyncio.run(export(bootstrap_servers(args.bootstrap), args.prefix, Path(args.out),
                              since, until, args.format, args.house, args.public))
    for skipped in done.skipped:
        print(f"note: skipped the record at {topics.EVENTS.name(args.prefix)} partition "
              f"{skipped.partition} offset {skipped.offset}: {skipped.reason}", file=sys.stderr)
    seconds = time.perf_counter() - started
    print(f"exported {done.events} events of {done.tables} tables to {args.out} "
          f"({done.files} {args.format} files, {seconds:.1f} s)")
    return 0


def register(commands: Any) -> None:
    p = commands.add_parser("export", help="events of a time window as Parquet or ndjson",
                            description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--since", help="from this time on (ms, 2026-11-30 or an ISO date-time; "
                                   "UTC unless it says otherwise); default: the beginning")
    p.add_argument("--until", help="up to this time, not included; default: now and on")
    p.add_argument("--out", required=True, help="the folder to write into")
    p.add_argument("--format", choices=("parquet", "ndjson"), default="parquet")
    p.add_argument("--house", choices=sorted(profiles.HOUSES), help="one house only")
    p.add_argument("--public", action="store_true",
                   help="the events as spectators saw them (no deal, no other racks)")
    p.add_argument("--prefix", default="okey", help="topic name prefix")
    p.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
    p.set_defaults(run=_export)
