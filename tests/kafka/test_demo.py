"""The main job, `make demo`, in its short form against the real broker."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys

from okey101.app import topics
from okey101.table import messages as E
from tests.kafka.support import ROOT, read_all


async def test_the_short_demo_plays_every_house_to_the_end_and_bots_are_never_rejected(
        kafka_bootstrap: str) -> None:
    env = dict(os.environ, KAFKA_BOOTSTRAP=kafka_bootstrap)
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "services.demo", "--hands", "1",
                         "--timeout", "300"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    for house in ("north-sultan", "okeygg", "classic", "okey-oyna"):
        assert f"== {house} (" in out
    assert out.count("place 1:") >= 4
    prefix = re.search(r"topics (demo[0-9a-f]+)\.\*", out)
    assert prefix is not None
    outcomes = [E.outcome_decoder.decode(v) for v in
                await read_all(kafka_bootstrap, topics.OUTCOMES.name(prefix.group(1)))]
    bot_moves = [o for o in outcomes if o.command_id.startswith("bot-")]
    assert len(bot_moves) > 100
    rejected = [o for o in bot_moves if not o.accepted]
    assert rejected == [], rejected[:3]
    # it ends by saying where its tables can be replayed, with a command that works
    example = re.search(r"\.venv/bin/okey101 (replay .+)$", out, re.MULTILINE)
    assert example is not None, out[-1500:]
    replayed = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "services.cli", *example.group(1).split()],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert replayed.returncode == 0, replayed.stderr
    assert "as seat 0" in replayed.stdout and "melds on the table" in replayed.stdout
