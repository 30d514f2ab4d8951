"""Starting a service: no broker is a JSON line per retry (with backoff), never a
traceback, and SIGTERM ends the wait cleanly; a taken metrics port is one JSON line."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from services.common.ports import free_port
from tests.kafka.support import ROOT


@pytest.mark.parametrize("service", ["processor", "timers", "bots", "leaderboards", "replays",
                                     "gateway"])
def test_no_broker_is_a_json_line_per_retry_and_sigterm_ends_the_wait(service: str) -> None:
    env = dict(os.environ, OKEY_GATEWAY_SECRET="s" * 32)
    proc = subprocess.Popen(
        [sys.executable, "-m", f"services.{service}", "--bootstrap",
         f"127.0.0.1:{free_port()}", "--metrics-port", "0"], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + 60
    while sum('"broker_unreachable"' in line for line in seen) < 2:  # two retries, then stop
        assert time.monotonic() < deadline and proc.poll() is None, seen
        seen.append(proc.stdout.readline())
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    out = "".join(seen) + out
    assert proc.returncode == 0, err
    assert err == ""
    lines = [json.loads(line) for line in out.splitlines()]  # every line is JSON
    retries = [line for line in lines if line["event"] == "broker_unreachable"]
    assert len(retries) >= 2
    assert [r["attempt"] for r in retries] == list(range(1, len(retries) + 1))
    assert all(r["retry_in_s"] > 0 for r in retries)
    assert "Traceback" not in out
    assert lines[-1]["event"] == "stopped_before_connecting"
    # one line per attempt: nothing else (aiokafka's own connection errors) repeats it
    assert {line["event"] for line in lines} == {"broker_unreachable",
                                                 "stopped_before_connecting"}


def test_a_taken_metrics_port_is_one_json_line_and_exit_status_1() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "services.bots", "--metrics-port",
                               str(port), "--bootstrap", f"127.0.0.1:{free_port()}"],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["event"] for line in lines] == ["metrics_port_unavailable"]
    assert lines[0]["port"] == port and done.stderr == ""
