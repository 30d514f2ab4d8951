"""A service's stop signals (`services.common.runtime`): SIGTERM asks for a graceful stop,
and once the service has stopped a repeated SIGTERM does not kill its teardown (a
supervisor that signals every process again as it waits for each one: `Stack.stop` does)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# a service's shape in a few lines: the signals set up, a stop asked for by SIGTERM, the
# loop closed, and then a late SIGTERM while the interpreter is still tearing down
SCRIPT = textwrap.dedent("""
    import asyncio, os, signal, sys, time
    from services.common import runtime

    async def serve(release):
        loop = asyncio.get_running_loop()
        stopped = asyncio.Event()
        runtime.on_stop_signals(loop, stopped.set)
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(stopped.wait(), 5)
        print("stopped gracefully", flush=True)
        if release:
            runtime.after_stop_signals(loop)

    asyncio.run(serve(sys.argv[1] == "release"))
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.2)
    print("teardown done", flush=True)
""")


def _run(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SCRIPT, mode], cwd=ROOT, text=True,
                          capture_output=True, timeout=60)


def test_a_sigterm_after_the_stop_does_not_kill_the_teardown() -> None:
    done = _run("release")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["stopped gracefully", "teardown done"]


def test_without_releasing_the_signals_a_late_sigterm_kills_the_teardown() -> None:
    """What `after_stop_signals` prevents: closing the loop gives SIGTERM its default."""
    done = _run("keep")
    assert done.returncode == -15
    assert done.stdout.splitlines() == ["stopped gracefully"]
