"""The player views projected from the events log (okey101.app.views.playerviews), outside the
processor's transaction: the same views whatever the batching, a rebuild that publishes
the same updates as the live run, finished matches leaving memory, and events out of
sequence refused without a change."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101.app.processor.processing import PartitionTables
from okey101.app.views.playerviews import PlayerViews
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.views import SPECTATOR, player_view

PROFILE = {"base": "north-sultan", "options": {"hands_per_match": 1}}
MATCHES = [play_match(PROFILE, s).commands for s in match_seeds(11, 2)]


def played(table: str, n: int = 0) -> tuple[PartitionTables, list[E.Event]]:
    """The processor's tables after a whole match at `table`, and the events it wrote."""
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    events: list[E.Event] = []
    for i, c in enumerate(MATCHES[n]):
        command = msgspec.structs.replace(c, table_id=table, command_id=f"{table}-{i}")
        events += tables.handle(table.encode(), E.encode(command), "commands", i,
                                lambda: "00" * 32, at=1_000 + i).events
    return tables, events


EVENTS = played("t")[1]


def last_views(batches: list[list[E.Event]]) -> dict[tuple[str, int], tuple[int, bytes]]:
    """Each (table, seat)'s last update after projecting `batches`: version and view."""
    views = PlayerViews()
    out = {}
    for batch in batches:
        updates, skipped = views.apply(batch)
        assert skipped == []
        for u in updates:
            out[(u.table_id, u.seat)] = (u.version, msgspec.json.encode(u.view))
    return out


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=60))
def test_the_last_view_of_each_seat_does_not_depend_on_the_batching(sizes: list[int]) -> None:
    batches, at = [], 0
    for size in sizes:
        batches.append(EVENTS[at:at + size])
        at += size
    batches.append(EVENTS[at:])
    assert last_views(batches) == last_views([EVENTS])


def test_each_update_chains_on_the_previous_one_of_its_seat() -> None:
    views = PlayerViews()
    held: dict[int, int] = {}
    for event in EVENTS:
        for u in views.apply([event])[0]:
            assert u.version == event.seq
            assert u.previous == held.get(u.seat, u.previous)  # a reader misses nothing
            held[u.seat] = u.version


def test_the_views_are_those_of_the_processors_state() -> None:
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    views = PlayerViews()
    for i, c in enumerate(MATCHES[0][:40]):
        command = msgspec.structs.replace(c, table_id="t", command_id=f"t-{i}")
        out = tables.handle(b"t", E.encode(command), "commands", i, lambda: "00" * 32,
                            at=1_000 + i)
        for u in views.apply(out.events)[0]:
            assert u.view == player_view(tables.tables["t"], u.seat)
    assert views.tables["t"] == tables.tables["t"]


@pytest.mark.parametrize("cut", [1, 7, 50, len(EVENTS) - 1])
def test_a_rebuild_folds_silently_then_publishes_what_the_live_run_did(cut: int) -> None:
    live = PlayerViews()
    live.apply(EVENTS[:cut])
    expected = live.apply(EVENTS[cut:])[0]
    rebuilt = PlayerViews()
    for event in EVENTS[:cut]:
        rebuilt.fold(event)
    assert rebuilt.apply(EVENTS[cut:])[0] == expected


def test_a_finished_match_leaves_memory_once_its_last_update_is_out() -> None:
    views = PlayerViews()
    updates, _ = views.apply(EVENTS)
    assert views.tables == {}
    final = [u for u in updates if u.seat == SPECTATOR]
    assert final and final[-1].view.status == "over"
    rebuilt = PlayerViews()
    for event in EVENTS:
        rebuilt.fold(event)
    assert rebuilt.tables == {}


def test_tables_are_projected_independently_within_a_batch() -> None:
    other = played("u", 1)[1]
    mixed = [e for pair in zip(EVENTS[:30], other[:30], strict=True) for e in pair]
    views = PlayerViews()
    updates, _ = views.apply(mixed)
    assert [u.table_id for u in updates if u.seat == SPECTATOR] == ["t", "u"]
    assert views.tables["t"].seq == 30 and views.tables["u"].seq == 30


def test_an_event_out_of_sequence_is_skipped_and_changes_nothing() -> None:
    views = PlayerViews()
    views.apply(EVENTS[:10])
    before = dict(views.tables)
    updates, skipped = views.apply([EVENTS[5], EVENTS[12]])  # a repeat, then a gap
    assert updates == [] and len(skipped) == 2
    assert "table 't'" in skipped[0] and "seq 6" in skipped[0]
    assert views.tables == before


def test_forgetting_a_partition_drops_only_its_tables() -> None:
    views = PlayerViews()
    views.apply(EVENTS[:10] + played("u", 1)[1][:10])
    views.forget(lambda t: t == "u")
    assert list(views.tables) == ["t"]
