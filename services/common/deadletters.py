"""Total handling of consumed records (issue 26): what every consumer shares.

A consumer hands each record to `DeadLetters.apply` with the function that decodes and
applies it. The record's bounds are checked first (`okey101.app.bounds`: size, nesting,
string lengths, integer ranges), then the function runs; any exception it raises, of any
type, makes the record a dead letter: kept until `flush`, which writes them to the
dead-letters topic and waits for the broker. Each is counted in `okey_dead_letters_total`
by service and reason kind and logged once (`record_dead_lettered`); the consumer goes on
with the next record. The processor writes its dead letters inside its own transaction
(`okey101.app.processor.processing`); it counts and logs them here (`count`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import structlog
from aiokafka import AIOKafkaProducer
from prometheus_client import Counter

from okey101.app import bounds, topics
from okey101.app.processor.processing import dead_letter
from okey101.table import messages as E

log = structlog.get_logger("deadletters")
T = TypeVar("T")

DEAD_LETTERS = Counter("okey_dead_letters_total", "Records written to the dead-letter topic: "
                       "records a consumer could not decode, validate or apply, by service "
                       "and reason kind", ["service", "reason"])


def count(letter: E.DeadLetter) -> None:
    """One dead letter counted and logged (once: here)."""
    DEAD_LETTERS.labels(letter.service, letter.kind or "failed").inc()
    log.warning("record_dead_lettered", service=letter.service, topic=letter.topic,
                partition=letter.partition, offset=letter.offset, kind=letter.kind,
                error=letter.error or None, reason=letter.reason)


class DeadLetters:
    """One consumer's dead letters: `apply` each record, `flush` after each batch (before
    committing its offsets, so a dead letter is never lost to a crash in between)."""

    def __init__(self, service: str, prefix: str,
                 limits: bounds.Limits = bounds.DERIVED) -> None:
        self.service = service
        self.topic = topics.DEAD_LETTERS.name(prefix)
        self.limits = limits
        self.producer: AIOKafkaProducer | None = None
        self.pending: list[E.DeadLetter] = []
        for kind in bounds.KINDS:  # a rate() exists before the first dead letter
            DEAD_LETTERS.labels(service, kind)

    def apply(self, record: Any, work: Callable[[Any], T]) -> T | None:
        """`work(record)` once the record has a value within bounds; None (the record
        dead-lettered) when it has none, is out of bounds, or `work` raises anything."""
        if record.value is None:
            self.hold(record, "no value (a null record)", "empty")
            return None
        try:
            bounds.check(record.value, self.limits)
            return work(record)
        except Exception as exc:  # any exception: the consumer goes on
            self.hold(record, exc)
            return None

    def hold(self, record: Any, exc: BaseException | str, kind: str = "") -> None:
        """`record` as a dead letter, written at the next `flush`."""
        if isinstance(exc, BaseException):
            reason, error = bounds.describe(exc), type(exc).__name__
            kind = kind or bounds.kind_of(exc)
        else:
            reason, error = exc, ""
        letter = dead_letter(reason, record.topic, record.partition, record.offset,
                             record.key, record.value, kind or "failed", error, self.service)
        count(letter)
        self.pending.append(letter)

    async def flush(self) -> int:
        """Every held dead letter written and acknowledged; how many."""
        held, self.pending = self.pending, []
        if not held or self.producer is None:
            return 0
        try:
            futures = [await self.producer.send(self.topic, E.encode(letter),
                                                key=letter.key.encode() or None)
                       for letter in held]
            await asyncio.gather(*futures)
        except BaseException:
            self.pending = held + self.pending  # written at the next flush
            raise
        return len(held)
