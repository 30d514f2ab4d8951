"""The Kafka bench's reference: a transactional copy loop with no game logic.

It does what the processor does around its decisions and nothing else: one read_committed
group consumer of the commands topic; per assigned partition a worker with two
transactional producers used in turn (ids group-partition and the same + "-b"), which
takes what has come (after the processor's 2 ms linger), produces each record again, as
it is, to the same partition of the outcomes topic, and commits the records' offsets in
the same transaction. What it costs is what Kafka, aiokafka and this machine cost a
command; `tools.bench.kafka` gives the processor's latencies as ratios to it.

    python -m tools.bench.bareloop --bootstrap HOST:PORT --prefix P --group G --metrics-port N

/readyz on the metrics port answers 200 once partitions are assigned and their producers
started (as the services' do); SIGTERM stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from collections.abc import Sequence
from typing import Any

from aiohttp import web
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import KafkaError

from okey101.app import topics
from services.common.kafka import BATCH_BYTES, PartitionBatches, Rebalance, client_security

LINGER_S = 0.002  # the processor's default (`--linger-ms 2`)
RETRY_BACKOFF_MS = 5  # the processor's TRANSACTION_RETRY_BACKOFF_MS
MAX_QUEUED = 5000  # as the processor: records waiting before fetching pauses


class Worker:
    """One commands partition: its queue, its two producers, its transactions."""

    def __init__(self, loop: BareLoop, tp: TopicPartition,
                 producers: tuple[AIOKafkaProducer, AIOKafkaProducer]) -> None:
        self.loop, self.tp, self.producers = loop, tp, producers
        self.turn = 0
        self.queue: list[Any] = []
        self.next_offset = -1
        self.wake = asyncio.Event()
        self.closing = False
        self.paused = False
        self.task = asyncio.create_task(self._work())

    def feed(self, records: list[Any]) -> None:
        fresh = [r for r in records if r.offset >= self.next_offset]
        if fresh:
            self.next_offset = fresh[-1].offset + 1
            self.queue.extend(fresh)
            self.wake.set()
        if len(self.queue) > MAX_QUEUED and not self.paused:
            self.loop.consumer.pause(self.tp)
            self.paused = True

    async def _work(self) -> None:
        while not self.closing:
            await self.wake.wait()
            if self.closing:
                return
            await asyncio.sleep(LINGER_S)
            self.wake.clear()
            batch, self.queue = self.queue, []
            if self.paused:
                self.loop.consumer.resume(self.tp)
                self.paused = False
            if batch:
                await self._copy(batch)

    async def _copy(self, records: list[Any]) -> None:
        producer = self.producers[self.turn]
        self.turn = 1 - self.turn
        async with producer.transaction():
            batches = PartitionBatches(producer, self.tp.partition)
            for record in records:
                await batches.add(self.loop.outcomes, record.key, record.value)
            await batches.flush()
            await producer.send_offsets_to_transaction(
                {self.tp: records[-1].offset + 1}, self.loop.group)

    async def close(self) -> None:
        self.closing = True
        self.wake.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.task, 10)
        for producer in self.producers:
            with contextlib.suppress(KafkaError, OSError, TimeoutError):
                await producer.stop()


class BareLoop:
    def __init__(self, bootstrap: str, prefix: str, group: str,
                 instance_id: str | None = None) -> None:
        self.bootstrap, self.group = bootstrap, group
        self.commands = topics.COMMANDS.name(prefix)
        self.outcomes = topics.OUTCOMES.name(prefix)
        self.workers: dict[int, Worker] = {}
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False,
            isolation_level="read_committed", auto_offset_reset="earliest",
            session_timeout_ms=10000, heartbeat_interval_ms=1000,
            group_instance_id=instance_id, max_partition_fetch_bytes=8 * 1024 * 1024,
            fetch_max_wait_ms=20,
            **client_security())
        self.stopping = asyncio.Event()

    @property
    def ready(self) -> bool:
        return bool(self.workers)

    async def _producer(self, transactional_id: str) -> AIOKafkaProducer:
        producer = AIOKafkaProducer(
            bootstrap_servers=self.bootstrap, enable_idempotence=True, acks="all", linger_ms=1,
            transactional_id=transactional_id, request_timeout_ms=30000,
            retry_backoff_ms=RETRY_BACKOFF_MS, max_batch_size=BATCH_BYTES, **client_security())
        await producer.start()  # init_transactions: fences an older owner
        return producer

    async def assign(self, assigned: Sequence[TopicPartition]) -> None:
        for tp in assigned:
            producers = (await self._producer(f"{self.group}-{tp.partition}"),
                         await self._producer(f"{self.group}-{tp.partition}-b"))
            self.workers[tp.partition] = Worker(self, tp, producers)

    async def revoke(self, revoked: Sequence[TopicPartition]) -> None:
        await asyncio.gather(*(self.workers.pop(tp.partition).close() for tp in revoked
                               if tp.partition in self.workers))

    async def run(self) -> None:
        await self.consumer.start()
        self.consumer.subscribe([self.commands], listener=Rebalance(self))
        try:
            while not self.stopping.is_set():
                batches = await self.consumer.getmany(timeout_ms=100, max_records=2000)
                for tp, records in batches.items():
                    worker = self.workers.get(tp.partition)
                    if worker is not None:
                        worker.feed(records)
        finally:
            await asyncio.gather(*(w.close() for w in self.workers.values()))
            await self.consumer.stop()


async def main_async(args: argparse.Namespace) -> None:
    loop = BareLoop(args.bootstrap, args.prefix, args.group, args.instance_id)
    running = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        running.add_signal_handler(sig, loop.stopping.set)

    async def readyz(_: web.Request) -> web.Response:
        return web.Response(status=200 if loop.ready else 503, text=str(loop.ready))

    app = web.Application()
    app.router.add_get("/readyz", readyz)
    runner = web.AppRunner(app)
    await runner.setup()
    if args.metrics_port:
        await web.TCPSite(runner, "127.0.0.1", args.metrics_port).start()
    try:
        await loop.run()
    finally:
        await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--metrics-port", type=int, default=0)
    parser.add_argument("--instance-id", help="static group membership, as the processor's")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
