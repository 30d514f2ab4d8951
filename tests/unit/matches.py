"""Whole recorded matches with times, for the replay tests: the engine's own events, each
stamped as decided one second after the one before."""

from __future__ import annotations

from functools import lru_cache

import msgspec

from okey101.simulate import play_match
from okey101.table import messages as E

T0 = 1_764_500_000_000  # 2025-11-30 10:53:20 UTC
SEED = "5e" * 32


@lru_cache(maxsize=16)
def timed_events(house: str = "north-sultan", seed: str = SEED, hands: int = 2
                 ) -> tuple[E.Event, ...]:
    record = play_match({"base": house, "options": {"hands_per_match": hands}}, seed)
    assert not record.capped
    return tuple(msgspec.structs.replace(e, at=T0 + 1000 * e.seq) for e in record.events)
