"""`okey101 replay` and `okey101 history`: one table from the log, at any step, as a seat,
the spectators or the server saw it.

Both find the table in the directory (`<prefix>.directory`, kept by the replays service)
and read only its offset range of the events topic, never the whole topic.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

import msgspec

from okey101.app import topics
from okey101.app.replays.directory import TableEntry, offset_for
from okey101.app.replays.history import history
from okey101.app.replays.render import render
from okey101.app.replays.replay import PUBLIC, SERVER, replay_step
from okey101.errors import MalformedInput
from services.common.kafka import bootstrap_servers
from services.replays.reading import (
    TableLog,
    consumer,
    directory_lag,
    find_entry,
    partitions_of,
    read_table,
    table_reader,
)


def viewer_of(args: argparse.Namespace) -> int:
    if args.server:
        return SERVER
    if args.as_seat is None:
        return PUBLIC
    word, seat = args.as_seat
    if word != "seat" or seat not in ("0", "1", "2", "3"):
        raise MalformedInput(f"--as {word} {seat}: write --as seat N, with N 0-3")
    return int(seat)


async def load(args: argparse.Namespace, upto: bool = False
               ) -> tuple[TableEntry, TableLog]:
    """The table's entry and events; notes on stderr for a lagging directory and for
    records skipped."""
    bootstrap = bootstrap_servers(args.bootstrap)
    entry = await find_entry(bootstrap, args.prefix, args.table)
    if entry is None or entry.status != "over":
        partition = topics.partition_for(args.table.encode(), await _events_partitions(
            bootstrap, args.prefix))
        lag = (await directory_lag(bootstrap, args.prefix,
                                   args.group or f"{args.prefix}-replays", [partition]))[0]
        if lag.events:
            print(f"note: the directory lags partition {partition} of "
                  f"{topics.EVENTS.name(args.prefix)} by {lag.events} events "
                  f"({lag.seconds:.1f} s): the newest events may be missing", file=sys.stderr)
        if entry is None:
            raise MalformedInput(f"table {args.table!r} is not in the directory "
                                 f"{topics.DIRECTORY.name(args.prefix)}")
    reader = table_reader(bootstrap)
    await reader.start()
    try:
        last = offset_for(entry, args.at, args.hand) if upto else None
        log = await read_table(reader, topics.EVENTS.name(args.prefix), entry, last)
    finally:
        await reader.stop()
    for skipped in log.skipped:
        print(f"note: skipped the record at {topics.EVENTS.name(args.prefix)} partition "
              f"{skipped.partition} offset {skipped.offset}: {skipped.reason}", file=sys.stderr)
    return entry, log


async def _events_partitions(bootstrap: str, prefix: str) -> int:
    reader = consumer(bootstrap)
    await reader.start()
    try:
        return len(await partitions_of(reader, topics.EVENTS.name(prefix)))
    finally:
        await reader.stop()


def _replay(args: argparse.Namespace) -> int:
    viewer = viewer_of(args)
    entry, log = asyncio.run(load(args, upto=True))
    step = replay_step(entry.table_id, log.events, viewer, at=args.at, hand=args.hand,
                       skipped=log.skipped, table_last=entry.last_seq)
    if args.json:
        print(msgspec.json.encode(step).decode())
    else:
        print(render(step))
    return 0


def _history(args: argparse.Namespace) -> int:
    viewer = viewer_of(args)
    _, log = asyncio.run(load(args))
    print("\n".join(history(log.events, viewer)))
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("table", help="the table id")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--as", dest="as_seat", nargs=2, metavar=("seat", "N"),
                     help="as seat N saw it, and nothing more")
    who.add_argument("--public", action="store_true", help="as spectators saw it (default)")
    who.add_argument("--server", action="store_true",
                     help="everything, the deal included (auditors)")
    p.add_argument("--prefix", default="okey", help="topic name prefix")
    p.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
    p.add_argument("--group", default=None,
                   help="the replays service's consumer group, for its lag (default: "
                        "PREFIX-replays, okey-replays with the default prefix)")


def register(commands: Any) -> None:
    replay = commands.add_parser("replay", help="a table at any step, from the log")
    _common(replay)
    step = replay.add_mutually_exclusive_group()
    step.add_argument("--at", type=int, metavar="SEQ", help="the state after event SEQ")
    step.add_argument("--hand", type=int, metavar="N",
                      help="the state when hand N ended (the latest step while it is played)")
    replay.add_argument("--json", action="store_true", help="JSON instead of a readable table")
    replay.set_defaults(run=_replay)
    told = commands.add_parser("history", help="a table's hand history in words")
    _common(told)
    told.set_defaults(run=_history)
