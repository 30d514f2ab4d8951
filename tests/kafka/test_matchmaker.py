"""The matchmaker on the real broker, run as production runs it (a subprocess): a kill -9
loses no waiting player and seats nobody twice; a 64-entrant bot tournament is played from
its schedule to its final standings by the processor and the bots."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

import aiohttp
import msgspec
from aiokafka import AIOKafkaProducer

from okey101.app import topics
from okey101.app.matchmaker import records as R
from okey101.table import messages as E
from services.common.stack import GATEWAY_URL
from tests.kafka.stack import Stack
from tests.kafka.support import (
    BotsProcess,
    ProcessorProcess,
    ViewsProcess,
    fresh_tag,
    read_all,
)
from tests.kafka.wsclient import Client, connect

NS = "north-sultan"


class MatchmakerProcess(ProcessorProcess):
    """`python -m services.matchmaker` in a subprocess, ticking every 50 ms."""

    SERVICE = "matchmaker"

    def __init__(self, bootstrap: str, prefix: str, group: str, name: str = "mm",
                 args: tuple[str, ...] = (), env: Mapping[str, str] | None = None) -> None:
        self.extra = ["--tick-ms", "50", *args]
        super().__init__(bootstrap, prefix, group, name, env)

    def arguments(self, name: str) -> list[str]:
        return self.extra


async def send(bootstrap: str, prefix: str, requests: list[R.AnyRequest],
               rate: float | None = None) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True,
                                acks="all", linger_ms=2)
    await producer.start()
    try:
        for request in requests:
            await producer.send(topics.MATCHMAKING.name(prefix), R.encode(request),
                                key=request.house.encode())
            if rate:
                await asyncio.sleep(1 / rate)
        await producer.flush()
    finally:
        await producer.stop()


def quick(player: str) -> R.QuickPlay:
    return R.QuickPlay(request_id=f"{player}/q", house=NS, player_id=player)


async def decisions(bootstrap: str, prefix: str, until: int | None = None,
                    timeout: float = 60) -> list[R.AnyDecision]:
    values = await read_all(bootstrap, topics.MATCHMAKER.name(prefix), until=until,
                            timeout=timeout)
    return [R.decision_decoder.decode(v) for v in values]


async def test_four_quick_plays_seat_one_table_the_processor_starts(
        kafka_bootstrap: str) -> None:
    """The whole path once: four requests, one `seated`, and the processor accepts every
    command the seating wrote (create, four sits, start): the match has started."""
    prefix = f"m1{fresh_tag()}"
    processor = ProcessorProcess(kafka_bootstrap, prefix, f"{prefix}-p")
    mm = MatchmakerProcess(kafka_bootstrap, prefix, f"{prefix}-mm",
                           args=("--bot-wait-ms", "3600000", "--window-base", "100"))
    for proc in (processor, mm):
        proc.start()
    try:
        await mm.wait_for("partition_rebuilt", timeout=90)
        players = [f"one{n}" for n in range(4)]
        await send(kafka_bootstrap, prefix, [quick(p) for p in players])
        await mm.wait_for('"seated"', timeout=60)
        log = await decisions(kafka_bootstrap, prefix, until=5, timeout=60)
        (seated,) = [d for d in log if isinstance(d, R.Seated)]
        outcomes = [E.outcome_decoder.decode(v) for v in await read_all(
            kafka_bootstrap, topics.OUTCOMES.name(prefix), until=6, timeout=90)]
        events = [E.event_decoder.decode(v) for v in await read_all(
            kafka_bootstrap, topics.EVENTS.name(prefix), until=6, timeout=60)]
    finally:
        for proc in (mm, processor):
            proc.stop()
    assert sorted(s.player_id for s in seated.seats) == players, mm.tail()
    assert [w.player_id for w in log if isinstance(w, R.Waiting)] == players
    mine = [o for o in outcomes if o.table_id == seated.table_id]
    assert len(mine) == 6 and all(o.accepted for o in mine), (mine, processor.tail())
    kinds = [type(e).__struct_config__.tag for e in events if e.table_id == seated.table_id]
    assert kinds[:6] == ["table_created", *["player_sat"] * 4, "match_started"], kinds


async def test_a_kill_9_loses_no_waiting_player_and_seats_nobody_twice(
        kafka_bootstrap: str) -> None:
    prefix = f"mm{fresh_tag()}"
    # no bots: a table is four players; the window takes anyone at once
    mm = MatchmakerProcess(kafka_bootstrap, prefix, f"{prefix}-mm",
                           args=("--bot-wait-ms", "3600000", "--window-base", "100"))
    mm.start()
    try:
        await mm.wait_for("partition_rebuilt", timeout=90)
        first = [f"p{n:03d}" for n in range(42)]
        await send(kafka_bootstrap, prefix, [quick(p) for p in first], rate=400)
        await mm.wait_for('"seated"', times=3, timeout=60)
        mm.kill()  # mid-stream: some of the 42 decided, maybe a transaction open
        second = [f"q{n:03d}" for n in range(42)]
        await send(kafka_bootstrap, prefix, [quick(p) for p in second]
                   + [quick(p) for p in first[:5]])  # retried requests too
        mm.start()
        # 84 players: 21 tables
        log = await decisions(kafka_bootstrap, prefix, timeout=90)
        for _ in range(60):
            if sum(isinstance(d, R.Seated) for d in log) >= 21:
                break
            await asyncio.sleep(0.5)
            log = await decisions(kafka_bootstrap, prefix, timeout=10)
    finally:
        mm.stop()
    seated = [d for d in log if isinstance(d, R.Seated)]
    players = Counter(s.player_id for d in seated for s in d.seats)
    assert set(players) == set(first) | set(second), mm.tail()
    assert set(players.values()) == {1}  # nobody seated twice
    waits = Counter(d.player_id for d in log if isinstance(d, R.Waiting))
    assert set(waits.values()) == {1}  # a retried request is decided once
    commands = [E.command_decoder.decode(v) for v in await read_all(
        kafka_bootstrap, topics.COMMANDS.name(prefix), until=len(seated) * 6, timeout=30)]
    creates = Counter(c.table_id for c in commands if isinstance(c, E.CreateTable))
    assert set(creates) == {d.table_id for d in seated} and set(creates.values()) == {1}
    sits = Counter(c.player_id for c in commands if isinstance(c, E.Sit))
    assert sits == players


async def test_a_64_entrant_bot_tournament_is_played_to_its_final_standings(
        kafka_bootstrap: str) -> None:
    prefix = f"mt{fresh_tag()}"
    processor = ProcessorProcess(kafka_bootstrap, prefix, f"{prefix}-p")
    views = ViewsProcess(kafka_bootstrap, prefix, f"{prefix}-views")  # what the bots read
    bots = BotsProcess(kafka_bootstrap, prefix, f"{prefix}-bots")
    mm = MatchmakerProcess(kafka_bootstrap, prefix, f"{prefix}-mm")
    started = time.monotonic()
    for proc in (processor, views, bots, mm):
        proc.start()
    try:
        await mm.wait_for("partition_rebuilt", timeout=90)
        await processor.wait_for("partition", timeout=90)
        await send(kafka_bootstrap, prefix, [
            R.ScheduleTournament(request_id="ops/cup", house=NS, tournament_id="cup",
                                 starts_at=int(time.time() * 1000) + 2000, size=64, hands=1,
                                 fill_with_bots=True, bot_level=1),
            R.Register(request_id="late/r", house=NS, player_id="late", tournament_id="nope")])
        await mm.wait_for("tournament_ended", timeout=240)
        log = await decisions(kafka_bootstrap, prefix, timeout=20)
    finally:
        for proc in (mm, bots, views, processor):
            proc.stop()
    wall = time.monotonic() - started
    ended = [d for d in log if isinstance(d, R.TournamentEnded)]
    assert len(ended) == 1, mm.tail()
    (result,) = ended
    tables = [d for d in log if isinstance(d, R.Seated) and d.tournament_id == "cup"]
    results = [d for d in log if isinstance(d, R.TableResult)]
    assert result.matches == len(tables) == len(results) >= 16 + 4 + 1  # every match counted
    assert {d.table_id for d in tables} == {d.table_id for d in results}
    assert len(result.standings) == 64
    assert sorted(p.place for p in result.standings)[:1] == [1]
    assert all(p.bot and not p.title and not p.league_points for p in result.standings)
    refused = [d for d in log if isinstance(d, R.Refused)]
    assert [d.code for d in refused] == ["unknown_tournament"]
    print(f"64-entrant bot tournament: {len(tables)} matches, {wall:.1f} s wall "
          f"(services started included)")
    assert msgspec.json.encode(result)  # the standings are a published record


async def test_a_person_presses_quick_play_in_the_gateway_and_is_seated_with_bots(
        kafka_bootstrap: str) -> None:
    """Through the gateway as the browser does it: `quick_play` answered `waiting` in the
    hall of the player's level, then `seated` (bots in the seats nobody took after the
    wait) at a table the player watches and plays; Has Oda refused without the token's
    role and open with it; a cancel with nothing waiting refused; a cancel answered."""
    stack = Stack(kafka_bootstrap)
    try:
        url = await stack.start(bots=True, timers=False,
                                matchmaker=("--bot-wait-ms", "1500"))
        async with aiohttp.ClientSession() as session:
            async def person(name: str, roles: tuple[str, ...] = ()) -> Client:
                return await connect(session, url, name, roles)

            ayse = await person("ayse")
            await ayse.send(type="cancel_quick_play", id="c0", house=NS)
            nothing = await ayse.next("quick_play_state", id="c0", timeout=90)
            assert (nothing["status"], nothing["code"]) == ("refused", "nothing_waiting")
            await ayse.send(type="quick_play", id="q0", house=NS, hall="Has Oda")
            vip_only = await ayse.next("quick_play_state", id="q0")
            assert (vip_only["status"], vip_only["code"]) == ("refused", "role_missing")
            await ayse.send(type="quick_play", id="q1", house=NS)
            waiting = await ayse.next("quick_play_state", id="q1", status="waiting")
            assert waiting["hall"] == "Acemi"  # a new account: level 1
            await ayse.send(type="quick_play", id="q2", house=NS)
            twice = await ayse.next("quick_play_state", id="q2")
            assert (twice["status"], twice["code"]) == ("refused", "already_waiting")

            vip = await person("mehmet", roles=("vip",))
            await vip.send(type="quick_play", id="v1", house=NS, hall="Has Oda")
            assert (await vip.next("quick_play_state", id="v1"))["status"] == "waiting"
            await vip.send(type="cancel_quick_play", id="v2", house=NS)
            cancelled = await vip.next("quick_play_state", id="v2")
            assert (cancelled["status"], cancelled["hall"]) == ("cancelled", "Has Oda")

            seated = await ayse.next("quick_play_state", id="q1", status="seated", timeout=60)
            table = seated["table_id"]
            update = await ayse.watch_when_known(table)
            assert update["seat"] == seated["seat"]
            view = update["view"]
            assert view["players"][seated["seat"]] == "ayse" and view["status"] != "new"
            # the lobby shows the wait state again on a new connection while waiting: none now
            again = await person("ayse")
            await again.send(type="tables", house=NS)
            await again.next("tables")
            assert not [f for f in again.seen if f["type"] == "quick_play_state"]
    finally:
        stack.stop()
    log = await decisions(kafka_bootstrap, stack.prefix, timeout=20)
    (table_seated,) = [d for d in log if isinstance(d, R.Seated)]
    assert [s.bot for s in table_seated.seats] == [False, True, True, True]
    assert table_seated.table_id == table


async def test_a_person_lists_registers_and_follows_a_tournament_through_the_gateway(
        kafka_bootstrap: str) -> None:
    """Through the gateway: an operator's tournament listed open; `register` answered by
    the bracket with the player registered, a second one refused `already_registered`;
    `unregister` answered with the player gone; the bots' tournament then played to its
    final standings, which `tournament` shows round by round; a registration after the
    start refused `registration_closed`; an unknown tournament refused."""
    stack = Stack(kafka_bootstrap)
    try:
        url = await stack.start(bots=True, timers=False, matchmaker=())
        starts = int(time.time() * 1000) + 8000
        await send(kafka_bootstrap, stack.prefix, [R.ScheduleTournament(
            request_id="ops/cup", house=NS, tournament_id="cup", name="Aralık Kupası",
            starts_at=starts, size=16, hands=1, fill_with_bots=True, bot_level=1)])
        async with aiohttp.ClientSession() as session:
            ayse = await connect(session, url, "ayse")
            listed: list[dict[str, Any]] = []
            while not listed:  # the gateway has read the schedule
                await ayse.send(type="tournaments", house=NS)
                listed = (await ayse.next("tournaments"))["tournaments"]
                await asyncio.sleep(0.2)
            assert [(t["tournament_id"], t["status"], t["name"]) for t in listed] == \
                [("cup", "open", "Aralık Kupası")]
            await ayse.send(type="register", id="r1", house=NS, tournament_id="cup")
            registered = await ayse.next("tournament", id="r1")
            assert registered["tournament"]["is_registered"]
            assert registered["tournament"]["registered"] == 1
            assert registered["entrants"] == ["ayse"]
            await ayse.send(type="register", id="r2", house=NS, tournament_id="cup")
            assert (await ayse.next("error", id="r2"))["code"] == "already_registered"
            await ayse.send(type="unregister", id="u1", house=NS, tournament_id="cup")
            gone = await ayse.next("tournament", id="u1")
            assert not gone["tournament"]["is_registered"] and gone["entrants"] == []
            await ayse.send(type="tournament", id="x", tournament_id="nope")
            assert (await ayse.next("error", id="x"))["code"] == "unknown_tournament"

            await asyncio.sleep(max(0.0, (starts - time.time() * 1000) / 1000) + 1)
            await ayse.send(type="register", id="r3", house=NS, tournament_id="cup")
            assert (await ayse.next("error", id="r3", timeout=60))["code"] == \
                "registration_closed"
            deadline = time.monotonic() + 240
            while True:
                await ayse.send(type="tournament", id="s", tournament_id="cup")
                state = await ayse.next("tournament", id="s")
                if state["tournament"]["status"] == "ended" or time.monotonic() > deadline:
                    break
                await asyncio.sleep(1)
    finally:
        stack.stop()
    assert state["tournament"]["status"] == "ended", state
    assert all(t["places"] and len(t["players"]) == 4 for r in state["rounds"]
               for t in r["tables"])
    # the bracket the deals called for: [4, 1], or [4, 2, 1] when a round-1 table had a
    # shared first place (a deck exhausted with equal racks): the tied go on together
    assert_bracket_follows_the_places(state["rounds"], first=4)
    assert len(state["standings"]) == 16 and state["standings"][0]["place"] == 1
    assert all(p["bot"] for p in state["standings"])


def assert_bracket_follows_the_places(rounds: list[dict[str, Any]], first: int) -> None:
    """Each table sends on its entrants of the best place among them (ties together; all
    tied at a table of a many-table round: the earliest seated), each round seats those in
    tables of four, the last round is one table, and a third round comes only from a
    shared first place in round 1 (house rules: one advances a table)."""
    shape = [len(r["tables"]) for r in rounds]
    assert shape[0] == first and shape[-1] == 1, shape
    for n, r in enumerate(rounds):
        for t in r["tables"]:
            entrants = [(p, place) for p, place, e in
                        zip(t["players"], t["places"], t["entrants"], strict=True) if e]
            best = min(place for _, place in entrants)
            tied = [p for p, place in entrants if place == best]
            if len(tied) == len(entrants) > 1 and len(r["tables"]) > 1:
                tied = tied[:1]
            assert t["advancing"] == tied, t
        if n + 1 < len(rounds):
            through = sum(len(t["advancing"]) for t in r["tables"])
            assert shape[n + 1] == -(-through // 4), (shape, through)
    shared = [t for t in rounds[0]["tables"] if 1 < t["places"].count(1) < 4]
    assert (len(shape) > 2) == bool(shared), (shape, [t["places"] for t in rounds[0]["tables"]])


async def test_a_restarted_gateway_knows_a_tournament_scheduled_before_its_window(
        kafka_bootstrap: str) -> None:
    """The gateway re-reads only its newest `recent_decisions` decisions a partition (here
    20) for the quick-play waits. A tournament scheduled and registered for before 60 more
    decisions is listed after a gateway restart all the same, its registration counted:
    the tournaments topic holds it until it finishes, and the decisions are re-read from
    its schedule."""
    stack = Stack(kafka_bootstrap, gateway_args=("--recent-decisions", "20"))
    try:
        await stack.start(bots=False, timers=False, matchmaker=())
        starts = int(time.time() * 1000) + 3_600_000
        await send(kafka_bootstrap, stack.prefix, [
            R.ScheduleTournament(request_id="ops/cup", house=NS, tournament_id="cup",
                                 name="Aralık Kupası", starts_at=starts, size=16, hands=1),
            R.Register(request_id="ayse/r", house=NS, player_id="ayse", tournament_id="cup")])
        await send(kafka_bootstrap, stack.prefix, [
            r for n in range(30) for r in (
                quick(f"p{n}"), R.CancelQuickPlay(request_id=f"p{n}/c", house=NS,
                                                  player_id=f"p{n}"))])
        log = await decisions(kafka_bootstrap, stack.prefix, until=62)
        assert [type(d).__name__ for d in log[:2]] == ["TournamentScheduled", "Registered"]
        assert len(log) >= 62  # the schedule is far outside the newest 20

        gateway = stack.services["gateway"]
        gateway.stop()
        gateway.start()
        await gateway.wait_for("gateway listening on", times=2, timeout=120)
        url = GATEWAY_URL.findall(gateway.text())[-1]
        async with aiohttp.ClientSession() as session:
            onur = await connect(session, url, "onur")
            await onur.send(type="tournaments", house=NS)
            listed = (await onur.next("tournaments"))["tournaments"]
            assert [(t["tournament_id"], t["status"], t["registered"]) for t in listed] == \
                [("cup", "open", 1)]
            await onur.send(type="tournament", id="t", tournament_id="cup")
            state = await onur.next("tournament", id="t")
            assert state["entrants"] == ["ayse"]
    finally:
        stack.stop()
