"""Benchmark: the leaderboards service on the local broker, and the rebuild of 100,000 matches.

Events: synthesised in process (`tools.standings_feed.population`: only the events the
standings read, about ten per match, with bots, leavers and substitutes in every house),
written keyed by table id in Kafka transactions as the processor writes them.

1. Live: the service runs and is ready; matches are written at `--rate` matches/s for
   `--seconds`; printed: matches applied per second, and the delay from each match_ended
   record (its Kafka timestamp) to the first standings record of that match (its Kafka
   timestamp): p50, p99, max. Goal: p99 <= 1 s.
2. Rebuild: `--rebuild` matches are written first (the write rate is printed); then
   (a) the pure fold of the same records in process (no Kafka), and (b) a fresh service
   started on the topic, timed to ready (read every partition, fold, apply sorted, write
   every standing): matches/s and seconds for each.

Run: .venv/bin/python -m tools.bench.standings [--rate 50] [--seconds 20] [--rebuild 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import msgspec

from okey101.app import topics
from okey101.standings import Ledger
from services.common.kafka import bootstrap_servers, provision
from services.common.ports import free_port
from services.common.stack import Stack
from services.leaderboards.reading import read_records
from tools.bench import scratch
from tools.bench.stats import percentile
from tools.standings_feed import interleave, population, publish

ROOT = Path(__file__).resolve().parents[2]


class _Head(msgspec.Struct):
    type: str = ""
    table_id: str = ""
    last_table: str = ""


_head = msgspec.json.Decoder(_Head)


class Service:
    """The leaderboards service, started as the demo starts it (`services.common.stack`),
    its HTTP reads on a free port."""

    def __init__(self, bootstrap: str, prefix: str) -> None:
        self.port = free_port()
        self.stack = Stack(bootstrap, prefix, ROOT / ".cache", log_stem=f"bench-{prefix}-")
        self.stack.launch("leaderboards", "--http-port", str(self.port), port=0)

    def health(self) -> dict[str, Any]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5) as r:
                return dict(json.loads(r.read()))
        except OSError:
            return {"ready": False, "matches": 0}

    async def until(self, matches: int, timeout: float) -> float:
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            health = await asyncio.to_thread(self.health)
            if health["ready"] and health["matches"] >= matches:
                return time.monotonic() - started
            await asyncio.sleep(0.1)
        raise TimeoutError(f"not {matches} matches in {timeout:.0f} s")

    def stop(self) -> None:
        self.stack.stop()


async def live(bootstrap: str, rate: float, seconds: float, seed: int) -> None:
    prefix = scratch.prefix("benchlb", bootstrap)
    partitions = await provision(bootstrap, prefix)
    matches = max(1, int(rate * seconds))
    tables = population(seed, matches, accounts=max(40, matches // 5), prefix="L")
    records = interleave(tables, width=max(1, int(rate)))
    service = Service(bootstrap, prefix)
    try:
        await service.until(0, 120)
        started = time.monotonic()
        await publish(bootstrap, topics.EVENTS.name(prefix), records,
                      rate=len(records) / seconds, per_transaction=10)
        await service.until(matches, 120)
        elapsed = time.monotonic() - started
    finally:
        service.stop()
    wanted = [(topics.EVENTS.name(prefix), p) for p in range(partitions)]
    ended: dict[str, int] = {}
    for rs in (await read_records(bootstrap, wanted)).values():
        for r in rs:
            head = _head.decode(r.value)
            if head.type == "match_ended":
                ended[head.table_id] = r.timestamp
    first: dict[str, int] = {}
    wanted = [(topics.STANDINGS.name(prefix), p) for p in range(partitions)]
    for rs in (await read_records(bootstrap, wanted)).values():
        for r in rs:
            table = _head.decode(r.value).last_table
            first[table] = min(first.get(table, r.timestamp), r.timestamp)
    delays = [(first[t] - ended[t]) / 1000 for t in ended if t in first]
    print(f"live: {matches} matches ({len(records)} event records) offered at {rate:g} "
          f"matches/s for {seconds:g} s; all applied in {elapsed:.1f} s "
          f"({matches / elapsed:.1f} matches/s)")
    print(f"  match_ended -> standings record: p50 {percentile(delays, 0.5) * 1000:.0f} ms, "
          f"p99 {percentile(delays, 0.99) * 1000:.0f} ms, max {max(delays) * 1000:.0f} ms "
          f"over {len(delays)} matches (goal: p99 <= 1000 ms)")


async def rebuild(bootstrap: str, matches: int, seed: int) -> None:
    prefix = scratch.prefix("benchlb", bootstrap)
    await provision(bootstrap, prefix)
    started = time.perf_counter()
    tables = population(seed, matches, accounts=max(200, matches // 50), prefix="R")
    records = interleave(tables, width=200)
    made = time.perf_counter() - started
    started = time.perf_counter()
    await publish(bootstrap, topics.EVENTS.name(prefix), records, per_transaction=2000)
    wrote = time.perf_counter() - started
    print(f"rebuild: {matches} matches synthesised ({len(records)} event records) in "
          f"{made:.1f} s, written to Kafka in {wrote:.1f} s "
          f"({len(records) / wrote:,.0f} records/s)")
    ledger = Ledger(buffering=True)
    started, cpu = time.perf_counter(), time.process_time()
    for offset, (_, value) in enumerate(records):
        ledger.read(value, 0, offset)
    ledger.flush()
    folded = time.perf_counter() - started
    cpu = time.process_time() - cpu
    del records, tables
    print(f"  (a) pure fold in process, no Kafka: {folded:.1f} s "
          f"({matches / folded:,.0f} matches/s, {ledger.records / folded:,.0f} records/s; "
          f"{len(ledger.board.standings)} standings); CPU time {cpu:.1f} s "
          f"({matches / cpu:,.0f} matches/s of CPU: the figure to compare on a shared machine)")
    service = Service(bootstrap, prefix)
    try:
        took = await service.until(matches, 1800)
    finally:
        service.stop()
    print(f"  (b) a fresh leaderboards service to ready (start-up, read every partition, "
          f"fold, apply sorted, write every standing): {took:.1f} s "
          f"({matches / took:,.0f} matches/s)")


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m tools.bench.standings", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rate", type=float, default=50, help="matches/s offered live")
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--rebuild", type=int, default=100_000, help="matches to rebuild (0: skip)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    bootstrap = bootstrap_servers()
    if not os.environ.get("KAFKA_BOOTSTRAP"):
        subprocess.run(["bash", str(ROOT / "tools" / "kafka" / "broker.sh"), "start"],
                       check=True)
    print("standings benchmark (tools.bench.standings)")
    scratch.run(live(bootstrap, args.rate, args.seconds, args.seed))
    if args.rebuild:
        scratch.run(rebuild(bootstrap, args.rebuild, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
