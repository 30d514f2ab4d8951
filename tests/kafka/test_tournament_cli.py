"""`okey101 tournament schedule|list|cancel` as an operator runs it (a subprocess) against
the real broker and a matchmaker (a subprocess): a schedule is listed open, a cancel lists
it cancelled with its reason, and every bad argument exits 2 with its one line and writes
nothing to the requests topic."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time

from okey101.app import topics
from services.common.kafka import end_offsets
from tests.kafka.support import fresh_tag
from tests.kafka.test_matchmaker import NS, MatchmakerProcess, decisions


async def okey101(bootstrap: str, prefix: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KAFKA_BOOTSTRAP": bootstrap}
    return await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "services.cli", "tournament", *args,
                         "--prefix", prefix], capture_output=True, text=True, env=env,
        timeout=120)


async def listed(bootstrap: str, prefix: str) -> dict[str, dict[str, object]]:
    done = await okey101(bootstrap, prefix, "list", "--house", NS, "--json")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    return {row["tournament_id"]: row for row in rows}


async def requests_end(bootstrap: str, prefix: str) -> dict[tuple[str, int], int]:
    name = topics.MATCHMAKING.name(prefix)
    return await end_offsets(bootstrap, [(name, p) for p in range(topics.PARTITIONS)])


async def test_a_schedule_is_listed_open_and_a_cancel_lists_it_cancelled(
        kafka_bootstrap: str) -> None:
    prefix = f"tc{fresh_tag()}"
    mm = MatchmakerProcess(kafka_bootstrap, prefix, f"{prefix}-mm")
    mm.start()
    try:
        await mm.wait_for("partition_rebuilt", timeout=90)
        starts = int(time.time() * 1000) + 3_600_000
        scheduled = await okey101(kafka_bootstrap, prefix, "schedule", "--house", NS,
                                  "--id", "cuma", "--name", "Cuma Kupası", "--starts-at",
                                  str(starts), "--size", "16", "--hands", "3",
                                  "--fill-with-bots", "--bot-level", "2")
        assert scheduled.returncode == 0, (scheduled.stderr, mm.tail())
        assert scheduled.stdout.startswith(f"scheduled cuma in {NS}"), scheduled.stdout
        row = (await listed(kafka_bootstrap, prefix))["cuma"]
        assert (row["status"], row["name"], row["starts_at"], row["size"], row["hands"],
                row["registered"]) == ("open", "Cuma Kupası", starts, 16, 3, 0)
        text = await okey101(kafka_bootstrap, prefix, "list")
        assert "cuma" in text.stdout and "open" in text.stdout, text

        cancelled = await okey101(kafka_bootstrap, prefix, "cancel", "cuma", "--house", NS,
                                  "--reason", "the hall is closed tonight")
        assert cancelled.returncode == 0, (cancelled.stderr, mm.tail())
        row = (await listed(kafka_bootstrap, prefix))["cuma"]
        assert (row["status"], row["reason"]) == ("cancelled", "the hall is closed tonight")
        log = await decisions(kafka_bootstrap, prefix, until=2, timeout=30)
    finally:
        mm.stop()
    kinds = [type(d).__struct_config__.tag for d in log]
    assert kinds == ["tournament_scheduled", "tournament_cancelled"], log


async def test_every_bad_argument_exits_2_with_its_message_and_writes_nothing(
        kafka_bootstrap: str) -> None:
    prefix = f"tb{fresh_tag()}"
    mm = MatchmakerProcess(kafka_bootstrap, prefix, f"{prefix}-mm")
    mm.start()
    try:
        await mm.wait_for("partition_rebuilt", timeout=90)
        future = str(int(time.time() * 1000) + 3_600_000)
        good = ("--house", NS, "--id", "cup", "--starts-at", future, "--size", "16")
        done = await okey101(kafka_bootstrap, prefix, "schedule", *good)
        assert done.returncode == 0, (done.stderr, mm.tail())
        gone = await okey101(kafka_bootstrap, prefix, "schedule", *good[:3], "gone",
                             *good[4:])
        assert gone.returncode == 0, gone.stderr
        assert (await okey101(kafka_bootstrap, prefix, "cancel", "gone", "--house",
                              NS)).returncode == 0
        before = await requests_end(kafka_bootstrap, prefix)
        assert sum(before.values()) == 3

        def schedule(*changes: str) -> tuple[str, ...]:
            args = dict(zip(good[::2], good[1::2], strict=True))
            args.update(zip(changes[::2], changes[1::2], strict=True))
            return ("schedule", *[x for kv in args.items() for x in kv])

        bad = {
            schedule("--house", "nowhere"): "--house 'nowhere': no such house",
            schedule("--house", "okeygg", "--id", "x"): "okeygg holds no tournaments",
            schedule("--id", "new", "--starts-at", "2020-01-01T00:00:00Z"): "in the past",
            schedule("--id", "new", "--starts-at", "soon"): "--starts-at 'soon'",
            schedule("--id", "new", "--size", "32"): "size 32: north-sultan holds "
                                                     "tournaments of 16, 64",
            schedule("--id", "new", "--hands", "100"): "hands 100: north-sultan plays 1-99",
            schedule("--id", "new", "--bot-level", "4"): "bot level 4: 0-3",
            schedule("--id", "no spaces"): "--id 'no spaces'",
            schedule("--id", "new", "--size", "abc"): "argument --size: invalid int value",
            schedule(): "--id 'cup': north-sultan has scheduled it already",
            ("cancel", "nope", "--house", NS): "'nope': north-sultan has no such tournament",
            ("cancel", "gone", "--house", NS): "'gone': the tournament is cancelled already",
            ("cancel", "cup", "--house", "nowhere"): "--house 'nowhere': no such house",
            ("list", "--house", "nowhere"): "--house 'nowhere': no such house",
        }
        gate = asyncio.Semaphore(3)  # two shared cores

        async def run(args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
            async with gate:
                return await okey101(kafka_bootstrap, prefix, *args)
        results = await asyncio.gather(*(run(args) for args in bad))
        after = await requests_end(kafka_bootstrap, prefix)
    finally:
        mm.stop()
    for (args, words), done in zip(bad.items(), results, strict=True):
        assert done.returncode == 2, (args, done)
        assert done.stderr.startswith("okey101 tournament"), (args, done.stderr)
        assert words in done.stderr and done.stderr.count("\n") == 1, (args, done.stderr)
        assert done.stdout == "", (args, done.stdout)
    assert after == before  # nothing written
