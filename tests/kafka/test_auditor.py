"""The fairness auditor on the real broker, with the real processor: honest hands (deal
versions 1 and 2, the second with people's client seeds committed and revealed through the
commands topic) are verified and raise no flag; a tampered deal and a forged public event
put into the events topic are flagged, naming the event's seq; a restarted auditor
rebuilds its state from the log without publishing a record twice; `okey101 audit`
answers the same for one table."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import msgspec
from aiokafka import AIOKafkaProducer

from okey101.app import topics
from okey101.audit.records import CollusionFlag, HandFailed, HandVerified, record_decoder
from okey101.table import messages as E
from services.common.kafka import provision
from tests.kafka.support import (
    ROOT,
    ProcessorProcess,
    fresh_tag,
    publish,
    read_all,
    record_timeout_match,
)
from tests.kafka.test_entropy import Gateway, has, timeouts_to_the_end, until
from tests.kafka.test_timers import played


class AuditorProcess(ProcessorProcess):
    """`python -m services.auditor` in a subprocess (the processor's harness, other args)."""

    def __init__(self, bootstrap: str, prefix: str, group: str, name: str = "auditor") -> None:
        super().__init__(bootstrap, prefix, group, name)
        self.args = [sys.executable, "-m", "services.auditor", "--bootstrap", bootstrap,
                     "--prefix", prefix, "--group", group, "--metrics-port", "0",
                     "--instance-id", name]


async def _records(bootstrap: str, prefix: str, until_count: int, timeout: float = 90
                   ) -> list[HandVerified | HandFailed | CollusionFlag]:
    values = await read_all(bootstrap, topics.AUDIT.name(prefix), until=until_count,
                            timeout=timeout)
    return [record_decoder.decode(v) for v in values]


async def _inject(bootstrap: str, prefix: str, events: list[E.Event]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True,
                                acks="all")
    await producer.start()
    try:
        for e in events:
            await producer.send(topics.EVENTS.name(prefix), E.encode(e),
                                key=e.table_id.encode())
        await producer.flush()
    finally:
        await producer.stop()


def _retable(events: list[E.Event], table: str) -> list[E.Event]:
    return [msgspec.structs.replace(e, table_id=table) for e in events]


async def test_honest_hands_verify_and_forged_ones_are_flagged_through_kafka(
        kafka_bootstrap: str) -> None:
    tag = fresh_tag()
    prefix = f"au{tag}"
    assert await provision(kafka_bootstrap, prefix) == topics.PARTITIONS
    honest = [record_timeout_match(f"{prefix}-ns", 11, "north-sultan", hands=2)[0],
              record_timeout_match(f"{prefix}-gg", 12, "okeygg", hands=7)[0]]
    v2 = Gateway(f"{prefix}-v2", (False, False, False, False))
    for seat in range(4):
        v2.commit(seat)
    for seat in range(4):
        v2.reveal(seat)
    proc = ProcessorProcess(kafka_bootstrap, prefix, f"proc-{tag}")
    auditor = AuditorProcess(kafka_bootstrap, prefix, f"audit-{tag}")
    proc.start()
    auditor.start()
    try:
        await publish(kafka_bootstrap, prefix, [*honest[0], *honest[1], *v2.commands])
        got = await until(kafka_bootstrap, prefix, v2.table, has(E.HandStarted), 60, proc)
        assert next(e for e in got.events if isinstance(e, E.HandStarted)).deal_version == 2
        await publish(kafka_bootstrap, prefix, timeouts_to_the_end(got.state))
        await until(kafka_bootstrap, prefix, v2.table, has(E.MatchEnded), 60, proc)
        tables = {f"{prefix}-ns": 0, f"{prefix}-gg": 0, v2.table: 0}
        logs = {t: (await played(kafka_bootstrap, prefix, t)).events for t in tables}
        for t in tables:
            deadline = time.monotonic() + 60
            while not isinstance(logs[t][-1], E.MatchEnded):
                assert time.monotonic() < deadline, f"{t} did not end"
                await asyncio.sleep(0.5)
                logs[t] = (await played(kafka_bootstrap, prefix, t)).events
            tables[t] = sum(isinstance(e, E.HandEnded) for e in logs[t])
        expected = sum(tables.values())
        records = await _records(kafka_bootstrap, prefix, expected)
        assert all(isinstance(r, HandVerified) for r in records), records
        assert {(r.table_id, r.hand, r.attempt) for r in records if isinstance(
            r, HandVerified)} == {(e.table_id, e.hand, a) for t in tables for e, a in _ends(
                logs[t])}
        assert {r.deal_version for r in records if isinstance(r, HandVerified)
                and r.table_id == v2.table} == {2}

        # a forged discard (a tile its seat never held) and a tampered seed, as a
        # dishonest server (or a broken processor) would log them
        source = logs[f"{prefix}-ns"]
        forged = _retable(source, f"{prefix}-forged")
        dealt = next(e for e in forged if isinstance(e, E.HandDealt))
        at = next(i for i, e in enumerate(forged) if isinstance(e, E.TileDiscarded))
        first = forged[at]
        assert isinstance(first, E.TileDiscarded)
        absent = next(t for t in ("R1", "Y1", "B1", "K1", "R2", "Y2")
                      if t not in dealt.racks[first.seat])
        forged[at] = msgspec.structs.replace(first, tile=absent)
        tampered = _retable(source, f"{prefix}-tampered")
        end = next(i for i, e in enumerate(tampered) if isinstance(e, E.HandEnded))
        tampered[end] = msgspec.structs.replace(tampered[end], seed="ab" * 32)
        await _inject(kafka_bootstrap, prefix, [*forged, *tampered])
        more = tables[f"{prefix}-ns"] * 2
        records = await _records(kafka_bootstrap, prefix, expected + more)
        failed = {r.table_id: r for r in records if isinstance(r, HandFailed)}
        assert failed[f"{prefix}-forged"].finding == "tile_not_in_rack"
        assert failed[f"{prefix}-forged"].seq == first.seq
        assert failed[f"{prefix}-forged"].event == "tile_discarded"
        assert failed[f"{prefix}-tampered"].finding == "commitment_mismatch"
        assert failed[f"{prefix}-tampered"].seq == tampered[end].seq
        assert len(failed) == 2 and not any(isinstance(r, CollusionFlag) for r in records)
        await auditor.wait_for('"hand_failed"', 2)

        # a restart re-reads the log and publishes nothing again
        auditor.terminate()
        auditor.start()
        await auditor.wait_for("auditor_ready", 2, timeout=60)
        await asyncio.sleep(2)
        again = await _records(kafka_bootstrap, prefix, len(records), timeout=10)
        assert len(again) == len(records)

        # okey101 audit: one table from the log, public events only
        cli = subprocess.run(
            [sys.executable, "-m", "services.cli", "audit", f"{prefix}-forged", "--public",
             "--bootstrap", kafka_bootstrap, "--prefix", prefix], cwd=ROOT,
            capture_output=True, text=True, timeout=120)
        assert cli.returncode == 1, cli.stderr
        assert f"FAILED: tile_not_in_rack at seq {first.seq} (tile_discarded)" in cli.stdout
        ok = subprocess.run(
            [sys.executable, "-m", "services.cli", "audit", v2.table, "--bootstrap",
             kafka_bootstrap, "--prefix", prefix], cwd=ROOT, capture_output=True, text=True,
            timeout=120)
        assert ok.returncode == 0, ok.stdout + ok.stderr
        assert "deal version 2): verified" in ok.stdout
    finally:
        auditor.terminate()
        proc.terminate()


def _ends(events: list[E.Event]) -> list[tuple[E.HandEnded, int]]:
    """Each hand_ended with the attempt of its hand."""
    out = []
    attempt = 0
    for e in events:
        if isinstance(e, E.HandStarted):
            attempt = e.attempt
        elif isinstance(e, E.HandEnded):
            out.append((e, attempt))
    return out
