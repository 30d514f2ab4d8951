"""The two commands in the states a newcomer meets (issue 29): the demo run twice in a
row; after a test run left hundreds of partitions on the broker and the broker was killed
with kill -9 (a stale pid file, lock files left); with the port taken by another program;
against a running broker named by KAFKA_BOOTSTRAP.

Each test runs a broker of its own (tools/kafka/broker.sh with KAFKA_PORT on free ports
and KAFKA_CACHE_DIR in a temporary folder; the jars are the project's cached ones), never
the developer's, and stops it at the end. The demo is shortened to one house and one hand
(`--house north-sultan --hands 1`). Cost: five broker starts and four short demos, 352 s
on the shared two-core box at a load average of about 20 (twice in a row 144 s, kill -9
with leftovers 124 s, KAFKA_BOOTSTRAP 60 s, the taken ports 12 s). Marked `newcomer` (and
`kafka`): `-m "not newcomer"` leaves it out.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from services.common.kafka import provision
from services.common.ports import free_ports
from services.demo.__main__ import BOARDS_PORT, SERVICES
from tests.kafka.support import ROOT

pytestmark = pytest.mark.newcomer

BROKER_SH = ROOT / "tools" / "kafka" / "broker.sh"
LEFTOVER_PREFIXES = 9  # 9 x 11 topics x 8 partitions: 792 partitions, as tests leave them


@dataclass
class Scratch:
    """A broker of the test's own: its port, its cache dir, the environment naming it."""

    port: int
    cache: Path
    env: dict[str, str]

    def sh(self, *args: str, env: dict[str, str] | None = None,
           timeout: float = 400) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(BROKER_SH), *args], env=env or self.env,
                              capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    def demo(self, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        base = free_ports(max(len(SERVICES), BOARDS_PORT + 1))
        return subprocess.run(
            [sys.executable, "-m", "services.demo", "--house", "north-sultan", "--hands", "1",
             "--timeout", "300", "--metrics-port-base", str(base)],
            cwd=ROOT, env=env or self.env, capture_output=True, text=True, timeout=600,
            stdin=subprocess.DEVNULL)

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def pid(self) -> int | None:
        found = self.sh("status")
        match = re.search(r"\(pid (\d+)\)", found.stderr)
        return int(match.group(1)) if found.returncode == 0 and match else None


def _environment(**more: str) -> dict[str, str]:
    """The caller's environment without any broker named, plus `more`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("KAFKA_BOOTSTRAP", "OKEY_BOOTSTRAP", "KAFKA_PORT",
                        "KAFKA_CONTROLLER_PORT", "KAFKA_CACHE_DIR")}
    return env | {"KAFKA_HEAP_OPTS": "-Xms256m -Xmx512m", "PYTHONUNBUFFERED": "1"} | more


def _cached_jars(cache: Path) -> None:
    """The project's jars (fetched once by broker.sh) for the scratch broker: no Maven."""
    for libs in (Path(os.environ.get("KAFKA_CACHE_DIR", ROOT / ".cache" / "kafka")) / "libs",
                 ROOT / ".cache" / "kafka" / "libs"):
        if (libs / ".pom.sha256").is_file():
            (cache / "libs").symlink_to(libs.resolve())
            return


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Scratch]:
    cache = tmp_path / "kafka"
    cache.mkdir()
    _cached_jars(cache)
    port = free_ports(2)  # the client port and the controller's (port + 1)
    box = Scratch(port, cache, _environment(KAFKA_PORT=str(port), KAFKA_CACHE_DIR=str(cache)))
    try:
        yield box
    finally:
        box.sh("stop", timeout=120)
        shutil.rmtree(cache, ignore_errors=True)


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout


def _demo_prefix(out: str) -> str:
    found = re.search(r"topics (demo[0-9a-f]+)\.\*", out)
    assert found is not None, out[-1500:]
    return found.group(1)


def _played(out: str) -> None:
    assert "== north-sultan (" in out and "place 1:" in out
    audit = re.search(r"(\d+) hands verified, (\d+) failed, (\d+) flags found \(of (\d+)", out)
    assert audit is not None and audit.group(1) == audit.group(4) and audit.group(2) == "0"


def _partition_dirs(cache: Path, prefix: str) -> list[Path]:
    return list((cache / "data").glob(f"{prefix}.*-[0-9]*"))


def _held(status: str) -> tuple[int, int]:
    found = re.search(r"holds (\d+) topics, (\d+) partitions", status)
    assert found is not None, status
    return int(found.group(1)), int(found.group(2))


def test_the_demo_runs_twice_in_a_row_on_the_broker_kafka_port_names(scratch: Scratch) -> None:
    for run in (1, 2):
        out = _ok(scratch.demo())
        assert f"starting the local Kafka broker on {scratch.bootstrap}" in out, run
        _played(out)
        # the services reached the broker the script started on KAFKA_PORT: its data
        # folder holds the demo's topics
        assert _partition_dirs(scratch.cache, _demo_prefix(out)), run
        assert scratch.pid() is None  # the demo stops the broker it started


def test_the_demo_starts_a_broker_killed_with_kill_9_that_holds_a_test_runs_leftovers(
        scratch: Scratch) -> None:
    _ok(scratch.sh("start"))

    async def leave() -> None:
        for i in range(LEFTOVER_PREFIXES):
            await provision(scratch.bootstrap, f"left{i}x", wait_s=120)

    asyncio.run(leave())
    topics, partitions = _held(scratch.sh("status").stderr)
    assert topics >= 11 * LEFTOVER_PREFIXES and partitions >= 88 * LEFTOVER_PREFIXES
    assert re.search(r"data: \S+ in .* \((\d{3,}) partition directories\)",
                     scratch.sh("status").stderr)
    pid = scratch.pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    while Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid):
        time.sleep(0.05)
    # the crash's leftovers: the pid file, here naming a live process that is no broker,
    # and the lock files (the script's, Kafka's in the data folder)
    stranger = subprocess.Popen(["sleep", "600"])
    try:
        (scratch.cache / "broker.pid").write_text(f"{stranger.pid}\n")
        assert (scratch.cache / "broker.lock").exists()
        assert (scratch.cache / "data" / ".lock").exists()
        out = _ok(scratch.demo())
        assert f"starting the local Kafka broker on {scratch.bootstrap}" in out
        _played(out)
        assert stranger.poll() is None  # the script never took it for its broker
    finally:
        stranger.kill()
        stranger.wait()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "zombie"


@pytest.mark.parametrize("taken", ["client", "controller"])
def test_a_port_taken_by_another_program_is_named_with_the_variable_to_set(
        scratch: Scratch, taken: str) -> None:
    port = scratch.port + (taken == "controller")
    with socket.socket() as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
        started = scratch.sh("start")
        demo = scratch.demo()
    for done in (started, demo):
        assert done.returncode == 1, done.stdout + done.stderr
        said = done.stdout + done.stderr
        assert "Traceback" not in said
        if taken == "client":
            assert f"port {port} on 127.0.0.1 is taken by another program" in said
            assert "Set KAFKA_PORT to a free port" in said
            assert f"KAFKA_BOOTSTRAP=127.0.0.1:{port}" in said
        else:
            assert f"the controller port {port} on 127.0.0.1 is taken" in said
            assert "KAFKA_CONTROLLER_PORT" in said
    assert "demo failed: the local Kafka broker did not start" in demo.stderr
    assert not (scratch.cache / "data" / "meta.properties").exists()  # nothing was started


def test_the_demo_uses_a_running_broker_named_by_kafka_bootstrap_and_leaves_it_running(
        scratch: Scratch) -> None:
    _ok(scratch.sh("start"))
    pid = scratch.pid()
    # KAFKA_BOOTSTRAP names the broker; a KAFKA_PORT where nothing listens is ignored
    elsewhere = _environment(KAFKA_BOOTSTRAP=scratch.bootstrap, KAFKA_PORT=str(free_ports(2)))
    out = _ok(scratch.demo(elsewhere))
    assert "starting the local Kafka broker" not in out
    _played(out)
    prefix = _demo_prefix(out)
    assert _partition_dirs(scratch.cache, prefix)
    assert scratch.pid() == pid  # not stopped: the demo did not start it
    # what the runs left, reported and cleaned
    topics, _ = _held(_ok_status(scratch.sh("status", env=elsewhere)))
    assert topics >= 11
    cleaned = scratch.sh("clean-topics")
    assert cleaned.returncode == 0, cleaned.stderr
    assert re.search(r"deleted \d+ topics \(\d+ partitions\)", cleaned.stderr)
    assert _held(scratch.sh("status").stderr) == (0, 0)


def _ok_status(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return done.stderr
