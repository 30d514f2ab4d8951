"""Reading offset ranges of the events topic in bulk, for exports: confluent-kafka
(librdkafka) hands over thousands of records from one call, each a small C object, where
aiokafka builds a Python record per message (about 2 us of CPU an event at export rates).

Everything is read with isolation.level=read_committed, as the rest of the replays code
reads: what an aborted transaction wrote is no event. The client authenticates with the
same settings as every other client (`services.common.kafka.rdkafka_security`). Blocking:
the export runs it in a worker thread.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

from confluent_kafka import Consumer, KafkaError, TopicPartition

from okey101.errors import InfrastructureFault
from services.common.kafka import rdkafka_security
from services.replays.reading import FETCH_BYTES, READ_TIMEOUT

BATCH = 5_000  # records a call hands over at most (larger batches cost more CPU an event)
WAIT_S = 0.05  # how long a call waits for a full batch (the end of a range never fills one)


class BulkReader:
    """One consumer of no group (it never joins, commits or stores offsets): one partition
    range read at a time."""

    def __init__(self, bootstrap: str) -> None:
        self.error = ""  # the client's last error (refused credentials, brokers down)
        self.fatal = False
        settings: dict[str, Any] = {
            "bootstrap.servers": bootstrap,
            "group.id": "okey-export",  # required by the client; no group is joined
            "enable.auto.commit": False, "enable.auto.offset.store": False,
            "isolation.level": "read_committed", "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
            "max.partition.fetch.bytes": FETCH_BYTES, "fetch.max.bytes": 4 * FETCH_BYTES,
            "fetch.wait.max.ms": 20, "socket.timeout.ms": 30000,
            # a full prefetch queue must not hold the next fetch back for a second (the
            # default): a range read after another waited that long
            "fetch.queue.backoff.ms": 10,
            # the client's errors come to `_on_error` and are named in the fault raised; its
            # own log lines (a line a reconnection try, every 50-100 ms) only when critical
            "error_cb": self._on_error, "log_level": 2, **rdkafka_security()}
        self.consumer = Consumer(settings)

    def _on_error(self, error: KafkaError) -> None:
        self.error = f"{error.name()}: {error.str()}"
        self.fatal = self.fatal or error.fatal() or error.code() in (
            KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED)

    def close(self) -> None:
        self.consumer.close()

    def read(self, topic: str, partition: int, first: int, last: int,
             timeout: float = READ_TIMEOUT) -> Iterator[tuple[list[int], list[bytes | None]]]:
        """The committed records of offsets [first, last] of one partition, batch by batch,
        as (offsets, values)."""
        if last < first:
            return
        consume = self.consumer.consume
        self.consumer.assign([TopicPartition(topic, partition, first)])
        deadline = time.monotonic() + timeout
        try:
            while True:
                messages = consume(BATCH, WAIT_S)
                end = -1  # where the partition ended, if it did
                if any([m.error() is not None for m in messages]):
                    kept = []
                    for m in messages:
                        error = m.error()
                        if error is None:
                            kept.append(m)
                        elif error.code() == KafkaError._PARTITION_EOF:
                            end = m.offset() or 0
                        else:
                            raise InfrastructureFault(
                                f"{topic}[{partition}] offsets {first}-{last}: {error.str()}")
                    messages = kept
                offsets: list[int] = [m.offset() for m in messages]  # type: ignore[misc]
                done = (bool(offsets) and offsets[-1] >= last) or end > last
                if offsets and offsets[-1] > last:
                    cut = bisect_right(offsets, last)
                    offsets, messages = offsets[:cut], messages[:cut]
                if offsets:
                    yield offsets, [m.value() for m in messages]
                if done:
                    return
                if self.fatal:
                    raise InfrastructureFault(f"{topic}[{partition}]: {self.error}")
                if time.monotonic() > deadline:
                    why = f" ({self.error})" if self.error else ""
                    raise InfrastructureFault(f"{topic}[{partition}] offsets {first}-{last}: "
                                              f"not read in {timeout:.0f} s{why}")
        finally:
            self.consumer.unassign()
