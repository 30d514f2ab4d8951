"""Reading whole partitions once, records with their keys and offsets (read_committed)."""

from __future__ import annotations

from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition

from services.common.kafka import client_security


async def read_records(bootstrap: str, wanted: list[tuple[str, int]]
                       ) -> dict[tuple[str, int], list[Any]]:
    """Every committed record of each (topic, partition), from the beginning to its end
    offset as of now, oldest first."""
    out: dict[tuple[str, int], list[Any]] = {w: [] for w in wanted}
    if not wanted:
        return out
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                isolation_level="read_committed", group_id=None,
                                fetch_max_wait_ms=20,
                                max_partition_fetch_bytes=8 * 1024 * 1024, **client_security())
    await consumer.start()
    try:
        tps = [TopicPartition(t, p) for t, p in wanted]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        pending = {tp for tp in tps if ends[tp] > 0}
        while pending:
            batch = await consumer.getmany(*pending, timeout_ms=1000, max_records=20000)
            for tp, records in batch.items():
                out[(tp.topic, tp.partition)] += records
            for tp in list(pending):
                if await consumer.position(tp) >= ends[tp]:
                    pending.discard(tp)
        return out
    finally:
        await consumer.stop()
