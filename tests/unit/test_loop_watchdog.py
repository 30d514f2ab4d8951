"""A loop that hangs is caught (`services.common.watchdog`, `services.common.runtime`): a
main loop without progress for --stall-seconds makes /readyz 503 and the process exit with
status 1, even when the loop ignores its stop or blocks the event loop; SIGTERM ends a
service within --stop-grace-seconds whatever its loop does. Each process case hangs a loop
on purpose in a real service process (`runtime.serve_settings`, its HTTP endpoint on)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.common import runtime, watchdog
from services.common.lifecycle import Lifecycle
from services.common.ports import free_port
from services.common.settings import ServiceSettings
from services.common.tasks import EXIT_HOLD_S, TASKS

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the pure parts
def test_a_loop_older_than_the_limit_is_stalled_and_a_younger_one_is_not() -> None:
    assert watchdog.stalled({"main": 9.0, "relay": 1.0, "tick": 12.0}, 5.0) == [
        ("tick", 12.0), ("main", 9.0)]
    assert watchdog.stalled({"main": 4.9}, 5.0) == []


def test_a_loop_is_watched_from_its_first_beat() -> None:
    progress = watchdog.Progress()
    assert progress.ages(time.monotonic()) == {}
    progress.beat("main")
    (age,) = progress.ages(time.monotonic() + 10).values()
    assert 9.9 < age < 11
    progress.forget("main")
    assert progress.ages(time.monotonic()) == {}


# ---------------------------------------------------------------- in the event loop
class Hangs(Lifecycle):
    """A service whose main loop beats a few times, then awaits what never comes."""

    def __init__(self, beats: int = 3) -> None:
        super().__init__()
        self.beats = beats
        self.consumer = object()

    async def connect(self) -> None:
        pass

    async def run(self) -> None:
        for _ in range(self.beats):
            self.beat()
            await asyncio.sleep(0.05)
        await asyncio.get_running_loop().create_future()


class Beats(Hangs):
    """A healthy idle service: it beats on every poll until it is stopped."""

    async def run(self) -> None:
        while not self.is_stopping:
            self.beat()
            await asyncio.sleep(0.05)


@pytest.fixture
def no_hard_exit(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The backstop's os._exit would end pytest itself: here it is recorded instead."""
    exits: list[str] = []
    monkeypatch.setattr(watchdog, "_exit_now", lambda event, **_: exits.append(event))
    watchdog.PROGRESS.reset()
    TASKS.reset()
    return exits


def _stalls(loop: str) -> float:
    return watchdog.STALLS.labels(loop)._value.get()  # type: ignore[no-any-return]


async def test_a_main_loop_stuck_in_an_await_fails_readiness_and_exits_1(
        no_hard_exit: list[str]) -> None:
    before = _stalls("main")
    service = Hangs()
    running = asyncio.create_task(runtime._run_watched(service, asyncio.Event(), grace=1.0,
                                                       stall_s=0.5))
    while TASKS.unready() is None:
        assert not running.done()
        await asyncio.sleep(0.05)
    assert TASKS.unready() is not None and "main loop stalled: no progress for" in (
        TASKS.unready() or "")
    assert await asyncio.wait_for(running, 30) == 1
    assert _stalls("main") == before + 1
    assert no_hard_exit == []  # the stuck await was cancellable: no backstop needed


async def test_a_loop_that_keeps_beating_is_never_stalled(no_hard_exit: list[str]) -> None:
    stopping = asyncio.Event()
    service = Beats()
    running = asyncio.create_task(runtime._run_watched(service, stopping, grace=1.0,
                                                       stall_s=0.5))
    await asyncio.sleep(2.0)  # four stall limits of polling
    assert TASKS.unready() is None and not running.done()
    stopping.set()
    service.stop()
    assert await asyncio.wait_for(running, 30) == 0


async def test_a_stop_that_the_main_loop_ignores_is_cut_off_after_the_grace_period(
        no_hard_exit: list[str]) -> None:
    stopping = asyncio.Event()
    running = asyncio.create_task(runtime._run_watched(Hangs(), stopping, grace=0.5))
    await asyncio.sleep(0.3)
    stopping.set()
    assert await asyncio.wait_for(running, 30) == 1


# ---------------------------------------------------------------- in a real process
SERVICE = textwrap.dedent("""
    import asyncio, sys, time
    from services.common import runtime
    from services.common.lifecycle import Lifecycle
    from services.common.logs import configure_logging
    from services.common.settings import ServiceSettings

    class Hanging(Lifecycle):
        def __init__(self, mode):
            super().__init__()
            self.mode = mode

        async def connect(self):
            self.consumer = object()

        async def run(self):
            for _ in range(3):
                self.beat()
                await asyncio.sleep(0.05)
            print("hanging", flush=True)
            if self.mode == "blocks":  # the event loop itself stops: only a thread sees it
                time.sleep(600)
            while True:
                try:
                    await asyncio.get_running_loop().create_future()
                except asyncio.CancelledError:
                    if self.mode == "await":
                        raise
                    # "stubborn": swallows its cancellation and awaits again

    configure_logging("info")
    settings = ServiceSettings(bootstrap="127.0.0.1:9", metrics_port=int(sys.argv[2]),
                               stall_seconds=float(sys.argv[3]), stop_grace_seconds=1)
    sys.exit(asyncio.run(runtime.serve_settings(settings, lambda s: Hanging(sys.argv[1]))))
""")


def _start(mode: str, stall_s: float) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", SERVICE, mode, str(port), str(stall_s)],
                               cwd=ROOT, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    assert process.stdout is not None
    for line in process.stdout:
        if line.strip() == "hanging":
            return process, port
    raise AssertionError(f"the service never started: exit {process.wait()}")


def _readyz(port: int) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def _ends(process: subprocess.Popen[str]) -> tuple[int, list[dict[str, Any]]]:
    out, _ = process.communicate(timeout=60)
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return process.returncode, lines


def _events(lines: list[dict[str, Any]]) -> list[str]:
    return [line.get("event", "") for line in lines]


def test_a_service_whose_main_loop_hangs_says_so_on_readyz_and_exits_1() -> None:
    process, port = _start("await", stall_s=1.0)
    try:
        deadline = time.monotonic() + 30
        status, body = _readyz(port)
        while "stalled" not in body.get("reason", "") and time.monotonic() < deadline:
            time.sleep(0.1)
            status, body = _readyz(port)
        assert status == 503 and "main loop stalled: no progress for" in body["reason"], body
        status, lines = _ends(process)
    finally:
        process.kill()
    assert status == 1
    stalled = [line for line in lines if line.get("event") == "loop_stalled"]
    assert stalled and stalled[0]["loop"] == "main", lines
    assert "watchdog_exit" not in _events(lines)  # it stopped in order


def test_a_loop_that_blocks_the_event_loop_is_ended_by_the_watchdog_thread() -> None:
    process, _ = _start("blocks", stall_s=1.0)
    try:
        status, lines = _ends(process)
    finally:
        process.kill()
    assert status == 1
    assert {"loop_stalled", "watchdog_exit"} <= set(_events(lines)), lines


@pytest.mark.parametrize("mode", ["await", "stubborn"])
def test_sigterm_ends_a_service_whose_loop_hangs_within_its_grace_period(mode: str) -> None:
    """With no watchdog (--stall-seconds 0), a stop that the loop never sees: the run is
    cancelled after --stop-grace-seconds; one that swallows its cancellation too is ended
    by the backstop a few seconds later. Either way the exit status is 1, not a hang."""
    process, _ = _start(mode, stall_s=0)
    try:
        process.send_signal(signal.SIGTERM)
        status, lines = _ends(process)
    finally:
        process.kill()
    assert status == 1
    assert "stop_timed_out" in _events(lines), lines
    assert "loop_stalled" not in _events(lines)


def test_the_stop_backstop_ends_a_service_before_kubernetes_or_systemd_kill_it() -> None:
    """The last resort (`exit_later` after the grace, the failure's hold and the cancel's)
    still comes before the orchestrator's SIGKILL, which would lose the exit's log line."""
    grace = ServiceSettings.model_fields["stop_grace_seconds"].default
    last = grace + EXIT_HOLD_S + runtime.CANCEL_HOLD_S + 1
    periods = [doc["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
               for path in sorted((ROOT / "deploy" / "kubernetes" / "base").glob("*.yaml"))
               for doc in yaml.safe_load_all(path.read_text())
               if doc and doc.get("kind") == "Deployment"]
    stops = [float(line.split("=", 1)[1]) for path in (ROOT / "deploy" / "systemd").glob("*")
             for line in path.read_text().splitlines() if line.startswith("TimeoutStopSec=")]
    assert len(periods) >= 9 and len(stops) >= 9
    assert all(last < limit for limit in periods + stops), (last, periods, stops)
