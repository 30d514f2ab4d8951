"""Smoke runs of the benchmark commands (tools/bench) at a tiny size, so that none can rot:
each runs its own `python -m tools.bench.<name>` in a subprocess, all of a file's at once
(their waits overlap), and must end with exit status 0 having printed its figures. What a
figure says is never checked (no timed tests, docs/capacity.md): only that it is there."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NUMBER = r"[0-9][0-9,.]*"


@dataclass(frozen=True)
class Smoke:
    bench: str  # tools.bench.<bench>
    args: tuple[str, ...]
    figures: tuple[str, ...]  # regular expressions, each to be found in the output

    @property
    def id(self) -> str:
        return f"{self.bench} {' '.join(self.args)}"


class Runs:
    """Every smoke run of a list, started at once; `result` waits for one of them."""

    def __init__(self, smokes: list[Smoke], env: dict[str, str] | None = None,
                 timeout: float = 600) -> None:
        self.timeout = timeout
        self.started = time.monotonic()
        self.procs: dict[str, subprocess.Popen[str]] = {}
        for smoke in smokes:
            self.procs[smoke.id] = subprocess.Popen(
                [sys.executable, "-m", f"tools.bench.{smoke.bench}", *smoke.args], cwd=ROOT,
                env=dict(os.environ, **(env or {})), stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                start_new_session=True)  # its group holds the services it starts

    def result(self, smoke: Smoke) -> str:
        proc = self.procs[smoke.id]
        left = max(1.0, self.timeout - (time.monotonic() - self.started))
        try:
            output, _ = proc.communicate(timeout=left)
        except subprocess.TimeoutExpired:
            _kill(proc)
            output, _ = proc.communicate()
            raise AssertionError(f"{smoke.id}: not done in {self.timeout:.0f} s\n"
                                 f"{output[-3000:]}") from None
        return output

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                _kill(proc)
                proc.communicate()


def _kill(proc: subprocess.Popen[str]) -> None:
    """The bench and the services it started (its process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def check(runs: Runs, smoke: Smoke) -> None:
    output = runs.result(smoke)
    code = runs.procs[smoke.id].returncode
    assert code == 0, f"{smoke.id}: exit status {code}\n{output[-3000:]}"
    missing = [f for f in smoke.figures if not re.search(f, output)]
    assert not missing, f"{smoke.id}: no figure matching {missing}\n{output[-3000:]}"


def collected(request: pytest.FixtureRequest) -> list[Smoke]:
    """The smokes of the tests of the requesting module that this session runs (a `-k`
    choosing one starts only that one)."""
    return [item.callspec.params["smoke"] for item in request.session.items
            if item.module is request.module and hasattr(item, "callspec")
            and "smoke" in item.callspec.params]
