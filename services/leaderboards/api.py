"""The boards over HTTP (aiohttp, the project's one HTTP stack). JSON in, JSON out.

GET /healthz                                   ready, rebuild progress, matches (and unranked
                                               ones, not applied), bad input
GET /houses                                    every house's standing rules (house data)
GET /houses/{house}/board?top=N&week=W&bots=B  top N (default 10, at most 1000): all time,
                                               or week W's league points (W = "current" or
                                               "2026-W48"); B = 1/0 overrides whether bots
                                               are listed
GET /houses/{house}/accounts/{account}         the account's page: standing, live skill,
                                               level, room, rating history by match, its
                                               place on the board and on this week's league
GET /houses/{house}/accounts/{account}/room    the room it may enter (and every room open)
GET /houses/{house}/accounts/{account}/matches/{table}
                                               what that match moved for the account (SP or
                                               rating before -> after, league points, XP,
                                               level, board place); an unranked match: 200
                                               with ranked false and why; a match not folded
                                               yet, or not the account's: 404 "pending"

A board is answered only once the start-up rebuild is applied (503 before, with progress);
an unknown house or account is 404, a bad parameter 400 naming it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

import msgspec
from aiohttp import web

from okey101.errors import MalformedInput
from okey101.standings.house import HOUSE_RULES, room_for, rooms_open
from okey101.standings.ledger import BAD_INPUT, Ledger
from okey101.standings.week import check_week, week_of
from services.common.http import json_errors


class Leaderboards(Protocol):
    """What the API reads of the service (services/leaderboards/app.py)."""

    ledger: Ledger
    ready: asyncio.Event
    progress: float


SERVICE: web.AppKey[Leaderboards] = web.AppKey("service")
MAX_TOP = 1000


def _json(data: object, status: int = 200) -> web.Response:
    return web.Response(body=msgspec.json.encode(data), status=status,
                        content_type="application/json")


def _error(status: int, message: str) -> web.Response:
    return _json({"error": message}, status)


def build(service: Leaderboards) -> web.Application:
    app = web.Application(middlewares=[json_errors])
    app[SERVICE] = service
    app.router.add_get("/healthz", health)
    app.router.add_get("/houses", houses)
    app.router.add_get("/houses/{house}/board", board)
    app.router.add_get("/houses/{house}/accounts/{account}", account)
    app.router.add_get("/houses/{house}/accounts/{account}/room", room)
    app.router.add_get("/houses/{house}/accounts/{account}/matches/{table}", match_moved)
    return app


async def health(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    counts = service.ledger.counts
    return _json({"ready": service.ready.is_set(), "progress": round(service.progress, 4),
                  "matches": counts["matches"], "unranked": counts["unranked"],
                  "records": service.ledger.records,
                  "bad_input": {k: counts[k] for k in BAD_INPUT if counts[k]},
                  "duplicates": {k: counts[k] for k in ("duplicate_event", "duplicate_match")
                                 if counts[k]}})


async def houses(request: web.Request) -> web.Response:
    return _json(HOUSE_RULES)


def _checked(request: web.Request) -> tuple[Leaderboards, str] | web.Response:
    service = request.app[SERVICE]
    house = request.match_info["house"]
    if house not in service.ledger.board.rules:
        return _error(404, f"no house {house!r}: houses are "
                           f"{', '.join(sorted(service.ledger.board.rules))}")
    if not service.ready.is_set():
        return _json({"error": "rebuilding from the events topic", "progress":
                      round(service.progress, 4)}, 503)
    return service, house


async def board(request: web.Request) -> web.Response:
    checked = _checked(request)
    if isinstance(checked, web.Response):
        return checked
    service, house = checked
    query = request.query
    try:
        top = int(query.get("top", "10"))
    except ValueError:
        return _error(400, f"top={query.get('top')!r}: a whole number is needed")
    if not 1 <= top <= MAX_TOP:
        return _error(400, f"top={top}: between 1 and {MAX_TOP}")
    week = query.get("week")
    if week == "current":
        week = week_of(int(time.time() * 1000))
    try:
        if week is not None:
            check_week(week)
    except MalformedInput as exc:
        return _error(400, str(exc))
    bots = query.get("bots")
    if bots not in (None, "0", "1"):
        return _error(400, f"bots={bots!r}: 0 or 1")
    with_bots = None if bots is None else bots == "1"
    b = service.ledger.board
    rows = b.top(house, top, week=week, with_bots=with_bots)
    return _json({"house": house, "week": week, "order": "league" if week else
                  b.rules[house].points, "rows": rows,
                  "bots_excluded": 0 if with_bots else b.excluded_bots(house)})


async def account(request: web.Request) -> web.Response:
    checked = _checked(request)
    if isinstance(checked, web.Response):
        return checked
    service, house = checked
    name = request.match_info["account"]
    b = service.ledger.board
    page = b.page(house, name)
    if page is None:
        return _error(404, f"no account {name!r} in {house}")
    week = week_of(int(time.time() * 1000))
    return _json({"house": house, "account": name, **page, "place": b.place(house, name),
                  "week": week, "league_place": b.place(house, name, week)})


async def room(request: web.Request) -> web.Response:
    checked = _checked(request)
    if isinstance(checked, web.Response):
        return checked
    service, house = checked
    name = request.match_info["account"]
    rules = service.ledger.board.rules[house]
    standing = service.ledger.board.standing(house, name)
    level = standing.level if standing is not None else 1  # a new account starts at 1
    return _json({"house": house, "account": name, "level": level,
                  "room": room_for(rules, level), "rooms_open": rooms_open(rules, level)})


async def match_moved(request: web.Request) -> web.Response:
    checked = _checked(request)
    if isinstance(checked, web.Response):
        return checked
    service, house = checked
    name, table = request.match_info["account"], request.match_info["table"]
    reason = service.ledger.unranked.get(table)
    if reason is not None:
        return _json({"house": house, "account": name, "table_id": table, "ranked": False,
                      "unranked_reason": reason})
    moved = service.ledger.board.moved(house, name, table)
    if moved is None:
        # not folded yet (the page polls) or never this account's match in this house
        return _json({"error": f"no match {table!r} applied for {name!r} in {house}",
                      "pending": True}, 404)
    return _json(moved)
