"""Classic (düz) Okey (RULES.md section 12, seeds/004) as a game of the same engine: the
house `okey-oyna-duz`, its deal, its rule queries and views, its scoring (a count down from
20), the solver's "can this rack finish?", and `okey101 solve` for it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from okey101 import solver, tiles
from okey101.errors import IllegalMove, MalformedInput
from okey101.profiles import OKEY_OYNA_DUZ, house, resolve
from okey101.scoring import countdown_scores, hand_scores, is_countdown_over, remaining
from okey101.table import deal as D
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.table import scenario
from okey101.table.state import TableState
from okey101.table.viewrules import view_detail
from okey101.table.views import player_view
from okey101.terms import FinishKind
from services.cli.main import main
from tests.properties.support import command_of_to_act as _cmd
from tests.unit import brute
from tests.unit.test_solver import check_solution, okey_of, rack_of, small_racks

DUZ = "okey-oyna-duz"
RUNS = "R12 R13 R1 R2 R3 R4 B4 B5 B6 B7 B8 R7 Y7 K7"  # runs (12-13-1 too) and a group
DUZ_P = house(DUZ)
PAIRS = "R1 R1 R2 R2 B3 B3 K4 K4 Y9 Y9 F F K13 K13"
LOOSE = "R1 R2 R3 B4 B5 B6 B7 K7 Y7 R7 R12 R13 Y1 Y1 K2"  # 15 tiles that cannot finish
PAGE = "R13 Y13 B13 K7 K8 K9 K10 R12 Y12 B12 R1 Y1 B1"  # seeds/003's example: 37 in the count
TOO_MANY = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 Y10 Y11 K1"


# ---------------------------------------------------------------- the house
def test_the_duz_house_deals_15_and_14_and_counts_down_from_20() -> None:
    p = house(DUZ)
    assert (p.game, p.starter_tiles, p.other_tiles, p.countdown_from) == ("duz", 15, 14, 20)
    assert p.run_wraps_13_to_1 and p.partners_allowed and not p.penalties
    assert (p.countdown_finish_cost, p.indicator_show_cost) == (2, 1)


@pytest.mark.parametrize("start", [20, 30, 40, 50])
def test_duz_counts_down_from_20_30_40_or_50(start: int) -> None:
    assert resolve({"base": DUZ, "options": {"countdown_from": start}}).countdown_from == start


@pytest.mark.parametrize(("options", "named"), [
    ({"countdown_from": 25}, "countdown_from=25"),
    ({"countdown_from": None}, "countdown_from=None"),
    ({"game": "101"}, "'game' cannot be overridden"),
    ({"starter_tiles": 22}, "'starter_tiles' cannot be overridden"),
])
def test_duz_options_out_of_the_rules_are_refused_naming_them(options: dict[str, Any],
                                                              named: str) -> None:
    with pytest.raises(MalformedInput, match=named):
        resolve({"base": DUZ, "options": options})


def test_a_101_house_has_no_countdown_nor_a_game_override() -> None:
    with pytest.raises(MalformedInput, match="only düz counts down"):
        resolve({"base": "okey-oyna", "options": {"countdown_from": 20}})
    with pytest.raises(MalformedInput, match="'game' cannot be overridden"):
        resolve({"base": "okey-oyna", "options": {"game": "duz"}})


def test_a_duz_deal_is_15_14_14_14_the_indicator_and_48_in_the_deck() -> None:
    dealt = D.deal(bytes(range(32)), 2, D.Sizes(15, 14))
    assert [len(r) for r in dealt.racks] == [14, 14, 15, 14]
    assert len(dealt.deck) == 48 and dealt.indicator != tiles.FAKE
    # the same shuffled order as 101: the starter's rack is its first 15 tiles
    assert dealt.racks[2] == tuple(D.shuffled(bytes(range(32)))[:15])


# ---------------------------------------------------------------- scoring
@pytest.mark.parametrize(("finish", "lost"), [
    ("normal", 2), ("okey", 4), ("pairs", 4), ("pairs_okey", 8)])
def test_a_finish_costs_every_other_seat_2_doubled_by_okey_and_by_pairs(
        finish: FinishKind, lost: int) -> None:
    assert countdown_scores(OKEY_OYNA_DUZ, 1, finish).scores == (lost, 0, lost, lost)


def test_with_partners_the_finishers_partner_loses_nothing_in_duz() -> None:
    assert countdown_scores(OKEY_OYNA_DUZ, 1, "okey", partners=True).scores == (4, 0, 4, 0)


def test_the_deck_running_out_costs_nobody_anything_in_duz() -> None:
    result = hand_scores(OKEY_OYNA_DUZ, 0, None, "deck_exhausted", [None] * 4, [[]] * 4)
    assert result.scores == (0, 0, 0, 0) and not result.replay


@pytest.mark.parametrize("finish", ["elden", "elden_okey", "void"])
def test_duz_has_no_elden_nor_void_hand(finish: FinishKind) -> None:
    with pytest.raises(IllegalMove):
        countdown_scores(OKEY_OYNA_DUZ, 0 if finish != "void" else None, finish)


def test_a_match_of_duz_is_over_when_a_seat_has_lost_its_whole_count() -> None:
    p = resolve({"base": DUZ, "options": {"countdown_from": 30}})
    assert remaining(p, [4, 29, 0, 12]) == [26, 1, 30, 18]
    assert not is_countdown_over(p, [4, 29, 0, 12])
    assert is_countdown_over(p, [4, 30, 0, 12]) and is_countdown_over(p, [4, 33, 0, 12])
    assert remaining(house("okeygg"), [1, 2, 3, 4]) is None
    assert not is_countdown_over(house("okeygg"), [900, 0, 0, 0])


# ---------------------------------------------------------------- can this rack finish?
def test_a_15_tile_rack_finishes_by_discarding_its_loose_tile() -> None:
    okey = okey_of("Y5")
    found = R.best_finish(DUZ_P, rack_of(RUNS + " K2"), okey)
    assert found is not None and found.discard == tiles.parse("K2") and not found.pairs
    assert sorted(t for m in found.melds for t, _ in m.tiles) == sorted(rack_of(RUNS))


def test_12_13_1_finishes_only_where_it_is_a_run() -> None:
    okey = okey_of("Y5")
    assert solver.finishes(rack_of(RUNS + " K2"), okey, wraps=True)
    assert solver.finishes(rack_of(RUNS + " K2"), okey, wraps=False) == []


def test_every_way_to_win_is_listed_and_the_house_picks_the_costliest() -> None:
    """Seven pairs and the okey: discarding the okey wins, and so does discarding a K13
    (the okey then pairs the other); the house's scoring puts the okey discard first."""
    okey = okey_of("Y5")
    options = solver.finishes(rack_of(PAIRS + " Y6"), okey, True)
    kinds = {(tiles.name(f.discard) if f.discard is not None else None, f.pairs)
             for f in options}
    assert ("Y6", True) in kinds and ("K13", True) in kinds
    best = R.best_finish(DUZ_P, rack_of(PAIRS + " Y6"), okey)
    assert best is not None and (best.discard, best.pairs) == (okey, True)


def test_an_okey_discarded_last_and_seven_pairs_are_the_bigger_finishes() -> None:
    okey = okey_of("Y5")  # Y6
    with_okey = R.best_finish(DUZ_P, rack_of(RUNS + " Y6"), okey)
    assert with_okey is not None and with_okey.discard == okey  # x2, not a run with it
    pairs = R.best_finish(DUZ_P, rack_of(PAIRS + " K2"), okey)
    assert pairs is not None and pairs.pairs and len(pairs.melds) == 7
    both = R.best_finish(DUZ_P, rack_of(PAIRS + " Y6"), okey)
    assert both is not None and both.pairs and both.discard == okey


def test_a_14_tile_rack_finishes_only_whole_and_a_loose_rack_not_at_all() -> None:
    okey = okey_of("Y5")
    whole = R.best_finish(DUZ_P, rack_of(RUNS), okey)
    assert whole is not None and whole.discard is None
    assert R.best_finish(DUZ_P, rack_of(LOOSE), okey) is None


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_racks())
def test_fewest_left_leaves_the_brute_force_fewest_tiles(case: tuple[list[int], int]) -> None:
    rack, okey = case
    for wraps in (False, True):
        found = solver.fewest_left(rack, okey, wraps)
        check_solution(found, rack, okey, wraps)
        assert len(found.leftover) == brute.fewest_left(rack, okey, wraps)


# ---------------------------------------------------------------- the engine's rules
def _table(racks: dict[int, str], starter: int = 0) -> TableState:
    doc: dict[str, Any] = {"profile": DUZ, "deal": stacked(racks, starter), "commands": []}
    state, _ = scenario.setup(doc)
    return state


def stacked(racks: dict[int, str], starter: int) -> dict[str, Any]:
    """A düz deal: the named racks, the others filled from the canonical order."""
    named = {seat: text.split() for seat, text in racks.items()}
    used = [t for r in named.values() for t in r] + ["Y5"]
    pool = [t for t in tiles.names(tiles.full_set()) if t != "F"]
    for t in used:
        if t in pool:
            pool.remove(t)
    out = []
    for seat in range(4):
        rack = named.get(seat, [])
        while len(rack) < (15 if seat == starter else 14):
            rack.append(pool.pop())
        out.append(rack)
    return {"indicator": "Y5", "starter": starter, "racks": out}


def _send(state: TableState, command: E.Command) -> TableState:
    after, decision = scenario.apply(state, command)
    assert isinstance(decision, list), decision
    return after


def test_duz_allows_draw_or_take_then_discard_or_finish_and_nothing_else() -> None:
    state = _table({0: "K13"})
    assert R.allowed_commands(state, 0) == ["discard", "finish"]  # the starter's 15 tiles
    state = _send(state, _cmd(state, E.Discard, tile="K13"))
    assert R.allowed_commands(state, 1) == ["draw", "take_discard"]
    state = _send(state, _cmd(state, E.Draw))
    assert R.allowed_commands(state, 1) == ["discard", "finish"]
    assert R.allowed_commands(state, 2) == []


def test_a_duz_view_publishes_finish_the_count_left_and_no_opening() -> None:
    state = _table({0: "Y5"})
    view = player_view(state, 0)
    assert view.rules.allowed == ["show_indicator", "discard", "finish"]
    assert view.remaining == [20, 20, 20, 20]
    assert view.hand is not None and view.hand.seats[0].points_needed == 0
    assert not view.rules.may_lay_off and not view.rules.may_open_pairs
    assert not view.rules.is_elden_open and view_detail(view).penalised_discards == []
    state = _send(state, _cmd(state, E.ShowIndicator))
    assert player_view(state, 2).remaining == [20, 19, 19, 19]
    assert "show_indicator" not in player_view(state, 0).rules.allowed


def test_a_finish_ends_the_hand_with_the_shown_melds_on_the_table() -> None:
    state = _table({0: RUNS + " K2"})
    melds = [["R12", "R13", "R1"], ["R2", "R3", "R4"], ["B4", "B5", "B6", "B7", "B8"],
             ["R7", "Y7", "K7"]]
    after, decision = scenario.apply(state, _cmd(state, E.Finish, tile="K2", melds=melds))
    assert isinstance(decision, list)
    assert [type(e).__name__ for e in decision] == ["RackShown", "HandEnded", "MatchEnded"]
    hand = after.hand
    assert hand is not None and hand.seats[0].rack == () and hand.phase == "over"
    assert [m.meld.notation(hand.okey) for m in hand.melds] == melds
    ended = decision[-1]
    assert isinstance(ended, E.MatchEnded) and ended.remaining == [20, 18, 18, 18]


def test_owed_take_and_the_opening_gates_do_not_apply_in_duz() -> None:
    state = _table({0: "K13"})
    state = _send(state, _cmd(state, E.Discard, tile="K13"))
    state = _send(state, _cmd(state, E.TakeDiscard))
    assert R.owed_take(state, 1) is None
    for gate in (R.check_open, R.check_lay):
        with pytest.raises(IllegalMove, match="düz okey has no"):
            gate(state, 1)
    with pytest.raises(IllegalMove) as raised:
        R.check_touch_table(state, 1, "lay off", "LayOff")
    assert raised.value.code == "not_in_duz"


# ---------------------------------------------------------------- okey101 solve
def _solve(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["solve", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_solve_answers_whether_a_duz_rack_can_finish(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    code, out, _ = _solve(capsys, "--profile", DUZ, "--indicator", "Y5", *RUNS.split(), "Y6")
    answer = json.loads(out)
    assert code == 0 and answer["finishes"] is True
    assert answer["finish"]["discard"] == "Y6" and answer["finish"]["kind"] == "okey"
    code, out, _ = _solve(capsys, "--profile", DUZ, "--indicator", "Y5",
                          *LOOSE.split())
    assert code == 0 and json.loads(out)["finishes"] is False


def test_solve_refuses_a_rack_larger_than_15_for_duz_and_22_for_101(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _solve(capsys, "--profile", DUZ, "--indicator", "Y5", *RUNS.split(),
                          "K2", "K3")
    assert code == 2 and "16 tiles: a rack holds at most 15 in düz" in err
    assert "\n" not in err.strip()
    code, _, err = _solve(capsys, "--profile", "okeygg", "--indicator", "B5",
                          *TOO_MANY.split())
    assert code == 2 and "23 tiles: a rack holds at most 22" in err


def test_solve_names_the_position_of_a_bad_token(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _solve(capsys, "--profile", DUZ, "--indicator", "Y5", "R1", "R2", "Q3")
    assert code == 2 and "rack, tile " in err and "unknown tile 'Q3'" in err


def test_solve_reports_the_34_count_when_the_option_is_given(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _solve(capsys, "--profile", "classic", "--option", "meld_value=third",
                          "--indicator", "Y5",
                          *PAGE.split())
    answer = json.loads(out)
    assert code == 0 and answer["opening_value"] == 37 and answer["opening_points"] == 34
    code, _, err = _solve(capsys, "--profile", "classic", "--option", "meld_value",
                          "--indicator", "Y5", "R1")
    assert code == 2 and "KEY=VALUE" in err
