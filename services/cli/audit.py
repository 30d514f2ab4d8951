"""`okey101 audit TABLE`: the fairness auditor over one table's log.

Reads the table's events (its partition of the events topic, or `--file`: JSON lines of
events, as kcat prints them) and prints each hand's verdict (verified, or failed naming
the event's seq) and any collusion flag, as the auditor service would publish them.
`--public` audits only what spectators saw (no server-only or seat-private event): what
any player can check. Exit status 1 when a hand failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

import msgspec

from okey101.app import topics
from okey101.app.replays.replay import PUBLIC, events_as
from okey101.audit.auditor import audit_events
from okey101.audit.records import AnyRecord, CollusionFlag, HandFailed, HandVerified, encode
from okey101.errors import MalformedInput
from okey101.table import messages as E
from services.common.kafka import bootstrap_servers, read_partitions


async def table_events(bootstrap: str, prefix: str, table: str) -> list[E.Event]:
    """Every event of `table`, in log order, from its partition of the events topic."""
    from services.cli.replay import _events_partitions

    name = topics.EVENTS.name(prefix)
    partition = topics.partition_for(table.encode(), await _events_partitions(bootstrap, prefix))
    values = (await read_partitions(bootstrap, [(name, partition)]))[(name, partition)]
    out: list[E.Event] = []
    for raw in values:
        try:
            event = E.event_decoder.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if event.table_id == table:
            out.append(event)
    return out


def read_file(path: str, table: str) -> list[E.Event]:
    out: list[E.Event] = []
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as exc:
        raise MalformedInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = E.event_decoder.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise MalformedInput(f"{path}, line {number}: not a table event: {exc}") from None
        if event.table_id == table:
            out.append(event)
    return out


def describe(record: AnyRecord) -> str:
    if isinstance(record, HandVerified):
        return (f"hand {record.hand} (attempt {record.attempt}, deal version "
                f"{record.deal_version}): verified; seq {record.first_seq}-{record.last_seq}, "
                f"{record.moves} tile moves replayed against the deal")
    if isinstance(record, HandFailed):
        return (f"hand {record.hand} (attempt {record.attempt}, deal version "
                f"{record.deal_version}): FAILED: {record.finding} at seq {record.seq} "
                f"({record.event}): {record.message}")
    assert isinstance(record, CollusionFlag)
    lines = [f"FLAG {record.kind} {' '.join(record.players)}: {record.summary}"]
    lines += [f"  {ev.table_id} hand {ev.hand} seq {ev.seq}: {ev.what}" for ev in record.evidence]
    return "\n".join(lines)


def _audit(args: argparse.Namespace) -> int:
    if args.file:
        events = read_file(args.file, args.table)
    else:
        events = asyncio.run(table_events(bootstrap_servers(args.bootstrap), args.prefix,
                                          args.table))
    if not events:
        raise MalformedInput(f"no events of table {args.table!r} "
                             f"{'in ' + args.file if args.file else 'in the log'}")
    if args.public:
        events = events_as(events, PUBLIC)
    records = audit_events(events)
    for record in records:
        print(encode(record).decode() if args.json else describe(record))
    verified = sum(isinstance(r, HandVerified) for r in records)
    failed = sum(isinstance(r, HandFailed) for r in records)
    flags = sum(isinstance(r, CollusionFlag) for r in records)
    print(f"table {args.table}: {len(events)} events, {verified} hands verified, {failed} "
          f"failed, {flags} flags", file=sys.stderr)
    return 1 if failed else 0


def register(commands: Any) -> None:
    p = commands.add_parser("audit", help="verify every hand of a table against its deal",
                            description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table", help="the table id")
    p.add_argument("--public", action="store_true",
                   help="only what spectators saw (what any player can check)")
    p.add_argument("--file", help="JSON lines of events instead of the log")
    p.add_argument("--json", action="store_true", help="the audit records as JSON lines")
    p.add_argument("--prefix", default="okey", help="topic name prefix")
    p.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
    p.set_defaults(run=_audit)
