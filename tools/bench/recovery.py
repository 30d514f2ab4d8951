"""Benchmark: the processor's recovery, from the full log versus from its snapshots, as the
history grows.

Whole north-sultan matches are played in process by the simple players and recorded; their
commands are replayed onto tables that come in waves (`--live` tables at a time, each wave
starting once the previous one has finished), as a site's tables start and end over the
day. The real processor (`python -m services.processor --snapshot-every N`) decides them
on the local broker. At each history size (every `--step` commands up to `--commands`),
the time from the start of a recovery to the processor's memory being ready to decide
(`Processor._rebuild` of every partition, as a start or a rebalance runs it: read the
snapshots topic and the logs, decode, fold) is measured both ways in the same run: from
the full events and outcomes logs, and from the latest snapshot plus the logs' tail. Both
rebuilds must end with the same memory (checked). The snapshots topic is compacted; what
compaction has not reached yet is read too, so the records read are printed with it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import time
import uuid

import msgspec
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from okey101.app import topics
from okey101.app.processor.processing import FINISHED_WINDOW, OUTCOMES_PER_TABLE, PartitionTables
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from services.common.kafka import bootstrap_servers, client_security, provision
from services.common.logs import configure_logging
from services.processor.app import Processor as InProcess
from tools.bench import scratch
from tools.bench.kafka import ROOT, Processor, interleave


def waves(total: int, live: int, hands: int, seed: int) -> list[E.Command]:
    """About `total` commands: waves of `live` tables, each a recorded match under its own
    id, the waves one after another."""
    profile = {"base": "north-sultan", "options": {"hands_per_match": hands}}
    matches = [play_match(profile, s).commands for s in match_seeds(seed, 25)]
    out: list[E.Command] = []
    n = 0
    while len(out) < total:
        per_table = []
        for _ in range(live):
            table = f"rec-{uuid.uuid4().hex[:6]}-{n}"
            per_table.append([msgspec.structs.replace(c, table_id=table,
                                                      command_id=f"{table}-{i}")
                              for i, c in enumerate(matches[n % len(matches)])])
            n += 1
        out += interleave(per_table)
    return out


async def decide(bootstrap: str, prefix: str, commands: list[E.Command],
                 timeout: float = 3600) -> None:
    """Produce `commands` and wait for an outcome of each (the processor running)."""
    consumer = AIOKafkaConsumer(topics.OUTCOMES.name(prefix), bootstrap_servers=bootstrap,
                                group_id=None, isolation_level="read_committed",
                                auto_offset_reset="latest", enable_auto_commit=False,
                                **client_security())
    await consumer.start()
    await consumer.getmany(timeout_ms=200)  # join at the end of the topic
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=5, acks="all",
                                enable_idempotence=True, **client_security())
    await producer.start()
    try:
        for command in commands:
            await producer.send(topics.COMMANDS.name(prefix), E.encode(command),
                                key=command.table_id.encode())
        await producer.flush()
        seen, deadline = 0, time.monotonic() + timeout
        while seen < len(commands):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{seen} of {len(commands)} outcomes in {timeout:.0f} s")
            batch = await consumer.getmany(timeout_ms=1000, max_records=10000)
            seen += sum(len(records) for records in batch.values())
    finally:
        await producer.stop()
        await consumer.stop()


def memory(t: PartitionTables) -> tuple[object, ...]:
    return (t.tables, t.outcomes, list(t.finished.items()), list(t.strays.items()))


async def measure(bootstrap: str, prefix: str, partitions: int, window: int, kept: int
                  ) -> tuple[float, float, int, int, int]:
    """(seconds from the full log, seconds from snapshots, events read by each, snapshot
    records) for every partition."""
    rebuilder = InProcess(bootstrap, prefix=prefix, group=f"{prefix}-processor",
                          partitions=partitions, finished_window=window,
                          outcomes_per_table=kept)
    everything = list(range(partitions))
    started = time.perf_counter()
    from_log = await rebuilder._rebuild(everything, use_snapshots=False)
    full = time.perf_counter() - started
    log_events = sum(events for _, events, _ in rebuilder.rebuilt.values())
    started = time.perf_counter()
    from_shots = await rebuilder._rebuild(everything)
    shots = time.perf_counter() - started
    tail_events = sum(events for _, events, _ in rebuilder.rebuilt.values())
    used = sum(1 for snapshot, _, _ in rebuilder.rebuilt.values() if snapshot)
    for p in everything:
        assert memory(from_shots[p]) == memory(from_log[p]), f"partition {p} differs"
    return full, shots, log_events, tail_events, used


async def shorten_segments(bootstrap: str, prefix: str, segment_ms: int) -> None:
    """The snapshots topic rolls a segment every `segment_ms`, so that the log cleaner
    compacts it within the bench's minutes."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, **client_security())
    await admin.start()
    try:
        await admin.alter_configs([ConfigResource(
            ConfigResourceType.TOPIC, topics.SNAPSHOTS.name(prefix),
            configs={"segment.ms": str(segment_ms), "min.cleanable.dirty.ratio": "0.01",
                     "cleanup.policy": "compact"})])
    finally:
        await admin.close()


async def main_async(args: argparse.Namespace) -> None:
    if not os.environ.get("KAFKA_BOOTSTRAP"):
        subprocess.run(["bash", str(ROOT / "tools" / "kafka" / "broker.sh"), "start"],
                       check=True)
    bootstrap = bootstrap_servers()
    prefix = scratch.prefix("rec", bootstrap)
    partitions = await provision(bootstrap, prefix)
    await shorten_segments(bootstrap, prefix, args.segment_ms)
    stream = waves(args.commands, args.live, args.hands, args.seed)[:args.commands]
    print(f"recovery: {len(stream)} commands, north-sultan matches of {args.hands} hands, "
          f"{args.live} tables live at a time; snapshots every {args.snapshot_every} "
          f"commands (at a hand end), finished window {args.window} tables a partition, "
          f"{args.outcomes_per_table} command ids a table; "
          f"topics {prefix}.* with {partitions} partitions", flush=True)
    processor = Processor(bootstrap, prefix)
    processor.args += ["--snapshot-every", str(args.snapshot_every),
                       "--finished-window", str(args.window),
                       "--outcomes-per-table", str(args.outcomes_per_table)]
    done = 0
    for end in range(args.step, len(stream) + 1, args.step):
        processor.start()
        try:
            await decide(bootstrap, prefix, stream[done:end])
        finally:
            processor.stop()
        done = end
        await asyncio.sleep(args.settle)  # the cleaner's turn at the snapshots topic
        full, shots, log_events, tail_events, used = await measure(
            bootstrap, prefix, partitions, args.window, args.outcomes_per_table)
        print(f"history {done:>9,} commands: full log {full:6.2f} s ({log_events:,} events); "
              f"snapshots {shots:6.2f} s ({tail_events:,} events of tail, {used}/"
              f"{partitions} partitions from a snapshot); ratio {full / shots:5.1f}x",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commands", type=int, default=1_000_000)
    parser.add_argument("--step", type=int, default=250_000,
                        help="measure after every this many commands")
    parser.add_argument("--live", type=int, default=100, help="tables live at a time")
    parser.add_argument("--hands", type=int, default=11)
    parser.add_argument("--snapshot-every", type=int, default=5000)
    parser.add_argument("--window", type=int, default=FINISHED_WINDOW,
                        help="the processor's finished window (tables per partition)")
    parser.add_argument("--outcomes-per-table", type=int, default=OUTCOMES_PER_TABLE,
                        help="the processor's command ids kept a table")
    parser.add_argument("--segment-ms", type=int, default=20000)
    parser.add_argument("--settle", type=float, default=45.0,
                        help="seconds to wait for compaction before measuring")
    parser.add_argument("--seed", type=int, default=101)
    args = parser.parse_args()
    configure_logging("warning")  # the in-process rebuilds' logs
    scratch.run(main_async(args))


if __name__ == "__main__":
    main()
