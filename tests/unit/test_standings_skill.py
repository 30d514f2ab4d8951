"""The cross-house skill rating (okey101.standings.skill): OpenSkill's Plackett-Luce, by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from okey101.profiles import house
from okey101.standings import Ledger, MatchResult, Participant
from okey101.standings.match import TableTrack
from okey101.standings.skill import BETA, TAU, Skill, games, plackett_luce, rate
from okey101.standings.synthetic import Seating, encoded, match_events
from okey101.table import messages as E

skills_ = st.builds(Skill, mu=st.floats(-20, 60), sigma=st.floats(0.05, 9))


@st.composite
def a_game(draw: st.DrawFn) -> tuple[list[list[Skill]], list[int]]:
    if draw(st.booleans()):  # two teams of two
        teams = [[draw(skills_), draw(skills_)] for _ in range(2)]
    else:  # a free-for-all of 2-4
        teams = [[draw(skills_)] for _ in range(draw(st.integers(2, 4)))]
    ranks = [draw(st.integers(1, len(teams))) for _ in teams]
    return teams, ranks


@settings(max_examples=400, deadline=None)
@given(a_game())
def test_plackett_luce_equals_the_openskill_package(game: tuple[list[list[Skill]], list[int]]
                                                     ) -> None:
    teams, ranks = game
    model = PlackettLuce(tau=TAU, beta=BETA)
    theirs = model.rate([[model.rating(mu=s.mu, sigma=s.sigma) for s in team]
                         for team in teams], ranks=[float(r) for r in ranks])
    ours = plackett_luce(teams, ranks)
    for team_ours, team_theirs in zip(ours, theirs, strict=True):
        for mine, other in zip(team_ours, team_theirs, strict=True):
            assert mine.mu == pytest.approx(other.mu, rel=1e-9, abs=1e-9)
            assert mine.sigma == pytest.approx(other.sigma, rel=1e-9, abs=1e-9)


def result(hand_scores: list[list[int]], partners: bool = False,
           roles: tuple[str, ...] = ("played",) * 4) -> MatchResult:
    totals = [sum(h[s] for h in hand_scores) for s in range(4)] if hand_scores else [1, 2, 3, 4]
    return MatchResult(
        table_id="t", house="okeygg", ended_at=1, hands=max(1, len(hand_scores)),
        partners=partners, totals=totals, places=[1 + sum(o < t for o in totals) for t in totals],
        participants=[Participant(account=a, seat=s, role=r)  # type: ignore[arg-type]
                      for s, (a, r) in enumerate(zip("abcd", roles, strict=True))],
        hand_scores=hand_scores)


def test_every_hand_is_one_game_ranked_by_its_scores_lower_better() -> None:
    hands = [[-101, 40, 60, 80], [90, -202, 10, 10], [5, 5, 5, 5]]
    assert games(result(hands)) == [
        ([["a"], ["b"], ["c"], ["d"]], [1, 2, 3, 4]),
        ([["a"], ["b"], ["c"], ["d"]], [4, 1, 2, 2]),
        ([["a"], ["b"], ["c"], ["d"]], [1, 1, 1, 1])]


def test_the_hands_are_applied_in_order_one_update_each() -> None:
    hands = [[-101, 40, 60, 80], [90, -202, 10, 10]]
    now = {a: Skill() for a in "abcd"}
    for _, ranks in games(result(hands)):
        rated = plackett_luce([[now[a]] for a in "abcd"], ranks)
        now = {a: team[0] for a, team in zip("abcd", rated, strict=True)}
    assert rate(result(hands), {}) == now


def test_hands_not_places_decide_the_skill() -> None:
    # the same totals and places; a won hand by hand, b won one big hand
    steady = result([[0, 50, 20, 30], [0, 50, 20, 30], [0, 50, 20, 30]])
    lucky = result([[40, -150, 20, 30], [-40, 100, 20, 30], [0, 200, 20, 30]])
    assert steady.totals == lucky.totals
    assert rate(steady, {})["b"].mu < rate(lucky, {})["b"].mu


def test_partners_are_two_teams_ranked_by_the_teams_hand_total() -> None:
    hands = [[10, 0, 10, 30], [50, 0, -100, 0]]  # team 0+2: 20 vs 30, then -50 vs 0
    assert games(result(hands, partners=True)) == [
        ([["a", "c"], ["b", "d"]], [1, 2]), ([["a", "c"], ["b", "d"]], [1, 2])]


def test_a_partner_team_missing_a_whole_match_player_rates_nobody() -> None:
    hands = [[10, 0, 10, 30]]
    assert rate(result(hands, partners=True,
                       roles=("played", "played", "substitute", "played")), {}) == {}


def test_leavers_and_substitutes_are_not_rated() -> None:
    hands = [[10, 0, 10, 30]]
    rated = rate(result(hands, roles=("played", "left", "substitute", "played")), {})
    assert sorted(rated) == ["a", "d"]


def test_a_match_without_hand_scores_is_rated_once_by_its_places() -> None:
    assert games(result([])) == [([["a"], ["b"], ["c"], ["d"]], [1, 2, 3, 4])]


def test_the_fold_keeps_every_scored_hand_and_not_a_replayed_deal() -> None:
    events = match_events("t1", "okeygg", Seating(accounts=["a", "b", "c", "d"]),
                          [30, 60, 90, 120], 1_780_000_000_000, hands=3)
    replay = E.HandEnded(table_id="t1", seq=0, at=0, hand=1, finish="void", finished_by=None,
                         scores=[0, 0, 0, 0], racks=[[], [], [], []], seed="", replay=True)
    track = TableTrack("t1", house("okeygg"))
    folded = None
    for event in events[1:]:
        if isinstance(event, E.MatchStarted):
            track.fold(event)
            track.fold(replay)
            continue
        folded = track.fold(event) or folded
    assert folded is not None
    assert folded.hand_scores == [[10, 20, 30, 40]] * 3
    assert folded.hands == 3


def test_the_ledger_rates_the_hands_it_read() -> None:
    ledger = Ledger()
    for offset, value in enumerate(encoded(match_events(
            "t1", "okeygg", Seating(accounts=["a", "b", "c", "d"]), [30, 60, 90, 120],
            1_780_000_000_000, hands=3))):
        ledger.read(value, 0, offset)
    expected = rate(result([[10, 20, 30, 40]] * 3), {})
    assert ledger.board.skills == expected
    assert ledger.board.skills["a"].ordinal > ledger.board.skills["d"].ordinal


@given(st.lists(st.integers(-500, 500), min_size=2, max_size=4))
def test_hand_ranks_are_the_places_of_scoring(scores: list[int]) -> None:
    from okey101 import scoring
    from okey101.standings.skill import _places
    assert _places(scores) == scoring.places(scores)
