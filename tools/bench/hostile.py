"""Hostile-record soak (issue 26): every consumer as a subprocess (tests/kafka/hostile.py),
`--tables` recorded matches played straight on the commands topic at `--rate` commands/s,
twice: once alone, once with `--bursts` bursts of `--size` hypothesis-drawn hostile
records written to every input topic while they play. Prints the records sent, the records
dead-lettered by their topic's first reader, the tables played (every command answered),
the outcome latency p50/p99 (command produce time to outcome produce time) of each run,
and whether any service failed.

    python -m tools.bench.hostile --tables 20 --bursts 10 --size 40
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from aiokafka import AIOKafkaConsumer

from okey101.app import topics
from okey101.table import messages as E
from services.common.kafka import bootstrap_servers, drop_topics, provision
from tests.kafka import hostile
from tests.kafka.support import interleave, publish, record_timeout_match


async def _latencies(bootstrap: str, prefix: str, tables: set[str], commands: int,
                     timeout: float) -> list[float]:
    """Seconds from each recorded command's record time to its outcome's."""
    sent: dict[str, int] = {}
    answered: dict[str, int] = {}
    consumer = AIOKafkaConsumer(topics.COMMANDS.name(prefix), topics.OUTCOMES.name(prefix),
                                bootstrap_servers=bootstrap, group_id=None,
                                auto_offset_reset="earliest", isolation_level="read_committed",
                                max_partition_fetch_bytes=8 * 1024 * 1024)
    await consumer.start()
    try:
        deadline = time.monotonic() + timeout
        while len(answered) < commands and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=500, max_records=10000)
            for tp, records in batch.items():
                for r in records:
                    try:
                        message: Any = (E.command_decoder if tp.topic.endswith("commands")
                                        else E.outcome_decoder).decode(r.value)
                    except Exception:  # a hostile record
                        continue
                    if message.table_id not in tables:
                        continue
                    if tp.topic.endswith("commands"):
                        sent[message.command_id] = r.timestamp
                    elif not message.duplicate:
                        answered[message.command_id] = r.timestamp
    finally:
        await consumer.stop()
    return sorted((answered[c] - sent[c]) / 1000 for c in answered if c in sent)


def _pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


async def run(args: argparse.Namespace, with_bursts: bool) -> None:
    bootstrap = bootstrap_servers(args.bootstrap)
    stack = hostile.HostileStack(bootstrap)
    prefix = stack.prefix
    await provision(bootstrap, prefix)
    recorded = {f"{prefix}-s{i}": record_timeout_match(f"{prefix}-s{i}", 7000 + i)
                for i in range(args.tables)}
    commands = interleave([c for c, _ in recorded.values()])
    drawn = hostile.bursts(args.bursts, args.size, args.seed) if with_bursts else []
    stack.start()
    written: list[hostile.Hostile] = []
    try:
        await stack.ready()
        started = time.monotonic()

        async def burst_all() -> None:
            for burst in drawn:
                await hostile.write(bootstrap, prefix, burst)
                written.extend(burst)
                await asyncio.sleep(len(commands) / args.rate / max(1, len(drawn)))

        await asyncio.gather(publish(bootstrap, prefix, commands, rate=args.rate),
                             burst_all())
        lat = await _latencies(bootstrap, prefix, set(recorded), len(commands), 300)
        found = await hostile.dead_letters(bootstrap, prefix, written, timeout=120)
        lost = hostile.missing(prefix, written, found)
        played = len(lat) == len(commands)
        label = "with bursts" if with_bursts else "without   "
        print(f"{label}: hostile sent {len(written)}, dead-lettered "
              f"{len(written) - len(lost)}, tables {args.tables} "
              f"({'all' if played else 'NOT all'} commands answered: {len(lat)}/"
              f"{len(commands)}), outcome p50 {_pct(lat, 0.5) * 1000:.0f} ms "
              f"p99 {_pct(lat, 0.99) * 1000:.0f} ms, {time.monotonic() - started:.0f} s, "
              f"failed services {sorted(stack.failures()) or 'none'}", flush=True)
        for r in lost[:5]:
            print(f"  not dead-lettered: {r.topic} {r.why}")
    finally:
        stack.stop()
        await drop_topics(bootstrap, prefix)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", default=None)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rate", type=float, default=300, help="commands per second")
    parser.add_argument("--bursts", type=int, default=10)
    parser.add_argument("--size", type=int, default=40, help="hostile records a burst")
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args()
    asyncio.run(run(args, with_bursts=False))
    asyncio.run(run(args, with_bursts=True))


if __name__ == "__main__":
    main()
