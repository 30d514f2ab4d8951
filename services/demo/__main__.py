"""`make demo`: the whole service playing itself, and a table a person can play at.

Starts the local Kafka broker (tools/kafka/broker.sh, on KAFKA_PORT; unless
KAFKA_BOOTSTRAP points elsewhere), creates its topics, then starts the rules processor,
the views service, the turn timers, the bots, the leaderboards, the replays service, the
auditor, the matchmaker (the lobby's quick play) and the gateway; prints the URL where a
person can play in the browser while it runs; opens one table per house with four bots
each; plays whole matches while showing each table's progress; prints the standings and
every hand's outcome, then each house's board as the leaderboards service serves it (bots
left off where the house ranks no bots), waits until the replays directory holds every
table's end and prints where the tables can be replayed (with one example command), and
where the metrics are; then stops everything it started (`--serve`: keeps the stack up
until Ctrl-C, for people to play).

Every wait for the broker and the services is bounded by `--wait` (OKEY_KAFKA_WAIT_S,
default 180 s: a broker holding thousands of partitions on a loaded two-core machine is
slow to create topics), with a line every 10 s while it lasts.

The screen shows only the demo: the services log JSON to .cache/demo/<service>.log and the
demo's own library warnings (aiokafka's) go to .cache/demo/demo.log. The progress display
is `rich`'s on a terminal and plain lines otherwise (a pipe, a CI log).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import aiohttp
import msgspec
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import KafkaError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from okey101 import profiles
from okey101.app import topics
from okey101.errors import InfrastructureFault, MalformedInput
from okey101.standings import HOUSE_RULES, BoardRow
from okey101.table import messages as E
from services.cli.standings import render
from services.common.kafka import (
    bootstrap_servers,
    client_security,
    fault_text,
    kafka_wait_s,
    provision,
)
from services.common.logs import configure_logging
from services.common.ports import free_port
from services.common.stack import OTHERS, PLAYING, Service, Stack

ROOT = Path(__file__).resolve().parents[2]
BROKER = ROOT / "tools" / "kafka" / "broker.sh"
LOGS = ROOT / ".cache" / "demo"
LEVELS = (3, 2, 2, 1)  # the bots at each table, by seat
# metrics ports: the base, base + 1, ...; the leaderboards' HTTP reads on base + BOARDS_PORT
# (the order of their metrics ports; every service of the stack, services.common.stack)
SERVICES = ("processor", "timers", "bots", "leaderboards", "replays", "gateway",
            "auditor", "views", "matchmaker")
assert set(SERVICES) == {*PLAYING, *OTHERS}
BOARDS_PORT = 9  # the leaderboards' HTTP reads: base + 9 (9110)
REPLAYS_PORT = 79  # the replays' HTTP: base + 79 (9180)
PROGRESS_EVERY_S = 10.0


class Waiting:
    """A line every PROGRESS_EVERY_S seconds while a wait lasts, and its deadline."""

    def __init__(self, what: str, timeout: float) -> None:
        self.what = what
        self.timeout = timeout
        self.start = self.told = time.monotonic()

    def tick(self, detail: str = "") -> None:
        """Raise TimeoutError (naming what and how long) once the time is up; else a line
        if one is due."""
        now = time.monotonic()
        waited = now - self.start
        if waited > self.timeout:
            raise TimeoutError(f"waited {waited:.0f} s for {self.what}{detail} (--wait or "
                               f"OKEY_KAFKA_WAIT_S={self.timeout:g})")
        if now - self.told >= PROGRESS_EVERY_S:
            self.told = now
            print(f"waiting for {self.what}{detail}: {waited:.0f} s of {self.timeout:g} s",
                  flush=True)


@dataclass
class Table:
    table_id: str
    house: str
    hands: int
    players: list[str]
    done_hands: int = 0
    hands_ended: int = 0  # every hand_ended, a deal dealt again included (the audit's count)
    outcomes: list[str] = field(default_factory=list)
    ended: E.MatchEnded | None = None


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
    # a bot's id says nothing of a bot (north-sultan does not label them); its level is a
    # server-only field of the command
    players = [f"{table_id}-player{seat}" for seat in range(len(LEVELS))]
    commands: list[E.Command] = [E.CreateTable(table_id=table_id, command_id=f"{table_id}-new",
                                               profile=house, options=options)]
    for seat, (player, level) in enumerate(zip(players, LEVELS, strict=True)):
        commands.append(E.Sit(table_id=table_id, command_id=f"{table_id}-sit{seat}",
                              player_id=player, seat=seat, bot=True, bot_level=level,
                              seq=1 + seat))
    commands.append(E.StartMatch(table_id=table_id, command_id=f"{table_id}-start",
                                 player_id=players[0], seat=0, seq=5))
    return commands, players


def status(table: Table) -> str:
    if table.ended:
        return "match over"
    return table.outcomes[-1] if table.outcomes else "dealing"


def bar(table: Table, width: int = 30) -> str:
    filled = int(width * table.done_hands / max(1, table.hands))
    return (f"{table.house:<13} [{'#' * filled}{'.' * (width - filled)}] "
            f"{table.done_hands:>2}/{table.hands} hands  {status(table)}")


class Display(Protocol):
    def update(self, tables: dict[str, Table]) -> None: ...


class RichDisplay:
    """A progress bar per table, redrawn in place (a terminal)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.rows: dict[str, TaskID] = {}

    def update(self, tables: dict[str, Table]) -> None:
        for t in tables.values():
            if t.table_id not in self.rows:
                self.rows[t.table_id] = self.progress.add_task(t.house, total=t.hands,
                                                               status="dealing")
            self.progress.update(self.rows[t.table_id], completed=t.done_hands,
                                 status=status(t))


class PlainDisplay:
    """A line every few seconds, then the final bars (a pipe or a CI log)."""

    def __init__(self, every: float = 5.0) -> None:
        self.every = every
        self.last = 0.0

    def update(self, tables: dict[str, Table]) -> None:
        now = time.monotonic()
        if now - self.last > self.every:
            print(" | ".join(f"{t.house} {t.done_hands}/{t.hands}" for t in tables.values()),
                  flush=True)
            self.last = now

    def close(self, tables: dict[str, Table]) -> None:
        for t in tables.values():
            print(bar(t))


@contextmanager
def display(console: Console, tables: dict[str, Table]) -> Iterator[Display]:
    if console.is_terminal:
        progress = Progress(TextColumn("{task.description:<13}"), BarColumn(bar_width=30),
                            MofNCompleteColumn(), TextColumn("hands"),
                            TextColumn("{task.fields[status]}"), console=console,
                            refresh_per_second=8)
        with progress:
            shown = RichDisplay(progress)
            yield shown
            shown.update(tables)
    else:
        plain = PlainDisplay()
        yield plain
        plain.close(tables)


async def wait_until_ready(services: list[Service], console: Console, timeout: float) -> None:
    """Until every service's /readyz answers 200 (its partitions assigned and rebuilt)."""
    waiting = Waiting("the services to be ready", timeout)
    pending = list(services)
    with console.status("waiting for the services to be ready...") if console.is_terminal \
            else _nothing():
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http:
            while pending:
                for service in list(pending):
                    if not service.running:
                        raise OSError(f"the {service.name} stopped; see {service.log}")
                    try:
                        async with http.get(f"http://127.0.0.1:{service.port}/readyz") as r:
                            if r.status == 200:
                                pending.remove(service)
                    except (aiohttp.ClientError, TimeoutError):
                        pass
                if pending:
                    waiting.tick(f" (not yet: {', '.join(s.name for s in pending)})")
                await asyncio.sleep(0.2)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


async def play(args: argparse.Namespace, bootstrap: str, prefix: str,
               services: list[Service], console: Console) -> dict[str, Table]:
    """The matches, one table per house (`args.house`: only those), on topics provisioned
    before (every partition has a leader before we produce)."""
    await wait_until_ready(services, console, args.wait)
    tables: dict[str, Table] = {}
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True,
                                acks="all", **client_security())
    consumer = AIOKafkaConsumer(topics.EVENTS.name(prefix), bootstrap_servers=bootstrap,
                                group_id=None, isolation_level="read_committed",
                                auto_offset_reset="earliest", fetch_max_wait_ms=50,
                                **client_security())
    await producer.start()
    await consumer.start()
    try:
        for house in args.house or profiles.HOUSES:
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
        with display(console, tables) as shown:
            while not all(t.ended for t in tables.values()):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"matches not over after {args.timeout:.0f} s")
                batch = await consumer.getmany(timeout_ms=200, max_records=2000)
                for records in batch.values():
                    for record in records:
                        _follow(tables, E.event_decoder.decode(record.value))
                shown.update(tables)
        return tables
    finally:
        await producer.stop()
        await consumer.stop()


def _follow(tables: dict[str, Table], event: E.Event) -> None:
    table = tables.get(event.table_id)
    if table is None or E.visibility(event) != "public":
        return
    if isinstance(event, E.HandEnded):
        table.hands_ended += 1
        who = f"seat {event.finished_by}" if event.finished_by is not None else "nobody"
        again = " (dealt again)" if event.replay else ""
        table.outcomes.append(f"hand {event.hand}: {event.finish} by {who}, "
                              f"scores {event.scores}{again}")
        if not event.replay:
            table.done_hands += 1
    elif isinstance(event, E.MatchEnded):
        table.ended = event


def report(tables: dict[str, Table], services: list[Service]) -> None:
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
    ports = ", ".join(f":{s.port} ({s.name})" for s in services)
    print(f"\nmetrics, /healthz and /readyz while it ran: http://127.0.0.1{ports}; "
          "logs in .cache/demo/")


AUDIT_METRICS = re.compile(
    r"^okey_audit_(hands_verified|hands_failed|flags)_total(?:\{[^}]*\})? ([0-9.e+]+)$",
    re.MULTILINE)


async def audit_summary(port: int, tables: dict[str, Table], timeout: float) -> None:
    """The auditor's verdicts, from its metrics, once it has judged every hand played."""
    hands = sum(t.hands_ended for t in tables.values())
    waiting = Waiting("the auditor to judge every hand", timeout)
    counts: dict[str, float] = {}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as http:
        while True:
            counts = {"hands_verified": 0.0, "hands_failed": 0.0, "flags": 0.0}
            try:
                async with http.get(f"http://127.0.0.1:{port}/metrics") as r:
                    for name, value in AUDIT_METRICS.findall(await r.text()):
                        counts[name] += float(value)
            except (aiohttp.ClientError, TimeoutError):
                pass
            judged = counts["hands_verified"] + counts["hands_failed"]
            if judged >= hands:
                break
            try:
                waiting.tick(f" ({judged:.0f} of {hands})")
            except TimeoutError:
                break  # the verdicts so far are printed: they say what is missing
            await asyncio.sleep(0.5)
    print(f"\n== fairness audit (the auditor service): {counts['hands_verified']:.0f} hands "
          f"verified, {counts['hands_failed']:.0f} failed, {counts['flags']:.0f} flags found "
          f"(of {hands} hands dealt); check one yourself: .venv/bin/okey101 audit TABLE "
          "--public, or python3 tools/verify_hand.py EVENTS.jsonl")


class _Board(msgspec.Struct):
    rows: list[BoardRow]
    bots_excluded: int = 0


async def boards(url: str, tables: int, timeout: float) -> None:
    """Each house's board from the leaderboards service, once it has every match."""
    waiting = Waiting(f"the leaderboards to apply {tables} matches", timeout)
    async with aiohttp.ClientSession() as http:
        while True:
            try:
                async with http.get(f"{url}/healthz") as response:
                    health = await response.json()
                if health["ready"] and health["matches"] + health["unranked"] >= tables:
                    break
            except (aiohttp.ClientError, OSError):
                pass
            waiting.tick()
            await asyncio.sleep(0.2)
        print("\n== boards (the leaderboards service, GET /houses/{house}/board)")
        for house, rules in HOUSE_RULES.items():
            async with http.get(f"{url}/houses/{house}/board?top=10") as response:
                board = msgspec.json.decode(await response.read(), type=_Board)
            print(render(rules, board.rows, None, board.bots_excluded))


async def wait_for_directory(url: str, tables: dict[str, Table], timeout: float) -> None:
    """Until the replays service lists every demo table as over."""
    waiting = Waiting("the replays directory to list every table", timeout)
    wanted = set(tables)
    async with aiohttp.ClientSession() as session:
        while True:
            try:
                async with session.get(f"{url}/tables", params={"status": "over",
                                                                 "limit": "1000"}) as resp:
                    doc = json.loads(await resp.text()) if resp.status == 200 else {}
                if wanted <= {t["table_id"] for t in doc.get("tables", [])}:
                    return
            except aiohttp.ClientError:
                pass  # not listening yet
            waiting.tick()
            await asyncio.sleep(0.2)


def where_to_replay(prefix: str, url: str, tables: dict[str, Table]) -> None:
    first = next(iter(tables.values()))
    print(f"\nreplays: the directory of these tables is the topic {prefix}.directory; while "
          f"the demo ran they were served at {url}/tables")
    print(f"the broker keeps them; replay any of them, at any step, as any seat:\n"
          f"   .venv/bin/okey101 replay {first.table_id} --prefix {prefix} --hand 1 "
          f"--as seat 0\n"
          f"   (also: okey101 history {first.table_id} --prefix {prefix}; "
          f"okey101 export --prefix {prefix} --out DIR)")


def gateway_url(gateway: Service, timeout: float) -> str:
    """The URL the gateway prints once it listens."""
    waiting = Waiting("the gateway to listen", timeout)
    while True:
        url = gateway.url()
        if url:
            return url
        if not gateway.running:
            raise OSError(f"the gateway stopped; see {gateway.log}")
        waiting.tick()
        time.sleep(0.1)


def serve_forever(url: str) -> None:
    print(f"\nthe stack stays up: play at {url} (Ctrl-C stops it)", flush=True)
    while True:
        time.sleep(3600)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m services.demo", description=__doc__)
    parser.add_argument("--hands", type=int, help="hands per match (shortens the demo; "
                        "each house keeps its own bounds, okeygg 7-21)")
    parser.add_argument("--timeout", type=float, default=900,
                        help="give up on the matches after this many seconds")
    parser.add_argument("--wait", type=float, default=None,
                        help="bound of every wait for the broker and the services, in "
                             "seconds (default: OKEY_KAFKA_WAIT_S, else 180)")
    parser.add_argument("--house", action="append", choices=sorted(profiles.HOUSES),
                        help="play only this house (repeat for more; default: every house)")
    parser.add_argument("--metrics-port-base", type=int, default=9101,
                        help="the processor's metrics port; the other services' follow "
                             f"({', '.join(SERVICES)}), the boards' HTTP on base + "
                             f"{BOARDS_PORT}, the replays' on base + {REPLAYS_PORT}")
    parser.add_argument("--serve", action="store_true",
                        help="keep every service up after the matches, for people to play")
    parser.add_argument("--gateway-port", type=int, default=0,
                        help="the browser table's port (default: any free one, printed)")
    args = parser.parse_args()
    try:
        args.wait = kafka_wait_s() if args.wait is None else args.wait
        bootstrap_servers()
    except MalformedInput as exc:
        parser.error(str(exc))
    if args.wait <= 0:
        parser.error("--wait must be more than 0")
    LOGS.mkdir(parents=True, exist_ok=True)
    # aiokafka's warnings go to a file, not the screen; it stays open to the process's end
    # (a warning at exit must not meet a closed file)
    demo_log = open(LOGS / "demo.log", "a", encoding="utf-8")  # noqa: SIM115
    configure_logging("warning", demo_log)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    external = os.environ.get("KAFKA_BOOTSTRAP")
    started_broker = False
    if not external:
        running = subprocess.run(["bash", str(BROKER), "status"], capture_output=True)
        if running.returncode != 0:
            print(f"starting the local Kafka broker on {bootstrap_servers()} (the first run "
                  "downloads it)...", flush=True)
            # broker.sh prints its progress and, failing, why (a port taken: which, and
            # the variable to set) on our stderr
            if subprocess.run(["bash", str(BROKER), "start"]).returncode != 0:
                print("demo failed: the local Kafka broker did not start (tools/kafka/"
                      "broker.sh start, above)", file=sys.stderr)
                return 1
            started_broker = True
    try:
        return _run_on(args, bootstrap_servers())
    finally:
        if started_broker:
            subprocess.run(["bash", str(BROKER), "stop"], check=False)


def _provision(bootstrap: str, prefix: str, timeout: float) -> None:
    """The demo's topics, before any service starts: the services then find them, and the
    wait (a busy broker) is told on the screen."""
    print(f"creating the topics {prefix}.* on {bootstrap}...", flush=True)
    asyncio.run(provision(bootstrap, prefix, wait_s=timeout,
                          progress=lambda line: print(line, flush=True)))


def _run_on(args: argparse.Namespace, bootstrap: str) -> int:
    prefix = f"demo{uuid.uuid4().hex[:6]}"
    try:
        _provision(bootstrap, prefix, args.wait)
    except KeyboardInterrupt:
        print("\nstopped", file=sys.stderr)
        return 130
    except (InfrastructureFault, KafkaError, OSError) as exc:
        print(f"demo failed: {fault_text(exc) if isinstance(exc, KafkaError) else exc}",
              file=sys.stderr)
        return 1
    boards_port = free_port(args.metrics_port_base + BOARDS_PORT)
    replays_port = free_port(args.metrics_port_base + REPLAYS_PORT)
    replays_url = f"http://127.0.0.1:{replays_port}"
    extra = {"leaderboards": ["--http-port", str(boards_port)],
             "replays": ["--http-port", str(replays_port)],
             "gateway": ["--guest-login", "--port", str(args.gateway_port),
                         "--leaderboards-url", f"http://127.0.0.1:{boards_port}"]}
    # each service's consumer group named after the demo's topics, as the CLI expects
    stack = Stack(bootstrap, prefix, LOGS, env={"OKEY_KAFKA_WAIT_S": f"{args.wait:g}"},
                  new_session=True)
    stack.start_playing(SERVICES, extra, {name: args.metrics_port_base + i
                                          for i, name in enumerate(SERVICES)},
                        env={"gateway": {"OKEY_GATEWAY_SECRET": secrets.token_hex(32)}})
    services = list(stack.services.values())
    console = Console()
    exit_status = 0
    try:
        print(f"okey101 demo: topics {prefix}.*, one table per house, bots at levels "
              f"{list(LEVELS)} by seat", flush=True)
        url = gateway_url(services[SERVICES.index("gateway")], args.wait)
        print(f"play in your browser: {url}", flush=True)
        tables = asyncio.run(play(args, bootstrap, prefix, services, console))
        report(tables, services)
        asyncio.run(boards(f"http://127.0.0.1:{boards_port}", len(tables), args.wait))
        asyncio.run(wait_for_directory(replays_url, tables, args.wait))
        where_to_replay(prefix, replays_url, tables)
        asyncio.run(audit_summary(args.metrics_port_base + SERVICES.index("auditor"), tables,
                                  args.wait))
        if args.serve:
            serve_forever(url)
    except KeyboardInterrupt:
        print("\nstopped", file=sys.stderr)
        exit_status = 130
    except (TimeoutError, OSError) as exc:
        print(f"demo failed: {exc}; see .cache/demo/*.log", file=sys.stderr)
        exit_status = 1
    finally:
        stack.stop(20)
    return exit_status


if __name__ == "__main__":
    raise SystemExit(main())
