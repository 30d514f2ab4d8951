"""Feeding the events topic with finished matches, for the standings tests and benchmarks.

`population` makes up matches (seeded): accounts from a pool, some bots, leavers and
substitutes, every house; `publish` writes their events keyed by table id in Kafka
transactions as the processor does (tables interleaved, each table's events in order),
optionally at a rate, optionally with an aborted transaction of phantom matches between
the committed ones (a read_committed reader must never see them).
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Sequence

from aiokafka import AIOKafkaProducer

from okey101.standings.synthetic import Seating, encoded, match_events

HOUSES = ("north-sultan", "classic", "okeygg", "okey-oyna")
HOUR = 3600 * 1000


def population(seed: int, matches: int, accounts: int = 40, start_ms: int = 1_780_000_000_000,
               spacing_ms: int = 60_000, prefix: str = "t") -> list[list[bytes]]:
    """`matches` tables' event records; match i ends about i x `spacing_ms` after start."""
    rng = random.Random(seed)
    pool = [f"acct-{i}" for i in range(accounts)]
    out = []
    for m in range(matches):
        house = HOUSES[m % len(HOUSES)]
        seated = rng.sample(pool, 4)
        bots: frozenset[str] = frozenset()
        options: dict[str, object] = {}
        if house != "classic" and rng.random() < 0.25:
            seat = rng.randrange(4)
            seated[seat] = f"bot-{m}-{seat}"
            bots = frozenset({seated[seat]})
        leaves: dict[int, str] = {}
        if rng.random() < 0.1:
            seat = rng.randrange(4)
            if house in ("north-sultan", "okeygg", "okey-oyna"):
                leaves[seat] = f"bot:bot-{m}-sub"
            else:
                leaves[seat] = rng.choice([p for p in pool if p not in seated])
        if house == "classic" and rng.random() < 0.2:
            options["partners"] = True
        totals = [rng.randrange(-300, 900) for _ in range(4)]
        at = start_ms + m * spacing_ms + rng.randrange(spacing_ms)
        out.append(encoded(match_events(f"{prefix}{m}", house, Seating(
            accounts=seated, bots=bots, leaves=leaves), totals, at, 3, options or None)))
    return out


def interleave(tables: Sequence[Sequence[bytes]], width: int = 50) -> list[tuple[str, bytes]]:
    """(table id, record) in the order a processor busy with `width` tables at once would
    write them: each table's records in order."""
    import msgspec

    class _T(msgspec.Struct):
        table_id: str

    decode = msgspec.json.Decoder(_T).decode
    out: list[tuple[str, bytes]] = []
    for start in range(0, len(tables), width):
        group = tables[start:start + width]
        for i in range(max(len(t) for t in group)):
            out += [(decode(t[i]).table_id, t[i]) for t in group if i < len(t)]
    return out


async def publish(bootstrap: str, topic: str, records: Sequence[tuple[str, bytes]],
                  rate: float | None = None, per_transaction: int = 200,
                  aborted_every: int = 0) -> None:
    """Write (key, value) records in transactions of `per_transaction`, at `rate` records/s
    if given; every `aborted_every`-th transaction (0: none) is preceded by an aborted one
    holding a phantom copy of its records under other table ids."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap,
                                transactional_id=f"feed-{uuid.uuid4().hex[:8]}",
                                linger_ms=5, request_timeout_ms=60000)
    await producer.start()
    try:
        started = time.monotonic()
        for n, first in enumerate(range(0, len(records), per_transaction)):
            chunk = records[first:first + per_transaction]
            if aborted_every and n % aborted_every == 0:
                await producer.begin_transaction()
                for key, value in chunk:
                    phantom = value.replace(key.encode(), f"phantom-{key}".encode())
                    await producer.send(topic, phantom, key=f"phantom-{key}".encode())
                await producer.abort_transaction()
            async with producer.transaction():
                for key, value in chunk:
                    await producer.send(topic, value, key=key.encode())
            if rate:
                ahead = (first + len(chunk)) / rate - (time.monotonic() - started)
                if ahead > 0:
                    await asyncio.sleep(ahead)
    finally:
        await producer.stop()
