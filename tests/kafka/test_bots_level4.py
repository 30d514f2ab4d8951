"""Level 4 (the searching bot) through the bots service against a real broker, the real
processor and the views service: tables of bots seated at level 4 (and level 3 beside them)
play whole matches in every house, partner modes and düz included, with no command refused."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import msgspec

from okey101.app import topics
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE
from services.common.kafka import provision
from tests.kafka.support import (
    BotsProcess,
    ProcessorProcess,
    ViewsProcess,
    apply,
    publish,
    started,
)
from tests.kafka.test_timers import played, read_log

HOUSES: dict[str, tuple[str, dict[str, Any]]] = {
    "ns": ("north-sultan", {"hands_per_match": 1}),
    "gg": ("okeygg", {"hands_per_match": 7, "partners": True}),
    "cl": ("classic", {"hands_per_match": 1, "bots_allowed": True}),
    "clp": ("classic", {"hands_per_match": 1, "bots_allowed": True, "partners": True}),
    "oo": ("okey-oyna", {"hands_per_match": 1}),
    "duz": ("okey-oyna-duz", {"hands_per_match": 1}),
}
LEVELS = (4, 3, 4, 3)  # by seat: level 4 in both teams' first seats


def bot_table(table_id: str, profile: str, options: dict[str, Any]) -> list[E.Command]:
    """Create, four bots sit (levels by seat), start."""
    state = NEW_TABLE
    out: list[E.Command] = []

    def play(command: E.Command) -> None:
        nonlocal state
        command = msgspec.structs.replace(command, seq=state.seq)
        state, _ = apply(state, command)
        out.append(command)

    play(E.CreateTable(table_id=table_id, command_id="create", profile=profile,
                       options=options))
    for seat, level in enumerate(LEVELS):
        play(E.Sit(table_id=table_id, command_id=f"sit{seat}", player_id=f"{table_id}-b{seat}",
                   seat=seat, bot=True, bot_level=level))
    play(E.StartMatch(table_id=table_id, command_id="start", player_id=f"{table_id}-b0",
                      seat=0, seed=f"{23:064x}"))
    return out


async def test_level4_bots_play_whole_matches_in_every_house_through_the_bots_service(
        kafka_bootstrap: str) -> None:
    tag = uuid.uuid4().hex[:8]
    prefix = f"l4{tag}"
    assert await provision(kafka_bootstrap, prefix) == topics.PARTITIONS
    tables = {f"{prefix}-{k}": spec for k, spec in HOUSES.items()}
    commands = [c for table, (profile, options) in tables.items()
                for c in bot_table(table, profile, options)]
    proc = ProcessorProcess(kafka_bootstrap, prefix, f"proc-{tag}")
    bots = BotsProcess(kafka_bootstrap, prefix, f"bots-{tag}")
    views = ViewsProcess(kafka_bootstrap, prefix, f"views-{tag}")  # the bots' views
    async with started(proc, views, bots):
        await publish(kafka_bootstrap, prefix, commands)
        deadline = time.monotonic() + 600
        pending = set(tables)
        while pending and time.monotonic() < deadline:
            for table in sorted(pending):
                if (await played(kafka_bootstrap, prefix, table)).state.status == "over":
                    pending.discard(table)
            await asyncio.sleep(1)
        assert not pending, f"unfinished: {sorted(pending)}\n{bots.tail()}\n{proc.tail()}"
    outcomes = [E.outcome_decoder.decode(v)
                for _, v in await read_log(kafka_bootstrap, topics.OUTCOMES.name(prefix))]
    refused = [o for o in outcomes if not o.accepted]
    assert not refused, refused[:3]
    for table in tables:
        got = await played(kafka_bootstrap, prefix, table)
        assert isinstance(got.events[-1], E.MatchEnded)
        assert not any(isinstance(e, E.TurnTimedOut) for e in got.events)
        moved = {e.seat for e in got.events if isinstance(e, E.TileDiscarded)}
        assert moved == {0, 1, 2, 3}
    assert "service_failed" not in bots.tail(500), bots.tail()
    stopped = [json.loads(line) for line in bots.log.read_text().splitlines()
               if '"bots_stopped"' in line]
    assert stopped and stopped[-1]["level4_searched"] > 0, bots.tail()  # level 4 played
