"""Services whose state is a function of a topic: they re-read their partitions on
assignment and publish only past their group's committed offset (the auditor, the views)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.errors import IllegalStateError
from prometheus_client import Gauge

from services.common.kafka import forget_lag


class Reread:
    """The partitions of `topic` a service re-reads from the beginning when they are
    assigned (its state is a function of the log), publishing only for records at or after
    its group's committed offset: each partition's first offset to publish for, the
    partitions still being re-read, and whether every one has caught up (`ready`).
    `catching_up` is the service's gauge of those partitions; `service` names its log
    lines (`<service>_ready`).

    aiokafka starts fetching a newly assigned partition from the group's committed offset,
    and `getmany` may return those records, before the rebalance listener returns: folded as
    the start of the partition, they would stand on tables the service never read (each a
    dead letter, its views lost). So `assign` pauses the partitions it takes until their
    seek to the beginning is done (a paused partition's records are not returned, and the
    seek drops what was fetched before it), and moves `epoch` on as it pauses them: records
    that a poll returned before that are not folded (`fresh`) and are read again after
    the seek. `assign` holds `turn`, and so does the service while it folds a poll's
    records and while it drops revoked partitions (its own state with `revoke`'s)."""

    def __init__(self, topic: str, catching_up: Gauge, service: str) -> None:
        self.topic = topic
        self.gauge = catching_up
        self.service = service
        self.published_from: dict[int, int] = {}  # partition -> first offset to publish for
        self.catching_up: dict[int, int] = {}  # partition -> the end offset to reach
        self.ready = asyncio.Event()
        self.turn = asyncio.Lock()  # a poll's fold, or a change of partitions
        self.epoch = 0  # partitions taken so far, each time
        self.taken_at: dict[int, int] = {}  # partition -> the epoch it was last taken in
        self.log = structlog.get_logger(service)

    async def assign(self, consumer: AIOKafkaConsumer,
                     assigned: Sequence[TopicPartition]) -> None:
        """Take the newly assigned partitions of the topic and seek them to the start."""
        tps = [tp for tp in assigned if tp.topic == self.topic]
        if not tps:
            return
        async with self.turn:
            self.epoch += 1  # what a poll returned before this is not folded
            for tp in tps:
                self.taken_at[tp.partition] = self.epoch
            consumer.pause(*tps)  # nothing of theirs returned until the seek is done
            try:
                ends = await consumer.end_offsets(tps)
                committed = {tp: await consumer.committed(tp) for tp in tps}
                await consumer.seek_to_beginning(*tps)  # drops what came from `committed`
            finally:
                with contextlib.suppress(IllegalStateError):  # unassigned meanwhile
                    consumer.resume(*tps)
            for tp in tps:
                self.published_from[tp.partition] = committed[tp] or 0
                if ends[tp] > 0:
                    self.catching_up[tp.partition] = ends[tp]
        self.gauge.set(len(self.catching_up))
        self.log.info("partitions_assigned", partitions=sorted(tp.partition for tp in tps),
                      published_from={tp.partition: self.published_from[tp.partition]
                                      for tp in tps})

    def fresh(self, batches: dict[TopicPartition, list[Any]], epoch: int
              ) -> dict[TopicPartition, list[Any]]:
        """The records of a poll that returned at `epoch` that may be folded: not those of
        a partition taken (again) since."""
        return {tp: records for tp, records in batches.items()
                if self.taken_at.get(tp.partition, 0) <= epoch}

    def revoke(self, revoked: Sequence[TopicPartition]) -> set[int]:
        """Drop the revoked partitions of the topic (and their lag series); the ones
        dropped. The service is no longer ready."""
        gone = {tp.partition for tp in revoked if tp.topic == self.topic}
        for partition in gone:
            self.published_from.pop(partition, None)
            self.catching_up.pop(partition, None)
        forget_lag(sorted(gone))
        self.ready.clear()
        self.gauge.set(len(self.catching_up))
        return gone

    async def check(self, consumer: AIOKafkaConsumer, **logged: Any) -> None:
        """Note the partitions that have reached their end offset; `ready` once all have
        (`logged`: more fields for the caught-up lines)."""
        for partition, end in list(self.catching_up.items()):
            try:
                position = await consumer.position(TopicPartition(self.topic, partition))
            except IllegalStateError:
                self.catching_up.pop(partition, None)
                continue
            if position >= end:
                self.catching_up.pop(partition, None)
                self.log.info("partition_caught_up", partition=partition, offset=position,
                              **logged)
        self.gauge.set(len(self.catching_up))
        if not self.catching_up and self.published_from and not self.ready.is_set():
            self.ready.set()
            self.log.info(f"{self.service}_ready", partitions=sorted(self.published_from))

    def not_ready(self) -> str | None:
        """Why the service cannot serve yet (`Lifecycle.not_ready`), or None."""
        if not self.published_from:
            return f"no {self.topic.rsplit('.', 1)[-1]} partition assigned"
        if self.catching_up:
            return f"partitions {sorted(self.catching_up)} still being re-read"
        return None
