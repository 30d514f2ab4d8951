"""Every HTTP endpoint of every service answers a malformed request with a JSON error
(400 naming the problem for a bad body; aiohttp's own 404, 405, 413 in JSON), never a 500
(issue 26, item 4): the gateway's /api/*, the leaderboards', the replays' and every
service's /healthz, /readyz, /metrics (services.common.http)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from okey101.app.gateway import identity
from services.common.http import HealthServer
from services.gateway.app import Gateway
from services.gateway.settings import Settings
from services.leaderboards import api as boards_api
from services.leaderboards.app import Leaderboards
from services.replays import api as replays_api
from services.replays.app import Replays

SECRET = "s" * 40
DEEP = b'{"kind":"opening","rack":' + b"[" * 20_000 + b"]" * 20_000 + b"}"
BODIES = {
    "20,000 deep": DEEP,
    "deep in a string's neighbour": b'{"name":"[[[[", "x":' + b"[" * 5_000 + b"]" * 5_000 + b"}",
    "not JSON": b"{not json",
    "not UTF-8": b'{"name": "\xff\xfe"}',
    "an array": b"[1, 2]",
    "a number": b"12",
    "empty": b"",
}


def _gateway() -> web.Application:
    return Gateway(Settings(bootstrap="127.0.0.1:1", secret=SECRET, guest_login=True)).web_app()


def _leaderboards() -> web.Application:
    return boards_api.build(Leaderboards("127.0.0.1:1"))


def _replays() -> web.Application:
    return replays_api.build(Replays("127.0.0.1:1"))


def _health() -> web.Application:
    return HealthServer(None, None).app


APPS: dict[str, Callable[[], web.Application]] = {
    "gateway": _gateway, "leaderboards": _leaderboards, "replays": _replays,
    "health": _health}


@pytest.fixture(params=sorted(APPS))
async def client(request: pytest.FixtureRequest) -> AsyncIterator[TestClient[web.Request,
                                                                              web.Application]]:
    app = APPS[request.param]()
    async with TestClient(TestServer(app)) as c:
        yield c


def _routes(app: web.Application) -> list[tuple[str, str]]:
    out = []
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource is not None else {}
        path = info.get("path") or info.get("formatter")
        if "prefix" in info:  # the gateway's static files
            path = f"{info['prefix']}/table.css"
        if path and route.method in ("GET", "POST"):
            path = path.replace("{house}", "okeygg").replace("{account}", "ayse") \
                .replace("{table}", "t1")
            out.append((route.method, path))
    return out


async def _json_error(response: object, status: int | tuple[int, ...]) -> dict[str, object]:
    from aiohttp import ClientResponse
    assert isinstance(response, ClientResponse)
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status in statuses, (response.url, response.status,
                                         await response.text())
    assert response.content_type == "application/json", (response.url, await response.text())
    body = await response.json()
    assert isinstance(body, dict) and body.get("error"), body
    return body


@pytest.mark.parametrize("body", sorted(BODIES))
async def test_a_malformed_body_to_any_endpoint_of_any_service_is_a_json_error_never_500(
        client: TestClient[web.Request, web.Application], body: str) -> None:
    headers = {"Content-Type": "application/json"}
    token = identity.mint(SECRET, "ayse", int(time.time()))
    for method, path in _routes(client.app):
        if method == "POST":
            response = await client.post(path, data=BODIES[body], headers={
                **headers, "Authorization": f"Bearer {token}"})
            error = await _json_error(response, 400)
            assert error["code"] == "malformed"
        else:  # a body where none is read: the GET is answered, a POST refused in JSON
            response = await client.post(path, data=BODIES[body], headers=headers)
            await _json_error(response, 405)


@pytest.mark.parametrize("body,named", [
    (b'{"kind":"opening","rack":"R5","okey":"R1"}', "rack"),
    (b'{"kind":"opening","rack":[5],"okey":"R1"}', "rack"),
    (b'{"kind":7}', "kind"),
    (b'{"kind":"opening","rack":["Q3"],"okey":"R1"}', "Q3"),
    (b'{"kind":"opening","rack":["R5"],"okey":"R1","house":"nowhere"}', "nowhere"),
    (b'{"kind":"opening","rack":' + b'["R5"' + b',"R5"' * 30 + b'],"okey":"R1"}', "22"),
])
async def test_a_solve_of_the_wrong_types_is_a_400_naming_the_field(body: bytes,
                                                                   named: str) -> None:
    token = identity.mint(SECRET, "ayse", int(time.time()))
    async with TestClient(TestServer(_gateway())) as c:
        response = await c.post("/api/solve", data=body,
                                headers={"Authorization": f"Bearer {token}"})
        error = await _json_error(response, 400)
        assert named in str(error["error"])


async def test_a_guest_name_of_the_wrong_type_is_a_400() -> None:
    async with TestClient(TestServer(_gateway())) as c:
        error = await _json_error(await c.post("/api/guest", data=b'{"name":[1]}'), 400)
        assert "name" in str(error["error"])
        assert (await c.post("/api/guest", data=b'{"name":"ayse"}')).status == 200


async def test_a_body_past_the_size_limit_and_an_unknown_path_are_json_errors(
        client: TestClient[web.Request, web.Application]) -> None:
    await _json_error(await client.get("/no/such/path"), 404)
    if any(method == "POST" for method, _ in _routes(client.app)):
        response = await client.post("/api/guest", data=b'{"name":"' + b"x" * 100_000 + b'"}')
        await _json_error(response, 413)
