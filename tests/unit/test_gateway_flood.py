"""The gateway's flood guard over a real WebSocket, on a clock the test holds: its verdicts
are the token bucket's at the gateway's clock, so a burst judged at one instant passes
exactly `command_burst` frames whatever the machine's load, and each 1/rate seconds of the
gateway's time lets exactly one more through (issue 41 item 10: under load the gateway's
wall clock runs on between frames of one flood, so the Kafka test cannot count passes; it
bounds them by its window instead, tests/kafka/test_gateway.py)."""

from __future__ import annotations

import json
import time
from typing import Any

from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient, TestServer

from okey101.app.gateway import identity
from services.gateway.app import Gateway
from services.gateway.settings import Settings

SECRET = "s" * 40
RATE, BURST = 5.0, 5


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _frames(ws: ClientWebSocketResponse, n: int) -> list[dict[str, Any]]:
    return [json.loads((await ws.receive(timeout=10)).data) for _ in range(n)]


async def _flood(ws: ClientWebSocketResponse, n: int) -> list[str]:
    """`n` lobby frames at once: each one's answer, `tables` (passed) or its error code."""
    for _ in range(n):
        await ws.send_str(json.dumps({"type": "tables"}))
    return [f["type"] if f["type"] == "tables" else f["code"] for f in await _frames(ws, n)]


async def test_a_flood_at_one_instant_passes_the_burst_and_each_refill_one_more() -> None:
    clock = Clock()
    gateway = Gateway(Settings(bootstrap="127.0.0.1:1", secret=SECRET,
                               commands_per_second=RATE, command_burst=BURST,
                               flood_strikes=1000), clock=clock)
    async with TestClient(TestServer(gateway.web_app())) as c:
        ws = await c.ws_connect("/ws")
        await ws.send_str(json.dumps({"type": "hello", "v": 2,
                                      "token": identity.mint(SECRET, "ayse", int(time.time()))}))
        assert (await _frames(ws, 1))[0]["type"] == "welcome"
        assert await _flood(ws, 40) == ["tables"] * BURST + ["rate_limited"] * (40 - BURST)
        clock.now += 1 / RATE  # one token
        assert await _flood(ws, 3) == ["tables", "rate_limited", "rate_limited"]
        clock.now += 3 / RATE
        assert await _flood(ws, 5) == ["tables"] * 3 + ["rate_limited"] * 2
        await ws.close()
