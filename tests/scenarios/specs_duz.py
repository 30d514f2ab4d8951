"""Specs: classic (düz) Okey, RULES.md §12 (seeds/004), as the house `okey-oyna-duz` plays it.

The indicator is Y5 throughout, so the okey is Y6 and a fake okey (F) plays as Y6. Seat 1
is dealt 14 tiles; the starter, seat 0, 15. What a finish costs the others is the house's
data (profiles.OKEY_OYNA_DUZ): 2, doubled by seven pairs and by an okey discarded last.
"""

from __future__ import annotations

from typing import Any

from tests.scenarios.builder import Sc, scenario

DUZ = "okey-oyna-duz"
RUNS = [["R12", "R13", "R1"], ["R2", "R3", "R4"], ["B4", "B5", "B6", "B7", "B8"],
        ["R7", "Y7", "K7"]]  # 14 tiles: runs (12-13-1 among them) and a group
PAIRS = [["R1", "R1"], ["R2", "R2"], ["B3", "B3"], ["K4", "K4"], ["Y9", "Y9"], ["F", "F"],
         ["K13", "K13"]]  # seven pairs, a fake okey pair among them


def _tiles(groups: list[list[str]]) -> list[str]:
    return [t.split("=")[0] for g in groups for t in g]


def _less(tiles: list[str], tile: str) -> list[str]:
    out = list(tiles)
    out.remove(tile)
    return out


def _ended(finish: str, seat: int | None, scores: list[int]) -> dict[str, Any]:
    return {"type": "hand_ended", "finish": finish, "finished_by": seat, "scores": scores}


def _won(S: Sc, groups: list[list[str]], pairs: bool, last: str, finish: str, cost: int
         ) -> None:
    """Seat 1 draws the last tile of `groups`, discards `last` and shows `groups`; the one
    deal ends the match."""
    shown = _tiles(groups)
    dealt = [*_less(shown, shown[-1]), last]
    S.deal("Y5", 0, r1=dealt)
    S.discard(0)
    S.draw(1, shown[-1])
    scores = [cost, 0, cost, cost]
    key = "pairs" if pairs else "melds"
    S.finish(1, last, **{key: groups}, x={
        "events": ["rack_shown", "hand_ended", "match_ended"],
        "has": [{"type": "rack_shown", "seat": 1, "tile": last, "pairs": pairs},
                _ended(finish, 1, scores),
                {"type": "match_ended", "totals": scores,
                 "remaining": [20 - cost, 20, 20 - cost, 20 - cost]}]})
    S.expect(finish=finish, finished_by=1, hand_scores=[scores], totals=scores,
             racks=S.racks(), status="over")


# ---------------------------------------------------------------- the deal and the turn
@scenario(DUZ, "a_duz_hand_deals_15_and_14_tiles_and_has_no_opening",
          "RULES.md §12 (okey-oyna-duz): düz deals 14 tiles (the starter 15) and has no "
          "opening: nothing is opened, laid or laid off before the finish")
def _no_opening(S: Sc) -> None:
    S.deal("Y5", 0, r1=["K7", "K8", "K9", "R3", "Y3", "B3"])
    S.discard(0)
    S.draw(1)
    S.open(1, [["K7", "K8", "K9"], ["R3", "Y3", "B3"]], x="not_in_duz")
    S.lay(1, [["K7", "K8", "K9"]], x="not_in_duz")
    S.lay_off(1, 0, ["K7"], x="not_in_duz")
    S.declare(1, x="not_applicable")
    S.discard(1)
    S.expect(opened=[None, None, None, None], penalties=[0, 0, 0, 0],
             racks=S.racks(), status="playing")


@scenario(DUZ, "a_taken_discard_need_not_be_used",
          "RULES.md §12 (okey-oyna-duz): a player may take the previous discard whatever "
          "it does for the rack, and keep it or discard another tile")
def _free_take(S: Sc) -> None:
    S.deal("Y5", 0, r0=["K2"])
    S.discard(0, "K2")
    S.take(1, x={"events": ["discard_taken"]})
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.expect(penalties=[0, 0, 0, 0], racks=S.racks())


@scenario(DUZ, "an_okey_may_be_discarded_without_penalty_in_duz",
          "RULES.md §12 (okey-oyna-duz): düz has no in-game penalties: an okey (or any "
          "tile) is discarded at no cost, and the next player may take it")
def _okey_discard(S: Sc) -> None:
    S.deal("Y5", 0, r0=["Y6"])
    S.discard(0, "Y6", x={"events": ["tile_discarded"]})
    S.take(1, x={"has": [{"type": "discard_taken", "tile": "Y6"}]})
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0])


@scenario(DUZ, "finish_is_for_the_seat_to_act_once_it_has_drawn",
          "RULES.md §12 (okey-oyna-duz): a seat finishes on its own turn, after it drew "
          "(the starter, with its 15 tiles, at once)")
def _finish_turn(S: Sc) -> None:
    shown = _tiles(RUNS)
    S.deal("Y5", 0, r1=[*_less(shown, "B8"), "K2"])
    S.discard(0)
    S.finish(1, "K2", melds=RUNS, x="wrong_phase")
    S.raw(2, "finish", tile="K2", melds=RUNS, x="not_your_turn")
    S.draw(1, "B8")
    S.finish(1, "K2", melds=RUNS, x={"has": [_ended("normal", 1, [2, 0, 2, 2])]})


# ---------------------------------------------------------------- finishing
@scenario(DUZ, "a_finish_shows_14_tiles_as_runs_and_groups_and_costs_the_others_2",
          "RULES.md §12 (okey-oyna-duz): after the last discard all 14 tiles form runs and "
          "groups; every other seat loses 2 (this house's count) from its 20")
def _finish_runs(S: Sc) -> None:
    _won(S, RUNS, False, "K2", "normal", 2)


@scenario(DUZ, "12_13_1_is_a_run_in_duz_and_13_1_2_never",
          "RULES.md §12 (okey-oyna-duz): 12-13-1 is a valid run in düz; 13-1-2 is not")
def _wrap(S: Sc) -> None:
    bad = [["R13", "R1", "R2"], ["R9", "R10", "R11"], ["B4", "B5", "B6", "B7", "B8"],
           ["R7", "Y7", "K7"]]
    good = [["R11", "R12", "R13", "R1"], ["R7", "R8", "R9", "R10"],
            ["B4", "B5", "B6"], ["K4", "K5", "K6"]]
    S.deal("Y5", 0, r1=_tiles(bad), r2=[*_less(_tiles(good), "K6"), "Y2"])
    S.discard(0)
    S.draw(1, "K2")
    S.finish(1, "K2", melds=bad, x="invalid_meld")
    S.discard(1, "K2")
    S.draw(2, "K6")
    S.finish(2, "Y2", melds=good, x={"has": [
        {"type": "rack_shown", "melds": good}, _ended("normal", 2, [2, 2, 0, 2])]})


@scenario(DUZ, "seven_pairs_finish_costs_the_others_4",
          "RULES.md §12 (okey-oyna-duz): the 14 tiles may be seven pairs (a fake okey pair "
          "among them); a pairs finish doubles: every other seat loses 4")
def _finish_pairs(S: Sc) -> None:
    _won(S, PAIRS, True, "K2", "pairs", 4)


@scenario(DUZ, "an_okey_discarded_to_finish_costs_the_others_4",
          "RULES.md §12 (okey-oyna-duz): discarding an okey to finish doubles: every other "
          "seat loses 4")
def _finish_okey(S: Sc) -> None:
    _won(S, RUNS, False, "Y6", "okey", 4)


@scenario(DUZ, "seven_pairs_and_an_okey_last_cost_the_others_8",
          "RULES.md §12 (okey-oyna-duz): seven pairs and an okey discarded last: x4, every "
          "other seat loses 8")
def _finish_pairs_okey(S: Sc) -> None:
    _won(S, PAIRS, True, "Y6", "pairs_okey", 8)


@scenario(DUZ, "the_okey_is_a_joker_in_duz_runs_groups_and_pairs",
          "RULES.md §12, §1 (okey-oyna-duz): an okey stands for any tile in a run, a group "
          "or a pair of the finish; a fake okey is only the okey's tile (Y6)")
def _joker(S: Sc) -> None:
    melds = [["K8", "Y6=K9", "K10"], ["R5", "Y6=Y5", "B5"], ["Y4", "Y5", "F", "Y7"],
             ["B10", "B11", "B12", "B13"]]
    S.deal("Y5", 0, r1=[*_less(_tiles(melds), "B13"), "K2"])
    S.discard(0)
    S.draw(1, "B13")
    S.finish(1, "K2", melds=[["K8", "Y6=K9", "K10"], ["R5", "Y6=Y5", "B5"],
                             ["Y4", "Y5", "F=Y8", "Y7"], ["B10", "B11", "B12", "B13"]],
             x="fake_okey_is_not_a_joker")
    S.finish(1, "K2", melds=melds, x={"has": [
        {"type": "rack_shown", "melds": melds}, _ended("normal", 1, [2, 0, 2, 2])]})


@scenario(DUZ, "a_finish_must_show_every_tile_but_the_discard",
          "RULES.md §12 (okey-oyna-duz): the finish shows all 14 tiles left, as melds or "
          "as pairs, never both; a tile left out, or not held, and the finish is refused")
def _whole(S: Sc) -> None:
    shown = _tiles(RUNS)
    S.deal("Y5", 0, r1=[*_less(shown, "B8"), "K2"])
    S.discard(0)
    S.draw(1, "B8")
    S.finish(1, "K2", melds=RUNS[:3], x="must_show_whole_rack")
    S.finish(1, "K2", melds=[*RUNS[:3], ["R7", "Y7", "B7"]], x="tile_not_in_rack")
    S.finish(1, "K9", melds=RUNS, x="tile_not_in_rack")
    S.raw(1, "finish", tile="K2", melds=RUNS[:3], pairs=[["R7", "R7"]], x="finish_one_way")
    S.finish(1, "B8", melds=[*RUNS[:2], ["B4", "B5", "B6", "B7"], ["R7", "Y7", "K7"]],
             x="must_show_whole_rack")
    S.finish(1, "K2", melds=RUNS, x={"events": ["rack_shown", "hand_ended", "match_ended"]})


# ---------------------------------------------------------------- the indicator, the deck
@scenario(DUZ, "showing_the_indicator_costs_every_other_seat_1",
          "okey-oyna-duz (this house's rule, the seed is silent): a seat holding the "
          "indicator's twin may show it before its first draw; every other seat loses 1")
def _indicator(S: Sc) -> None:
    S.deal("Y5", 0, r1=["Y5"])
    S.discard(0)
    S.show(1, x={"events": ["indicator_shown", "penalty_imposed", "penalty_imposed",
                            "penalty_imposed"],
                 "has": [{"type": "penalty_imposed", "seat": s, "points": 1,
                          "reason": "indicator_shown"} for s in (0, 2, 3)]})
    S.show(1, x="already_shown")
    S.idle(1)
    S.show(2, x="tile_not_in_rack")
    S.draw(2)
    S.show(2, x="too_late")
    S.discard(2)
    S.expect(penalties=[1, 0, 1, 1], totals=[1, 0, 1, 1])


@scenario(DUZ, "the_deck_running_out_ends_the_hand_and_nobody_loses",
          "okey-oyna-duz (this house's rule, the seed is silent): when the seat to draw "
          "finds the deck empty the hand ends with no finisher and nobody loses; the next "
          "hand is dealt, its starter moved on")
def _deck(S: Sc) -> None:
    S.deal("Y5", 0)
    S.discard(0)
    seat = 1
    for _ in range(44):
        S.idle(seat)
        seat = (seat + 1) % 4
    for tile in ("Y6", "Y6", "F", "F"):
        S.draw(seat, tile)
        S.discard(seat, tile)
        seat = (seat + 1) % 4
    S.draw(seat, x={"has": [_ended("deck_exhausted", None, [0, 0, 0, 0]),
                            {"type": "hand_started", "hand": 2, "starter": 1}]})
    S.deal("Y5", 1, r1=[*_tiles(RUNS), "K2"])
    S.finish(1, "K2", melds=RUNS, x={"has": [_ended("normal", 1, [2, 0, 2, 2])]})
    S.expect(hand_scores=[[0, 0, 0, 0], [2, 0, 2, 2]], totals=[2, 0, 2, 2], status="over")


@scenario(DUZ, "a_timeout_in_duz_draws_and_discards_for_the_player",
          "RULES.md §2, §12 (okey-oyna-duz): on time-out the server draws for the player "
          "and discards its highest loose tile, as in 101")
def _timeout(S: Sc) -> None:
    S.deal("Y5", 0)
    S.timeout(0, draws=False, x={"events": ["turn_timed_out", "tile_discarded"]})
    S.timeout(1, x={"events": ["turn_timed_out", "tile_drawn", "tile_discarded"]})
    S.expect(penalties=[0, 0, 0, 0], racks=S.racks())


# ---------------------------------------------------------------- the match
def _starter_wins_at_once(S: Sc, starter: int) -> None:
    """The starter is dealt seven pairs and the okey: it discards the okey and shows them."""
    S.deal("Y5", starter, **{f"r{starter}": [*_tiles(PAIRS), "Y6"]})
    S.finish(starter, "Y6", pairs=PAIRS)


@scenario(DUZ, "the_match_ends_when_a_seat_has_lost_its_20",
          "RULES.md §12 (okey-oyna-duz): every seat counts down from 20; the match ends "
          "after the hand in which a seat reaches 0, the most points left winning")
def _countdown(S: Sc) -> None:
    for starter in range(3):
        _starter_wins_at_once(S, starter)
    S.deal("Y5", 3)  # never played: seat 3 has lost 24 after hand 3
    last = len(S.commands) - 1
    S.lines[str(last)] = {"has": [
        _ended("pairs_okey", 2, [8, 8, 0, 8]),
        {"type": "match_ended", "totals": [16, 16, 16, 24], "places": [1, 1, 1, 4],
         "remaining": [4, 4, 4, -4]}]}
    S.expect(hand_scores=[[0, 8, 8, 8], [8, 0, 8, 8], [8, 8, 0, 8]],
             totals=[16, 16, 16, 24], status="over")


@scenario(DUZ, "with_partners_the_finishers_partner_loses_nothing",
          "RULES.md §10, §12 (okey-oyna-duz, eşli): partners face each other (seats 1 and "
          "3); when a player finishes, the partner loses nothing; team totals are reported",
          options={"partners": True})
def _partners(S: Sc) -> None:
    S.deal("Y5", 0, r1=[*_less(_tiles(RUNS), "B8"), "K2"])
    S.discard(0)
    S.draw(1, "B8")
    S.finish(1, "K2", melds=RUNS, x={"has": [
        _ended("normal", 1, [2, 0, 2, 0]),
        {"type": "match_ended", "totals": [2, 0, 2, 0], "team_totals": [4, 0],
         "remaining": [18, 20, 18, 20]}]})
    S.expect(totals=[2, 0, 2, 0])


@scenario("okey-oyna", "a_101_table_has_no_finish_command",
          "RULES.md §7, §12 (okey-oyna): a 101 hand is won by discarding the last tile; "
          "düz's finish command is refused")
def _no_finish_in_101(S: Sc) -> None:
    S.deal("Y5", 0)
    S.raw(0, "finish", tile="K2", melds=[["K3", "K4", "K5"]], x="not_applicable")
    S.discard(0)
