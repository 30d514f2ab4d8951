"""Helpers for the Kafka tests: recorded matches, a processor in a subprocess, a gateway."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgspec
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from okey101.app import topics
from okey101.table import messages as E
from okey101.table.decide import decide
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from services.common.stack import Service

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / ".cache" / "test-logs"

# The random tags this session's topic names carry (`fresh_tag`): every topic whose name
# holds one is deleted when the session ends (conftest.py), so that the tests leave the
# developer's broker as they found it. Left behind, a run's 4,000 partitions made the
# broker's next start take minutes and the demo's topic creation time out (issue 29).
TAGS: set[str] = set()


def fresh_tag() -> str:
    """8 random hex digits for a test's topic prefix (and its groups): its topics are
    deleted at the end of the session. Every Kafka test takes its prefix's tag here."""
    tag = uuid.uuid4().hex[:8]
    TAGS.add(tag)
    return tag


async def drop_tagged(bootstrap: str, tags: set[str]) -> list[str]:
    """Delete every topic whose name holds one of `tags`; the names deleted."""
    from services.common.kafka import admin_client

    admin = admin_client(bootstrap, request_timeout_ms=60000)
    await admin.start()
    try:
        names = [t for t in await admin.list_topics() if any(tag in t for tag in tags)]
        for i in range(0, len(names), 200):
            await admin.delete_topics(names[i:i + 200], timeout_ms=60000)
        return names
    finally:
        await admin.close()


def apply(state: TableState, command: E.Command) -> tuple[TableState, list[E.Event]]:
    decision = decide(state, command)
    assert isinstance(decision, list), f"{command} rejected: {decision}"
    for event in decision:
        state = evolve(state, event)
    return state, decision


def record_timeout_match(table_id: str, seed: int, profile: str = "north-sultan",
                         hands: int = 1, options: Mapping[str, Any] | None = None
                         ) -> tuple[list[E.Command], TableState]:
    """A whole match decided in process, every turn played by the house's time-out move:
    the exact commands (with their seqs) a gateway would send, and the final state.
    `options`: more table options (e.g. a turn time)."""
    state = NEW_TABLE
    commands: list[E.Command] = []

    def play(command: E.Command) -> None:
        nonlocal state
        command = msgspec.structs.replace(command, seq=state.seq)
        state, _ = apply(state, command)
        commands.append(command)

    play(E.CreateTable(table_id=table_id, command_id=f"{table_id}-create", profile=profile,
                       options={"hands_per_match": hands, **(options or {})}))
    for seat in range(4):
        play(E.Sit(table_id=table_id, command_id=f"{table_id}-sit{seat}",
                   player_id=f"{table_id}-p{seat}", seat=seat))
    play(E.StartMatch(table_id=table_id, command_id=f"{table_id}-start",
                      player_id=f"{table_id}-p0", seat=0, seed=f"{seed:064x}"))
    while state.status == "playing":
        assert state.hand is not None
        play(E.TimeOut(table_id=table_id, command_id=f"{table_id}-t{state.turn}-{state.seq}",
                       seat=state.hand.to_act, turn=state.turn))
    return commands, state


def scenario_commands(doc: dict, table_id: str) -> tuple[list[E.Command], TableState]:
    """A scenario document as the commands a gateway would send, seqs included."""
    state = NEW_TABLE
    commands: list[E.Command] = []

    def play(command: E.Command) -> None:
        nonlocal state
        command = msgspec.structs.replace(command, table_id=table_id, seq=state.seq)
        state, _ = apply(state, command)
        commands.append(command)

    play(E.CreateTable(table_id=table_id, command_id="create", profile=doc["profile"]))
    for seat in range(4):
        play(E.Sit(table_id=table_id, command_id=f"sit{seat}", player_id=f"p{seat}", seat=seat))
    play(E.StartMatch(table_id=table_id, command_id="start", player_id="p0", seat=0,
                      deals=[msgspec.convert(doc["deal"], E.StackedDeal)]))
    for i, raw in enumerate(doc["commands"]):
        fields = {k: v for k, v in raw.items() if k != "cmd"}
        command = msgspec.convert({"type": raw["cmd"], "table_id": table_id,
                                   "command_id": f"cmd{i}", "player_id": f"p{raw['seat']}",
                                   **fields}, E.AnyCommand)  # type: ignore[arg-type]
        play(command)
    return commands, state


class ProcessorProcess(Service):
    """`python -m services.processor` in a subprocess, as production runs it (started as
    the demo and the benchmarks start it: `services.common.stack`), logging to
    .cache/test-logs/; `env`: more environment (e.g. OKEY_KAFKA_USERNAME)."""

    SERVICE = "processor"

    def __init__(self, bootstrap: str, prefix: str, group: str, name: str = "p",
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(self.SERVICE, bootstrap, prefix, *self.arguments(name),
                         log=LOGS / f"{prefix}-{name}.log", group=group, port=0, env=env,
                         log_level="info", name=name)

    def arguments(self, name: str) -> list[str]:
        return ["--allow-stacked-deals", "--instance-id", name]


class BotsProcess(ProcessorProcess):
    """`python -m services.bots` in a subprocess; it fills no empty seat (the tests seat
    their bots)."""

    SERVICE = "bots"

    def arguments(self, name: str) -> list[str]:
        return ["--no-fill-seats"]


class ViewsProcess(ProcessorProcess):
    """`python -m services.views` in a subprocess."""

    SERVICE = "views"

    def arguments(self, name: str) -> list[str]:
        return ["--instance-id", name]


@asynccontextmanager
async def started(*services: Service) -> AsyncIterator[tuple[Service, ...]]:
    """The services started in order, and stopped (SIGTERM, each waited for) after."""
    try:
        for service in services:
            service.start()
        yield services
    finally:
        for service in services:
            service.signal_stop()
        for service in services:
            service.stop()


async def publish(bootstrap: str, prefix: str, commands: list[E.Command],
                  rate: float | None = None, security: Mapping[str, Any] | None = None
                  ) -> None:
    """Send commands in order (keyed by table), at `rate` per second if given; `security`:
    the client's credentials (`services.common.kafka.client_security`)."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True,
                                acks="all", linger_ms=5, request_timeout_ms=60000,
                                **(security or {}))
    await producer.start()
    try:
        started = time.monotonic()
        for i, command in enumerate(commands):
            await producer.send(topics.COMMANDS.name(prefix), E.encode(command),
                                key=command.table_id.encode())
            if rate:
                ahead = i / rate - (time.monotonic() - started)
                if ahead > 0:
                    await asyncio.sleep(ahead)
        await producer.flush()
    finally:
        await producer.stop()


def interleave(per_table: list[list[E.Command]]) -> list[E.Command]:
    """Round-robin over tables, keeping each table's order."""
    out: list[E.Command] = []
    longest = max(len(c) for c in per_table)
    for i in range(longest):
        out += [c[i] for c in per_table if i < len(c)]
    return out


async def read_all(bootstrap: str, topic: str, until: int | None = None,
                   timeout: float = 120.0, security: Mapping[str, Any] | None = None
                   ) -> list[bytes]:
    """Committed values of a topic, waiting until there are `until` of them."""
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=None,
                                isolation_level="read_committed",
                                auto_offset_reset="earliest", enable_auto_commit=False,
                                **(security or {}))
    await consumer.start()
    values: list[bytes] = []
    try:
        deadline = time.monotonic() + timeout
        idle_since = time.monotonic()
        while time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=500, max_records=5000)
            got = [r.value for rs in batch.values() for r in rs if r.value is not None]
            values += got
            if got:
                idle_since = time.monotonic()
            if until is not None and len(values) >= until:
                # a little longer, so that duplicates would show up
                if time.monotonic() - idle_since > 1.0:
                    break
            elif until is None and time.monotonic() - idle_since > 2.0:
                break
        return values
    finally:
        await consumer.stop()


async def count_committed(bootstrap: str, topic: str) -> int:
    return len(await read_all(bootstrap, topic, timeout=10))


def check_log(outcome_values: list[bytes], event_values: list[bytes],
              recorded: dict[str, tuple[list[E.Command], TableState]]) -> None:
    """Exactly one outcome per command, all accepted; contiguous events per table, no
    duplicate; the replayed state equals the state decided in process."""
    outcomes: dict[str, list[E.Outcome]] = defaultdict(list)
    for value in outcome_values:
        outcome = E.outcome_decoder.decode(value)
        if not outcome.duplicate:
            outcomes[outcome.command_id].append(outcome)
    expected = {c.command_id for commands, _ in recorded.values() for c in commands}
    missing = expected - set(outcomes)
    assert not missing, f"{len(missing)} commands without an outcome, e.g. {sorted(missing)[:3]}"
    twice = {k: v for k, v in outcomes.items() if len(v) != 1}
    assert not twice, f"commands with several outcomes: {list(twice.items())[:2]}"
    rejected = [o[0] for o in outcomes.values() if not o[0].accepted]
    assert not rejected, f"rejected (so something was lost or applied twice): {rejected[:3]}"
    by_table: dict[str, list[E.Event]] = defaultdict(list)
    for value in event_values:
        event = E.event_decoder.decode(value)
        by_table[event.table_id].append(event)
    for table_id, (_, final) in recorded.items():
        events = by_table[table_id]
        seqs = [e.seq for e in events]
        assert seqs == list(range(1, len(seqs) + 1)), f"{table_id}: seqs not contiguous"
        state = NEW_TABLE
        for event in events:
            state = evolve(state, event)
        assert state == final, f"{table_id}: replayed state differs from the decided one"
