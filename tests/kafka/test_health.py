"""The services' /healthz and /readyz against the real broker: alive at once, ready once
their partitions are assigned and rebuilt, and a SIGTERM ends them cleanly."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp

from services.common.kafka import provision
from services.common.ports import free_ports
from tests.kafka.support import ROOT, fresh_tag

SERVICES = ("processor", "timers", "bots")


async def _status(http: aiohttp.ClientSession, url: str) -> tuple[int, dict[str, object]]:
    try:
        async with http.get(url) as response:
            return response.status, await response.json()
    except aiohttp.ClientError:
        return 0, {}


async def test_each_service_is_alive_then_ready_and_stops_on_sigterm(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    prefix = f"h{fresh_tag()}"
    await provision(kafka_bootstrap, prefix)
    base = free_ports(len(SERVICES))
    procs = {}
    for i, name in enumerate(SERVICES):
        log = tmp_path / f"{name}.log"
        procs[name] = (subprocess.Popen(
            [sys.executable, "-m", f"services.{name}", "--bootstrap", kafka_bootstrap,
             "--prefix", prefix, "--group", f"{prefix}-{name}", "--metrics-port",
             str(base + i)], cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1")), log)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=3)) as http:
            for i, name in enumerate(SERVICES):
                url = f"http://127.0.0.1:{base + i}"
                for _ in range(300):
                    alive, _ = await _status(http, f"{url}/healthz")
                    ready, why = await _status(http, f"{url}/readyz")
                    if ready == 200:
                        break
                    assert ready in (0, 503), (name, ready, why)
                    await asyncio.sleep(0.2)
                assert (alive, ready) == (200, 200), (name, why, procs[name][1].read_text())
                for _ in range(50):  # the lag appears with the first fetch's high watermark
                    async with http.get(f"{url}/metrics") as response:
                        text = await response.text()
                    if 'okey_consumer_lag{partition="0"}' in text:
                        break
                    await asyncio.sleep(0.2)
                assert "okey_ready 1.0" in text and "okey_broker_reachable 1.0" in text
                assert 'okey_consumer_lag{partition="0"}' in text, name
    finally:
        for proc, _ in procs.values():
            proc.send_signal(signal.SIGTERM)
        codes = {name: proc.wait(60) for name, (proc, _) in procs.items()}
    assert codes == dict.fromkeys(SERVICES, 0)
    for name, (_, log) in procs.items():
        events = [json.loads(line)["event"] for line in log.read_text().splitlines()]
        assert events[-1] == f"{name}_stopped", (name, events[-3:])


LATER = {"leaderboards": "okey_standings_lag_records", "replays": "okey_directory_tables",
         "gateway": "okey_gateway_connections"}


async def test_the_read_services_are_alive_then_ready_and_stop_on_sigterm(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    """The leaderboards (rebuild applied), the replays (directory loaded, HTTP up) and the
    gateway (views read, listening): /readyz 200 next to /metrics, their own HTTP APIs on
    their own ports, exit status 0 on SIGTERM with JSON logs ending in `<name>_stopped`."""
    prefix = f"h{fresh_tag()}"
    await provision(kafka_bootstrap, prefix)
    base = free_ports(2 * len(LATER))
    own_port = {"leaderboards": "--http-port", "replays": "--http-port", "gateway": "--port"}
    procs = {}
    for i, name in enumerate(LATER):
        log = tmp_path / f"{name}.log"
        procs[name] = (subprocess.Popen(
            [sys.executable, "-m", f"services.{name}", "--bootstrap", kafka_bootstrap,
             "--prefix", prefix, "--metrics-port", str(base + i), own_port[name],
             str(base + len(LATER) + i)], cwd=ROOT, stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1", OKEY_GATEWAY_SECRET="s" * 32)), log)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=3)) as http:
            for i, (name, metric) in enumerate(LATER.items()):
                url = f"http://127.0.0.1:{base + i}"
                for _ in range(300):
                    alive, _ = await _status(http, f"{url}/healthz")
                    ready, why = await _status(http, f"{url}/readyz")
                    if ready == 200:
                        break
                    assert ready in (0, 503), (name, ready, why)
                    await asyncio.sleep(0.2)
                assert (alive, ready) == (200, 200), (name, why, procs[name][1].read_text())
                async with http.get(f"{url}/metrics") as response:
                    text = await response.text()
                assert "okey_ready 1.0" in text and "okey_broker_reachable 1.0" in text
                assert metric in text, name
                # the service's own HTTP API is where it was
                path = {"leaderboards": "/healthz", "replays": "/status",
                        "gateway": "/healthz"}[name]
                own = f"http://127.0.0.1:{base + len(LATER) + i}{path}"
                status, _ = await _status(http, own)
                assert status == 200, name
    finally:
        for proc, _ in procs.values():
            proc.send_signal(signal.SIGTERM)
        codes = {name: proc.wait(60) for name, (proc, _) in procs.items()}
    assert codes == dict.fromkeys(LATER, 0)
    for name, (_, log) in procs.items():
        lines = log.read_text().splitlines()
        events = [json.loads(line)["event"] for line in lines if line.startswith("{")]
        assert events[-1] == f"{name}_stopped", (name, events[-3:])
        assert "Traceback" not in "\n".join(lines), name
