"""The player views projected from the events log (okey101.app.views.playerviews), outside the
processor's transaction: the same views whatever the batching, a rebuild that publishes
the same updates as the live run, finished matches leaving memory, and events out of
sequence refused without a change."""

from __future__ import annotations

import itertools

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101.app.processor.processing import PartitionTables
from okey101.app.timers.deadlines import TurnClock
from okey101.app.views.playerviews import PlayerViews
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE
from okey101.table.state import TableState
from okey101.table.views import SPECTATOR, PlayerUpdate, player_view

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
            # the turn's deadline is the projection's own (the event times): below
            assert msgspec.structs.replace(u.view, turn_by=None) == \
                player_view(tables.tables["t"], u.seat)
            assert u.bot is False and u.bot_level is None  # people at every seat
    assert views.tables["t"] == tables.tables["t"]


def test_every_seat_is_projected_a_bots_with_its_record_beside_the_view() -> None:
    commands = list(MATCHES[0][:12])
    sits = [i for i, c in enumerate(commands) if isinstance(c, E.Sit)]
    commands[sits[2]] = msgspec.structs.replace(commands[sits[2]], bot=True, bot_level=4)
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    views = PlayerViews()
    last = {}
    for i, c in enumerate(commands):
        command = msgspec.structs.replace(c, table_id="t", command_id=f"t-{i}")
        out = tables.handle(b"t", E.encode(command), "commands", i, lambda: "00" * 32)
        assert out.outcome is not None and out.outcome.accepted, out.outcome
        for u in views.apply(out.events)[0]:
            last[u.seat] = u
    bot_seat = commands[sits[2]].seat
    assert sorted(last) == [SPECTATOR, 0, 1, 2, 3]
    assert [(s, u.bot, u.bot_level) for s, u in sorted(last.items())] == [
        (s, s == bot_seat, 4 if s == bot_seat else None) for s in sorted(last)]
    assert last[bot_seat].view.rack  # the bot's own rack, as a person's seat gets
    # north-sultan labels no bots: nothing in any view tells the bot seat
    assert all(not any(u.view.bots) for u in last.values())
    assert all(b"bot_level" not in msgspec.json.encode(u.view) for u in last.values())


def _timed_run(profile: dict[str, object], bots: bool = False
               ) -> list[tuple[TableState, list[int], E.Event, list[PlayerUpdate]]]:
    """A match played through the processor and the projection, each event alone at its
    own time (ms): per event, the state after it, the `at`s of the events that moved the
    turn so far, the event and its updates."""
    match = play_match(profile, match_seeds(5, 1)[0]).commands
    if bots:
        match = [msgspec.structs.replace(c, bot=True) if isinstance(c, E.Sit) else c
                 for c in match]
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    views = PlayerViews()
    out, starts, turn = [], [], 0
    for i, c in enumerate(match):
        command = msgspec.structs.replace(c, table_id="t", command_id=f"t-{i}")
        handled = tables.handle(b"t", E.encode(command), "commands", i, lambda: "00" * 32,
                                at=1_700_000_000_000 + 1_000 * i)
        for event in handled.events:
            updates = views.apply([event])[0]
            state = updates[0].view if updates else None
            assert state is not None
            folded = views.tables.get("t")
            if folded is not None and folded.turn != turn:
                turn = folded.turn
                starts.append(event.at)
            out.append((folded or NEW_TABLE, list(starts), event, updates))
    return out


def test_the_turn_deadline_is_the_turns_first_event_time_plus_the_turn_time() -> None:
    run = _timed_run(PROFILE)  # north-sultan: 45 s a turn
    timed = 0
    clock = TurnClock()
    for state, starts, event, updates in run:
        clock.fold(event, event.at / 1000)
        playing = state.status == "playing" and state.hand is not None and \
            state.hand.phase != "over"
        want = starts[-1] + 45_000 if playing and starts else None
        assert {u.view.turn_by for u in updates} == {want}, event  # every seat's the same
        deadline = clock.deadline("t")  # the timers' rule gives the same instant
        assert (deadline.at * 1000 if deadline is not None else None) == want
        timed += want is not None
    assert timed > 50
    # within a turn the deadline stays (a draw); the discard that passes the turn moves it
    kept = moved = 0
    for (before, _, _, previous), (after, _, event, updates) in itertools.pairwise(run):
        was, now = previous[0].view.turn_by, updates[0].view.turn_by
        if isinstance(event, E.TileDrawn) and was is not None:
            assert now == was
            kept += 1
        if isinstance(event, E.TileDiscarded) and after.turn != before.turn and \
                now is not None:
            assert now == event.at + 45_000 and was is not None and now > was
            moved += 1
    assert kept > 10 and moved > 10


def test_no_deadline_where_the_house_has_no_turn_time_or_only_bots_play_untimed() -> None:
    untimed = {"base": "north-sultan", "options": {"hands_per_match": 1,
                                                   "turn_seconds": None}}
    assert all(u.view.turn_by is None for *_, updates in _timed_run(untimed)
               for u in updates)
    only_bots = {"base": "okeygg", "options": {"hands_per_match": 7}}  # untimed for bots
    assert all(u.view.turn_by is None for *_, updates in _timed_run(only_bots, bots=True)
               for u in updates)
    assert any(u.view.turn_by is not None for *_, updates in _timed_run(only_bots)
               for u in updates)


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
