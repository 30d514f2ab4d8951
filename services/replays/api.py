"""The replays service's HTTP API (aiohttp).

    GET /tables?house=&player=&status=&since=&until=&limit=&as=   the directory, newest first
    GET /tables/{table}?as=                                        one entry
    GET /tables/{table}/events?as=                                 its events as ndjson
    GET /tables/{table}/state?at=SEQ|hand=N&as=&format=json|text   the table at a step
    GET /tables/{table}/views?from=SEQ&to=SEQ&as=                  its views, step by step, as
                                                                   the views contract sends them
    GET /tables/{table}/history?as=                                its hand history in words
    GET /status                                                    tables, lag, settings

`as` is who looks: `public` (the default: spectators), a seat `0`-`3`, or `server`.
Server visibility (the deal, every rack, the seeds, which seats are bots) is refused unless
the operator started the service with the auditor flag. A seat's view of a table still
being played is refused too (anyone could ask for any seat's rack in a live game); once its
match is over, any seat's replay is served.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgspec
from aiohttp import web

from okey101.app.replays.directory import (
    TableEntry,
    is_listed,
    offset_for,
    parse_time,
    public_entry,
)
from okey101.app.replays.history import history
from okey101.app.replays.render import render
from okey101.app.replays.replay import PUBLIC, SERVER, events_as, replay_step, view_frames
from okey101.errors import InfrastructureFault, MalformedInput
from okey101.table import messages as E
from services.common.http import json_errors
from services.replays import metrics
from services.replays.reading import Readers, TableLog


class Replays(Protocol):
    """What the API reads of the service (services/replays/app.py)."""

    auditor: bool
    directory: str
    events: str
    entries: dict[str, TableEntry]
    owned: set[int]
    readers: Readers

    def partition_lag(self, partition: int) -> tuple[int, float] | None: ...


SERVICE: web.AppKey[Replays] = web.AppKey("service")
CACHE: web.AppKey[OrderedDict[tuple[str, int, int | None], TableLog]] = web.AppKey("cache")
CACHED = 32  # finished tables' logs kept
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Refused(Exception):
    """A request the service will not answer: its HTTP status and one line why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def build(service: Replays) -> web.Application:
    app = web.Application(middlewares=[json_errors, _errors])
    app[SERVICE] = service
    app[CACHE] = OrderedDict()
    app.router.add_get("/tables", list_tables)
    app.router.add_get("/tables/{table}", get_table)
    app.router.add_get("/tables/{table}/events", get_events)
    app.router.add_get("/tables/{table}/state", get_state)
    app.router.add_get("/tables/{table}/views", get_views)
    app.router.add_get("/tables/{table}/history", get_history)
    app.router.add_get("/status", get_status)
    return app


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    route = request.match_info.route.resource.canonical if request.match_info.route.resource \
        else "unknown"
    try:
        response = await handler(request)
    except Refused as exc:
        response = _error(exc.status, exc.message)
    except MalformedInput as exc:
        response = _error(400, str(exc))
    except InfrastructureFault as exc:
        response = _error(503, str(exc))
    metrics.REQUESTS.labels(route, str(response.status)).inc()
    return response


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _json(doc: Any, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(body=msgspec.json.encode(doc), content_type="application/json",
                        headers=headers)


# ---------------------------------------------------------------- parameters
def _viewer(request: web.Request, entry: TableEntry | None = None) -> int:
    service = request.app[SERVICE]
    raw = request.query.get("as", "public")
    if raw == "public":
        return PUBLIC
    if raw == "server":
        if not service.auditor:
            raise Refused(403, "as=server shows the deal and every rack: this service runs "
                               "without the auditor flag (--auditor)")
        return SERVER
    if raw in ("0", "1", "2", "3"):
        if entry is not None and entry.status != "over" and not service.auditor:
            raise Refused(403, f"table {entry.table_id!r} is still being played: a seat's "
                               "view is served once its match is over")
        return int(raw)
    raise MalformedInput(f"as={raw!r}: public, server or a seat 0-3")


def _int(request: web.Request, name: str) -> int | None:
    raw = request.query.get(name)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise MalformedInput(f"{name}={raw!r}: not a whole number") from None


def _entry(request: web.Request) -> TableEntry:
    table_id = request.match_info["table"]
    entry = request.app[SERVICE].entries.get(table_id)
    if entry is None:
        raise Refused(404, f"table {table_id!r} is not in the directory")
    return entry


def _lag_headers(request: web.Request, entry: TableEntry) -> dict[str, str]:
    if entry.status == "over":
        return {}
    lag = request.app[SERVICE].partition_lag(entry.partition)
    if lag is None or lag[0] == 0:
        return {}
    return {"Directory-Lag": f"{lag[0]} events on partition {entry.partition}; the newest "
                             f"indexed was written {lag[1]} s ago"}


# ---------------------------------------------------------------- handlers
async def list_tables(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    q = request.query
    viewer = _viewer(request)
    if viewer not in (PUBLIC, SERVER):
        raise MalformedInput("the directory is listed as=public or as=server")
    since = parse_time(q["since"], "since") if "since" in q else None
    until = parse_time(q["until"], "until") if "until" in q else None
    limit = _int(request, "limit") or 100
    if not 1 <= limit <= 10_000:
        raise MalformedInput(f"limit={limit}: 1-10000")
    public = viewer == PUBLIC
    found = [e for e in service.entries.values()
             if is_listed(e, house=q.get("house"), player=q.get("player"),
                          status=q.get("status"), since=since, until=until, public=public)]
    found.sort(key=lambda e: (-e.created_at, e.table_id))
    shown = [public_entry(e) if public else e for e in found[:limit]]
    return _json({"tables": shown, "count": len(found)})


async def get_table(request: web.Request) -> web.Response:
    entry = _entry(request)
    viewer = _viewer(request)
    if viewer not in (PUBLIC, SERVER):
        raise MalformedInput("an entry is shown as=public or as=server")
    return _json(public_entry(entry) if viewer == PUBLIC else entry,
                 _lag_headers(request, entry))


async def _read(request: web.Request, entry: TableEntry, last: int | None = None
                ) -> TableLog:
    """The table's events, from its first offset up to `last` (its last by default).
    A finished table's log no longer changes: the last few read are kept, so stepping
    through a game reads it once."""
    service = request.app[SERVICE]
    cache = request.app[CACHE]
    key = (entry.table_id, entry.last_offset, last)
    log = cache.get(key)
    if log is not None:
        cache.move_to_end(key)
        return log
    started = time.perf_counter()
    log = await service.readers.read(service.events, entry, last)
    metrics.REPLAY.observe(time.perf_counter() - started)
    if entry.status == "over":
        cache[key] = log
        while len(cache) > CACHED:
            cache.popitem(last=False)
    return log


async def get_events(request: web.Request) -> web.Response:
    entry = _entry(request)
    viewer = _viewer(request, entry)
    log = await _read(request, entry)
    lines = [E.encode(e) for e in events_as(log.events, viewer)]
    body = b"\n".join(lines) + b"\n" if lines else b""
    headers = _lag_headers(request, entry)
    if log.skipped:
        headers["Skipped-Records"] = ", ".join(str(s.offset) for s in log.skipped)
    return web.Response(body=body, content_type="application/x-ndjson", headers=headers)


async def get_state(request: web.Request) -> web.Response:
    entry = _entry(request)
    viewer = _viewer(request, entry)
    at, hand = _int(request, "at"), _int(request, "hand")
    log = await _read(request, entry, offset_for(entry, at, hand))
    step = replay_step(entry.table_id, log.events, viewer, at=at, hand=hand,
                       skipped=log.skipped, table_last=entry.last_seq)
    headers = _lag_headers(request, entry)
    if request.query.get("format", "json") == "text":
        note = f"note: the directory lags: {headers['Directory-Lag']}\n" if headers else ""
        return web.Response(text=note + render(step) + "\n", headers=headers)
    return _json(step, headers)


async def get_views(request: web.Request) -> web.Response:
    """One record a line: the view at `from` whole, then a patch a step to `to`."""
    entry = _entry(request)
    viewer = _viewer(request, entry)
    start, end = _int(request, "from"), _int(request, "to")
    log = await _read(request, entry, offset_for(entry, end, None) if end is not None
                      else None)
    got = view_frames(entry.table_id, log.events, viewer, start, end)
    body = b"\n".join(got.frames) + b"\n" if got.frames else b""
    headers = _lag_headers(request, entry)
    headers["Steps"] = f"{got.first}-{got.last}"
    if got.stopped:
        headers["Stopped"] = got.stopped
    if log.skipped:
        headers["Skipped-Records"] = ", ".join(str(s.offset) for s in log.skipped)
    return web.Response(body=body, content_type="application/x-ndjson", headers=headers)


async def get_history(request: web.Request) -> web.Response:
    entry = _entry(request)
    viewer = _viewer(request, entry)
    log = await _read(request, entry)
    return web.Response(text="\n".join(history(log.events, viewer)) + "\n",
                        headers=_lag_headers(request, entry))


async def get_status(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    partitions = []
    for partition in sorted(service.owned):
        lag = service.partition_lag(partition)
        if lag is not None:
            partitions.append({"partition": partition, "lag_events": lag[0],
                               "newest_indexed_age_seconds": lag[1]})
    return _json({"tables": len(service.entries), "directory": service.directory,
                  "events": service.events, "auditor": service.auditor,
                  "partitions": partitions})
