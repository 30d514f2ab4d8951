"""The gateway's tournament board (okey101.app.gateway.tournaments): the matchmaker's own
decisions, from its pure core, folded into the lobby's list and the bracket."""

from __future__ import annotations

import msgspec
import pytest

from okey101.app.gateway import websocket as W
from okey101.app.gateway.tournaments import REREAD_MARGIN_MS, Index, TournamentBoard
from okey101.app.matchmaker import core
from okey101.app.matchmaker import records as R
from okey101.errors import MalformedInput
from tests.unit.test_matchmaker import NS, accounts, play_out, register, schedule


def board_of(log: list[R.AnyDecision]) -> TournamentBoard:
    board = TournamentBoard()
    for d in log:
        board.apply(R.decision_decoder.decode(R.encode(d)))  # as read from the topic
    return board


def test_a_scheduled_tournament_is_listed_open_with_its_registrations() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16) + register(m, "ayse") + register(m, "gokhan")
    [summary] = board_of(log).summaries("ayse", NS)
    assert summary.tournament_id == "cup" and summary.status == "open"
    assert summary.registered == 2 and summary.is_registered and summary.size == 16
    assert not board_of(log).summaries("onur", NS)[0].is_registered


def test_the_list_is_of_the_house_asked_for() -> None:
    m = core.Matchmaker()
    board = board_of(schedule(m))
    assert board.summaries("ayse", "okeygg") == []
    assert len(board.summaries("ayse")) == 1


def test_an_unregistered_player_is_no_longer_counted() -> None:
    m = core.Matchmaker()
    log = schedule(m) + register(m, "ayse")
    log += m.handle(R.Unregister(request_id="u", house=NS, player_id="ayse",
                                 tournament_id="cup"), accounts(), 2)
    [summary] = board_of(log).summaries("ayse")
    assert summary.registered == 0 and not summary.is_registered


def test_the_bracket_shows_every_round_and_the_standings_once_it_ended() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16, fill=True) + register(m, "ayse")
    log += m.tick(100)
    ended = play_out(m, log, 100)
    state = board_of(log).state("cup", "ayse")
    assert state is not None and state.tournament.status == "ended"
    assert [len(r.tables) for r in state.rounds] == [4, 1]
    final = state.rounds[-1].tables[0]
    assert final.places and len(final.players) == 4
    first = state.rounds[0].tables
    assert all(t.places and t.advancing for t in first)
    assert {p for t in first for p in t.advancing} == set(final.players) - \
        {p for p, e in zip(final.players, final.entrants, strict=True) if not e}
    assert [(p.player_id, p.place) for p in state.standings] == \
        [(p.player_id, p.place) for p in ended.standings]
    assert len(state.entrants) == 16 and "ayse" in state.entrants


def test_a_person_registered_is_no_bot_and_the_fillers_are() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16, fill=True) + register(m, "ayse")
    log += m.tick(100)
    board = board_of(log)
    entry = board.entries["cup"]
    assert "ayse" not in entry.bots and len(entry.bots) == 15
    assert board.watchers(entry) == {"ayse"}


def test_a_registration_sent_is_answered_once_by_its_decision() -> None:
    m = core.Matchmaker()
    board = board_of(schedule(m))
    board.sent("r-ayse-1", "cup")
    [d] = register(m, "ayse")
    changed = board.apply(d)
    assert changed is board.entries["cup"]
    assert board.asked == {}


def test_a_refused_registration_is_recognised_as_the_boards_own() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16) + register(m, "ayse")
    board = board_of(log)
    again = m.handle(R.Register(request_id="r-ayse-2", house=NS, player_id="ayse",
                                tournament_id="cup"), accounts(), 2)
    assert isinstance(again[0], R.Refused) and again[0].code == "already_registered"
    board.sent("r-ayse-2", "cup")
    assert board.refused(again[0]) == "cup"
    assert board.refused(again[0]) is None  # answered once


def test_an_unknown_tournament_has_no_state() -> None:
    assert TournamentBoard().state("nope", "ayse") is None


def test_a_tournament_frame_round_trips_through_the_published_schema() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16, fill=True)
    log += m.tick(100)
    play_out(m, log, 100)
    state = board_of(log).state("cup", "ayse", "t1")
    assert state is not None
    again = msgspec.json.decode(W.encode(state), type=W.AnyServerMessage)
    assert again == state


# ---------------------------------------------------------------- the tournaments topic
def index_of(log: list[R.AnyDecision]) -> Index:
    """The tournaments topic as the matchmaker writes it for `log`, folded as read back."""
    index = Index()
    for d in log:
        record = R.tournament_index(d)
        if record is not None:
            index.apply(*record)
    return index


def test_a_scheduled_tournament_stays_in_the_index_until_it_ends() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16, fill=True) + register(m, "ayse")
    assert list(index_of(log).schedules) == ["cup"]
    log += m.tick(100)
    assert list(index_of(log).schedules) == ["cup"]  # running: not finished
    play_out(m, log, 100)
    assert index_of(log).schedules == {}


def test_only_a_schedule_an_end_or_a_cancelling_writes_the_index() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16) + register(m, "ayse") + m.tick(100)  # too few: cancelled
    assert [type(d).__name__ for d in log if R.tournament_index(d)] == \
        ["TournamentScheduled", "TournamentCancelled"]
    assert index_of(log).schedules == {}


def test_the_matchmaker_names_its_unfinished_tournaments_for_the_index() -> None:
    m = core.Matchmaker()
    schedule(m, tid="cup")
    schedule(m, tid="later", starts_at=10_000)
    log = register(m, "ayse") + m.tick(100)  # cup: no entrants enough, cancelled
    assert any(isinstance(d, R.TournamentCancelled) for d in log)
    assert [d.tournament_id for d in m.unfinished()] == ["later"]


def test_decisions_are_re_read_from_the_earliest_unfinished_schedule_less_a_margin() -> None:
    index = Index()
    for tid, at in (("b", 9_000_000), ("a", 7_000_000)):
        d = R.TournamentScheduled(house=NS, at=at, request_id=tid, tournament_id=tid,
                                  name=tid, starts_at=at + 1, size=16, hands=1,
                                  fill_with_bots=False, bot_level=1)
        index.apply(tid.encode(), R.encode(d))
    assert index.reread_from() == 7_000_000 - REREAD_MARGIN_MS
    index.apply(b"a", None)
    assert index.reread_from() == 9_000_000 - REREAD_MARGIN_MS
    index.apply(b"b", None)
    assert index.reread_from() is None


def test_a_record_that_is_no_schedule_of_its_key_is_refused_and_changes_nothing() -> None:
    m = core.Matchmaker()
    [scheduled] = schedule(m)
    index = Index()
    index.apply(b"cup", R.encode(scheduled))
    registered = register(m, "ayse")[0]
    for key, value in ((b"cup", R.encode(registered)), (b"other", R.encode(scheduled)),
                       (None, R.encode(scheduled)), (b"cup", b"{not json")):
        with pytest.raises((MalformedInput, msgspec.DecodeError, msgspec.ValidationError)):
            index.apply(key, value)
    assert list(index.schedules) == ["cup"]
