"""Benchmark: the rules processor on the local broker.

Whole matches are played in process by the simple players and recorded; their commands
are replayed onto 500 tables (each table a copy of a recorded match under its own id),
interleaved so every table's commands stay in order. For each offered load the commands
are produced at that rate for the given time; the latency of a command is from its
produce to the consumption of its outcome, which the processor commits in the same
transaction as the command's events (read_committed), and, with the views service, to the
first spectators' player view that shows its last event (what a person at the table
waits for). Saturation: a backlog is produced
first, then the processor is started and the drain rate measured.

At each rate three loops are measured in turn, each on topics of its own, in the same run
on the same broker: the bare loop (`tools/bench/bareloop.py`: a transactional copy of each
command with no game logic, one producer pair per partition as the processor has; leave
it out with `--no-bare`), the processor alone, and the processor with the views service
beside it (it builds the player views from the events, on the same two cores; leave it
out with `--no-views`); with `--python-core`, a fourth: the processor and the views
service with the compiled core hidden (`tools.bench.cores`: the Python reference answers
the solver's queries), the native engine's before. The processor's latencies are printed
as ratios to the bare loop's, so that a noisy machine moves both. The loops not measured
idle meanwhile. The saturation run is the processor's beside the views (the last loop's
without `--python-core`). `--smoke`: a tiny run (`make test`).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from okey101.app import topics
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from services.common.kafka import bootstrap_servers, provision
from services.common.stack import Service
from tools.bench import scratch
from tools.bench.cores import python_core_vars
from tools.bench.stats import percentile

ROOT = Path(__file__).resolve().parents[2]


def record(tables: int, distinct: int, hands: int, seed: int) -> list[list[E.Command]]:
    profile = {"base": "north-sultan", "options": {"hands_per_match": hands}}
    matches = [play_match(profile, s).commands for s in match_seeds(seed, distinct)]
    out = []
    for t in range(tables):
        table = f"bench-{uuid.uuid4().hex[:6]}-{t}"
        out.append([msgspec.structs.replace(c, table_id=table, command_id=f"{table}-{i}")
                    for i, c in enumerate(matches[t % distinct])])
    return out


def interleave(per_table: list[list[E.Command]]) -> list[E.Command]:
    out: list[E.Command] = []
    for i in range(max(len(c) for c in per_table)):
        out += [c[i] for c in per_table if i < len(c)]
    return out


class Processor(Service):
    """A service of the bench (the processor, the views service; `module`: the bare loop)
    started as the demo starts it (`services.common.stack`), logging to
    .cache/bench-<service>.log; its metrics port BENCH_<SERVICE>_METRICS_PORT, else a
    free one."""

    def __init__(self, bootstrap: str, prefix: str, service: str = "processor",
                 module: str | None = None, python_core: bool = False) -> None:
        port = int(os.environ.get(f"BENCH_{service.upper()}_METRICS_PORT", "0")) or None
        extra = ["--allow-stacked-deals"] if service == "processor" else []
        super().__init__(service, bootstrap, prefix, "--instance-id", "bench", *extra,
                         log=ROOT / ".cache" / f"bench-{service}.log", port=port,
                         module=module, env=python_core_vars() if python_core else None)


class _Seen(msgspec.Struct):
    table_id: str
    seat: int
    version: int


class ViewWatch:
    """The spectators' player views as the views service publishes them: the latency of
    an accepted command from its produce to the first view that shows its last event."""

    def __init__(self, bootstrap: str, prefix: str) -> None:
        self.consumer = AIOKafkaConsumer(
            topics.PLAYER_VIEWS.name(prefix), bootstrap_servers=bootstrap, group_id=None,
            auto_offset_reset="latest", enable_auto_commit=False, fetch_max_wait_ms=10)
        self.seen: dict[str, list[tuple[int, float]]] = {}  # table: (version, when) in order
        self.pending: dict[str, list[tuple[int, float]]] = {}  # table: (seq, sent at)
        self.latencies: list[float] = []
        self.task: asyncio.Task[None] | None = None
        self._decode = msgspec.json.Decoder(_Seen).decode

    async def start(self) -> None:
        await self.consumer.start()
        await self.consumer.getmany(timeout_ms=200)  # join at the end of the topic
        self.task = asyncio.create_task(self._follow())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
        await self.consumer.stop()

    def expect(self, table_id: str, seq: int, sent: float) -> None:
        for version, when in self.seen.get(table_id, ()):
            if version >= seq:  # the view came before the outcome
                self.latencies.append((when - sent) * 1000)
                return
        self.pending.setdefault(table_id, []).append((seq, sent))

    async def take(self, wait: float = 5.0) -> list[float]:
        """The latencies since the last take, once the views expected have come (or
        `wait` seconds)."""
        deadline = time.monotonic() + wait
        while any(self.pending.values()) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        out, self.latencies = self.latencies, []
        self.pending.clear()
        return out

    async def _follow(self) -> None:
        while True:
            batch = await self.consumer.getmany(timeout_ms=200, max_records=5000)
            now = time.perf_counter()
            for records in batch.values():
                for r in records:
                    seen = self._decode(r.value)
                    if seen.seat != -1:
                        continue
                    kept = self.seen.setdefault(seen.table_id, [])
                    kept.append((seen.version, now))
                    del kept[:-8]
                    waiting = self.pending.get(seen.table_id)
                    if waiting:
                        self.latencies += [(now - sent) * 1000 for seq, sent in waiting
                                           if seq <= seen.version]
                        self.pending[seen.table_id] = [w for w in waiting
                                                       if w[0] > seen.version]


class _Copied(msgspec.Struct):
    command_id: str


_copied = msgspec.json.Decoder(_Copied).decode


async def run_load(bootstrap: str, prefix: str, commands: list[E.Command], rate: float | None,
                   watch: ViewWatch | None = None, ready: asyncio.Future[float] | None = None,
                   bare: bool = False) -> tuple[float, list[float], int]:
    """(throughput, latencies in ms, outcomes) for `commands` produced at `rate`/s; with
    `watch`, each accepted command's view latency is recorded there too. A drain (no
    `rate`) is timed from `ready` (when the processor is ready) to the last outcome.
    `bare`: the outcomes topic holds the commands copied by the bare loop."""
    sent: dict[str, float] = {}
    latencies: list[float] = []
    refused: dict[str, int] = {}
    consumer = AIOKafkaConsumer(topics.OUTCOMES.name(prefix), bootstrap_servers=bootstrap,
                                group_id=None, isolation_level="read_committed",
                                auto_offset_reset="latest", enable_auto_commit=False,
                                fetch_max_wait_ms=10)
    await consumer.start()
    await consumer.getmany(timeout_ms=200)  # join at the end of the topic
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=1,
                                enable_idempotence=True, acks="all")
    await producer.start()
    last = 0.0
    arrivals: list[float] = []

    async def consume() -> None:
        nonlocal last
        while len(latencies) < len(commands):
            batch = await consumer.getmany(timeout_ms=500, max_records=5000)
            now = time.perf_counter()
            for records in batch.values():
                for r in records:
                    if bare:
                        sent_at = sent.pop(_copied(r.value).command_id, None)
                        if sent_at is not None:
                            latencies.append((now - sent_at) * 1000)
                            arrivals.append(now)
                            last = now
                        continue
                    outcome = E.outcome_decoder.decode(r.value)
                    at = sent.pop(outcome.command_id, None)
                    if at is not None and not outcome.accepted:
                        refused[outcome.code] = refused.get(outcome.code, 0) + 1
                    if at is not None and watch is not None and outcome.seqs:
                        watch.expect(outcome.table_id, outcome.seqs[-1], at)
                    if at is not None:
                        latencies.append((now - at) * 1000)
                        arrivals.append(now)
                        last = now

    reader = asyncio.create_task(consume())
    started = time.perf_counter()
    for i, command in enumerate(commands):
        sent[command.command_id] = time.perf_counter()
        await producer.send(topics.COMMANDS.name(prefix), E.encode(command),
                            key=command.table_id.encode())
        if rate:
            ahead = started + i / rate - time.perf_counter()
            if ahead > 0:
                await asyncio.sleep(ahead)
    await producer.flush()
    try:
        await asyncio.wait_for(reader, timeout=120)
    finally:
        reader.cancel()
        await producer.stop()
        await consumer.stop()
    if refused:
        print(f"  (rejected: {refused})")
    if rate:
        return len(latencies) / max(last - started, 1e-9), latencies, len(latencies)
    if ready is None or not ready.done() or not arrivals:
        return 0.0, latencies, len(latencies)
    # Outcomes come in bursts, one per transaction, and at saturation every partition's
    # transaction holds thousands of commands: a window between quantiles of the arrivals
    # (the middle 80%, as this bench measured before 2026-12-01) left out the decisions
    # made before the first burst and reported 34,000-43,000 commands/s of a 60,000
    # backlog from a processor deciding 10,000-12,000 a second.
    return len(arrivals) / max(arrivals[-1] - ready.result(), 1e-9), latencies, len(latencies)


@dataclass
class Phase:
    """One of the loops measured at each rate, on topics of its own: the bare loop, the
    processor alone, the processor with the views service beside it."""

    name: str
    prefix: str
    services: list[Processor]
    bare: bool = False
    watch: ViewWatch | None = None
    stream: list[E.Command] = field(default_factory=list)
    # rate: (p50, p99) of produce -> outcome
    figures: dict[float, tuple[float, float]] = field(default_factory=dict)
    # rate: the loop's CPU a command (ms; the processor's or the bare loop's)
    cpu_ms: dict[float, float] = field(default_factory=dict)

    def cpu(self) -> list[float | None]:
        return [s.cpu_seconds() for s in self.services]


def _ratio(value: float, reference: float) -> str:
    return f"{value / reference:.2f}x" if reference > 0 else "-"


async def measure(bootstrap: str, phase: Phase, rate: float, seconds: float,
                  reference: Phase | None) -> None:
    """`phase` at `rate` for `seconds`: its latencies (as ratios to `reference`'s at the
    same rate, when there is one), the player views' and the CPU a command."""
    n = min(len(phase.stream), int(rate * seconds))
    batch, phase.stream = phase.stream[:n], phase.stream[n:]
    before, client = phase.cpu(), time.process_time()
    rps, lat, count = await run_load(bootstrap, phase.prefix, batch, rate, phase.watch,
                                     bare=phase.bare)
    p50, p99 = percentile(lat, 0.5), percentile(lat, 0.99)
    phase.figures[rate] = (p50, p99)
    ratio = ""
    if reference is not None and rate in reference.figures:
        r50, r99 = reference.figures[rate]
        ratio = f"  = {_ratio(p50, r50)} / {_ratio(p99, r99)} the bare loop's"
    print(f"  {phase.name:<18} sustained {rps:6.0f}/s  p50 {p50:6.1f} ms  p99 {p99:6.1f} ms"
          f"  max {max(lat, default=0.0):7.1f} ms  ({count} commands){ratio}", flush=True)
    shown = await phase.watch.take() if phase.watch is not None else []
    if shown:
        print(f"{'':>21}to the player view: p50 {percentile(shown, 0.5):6.1f} ms  "
              f"p99 {percentile(shown, 0.99):6.1f} ms  max {max(shown):7.1f} ms  "
              f"({len(shown)} commands)")
    costs = [(s.name, start, after) for s, start, after in
             zip(phase.services, before, phase.cpu(), strict=True)] + \
        [("this client", client, time.process_time())]
    _, start, after = costs[0]
    if start is not None and after is not None:
        phase.cpu_ms[rate] = 1000 * (after - start) / max(count, 1)
    print(f"{'':>21}CPU a command: " + ", ".join(
        f"{name} {1000 * (after - start) / max(count, 1):.3f} ms"
        for name, start, after in costs if start is not None and after is not None))


async def main_async(args: argparse.Namespace) -> None:
    if not os.environ.get("KAFKA_BOOTSTRAP"):
        subprocess.run(["bash", str(ROOT / "tools" / "kafka" / "broker.sh"), "start"],
                       check=True)
    bootstrap = bootstrap_servers()
    per_table = record(args.tables, 25, args.hands, args.seed)
    # the recorded commands live to the end: out of reach of this process's own cyclic
    # collector, whose full collections would otherwise delay its reading of outcomes
    # and views (pauses of the measuring client, not of the service)
    gc.collect()
    gc.freeze()
    phases: list[Phase] = []
    if args.bare:
        bare = scratch.prefix("benchbare", bootstrap)
        phases.append(Phase("bare loop", bare, [Processor(bootstrap, bare, "bareloop",
                                                          module="tools.bench.bareloop")],
                            bare=True))
    alone = scratch.prefix("bench", bootstrap)
    phases.append(Phase("processor", alone, [Processor(bootstrap, alone)]))
    if args.views:
        prefix = scratch.prefix("benchviews", bootstrap)
        # the player views' service competes for the same cores, as in production
        phases.append(Phase("processor + views", prefix,
                            [Processor(bootstrap, prefix), Processor(bootstrap, prefix, "views")],
                            watch=ViewWatch(bootstrap, prefix)))
    if args.views and args.python_core:
        prefix = scratch.prefix("benchpyviews", bootstrap)
        # the same two services with the compiled core hidden: the native engine's before
        phases.append(Phase("python core + views", prefix,
                            [Processor(bootstrap, prefix, python_core=True),
                             Processor(bootstrap, prefix, "views", python_core=True)],
                            watch=ViewWatch(bootstrap, prefix)))
    for phase in phases:
        await provision(bootstrap, phase.prefix, args.partitions)
    print(f"kafka: {args.tables} tables, {sum(len(c) for c in per_table)} recorded commands "
          f"(north-sultan, {args.hands} hands a match), {args.partitions} partitions; on "
          f"topics of their own: {', '.join(f'{p.name} ({p.prefix}.*)' for p in phases)}; "
          "at each rate each in turn, the others idle beside it", flush=True)
    reference = phases[0] if args.bare else None
    # saturation drains the processor's own loop (beside the views, with the compiled core)
    last = next(p for p in reversed(phases) if p.name != "python core + views")
    try:
        for phase in phases:
            for service in reversed(phase.services):  # the views service first
                service.start()
        await asyncio.gather(*(s.ready(180) for p in phases for s in p.services))
        # warm up: create the tables and start their matches (the bare loop copies them)
        warm = [c for cmds in per_table for c in cmds[:6]]
        for phase in phases:
            await run_load(bootstrap, phase.prefix, warm, None, bare=phase.bare)
            phase.stream = interleave([c[6:] for c in per_table])
            if phase.watch is not None:
                await phase.watch.start()
        for rate in args.rates:
            print(f"offered {rate:g}/s for {args.seconds:g} s:", flush=True)
            for phase in phases:
                await measure(bootstrap, phase, rate, args.seconds,
                              reference if phase is not reference else None)
        if reference is not None:
            print("produce -> outcome, as a ratio to the bare loop's in this run "
                  "(p50 / p99; and the loop's CPU a command):")
            for rate in args.rates:
                r50, r99 = reference.figures[rate]
                cpu = reference.cpu_ms.get(rate, 0.0)
                print(f"  {rate:>6g}/s: bare loop p50 {r50:.1f} ms p99 {r99:.1f} ms, "
                      f"CPU {cpu:.3f} ms; " +
                      "; ".join(f"{p.name} {_ratio(p.figures[rate][0], r50)} / "
                                f"{_ratio(p.figures[rate][1], r99)}, CPU "
                                f"{_ratio(p.cpu_ms.get(rate, 0.0), cpu)}"
                                for p in phases[1:]))
        for phase in phases:
            if phase.watch is not None:
                await phase.watch.stop()
        for phase in phases:
            if phase is not last:
                for service in phase.services:
                    service.stop()
        await saturation(bootstrap, last, args.backlog)
    finally:
        for phase in phases:
            for service in phase.services:
                service.stop()


async def saturation(bootstrap: str, phase: Phase, backlog_size: int) -> None:
    """A backlog produced while the processor is down, then drained from its start."""
    processor = phase.services[0]
    processor.stop()
    backlog = phase.stream[:backlog_size]
    ready: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    producer_side = asyncio.create_task(run_load(bootstrap, phase.prefix, backlog, None,
                                                 ready=ready))
    await asyncio.sleep(max(2.0, len(backlog) / 20000))  # the backlog is in Kafka first
    restarted = time.perf_counter()
    processor.start()
    ready.set_result(await processor.ready())
    rps, _, count = await producer_side
    whole = count / (time.perf_counter() - restarted)
    cpu = processor.cpu_seconds()
    print(f"saturation ({phase.name}): a backlog of {count} commands drained at {rps:7.0f} "
          f"commands/s (from the processor's readiness to the last outcome; {whole:.0f}/s "
          "counting its start and rebuild from the log)"
          + (f"; the processor's CPU {1000 * cpu / max(count, 1):.3f} ms a command"
             if cpu is not None else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rates", type=float, nargs="+", default=[500, 1000, 2000])
    parser.add_argument("--hands", type=int, default=11)
    parser.add_argument("--backlog", type=int, default=60000)
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--no-views", dest="views", action="store_false",
                        help="leave out the processor with the views service beside it")
    parser.add_argument("--python-core", action="store_true",
                        help="also the processor and views with the compiled core hidden")
    parser.add_argument("--no-bare", dest="bare", action="store_false",
                        help="leave out the bare loop (tools/bench/bareloop.py)")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works (make test)")
    parser.add_argument("--partitions", type=int, default=topics.PARTITIONS)
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.seconds, args.rates, args.hands, args.backlog = 4, 1, [50], 1, 50
    scratch.run(main_async(args))


if __name__ == "__main__":
    main()
