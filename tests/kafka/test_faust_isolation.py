"""Why the leaderboards service reads the events topic with aiokafka, not faust-streaming.

The processor writes events in Kafka transactions; a fenced or killed processor's open
transaction is aborted and its commands decided again (a new match seed, other hands).
Faust's at-least-once mode (its exactly-once mode has duplicate-on-rebalance bugs) builds
its consumer with isolation_level=read_uncommitted and no setting changes it: its agents
are handed aborted records. This test shows it on our broker, next to our own reader,
which is not. If a faust release fixes it, the first assertion fails: time to reconsider.

faust-streaming is not in the main venv (it pins click below 8.4): the probe runs under
OKEY_FAUST_PYTHON, the faust extra's own venv (`make test` builds .venv-faust for it), or
under this interpreter when it has faust.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
import uuid
from pathlib import Path

import pytest
from aiokafka import AIOKafkaProducer

from services.leaderboards.reading import read_records
from tests.kafka.conftest import MakeTopic
from tests.kafka.support import ROOT


def faust_python() -> str:
    named = os.environ.get("OKEY_FAUST_PYTHON")
    if named and Path(named).exists():
        return named
    if importlib.util.find_spec("faust") is not None:
        return sys.executable
    pytest.skip("faust-streaming is not installed: `make test` builds .venv-faust for it "
                f"(OKEY_FAUST_PYTHON={named or 'unset'} does not exist)")


async def test_faust_at_least_once_agents_are_handed_aborted_records_ours_are_not(
        kafka_bootstrap: str, make_topic: MakeTopic, tmp_path: Path) -> None:
    python = faust_python()
    topic = await make_topic("faust-probe")
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap,
                                transactional_id=f"probe-{uuid.uuid4().hex[:8]}")
    await producer.start()
    try:
        async with producer.transaction():
            await producer.send(topic, b"committed-1", key=b"t")
        await producer.begin_transaction()
        await producer.send(topic, b"ABORTED", key=b"t")
        await producer.abort_transaction()
        async with producer.transaction():
            await producer.send(topic, b"committed-2", key=b"t")
    finally:
        await producer.stop()

    ours = [r.value for r in (await read_records(kafka_bootstrap, [(topic, 0)]))[(topic, 0)]]
    assert ours == [b"committed-1", b"committed-2"]

    env = dict(os.environ, KAFKA_BOOTSTRAP=kafka_bootstrap, FAUST_PROBE_TOPIC=topic,
               PYTHONPATH=str(ROOT))
    faust = [python, "-m", "faust", "-A", "tests.kafka.faust_probe", "worker",
             "-l", "warn", "--without-web"]
    handed: list[str] = []
    proc = await asyncio.create_subprocess_exec(
        *faust, cwd=tmp_path, env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, stdin=asyncio.subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(90):
            while len(handed) < 3:
                line = (await proc.stdout.readline()).decode(errors="replace")
                if not line:
                    break
                if "HANDED " in line:
                    handed.append(line.split("HANDED ", 1)[1].strip())
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 20)
            except TimeoutError:
                proc.kill()
    assert handed == ["committed-1", "ABORTED", "committed-2"]
