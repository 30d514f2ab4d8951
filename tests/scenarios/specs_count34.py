"""Specs: the "34" count (RULES.md §12, seeds/003 "34 Oyunu Hesaplama Kuralları") as a house
option (`meld_value` "third"): a meld is worth floor(sum / 3), an opening needs 34.

The page's worked examples, each checked against floor(sum / 3): 13-13-13 is 13, 7-8-9-10
is 11 (8 + 10/3 = 8 + 3), 12-12-12 is 12, 1-1-1 is 1; 4-5-6-7-8 is 10 (5 + 2 + 3, and
7 + 1 + 2 with the other core: rounding each extra tile down would give 9 there, so the
page's "8/3 = 3" and "5/3 = 2" are slips; its totals are floor(30 / 3)).
"""

from __future__ import annotations

from tests.scenarios.builder import Sc, scenario
from tests.scenarios.specs_finish import LAY2, OPEN1, PAIRS2, POINTS3, _ended, _tiles

THIRD = {"meld_value": "third"}
RETRACTED = {"events": ["opening_retracted", "penalty_imposed"],
             "has": [{"type": "penalty_imposed", "points": 101, "reason": "invalid_opening"}]}
PAGE = [["R13", "Y13", "B13"], ["K7", "K8", "K9", "K10"], ["R12", "Y12", "B12"],
        ["R1", "Y1", "B1"]]  # the page's example: 13 + 11 + 12 + 1 = 37 (face 112)


@scenario("classic", "the_34_count_opens_with_the_pages_melds_worth_37",
          "RULES.md §12, seeds/003 (classic, 34 count): 13-13-13 is 13, 7-8-9-10 is 11, "
          "12-12-12 is 12, 1-1-1 is 1: the page's melds open with 37 against 34",
          options=THIRD)
def _page(S: Sc) -> None:
    S.deal("Y5", 0, r1=_tiles(PAGE))
    S.discard(0)
    S.draw(1)
    S.open(1, PAGE, x={"events": ["hand_opened"], "has": [
        {"type": "hand_opened", "kind": "points", "value": 37, "threshold": 34}]})
    S.discard(1)
    S.expect(opened=[None, "points", None, None], penalties=[0, 0, 0, 0])


@scenario("classic", "the_34_count_values_4_5_6_7_8_at_floor_of_its_sum_over_3",
          "RULES.md §12, seeds/003 (classic, 34 count): 4-5-6-7-8 is worth 10 = floor(30 "
          "/ 3), not 9 (each extra tile rounded down): with 13-13-13 and 11-11-11 it opens "
          "at exactly 34", options=THIRD)
def _five(S: Sc) -> None:
    melds = [["K4", "K5", "K6", "K7", "K8"], ["R13", "Y13", "B13"], ["R11", "Y11", "B11"]]
    S.deal("Y5", 0, r1=_tiles(melds))
    S.discard(0)
    S.draw(1)
    S.open(1, melds, x={"has": [{"type": "hand_opened", "value": 34, "threshold": 34}]})
    S.discard(1)


@scenario("classic", "the_34_count_an_opening_of_33_is_retracted_and_costs_101",
          "RULES.md §4, §12 (classic, 34 count): 13-13-13, 12-12-12 and 7-8-9 are worth "
          "13 + 12 + 8 = 33 (face 102): below 34, taken back, 101 penalty", options=THIRD)
def _below(S: Sc) -> None:
    melds = [["R13", "Y13", "B13"], ["R12", "Y12", "B12"], ["K7", "K8", "K9"]]
    S.deal("Y5", 0, r1=_tiles(melds))
    S.discard(0)
    S.draw(1)
    S.open(1, melds, x=RETRACTED)
    S.discard(1)
    S.expect(opened=[None, None, None, None], penalties=[0, 101, 0, 0])


@scenario("okeygg", "the_34_count_escalates_in_its_own_count_own_extensions_included",
          "RULES.md §4, §12 (okeygg, 34 count): the opening (41) and the tiles laid onto "
          "its own new run that turn (K4-K6 + K7 K8: 5 becomes 10) make 46; the next "
          "opener needs 47, in the same count", options=THIRD)
def _escalates(S: Sc) -> None:
    first = [["R13", "Y13", "B13"], ["R12", "Y12", "B12"], ["K4", "K5", "K6"],
             ["R11", "Y11", "B11"]]
    second = [["R13", "Y13", "B13"], ["R12", "Y12", "B12"], ["R11", "Y11", "B11"],
              ["K9", "K10", "K11"]]
    third = [["B4", "B5", "B6", "B7", "B8"], ["R10", "Y10", "B10"], ["R9", "Y9", "B9"],
             ["K11", "K12", "K13"], ["R7", "Y7", "B7"]]
    S.deal("Y5", 0, r1=[*_tiles(first), "K7", "K8"], r2=_tiles(second), r3=_tiles(third))
    S.discard(0)
    S.draw(1)
    S.open(1, first, x={"has": [{"type": "hand_opened", "value": 41, "threshold": 34}]})
    S.lay_off(1, 2, ["K7", "K8"], "high")
    S.discard(1)
    S.draw(2)
    S.open(2, second, x=RETRACTED)
    S.discard(2)
    S.draw(3)
    S.open(3, third, x={"events": ["hand_opened"], "has": [
        {"type": "hand_opened", "value": 48, "threshold": 47}]})
    S.discard(3)
    S.expect(opened=[None, "points", None, "points"], penalties=[0, 0, 101, 0])


@scenario("okeygg", "the_34_count_siler_needs_50",
          "RULES.md §4, §12 (okeygg, 34 count): Siler follows the count (this project's "
          "ruling: 150 becomes 50): an opening worth 52 erases 101 at once", options=THIRD)
def _siler(S: Sc) -> None:
    melds = [["B4", "B5", "B6", "B7", "B8"], ["R11", "Y11", "B11"], ["R10", "Y10", "B10"],
             ["R9", "Y9", "B9"], ["K11", "K12", "K13"]]
    S.deal("Y5", 0, r1=_tiles(melds))
    S.discard(0)
    S.draw(1)
    S.open(1, melds, x={"events": ["hand_opened", "penalty_imposed"], "has": [
        {"type": "hand_opened", "value": 52},
        {"type": "penalty_imposed", "seat": 1, "points": -101, "reason": "siler"}]})
    S.discard(1)
    S.expect(penalties=[0, -101, 0, 0])


@scenario("classic", "the_34_count_scores_racks_at_face_value",
          "RULES.md §8, §12 (classic, 34 count): only openings use the count; the racks "
          "left at the end still score their face values (seeds/003's own penalty examples: "
          "8+5+10+11 = 34), a pairs-opener's twice, a player who never opened 202",
          options=THIRD)
def _face_racks(S: Sc) -> None:
    S.deal("Y5", 0, r1=[*_tiles(OPEN1), *_tiles(LAY2)], r2=_tiles(PAIRS2),
           r3=[*_tiles(POINTS3), "K5", "R8", "B10", "B11"])
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, OPEN1, x={"has": [{"type": "hand_opened", "value": 34, "threshold": 34}]})
    S.discard(1, d1)
    S.declare(2)
    S.draw(2)
    S.open(2, pairs=PAIRS2)
    S.discard(2)
    S.draw(3)
    S.open(3, POINTS3, x={"has": [{"type": "hand_opened", "value": 37}]})
    S.discard(3)
    S.idle(0)
    d2 = S.draw(1)
    S.lay(1, LAY2)
    scores = [202, -101, 2 * S.rs(2), S.rs(3)]
    S.discard(1, d2, x=_ended("normal", 1, scores))
    S.expect(hand_scores=[scores], finish="normal")
