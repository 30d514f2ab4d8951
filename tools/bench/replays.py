"""Benchmark: replays on the local broker.

1. A bench events topic of at least --events events (1,000,000 by default). Whole matches
   are played in process by the simple players (`okey101.simulate.play_match`, the
   four houses in turn) and copied under fresh table ids, each copy's events stamped one
   second apart; then produced straight into the topic (batched, not transactional: fine
   for a read benchmark), keyed and partitioned by table as the processor writes them. On
   each partition `--live` tables are played at once (a table's events are interleaved
   with those of the other tables live on its partition, as in production), so a table's
   offset range holds about `--live` times its own events.
2. The replays service (a subprocess) builds the directory of that topic: its rate.
3. Single-table replay: the state at a table's end over HTTP
   (`/tables/{id}/state`), for --samples tables drawn at random: p50/p95/max; and, in
   the same run, the same replay done by a full scan of the topic (every partition read
   from the beginning, the table's records kept, folded): the ratio.
4. Export: every event of the topic to Parquet, the bench process pinned to one core:
   events/s from the broker to the files, and CPU seconds; first the reading alone (the
   export's reader, `services.replays.bulk`, every record read and dropped).
5. Directory lag under the demo's load: the demo's four bot tables played by the real
   processor, timers and bots with the replays service following; for every event, from
   its record time to the record time of the first directory entry holding it: p50/p99/max.

Run: .venv/bin/python -m tools.bench.replays [--events N] [--samples S] [--hands H]
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
from aiokafka import AIOKafkaProducer, TopicPartition
from confluent_kafka import TopicPartition as ConfluentPartition

from okey101 import profiles
from okey101.app import topics
from okey101.app.replays.directory import entry_decoder
from okey101.app.replays.replay import fold
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from services.common.kafka import bootstrap_servers, provision
from services.common.ports import free_port
from services.common.stack import PLAYING, Stack
from services.replays.bulk import BulkReader
from services.replays.exporting import export
from services.replays.reading import (
    consumer,
    directory_lag,
    load_directory,
    partitions_of,
    read_range,
)
from tools.bench import scratch
from tools.bench.stats import percentile

ROOT = Path(__file__).resolve().parents[2]
HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna")
T0 = 1_764_500_000_000


# ---------------------------------------------------------------- 1. the topic
def matches(distinct: int, seed: int) -> list[list[E.Event]]:
    seeds = match_seeds(seed, distinct)
    return [play_match(HOUSES[i % len(HOUSES)], s).events for i, s in enumerate(seeds)]


def schedule(recorded: list[list[E.Event]], wanted: int, live: int, partitions: int, tag: str
             ) -> dict[int, list[tuple[bytes, bytes]]]:
    """(key, value) records by partition: copies of the recorded matches under new table
    ids, `live` tables at a time on each partition, until `wanted` events."""
    queues: dict[int, deque[str]] = defaultdict(deque)
    sources: dict[str, list[E.Event]] = {}
    total, n = 0, 0
    while total < wanted:
        table = f"{tag}-{n}"
        events = recorded[n % len(recorded)]
        sources[table] = events
        queues[topics.partition_for(table.encode(), partitions)].append(table)
        total += len(events)
        n += 1
    out: dict[int, list[tuple[bytes, bytes]]] = {}
    for partition, waiting in queues.items():
        records: list[tuple[bytes, bytes]] = []
        playing: list[list[Any]] = []  # [table, next index]
        clock = 0
        while waiting or playing:
            while waiting and len(playing) < live:
                playing.append([waiting.popleft(), 0])
            for slot in list(playing):
                table, i = slot
                event = sources[table][i]
                clock += 1
                copy = msgspec.structs.replace(event, table_id=table, at=T0 + clock * 1000)
                records.append((table.encode(), E.encode(copy)))
                slot[1] += 1
                if slot[1] == len(sources[table]):
                    playing.remove(slot)
        out[partition] = records
    return out


async def produce(bootstrap: str, topic: str, by_partition: dict[int, list[tuple[bytes, bytes]]]
                  ) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=20, acks=1,
                                max_batch_size=1024 * 1024, max_request_size=8 * 1024 * 1024)
    await producer.start()
    try:
        pending = []
        for partition, records in by_partition.items():
            batch = producer.create_batch()
            for key, value in records:
                if batch.append(key=key, value=value, timestamp=None) is None:
                    batch.close()
                    pending.append(await producer.send_batch(batch, topic, partition=partition))
                    batch = producer.create_batch()
                    batch.append(key=key, value=value, timestamp=None)
            batch.close()
            pending.append(await producer.send_batch(batch, topic, partition=partition))
        await asyncio.gather(*pending)
    finally:
        await producer.stop()


async def wait_caught_up(bootstrap: str, prefix: str, group: str, partitions: int,
                         timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lag = await directory_lag(bootstrap, prefix, group, range(partitions))
        if not any(x.events for x in lag):
            return
        await asyncio.sleep(1)
    raise TimeoutError("the replays service did not index the bench topic in time")


# ---------------------------------------------------------------- 3. replay vs scan
async def replay_latencies(url: str, tables: list[str]) -> list[float]:
    out = []
    async with aiohttp.ClientSession() as session:
        for table in tables:
            started = time.perf_counter()
            async with session.get(f"{url}/tables/{table}/state") as resp:
                body = await resp.read()
                assert resp.status == 200, body[:300]
            out.append((time.perf_counter() - started) * 1000)
    return out


async def full_scan(bootstrap: str, topic: str, partitions: int, table: str) -> float:
    """The table replayed without a directory: every partition read from the start."""
    started = time.perf_counter()
    key = table.encode()
    events: list[E.Event] = []
    reader = consumer(bootstrap)
    await reader.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        ends = await reader.end_offsets(tps)
        for tp in tps:
            if ends[tp]:
                async for records in read_range(reader, topic, tp.partition, 0, ends[tp] - 1,
                                                 timeout=600):
                    events += [E.event_decoder.decode(r.value) for r in records if r.key == key]
    finally:
        await reader.stop()
    assert fold(events).state.seq == len(events) > 0
    return (time.perf_counter() - started) * 1000


def read_only(bootstrap: str, topic: str, partitions: int) -> int:
    """Every record of the topic read and dropped, by the reader the export reads with
    (`services.replays.bulk`): what the export's reading costs."""
    reader = BulkReader(bootstrap)
    count = 0
    try:
        for partition in range(partitions):
            low, high = reader.consumer.get_watermark_offsets(
                ConfluentPartition(topic, partition), timeout=30)
            for offsets, _ in reader.read(topic, partition, low, high - 1, timeout=600):
                count += len(offsets)
        return count
    finally:
        reader.close()


# ---------------------------------------------------------------- 5. lag under the demo
async def lag_under_demo(bootstrap: str, hands: int, houses: list[str] | None = None
                         ) -> list[float]:
    from rich.console import Console

    from services.demo.__main__ import play

    prefix = scratch.prefix("benchdemo", bootstrap)
    await provision(bootstrap, prefix)
    port = free_port()
    # the stack a person plays through, but the gateway (the demo's matches are produced
    # straight to the commands topic), and the replays service
    stack = Stack(bootstrap, prefix, ROOT / ".cache", log_stem="bench-demo-")
    stack.start_playing([n for n in PLAYING if n != "gateway"],
                        ports=dict.fromkeys(PLAYING, 0))
    stack.launch("replays", "--http-port", str(port), port=0)
    try:
        await owning(f"http://127.0.0.1:{port}", topics.PARTITIONS)  # its start is no lag
        # no readiness wait on these services (their metrics ports are 0): the replays
        # service owns its partitions (above), the matches wait for the others' answers
        await play(argparse.Namespace(hands=hands, timeout=1800, wait=60.0, house=houses),
                   bootstrap, prefix, [], Console(force_terminal=False))
        await wait_caught_up(bootstrap, prefix, f"{prefix}-replays", topics.PARTITIONS, 60)
    finally:
        stack.stop()
    events = await records_of(bootstrap, topics.EVENTS.name(prefix))
    written = await records_of(bootstrap, topics.DIRECTORY.name(prefix))
    # per table: (last_offset, record time) of each directory write, in write order
    writes: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for _, record in sorted(written, key=lambda pr: (pr[1].timestamp, pr[1].offset)):
        entry = entry_decoder.decode(record.value)
        writes[entry.table_id].append((entry.last_offset, record.timestamp))
    lags = []
    for table, done in writes.items():
        reach: list[int] = []  # the offsets the table's writes had reached, never going back
        for offset, _ in done:
            reach.append(max(offset, reach[-1] if reach else -1))
        writes[table] = [(r, ts) for r, (_, ts) in zip(reach, done, strict=True)]
    for _, record in events:
        done = writes[record.key.decode()]
        first = done[bisect.bisect_left([o for o, _ in done], record.offset)]
        lags.append((first[1] - record.timestamp) / 1000)
    return lags


async def owning(url: str, partitions: int, timeout: float = 120) -> None:
    """Until the replays service at `url` indexes every events partition."""
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(f"{url}/status") as resp:
                    doc = await resp.json()
                if len(doc["partitions"]) == partitions:
                    return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise TimeoutError("the replays service did not take the events partitions")


async def records_of(bootstrap: str, topic: str) -> list[tuple[int, Any]]:
    reader = consumer(bootstrap)
    await reader.start()
    out: list[tuple[int, Any]] = []
    try:
        tps = [TopicPartition(topic, p) for p in sorted(await partitions_of(reader, topic))]
        ends = await reader.end_offsets(tps)
        for tp in tps:
            if ends[tp]:
                async for records in read_range(reader, topic, tp.partition, 0, ends[tp] - 1):
                    out += [(tp.partition, r) for r in records if r.value is not None]
        return out
    finally:
        await reader.stop()


# ---------------------------------------------------------------- the run
async def main_async(args: argparse.Namespace) -> None:
    if not os.environ.get("KAFKA_BOOTSTRAP"):
        subprocess.run(["bash", str(ROOT / "tools" / "kafka" / "broker.sh"), "start"],
                       check=True)
    bootstrap = bootstrap_servers()
    prefix = scratch.prefix("benchrp", bootstrap)
    partitions = await provision(bootstrap, prefix)
    started = time.perf_counter()
    recorded = matches(args.distinct, args.seed)
    by_partition = schedule(recorded, args.events, args.live, partitions, prefix)
    total = sum(len(r) for r in by_partition.values())
    tables = sorted({k.decode() for rs in by_partition.values() for k, _ in rs})
    await produce(bootstrap, topics.EVENTS.name(prefix), by_partition)
    print(f"replays: topic {prefix}.events with {total} events of {len(tables)} tables "
          f"({args.distinct} distinct matches of the 4 houses copied, {args.live} tables live "
          f"at once on each of {partitions} partitions), built in "
          f"{time.perf_counter() - started:.0f} s", flush=True)
    del by_partition
    port = free_port()
    started = time.perf_counter()
    stack = Stack(bootstrap, prefix, ROOT / ".cache", log_stem="bench-")
    stack.launch("replays", "--http-port", str(port), port=0)
    try:
        await wait_caught_up(bootstrap, prefix, f"{prefix}-replays", partitions, 1800)
        built = time.perf_counter() - started
        writes = [r.timestamp for _, r in await records_of(bootstrap,
                                                           topics.DIRECTORY.name(prefix))]
        span = max((max(writes) - min(writes)) / 1000, 0.001)  # a tiny run: one instant
        print(f"directory: {len(tables)} tables indexed from {total} events: {span:.1f} s from "
              f"its first write to its last ({total / span:,.0f} events/s); {built:.1f} s with "
              "the service's start and group join", flush=True)
        directory = await load_directory(bootstrap, topics.DIRECTORY.name(prefix))
        spans = [e.last_offset - e.first_offset + 1 for e in directory.values()]
        drawn = random.Random(args.seed).sample(tables, min(args.samples + 5, len(tables)))
        # the service keeps finished tables read: others are measured
        warm, sample = drawn[:min(5, len(drawn) // 2)], drawn[min(5, len(drawn) // 2):]
        await replay_latencies(f"http://127.0.0.1:{port}", warm)
        lat = await replay_latencies(f"http://127.0.0.1:{port}", sample)
        scans = [await full_scan(bootstrap, topics.EVENTS.name(prefix), partitions, t)
                 for t in sample[: args.scans]]
        p95, scan = percentile(lat, 0.95), statistics.fmean(scans)
        print(f"single-table replay over HTTP ({len(lat)} tables, state at the end; offset "
              f"ranges of {statistics.median(spans):,.0f} records median): p50 "
              f"{percentile(lat, 0.5):.1f} ms  p95 {p95:.1f} ms  max {max(lat):.1f} ms; "
              f"full scan {scan:,.0f} ms (mean of {len(scans)}): p95 is {scan / p95:.0f}x "
              "faster", flush=True)
    finally:
        stack.stop()
    out = Path(tempfile.mkdtemp(prefix="okey-export-"))
    try:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        cpu, wall = time.process_time(), time.perf_counter()
        read = await asyncio.to_thread(read_only, bootstrap, topics.EVENTS.name(prefix),
                                       partitions)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"export, its first stage alone: {read} records read from the broker in "
              f"{wall:.1f} s ({read / wall:,.0f}/s; {read / cpu:,.0f} per CPU second)",
              flush=True)
        cpu, wall = time.process_time(), time.perf_counter()
        done = await export(bootstrap, prefix, out, 0, 2**63 - 1, entries=directory)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        size = sum(p.stat().st_size for p in out.rglob("*.parquet")) / 1e6
        print(f"export: {done.events} events of {done.tables} tables to {done.files} Parquet "
              f"files ({size:.0f} MB) in {wall:.1f} s on one core: {done.events / wall:,.0f} "
              f"events/s ({done.events / cpu:,.0f} per CPU second)", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)
        os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    if args.hands:
        lags = await lag_under_demo(bootstrap, args.hands, args.house)
        print(f"directory lag under the demo's load ({len(args.house or profiles.HOUSES)} "
              "bot tables, "
              f"{args.hands} hand(s) a "
              f"match, {len(lags)} events): p50 {percentile(lags, 0.5) * 1000:.0f} ms  "
              f"p99 {percentile(lags, 0.99) * 1000:.0f} ms  max {max(lags) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--distinct", type=int, default=16, help="matches actually played")
    parser.add_argument("--live", type=int, default=8, help="tables at once per partition")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--scans", type=int, default=3)
    parser.add_argument("--hands", type=int, default=3,
                        help="hands a match for the lag under the demo's load (0: skip)")
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--house", action="append", choices=sorted(profiles.HOUSES),
                        help="the demo's load: only this house's table (repeat for more; "
                             "default: one table per house)")
    scratch.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
