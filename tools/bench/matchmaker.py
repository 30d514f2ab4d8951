"""The matchmaker on the real broker (services/matchmaker as a subprocess, as production
runs it): quick play for N simulated players asking at once, and a bot tournament.

1. Quick play: N accounts (400; `--quick`: 40) get a skill ordinal (seeded normal, mean 10,
   sd 8, at least 0) and a level that grows with it, published on the standings topic
   before the matchmaker starts; then every account asks for a seat in north-sultan at
   once. Measured: request -> seated (from the request's time to the moment the reader
   sees its committed `seated`), p50/p99; the skill spread of the humans at each table
   (highest minus lowest ordinal) against the same players seated at random within their
   halls (the same tables of four).
2. Tournament: processor, bots and matchmaker; a north-sultan tournament of 64 (`--quick`:
   16) filled with level-1 bots, one hand a match, from its schedule to its final
   standings: wall time, and every table's result accounted for.

    python -m tools.bench.matchmaker [--quick] [--players 400] [--size 64]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
import uuid
from pathlib import Path

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from okey101.app import topics
from okey101.app.matchmaker import halls
from okey101.app.matchmaker import records as R
from okey101.standings.board import Standing
from services.common.kafka import drop_topics, local_bootstrap, provision
from services.common.stack import Service
from tools.bench.stats import percentile, summary

ROOT = Path(__file__).resolve().parents[2]
NS = "north-sultan"
LOGS = ROOT / ".cache" / "bench-logs"


def level_of(ordinal: float) -> int:
    return max(1, min(15, 1 + int(ordinal / 2)))


def launch(name: str, prefix: str, bootstrap: str, *args: str) -> Service:
    """A service started as the demo and the tests start it (`services.common.stack`)."""
    LOGS.mkdir(parents=True, exist_ok=True)
    return Service(name, bootstrap, prefix, *args, log=LOGS / f"{prefix}-{name}.log", port=0,
                   log_level="info").start()


async def follow(bootstrap: str, prefix: str, done: object, timeout: float
                 ) -> list[tuple[float, R.AnyDecision]]:
    """(arrival time, decision) of every committed decision until `done(decisions)`."""
    consumer = AIOKafkaConsumer(topics.MATCHMAKER.name(prefix), bootstrap_servers=bootstrap,
                                group_id=None, isolation_level="read_committed",
                                auto_offset_reset="earliest", fetch_max_wait_ms=20)
    await consumer.start()
    out: list[tuple[float, R.AnyDecision]] = []
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=200, max_records=5000)
            now = time.time() * 1000
            for records in batch.values():
                out += [(now, R.decision_decoder.decode(r.value)) for r in records if r.value]
            if done([d for _, d in out]):  # type: ignore[operator]
                return out
        raise SystemExit(f"timed out after {timeout:.0f} s with {len(out)} decisions")
    finally:
        await consumer.stop()


async def quick_play(bootstrap: str, players: int, bot_wait_ms: int, seed: int) -> None:
    prefix = f"benchmm{uuid.uuid4().hex[:8]}"
    rng = random.Random(seed)
    ordinals = {f"p{n:04d}": round(max(0.0, rng.gauss(10, 8)), 2) for n in range(players)}
    await provision(bootstrap, prefix)
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    await producer.start()
    mm = None
    try:
        for p, o in ordinals.items():
            s = Standing(house=NS, account=p, level=level_of(o), skill_ordinal=o)
            await producer.send(topics.STANDINGS.name(prefix), R.encode(s),
                                key=f"{NS}/{p}".encode())
        await producer.flush()
        mm = launch("matchmaker", prefix, bootstrap, "--tick-ms", "50",
                     "--bot-wait-ms", str(bot_wait_ms))
        await mm.wait_for("partition_rebuilt", timeout=120)
        await asyncio.sleep(3)  # every partition assigned and rebuilt
        asked: dict[str, int] = {}
        for p in ordinals:
            asked[p] = int(time.time() * 1000)
            await producer.send(topics.MATCHMAKING.name(prefix), R.encode(R.QuickPlay(
                request_id=f"{p}/q", house=NS, player_id=p, at=asked[p])), key=NS.encode())
        await producer.flush()

        def seated_all(log: list[R.AnyDecision]) -> bool:
            return sum(sum(not s.bot for s in d.seats) for d in log
                       if isinstance(d, R.Seated)) >= players

        log = await follow(bootstrap, prefix, seated_all, timeout=120 + bot_wait_ms / 1000)
    finally:
        if mm is not None:
            mm.stop()
        await producer.stop()
        await drop_topics(bootstrap, prefix)
    waits, tables = [], []
    for arrived, d in log:
        if isinstance(d, R.Seated):
            humans = [s for s in d.seats if not s.bot]
            waits += [arrived - asked[s.player_id] for s in humans]
            tables.append((d.hall, [s.player_id for s in humans]))
    spread = [max(ordinals[p] for p in t) - min(ordinals[p] for p in t)
              for _, t in tables if len(t) > 1]
    # the same players at random within their halls, in tables of the same sizes
    shuffled = random.Random(seed + 1)
    by_hall: dict[str, list[list[str]]] = {}
    for hall, t in tables:
        by_hall.setdefault(hall, []).append(t)
    at_random = []
    for group in by_hall.values():
        pool = [p for t in group for p in t]
        shuffled.shuffle(pool)
        for t in group:
            seat, pool = pool[:len(t)], pool[len(t):]
            if len(seat) > 1:
                at_random.append(max(ordinals[p] for p in seat) - min(ordinals[p] for p in seat))
    bots = sum(4 - len(t) for _, t in tables)
    halls_seen = sorted({h for h, _ in tables})
    print(f"quick play, {players} players asking at once ({len(tables)} tables, {bots} bot "
          f"seats after a {bot_wait_ms / 1000:g} s wait; halls {halls_seen})")
    print(f"  request -> seated: {summary(waits)}")
    mean = sum(spread) / max(1, len(spread))
    mean_random = sum(at_random) / max(1, len(at_random))
    print(f"  skill spread at a table (ordinal, max - min): matched mean {mean:.2f} p50 "
          f"{percentile(spread, 0.5):.2f} p99 {percentile(spread, 0.99):.2f}; random "
          f"seating in the same halls mean {mean_random:.2f} p50 "
          f"{percentile(at_random, 0.5):.2f}; ratio {mean / max(mean_random, 1e-9):.2f}")
    assert len({p for _, t in tables for p in t}) == players  # everyone seated once


async def tournament(bootstrap: str, size: int) -> None:
    prefix = f"benchmt{uuid.uuid4().hex[:8]}"
    services: list[Service] = []
    try:
        services = [launch("processor", prefix, bootstrap, "--instance-id", "p"),
                    launch("views", prefix, bootstrap),  # the views the bots play from
                    launch("bots", prefix, bootstrap, "--no-fill-seats"),
                    launch("matchmaker", prefix, bootstrap, "--tick-ms", "50")]
        for s in services:
            await s.wait_for("started" if s is not services[0] else "partition",
                             timeout=120)
        await asyncio.sleep(3)
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
        await producer.start()
        started = time.monotonic()
        try:
            request = R.ScheduleTournament(
                request_id="bench/cup", house=NS, tournament_id="cup", size=size, hands=1,
                starts_at=int(time.time() * 1000), fill_with_bots=True, bot_level=1)
            await producer.send_and_wait(topics.MATCHMAKING.name(prefix), R.encode(request),
                                         key=NS.encode())
        finally:
            await producer.stop()
        log = await follow(bootstrap, prefix, lambda log: any(
            isinstance(d, R.TournamentEnded) for d in log), timeout=1800)
        wall = time.monotonic() - started
    finally:
        for s in reversed(services):
            s.stop()
        await drop_topics(bootstrap, prefix)
    decisions = [d for _, d in log]
    (ended,) = [d for d in decisions if isinstance(d, R.TournamentEnded)]
    tables = [d for d in decisions if isinstance(d, R.Seated)]
    results = [d for d in decisions if isinstance(d, R.TableResult)]
    rounds = max(d.round for d in tables)
    accounted = {d.table_id for d in tables} == {d.table_id for d in results}
    print(f"tournament of {size} (bots, 1 hand a match): {wall:.1f} s from schedule to "
          f"standings; {len(tables)} matches in {rounds} rounds, results for every table: "
          f"{accounted}; standings {len(ended.standings)}, ended.matches {ended.matches}")
    assert accounted and ended.matches == len(tables) and len(ended.standings) == size


async def main_async(args: argparse.Namespace) -> None:
    bootstrap = args.bootstrap or local_bootstrap()
    print(f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}; halls {[h for h, _ in halls.level_halls(NS)]}")
    await quick_play(bootstrap, args.players, args.bot_wait_ms, args.seed)
    await tournament(bootstrap, args.size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", default=None)
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--size", type=int, default=64, help="tournament entrants (16, 64)")
    parser.add_argument("--bot-wait-ms", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--quick", action="store_true", help="40 players, a tournament of 16")
    args = parser.parse_args()
    if args.quick:
        args.players, args.size = 40, 16
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
