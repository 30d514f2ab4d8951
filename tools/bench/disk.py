"""Benchmark: bytes on disk per command and per event, topic by topic.

Whole matches go through the processor on the local broker: `--tables` tables whose four
players are people (matches played in process by the simple players and recorded, as in
`tools.bench.kafka`), sent at `--rate` commands/s, and `--bot-tables` tables of four bots
played by the bots service (their seats' whole views go to the player-views topic, as
people's do). Then the
broker is asked for the size of each topic's log (`kafka-log-dirs`: LogDirsCommand from the
project's jars; one replica's bytes, the segment files without their indexes) and the
committed records are counted. Printed: records, bytes and bytes per record by topic, and
what one accepted command costs on disk across all topics: the figure deploy/README.md and
docs/capacity.md size disks with (multiply by the replication factor).

Run: .venv/bin/python -m tools.bench.disk [--tables 200] [--bot-tables 8] [--rate 1000]
     [--compression zstd]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import time
from pathlib import Path

from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from okey101.app import topics
from okey101.table import messages as E
from services.common.kafka import (
    admin_client,
    bootstrap_servers,
    cluster_replication,
    provision,
    read_partitions,
)
from services.common.stack import Stack
from services.demo.__main__ import house_options, setup_commands
from tools.bench import scratch
from tools.bench.kafka import interleave, record, run_load

ROOT = Path(__file__).resolve().parents[2]
LIBS = Path(os.environ.get("KAFKA_CACHE_DIR", ROOT / ".cache" / "kafka")) / "libs"


def log_sizes(bootstrap: str, names: list[str]) -> dict[str, int]:
    """Bytes of each topic's log on the brokers, one replica (the leader's) counted."""
    done = subprocess.run(
        ["java", "-Xmx256m", "-cp", f"{LIBS}/*", "org.apache.kafka.tools.LogDirsCommand",
         "--describe", "--bootstrap-server", bootstrap, "--topic-list", ",".join(names)],
        capture_output=True, text=True, check=True, timeout=120)
    doc = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("{")))
    replica: dict[str, int] = {}  # "topic-partition" -> bytes, the largest replica's
    for broker in doc["brokers"]:
        for log_dir in broker["logDirs"]:
            for partition in log_dir["partitions"]:
                name = partition["partition"]
                replica[name] = max(replica.get(name, 0), partition["size"])
    out = dict.fromkeys(names, 0)
    for name, size in replica.items():
        out[name.rsplit("-", 1)[0]] += size
    return out


async def compress(bootstrap: str, prefix: str, codec: str) -> None:
    """Let the brokers store every topic compressed with `codec` (the producers send
    uncompressed batches). AlterConfigs replaces a topic's settings: all are given."""
    admin = admin_client(bootstrap)
    await admin.start()
    try:
        replication = await cluster_replication(admin)
        await admin.alter_configs([ConfigResource(
            ConfigResourceType.TOPIC, spec.name(prefix),
            {**spec.configs(replication), "compression.type": codec}) for spec in topics.ALL])
    finally:
        await admin.close()


async def until_quiet(bootstrap: str, prefix: str, bot_tables: list[str], timeout: float
                      ) -> None:
    """Until every bot table's match ended and no outcome came for 3 s."""
    deadline = time.monotonic() + timeout
    last, count = time.monotonic(), -1
    while time.monotonic() < deadline:
        logs = await read_partitions(bootstrap, [(topics.EVENTS.name(prefix), p)
                                                 for p in range(topics.PARTITIONS)])
        ended = {E.event_decoder.decode(v).table_id for values in logs.values()
                 for v in values if b'"match_ended"' in v}
        outcomes = await read_partitions(bootstrap, [(topics.OUTCOMES.name(prefix), p)
                                                     for p in range(topics.PARTITIONS)])
        now_count = sum(len(v) for v in outcomes.values())
        if now_count != count:
            last, count = time.monotonic(), now_count
        if set(bot_tables) <= ended and time.monotonic() - last > 3:
            return
        await asyncio.sleep(1)
    raise TimeoutError(f"matches not over after {timeout:.0f} s")


async def main_async(args: argparse.Namespace) -> None:
    if not os.environ.get("KAFKA_BOOTSTRAP"):
        subprocess.run(["bash", str(ROOT / "tools" / "kafka" / "broker.sh"), "start"],
                       check=True)
    bootstrap = bootstrap_servers()
    prefix = scratch.prefix("disk", bootstrap)
    await provision(bootstrap, prefix)
    if args.compression != "none":
        await compress(bootstrap, prefix, args.compression)
    people = interleave(record(args.tables, 25, args.hands, args.seed))
    bot_tables = [f"{prefix}-bots{i}" for i in range(args.bot_tables)]
    bot_setup = [c for t in bot_tables for c in
                 setup_commands(t, "north-sultan", house_options("north-sultan", args.hands))[0]]
    print(f"disk: {args.tables} tables of people ({len(people)} commands at {args.rate:.0f}/s) "
          f"and {args.bot_tables} of bots, north-sultan, {args.hands} hands a match; topics "
          f"{prefix}.*, {topics.PARTITIONS} partitions, compression {args.compression}",
          flush=True)
    # what a person plays through but the clock and the gateway (the commands are
    # produced straight to the commands topic), as the demo starts it
    stack = Stack(bootstrap, prefix, ROOT / ".cache", log_stem="bench-disk-")
    try:
        stack.start_playing(("views", "processor", "bots"),
                            {"processor": ["--allow-stacked-deals"]})
        await stack.ready(timeout=180)
        await run_load(bootstrap, prefix, bot_setup, None)
        await run_load(bootstrap, prefix, people, args.rate)
        await until_quiet(bootstrap, prefix, bot_tables, args.timeout)
    finally:
        stack.stop()
    await report(bootstrap, prefix)


async def report(bootstrap: str, prefix: str) -> None:
    names = [spec.name(prefix) for spec in topics.ALL]
    logs = await read_partitions(bootstrap, [(n, p) for n in names
                                             for p in range(topics.PARTITIONS)])
    records = dict.fromkeys(names, 0)
    for (name, _), values in logs.items():
        records[name] += len(values)
    outcomes = [E.outcome_decoder.decode(v) for (name, _), values in logs.items()
                if name == topics.OUTCOMES.name(prefix) for v in values]
    accepted = sum(1 for o in outcomes if o.accepted and not o.duplicate)
    sizes = log_sizes(bootstrap, names)
    print(f"{accepted} commands accepted ({len(outcomes)} outcomes)")
    print(f"{'topic':<28}{'records':>10}{'bytes':>14}{'bytes/record':>14}{'bytes/command':>15}")
    for name in names:
        per_record = sizes[name] / records[name] if records[name] else 0.0
        print(f"{name:<28}{records[name]:>10}{sizes[name]:>14}{per_record:>14.0f}"
              f"{sizes[name] / max(accepted, 1):>15.0f}")
    total = sum(sizes.values())
    print(f"{'all topics':<28}{sum(records.values()):>10}{total:>14}{'':>14}"
          f"{total / max(accepted, 1):>15.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--bot-tables", type=int, default=8)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--rate", type=float, default=1000)
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--compression", default="none",
                        choices=("none", "gzip", "snappy", "lz4", "zstd"),
                        help="the topics' compression.type (the brokers compress)")
    args = parser.parse_args()
    scratch.run(main_async(args))


if __name__ == "__main__":
    main()
