"""A benchmark's own topics: each run writes under a fresh prefix, and the run's topics
are deleted when it ends (set BENCH_KEEP_TOPICS=1 to keep them for a look).

Left behind, they piled up on the local broker: 3,573 partition directories and 19 GB
after some weeks of `make bench`, a broker busy at idle and slower to start."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Coroutine
from typing import Any

from aiokafka.errors import KafkaError

from services.common.kafka import drop_topics, fault_text

_made: list[tuple[str, str]] = []  # (bootstrap, prefix) of this process's runs


def prefix(stem: str, bootstrap: str) -> str:
    """A fresh topic prefix, its topics deleted at the end of `run`."""
    made = f"{stem}{uuid.uuid4().hex[:6]}"
    _made.append((bootstrap, made))
    return made


def run(main: Coroutine[Any, Any, None]) -> None:
    """`asyncio.run(main)`, then the topics of every prefix it took are deleted."""
    asyncio.run(dropped_after(main))


async def dropped_after(main: Coroutine[Any, Any, None]) -> None:
    """Await `main`, then delete the topics of every prefix taken (`prefix`)."""
    try:
        await main
    finally:
        if os.environ.get("BENCH_KEEP_TOPICS") != "1":
            for bootstrap, made in _made:
                try:
                    await drop_topics(bootstrap, made)
                except (KafkaError, OSError) as exc:  # the run's figures stand
                    print(f"could not delete the topics {made}.*: {fault_text(exc)}")
        _made.clear()
