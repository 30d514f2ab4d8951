"""`make demo`: the whole service playing itself.

Starts the local Kafka broker (unless KAFKA_BOOTSTRAP points elsewhere), the rules
processor, the turn timers, the bots and the replays service; opens one table per house
with four bots each; plays whole matches while showing each table's progress; prints the
standings and every hand's outcome, and where the metrics are; waits until the replays
directory holds every table's end, prints where the tables can be replayed (with one
example command); then stops everything it started.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from okey101 import profiles
from okey101.app import topics
from okey101.table import messages as E
from services.common.kafka import bootstrap_servers, provision

ROOT = Path(__file__).resolve().parents[2]
BROKER = ROOT / "tools" / "kafka" / "broker.sh"
LEVELS = (3, 2, 2, 1)  # the bots at each table, by seat


@dataclass
class Table:
    table_id: str
    house: str
    hands: int
    players: list[str]
    done_hands: int = 0
    outcomes: list[str] = field(default_factory=list)
    ended: E.MatchEnded | None = None


class Service:
    def __init__(self, name: str, args: list[str], logs: Path) -> None:
        self.name = name
        self.log = logs / f"{name}.log"
        self.proc = subprocess.Popen([sys.executable, "-m", f"services.{name}", *args],
                                     cwd=ROOT, stdout=self.log.open("wb"),
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=dict(os.environ, OKEY_LOG_LEVEL="warning"),
                                     start_new_session=True)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def house_options(house: str, hands: int | None) -> dict[str, object]:
    profile = profiles.house(house)
    options: dict[str, object] = {}
    if hands is not None:
        lo, hi = profile.hands_range
        options["hands_per_match"] = min(max(hands, lo), hi)
    if not profile.bots_allowed:
        options["bots_allowed"] = True  # the house seats no bots; the demo does
    return options


def setup_commands(table_id: str, house: str, options: dict[str, object]
                   ) -> tuple[list[E.Command], list[str]]:
    players = [f"bot-l{level}-{table_id}-{seat}" for seat, level in enumerate(LEVELS)]
    commands: list[E.Command] = [E.CreateTable(table_id=table_id, command_id=f"{table_id}-new",
                                               profile=house, options=options)]
    for seat, player in enumerate(players):
        commands.append(E.Sit(table_id=table_id, command_id=f"{table_id}-sit{seat}",
                              player_id=player, seat=seat, bot=True, seq=1 + seat))
    commands.append(E.StartMatch(table_id=table_id, command_id=f"{table_id}-start",
                                 player_id=players[0], seat=0, seq=5))
    return commands, players


def bar(table: Table, width: int = 30) -> str:
    filled = int(width * table.done_hands / max(1, table.hands))
    last = table.outcomes[-1] if table.outcomes else "dealing"
    state = "match over" if table.ended else last
    return (f"{table.house:<13} [{'#' * filled}{'.' * (width - filled)}] "
            f"{table.done_hands:>2}/{table.hands} hands  {state}")


async def play(args: argparse.Namespace, bootstrap: str, prefix: str) -> dict[str, Table]:
    await provision(bootstrap, prefix)
    tables: dict[str, Table] = {}
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True)
    consumer = AIOKafkaConsumer(topics.EVENTS.name(prefix), bootstrap_servers=bootstrap,
                                group_id=None, isolation_level="read_committed",
                                auto_offset_reset="earliest", fetch_max_wait_ms=50)
    await producer.start()
    await consumer.start()
    try:
        for house in profiles.HOUSES:
            table_id = f"{prefix}-{house}"
            options = house_options(house, args.hands)
            commands, players = setup_commands(table_id, house, options)
            hands = int(str(options.get("hands_per_match",
                                        profiles.house(house).hands_per_match)))
            tables[table_id] = Table(table_id, house, hands, players)
            for command in commands:
                await producer.send(topics.COMMANDS.name(prefix), E.encode(command),
                                    key=table_id.encode())
        await producer.flush()
        deadline = time.monotonic() + args.timeout
        shown = 0
        tty = sys.stdout.isatty()
        last_print = 0.0
        while not all(t.ended for t in tables.values()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"matches not over after {args.timeout:.0f} s")
            batch = await consumer.getmany(timeout_ms=200, max_records=2000)
            for records in batch.values():
                for record in records:
                    _follow(tables, E.event_decoder.decode(record.value))
            now = time.monotonic()
            if tty:
                if shown:
                    print(f"\x1b[{shown}F", end="")
                for t in tables.values():
                    print(f"\x1b[2K{bar(t)}")
                shown = len(tables)
            elif now - last_print > 5:
                print(" | ".join(f"{t.house} {t.done_hands}/{t.hands}" for t in tables.values()),
                      flush=True)
                last_print = now
        if not tty:
            for t in tables.values():
                print(bar(t))
        return tables
    finally:
        await producer.stop()
        await consumer.stop()


def _follow(tables: dict[str, Table], event: E.Event) -> None:
    table = tables.get(event.table_id)
    if table is None or E.visibility(event) != "public":
        return
    if isinstance(event, E.HandEnded):
        who = f"seat {event.finished_by}" if event.finished_by is not None else "nobody"
        again = " (dealt again)" if event.replay else ""
        table.outcomes.append(f"hand {event.hand}: {event.finish} by {who}, "
                              f"scores {event.scores}{again}")
        if not event.replay:
            table.done_hands += 1
    elif isinstance(event, E.MatchEnded):
        table.ended = event


def report(tables: dict[str, Table]) -> None:
    print()
    for t in tables.values():
        assert t.ended is not None
        print(f"== {t.house} ({t.table_id}), {t.done_hands} hands")
        for line in t.outcomes:
            print(f"   {line}")
        ranking = sorted(range(4), key=lambda s: (t.ended.places[s], s))  # type: ignore[union-attr]
        for seat in ranking:
            print(f"   place {t.ended.places[seat]}: seat {seat} {t.players[seat]:<28} "
                  f"total {t.ended.totals[seat]}")
    print("\nmetrics while it ran: http://127.0.0.1:9101/metrics (processor), "
          ":9102 (timers), :9103 (bots), :9105 (replays); logs in .cache/demo/")


def free_port(preferred: int) -> int:
    """`preferred` when it is free, else any free port (another demo may hold it)."""
    for port in (preferred, 0):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    raise OSError("no free port")


async def wait_for_directory(url: str, tables: dict[str, Table], timeout: float) -> None:
    """Until the replays service lists every demo table as over."""
    deadline = time.monotonic() + timeout
    wanted = set(tables)
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(f"{url}/tables", params={"status": "over",
                                                                 "limit": "1000"}) as resp:
                    doc = json.loads(await resp.text()) if resp.status == 200 else {}
                if wanted <= {t["table_id"] for t in doc.get("tables", [])}:
                    return
            except aiohttp.ClientError:
                pass  # not listening yet
            await asyncio.sleep(0.2)
    raise TimeoutError(f"the replays directory did not list every table in {timeout:.0f} s")


def where_to_replay(prefix: str, url: str, tables: dict[str, Table]) -> None:
    first = next(iter(tables.values()))
    print(f"\nreplays: the directory of these tables is the topic {prefix}.directory; while "
          f"the demo ran they were served at {url}/tables")
    print(f"the broker keeps them; replay any of them, at any step, as any seat:\n"
          f"   .venv/bin/okey101 replay {first.table_id} --prefix {prefix} --hand 1 "
          f"--as seat 0\n"
          f"   (also: okey101 history {first.table_id} --prefix {prefix}; "
          f"okey101 export --prefix {prefix} --out DIR)")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m services.demo", description=__doc__)
    parser.add_argument("--hands", type=int, help="hands per match (shortens the demo; "
                        "each house keeps its own bounds, okeygg 7-21)")
    parser.add_argument("--timeout", type=float, default=900, help="give up after this")
    args = parser.parse_args()
    external = os.environ.get("KAFKA_BOOTSTRAP")
    started_broker = False
    if not external:
        running = subprocess.run(["bash", str(BROKER), "status"], capture_output=True)
        if running.returncode != 0:
            print("starting the local Kafka broker (the first run downloads it)...", flush=True)
            subprocess.run(["bash", str(BROKER), "start"], check=True)
            started_broker = True
    bootstrap = bootstrap_servers()
    prefix = f"demo{uuid.uuid4().hex[:6]}"
    logs = ROOT / ".cache" / "demo"
    logs.mkdir(parents=True, exist_ok=True)
    common = ["--bootstrap", bootstrap, "--prefix", prefix]
    http_port = free_port(9180)
    replays_url = f"http://127.0.0.1:{http_port}"
    services = [
        Service("processor", [*common, "--metrics-port", "9101"], logs),
        Service("timers", [*common, "--metrics-port", "9102"], logs),
        Service("bots", [*common, "--metrics-port", "9103"], logs),
        Service("replays", [*common, "--metrics-port", "9105", "--http-port",
                            str(http_port)], logs),
    ]
    status = 0
    try:
        print(f"okey101 demo: topics {prefix}.*, one table per house, bots at levels "
              f"{list(LEVELS)} by seat", flush=True)
        tables = asyncio.run(play(args, bootstrap, prefix))
        report(tables)
        asyncio.run(wait_for_directory(replays_url, tables, 60))
        where_to_replay(prefix, replays_url, tables)
    except KeyboardInterrupt:
        print("\nstopped", file=sys.stderr)
        status = 130
    except (TimeoutError, OSError) as exc:
        print(f"demo failed: {exc}; see .cache/demo/*.log", file=sys.stderr)
        status = 1
    finally:
        for service in services:
            service.stop()
        if started_broker:
            subprocess.run(["bash", str(BROKER), "stop"], check=False)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
