"""Soak benchmark: the resident memory of the processor's, the timers' and the bots' state
over a long stream of commands (issue 13, bounded memory). In process, one component per
run (`--service`), so the RSS printed is that component's.

A few whole matches are played by the simple players and recorded
(`tools.bench.kafka.record`); the stream keeps `--live` tables playing at once, each a copy
of a recorded match under a fresh table id, their commands interleaved one per table per
round, and a finished table is replaced by a new one, so tables keep finishing for the
whole run. Record times advance `--ms` per command (time reaches the core only through the
records, as in the services).

- `processor`: every command (encoded as on the wire) through `PartitionTables.handle`,
  with a snapshot cut every `--snapshot-every` commands as the service takes them.
- `timers`: the events of each table (recorded once per match, re-keyed) through a
  `TurnClock`, with its `due` polled as the service does.
- `bots`: the bot seat's player updates of each table (the views service's projection of
  a match recorded with a level-`--bot-level` bot in seat 3) through `Bots.respond`; the
  bot's commands are computed and dropped.

Every `--every` commands it prints the RSS (/proc/self/statm) with what the component
keeps; the last lines compare the RSS after the first quarter with the end: flat memory
once tables finish means the difference stays small as the stream goes on.
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from collections.abc import Callable, Iterator

import msgspec

from okey101.app.processor.processing import PartitionTables
from okey101.app.timers.deadlines import TurnClock
from okey101.app.views.playerviews import PlayerViews
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.views import PlayerUpdate

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


def templates(distinct: int, hands: int, seed: int, bot_level: int | None
              ) -> list[list[E.Command]]:
    profile = {"base": "north-sultan", "options": {"hands_per_match": hands}}
    out = []
    for s in match_seeds(seed, distinct):
        commands = list(play_match(profile, s).commands)
        if bot_level is not None:  # seat 3 is a bot: the bots service gets its views
            commands = [msgspec.structs.replace(c, bot=True, bot_level=bot_level)
                        if isinstance(c, E.Sit) and c.seat == 3 else c for c in commands]
        out.append(commands)
    return out


def stream(matches: list[list[E.Command]], live: int, total: int
           ) -> Iterator[tuple[int, str, int]]:
    """(match index, table id, command index) for `total` commands: `live` tables at a
    time, one command each per round, a finished table replaced by a fresh one."""
    made = 0
    tables: list[tuple[int, str, int]] = []

    def fresh() -> tuple[int, str, int]:
        nonlocal made
        made += 1
        return (made % len(matches), f"soak-{made}", 0)

    tables = [fresh() for _ in range(live)]
    sent = 0
    while True:
        for n, (m, table, i) in enumerate(tables):
            yield m, table, i
            sent += 1
            if sent >= total:
                return
            tables[n] = (m, table, i + 1) if i + 1 < len(matches[m]) else fresh()


def run(service: str, args: argparse.Namespace) -> None:
    matches = templates(args.distinct, args.hands, args.seed,
                        args.bot_level if service == "bots" else None)
    # what each recorded match produces, once: its events and its bot seat's updates by command
    recorded = PartitionTables(0, 1, allow_stacked_deals=True)
    projected = PlayerViews()  # the views service's projection: the bots read its updates
    events: list[list[list[E.Event]]] = []
    views: list[list[list[PlayerUpdate]]] = []
    for m, commands in enumerate(matches):
        events.append([])
        views.append([])
        for c in commands:
            c = msgspec.structs.replace(c, table_id=f"rec-{m}")
            out = recorded.handle(c.table_id.encode(), E.encode(c), "c", 0, lambda: "00" * 32)
            assert out.outcome is not None and out.outcome.accepted, out.outcome
            events[-1].append(out.events)
            views[-1].append([u for u in projected.apply(out.events)[0]
                              if u.bot or u.seat < 0])
    del recorded, projected

    step: Callable[[int, str, int, int], None]
    kept: Callable[[], str]
    if service == "processor":
        tables = PartitionTables(0, 1, allow_stacked_deals=True,
                                 finished_window=args.finished_window,
                                 snapshots=args.snapshot_every > 0)
        handled = [0]

        def step(m: int, table: str, i: int, at: int) -> None:
            c = msgspec.structs.replace(matches[m][i], table_id=table,
                                        command_id=f"{table}-{i}")
            out = tables.handle(table.encode(), E.encode(c), "c", i, lambda: "00" * 32, at)
            assert out.outcome is not None and out.outcome.accepted, out.outcome
            handled[0] += 1
            if args.snapshot_every and handled[0] % args.snapshot_every == 0:
                tables.snapshot(0, 0)  # a cut, as the service takes (its records dropped)

        def kept() -> str:
            return (f"live {len(tables.tables)}, finished kept {len(tables.finished)}, "
                    f"command ids {tables.command_ids()}, strays {len(tables.strays)}")
    elif service == "timers":
        clock = TurnClock()

        def step(m: int, table: str, i: int, at: int) -> None:
            for e in events[m][i]:
                clock.fold(msgspec.structs.replace(e, table_id=table, at=at), at / 1000)
            if i % 16 == 0:
                clock.due(at / 1000)

        def kept() -> str:
            return (f"tracked {clock.tracked}, finished ids {clock.finished}, "
                    f"heap {clock.queued}")
    else:
        from services.bots.app import Bots
        bots = Bots("unused:9092", level=args.bot_level)

        def step(m: int, table: str, i: int, at: int) -> None:
            for u in views[m][i]:
                bots.respond(msgspec.structs.replace(
                    u, table_id=table, view=msgspec.structs.replace(u.view, table_id=table)))

        def kept() -> str:
            return (f"tables {bots.acted.tables}, finished ids {bots.acted.finished}, "
                    f"level-3 seat memories {bots.level3.remembered}")

    per_match = sum(len(c) for c in matches) / len(matches)
    print(f"soak {service}: {args.commands} commands, {args.live} live tables, "
          f"{len(matches)} recorded matches of {per_match:.0f} commands on average "
          f"({args.hands} hand(s)); RSS every {args.every}")
    gc.collect()
    curve: list[tuple[int, float]] = [(0, rss_mb())]
    print(f"  {0:>9} commands  rss {curve[0][1]:8.1f} MB  {kept()}")
    started = time.perf_counter()
    at = 1_700_000_000_000
    for n, (m, table, i) in enumerate(stream(matches, args.live, args.commands), start=1):
        at += args.ms
        step(m, table, i, at)
        if n % args.every == 0:
            curve.append((n, rss_mb()))
            print(f"  {n:>9} commands  rss {curve[-1][1]:8.1f} MB  {kept()}  "
                  f"({n / (time.perf_counter() - started):,.0f} commands/s)", flush=True)
    quarter = next(r for n, r in curve if n >= args.commands // 4)
    print(f"soak {service}: rss after {args.commands // 4} commands {quarter:.1f} MB, at the "
          f"end {curve[-1][1]:.1f} MB (growth {curve[-1][1] - quarter:+.1f} MB over the last "
          f"three quarters); {time.perf_counter() - started:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--service", choices=("processor", "timers", "bots"),
                        default="processor")
    parser.add_argument("--commands", type=int, default=1_000_000)
    parser.add_argument("--every", type=int, default=100_000)
    parser.add_argument("--live", type=int, default=200, help="tables playing at once")
    parser.add_argument("--distinct", type=int, default=8, help="recorded matches")
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--ms", type=int, default=5, help="record time per command")
    parser.add_argument("--finished-window", type=int, default=1000)
    parser.add_argument("--snapshot-every", type=int, default=5000,
                        help="processor: a snapshot cut every N commands (0: none)")
    parser.add_argument("--bot-level", type=int, default=3)
    args = parser.parse_args()
    run(args.service, args)


if __name__ == "__main__":
    main()
