"""Every HTTP API answers as its OpenAPI document says, on the real broker: schemathesis
(its CLI, as an API team would run it) sends generated and edge-case inputs to the running
gateway, leaderboards and replays services and to a health port; no answer may be a 5xx,
and every status, content type and body must be one the document lists.

The services run on a prefix of their own, with one recorded match played through the
processor, so the directory, a board and an account's page have something in them; the
documents give schemathesis that table and that account as examples of the path
parameters (added to a copy here: the published documents stay generic)."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import pytest

from services.common.kafka import provision
from services.common.ports import free_port
from tests.kafka.stack import SECRET
from tests.kafka.support import ROOT, ProcessorProcess, publish, record_timeout_match

pytestmark = pytest.mark.kafka

PROTO = ROOT / "proto"
CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,"
          "response_schema_conformance")
EXAMPLES = 10  # generated cases an operation, besides the coverage phase's edge cases


class Service(ProcessorProcess):
    def __init__(self, bootstrap: str, prefix: str, name: str, *args: str) -> None:
        super().__init__(bootstrap, prefix, f"{prefix}-{name}", name,
                         env={"OKEY_GATEWAY_SECRET": SECRET})
        self.metrics = free_port()
        self.args = [sys.executable, "-m", f"services.{name}", "--bootstrap", bootstrap,
                     "--prefix", prefix, "--group", f"{prefix}-{name}",
                     "--metrics-port", str(self.metrics), *args]


class Running(msgspec.Struct, kw_only=True):
    urls: dict[str, str]  # document -> base URL
    table_id: str
    account: str
    house: str
    token: str


async def _ready(url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(url) as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.3)
    raise AssertionError(f"{url} never answered 200")


async def _until(url: str, found: Any, timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            async with session.get(url) as r:
                if r.status == 200:
                    body = await r.json()
                    if found(body):
                        return body
            await asyncio.sleep(0.5)
    raise AssertionError(f"{url}: not there in {timeout}s")


async def _start(bootstrap: str, prefix: str, procs: list[Service]) -> Running:
    await provision(bootstrap, prefix)
    ports = {"gateway": free_port(), "leaderboards": free_port(), "replays": free_port()}
    procs += [
        Service(bootstrap, prefix, "processor", "--allow-stacked-deals"),
        Service(bootstrap, prefix, "views"),
        Service(bootstrap, prefix, "gateway", "--port", str(ports["gateway"]),
                "--guest-login", "--leaderboards-url",
                f"http://127.0.0.1:{ports['leaderboards']}"),
        Service(bootstrap, prefix, "leaderboards", "--http-port", str(ports["leaderboards"])),
        Service(bootstrap, prefix, "replays", "--http-port", str(ports["replays"])),
    ]
    for proc in procs:
        proc.start()
    house = "okeygg"  # lists its bots on its board, so the account has a page
    table_id = f"{prefix}-t"
    commands, _ = record_timeout_match("recorded", 7, house, 7)
    commands = [msgspec.structs.replace(c, table_id=table_id,
                                        command_id=f"{table_id}-{c.command_id}")
                for c in commands]
    await publish(bootstrap, prefix, commands)
    for proc in procs:
        await _ready(f"http://127.0.0.1:{proc.metrics}/readyz")
    base = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    await _until(f"{base['replays']}/tables/{table_id}", lambda e: e["status"] == "over")
    board = await _until(f"{base['leaderboards']}/houses/{house}/board",
                         lambda b: b["rows"])
    async with aiohttp.ClientSession() as session, session.post(
            f"{base['gateway']}/api/guest", json={"name": "fuzz"}) as r:
        token = (await r.json())["token"]
    return Running(urls={"openapi-gateway.json": base["gateway"],
                         "openapi-leaderboards.json": base["leaderboards"],
                         "openapi-replays.json": base["replays"],
                         "openapi-health.json": f"http://127.0.0.1:{procs[-1].metrics}"},
                   table_id=table_id, account=board["rows"][0]["account"], house=house,
                   token=token)


@pytest.fixture(scope="module")
def running(kafka_bootstrap: str) -> Iterator[Running]:
    prefix = f"oa{uuid.uuid4().hex[:6]}"
    procs: list[Service] = []
    try:
        yield asyncio.run(_start(kafka_bootstrap, prefix, procs))
    finally:
        for proc in procs:
            proc.terminate()


def _with_examples(doc: dict[str, Any], examples: dict[str, str]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    for path in out["paths"].values():
        for op in path.values():
            for param in op.get("parameters", []):
                if param["in"] == "path" and param["name"] in examples:
                    param["examples"] = {"known": {"value": examples[param["name"]]}}
    return out


def _schemathesis(doc: dict[str, Any], url: str, tmp_path: Path, *args: str
                  ) -> subprocess.CompletedProcess[str]:
    spec = tmp_path / "openapi.json"
    spec.write_text(json.dumps(doc))
    binary = Path(sys.executable).parent / "schemathesis"
    return subprocess.run(
        [str(binary), "run", str(spec), "--url", url, "--checks", CHECKS,
         "--phases", "examples,coverage,fuzzing", "--max-examples", str(EXAMPLES),
         "--seed", "101", "--workers", "1", "--no-color", "--request-timeout", "20", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name", ["openapi-leaderboards.json", "openapi-replays.json",
                                  "openapi-health.json", "openapi-gateway.json"])
def test_every_generated_request_gets_an_answer_its_openapi_document_lists(
        running: Running, name: str, tmp_path: Path) -> None:
    doc = _with_examples(json.loads((PROTO / name).read_text()),
                         {"table": running.table_id, "account": running.account,
                          "house": running.house})
    args: tuple[str, ...] = ()
    if name == "openapi-gateway.json":
        # a real token, so the solver's inputs get past the token check; its bucket
        # (5 a second) answers 429 beyond that, which the document lists
        args = ("-H", f"Authorization: Bearer {running.token}")
    done = _schemathesis(doc, running.urls[name], tmp_path, *args)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "No issues found" in done.stdout or "passed" in done.stdout, done.stdout[-3000:]


def test_schemathesis_fails_a_response_its_document_does_not_list(
        running: Running, tmp_path: Path) -> None:
    doc = json.loads((PROTO / "openapi-leaderboards.json").read_text())
    board = doc["paths"]["/houses/{house}/board"]["get"]
    del board["responses"]["404"]  # an unknown house is answered 404
    doc["paths"] = {"/houses/{house}/board": {"get": board}}
    done = _schemathesis(doc, running.urls["openapi-leaderboards.json"], tmp_path)
    assert done.returncode != 0
    assert "404" in done.stdout

