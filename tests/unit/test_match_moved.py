"""What a finished match moved for each account (issue 41 item 1): the leaderboards record
it per account and table, and answer it on GET /houses/{h}/accounts/{a}/matches/{table}."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from okey101.app.gateway import identity
from okey101.standings import Ledger
from okey101.standings.week import week_of
from services.gateway.app import Gateway
from services.gateway.settings import Settings
from services.leaderboards import api
from tests.unit.test_standings_rules import HOUR, T0, play

NS = "north-sultan"
SEATS = ["a", "b", "c", "d"]


def test_a_won_match_moves_sp_before_to_after_league_points_and_xp() -> None:
    ledger = Ledger()
    play(ledger, "t1", NS, SEATS, [10, 50, 90, 300])
    moved = ledger.board.moved(NS, "a", "t1")
    assert moved is not None
    assert (moved.points_before, moved.points, moved.change) == (1000, 1024, 24)
    assert (moved.league, moved.week, moved.league_week) == (12, week_of(T0), 12)
    assert (moved.xp, moved.level_before, moved.level, moved.leveled_up) == (70, 1, 1, False)
    assert (moved.place, moved.board_place, moved.league_place) == (1, 1, 1)
    last = ledger.board.moved(NS, "d", "t1")
    assert last is not None and (last.change, last.board_place) == (-24, 4)


def test_the_match_that_crosses_a_level_threshold_is_a_level_up() -> None:
    ledger = Ledger()
    play(ledger, "t1", NS, SEATS, [10, 50, 90, 300])
    play(ledger, "t2", NS, SEATS, [10, 50, 90, 300], at=T0 + HOUR)  # a: 140 XP, level 2
    moved = ledger.board.moved(NS, "a", "t2")
    assert moved is not None
    assert (moved.level_before, moved.level, moved.leveled_up) == (1, 2, True)
    assert (moved.points_before, moved.points, moved.league_week) == (1024, 1048, 24)


def test_an_unranked_match_moves_nothing_and_the_ledger_says_why() -> None:
    ledger = Ledger()
    play(ledger, "t1", NS, SEATS, [10, 50, 90, 300], hands=5,
         options={"hands_per_match": 5})
    assert ledger.board.moved(NS, "a", "t1") is None
    assert "5 hands" in ledger.unranked["t1"]


def test_a_match_moves_nothing_for_an_account_not_at_it() -> None:
    ledger = Ledger()
    play(ledger, "t1", NS, SEATS, [10, 50, 90, 300])
    assert ledger.board.moved(NS, "z", "t1") is None
    assert ledger.board.moved(NS, "a", "t9") is None


@dataclass
class _Service:
    ledger: Ledger
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    progress: float = 1.0


@pytest.fixture
async def client() -> AsyncIterator[TestClient[web.Request, web.Application]]:
    ledger = Ledger()
    play(ledger, "t1", NS, SEATS, [10, 50, 90, 300])
    play(ledger, "t2", NS, SEATS, [10, 50, 90, 300], at=T0 + HOUR, hands=5,
         options={"hands_per_match": 5})
    service = _Service(ledger)
    service.ready.set()
    async with TestClient(TestServer(api.build(service))) as c:  # type: ignore[arg-type]
        yield c


async def test_the_route_answers_what_the_match_moved(
        client: TestClient[web.Request, web.Application]) -> None:
    r = await client.get(f"/houses/{NS}/accounts/a/matches/t1")
    assert r.status == 200
    body = await r.json()
    assert body["ranked"] is True
    assert (body["points_before"], body["points"], body["league"], body["xp"]) == \
        (1000, 1024, 12, 70)


async def test_the_route_says_an_unranked_match_is_unranked_with_why(
        client: TestClient[web.Request, web.Application]) -> None:
    r = await client.get(f"/houses/{NS}/accounts/a/matches/t2")
    body = await r.json()
    assert r.status == 200 and body["ranked"] is False and "5 hands" in body["unranked_reason"]


async def test_a_match_not_folded_or_not_the_accounts_is_404_pending(
        client: TestClient[web.Request, web.Application]) -> None:
    for path in (f"/houses/{NS}/accounts/a/matches/t9", f"/houses/{NS}/accounts/z/matches/t1"):
        r = await client.get(path)
        assert r.status == 404 and (await r.json())["pending"] is True
    r = await client.get("/houses/nowhere/accounts/a/matches/t1")
    assert r.status == 404


# ---------------------------------------------------------------- the gateway's /api/me/match
SECRET = "s" * 40


@pytest.fixture
async def gateway() -> AsyncIterator[TestClient[web.Request, web.Application]]:
    ledger = Ledger()
    play(ledger, "t1", NS, SEATS, [10, 50, 90, 300])
    service = _Service(ledger)
    service.ready.set()
    boards = TestServer(api.build(service))  # type: ignore[arg-type]
    await boards.start_server()
    settings = Settings(bootstrap="127.0.0.1:1", secret=SECRET,
                        leaderboards_url=str(boards.make_url("/")))
    async with TestClient(TestServer(Gateway(settings).web_app())) as c:
        yield c
    await boards.close()


def _bearer(account: str) -> dict[str, str]:
    now = int(time.time())
    return {"Authorization": "Bearer " + identity.mint(SECRET, account, now, 600, 600)}


async def test_the_gateway_answers_what_the_match_moved_for_the_tokens_account(
        gateway: TestClient[web.Request, web.Application]) -> None:
    r = await gateway.get(f"/api/me/match?house={NS}&table=t1", headers=_bearer("a"))
    assert r.status == 200
    body = await r.json()
    assert (body["account"], body["change"], body["league"]) == ("a", 24, 12)


async def test_the_gateway_refuses_no_token_another_accounts_match_and_an_unknown_one(
        gateway: TestClient[web.Request, web.Application]) -> None:
    r = await gateway.get(f"/api/me/match?house={NS}&table=t1")
    assert r.status == 401
    r = await gateway.get(f"/api/me/match?house={NS}&table=t1", headers=_bearer("z"))
    assert r.status == 404 and (await r.json())["code"] == "pending"  # z was not at t1
    r = await gateway.get(f"/api/me/match?house={NS}&table=t9", headers=_bearer("a"))
    assert r.status == 404 and (await r.json())["code"] == "pending"
    r = await gateway.get(f"/api/me/match?house={NS}&table=../x", headers=_bearer("a"))
    assert r.status == 400
    r = await gateway.get("/api/me/match?house=nowhere&table=t1", headers=_bearer("a"))
    assert r.status == 400
