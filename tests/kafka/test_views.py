"""The views service on the real broker: the player views of every table and seat, built
from the committed events outside the processor's transaction. Killed with SIGKILL mid-run
and started again, it loses no update: each seat's newest view is that of the table's last
state, and a reader that ignores the versions it holds sees an unbroken chain."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from okey101.app import topics
from okey101.app.gateway.viewcache import ViewCache
from okey101.table import messages as E
from okey101.table.state import TableState
from okey101.table.viewpatch import decode_update
from okey101.table.views import SPECTATOR, PlayerView, player_view
from services.common.kafka import provision
from tests.kafka.support import (
    ProcessorProcess,
    ViewsProcess,
    fresh_tag,
    interleave,
    publish,
    read_all,
    record_timeout_match,
)

pytestmark = pytest.mark.kafka


async def _until_versions(bootstrap: str, topic: str, want: dict[str, int],
                          timeout: float = 120) -> list[bytes]:
    """The player-views records once every table's spectators' update reached `want`."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        values = await read_all(bootstrap, topic, timeout=5)
        newest: dict[str, int] = {}
        for value in values:
            u = decode_update(value)
            if u.seat == SPECTATOR:
                newest[u.table_id] = max(newest.get(u.table_id, 0), u.version)
        if all(newest.get(t, 0) >= v for t, v in want.items()):
            return values
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"views behind: {newest} < {want}")


async def test_a_killed_views_service_restarts_and_every_seat_ends_at_its_tables_last_view(
        kafka_bootstrap: str) -> None:
    tag = fresh_tag()
    prefix = f"v{tag}"
    await provision(kafka_bootstrap, prefix)
    recorded = {f"{prefix}-t{i}": record_timeout_match(f"{prefix}-t{i}", 700 + i, hands=1)
                for i in range(6)}
    per_table = [c for c, _ in recorded.values()]
    first = interleave([c[:len(c) // 2] for c in per_table])
    rest = interleave([c[len(c) // 2:] for c in per_table])
    processor = ProcessorProcess(kafka_bootstrap, prefix, f"{prefix}-processor")
    views = ViewsProcess(kafka_bootstrap, prefix, f"{prefix}-views")
    player_views = topics.PLAYER_VIEWS.name(prefix)
    processor.start()
    views.start()
    try:
        await publish(kafka_bootstrap, prefix, first)
        await read_all(kafka_bootstrap, topics.OUTCOMES.name(prefix), until=len(first))
        events = [E.event_decoder.decode(v) for v in
                  await read_all(kafka_bootstrap, topics.EVENTS.name(prefix), timeout=5)]
        middle = {t: max(e.seq for e in events if e.table_id == t) for t in recorded}
        await _until_versions(kafka_bootstrap, player_views, middle)
        sending = asyncio.create_task(publish(kafka_bootstrap, prefix, rest, rate=400))
        await asyncio.sleep(len(rest) / 400 / 2)
        views.kill()  # SIGKILL mid-stream: what it published and did not commit goes again
        await sending
        await read_all(kafka_bootstrap, topics.OUTCOMES.name(prefix),
                       until=len(first) + len(rest))
        views.start()
        await views.wait_for("views_ready")
        values = await _until_versions(
            kafka_bootstrap, player_views, {t: s.seq for t, (_, s) in recorded.items()})
    finally:
        views.terminate()
        processor.terminate()
    _assert_whole_chains(values, recorded)
    assert "event_skipped" not in views.tail(400)


def _assert_whole_chains(values: list[bytes],
                         recorded: dict[str, tuple[list[E.Command], TableState]]) -> None:
    """A reader that ignores the versions it holds sees an unbroken chain per seat, and
    every seat's newest view is that of its table's last state."""
    cache = ViewCache()
    chained: dict[tuple[str, int], int] = {}
    for value in values:
        update, frame = cache.ingest(value)
        if frame is None:
            continue  # published again (after a kill, or a partition's move): held
        key = (update.table_id, update.seat)
        assert update.previous == chained.get(key, update.previous), key
        chained[key] = update.version
    for table_id, (_, state) in recorded.items():
        for seat in [SPECTATOR, *range(4)]:
            log = cache.seats[table_id][seat]
            assert log.version == state.seq
            view = log.view()
            assert view is not None, (table_id, seat)
            assert msgspec.json.decode(bytes(view), type=PlayerView) == \
                player_view(state, seat)


async def test_two_views_instances_share_the_partitions_and_one_leaving_loses_no_update(
        kafka_bootstrap: str) -> None:
    """A second instance joining mid-stream and the first leaving (each a rebalance: the
    partitions taken over are re-read from their beginning) leave every seat's chain
    whole."""
    tag = fresh_tag()
    prefix = f"v{tag}"
    await provision(kafka_bootstrap, prefix)
    recorded = {f"{prefix}-t{i}": record_timeout_match(f"{prefix}-t{i}", 900 + i, hands=3)
                for i in range(12)}
    commands = interleave([c for c, _ in recorded.values()])
    processor = ProcessorProcess(kafka_bootstrap, prefix, f"{prefix}-processor")
    first = ViewsProcess(kafka_bootstrap, prefix, f"{prefix}-views", "va")
    second = ViewsProcess(kafka_bootstrap, prefix, f"{prefix}-views", "vb")
    processor.start()
    first.start()
    sending = asyncio.create_task(publish(kafka_bootstrap, prefix, commands, rate=100))
    try:
        await first.wait_for("views_ready")
        second.start()
        await second.wait_for("views_ready")  # both hold partitions: the first, again
        await first.wait_for("partitions_assigned", times=2)
        await asyncio.sleep(1)
        assert not sending.done(), "the load ended before the first left: make it longer"
        first.terminate()  # a graceful stop: it leaves the group mid-stream
        await sending
        await read_all(kafka_bootstrap, topics.OUTCOMES.name(prefix), until=len(commands))
        values = await _until_versions(
            kafka_bootstrap, topics.PLAYER_VIEWS.name(prefix),
            {t: s.seq for t, (_, s) in recorded.items()})
    finally:
        sending.cancel()
        first.terminate()
        second.terminate()
        processor.terminate()
    _assert_whole_chains(values, recorded)
    for views in (first, second):
        assert "event_skipped" not in views.tail(400)
