"""A person's WebSocket to the gateway, as the Kafka tests drive it: frames sent as JSON,
the next frame of a kind awaited (every frame kept in `seen`), a command and its outcome,
a table watched once the gateway knows it. It speaks version 2 as a real client does: a
`patch` that follows the view held (same seat, `previous` the version held) is applied and
kept as the `update` it stands for (`patched` true); one that does not is kept as it came
and the table watched again with the version held, which brings the whole view."""

from __future__ import annotations

import asyncio
import copy
import json
import time
from typing import Any

import aiohttp

from okey101.app.gateway import identity
from okey101.table import viewpatch
from tests.kafka.stack import SECRET


def token(player: str, ttl: int = 3600, roles: tuple[str, ...] = ()) -> str:
    return identity.mint(SECRET, player, int(time.time()), ttl, roles=roles)


class Client:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []
        self.held: dict[str, dict[str, Any]] = {}  # table -> the newest whole update

    async def send(self, **message: Any) -> None:
        await self.ws.send_str(json.dumps(message))

    async def receive(self, timeout: float) -> dict[str, Any]:
        """The next frame, a patch that follows the view held as its update; kept in
        `seen`."""
        msg = await self.ws.receive(timeout=timeout)
        assert msg.type == aiohttp.WSMsgType.TEXT, f"socket ended: {msg}"
        frame: dict[str, Any] = json.loads(msg.data)
        if frame["type"] == "patch":
            frame = await self._follow(frame)
        elif frame["type"] == "update":
            self.held[frame["table_id"]] = frame
        self.seen.append(frame)
        return frame

    async def _follow(self, patch: dict[str, Any]) -> dict[str, Any]:
        held = self.held.get(patch["table_id"])
        if held is not None and patch["version"] <= held["version"]:
            return patch
        if held is None or held["seat"] != patch["seat"] or \
                held["version"] != patch["previous"]:
            await self.send(type="watch", table_id=patch["table_id"],
                            version=None if held is None else held["version"])
            return patch
        view = viewpatch.apply(copy.deepcopy(held["view"]), patch["patch"])
        update = {**{k: v for k, v in patch.items() if k != "patch"}, "type": "update",
                  "view": view, "reset": False, "patched": True}
        self.held[patch["table_id"]] = update
        return update

    async def next(self, kind: str, timeout: float = 30, **match: Any) -> dict[str, Any]:
        """The next frame of type `kind` whose fields equal `match`."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind} {match}; saw {self.seen[-6:]}"
            frame = await self.receive(left)
            if frame["type"] == kind and all(frame.get(k) == v for k, v in match.items()):
                return frame  # type: ignore[no-any-return]

    async def command(self, id: str, move: dict[str, Any], table_id: str = "",
                      **extra: Any) -> dict[str, Any]:
        await self.send(type="command", id=id, table_id=table_id, command=move, **extra)
        return await self.next("outcome", id=id)

    async def watch_when_known(self, table: str, timeout: float = 60) -> dict[str, Any]:
        """The first update of `table`, watched again while the gateway does not know it
        yet (a table just created reaches the gateway through the views service)."""
        deadline = time.monotonic() + timeout
        while True:
            await self.send(type="watch", table_id=table)
            while True:
                frame = await self.receive(10)
                if frame["type"] == "update" and frame["table_id"] == table:
                    return frame  # type: ignore[no-any-return]
                if frame["type"] == "error" and frame["code"] == "unknown_table":
                    break
            assert time.monotonic() < deadline, f"the gateway never saw {table}"
            await asyncio.sleep(0.2)


async def connect(session: aiohttp.ClientSession, url: str, player: str,
                  roles: tuple[str, ...] = ()) -> Client:
    """A client said hello and welcomed as `player`."""
    client = Client(await session.ws_connect(f"{url}ws"))
    await client.send(type="hello", v=2, token=token(player, roles=roles))
    await client.next("welcome")
    return client
