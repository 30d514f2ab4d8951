"""The table directory: one entry per table, an idempotent upsert folded from its events."""

from __future__ import annotations

import msgspec
import pytest

from okey101.app.replays.directory import (
    TableEntry,
    fold,
    is_listed,
    is_newer,
    offset_for,
    parse_time,
    public_entry,
    skip,
)
from okey101.errors import MalformedInput
from okey101.table import messages as E
from okey101.table.evolve import replay
from okey101.table.views import public_view

from .matches import T0, timed_events

PARTITION = 3
BASE = 1000  # the offset of the table's first event; other tables' records in between


def offsets(events: tuple[E.Event, ...]) -> list[int]:
    return [BASE + 2 * i for i in range(len(events))]  # interleaved with another table


def build(events: tuple[E.Event, ...], entry: TableEntry | None = None) -> TableEntry:
    for event, offset in zip(events, offsets(events), strict=True):
        entry = fold(entry, event, PARTITION, offset)
    assert entry is not None
    return entry


def test_an_entry_says_what_the_table_is_where_its_events_are_and_how_it_ended() -> None:
    events = timed_events()
    entry = build(events)
    final = replay(events)
    ended = events[-1]
    assert isinstance(ended, E.MatchEnded)
    assert entry.table_id == "sim" and entry.house == "north-sultan"
    assert entry.options == {"hands_per_match": 2}
    assert entry.status == "over"
    assert entry.players == final.players and entry.bots == final.bots
    assert (entry.partition, entry.first_offset, entry.last_offset) == \
        (PARTITION, BASE, offsets(events)[-1])
    assert (entry.first_seq, entry.last_seq, entry.events) == (1, len(events), len(events))
    assert entry.created_at == T0 + 1000 and entry.ended_at == ended.at == entry.updated_at
    assert entry.started_at == next(e.at for e in events if isinstance(e, E.MatchStarted))
    assert entry.hands_total == 2 and entry.hands_played == len(final.hand_scores) == 2
    assert list(entry.totals) == ended.totals and list(entry.places) == ended.places
    assert entry.gaps == 0 and entry.skipped == ()


def test_each_hand_is_marked_from_its_start_to_its_end_with_offsets() -> None:
    events = timed_events()
    entry = build(events)
    where = dict(zip((e.seq for e in events), offsets(events), strict=True))
    starts = [e for e in events if isinstance(e, E.HandStarted)]
    ends = [e for e in events if isinstance(e, E.HandEnded)]
    assert [(m.hand, m.attempt) for m in entry.hands] == [(e.hand, e.attempt) for e in starts]
    for mark, start, end in zip(entry.hands, starts, ends, strict=True):
        assert (mark.started_seq, mark.started_offset) == (start.seq, where[start.seq])
        assert (mark.ended_seq, mark.ended_offset) == (end.seq, where[end.seq])
        assert (mark.finish, mark.finished_by) == (end.finish, end.finished_by)
        discards = [e for e in events if isinstance(e, E.TileDiscarded)
                    and start.seq < e.seq < end.seq]
        assert mark.turns == len(discards)


def test_folding_a_stretch_of_the_log_again_changes_nothing() -> None:
    events = timed_events()
    entry = build(events)
    assert build(events, entry) is entry  # every offset is already in it
    half = len(events) // 2
    partial = build(events[:half])
    # a restart from an older committed offset: the same events again, then the rest
    again = partial
    for event, offset in zip(events, offsets(events), strict=True):
        again = fold(again, event, PARTITION, offset)
    assert again == entry


def test_spectators_see_the_seating_the_core_shows_them() -> None:
    events = timed_events()
    entry = build(events)
    shown = public_view(replay(events))
    assert list(entry.public_players) == shown.players
    assert list(entry.public_bots) == shown.bots
    public = public_entry(entry)
    assert public.players == entry.public_players and public.bots == entry.public_bots
    assert "deck" not in msgspec.to_builtins(public)


def test_a_seat_handed_to_a_bot_is_marked_a_bot() -> None:
    events = list(timed_events()[:6])
    handed = E.SeatHandedToBot(table_id="sim", seq=len(events) + 1, at=T0, seat=2,
                               bot_id="bot-l2-sim-2")
    entry = build((*events, handed))
    assert entry.players[2] == "bot-l2-sim-2" and entry.bots == (False, False, True, False)


def test_an_undecodable_record_is_noted_by_its_offset_and_folds_nothing() -> None:
    events = timed_events()
    entry = build(events[:10])
    noted = skip(entry, "sim", PARTITION, entry.last_offset + 1)
    assert noted.skipped == (entry.last_offset + 1,) and noted.last_seq == entry.last_seq
    assert skip(noted, "sim", PARTITION, entry.last_offset + 1) is noted
    after = fold(noted, events[10], PARTITION, noted.last_offset + 1)
    assert after.last_seq == events[10].seq and after.gaps == 0


def test_an_event_that_does_not_follow_is_counted_as_a_gap() -> None:
    events = timed_events()
    entry = build(events[:10])
    after = fold(entry, events[11], PARTITION, entry.last_offset + 5)
    assert after.gaps == 1 and after.last_seq == events[11].seq


def test_a_staler_entry_never_replaces_a_fresher_one() -> None:
    events = timed_events()
    old, new = build(events[:10]), build(events[:20])
    assert is_newer(new, old) and is_newer(old, None)
    assert not is_newer(old, new) and not is_newer(new, new)


def test_the_listing_filters_by_house_player_status_and_time() -> None:
    entry = build(timed_events())
    player = entry.public_players[1]
    assert is_listed(entry, house="north-sultan", player=player, status="over")
    assert not is_listed(entry, house="okeygg")
    assert not is_listed(entry, status="playing")
    assert not is_listed(entry, player="nobody")
    assert is_listed(entry, since=entry.ended_at, until=entry.created_at + 1)
    assert not is_listed(entry, since=entry.ended_at + 1)
    assert not is_listed(entry, until=entry.created_at)


@pytest.mark.parametrize(("text", "ms"), [
    ("1764500000000", 1_764_500_000_000),
    ("2025-11-30", 1_764_460_800_000),
    ("2025-11-30T10:53:20", 1_764_500_000_000),
    ("2025-11-30T12:53:20+02:00", 1_764_500_000_000),
    ("2025-11-30T10:53:20Z", 1_764_500_000_000),
])
def test_times_are_ms_dates_or_date_times_in_utc_unless_said(text: str, ms: int) -> None:
    assert parse_time(text, "--since") == ms


def test_a_time_that_is_no_time_is_named() -> None:
    with pytest.raises(MalformedInput, match="--until 'yesterday': not a time"):
        parse_time("yesterday", "--until")


def test_a_replay_reads_only_up_to_the_end_of_the_hand_holding_its_step() -> None:
    events = timed_events()
    entry = build(events)
    first, second = entry.hands
    assert offset_for(entry, hand=1) == first.ended_offset
    assert offset_for(entry, hand=2) == second.ended_offset
    assert offset_for(entry, at=first.started_seq + 3) == first.ended_offset
    assert offset_for(entry, at=first.ended_seq + 1) == second.ended_offset
    assert offset_for(entry, at=entry.last_seq) is None  # past the last hand: all of it
    assert offset_for(entry) is None and offset_for(entry, hand=7) is None
    playing = build(events[:second.started_seq + 5])
    assert offset_for(playing, hand=2) is None
