"""The timer service against a real broker and the real processor: stalled seats are timed
out at their deadline, through restarts of the timer (kill -9) without a turn timed out
twice."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable

import msgspec
from aiokafka import AIOKafkaConsumer, TopicPartition

from okey101.app import topics
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from services.common.kafka import provision
from services.timers.app import Timers
from tests.kafka.support import ProcessorProcess, apply, fresh_tag, publish

TURN_SECONDS = 5  # north-sultan's least (turn_seconds_range 5-600)


class TimersProcess(ProcessorProcess):
    """`python -m services.timers` in a subprocess (the shared starter, other args)."""

    SERVICE = "timers"

    def __init__(self, bootstrap: str, prefix: str, group: str, name: str = "timers") -> None:
        super().__init__(bootstrap, prefix, group, name)

    def arguments(self, name: str) -> list[str]:
        return ["--tick-ms", "50", "--instance-id", name]

    def issued(self) -> list[dict[str, object]]:
        """The timeout_issued log lines, every incarnation."""
        lines = self.log.read_text(errors="replace").splitlines() if self.log.exists() else []
        out = []
        for line in lines:
            with contextlib.suppress(ValueError):
                doc = json.loads(line)
                if isinstance(doc, dict) and doc.get("event") == "timeout_issued":
                    out.append(doc)
        return out


def table_commands(table_id: str, profile: str, options: dict[str, object],
                   bots: bool = False) -> list[E.Command]:
    """Create, four sit, start (a client seed: the processor runs --allow-stacked-deals)."""
    state = NEW_TABLE
    out: list[E.Command] = []

    def play(command: E.Command) -> None:
        nonlocal state
        command = msgspec.structs.replace(command, seq=state.seq)
        state, _ = apply(state, command)
        out.append(command)

    play(E.CreateTable(table_id=table_id, command_id="create", profile=profile,
                       options=options))
    for seat in range(4):
        play(E.Sit(table_id=table_id, command_id=f"sit{seat}", player_id=f"{table_id}-p{seat}",
                   seat=seat, bot=bots))
    play(E.StartMatch(table_id=table_id, command_id="start", player_id=f"{table_id}-p0",
                      seat=0, seed=f"{11:064x}"))
    return out


async def read_log(bootstrap: str, topic: str) -> list[tuple[int, bytes]]:
    """(timestamp ms, value) of every committed record of `topic` (provisioned here, so
    with topics.PARTITIONS partitions), up to its end now."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=None,
                                isolation_level="read_committed", enable_auto_commit=False)
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(topics.PARTITIONS)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        out: list[tuple[int, bytes]] = []
        pending = {tp for tp in tps if ends[tp] > 0}
        while pending:
            batch = await consumer.getmany(*pending, timeout_ms=500)
            for records in batch.values():
                out += [(r.timestamp, r.value) for r in records if r.value is not None]
            for tp in list(pending):
                if await consumer.position(tp) >= ends[tp]:
                    pending.discard(tp)
        return out
    finally:
        await consumer.stop()


class Played(msgspec.Struct):
    events: list[E.Event]
    timed_out: list[tuple[int, int, int]]  # (turn, ms the turn started, ms timed out)
    state: TableState


async def played(bootstrap: str, prefix: str, table_id: str) -> Played:
    records = await read_log(bootstrap, topics.EVENTS.name(prefix))
    events: list[E.Event] = []
    timed_out = []
    state, started = NEW_TABLE, 0
    for ts, value in records:
        event = E.event_decoder.decode(value)
        if event.table_id != table_id:
            continue
        after = evolve(state, event)
        if after.turn != state.turn:
            started = ts
        if isinstance(event, E.TurnTimedOut):
            timed_out.append((event.turn, started, ts))
        events.append(event)
        state = after
    return Played(events, timed_out, state)


async def until_timed_out(bootstrap: str, prefix: str, table_id: str, turns: int,
                          timeout: float, *watched: ProcessorProcess) -> Played:
    deadline = time.monotonic() + timeout
    while True:
        got = await played(bootstrap, prefix, table_id)
        if len(got.timed_out) >= turns:
            return got
        if time.monotonic() > deadline:
            tails = "\n".join(f"--- {p.name}\n{p.tail()}" for p in watched)
            raise AssertionError(f"{len(got.timed_out)} of {turns} turns timed out in "
                                 f"{timeout}s: {got.timed_out}\n{tails}")
        await asyncio.sleep(0.2)


def _tag() -> str:
    return fresh_tag()


async def test_stalled_seats_are_timed_out_through_timer_restarts_never_twice(
        kafka_bootstrap: str) -> None:
    """Nobody plays. Turn 1 is timed out; the timer is killed; turn 2's timeout is issued
    while the processor is down, the timer killed again and restarted: it issues the same
    command (same id) again, which the processor answers as a duplicate. The table keeps
    moving, each turn timed out once, never before its deadline; an okeygg table of bots
    alongside has no clock."""
    tag = _tag()
    prefix = f"tm{tag}"
    assert await provision(kafka_bootstrap, prefix) == topics.PARTITIONS
    table, bots_table = f"{prefix}-ns", f"{prefix}-bots"
    commands = table_commands(table, "north-sultan",
                              {"turn_seconds": TURN_SECONDS, "hands_per_match": 1})
    commands += table_commands(bots_table, "okeygg", {"turn_seconds": 15}, bots=True)
    proc = ProcessorProcess(kafka_bootstrap, prefix, f"proc-{tag}")
    timers = TimersProcess(kafka_bootstrap, prefix, f"timers-{tag}")
    watched = (proc, timers)
    started = time.monotonic()
    proc.start()
    timers.start()
    try:
        await publish(kafka_bootstrap, prefix, commands)
        first = await until_timed_out(kafka_bootstrap, prefix, table, 1, 30, *watched)
        assert [t for t, _, _ in first.timed_out] == [1]

        timers.kill()  # mid turn 2
        proc.terminate()  # so that turn 2's timeout waits in the commands topic
        timers.start()
        await timers.wait_for('"timeout_issued"', times=2, timeout=30)
        timers.kill()  # issued, not yet applied: the restart must issue the same command
        timers.start()
        await timers.wait_for('"timeout_issued"', times=3, timeout=30)
        issued = timers.issued()
        assert issued[1]["command_id"] == issued[2]["command_id"], issued
        assert issued[1]["turn"] == 2

        proc.start()
        got = await until_timed_out(kafka_bootstrap, prefix, table, 4, 40, *watched)
    finally:
        timers.terminate()
        proc.terminate()
    elapsed = time.monotonic() - started

    turns = [t for t, _, _ in got.timed_out]
    assert len(turns) == len(set(turns)), f"a turn timed out twice: {got.timed_out}"
    assert turns[:4] == [1, 2, 3, 4]
    for turn, began, at in got.timed_out:
        assert at - began >= TURN_SECONDS * 1000, f"turn {turn} timed out early"
    assert [e.seq for e in got.events] == list(range(1, len(got.events) + 1))
    # each time-out is the house's move: (draw,) discard, the turn passes
    kinds = [type(e) for e in got.events]
    for i, kind in enumerate(kinds):
        if kind is E.TurnTimedOut:
            assert E.TileDiscarded in kinds[i + 1:i + 3], kinds[i:i + 4]
    assert got.state.status == "playing" and got.state.turn >= 5

    outcomes = [E.outcome_decoder.decode(v)
                for _, v in await read_log(kafka_bootstrap, topics.OUTCOMES.name(prefix))]
    timeouts = [o for o in outcomes if o.command_id.startswith("timeout-")]
    assert all(o.accepted for o in timeouts), [o for o in timeouts if not o.accepted]
    twice = issued[1]["command_id"]
    assert sorted(o.duplicate for o in timeouts if o.command_id == twice) == [False, True]
    assert {o.command_id for o in timeouts} == {i["command_id"] for i in timers.issued()}

    bots = await played(kafka_bootstrap, prefix, bots_table)
    assert bots.state.status == "playing" and bots.timed_out == []
    print(f"timer restarts test: {elapsed:.1f}s, turns timed out {turns}")


async def test_the_injected_clock_drives_the_deadlines(kafka_bootstrap: str) -> None:
    """The timer in process with a virtual clock: a 45 s north-sultan turn is timed out as
    soon as the clock is moved 45 s on, and not before."""
    tag = _tag()
    prefix = f"tv{tag}"
    assert await provision(kafka_bootstrap, prefix) == topics.PARTITIONS
    table = f"{prefix}-ns"
    skew = [0.0]

    def now() -> float:
        return time.time() + skew[0]

    proc = ProcessorProcess(kafka_bootstrap, prefix, f"proc-{tag}")
    timers = Timers(kafka_bootstrap, prefix=prefix, group=f"timers-{tag}", tick=0.05, now=now)
    proc.start()
    task = asyncio.create_task(timers.run())
    try:
        await publish(kafka_bootstrap, prefix, table_commands(table, "north-sultan",
                                                              {"hands_per_match": 1}))
        await asyncio.wait_for(timers.ready.wait(), 30)
        await _until(lambda: _turn(timers, table) == 1, 20)
        skew[0] = 30.0
        await asyncio.sleep(1.0)
        assert (await played(kafka_bootstrap, prefix, table)).timed_out == []
        skew[0] = 46.0  # (turn 2, begun in real time just after, is then due at once too)
        got = await until_timed_out(kafka_bootstrap, prefix, table, 1, 20, proc)
        turns = [t for t, _, _ in got.timed_out]
        assert turns[0] == 1 and len(turns) == len(set(turns)), got.timed_out
    finally:
        timers.stop()
        await asyncio.wait_for(task, 30)
        proc.terminate()


def _turn(timers: Timers, table_id: str) -> int | None:
    partition = topics.partition_for(table_id.encode(), timers.partitions)
    clock = timers.clocks.get(partition)
    state = clock.state(table_id) if clock is not None else None
    return state.turn if state is not None else None


async def _until(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds}s")
        await asyncio.sleep(0.05)


async def test_a_disconnected_players_window_expires_and_the_seat_is_left(
        kafka_bootstrap: str) -> None:
    """classic, with a 2 s reconnect window (RULES.md section 9; the house's is 7 minutes)
    and no turn clock: the gateway reports seat 2 disconnected; the timers service expires
    the window at its deadline, taken from the event's time, never before; the processor
    records the seat as left and a substitute may sit in it."""
    tag = _tag()
    prefix = f"tr{tag}"
    assert await provision(kafka_bootstrap, prefix) == topics.PARTITIONS
    table = f"{prefix}-cl"
    commands = table_commands(table, "classic", {"reconnect_seconds": 2, "turn_seconds": None,
                                                 "hands_per_match": 1})
    state = NEW_TABLE
    for command in commands:
        state, _ = apply(state, command)
    away = E.ReportDisconnect(table_id=table, command_id="away", seat=2,
                              player_id=f"{table}-p2", seq=state.seq)
    proc = ProcessorProcess(kafka_bootstrap, prefix, f"proc-{tag}")
    timers = TimersProcess(kafka_bootstrap, prefix, f"timers-{tag}")
    proc.start()
    timers.start()
    try:
        await publish(kafka_bootstrap, prefix, [*commands, away])
        await timers.wait_for('"reconnect_expiry_issued"', timeout=60)
        got = await _until_state(kafka_bootstrap, prefix, table,
                                 lambda s: bool(s.sitters[2]) and s.sitters[2][-1].left,
                                 proc)
        await publish(kafka_bootstrap, prefix, [E.Sit(
            table_id=table, command_id="substitute", seat=2, player_id=f"{table}-s2",
            seq=got.state.seq)])
        got = await _until_state(kafka_bootstrap, prefix, table,
                                 lambda s: len(s.sitters[2]) == 2, proc)
    finally:
        timers.terminate()
        proc.terminate()
    [disconnected] = [e for e in got.events if isinstance(e, E.PlayerDisconnected)]
    [left] = [e for e in got.events if isinstance(e, E.PlayerLeft)]
    assert disconnected.reconnect_by == disconnected.at + 2000
    assert left.reason == "disconnected" and left.player_id == f"{table}-p2"
    assert left.at >= disconnected.reconnect_by, "the window expired early"
    assert got.state.players[2] == f"{table}-s2"
    assert [x.player_id for x in got.state.sitters[2]] == [f"{table}-p2", f"{table}-s2"]
    outcomes = [E.outcome_decoder.decode(v)
                for _, v in await read_log(kafka_bootstrap, topics.OUTCOMES.name(prefix))]
    expiries = [o for o in outcomes if o.command_id.startswith("reconnect-")]
    assert [o.accepted for o in expiries if not o.duplicate] == [True], expiries


async def _until_state(bootstrap: str, prefix: str, table_id: str,
                       condition: Callable[[TableState], bool], proc: ProcessorProcess,
                       seconds: float = 30) -> Played:
    deadline = time.monotonic() + seconds
    while not condition((got := await played(bootstrap, prefix, table_id)).state):
        assert time.monotonic() < deadline, proc.tail()
        await asyncio.sleep(0.2)
    return got
