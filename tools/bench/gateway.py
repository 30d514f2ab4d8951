"""Benchmark: the gateway with the stack a person plays through (processor, views, timers,
bots: `services.common.stack`, as the demo starts it) on the local broker.

1. Command to own updated view: `--players` simulated players (four to a table) hold
   WebSockets; whenever a player's view says it is to act it waits `--think` seconds, then
   draws or discards; the latency is from sending the command to receiving the player's own
   update that shows it (p50/p99, over `--seconds`).
2. The same, with `--frozen` extra clients that watch the busiest tables and never read:
   the others' p99 must not rise (a frozen client is dropped).
3. `--connections` connections held (hello, watch a table): the gateway's resident memory
   per connection.
4. `--reconnect` clients watching the tables drop at once and reconnect at once with their
   versions, while play goes on: how many got exactly what they missed (or `synced`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import aiohttp
import msgspec

from okey101.app.gateway import identity
from okey101.table import viewpatch
from services.common.kafka import bootstrap_servers, provision
from services.common.stack import PLAYING, Stack
from tools.bench import scratch
from tools.bench.stats import percentile

ROOT = Path(__file__).resolve().parents[2]
SECRET = "bench-" + "0123456789abcdef" * 3
FLAGS = ["--commands-per-second", "1000", "--command-burst", "1000",
         "--connections-per-account", "10", "--queued-messages", "256"]


class _Rules(msgspec.Struct, frozen=True):
    allowed: list[str] = []


class _Hand(msgspec.Struct):
    to_act: int = -1


class _View(msgspec.Struct):
    seq: int = 0
    seat: int = -1
    status: str = ""
    rack: list[str] = []
    hand: _Hand | None = None
    rules: _Rules = _Rules()


class _Frame(msgspec.Struct):
    type: str
    id: str = ""
    table_id: str = ""
    seat: int = -1
    version: int = -1
    previous: int = -1
    reset: bool = False
    accepted: bool = True
    code: str = ""
    view: Any = None  # the whole view (`update`), as JSON
    rules: Any = None  # the rules' detail (`rules`), as JSON
    patch: list[Any] = []  # what changed since `previous` (`patch`)


decode = msgspec.json.Decoder(_Frame).decode


class Services(Stack):
    """The stack a person plays through (`services.common.stack.PLAYING`: processor, views,
    timers, bots, gateway), as the demo starts it, on the bench's topics."""

    def __init__(self, bootstrap: str, prefix: str) -> None:
        super().__init__(bootstrap, prefix, ROOT / ".cache", log_stem=f"bench-gateway-{prefix}-",
                         env={"OKEY_GATEWAY_SECRET": SECRET})

    async def start(self) -> str:
        await provision(self.bootstrap, self.prefix)
        self.start_playing(args={"gateway": ["--port", "0", *FLAGS]})
        await self.ready([n for n in PLAYING if n != "gateway"], timeout=180)
        return await self["gateway"].listening(120)

    def rss_kib(self) -> int:
        return self["gateway"].rss_kib()


class Player:
    """One simulated person: draws, then discards a tile that costs no penalty."""

    def __init__(self, name: str, ws: aiohttp.ClientWebSocketResponse, think: float) -> None:
        self.name, self.ws, self.think = name, ws, think
        self.table = ""
        self.waiting: dict[str, tuple[float, int]] = {}  # command id -> (sent, version)
        self.latencies: list[float] = []
        self.acting = False
        self.n = 0
        self.outcomes: dict[str, asyncio.Future[_Frame]] = {}
        self.held: Any = None  # the newest whole view, as a client keeps it
        self.held_version = -1

    async def send(self, **message: Any) -> None:
        await self.ws.send_str(json.dumps(message))

    async def command(self, move: dict[str, Any], table: str = "") -> _Frame:
        self.n += 1
        cid = f"c{self.n}"
        future: asyncio.Future[_Frame] = asyncio.get_running_loop().create_future()
        self.outcomes[cid] = future
        await self.send(type="command", id=cid, table_id=table or self.table, command=move)
        return await asyncio.wait_for(future, 60)

    async def run(self, until: float, measuring: list[bool]) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                return
            frame = decode(msg.data)
            if frame.type in ("outcome", "rules") or (frame.type == "error" and frame.id):
                future = self.outcomes.pop(frame.id, None)
                if future is not None and not future.done():
                    future.set_result(frame)
            elif (view := self._follow(frame)) is not None:
                self._seen(frame.version)
                if time.monotonic() < until and view.status == "playing" and view.hand and \
                        view.hand.to_act == frame.seat and view.rules.allowed and \
                        not self.acting:
                    self.acting = True
                    asyncio.get_running_loop().create_task(self._act(view, measuring))

    def _follow(self, frame: _Frame) -> _View | None:
        """The seat's new whole view after an `update` or a `patch` frame (a patch applied to
        the view held), or None (another frame; a gap, which a real client heals by watching
        again, does not happen on this bench's loopback)."""
        if frame.type == "update" and frame.view is not None:
            self.held = frame.view
        elif frame.type == "patch" and frame.previous == self.held_version:
            self.held = viewpatch.apply(self.held, frame.patch)
        else:
            return None
        self.held_version = frame.version
        return msgspec.convert(self.held, _View)

    def _seen(self, version: int) -> None:
        for cid, (sent, at) in list(self.waiting.items()):
            if version > at:
                self.latencies.append((time.perf_counter() - sent) * 1000)
                del self.waiting[cid]

    async def _act(self, view: _View, measuring: list[bool]) -> None:
        try:
            await asyncio.sleep(self.think)
            allowed = view.rules.allowed
            if "draw" in allowed:
                move: dict[str, Any] = {"type": "draw"}
            else:  # the rules' detail asked, as a client that warns of penalties does
                self.n += 1
                rid = f"rules-{self.n}"
                future: asyncio.Future[_Frame] = asyncio.get_running_loop().create_future()
                self.outcomes[rid] = future
                await self.send(type="rules", id=rid, table_id=self.table, seat=view.seat,
                                version=view.seq)
                answer = await asyncio.wait_for(future, 60)
                detail = answer.rules or {}
                costly = {p["tile"] for p in detail.get("penalised_discards", [])}
                tile = next((t for t in view.rack if t not in costly), view.rack[0])
                move = {"type": "discard", "tile": tile}
            self.n += 1
            cid = f"m{self.n}"
            if measuring[0]:
                self.waiting[cid] = (time.perf_counter(), view.seq)
            await self.send(type="command", id=cid, table_id=self.table, seq=view.seq,
                            command=move)
        except (ConnectionError, TimeoutError):
            pass  # the run is over and the socket closed (a rules ask left unanswered)
        finally:
            self.acting = False


async def connect(session: aiohttp.ClientSession, url: str, name: str
                  ) -> aiohttp.ClientWebSocketResponse:
    ws = await session.ws_connect(f"{url}ws", max_msg_size=0)
    await ws.send_str(json.dumps({"type": "hello", "v": 2, "token": identity.mint(
        SECRET, name, int(time.time()))}))
    welcome = json.loads((await ws.receive(timeout=30)).data)
    assert welcome["type"] == "welcome", welcome
    return ws


async def seat_tables(session: aiohttp.ClientSession, url: str, players: int, think: float,
                      run: str) -> list[Player]:
    out: list[Player] = []
    for t in range(players // 4):
        group = [Player(f"{run}-t{t}-p{s}", await connect(session, url, f"{run}-t{t}-p{s}"),
                        think) for s in range(4)]
        out += group
    return out


async def play(url: str, players: int, think: float, seconds: float, frozen: int,
               run: str, watchers: int = 0) -> tuple[list[float], list[Player], int]:
    """Latencies (ms) of command -> own updated view while `players` play."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        people = await seat_tables(session, url, players, think, run)
        until = time.monotonic() + 3600
        measuring = [False]
        tasks = [asyncio.create_task(p.run(until, measuring)) for p in people]
        tables = []
        for i in range(0, len(people), 4):
            group = people[i:i + 4]
            made = await group[0].command({"type": "create_table", "profile": "north-sultan",
                                           "options": {"hands_per_match": 99,
                                                       "turn_seconds": 600}})
            table = made.table_id
            tables.append(table)
            for seat, p in enumerate(group):
                p.table = table
                await p.send(type="watch", table_id=table)
                sat = await p.command({"type": "sit", "seat": seat})
                assert sat.accepted, sat
            started = await group[0].command({"type": "start_match"})
            assert started.accepted, started
        stuck = [await frozen_socket(url, tables[i % len(tables)], f"{run}-frozen{i}")
                 for i in range(frozen)]
        await asyncio.sleep(2)  # warm up
        measuring[0] = True
        await asyncio.sleep(seconds)
        measuring[0] = False
        for task in tasks:
            task.cancel()
        for sock in stuck:
            sock.close()
        latencies = [x for p in people for x in p.latencies]
        return latencies, people, len(tables)


async def frozen_socket(url: str, table: str, name: str) -> socket.socket:
    """A client that says hello, watches `table`, then never reads."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    token = identity.mint(SECRET, name, int(time.time()))
    for message in ({"type": "hello", "v": 2, "token": token},
                    {"type": "watch", "table_id": table}):
        payload = json.dumps(message).encode()
        size = bytes([0x80 | len(payload)]) if len(payload) < 126 else \
            bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
        sock.sendall(bytes([0x81]) + size + b"\0\0\0\0" + payload)  # a zero mask
    return sock


def summary(latencies: list[float]) -> str:
    if not latencies:
        return "no commands measured"
    ordered = sorted(latencies)
    p50, p99 = percentile(ordered, 0.5), percentile(ordered, 0.99)
    return (f"p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  max "
            f"{ordered[-1]:6.1f} ms  ({len(ordered)} commands)")


async def hold(url: str, services: Services, connections: int, table: str) -> None:
    before = services.rss_kib()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        sockets = []
        for i in range(0, connections, 100):
            batch = await asyncio.gather(*(connect(session, url, f"held-{n}")
                                           for n in range(i, min(connections, i + 100))))
            for ws in batch:
                await ws.send_str(json.dumps({"type": "watch", "table_id": table}))
            sockets += batch
        await asyncio.sleep(3)
        after = services.rss_kib()
        open_now = sum(1 for ws in sockets if not ws.closed)
        print(f"held {open_now} connections (each watching a table): gateway RSS "
              f"{before / 1024:.0f} MiB -> {after / 1024:.0f} MiB, "
              f"{(after - before) / max(1, connections):.1f} KiB per connection")
        for ws in sockets:
            await ws.close()


async def reconnect(url: str, clients: int, tables: list[str], players: int, think: float,
                    run: str) -> None:
    """Spectators drop and reconnect at once while play goes on; each must resume."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        people = await seat_tables(session, url, players, think, run)
        until = time.monotonic() + 3600
        measuring = [False]
        tasks = [asyncio.create_task(p.run(until, measuring)) for p in people]
        for i in range(0, len(people), 4):
            group = people[i:i + 4]
            made = await group[0].command({"type": "create_table", "profile": "north-sultan",
                                           "options": {"hands_per_match": 99}})
            tables.append(made.table_id)
            for seat, p in enumerate(group):
                p.table = made.table_id
                await p.send(type="watch", table_id=made.table_id)
                await p.command({"type": "sit", "seat": seat})
            await group[0].command({"type": "start_match"})
        names = [f"{run}-watch{i}" for i in range(clients)]
        socks = await asyncio.gather(*(connect(session, url, n) for n in names))
        held: list[int] = []
        for i, ws in enumerate(socks):
            await ws.send_str(json.dumps({"type": "watch", "table_id": tables[i % len(tables)]}))
        for ws in socks:
            while (frame := decode((await ws.receive(timeout=30)).data)).type != "update":
                pass
            held.append(frame.version)
        await asyncio.sleep(1)
        for ws in socks:  # the newest version each held before dropping
            while True:
                try:
                    msg = await ws.receive(timeout=0.001)
                except TimeoutError:
                    break
                frame = decode(msg.data)
                if frame.type in ("update", "patch"):
                    held[socks.index(ws)] = frame.version
        await asyncio.gather(*(ws.close() for ws in socks))
        await asyncio.sleep(2)  # play goes on meanwhile
        started = time.perf_counter()
        again = await asyncio.gather(*(connect(session, url, n) for n in names))
        for i, ws in enumerate(again):
            await ws.send_str(json.dumps({"type": "watch", "table_id": tables[i % len(tables)],
                                          "version": held[i]}))
        good = reset = 0
        for i, ws in enumerate(again):
            while (frame := decode((await ws.receive(timeout=30)).data)).type not in \
                    ("update", "synced"):
                pass
            if frame.type == "synced" or (frame.previous == held[i] and not frame.reset and
                                          frame.version >= held[i]):
                good += 1
            elif frame.reset:
                reset += 1
        took = time.perf_counter() - started
        print(f"{clients} clients reconnecting at once: {good} resumed with exactly what they "
              f"missed, {reset} got a fresh view, {clients - good - reset} wrong; all "
              f"reconnected and resumed in {took:.2f} s")
        for task in tasks:
            task.cancel()
        await asyncio.gather(*(ws.close() for ws in again))


async def main_async(args: argparse.Namespace) -> None:
    if not os.environ.get("KAFKA_BOOTSTRAP"):
        subprocess.run(["bash", str(ROOT / "tools" / "kafka" / "broker.sh"), "start"],
                       check=True)
    bootstrap = bootstrap_servers()
    prefix = scratch.prefix("benchgw", bootstrap)
    services = Services(bootstrap, prefix)
    try:
        url = await services.start()
        print(f"gateway: {args.players} players at {args.players // 4} north-sultan tables, "
              f"{args.think:g} s to think, {args.seconds:g} s measured (topics {prefix}.*)")
        lat, _, _ = await play(url, args.players, args.think, args.seconds, 0, "a")
        print(f"command -> own updated view: {summary(lat)}")
        lat, _, _ = await play(url, args.players, args.think, args.seconds, args.frozen, "b")
        print(f"  with {args.frozen} frozen clients watching: {summary(lat)}")
        lat, _, _ = await play(url, args.players, args.think, args.seconds, 0, "c")
        print(f"  again without them (the machine's noise): {summary(lat)}")
        tables: list[str] = []
        await reconnect(url, args.reconnect, tables, 8, args.think, "r")
        await hold(url, services, args.connections, tables[0])
    finally:
        services.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--think", type=float, default=0.5, help="seconds before each move")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--frozen", type=int, default=20)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--reconnect", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="a short run (bench-quick)")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.connections, args.reconnect, args.players = 8, 300, 200, 80
    scratch.run(main_async(args))


if __name__ == "__main__":
    main()
