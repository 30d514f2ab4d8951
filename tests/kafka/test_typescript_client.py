"""A client in another language plays a whole hand: clients/typescript (Node, types
generated from proto/'s WebSocket schemas) logs in as a guest over HTTP, creates a table
through the WebSocket gateway, fills it with bots and plays its seat until the hand ends,
against the real broker, processor, views, timers and bots."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.kafka.stack import Stack

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "typescript"
NODE, NPM = shutil.which("node"), shutil.which("npm")
pytestmark = [pytest.mark.kafka,
              pytest.mark.skipif(NODE is None or NPM is None, reason="node and npm (20+) are "
                                 "needed for the TypeScript client")]


@pytest.fixture(scope="module")
def built() -> Path:
    """The client compiled (npm ci from its package-lock.json when node_modules is not
    there), its generated types checked against proto/ first."""
    assert NPM is not None
    if not (CLIENT / "node_modules").exists():
        subprocess.run([NPM, "ci", "--no-audit", "--no-fund", "--silent"], cwd=CLIENT,
                       check=True, timeout=300)
    for script in ("gen-check", "build"):
        done = subprocess.run([NPM, "run", "-s", script], cwd=CLIENT, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    return CLIENT / "dist" / "play-hand.js"


async def test_the_typescript_client_plays_a_whole_hand_through_the_gateway(
        built: Path, guest_stack: Stack) -> None:
    assert NODE is not None
    done = subprocess.run([NODE, "--experimental-websocket", str(built), guest_stack.url,
                           "north-sultan"], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("logged in as node-"), done.stdout
    assert lines[-1].startswith("hand over: "), done.stdout
    assert "my move: draw" in lines and "my move: discard" in lines, done.stdout
