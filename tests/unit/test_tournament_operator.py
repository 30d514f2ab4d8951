"""`okey101 tournament`'s checks (okey101.app.tournament_operator): what the matchmaker
would refuse, and what the decisions say is over, is refused before anything is written."""

from __future__ import annotations

import pytest

from okey101.app import tournament_operator as operator
from okey101.app.matchmaker import core
from okey101.app.matchmaker import records as R
from okey101.errors import MalformedInput

NS = "north-sultan"
NOW = 1_767_225_600_000


def request(**changes: object) -> R.ScheduleTournament:
    fields: dict[str, object] = {"request_id": "ops/1", "house": NS, "tournament_id": "cup",
                                 "starts_at": NOW + 3_600_000, "size": 16, "at": NOW}
    fields.update(changes)
    return R.ScheduleTournament(**fields)  # type: ignore[arg-type]


def decided(*requests: R.AnyRequest, now: int = NOW) -> list[R.AnyDecision]:
    m = core.Matchmaker()
    out: list[R.AnyDecision] = []
    for q in requests:
        out += m.handle(q, lambda house, player: core.Account(), now)
    return out


def refusal(call: object) -> str:
    with pytest.raises(MalformedInput) as caught:
        call()  # type: ignore[operator]
    return str(caught.value)


def test_a_good_schedule_is_returned_as_it_is() -> None:
    q = request(name="Cuma Kupası", hands=11, fill_with_bots=True, bot_level=2)
    assert operator.schedule(q, operator.board_of([]), NOW) == q


@pytest.mark.parametrize(("changes", "words"), [
    ({"house": "nowhere"}, "--house 'nowhere': no such house"),
    ({"house": "okeygg"}, "no_tournaments: okeygg holds no tournaments"),
    ({"starts_at": NOW}, "in the past"),
    ({"starts_at": NOW - 1}, "in the past"),
    ({"size": 32}, "bad_schedule: size 32: north-sultan holds tournaments of 16, 64"),
    ({"hands": 100}, "bad_schedule: hands 100: north-sultan plays 1-99"),
    ({"bot_level": 4}, "bad_schedule: bot level 4: 0-3"),
    ({"bot_level": -1}, "bad_schedule: bot level -1: 0-3"),
    ({"tournament_id": ""}, "--id ''"),
    ({"tournament_id": "a b"}, "--id 'a b'"),
    ({"tournament_id": "x" * 65}, "1-64 letters"),
])
def test_a_schedule_the_matchmaker_would_refuse_is_refused_naming_the_argument(
        changes: dict[str, object], words: str) -> None:
    assert words in refusal(lambda: operator.schedule(request(**changes),
                                                      operator.board_of([]), NOW))


def test_every_schedule_the_command_accepts_the_matchmaker_schedules() -> None:
    for size in (16, 64):
        for hands in (0, 1, 99):
            for level in range(4):
                q = request(size=size, hands=hands, bot_level=level)
                operator.schedule(q, operator.board_of([]), NOW)
                (d,) = decided(q)
                assert isinstance(d, R.TournamentScheduled), d


def test_an_id_the_house_has_scheduled_is_refused_even_once_it_is_over() -> None:
    log = decided(request(), R.CancelTournament(request_id="c", house=NS, tournament_id="cup"))
    words = refusal(lambda: operator.schedule(request(request_id="ops/2"),
                                              operator.board_of(log), NOW))
    assert words == "--id 'cup': north-sultan has scheduled it already"


def test_a_cancel_of_an_unknown_or_cancelled_tournament_is_refused() -> None:
    cancel = R.CancelTournament(request_id="c1", house=NS, tournament_id="cup")
    assert refusal(lambda: operator.cancel(cancel, operator.board_of([]))) == \
        "'cup': north-sultan has no such tournament"
    open_ = operator.board_of(decided(request()))
    assert operator.cancel(cancel, open_) == cancel
    over = operator.board_of(decided(request(), cancel))
    assert refusal(lambda: operator.cancel(R.CancelTournament(
        request_id="c2", house=NS, tournament_id="cup"), over)) == \
        "'cup': the tournament is cancelled already"
    assert "no such house" in refusal(lambda: operator.cancel(R.CancelTournament(
        request_id="c3", house="nowhere", tournament_id="cup"), open_))


def test_a_cancel_of_an_ended_tournament_is_refused() -> None:
    ended = R.TournamentEnded(house=NS, at=NOW + 2, tournament_id="cup", standings=[],
                              matches=0)
    board = operator.board_of([*decided(request()), ended])
    assert refusal(lambda: operator.cancel(R.CancelTournament(
        request_id="c", house=NS, tournament_id="cup"), board)) == \
        "'cup': the tournament has ended"


def test_a_start_is_ms_or_an_iso_time_with_its_zone() -> None:
    assert operator.parse_start("1767225600000") == 1_767_225_600_000
    assert operator.parse_start("2026-01-01T03:00:00+03:00") == 1_767_225_600_000
    assert operator.parse_start("2026-01-01T00:00:00Z") == 1_767_225_600_000
    assert "time zone" in refusal(lambda: operator.parse_start("2026-01-01T00:00:00"))
    assert "neither ms" in refusal(lambda: operator.parse_start("tomorrow"))


def test_the_list_shows_each_tournament_of_the_house_with_its_status_and_reason() -> None:
    cancel = R.CancelTournament(request_id="c", house=NS, tournament_id="b", reason="rain")
    log = decided(request(tournament_id="a", name="Cuma"),
                  request(request_id="ops/2", tournament_id="b"),
                  R.Register(request_id="r", house=NS, player_id="p1", tournament_id="a"),
                  cancel)
    rows = operator.rows(operator.board_of(log), NS)
    assert [(r.tournament_id, r.status, r.registered, r.reason) for r in rows] == \
        [("a", "open", 1, ""), ("b", "cancelled", 0, "rain")]
    text = operator.render(rows)
    assert "Cuma" in text and "2026-01-01 01:00" in text and "cancelled (rain)" in text
    assert operator.rows(operator.board_of(log), "okeygg") == []
    assert "no such house" in refusal(lambda: operator.rows(operator.board_of(log), "x"))


def test_the_matchmakers_answer_is_one_line_and_a_refusal_is_not_accepted() -> None:
    (scheduled,) = decided(request())
    assert operator.answer(scheduled) == \
        (True, "scheduled cup in north-sultan, starting 2026-01-01T01:00:00Z")
    (refused,) = decided(R.CancelTournament(request_id="c", house=NS, tournament_id="x"))
    assert operator.answer(refused) == \
        (False, "refused (unknown_tournament): north-sultan has no tournament 'x'")
