"""Specs: RULES.md sections 3 (melds) and 4 (opening)."""

from __future__ import annotations

from tests.scenarios.builder import Sc, scenario

RETRACTED = {"events": ["opening_retracted", "penalty_imposed"],
             "has": [{"type": "penalty_imposed", "points": 101, "reason": "invalid_opening"}]}


# ---------------------------------------------------------------- §3 melds
@scenario("north-sultan", "run_12_13_1_is_valid_and_its_1_counts_1",
          "RULES.md §3 (north-sultan): 12-13-1 is a valid run and that 1 counts 1 point "
          "(R12 R13 R1 = 26; with B10-B13 and K9-K11 the opening is 102); 13-1-2 is never "
          "valid")
def _wrap_ok(S: Sc) -> None:
    S.deal("Y5", 0, r1=["R12", "R13", "R1", "R2", "B10", "B11", "B12", "B13",
                        "K9", "K10", "K11"])
    S.discard(0)
    S.draw(1)
    S.open(1, [["R13", "R1", "R2"], ["B10", "B11", "B12", "B13"], ["K9", "K10", "K11"]],
           x="invalid_meld")
    S.open(1, [["R12", "R13", "R1"], ["B10", "B11", "B12", "B13"], ["K9", "K10", "K11"]],
           x={"has": [{"type": "hand_opened", "value": 102, "threshold": 101}]})
    S.lay_off(1, 0, ["R2"], x="cannot_lay_off")
    S.discard(1)
    S.expect(opened=[None, "points", None, None], penalties=[0, 0, 0, 0])


for house in ("okeygg", "classic"):
    @scenario(house, "run_12_13_1_is_an_invalid_opening",
              f"RULES.md §3, §4 ({house}): 12-13-1 is not a run; an opening with it is "
              "invalid, retracted, and costs 101")
    def _wrap_penalty(S: Sc) -> None:
        S.deal("Y5", 0, r1=["R12", "R13", "R1", "B10", "B11", "B12", "B13",
                            "K9", "K10", "K11"])
        S.discard(0)
        S.draw(1)
        S.open(1, [["R12", "R13", "R1"], ["B10", "B11", "B12", "B13"], ["K9", "K10", "K11"]],
               x=RETRACTED)
        S.discard(1)
        S.expect(opened=[None, None, None, None], penalties=[0, 101, 0, 0],
                 totals=[0, 101, 0, 0])


@scenario("okey-oyna", "run_12_13_1_is_rejected",
          "RULES.md §3, §4 (okey-oyna): 12-13-1 is not a run; the server rejects the "
          "opening, without penalty")
def _wrap_reject(S: Sc) -> None:
    S.deal("Y5", 0, r1=["R12", "R13", "R1", "B10", "B11", "B12", "B13", "K9", "K10", "K11"])
    S.discard(0)
    S.draw(1)
    S.open(1, [["R12", "R13", "R1"], ["B10", "B11", "B12", "B13"], ["K9", "K10", "K11"]],
           x="invalid_meld")
    S.discard(1)
    S.expect(opened=[None, None, None, None], penalties=[0, 0, 0, 0])


@scenario("north-sultan", "a_group_holds_each_colour_once_and_at_most_four_tiles",
          "RULES.md §3 (north-sultan): a group is 3 or 4 tiles of one number, no colour "
          "twice")
def _group_shape(S: Sc) -> None:
    S.deal("Y5", 0, r1=["R7", "R7", "Y7", "B7", "K7", "B10", "B11", "B12", "B13",
                        "K10", "K11", "K12", "K13"])
    S.discard(0)
    S.draw(1)
    tens = [["B10", "B11", "B12", "B13"], ["K10", "K11", "K12", "K13"]]
    S.open(1, [["R7", "R7", "Y7"], *tens], x="invalid_meld")
    S.open(1, [["R7", "Y7", "B7", "K7", "R7"], *tens], x="invalid_meld")
    S.open(1, [["R7", "Y7", "B7", "K7"], *tens], x={"has": [{"type": "hand_opened",
                                                             "value": 120}]})
    S.discard(1)


@scenario("okey-oyna", "a_fake_okey_is_the_okey_tile_not_a_joker",
          "RULES.md §1, §3 (okey-oyna): indicator Y5, okey Y6: a fake okey plays only as "
          "Y6 and counts 6 (Y4 Y5 F = 15); it cannot stand for another tile")
def _fake(S: Sc) -> None:
    S.deal("Y5", 0, r1=["Y4", "Y5", "F", "K7", "K8", "B10", "B11", "B12", "B13",
                        "K10", "K11", "K12", "K13"])
    S.discard(0)
    S.draw(1)
    S.open(1, [["K7", "K8", "F=K9"], ["B10", "B11", "B12", "B13"],
               ["K10", "K11", "K12", "K13"]], x="fake_okey_is_not_a_joker")
    S.open(1, [["K7", "K8", "F"], ["B10", "B11", "B12", "B13"], ["K10", "K11", "K12", "K13"]],
           x="invalid_meld")
    S.open(1, [["Y4", "Y5", "F"], ["B10", "B11", "B12", "B13"], ["K10", "K11", "K12", "K13"]],
           x={"has": [{"type": "hand_opened", "value": 107,
                       "melds": [["Y4", "Y5", "F"], ["B10", "B11", "B12", "B13"],
                                 ["K10", "K11", "K12", "K13"]]}]})
    S.discard(1)
    S.expect(opened=[None, "points", None, None], penalties=[0, 0, 0, 0])


# ---------------------------------------------------------------- §4 thresholds
HAND_100_101 = ["K10", "K11", "K12", "K13", "B9", "B10", "B11", "B12", "B13",
                "R2", "R3", "R4", "R5"]
OPEN_100 = [["K10", "K11", "K12", "K13"], ["B9", "B10", "B11", "B12"], ["R3", "R4", "R5"]]
OPEN_101 = [["K10", "K11", "K12", "K13"], ["B10", "B11", "B12", "B13"], ["R2", "R3", "R4"]]


@scenario("north-sultan", "opening_needs_101_points_and_no_minimum_after",
          "RULES.md §4 (north-sultan): an opening of 100 is rejected (no invalid move can be "
          "made), 101 opens; after opening a new meld needs no minimum")
def _threshold(S: Sc) -> None:
    S.deal("Y5", 0, r1=[*HAND_100_101, "Y1", "Y2", "Y3"])
    S.discard(0)
    S.draw(1)
    S.open(1, OPEN_100, x="below_threshold")
    S.lay(1, [["Y1", "Y2", "Y3"]], x="not_opened")
    S.open(1, OPEN_101, x={"events": ["hand_opened"], "has": [
        {"type": "hand_opened", "kind": "points", "value": 101, "threshold": 101}]})
    S.lay(1, [["Y1", "Y2", "Y3"]], x={"has": [{"type": "melds_laid", "melds": [
        ["Y1", "Y2", "Y3"]]}]})
    S.discard(1)
    S.expect(opened=[None, "points", None, None], penalties=[0, 0, 0, 0])


@scenario("classic", "an_invalid_opening_is_retracted_and_costs_101",
          "RULES.md §4 (classic): an invalid opening (100 points) is taken back (Geri Topla) "
          "with a penalty of 101; the player may then open properly")
def _classic_invalid(S: Sc) -> None:
    S.deal("Y5", 0, r1=HAND_100_101)
    S.discard(0)
    S.draw(1)
    S.open(1, OPEN_100, x=RETRACTED)
    S.open(1, OPEN_101, x={"has": [{"type": "hand_opened", "value": 101}]})
    S.discard(1)
    S.expect(opened=[None, "points", None, None], penalties=[0, 101, 0, 0],
             racks=S.racks())


@scenario("okeygg", "an_invalid_opening_costs_101",
          "RULES.md §4 (okeygg, cezalı on): an invalid opening (hatalı açma) costs 101; "
          "the tiles stay in the rack")
def _okeygg_invalid(S: Sc) -> None:
    S.deal("Y5", 0, r1=HAND_100_101)
    S.discard(0)
    S.draw(1)
    S.open(1, OPEN_100, x=RETRACTED)
    S.discard(1)
    S.expect(opened=[None, None, None, None], penalties=[0, 101, 0, 0], racks=S.racks())


@scenario("okeygg", "an_invalid_opening_is_rejected_with_penalties_off",
          "RULES.md §4, §6 (okeygg, cezalı off): with in-game penalties off an invalid "
          "opening is simply rejected",
          options={"penalties": False})
def _okeygg_invalid_off(S: Sc) -> None:
    S.deal("Y5", 0, r1=HAND_100_101)
    S.discard(0)
    S.draw(1)
    S.open(1, OPEN_100, x="below_threshold")
    S.discard(1)
    S.expect(opened=[None, None, None, None], penalties=[0, 0, 0, 0])


PAIRS4 = [["R2", "R2"], ["B4", "B4"], ["K9", "Y6"], ["Y11", "Y11"]]


@scenario("north-sultan", "opening_with_five_pairs",
          "RULES.md §3, §4 (north-sultan): pairs open with at least 5 (an okey pairs with "
          "any tile); 4 pairs are rejected; pairs and melds never mix in one opening")
def _pairs(S: Sc) -> None:
    S.deal("Y5", 0, r1=["R2", "R2", "B4", "B4", "K9", "Y6", "Y11", "Y11", "B13", "B13",
                        "K10", "K11"])
    S.discard(0)
    S.draw(1)
    S.open(1, pairs=PAIRS4, x="below_threshold")
    S.raw(1, "open", x="open_one_way", melds=[["K9", "K10", "K11"]],
          pairs=[*PAIRS4, ["B13", "B13"]])
    S.open(1, pairs=[*PAIRS4, ["B13", "B13"]], x={"has": [
        {"type": "hand_opened", "kind": "pairs", "value": 5, "threshold": 5,
         "melds": [["R2", "R2"], ["B4", "B4"], ["K9", "Y6=K9"], ["Y11", "Y11"],
                   ["B13", "B13"]]}]})
    S.discard(1)
    S.expect(opened=[None, "pairs", None, None], penalties=[0, 0, 0, 0])


# ---------------------------------------------------------------- §4 escalation (okeygg)
ESC_1 = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["R7", "Y7", "B7", "K7"]]
ESC_2_LOW = [["K10", "K11", "K12", "K13"], ["Y10", "Y11", "Y12", "Y13"],
             ["R7", "Y7", "B7", "K7"]]
ESC_2 = [["K10", "K11", "K12", "K13"], ["Y10", "Y11", "Y12", "Y13"], ["R8", "Y8", "B8", "K8"]]


def _tiles(groups: list[list[str]]) -> list[str]:
    return [t for g in groups for t in g]


@scenario("okeygg", "openings_escalate_after_120_the_next_needs_121",
          "RULES.md §4 (okeygg, katlamalı on): after a 120 opening the next points-opener "
          "needs 121: a second 120 is an invalid opening (101), 124 opens")
def _escalate(S: Sc) -> None:
    S.deal("Y5", 0, r1=_tiles(ESC_1), r2=[*_tiles(ESC_2_LOW), "R8", "Y8", "B8", "K8"])
    S.discard(0)
    S.draw(1)
    S.open(1, ESC_1, x={"has": [{"type": "hand_opened", "value": 120, "threshold": 101}]})
    S.discard(1)
    S.draw(2)
    S.open(2, ESC_2_LOW, x=RETRACTED)
    S.open(2, ESC_2, x={"has": [{"type": "hand_opened", "value": 124, "threshold": 121}]})
    S.discard(2)
    S.expect(opened=[None, "points", "points", None], penalties=[0, 0, 101, 0])


@scenario("north-sultan", "openings_do_not_escalate",
          "RULES.md §4 (north-sultan, escalation off): every points opening needs 101, "
          "whatever opened before")
def _no_escalate(S: Sc) -> None:
    S.deal("Y5", 0, r1=_tiles(ESC_1), r2=_tiles(ESC_2_LOW))
    S.discard(0)
    S.draw(1)
    S.open(1, ESC_1)
    S.discard(1)
    S.draw(2)
    S.open(2, ESC_2_LOW, x={"has": [{"type": "hand_opened", "value": 120, "threshold": 101}]})
    S.discard(2)
    S.expect(opened=[None, "points", "points", None], penalties=[0, 0, 0, 0])


PAIRS_6 = [["R1", "R1"], ["R3", "R3"], ["B2", "B2"], ["K7", "K7"], ["Y9", "Y9"],
           ["K12", "K12"]]
PAIRS_7 = [["Y1", "Y1"], ["Y3", "Y3"], ["B6", "B6"], ["B8", "B8"], ["K9", "K9"], ["R6", "R6"],
           ["Y13", "Y13"]]
POINTS_104 = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]


@scenario("okeygg", "points_and_pairs_escalate_separately",
          "RULES.md §4 (okeygg): after 6 pairs the next pairs-opener needs 7, while a "
          "points-opener still needs only 101; 7 pairs also erase 101 (Siler)")
def _pairs_escalate(S: Sc) -> None:
    S.deal("Y5", 0, r1=_tiles(PAIRS_6), r2=_tiles(POINTS_104), r3=_tiles(PAIRS_7))
    S.discard(0)
    S.draw(1)
    S.open(1, pairs=PAIRS_6, x={"events": ["hand_opened"], "has": [
        {"type": "hand_opened", "kind": "pairs", "value": 6, "threshold": 5}]})
    S.discard(1)
    S.draw(2)
    S.open(2, POINTS_104, x={"has": [{"type": "hand_opened", "value": 104,
                                      "threshold": 101}]})
    S.discard(2)
    S.draw(3)
    S.open(3, pairs=PAIRS_7[:6], x=RETRACTED)
    S.open(3, pairs=PAIRS_7, x={"events": ["hand_opened", "penalty_imposed"], "has": [
        {"type": "hand_opened", "kind": "pairs", "value": 7, "threshold": 7},
        {"type": "penalty_imposed", "seat": 3, "points": -101, "reason": "siler"}]})
    S.discard(3)
    S.expect(opened=[None, "pairs", "points", "pairs"], penalties=[0, 0, 0, 0],
             totals=[0, 0, 0, 0])


@scenario("okeygg", "own_extensions_in_the_opening_turn_count",
          "RULES.md §4 (okeygg): everything laid in the opening turn counts, tiles added to "
          "your own new run too: R4-R6 + R7, R8 makes that run 30, the opening 107 + 15 = "
          "122, so the next opener needs 123")
def _extensions(S: Sc) -> None:
    first = [["R4", "R5", "R6"], ["B10", "B11", "B12", "B13"], ["K10", "K11", "K12", "K13"]]
    second_low = [["Y10", "Y11", "Y12", "Y13"], ["B10", "B11", "B12", "B13"],
                  ["R9", "R10", "R11"]]
    second = [["Y10", "Y11", "Y12", "Y13"], ["B10", "B11", "B12", "B13"],
              ["R10", "R11", "R12"]]
    S.deal("Y5", 0, r1=[*_tiles(first), "R7", "R8"],
           r2=[*_tiles(second_low), "R12"])
    S.discard(0)
    S.draw(1)
    S.open(1, first, x={"has": [{"type": "hand_opened", "value": 107}]})
    S.lay_off(1, 0, ["R7", "R8"], x={"has": [{"type": "tiles_laid_off", "tiles": ["R7", "R8"],
                                              "end": "high"}]})
    S.discard(1)
    S.draw(2)
    S.open(2, second_low, x=RETRACTED)
    S.open(2, second, x={"has": [{"type": "hand_opened", "value": 125, "threshold": 123}]})
    S.discard(2)
    S.expect(opened=[None, "points", "points", None], penalties=[0, 0, 101, 0])


@scenario("north-sultan", "lay_offs_in_the_opening_turn_are_allowed_but_not_counted",
          "RULES.md §4, §5 (north-sultan): the opening itself must reach 101 (97 is "
          "rejected even with R7 R8 R9 to add); after opening the player may lay off at "
          "once, and a points-opener has no per-turn lay-off limit")
def _ns_lay_off_opening(S: Sc) -> None:
    low = [["R4", "R5", "R6"], ["B10", "B11", "B12", "B13"], ["K11", "K12", "K13"]]
    full = [["R4", "R5", "R6"], ["B10", "B11", "B12", "B13"], ["K10", "K11", "K12", "K13"]]
    S.deal("Y5", 0, r1=[*_tiles(full), "R7", "R8", "R9"])
    S.discard(0)
    S.draw(1)
    S.open(1, low, x="below_threshold")
    S.open(1, full, x={"has": [{"type": "hand_opened", "value": 107}]})
    S.lay_off(1, 0, ["R7", "R8", "R9"], x={"events": ["tiles_laid_off"]})
    S.discard(1)
    S.expect(opened=[None, "points", None, None], penalties=[0, 0, 0, 0])


@scenario("classic", "after_opening_wait_one_round_before_laying_off",
          "RULES.md §4 (classic): after opening the player must wait one full round before "
          "laying off (açtıktan sonra 1 el bekle) or taking an okey; on their next turn "
          "they may")
def _classic_wait(S: Sc) -> None:
    full = [["R4", "R5", "R6"], ["B10", "B11", "B12", "B13"], ["K10", "K11", "K12", "K13"]]
    S.deal("Y5", 0, r1=[*_tiles(full), "R7", "R8"])
    S.discard(0)
    S.draw(1)
    S.open(1, full)
    S.lay_off(1, 0, ["R7"], x="must_wait_a_round")
    S.take_okey(1, 0, ["R5"], x="must_wait_a_round")
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.idle(0)
    S.draw(1)
    S.lay_off(1, 0, ["R7", "R8"], x={"events": ["tiles_laid_off"]})
    S.discard(1)
    S.expect(opened=[None, "points", None, None], penalties=[0, 0, 0, 0])


# ---------------------------------------------------------------- §4 pairs-openers
@scenario("okeygg", "a_pairs_opener_lays_pairs_and_lays_off_but_never_runs",
          "RULES.md §4 (okeygg): a pairs-opener can never lay runs or groups; they may lay "
          "new pairs and lay off onto the melds on the table")
def _pairs_opener(S: Sc) -> None:
    points = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"],
              ["K10", "K11", "K12", "K13"]]
    pairs = [["R2", "R2"], ["B4", "B4"], ["K7", "K7"], ["Y11", "Y11"], ["Y3", "Y3"]]
    S.deal("Y5", 0, r0=_tiles(points),
           r1=[*_tiles(pairs), "K2", "K3", "K4", "B8", "B8", "R9"])
    S.open(0, points, x={"has": [{"type": "hand_opened", "value": 138}]})
    S.discard(0)
    S.draw(1)
    S.open(1, pairs=pairs, x={"has": [{"type": "hand_opened", "kind": "pairs",
                                       "threshold": 5}]})
    S.lay(1, [["K2", "K3", "K4"]], x="pairs_opener_cannot_lay_melds")
    S.lay(1, pairs=[["B8", "B8"]], x={"has": [{"type": "melds_laid", "pairs": True}]})
    S.lay_off(1, 0, ["R9"], x={"has": [{"type": "tiles_laid_off", "meld": 0, "end": "low"}]})
    S.discard(1)
    S.expect(opened=["points", "pairs", None, None], penalties=[0, 0, 0, 0])


@scenario("north-sultan", "a_pairs_opener_lays_off_at_most_two_tiles_a_turn",
          "RULES.md §4 (north-sultan): a pairs-opener lays off at most 2 tiles per turn; the "
          "third waits for the next turn")
def _ns_pairs_limit(S: Sc) -> None:
    points = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"],
              ["K10", "K11", "K12", "K13"]]
    pairs = [["R2", "R2"], ["B4", "B4"], ["K7", "K7"], ["Y11", "Y11"], ["Y3", "Y3"]]
    S.deal("Y5", 0, r0=_tiles(points), r1=[*_tiles(pairs), "R9", "R8", "R7"])
    S.open(0, points)
    S.discard(0)
    S.draw(1)
    S.open(1, pairs=pairs)
    S.lay_off(1, 0, ["R9"])
    S.lay_off(1, 0, ["R8"])
    S.lay_off(1, 0, ["R7"], x="lay_off_limit")
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.idle(0)
    S.draw(1)
    S.lay_off(1, 0, ["R7"], x={"has": [{"type": "tiles_laid_off", "tiles": ["R7"]}]})
    S.discard(1)
    S.expect(opened=["points", "pairs", None, None], penalties=[0, 0, 0, 0])


@scenario("okey-oyna", "a_points_opener_lays_pairs_only_after_someone_opened_pairs",
          "RULES.md §4, §5 (okey-oyna): a points-opener may lay down pairs only if somebody "
          "at the table opened with pairs")
def _points_pairs(S: Sc) -> None:
    points = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"],
              ["K10", "K11", "K12", "K13"]]
    pairs = [["R2", "R2"], ["B4", "B4"], ["K7", "K7"], ["Y11", "Y11"], ["Y3", "Y3"]]
    S.deal("Y5", 0, r0=[*_tiles(points), "K1", "K1"], r1=_tiles(pairs))
    S.open(0, points)
    S.lay(0, pairs=[["K1", "K1"]], x="pairs_not_allowed")
    S.discard(0)
    S.draw(1)
    S.open(1, pairs=pairs)
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.lay(0, pairs=[["K1", "K1"]], x={"has": [{"type": "melds_laid", "pairs": True}]})
    S.discard(0)
    S.expect(opened=["points", "pairs", None, None], penalties=[0, 0, 0, 0])


@scenario("classic", "pairs_must_be_declared_before_they_open",
          "RULES.md §4 (classic): pairs must be declared (çifte gidiyorum) before they can "
          "be opened; opening undeclared pairs is refused without penalty")
def _declare(S: Sc) -> None:
    pairs = [["R2", "R2"], ["B4", "B4"], ["K7", "K7"], ["Y11", "Y11"], ["Y3", "Y3"]]
    S.deal("Y5", 0, r1=_tiles(pairs))
    S.discard(0)
    S.draw(1)
    S.open(1, pairs=pairs, x="pairs_not_declared")
    S.declare(1)
    S.declare(1, x="already_declared")
    S.open(1, pairs=pairs, x={"has": [{"type": "hand_opened", "kind": "pairs"}]})
    S.discard(1)
    S.expect(opened=[None, "pairs", None, None], penalties=[0, 0, 0, 0])


@scenario("okeygg", "pairs_need_no_declaration",
          "RULES.md §4 (okeygg): only classic declares pairs; okeygg has no declaration")
def _no_declare(S: Sc) -> None:
    S.deal("Y5", 0)
    S.discard(0)
    S.declare(1, x="not_applicable")
    S.draw(1)
    S.discard(1)


# ---------------------------------------------------------------- §4 indicator pair, Siler
@scenario("okeygg", "the_indicator_twin_works_as_an_okey_in_pairs_only",
          "RULES.md §4 (okeygg): the indicator's twin (Y5), in the rack before the first "
          "draw, may be put on the indicator; it then pairs with any tile, and once laid in "
          "a pair nobody can take it")
def _indicator(S: Sc) -> None:
    pairs = [["R2", "R2"], ["B4", "B4"], ["K7", "K7"], ["Y11", "Y11"], ["Y5", "K9"]]
    S.deal("Y5", 0, r1=[*_tiles(pairs), "Y4", "Y3"], r2=[*_tiles(POINTS_104), "K9"])
    S.show(0, x="tile_not_in_rack")
    S.discard(0)
    S.show(1, x={"events": ["indicator_shown"]})
    S.show(1, x="already_shown")
    S.draw(1)
    S.open(1, pairs=pairs, x={"has": [{"type": "hand_opened", "kind": "pairs", "value": 5}]})
    S.discard(1)
    S.draw(2)
    S.open(2, POINTS_104)
    S.take_okey(2, 4, ["K9"], x="no_okey_there")
    S.discard(2)
    S.expect(opened=[None, "pairs", "points", None], penalties=[0, 0, 0, 0])


@scenario("okeygg", "the_indicator_twin_is_shown_before_the_first_draw",
          "RULES.md §4 (okeygg): the indicator's twin may be put on the indicator only at "
          "the start of the hand, before the player first draws")
def _indicator_late(S: Sc) -> None:
    S.deal("Y5", 0, r1=["Y5"])
    S.discard(0)
    S.draw(1)
    S.show(1, x="too_late")
    S.discard(1)


@scenario("okeygg", "the_indicator_twin_is_no_okey_in_runs",
          "RULES.md §4 (okeygg): a shown indicator twin is an okey in pairs only; in a run "
          "it is just Y5 (here an invalid meld, so an invalid opening: 101)")
def _indicator_run(S: Sc) -> None:
    S.deal("Y5", 0, r1=["Y5", "K3", "K4", *_tiles(POINTS_104[:2])])
    S.discard(0)
    S.show(1)
    S.draw(1)
    S.open(1, [["K3", "K4", "Y5"], *POINTS_104[:2]], x=RETRACTED)
    S.discard(1)
    S.expect(penalties=[0, 101, 0, 0])


SILER = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"],
         ["K10", "K11", "K12", "K13"], ["Y7", "Y6=Y8", "Y9"]]


@scenario("okeygg", "opening_with_150_points_erases_101",
          "RULES.md §4 (okeygg Siler): opening with 150+ points erases 101 at once; a joker "
          "counts as the tile it stands for (Y7 Y6=Y8 Y9 is 24): 138 + 24 = 162")
def _siler(S: Sc) -> None:
    S.deal("Y5", 0, r1=_tiles(SILER))
    S.discard(0)
    S.draw(1)
    S.open(1, SILER, x={"events": ["hand_opened", "penalty_imposed"], "has": [
        {"type": "hand_opened", "value": 162},
        {"type": "penalty_imposed", "seat": 1, "points": -101, "reason": "siler"}]})
    S.discard(1)
    S.expect(penalties=[0, -101, 0, 0], totals=[0, -101, 0, 0])


@scenario("okeygg", "siler_counts_the_whole_opening_turn",
          "RULES.md §4 (okeygg Siler): 138 opens without Siler; laying off R9 R8 onto the "
          "player's own new run in the same turn brings the opening to 155: Siler then")
def _siler_turn(S: Sc) -> None:
    S.deal("Y5", 0, r1=[*_tiles(SILER[:3]), "R9", "R8"])
    S.discard(0)
    S.draw(1)
    S.open(1, SILER[:3], x={"events": ["hand_opened"]})
    S.lay_off(1, 0, ["R9", "R8"], x={"events": ["tiles_laid_off", "penalty_imposed"],
                                     "has": [{"type": "penalty_imposed", "points": -101}]})
    S.discard(1)
    S.expect(penalties=[0, -101, 0, 0])


@scenario("okeygg", "siler_stays_on_with_penalties_off",
          "RULES.md §4, §6 (okeygg): Siler is always on, even when in-game penalties are off",
          options={"penalties": False})
def _siler_off(S: Sc) -> None:
    S.deal("Y5", 0, r1=_tiles(SILER))
    S.discard(0)
    S.draw(1)
    S.open(1, SILER, x={"has": [{"type": "penalty_imposed", "points": -101}]})
    S.discard(1)
    S.expect(penalties=[0, -101, 0, 0])


@scenario("north-sultan", "no_siler_outside_okeygg",
          "RULES.md §4 (north-sultan): Siler is an okeygg rule; a 162 opening here erases "
          "nothing")
def _no_siler(S: Sc) -> None:
    S.deal("Y5", 0, r1=_tiles(SILER))
    S.discard(0)
    S.draw(1)
    S.open(1, SILER, x={"events": ["hand_opened"]})
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0])


@scenario("okeygg", "siler_is_erased_once_per_opening",
          "RULES.md §4 (okeygg Siler): the 101 is erased once, at the opening; laying more "
          "in the same turn does not erase it again")
def _siler_once(S: Sc) -> None:
    S.deal("Y5", 0, r1=[*_tiles(SILER), "R9", "K1", "K2", "K3"])
    S.discard(0)
    S.draw(1)
    S.open(1, SILER, x={"events": ["hand_opened", "penalty_imposed"]})
    S.lay_off(1, 0, ["R9"], x={"events": ["tiles_laid_off"]})
    S.lay(1, [["K1", "K2", "K3"]], x={"events": ["melds_laid"]})
    S.discard(1)
    S.expect(penalties=[0, -101, 0, 0])


@scenario("north-sultan", "unopened_take_that_opens_pairs",
          "RULES.md §2, §4 (north-sultan): an unopened player may not take a discard that "
          "makes no pair (B13), but may take the one that makes their fifth pair (R10) and "
          "open pairs with it")
def _take_pairs(S: Sc) -> None:
    pairs = [["R2", "R2"], ["B4", "B4"], ["K7", "K7"], ["Y11", "Y11"], ["R10", "R10"]]
    S.deal("Y5", 0, r0=["B13", "R10"], r1=[*_tiles(pairs[:4]), "R10"],
           r2=["B13"])
    S.discard(0, "B13")
    S.take(1, x="cannot_open_with_discard")
    S.draw(1)
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.discard(0, "R10")
    S.take(1)
    S.open(1, pairs=pairs, x={"has": [{"type": "hand_opened", "kind": "pairs", "value": 5}]})
    S.discard(1)
    S.expect(opened=[None, "pairs", None, None], penalties=[0, 0, 0, 0])


@scenario("north-sultan", "the_taken_tile_must_be_part_of_the_opening",
          "RULES.md §2 (north-sultan): a player who could open anyway may still not take a "
          "discard that would not be part of the opening")
def _take_unused(S: Sc) -> None:
    S.deal("Y5", 0, r0=["Y9"], r1=_tiles(POINTS_104))
    S.discard(0, "Y9")
    S.take(1, x="cannot_open_with_discard")
    S.draw(1)
    S.open(1, POINTS_104)
    S.discard(1)
    S.expect(opened=[None, "points", None, None], penalties=[0, 0, 0, 0])


@scenario("okey-oyna", "unopened_take_of_a_tile_that_completes_a_run",
          "RULES.md §2 (okey-oyna): K9 completes K7-K8-K9, which brings the opening to 104; "
          "the take is allowed and the run must be in the opening")
def _take_run(S: Sc) -> None:
    melds = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K7", "K8", "K9"]]
    S.deal("Y5", 0, r0=["K9"], r1=_tiles(melds)[:-1])
    S.discard(0, "K9")
    S.take(1)
    S.open(1, melds[:2], x="must_open_with_taken_tile")
    S.open(1, melds, x={"has": [{"type": "hand_opened", "value": 116}]})
    S.discard(1)
    S.expect(opened=[None, "points", None, None])
