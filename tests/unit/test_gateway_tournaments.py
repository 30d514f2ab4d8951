"""The gateway's tournament board (okey101.app.gateway.tournaments): the matchmaker's own
decisions, from its pure core, folded into the lobby's list and the bracket."""

from __future__ import annotations

import msgspec

from okey101.app.gateway import websocket as W
from okey101.app.gateway.tournaments import TournamentBoard
from okey101.app.matchmaker import core
from okey101.app.matchmaker import records as R
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
