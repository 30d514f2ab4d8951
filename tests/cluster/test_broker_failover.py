"""The whole service on a 3-broker cluster (replication 3, min.insync.replicas 2) while its
brokers die: the processor, the timers and the bots run under load; one broker is killed
with kill -9 and brought back, then the active controller. No accepted command is lost or
applied twice, every table's events are contiguous, and replaying them gives the live
state (the state decided in process, and the views the processor published)."""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

from aiokafka import AIOKafkaConsumer

from okey101.app import topics
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.table.viewpatch import ViewFollower, decode_update
from okey101.table.views import player_view
from services.common.kafka import provision
from services.demo.__main__ import house_options, setup_commands
from tests.cluster.conftest import Cluster
from tests.kafka.support import (
    ROOT,
    BotsProcess,
    ProcessorProcess,
    ViewsProcess,
    check_log,
    interleave,
    publish,
    read_all,
    record_timeout_match,
)
from tests.kafka.test_timers import TimersProcess, table_commands

CHUNK_TABLES = 20  # the gateways' load comes in chunks of tables played to the end...
RATE = 100  # ...at this many commands/s, until both failures are over
MAX_CHUNKS = 100
BOT_TABLES = 4  # four bots each, whole one-hand matches
SLOW_TABLES = 4  # four players who never move: the timers play every turn
TURN_SECONDS = 5
# The load's tables are played by the test's gateway: the timers must not race it, even
# when the failures hold everything up for a while.
LONG_TURNS = {"turn_seconds": 600}
REPORT = ROOT / ".cache" / "test-logs" / "cluster-failover.txt"


class Pulse:
    """When committed outcomes became readable, as a client sees them: the gaps are the
    service's stalls."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=None,
                                         isolation_level="read_committed",
                                         auto_offset_reset="earliest", fetch_max_wait_ms=20)
        self.arrivals: list[float] = []

    async def run(self) -> None:
        await self.consumer.start()
        try:
            while True:
                batch = await self.consumer.getmany(timeout_ms=100)
                if any(batch.values()):
                    self.arrivals.append(time.monotonic())
        finally:
            await self.consumer.stop()

    def longest_gap(self, start: float, end: float) -> float:
        """The longest time without an outcome between `start` and `end`."""
        times = [start, *(t for t in self.arrivals if start < t < end)]
        times += [t for t in self.arrivals if t >= end][:1] or [end]
        return max(b - a for a, b in itertools.pairwise(times))


async def _topics_check(bootstrap: str, prefix: str) -> str:
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "services.cli", "topics", "check", "--prefix",
                         prefix, "--bootstrap", bootstrap],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def _outcomes_by_table(values: list[bytes]) -> dict[str, list[E.Outcome]]:
    out: dict[str, list[E.Outcome]] = defaultdict(list)
    for value in values:
        outcome = E.outcome_decoder.decode(value)
        out[outcome.table_id].append(outcome)
    return out


def _events_by_table(values: list[bytes]) -> dict[str, list[E.Event]]:
    out: dict[str, list[E.Event]] = defaultdict(list)
    for value in values:
        event = E.event_decoder.decode(value)
        out[event.table_id].append(event)
    return out


def _check_played(table_id: str, events: list[E.Event], outcomes: list[E.Outcome]) -> None:
    """Contiguous events, each from exactly one accepted command, no command twice. A bot
    and a timer may race for a turn (the failures delay the bots): the loser is rejected
    as stale, which is the rule; any other rejection is not."""
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(seqs) + 1)), f"{table_id}: seqs not contiguous"
    first = [o for o in outcomes if not o.duplicate]
    ids = [o.command_id for o in first]
    assert len(ids) == len(set(ids)), f"{table_id}: a command decided twice"
    rejected = [o for o in first if not o.accepted and o.code != "stale_seq"]
    assert not rejected, f"{table_id}: rejected {rejected[:3]}"
    applied = sorted(s for o in first for s in o.seqs)
    assert applied == seqs, f"{table_id}: events and accepted commands disagree"


async def test_no_accepted_command_is_lost_or_applied_twice_when_a_broker_then_the_active_controller_is_killed(  # noqa: E501
        cluster: Cluster) -> None:
    prefix = f"c{uuid.uuid4().hex[:8]}"
    bootstrap = cluster.bootstrap
    await provision(bootstrap, prefix)
    checked = await _topics_check(bootstrap, prefix)
    assert checked.endswith("replication factor 3, min.insync.replicas 2"), checked

    recorded: dict[str, tuple[list[E.Command], TableState]] = {}
    failures_over = asyncio.Event()
    bot_tables = [f"{prefix}-bots{i}" for i in range(BOT_TABLES)]
    slow_tables = [f"{prefix}-slow{i}" for i in range(SLOW_TABLES)]
    setup = [c for t in bot_tables
             for c in setup_commands(t, "north-sultan", house_options("north-sultan", 1))[0]]
    setup += [c for t in slow_tables for c in table_commands(
        t, "north-sultan", {"turn_seconds": TURN_SECONDS, "hands_per_match": 1})]

    services = [ProcessorProcess(bootstrap, prefix, f"{prefix}-processor"),
                TimersProcess(bootstrap, prefix, f"{prefix}-timers"),
                BotsProcess(bootstrap, prefix, f"{prefix}-bots"),
                ViewsProcess(bootstrap, prefix, f"{prefix}-views")]
    processor, timers, *_ = services
    pulse = Pulse(bootstrap, topics.OUTCOMES.name(prefix))
    watching = asyncio.create_task(pulse.run())
    sender: asyncio.Task[None] | None = None
    figures: list[str] = []
    try:
        for service in services:
            service.start()
        await processor.wait_for("partitions_taken")
        await timers.wait_for("timers_ready")
        await publish(bootstrap, prefix, setup)
        started = time.monotonic()
        sender = asyncio.create_task(
            _load(bootstrap, prefix, recorded, failures_over))
        await asyncio.sleep(8)
        figures.append(f"longest gap before any failure: "
                       f"{pulse.longest_gap(started, time.monotonic()):.2f} s")

        controller = await asyncio.to_thread(cluster.controller)
        victim = min(n for n in (1, 2, 3) if n != controller)
        for what, node in (("broker", victim), ("active controller", None)):
            node = node if node is not None else await asyncio.to_thread(cluster.controller)
            killed = time.monotonic()
            await asyncio.to_thread(cluster.kill, node)
            await asyncio.sleep(10)
            await asyncio.to_thread(cluster.start)
            back = time.monotonic()
            await cluster.fully_replicated(
                [spec.name(prefix) for spec in topics.ALL] +
                ["__consumer_offsets", "__transaction_state"])
            figures.append(f"kill -9 of the {what} (node {node}) at "
                           f"{killed - started:.1f} s: longest gap without an outcome "
                           f"{pulse.longest_gap(killed, back):.2f} s; restarted "
                           f"{back - killed:.1f} s after, in sync "
                           f"{time.monotonic() - back:.1f} s later")
            print(figures[-1], flush=True)
        failures_over.set()
        await sender
        total = sum(len(c) for c, _ in recorded.values())
        await read_all(bootstrap, topics.OUTCOMES.name(prefix), until=total, timeout=180)
        await _until_matches_end(bootstrap, prefix, bot_tables, timeout=180)
    finally:
        if sender is not None:
            sender.cancel()
        for service in services:
            service.terminate()
        watching.cancel()

    outcome_values = await read_all(bootstrap, topics.OUTCOMES.name(prefix))
    event_values = await read_all(bootstrap, topics.EVENTS.name(prefix))
    outcomes = _outcomes_by_table(outcome_values)
    events = _events_by_table(event_values)
    check_log([v for v in outcome_values if E.outcome_decoder.decode(v).table_id in recorded],
              event_values, recorded)
    for table_id in bot_tables + slow_tables:
        _check_played(table_id, events[table_id], outcomes[table_id])
    _check_views(await read_all(bootstrap, topics.PLAYER_VIEWS.name(prefix)), events,
                 bot_tables)
    timed_out = {t: [e.turn for e in events[t] if isinstance(e, E.TurnTimedOut)]
                 for t in slow_tables}
    for table_id, turns in timed_out.items():
        assert turns == list(range(turns[0], turns[0] + len(turns))), f"{table_id}: {turns}"
        assert len(turns) >= 5, f"{table_id}: the timers timed out only {turns}"
    assert await read_all(bootstrap, topics.DEAD_LETTERS.name(prefix), timeout=5) == []
    figures.append(f"{len(outcome_values)} outcomes, {len(event_values)} events; "
                   f"{sum(len(t) for t in timed_out.values())} turns timed out")
    _report(figures)
    await cluster.delete_topics(prefix)


async def _load(bootstrap: str, prefix: str,
                recorded: dict[str, tuple[list[E.Command], TableState]],
                failures_over: asyncio.Event) -> None:
    """Whole matches played by time-outs, CHUNK_TABLES tables at a time, at RATE commands/s,
    until the failures are over; each table sent is in `recorded`."""
    for chunk in range(MAX_CHUNKS):
        tables = {f"{prefix}-t{chunk}-{i}": record_timeout_match(
            f"{prefix}-t{chunk}-{i}", chunk * 1000 + i, options=LONG_TURNS)
            for i in range(CHUNK_TABLES)}
        recorded.update(tables)
        await publish(bootstrap, prefix, interleave([c for c, _ in tables.values()]),
                      rate=RATE)
        if failures_over.is_set():
            return
    raise AssertionError(f"the failures were not over after {MAX_CHUNKS} chunks of load")


async def _until_matches_end(bootstrap: str, prefix: str, tables: list[str],
                             timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        events = _events_by_table(
            await read_all(bootstrap, topics.EVENTS.name(prefix), timeout=10))
        left = [t for t in tables if not any(isinstance(e, E.MatchEnded) for e in events[t])]
        if not left:
            return
        assert time.monotonic() < deadline, f"matches not over: {left}"
        await asyncio.sleep(2)


def _check_views(values: list[bytes], events: dict[str, list[E.Event]],
                 tables: list[str]) -> None:
    """The last view the views service published for each bot seat (flagged a bot's) is
    the view of the replayed table."""
    follower = ViewFollower()
    for value in values:
        update = decode_update(value)
        if update.table_id in tables:
            assert update.bot == (update.seat >= 0), update
            follower.keep(update)
    last = {}
    for table_id in tables:
        for seat in range(4):
            whole = follower.current(table_id, seat)
            assert whole is not None, (table_id, seat)
            last[(table_id, seat)] = whole.view
    for table_id in tables:
        state = NEW_TABLE
        for event in events[table_id]:
            state = evolve(state, event)
        assert state.status == "over", f"{table_id}: {state.status}"
        for seat in range(4):
            assert last[(table_id, seat)] == player_view(state, seat), (table_id, seat)


def _report(figures: list[str]) -> None:
    text = "\n".join(figures)
    print(text)
    Path(REPORT).parent.mkdir(parents=True, exist_ok=True)
    Path(REPORT).write_text(text + "\n")
