"""Snapshots on the real broker (issue 13): the processor writes its memory to the
compacted snapshots topic in its transactions; a rebuild from the snapshots and the log's
tail equals a rebuild from the full log; a snapshot of an unknown version, a hostile
snapshot record (issue 41: beyond the log, of another partition or table, too deep, a
truncated cut), and an undecodable event, do not stop a rebuild: it reads the full log and
counts the reason."""

from __future__ import annotations

import json

import pytest
from aiokafka import AIOKafkaProducer
from prometheus_client import REGISTRY

from okey101.app import topics
from okey101.app.processor import snapshots as S
from okey101.app.processor.processing import PartitionTables
from services.common.kafka import provision, read_partition_records
from services.processor.app import Processor
from tests.kafka.support import (
    ProcessorProcess,
    fresh_tag,
    interleave,
    publish,
    read_all,
    record_timeout_match,
)

pytestmark = pytest.mark.kafka


def memory(t: PartitionTables) -> tuple[object, ...]:
    return (t.tables, t.outcomes, list(t.finished.items()), list(t.strays.items()))


async def test_a_rebuild_from_snapshots_equals_a_rebuild_from_the_full_log(
        kafka_bootstrap: str) -> None:
    tag = fresh_tag()
    prefix, group = f"s{tag}", f"snap-{tag}"
    partitions = await provision(kafka_bootstrap, prefix)
    recorded = {f"{prefix}-t{i}": record_timeout_match(f"{prefix}-t{i}", 500 + i, hands=2)
                for i in range(24)}
    per_table = [c for c, _ in recorded.values()]
    # the first half of every table, the rest of 16 of them (finished), then a few more
    # commands of the other 8 (live): a tail after the last snapshot
    first = interleave([c[:len(c) // 2] for c in per_table])
    rest = interleave([c[len(c) // 2:] for c in per_table[:16]])
    tail = interleave([c[len(c) // 2:len(c) // 2 + 3] for c in per_table[16:]])
    proc = ProcessorProcess(kafka_bootstrap, prefix, group)
    proc.args += ["--snapshot-every", "40", "--finished-window", "5"]
    proc.start()
    try:
        outcomes = topics.OUTCOMES.name(prefix)
        await publish(kafka_bootstrap, prefix, first + rest)
        await read_all(kafka_bootstrap, outcomes, until=len(first) + len(rest), timeout=180)
        await publish(kafka_bootstrap, prefix, tail)  # no hand ends: no snapshot after
        await read_all(kafka_bootstrap, outcomes, until=len(first) + len(rest) + len(tail),
                       timeout=180)
    finally:
        proc.terminate()
    snapshots = topics.SNAPSHOTS.name(prefix)
    shots = await read_partition_records(kafka_bootstrap,
                                         {(snapshots, p): 0 for p in range(partitions)})
    with_cut = [p for p in range(partitions) if any(
        k == S.cut_key(p).encode() for _, k, _ in shots[(snapshots, p)])]
    assert with_cut, "the processor wrote no snapshot"

    processor = Processor(kafka_bootstrap, prefix=prefix, group=group,
                          partitions=partitions, finished_window=5)
    everything = list(range(partitions))
    from_log = await processor._rebuild(everything, use_snapshots=False)
    used = {p for p, (snapshot, _, _) in processor.rebuilt.items() if snapshot}
    assert not used, "the full-log rebuild read no snapshot"
    from_snapshots = await processor._rebuild(everything)
    used = {p for p, (snapshot, _, _) in processor.rebuilt.items() if snapshot}
    assert used == set(with_cut)
    tails = {p: processor.rebuilt[p][1] for p in used}
    assert any(tails.values()), "no partition had a tail after its snapshot"
    for p in everything:
        assert memory(from_snapshots[p]) == memory(from_log[p]), f"partition {p}"
    assert sum(len(t.tables) for t in from_log.values()) == 8  # half-played tables live
    assert sum(len(t.finished) for t in from_log.values()) > 0

    # an unknown snapshot version falls back to the full log; an undecodable event is
    # skipped (and logged with its offset), not fatal
    # a partition whose snapshot holds a live table's state (table ids spread over the
    # partitions by their hash, and a partition may have snapshotted only finished tables)
    p = next((p for p in with_cut if any(v and b'"state":{' in v
                                         for _, _, v in shots[(snapshots, p)])), None)
    assert p is not None, "no snapshot holds a live table"
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait(snapshots, b'{"type":"cut","v":99,"partition":%d}' % p,
                                     key=S.cut_key(p).encode(), partition=p)
        await producer.send_and_wait(topics.EVENTS.name(prefix), b"not an event",
                                     key=b"x", partition=p)
    finally:
        await producer.stop()
    again = await processor._rebuild([p])
    assert not processor.rebuilt[p][0]  # the full log
    assert memory(again[p]) == memory(from_log[p])

    # hostile snapshot records: each the latest of its key in turn, each a fallback to the
    # full log with its reason counted, the memory unchanged
    cut = next(v for _, k, v in reversed(shots[(snapshots, p)]) if k == S.cut_key(p).encode())
    assert cut is not None
    doc = json.loads(cut)
    table = next(k for _, k, v in shots[(snapshots, p)] if v and b'"state":{' in v)
    hostile = [
        (S.cut_key(p).encode(), json.dumps(dict(doc, events_offset=10**6)).encode(),
         "beyond_log"),
        (S.cut_key(p).encode(), json.dumps(dict(doc, partition=p + 1)).encode(),
         "key_mismatch"),
        (S.cut_key(p).encode(), cut[:len(cut) // 2], "undecodable"),
        (S.cut_key(p).encode(), b'{"v":2,"x":' + b"[" * 3000 + b"]" * 3000 + b"}",
         "too_deep"),
        (S.cut_key(p).encode(), cut, None),  # the good cut again: usable
        # a table record of another table under its key: after the cut, then before it
        (table, json.dumps(dict(json.loads(next(
            v for _, k, v in reversed(shots[(snapshots, p)]) if k == table) or b"{}"),
            table_id="elsewhere")).encode(), "incomplete"),
        (S.cut_key(p).encode(), cut, "key_mismatch"),
    ]
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
    await producer.start()
    try:
        for key, value, reason in hostile:
            await producer.send_and_wait(snapshots, value, key=key, partition=p)
            if reason is None:
                again = await processor._rebuild([p])
                assert processor.rebuilt[p][0]  # the snapshot
                assert memory(again[p]) == memory(from_log[p])
                continue
            counted = REGISTRY.get_sample_value("okey_snapshot_fallbacks_total",
                                                {"reason": reason}) or 0.0
            again = await processor._rebuild([p])
            assert not processor.rebuilt[p][0], reason  # the full log
            assert memory(again[p]) == memory(from_log[p]), reason
            assert REGISTRY.get_sample_value("okey_snapshot_fallbacks_total",
                                             {"reason": reason}) == counted + 1, reason
    finally:
        await producer.stop()
