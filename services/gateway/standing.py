"""GET /api/me/standing?house=H: the token's account in house H, read from the
leaderboards' HTTP API (its account page) and shaped by okey101.app.gateway.standing."""

from __future__ import annotations

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


def _problem(status: int, code: str, message: str) -> web.Response:
    metrics.REFUSED.labels(code).inc()
    return web.json_response({"code": code, "message": message, "error": message},
                             status=status)


async def answer(request: web.Request, secret: str, max_seconds: int, url: str
                 ) -> web.Response:
    if not url:
        return _problem(404, "unavailable", "this gateway reads no leaderboards")
    header = request.headers.get("Authorization", "")
    try:
        account = identity.verify(secret, header.removeprefix("Bearer ").strip(),
                                  int(time.time()), max_seconds)
    except identity.TokenRefused as exc:
        return _problem(401, exc.code, exc.message)
    try:
        house = checked_house(request.query.get("house"))
    except MalformedInput as exc:
        return _problem(400, "malformed", str(exc))
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
