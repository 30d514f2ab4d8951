"""GET /api/me/standing?house=H: the token's account in house H, read from the
leaderboards' HTTP API (its account page) and shaped by okey101.app.gateway.standing.
GET /api/me/match?house=H&table=T: what table T's match moved for the token's account
(the leaderboards' /houses/H/accounts/A/matches/T); 404 "pending" until they fold it."""

from __future__ import annotations

import re
import time

import aiohttp
import msgspec
from aiohttp import web

from okey101.app.gateway import identity
from okey101.app.gateway.standing import checked_house, my_standing
from okey101.errors import MalformedInput
from okey101.standings.week import week_of
from services.gateway import metrics

TIMEOUT = aiohttp.ClientTimeout(total=3)
TABLE_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def _problem(status: int, code: str, message: str) -> web.Response:
    metrics.REFUSED.labels(code).inc()
    return web.json_response({"code": code, "message": message, "error": message},
                             status=status)


def _asker(request: web.Request, secret: str, max_seconds: int, url: str
           ) -> tuple[str, str] | web.Response:
    """The token's account and the house asked for, or the refusal."""
    if not url:
        return _problem(404, "unavailable", "this gateway reads no leaderboards")
    header = request.headers.get("Authorization", "")
    try:
        account = identity.verify(secret, header.removeprefix("Bearer ").strip(),
                                  int(time.time()), max_seconds)
    except identity.TokenRefused as exc:
        return _problem(401, exc.code, exc.message)
    try:
        return account, checked_house(request.query.get("house"))
    except MalformedInput as exc:
        return _problem(400, "malformed", str(exc))


async def answer(request: web.Request, secret: str, max_seconds: int, url: str
                 ) -> web.Response:
    asker = _asker(request, secret, max_seconds, url)
    if isinstance(asker, web.Response):
        return asker
    account, house = asker
    page_url = f"{url.rstrip('/')}/houses/{house}/accounts/{account}"
    try:
        async with aiohttp.ClientSession(timeout=TIMEOUT) as session, \
                session.get(page_url) as r:
            if r.status == 404:
                page = None
            elif r.status != 200:
                return _problem(503, "unavailable", f"the leaderboards answered {r.status}")
            else:
                page = await r.json()
        mine = my_standing(house, account, week_of(int(time.time() * 1000)), page)
    except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
        return _problem(503, "unavailable", f"the leaderboards did not answer: {exc!r}")
    except MalformedInput as exc:
        return _problem(503, "unavailable", str(exc))
    return web.Response(body=msgspec.json.encode(mine), content_type="application/json")


async def match_moved(request: web.Request, secret: str, max_seconds: int, url: str
                      ) -> web.Response:
    """What a match moved for the token's account: the leaderboards' answer as it is; the
    account is the token's, so no one reads another's."""
    asker = _asker(request, secret, max_seconds, url)
    if isinstance(asker, web.Response):
        return asker
    account, house = asker
    table = request.query.get("table", "")
    if not TABLE_ID.fullmatch(table):
        return _problem(400, "malformed", f"table={table[:80]!r}: a table id (1-64 of "
                                          "letters, digits, _ . : -) is needed")
    moved_url = f"{url.rstrip('/')}/houses/{house}/accounts/{account}/matches/{table}"
    try:
        async with aiohttp.ClientSession(timeout=TIMEOUT) as session, \
                session.get(moved_url) as r:
            if r.status == 404:
                return _problem(404, "pending", f"match {table!r} has moved nothing for "
                                "you yet: not folded by the leaderboards, or not yours")
            if r.status != 200:
                return _problem(503, "unavailable", f"the leaderboards answered {r.status}")
            body = await r.read()
    except (aiohttp.ClientError, TimeoutError) as exc:
        return _problem(503, "unavailable", f"the leaderboards did not answer: {exc!r}")
    return web.Response(body=body, content_type="application/json")
