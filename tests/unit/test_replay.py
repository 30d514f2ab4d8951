"""Replay to any step, as a seat, the spectators or the server saw it; the readable table
and the hand history in words."""

from __future__ import annotations

import msgspec
import pytest

from okey101 import tiles
from okey101.app.replays.history import history
from okey101.app.replays.render import render
from okey101.app.replays.replay import (
    PUBLIC,
    SERVER,
    Skipped,
    events_as,
    fold,
    replay_step,
    step_for,
)
from okey101.errors import MalformedInput
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve, replay
from okey101.table.rules import is_new_turn
from okey101.table.views import SPECTATOR, event_for, player_view

from .matches import timed_events


def _turn_started(events: list[E.Event]) -> int:
    """The time of the last event that moved the turn on: the live views' turn clock."""
    state, started = NEW_TABLE, 0
    for event in events:
        after = evolve(state, event)
        if is_new_turn(state, after):
            started = event.at
        state = after
    return started


def test_a_step_shows_the_state_after_that_seq_as_the_seat_saw_it() -> None:
    events = timed_events()
    at = 40
    state = replay(events[:at])
    for seat in range(4):
        step = replay_step("sim", events, seat, at=at)
        assert step.seq == at and step.last_seq == len(events)
        assert step.view == player_view(state, seat, _turn_started(events[:at]))
        assert step.server is None
        assert step.event == event_for(events[at - 1], seat)
        assert step.at == events[at - 1].at and step.viewer == f"seat {seat}"


def test_spectators_get_the_public_view_and_auditors_everything() -> None:
    events = timed_events()
    state = replay(events[:40])
    public = replay_step("sim", events, PUBLIC, at=40)
    shown = player_view(state, SPECTATOR, _turn_started(events[:40]))
    assert public.view == shown and public.server is None
    server = replay_step("sim", events, SERVER, at=40)
    assert server.view == shown and server.server is not None
    hand = state.hand
    assert hand is not None
    assert server.server.racks == [tiles.names(s.rack) for s in hand.seats]
    assert server.server.deck == tiles.names(hand.deck[hand.deck_pos:])
    assert server.server.hand_seed == hand.seed and server.server.match_seed == state.match_seed


def test_a_hidden_event_at_the_step_is_not_shown() -> None:
    events = timed_events()
    dealt = next(e.seq for e in events if isinstance(e, E.HandDealt))
    assert replay_step("sim", events, 1, at=dealt).event is None
    assert replay_step("sim", events, SERVER, at=dealt).event == events[dealt - 1]


def test_a_hand_step_is_where_that_hand_ended() -> None:
    events = timed_events()
    ends = [e.seq for e in events if isinstance(e, E.HandEnded) and not e.replay]
    assert step_for(events, "sim", hand=1) == ends[0]
    assert step_for(events, "sim", hand=2) == ends[1]
    assert step_for(events, "sim") == len(events)
    playing = events[:ends[0] + 10]  # hand 2 is being played: its latest step
    assert step_for(playing, "sim", hand=2) == len(playing)


@pytest.mark.parametrize(("at", "hand", "message"), [
    (10_000, None, r"seq 10000 is past the end of table 'sim': its events are seq 1-\d+"),
    (0, None, "seq 0: seqs start at 1"),
    (None, 9, r"table 'sim' has no hand 9 \(hands 1-2\)"),
    (3, 1, "give --at or --hand, not both"),
])
def test_a_step_the_table_does_not_have_is_named(at: int | None, hand: int | None,
                                                 message: str) -> None:
    with pytest.raises(MalformedInput, match=message):
        replay_step("sim", timed_events(), PUBLIC, at=at, hand=hand)


def test_a_seat_that_does_not_exist_is_refused() -> None:
    with pytest.raises(MalformedInput, match="seat 4: a seat is 0-3"):
        replay_step("sim", timed_events(), 4)


def test_a_gap_in_the_log_stops_the_replay_where_it_is_and_says_why() -> None:
    events = list(timed_events())
    del events[30]  # as if the record of seq 31 could not be decoded
    skipped = [Skipped(partition=0, offset=77, reason="undecodable event: bad")]
    step = replay_step("sim", events, PUBLIC, at=50, skipped=skipped)
    assert step.seq == 30
    assert "stopped at seq 30" in step.stopped and "does not follow" in step.stopped
    assert step.skipped == skipped
    assert "offset 77" in render(step) and "stopped at seq 30" in render(step)


def test_an_event_the_state_refuses_stops_the_fold_without_raising() -> None:
    events = list(timed_events()[:20])
    bad = msgspec.structs.replace(events[19], seq=20)
    odd = E.TileDiscarded(table_id="sim", seq=21, seat=0, tile="R1")
    folded = fold([*events[:19], bad, odd])
    assert folded.state.seq in (19, 20) and folded.stopped


def test_the_readable_table_shows_the_viewers_rack_and_no_other() -> None:
    events = timed_events()
    state = replay(events[:40])
    assert state.hand is not None
    text = render(replay_step("sim", events, 2, at=40))
    assert f"rack     {' '.join(tiles.names(state.hand.seats[2].rack))}" in text
    assert text.count("rack     ") == 1 and "deck (top first)" not in text
    server = render(replay_step("sim", events, SERVER, at=40))
    assert server.count("rack     ") == 4 and "deck (top first)" in server
    assert "melds on the table" in text and "totals" in text


def test_the_history_tells_a_seat_its_own_tiles_and_only_those() -> None:
    events = timed_events()
    lines = history(events, 1)
    own_rack = next(e for e in events if isinstance(e, E.RackDealt) and e.seat == 1)
    assert f"  seat 1 holds {' '.join(own_rack.tiles)}" in lines
    assert not any(line.startswith("  seat 0 holds") for line in lines)
    drawn = [e for e in events if isinstance(e, E.TileDrawn)]
    own = next(e for e in drawn if e.seat == 1)
    other = next(e for e in drawn if e.seat == 2)
    assert any(f"seat 1 draws {own.tile} from the deck" in line for line in lines)
    assert any("seat 2 draws a tile from the deck" in line for line in lines)
    assert not any(f"seat 2 draws {other.tile}" in line for line in lines)
    assert not any("(server)" in line for line in lines)


def test_the_history_reads_like_a_hand_history() -> None:
    events = timed_events()
    lines = history(events, PUBLIC)
    assert lines[0] == "Table sim: north-sultan, created 2025-11-30 10:53:21 UTC"
    assert lines[1] == "Seat 0: p0"
    assert any(line.startswith("*** Hand 1 ***") for line in lines)
    assert any(line.startswith("*** Hand 1 ends") for line in lines)
    assert lines[-1].startswith("*** Match over")
    assert any("seed revealed" in line for line in lines)
    server = history(events, SERVER)
    assert any(line.startswith("  (server) seat 0 is dealt") for line in server)


def test_events_as_a_viewer_go_through_the_cores_filter() -> None:
    events = timed_events()
    for seat in (0, 3):
        expected = [s for e in events if (s := event_for(e, seat)) is not None]
        assert events_as(events, seat) == expected
    assert events_as(events, SERVER) == list(events)


def test_a_replay_read_only_up_to_its_step_shows_the_same() -> None:
    events = timed_events()
    end = next(e.seq for e in events if isinstance(e, E.HandEnded))
    whole = replay_step("sim", events, 3, hand=1)
    part = replay_step("sim", events[:end], 3, hand=1, table_last=len(events))
    assert part == whole
