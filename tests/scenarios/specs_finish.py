"""Specs: RULES.md sections 7 (end of the hand), 8 (scoring), 9 (the match), 10 (partners)."""

from __future__ import annotations

from typing import Any

from tests.scenarios.builder import Sc, scenario

HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna")

# the finisher, seat 1: opens 104 on its first turn, lays the other 10 tiles five turns on
OPEN1 = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]
LAY2 = [["Y1", "Y2", "Y3", "Y4"], ["Y7", "Y8", "Y9"], ["K8", "K9", "K10"]]
# seat 2 opens 5 pairs, seat 3 opens 112 with points
PAIRS2 = [["R2", "R2"], ["B6", "B6"], ["K12", "K12"], ["Y11", "Y11"], ["R7", "R7"]]
POINTS3 = [["R13", "Y13", "B13", "K13"], ["R12", "Y12", "B12"], ["B7", "B8", "B9"]]
# a pairs-finisher, seat 1: 5 pairs, then 5 more and B10 laid off onto seat 3's B7-B9
PAIRS_A = [["R1", "R1"], ["R3", "R3"], ["Y8", "Y8"], ["B4", "B4"], ["K6", "K6"]]
PAIRS_B = [["Y2", "Y2"], ["K9", "K9"], ["R5", "R5"], ["B1", "B1"], ["K11", "K11"]]
# 21 tiles worth 72: below 101, so only an elden finish may open with them
ELDEN = [["R1", "R2", "R3"], ["B1", "B2", "B3"], ["K1", "K2", "K3"], ["R4", "B4", "K4"],
         ["R5", "B5", "K5"], ["Y1", "Y2", "Y3"], ["K6", "K7", "K8"]]
# seat 0 opens 128 on the first turn
OPEN0 = [["R10", "R11", "R12", "R13"], ["Y10", "Y11", "Y12", "Y13"], ["K11", "K12", "K13"]]


def _tiles(groups: list[list[str]]) -> list[str]:
    return [t.split("=")[0] for g in groups for t in g]


def _finisher_mult(house: str, okey: bool, pairs: bool, elden: bool) -> int:
    """Section 8, written out per house (independent of scoring.py)."""
    m = 1
    if okey:
        m *= 2
    if pairs and house != "classic":
        m *= 2
    if elden and house != "classic":
        m *= 2
    return min(m, 4)


def _others_mult(okey: bool, pairs: bool, elden: bool) -> int:
    return min((2 if okey else 1) * (2 if pairs else 1) * (2 if elden else 1), 4)


def _ended(finish: str, seat: int, scores: list[int]) -> dict[str, Any]:
    return {"has": [{"type": "hand_ended", "finish": finish, "finished_by": seat,
                     "scores": scores}]}


# ---------------------------------------------------------------- normal and okey finishes
UNDOUBLED_OKEY = ("okeygg", "okey-oyna")  # §8: +101 per okey after every multiplier


def _rack(S: Sc, house: str, seat: int) -> int:
    """The rack sum the multipliers apply to: without the okeys where they are added after."""
    okeys = S.rack[seat].count(S.okey) if S.plan is not None else 0
    return S.rs(seat) - (101 * okeys if house in UNDOUBLED_OKEY else 0)


def _okeys_after(S: Sc, house: str, seat: int) -> int:
    okeys = S.rack[seat].count(S.okey) if S.plan is not None else 0
    return 101 * okeys if house in UNDOUBLED_OKEY else 0

def _normal(S: Sc, house: str, last: str | None, extra3: tuple[str, ...] = ()) -> None:
    """Seat 1 finishes; seat 0 never opened; seat 2 opened 5 pairs; seat 3 opened 112.
    An okey left in an opened rack counts 101 inside the rack sum (north-sultan, classic)
    or is added after every multiplier (okeygg, okey-oyna: `_okeys_after`)."""
    S.deal("Y5", 0, r1=[*_tiles(OPEN1), *_tiles(LAY2)], r2=_tiles(PAIRS2),
           r3=[*_tiles(POINTS3), *extra3])
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, OPEN1)
    S.discard(1, d1)
    if house == "classic":
        S.declare(2)
    S.draw(2)
    S.open(2, pairs=PAIRS2)
    S.discard(2)
    S.draw(3)
    S.open(3, POINTS3, x={"has": [{"type": "hand_opened", "value": 112}]})
    S.discard(3)
    S.idle(0)
    d2 = S.draw(1, last)
    S.lay(1, LAY2)
    okey = d2 == "Y6"
    mine, others = _finisher_mult(house, okey, False, False), _others_mult(okey, False, False)
    scores = [202 * others, -101 * mine,
              2 * _rack(S, house, 2) * others + _okeys_after(S, house, 2),
              _rack(S, house, 3) * others + _okeys_after(S, house, 3)]
    finish = "okey" if okey else "normal"
    line = _ended(finish, 1, scores)
    if house == "classic":  # §9, one hand: 1st +1, 2nd +0, 3rd -0, 4th -1
        order = sorted(range(4), key=lambda seat: scores[seat])
        rating = [0, 0, 0, 0]
        rating[order[0]], rating[order[3]] = 1, -1
        line["has"].append({"type": "match_ended", "rating_changes": rating})
    S.discard(1, d2, x={"events": ["tile_discarded", "hand_ended", "match_ended"], **line})
    S.expect(finish=finish, finished_by=1, hand_scores=[scores], totals=scores,
             penalties=[0, 0, 0, 0], opened=[None, "points", "pairs", "points"],
             status="over")
    S.draw(2, x="no_hand")


for _house in HOUSES:
    @scenario(_house, "a_normal_finish_scores_each_rack",
              f"RULES.md §7, §8 ({_house}): the finisher scores -101; a points-opener their "
              "rack sum, a pairs-opener twice theirs, a player who never opened 202")
    def _normal_finish(S: Sc, house: str = _house) -> None:
        _normal(S, house, None)

    @scenario(_house, "an_okey_finish_doubles",
              f"RULES.md §7, §8 ({_house}): the finishing discard is an okey: the finisher "
              "-202 and every other score doubled (no penalty for that okey discard)")
    def _okey_finish(S: Sc, house: str = _house) -> None:
        _normal(S, house, "Y6")


@scenario("okeygg", "penalties_off_leave_end_of_hand_scoring_alone",
          "RULES.md §6, §8 (okeygg, cezalı off): the penalties switch leaves the end-of-hand "
          "scores (202, rack sums) as they are", options={"penalties": False})
def _normal_off(S: Sc) -> None:
    _normal(S, "okeygg", None)


for _house in ("north-sultan", "classic"):
    @scenario(_house, "an_okey_left_in_the_rack_counts_101",
              f"RULES.md §8 ({_house}): an opened player's rack sum counts an okey left in "
              "it as 101 and a fake okey as the okey's number (6)")
    def _okey_in_rack(S: Sc, house: str = _house) -> None:
        _normal(S, house, None, ("Y6", "F"))

    @scenario(_house, "an_okey_left_in_an_opened_rack_is_doubled_with_it",
              f"RULES.md §8 ({_house}): an okey finish doubles an opened rack with the 101 of "
              "the okey left in it: 2 x (sum + 101)")
    def _okey_in_rack_doubled(S: Sc, house: str = _house) -> None:
        _normal(S, house, "Y6", ("Y6", "F"))


for _house in UNDOUBLED_OKEY:
    @scenario(_house, "an_okey_left_in_an_opened_rack_adds_101_never_doubled",
              f"RULES.md §8 ({_house}, new ruling; seeds/004 \"101 cezaları katlanmaz\"): an "
              "okey left in an opened rack adds 101 after every multiplier: an okey finish "
              "doubles the rack sum, not the 101")
    def _okey_in_rack_after(S: Sc, house: str = _house) -> None:
        _normal(S, house, "Y6", ("Y6", "F"))

    @scenario(_house, "an_okey_left_in_the_rack_counts_101",
              f"RULES.md §8 ({_house}): an opened player's rack scores its sum plus 101 per "
              "okey left in it; a fake okey counts the okey's number (6)")
    def _okey_in_rack_plain(S: Sc, house: str = _house) -> None:
        _normal(S, house, None, ("Y6", "F"))


# ---------------------------------------------------------------- pairs finishes
def _pairs(S: Sc, house: str, last: str | None) -> None:
    """Seat 1 opened pairs and finishes by laying 5 more pairs and B10 off onto seat 3's
    B7-B9; seats 0 and 2 never opened; seat 3 opened 112."""
    S.deal("Y5", 0, r1=[*_tiles(PAIRS_A), *_tiles(PAIRS_B), "B10"], r3=_tiles(POINTS3))
    S.discard(0)
    d1 = S.draw(1, safe=True)
    if house == "classic":
        S.declare(1)
    S.open(1, pairs=PAIRS_A)
    S.discard(1, d1)
    S.idle(2)
    S.draw(3)
    S.open(3, POINTS3)
    S.discard(3)
    S.idle(0)
    d2 = S.draw(1, last)
    S.lay(1, pairs=PAIRS_B)
    S.lay_off(1, 7, ["B10"], x={"has": [{"type": "tiles_laid_off", "meld": 7}]})
    okey = d2 == "Y6"
    mine, others = _finisher_mult(house, okey, True, False), _others_mult(okey, True, False)
    scores = [202 * others, -101 * mine, 202 * others, S.rs(3) * others]
    finish = "pairs_okey" if okey else "pairs"
    S.discard(1, d2, x=_ended(finish, 1, scores))
    S.expect(finish=finish, hand_scores=[scores], penalties=[0, 0, 0, 0])


for _house in HOUSES:
    @scenario(_house, "a_pairs_finish_doubles_the_others",
              f"RULES.md §7, §8 ({_house}): a pairs-opener finishes after laying off at "
              "least one tile; every other score doubles; the finisher -202 "
              "(classic: -101)")
    def _pairs_finish(S: Sc, house: str = _house) -> None:
        _pairs(S, house, None)

    @scenario(_house, "a_pairs_and_okey_finish_quadruples",
              f"RULES.md §7, §8 ({_house}): a pairs-opener finishing with an okey: others x4 "
              "(808 for never opened); the finisher -404 (classic: -202)")
    def _pairs_okey_finish(S: Sc, house: str = _house) -> None:
        _pairs(S, house, "Y6")


for _house in ("classic", "okey-oyna"):
    @scenario(_house, "a_pairs_opener_cannot_finish_without_runs_on_the_table",
              f"RULES.md §7 ({_house}): a pairs-opener finishes only after laying off a tile "
              "onto a run or group; with no points-opener at the table they cannot finish "
              "(the last pair cannot be laid: a discard must stay)")
    def _pairs_stuck(S: Sc, house: str = _house) -> None:
        S.deal("Y5", 0, r1=[*_tiles(PAIRS_A), *_tiles(PAIRS_B), "B10"])
        S.discard(0)
        d1 = S.draw(1, safe=True)
        if house == "classic":
            S.declare(1)
        S.open(1, pairs=PAIRS_A)
        S.discard(1, d1)
        S.idle(2)
        S.idle(3)
        S.idle(0)
        S.draw(1, "B10")
        S.lay(1, pairs=[*PAIRS_B, ["B10", "B10"]], x="must_keep_a_discard")
        S.lay(1, pairs=PAIRS_B)
        S.lay_off(1, 0, ["B10"], x="cannot_lay_off")
        S.discard(1, "B10")
        S.expect(finish=None, status="playing", racks=S.racks())


# ---------------------------------------------------------------- elden
def _elden(S: Sc, house: str, last: str | None) -> None:
    S.deal("Y5", 0, r1=_tiles(ELDEN))
    S.discard(0)
    d1 = S.draw(1, last, safe=last is None)
    S.open(1, ELDEN, x={"has": [{"type": "hand_opened", "value": 72, "threshold": 101,
                                 "elden": True}]})
    okey = d1 == "Y6"
    mine, others = _finisher_mult(house, okey, False, True), _others_mult(okey, False, True)
    scores = [202 * others, -101 * mine, 202 * others, 202 * others]
    finish = "elden_okey" if okey else "elden"
    S.discard(1, d1, x=_ended(finish, 1, scores))
    S.expect(finish=finish, finished_by=1, hand_scores=[scores], penalties=[0, 0, 0, 0])


for _house in HOUSES:
    @scenario(_house, "an_elden_finish_needs_no_threshold_and_doubles",
              f"RULES.md §7, §8 ({_house}): an unopened player lays the whole rack in one "
              "turn (72 points: no threshold) and discards the last tile; never opened "
              "scores 404; the finisher -202 (classic: -101)")
    def _elden_finish(S: Sc, house: str = _house) -> None:
        _elden(S, house, None)

    @scenario(_house, "an_elden_okey_finish",
              f"RULES.md §7, §8 ({_house}): elden with an okey as the last discard: every "
              "other player 808 (the 4x cap); the finisher -404 (classic: -202)")
    def _elden_okey_finish(S: Sc, house: str = _house) -> None:
        _elden(S, house, "Y6")


@scenario("north-sultan", "elden_even_after_somebody_opened",
          "RULES.md §7 (north-sultan): elden does not need the others to be unopened; the "
          "opened seat 0 scores twice its rack sum")
def _elden_after(S: Sc) -> None:
    S.deal("Y5", 0, r0=_tiles(OPEN0), r1=_tiles(ELDEN))
    S.open(0, OPEN0, x={"has": [{"type": "hand_opened", "value": 128}]})
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, ELDEN, x={"has": [{"type": "hand_opened", "elden": True}]})
    scores = [2 * S.rs(0), -202, 404, 404]
    S.discard(1, d1, x=_ended("elden", 1, scores))
    S.expect(finish="elden", hand_scores=[scores])


@scenario("north-sultan", "a_lay_off_in_the_finishing_turn_is_no_elden",
          "RULES.md §4, §7 (north-sultan): a player who opens, lays off in the same turn and "
          "finishes has not finished elden: a normal finish")
def _elden_lay_off(S: Sc) -> None:
    mine = [["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"], ["Y1", "Y2", "Y3", "Y4"],
            ["Y7", "Y8", "Y9"], ["K8", "K9", "K10"], ["B1", "B2", "B3"]]
    S.deal("Y5", 0, r0=_tiles(OPEN0), r1=[*_tiles(mine), "R9"])
    S.open(0, OPEN0)
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, mine, x={"has": [{"type": "hand_opened", "value": 125, "elden": False}]})
    S.lay_off(1, 0, ["R9"])
    scores = [S.rs(0), -101, 202, 202]
    S.discard(1, d1, x=_ended("normal", 1, scores))
    S.expect(finish="normal", hand_scores=[scores])


@scenario("north-sultan", "no_okey_taking_after_an_elden_opening",
          "RULES.md §7 (north-sultan): in an elden turn there is no lay-off or okey-taking; "
          "an elden opening below 101 cannot take the okey and turn into an okey finish")
def _elden_okey_take(S: Sc) -> None:
    melds = [["R8", "Y6=R9", "R10", "R11"], ["Y10", "Y11", "Y12", "Y13"], ["K11", "K12", "K13"]]
    elden = [["R1", "R2", "R3"], ["B1", "B2", "B3"], ["K1", "K2", "K3"], ["R4", "B4", "K4"],
             ["R5", "B5", "K5"], ["Y1", "Y2", "Y3"], ["K6", "K7", "K8"]]
    S.deal("Y5", 0, r0=_tiles(melds), r1=_tiles(elden))
    S.open(0, melds, x={"has": [{"type": "hand_opened", "value": 120}]})
    S.discard(0)
    S.draw(1, "R9")
    S.open(1, elden, x={"has": [{"type": "hand_opened", "elden": True}]})
    S.take_okey(1, 0, ["R9"], x="elden_turn")
    scores = [2 * S.rs(0), -202, 404, 404]
    S.discard(1, "R9", x=_ended("elden", 1, scores))
    S.expect(finish="elden", hand_scores=[scores], penalties=[0, 0, 0, 0])


for _house, _x in (("okeygg", "invalid"), ("classic", "invalid"), ("okey-oyna", "rejected")):
    @scenario(_house, "no_elden_once_somebody_opened",
              f"RULES.md §7 ({_house}): elden is allowed only while nobody else has opened; "
              "after seat 0 opened, a 72-point whole-rack opening is just "
              + ("an invalid opening (101)" if _x == "invalid" else "refused"))
    def _no_elden(S: Sc, house: str = _house, how: str = _x) -> None:
        S.deal("Y5", 0, r0=_tiles(OPEN0), r1=_tiles(ELDEN))
        S.open(0, OPEN0)
        S.discard(0)
        d1 = S.draw(1, safe=True)
        if how == "invalid":
            S.open(1, ELDEN, x={"events": ["opening_retracted", "penalty_imposed"]})
        else:
            S.open(1, ELDEN, x="below_threshold")
        S.discard(1, d1)
        S.expect(finish=None, opened=["points", None, None, None],
                 penalties=[0, 101 if how == "invalid" else 0, 0, 0])


@scenario("north-sultan", "a_finishing_discard_is_required",
          "RULES.md §7 (north-sultan): a player cannot lay down the last tile: one must stay "
          "to discard; that finishing discard is never penalised, though Y5 fits Y1-Y4")
def _finishing_discard(S: Sc) -> None:
    S.deal("Y5", 0, r1=[*_tiles(OPEN1), *_tiles(LAY2)], r3=_tiles(POINTS3))
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, OPEN1)
    S.discard(1, d1)
    S.idle(2)
    S.draw(3)
    S.open(3, POINTS3)
    S.discard(3)
    S.idle(0)
    S.draw(1, "Y5")
    S.lay(1, [["Y1", "Y2", "Y3", "Y4", "Y5"], *LAY2[1:]], x="must_keep_a_discard")
    S.lay(1, LAY2)
    S.lay_off(1, 2, ["Y5"], x="must_keep_a_discard")
    scores = [202, -101, 202, S.rs(3)]
    S.discard(1, "Y5", x={"events": ["tile_discarded", "hand_ended", "match_ended"],
                          **_ended("normal", 1, scores)})
    S.expect(hand_scores=[scores], penalties=[0, 0, 0, 0])


# ---------------------------------------------------------------- deck exhausted, void
def _exhaust(S: Sc, opener: bool) -> None:
    """20 tiles in the deck: seat 0 discards, then five rounds of draw-and-discard; seat 1
    then draws from the empty deck. The okeys and fake okeys sit in seat 3's rack."""
    S.deal("Y5", 0, r0=_tiles(OPEN0) if opener else [], r3=["Y6", "Y6", "F", "F"])
    if opener:
        S.open(0, OPEN0)
    S.discard(0)
    for _ in range(5):
        for seat in (1, 2, 3, 0):
            S.idle(seat)


for _house, _scores in (("north-sultan", None), ("okeygg", None), ("okey-oyna", None)):
    @scenario(_house, "deck_exhausted_racks_are_scored",
              f"RULES.md §7 ({_house}): the deck runs out and the next player does not take "
              "the discard: no finisher; the opened seat scores its rack sum, the others "
              "202, nothing doubled")
    def _deck_out(S: Sc) -> None:
        _exhaust(S, True)
        scores = [S.rs(0), 202, 202, 202]
        S.draw(1, x={"events": ["hand_ended", "match_ended"], "has": [
            {"type": "hand_ended", "finish": "deck_exhausted", "finished_by": None,
             "scores": scores}]})
        S.expect(finish="deck_exhausted", finished_by=None, hand_scores=[scores],
                 status="over")


@scenario("north-sultan", "deck_exhausted_with_nobody_opened_scores_202_each",
          "RULES.md §7 (north-sultan): the deck runs out with nobody opened: racks are scored, "
          "so everyone pays 202")
def _deck_out_ns(S: Sc) -> None:
    _exhaust(S, False)
    S.draw(1, x={"has": [{"type": "hand_ended", "scores": [202, 202, 202, 202]}]})
    S.expect(finish="deck_exhausted", hand_scores=[[202, 202, 202, 202]])


@scenario("okeygg", "deck_exhausted_with_nobody_opened_nobody_scores",
          "RULES.md §7 (okeygg): the deck runs out with nobody opened: nobody scores")
def _deck_out_gg(S: Sc) -> None:
    _exhaust(S, False)
    S.draw(1, x={"has": [{"type": "hand_ended", "scores": [0, 0, 0, 0], "replay": False}]})
    S.expect(finish="deck_exhausted", hand_scores=[[0, 0, 0, 0]], totals=[0, 0, 0, 0])


@scenario("north-sultan", "the_last_discard_may_still_be_taken_when_the_deck_is_empty",
          "RULES.md §7 (north-sultan): with the deck empty the next player may still take "
          "the discard (here an opened player, who takes freely); the hand goes on")
def _deck_take(S: Sc) -> None:
    S.deal("Y5", 0, r1=[*_tiles(OPEN1)], r3=["Y6", "Y6", "F", "F"])
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, OPEN1)
    S.discard(1, d1)
    for _ in range(4):
        for seat in (2, 3, 0, 1):
            S.idle(seat)
    S.idle(2)
    S.idle(3)
    S.idle(0)
    S.take(1, x={"events": ["discard_taken"]})
    S.discard(1)
    S.draw(2, x={"has": [{"type": "hand_ended", "finish": "deck_exhausted"}]})
    S.expect(finish="deck_exhausted", hand_scores=[[202, S.rs(1), 202, 202]])


@scenario("classic", "deck_exhausted_with_nobody_opened_is_played_again",
          "RULES.md §7 (classic): the deck runs out with nobody opened: the hand is played "
          "again (same starter, the next deal), and the void attempt scores nothing")
def _deck_out_classic(S: Sc) -> None:
    _exhaust(S, False)
    S.draw(1, x={"events": ["hand_ended", "hand_started", "hand_dealt", "rack_dealt",
                            "rack_dealt", "rack_dealt", "rack_dealt"],
                 "has": [{"type": "hand_ended", "finish": "deck_exhausted", "replay": True,
                          "scores": [0, 0, 0, 0]},
                         {"type": "hand_started", "hand": 1, "attempt": 1, "starter": 0}]})
    S.deal("Y5", 0)
    S.discard(0)
    S.expect(hand_scores=[], totals=[0, 0, 0, 0], status="playing", finish=None, to_act=1)


VOID_PAIRS = [
    [["R1", "R1"], ["R2", "R2"], ["R3", "R3"], ["R4", "R4"], ["R5", "R5"]],
    [["Y1", "Y1"], ["Y2", "Y2"], ["Y3", "Y3"], ["Y4", "Y4"], ["Y7", "Y7"], ["Y8", "Y8"]],
    [["B1", "B1"], ["B2", "B2"], ["B3", "B3"], ["B4", "B4"], ["B5", "B5"], ["B6", "B6"],
     ["B7", "B7"]],
    [["K1", "K1"], ["K2", "K2"], ["K3", "K3"], ["K4", "K4"], ["K5", "K5"], ["K6", "K6"],
     ["K7", "K7"], ["K8", "K8"]],
]


def _all_pairs(S: Sc, house: str, sizes: tuple[int, int, int, int]) -> list[int]:
    S.deal("Y5", 0, **{f"r{s}": _tiles(VOID_PAIRS[s][:sizes[s]]) for s in range(4)})
    lines = []
    for seat in range(4):
        if seat:
            S.draw(seat)
        if house == "classic":
            S.declare(seat)
        if seat < 3:
            S.open(seat, pairs=VOID_PAIRS[seat][:sizes[seat]])
            S.discard(seat)
    return lines


for _house in ("north-sultan", "classic"):
    @scenario(_house, "all_four_opening_pairs_voids_the_hand",
              f"RULES.md §7 ({_house}): when all four players open with pairs the hand is "
              "void: nobody scores and it is dealt again (the next deal, same starter)")
    def _void(S: Sc, house: str = _house) -> None:
        _all_pairs(S, house, (5, 5, 5, 5))
        S.open(3, pairs=VOID_PAIRS[3][:5], x={"has": [
            {"type": "hand_opened", "seat": 3, "kind": "pairs"},
            {"type": "hand_ended", "finish": "void", "finished_by": None, "replay": True,
             "scores": [0, 0, 0, 0]},
            {"type": "hand_started", "hand": 1, "attempt": 1, "starter": 0}]})
        S.deal("Y5", 0)
        S.discard(0)
        S.expect(hand_scores=[], totals=[0, 0, 0, 0], status="playing",
                 opened=[None, None, None, None])


@scenario("okeygg", "all_four_opening_pairs_is_no_void_hand",
          "RULES.md §4, §7 (okeygg): there are no void hands; with escalation the four pairs "
          "openings need 5, 6, 7 and 8 pairs, and 7+ pairs erase 101 (Siler)")
def _no_void(S: Sc) -> None:
    _all_pairs(S, "okeygg", (5, 6, 7, 8))
    S.open(3, pairs=VOID_PAIRS[3], x={"events": ["hand_opened", "penalty_imposed"], "has": [
        {"type": "hand_opened", "value": 8, "threshold": 8}]})
    S.discard(3)
    S.expect(opened=["pairs", "pairs", "pairs", "pairs"], finish=None,
             penalties=[0, 0, -101, -101])


for _house in ("north-sultan", "okeygg"):
    @scenario(_house, "opening_and_laying_the_whole_rack_in_one_turn_is_elden",
              f"RULES.md §7 ({_house}): an opening that reaches 101, with the rest of the "
              "rack laid as new melds in the same turn and the last tile discarded, is an "
              "elden finish")
    def _elden_laid(S: Sc) -> None:
        S.deal("Y5", 0, r1=[*_tiles(OPEN1), *_tiles(LAY2)])
        S.discard(0)
        d1 = S.draw(1, safe=True)
        S.open(1, OPEN1, x={"has": [{"type": "hand_opened", "value": 104, "elden": False}]})
        S.lay(1, LAY2)
        S.discard(1, d1, x=_ended("elden", 1, [404, -202, 404, 404]))
        S.expect(finish="elden", hand_scores=[[404, -202, 404, 404]])


@scenario("north-sultan", "a_timeout_on_an_empty_deck_ends_the_hand",
          "RULES.md §2, §7 (north-sultan): a player who times out when the deck is empty "
          "does not take the discard: the hand ends, deck exhausted")
def _timeout_empty(S: Sc) -> None:
    _exhaust(S, False)
    S.raw(1, "timeout", x={"events": ["turn_timed_out", "hand_ended", "match_ended"],
                           "has": [{"type": "hand_ended", "finish": "deck_exhausted"}]})
    S.expect(finish="deck_exhausted", hand_scores=[[202, 202, 202, 202]])


# ---------------------------------------------------------------- §9 the match
@scenario("okeygg", "a_three_hand_match_moves_the_starter_each_hand",
          "RULES.md §2, §9 (okeygg): a match of three deals; the starter moves one seat each "
          "hand (0, 1, 2); hand scores add up; lowest total wins, ties share the place")
def _match(S: Sc) -> None:
    S.deal("Y5", 0, r1=_tiles(ELDEN))
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, ELDEN)
    S.discard(1, d1, x={"events": ["tile_discarded", "hand_ended", "hand_started",
                                   "hand_dealt", "rack_dealt", "rack_dealt", "rack_dealt",
                                   "rack_dealt"],
                        "has": [{"type": "hand_started", "hand": 2, "starter": 1}]})
    S.deal("Y5", 1, r1=[*_tiles(ELDEN), "K13"])
    S.open(1, ELDEN)
    S.discard(1, "K13", x={"has": [{"type": "hand_ended", "scores": [404, -202, 404, 404]},
                                   {"type": "hand_started", "hand": 3, "starter": 2}]})
    S.deal("Y5", 2, r3=_tiles(ELDEN))
    S.discard(2)
    d3 = S.draw(3, safe=True)
    S.open(3, ELDEN)
    totals = [1212, 0, 1212, 606]
    S.discard(3, d3, x={"has": [
        {"type": "hand_ended", "hand": 3, "scores": [404, 404, 404, -202]},
        {"type": "match_ended", "totals": totals, "places": [3, 1, 3, 2]}]})
    S.expect(hand_scores=[[404, -202, 404, 404], [404, -202, 404, 404],
                          [404, 404, 404, -202]], totals=totals, status="over")


@scenario("north-sultan", "penalties_add_up_over_the_hands_of_a_match",
          "RULES.md §6, §9 (north-sultan): in-game penalties are added to the total as they "
          "happen, undoubled, across the hands of a match")
def _match_penalties(S: Sc) -> None:
    S.deal("Y5", 0, r0=["Y6"], r1=_tiles(ELDEN))
    S.discard(0, "Y6", x={"has": [{"type": "penalty_imposed", "seat": 0, "points": 101}]})
    d1 = S.draw(1, safe=True)
    S.open(1, ELDEN)
    S.discard(1, d1, x={"has": [{"type": "hand_ended", "scores": [404, -202, 404, 404]}]})
    S.deal("Y5", 1, r1=[*_tiles(ELDEN), "K13"])
    S.open(1, ELDEN)
    S.discard(1, "K13", x={"has": [{"type": "match_ended", "totals": [909, -404, 808, 808],
                                    "places": [4, 1, 2, 2]}]})
    S.expect(hand_scores=[[404, -202, 404, 404], [404, -202, 404, 404]],
             penalties=[101, 0, 0, 0], totals=[909, -404, 808, 808])


# ---------------------------------------------------------------- §10 partners
def _partners(S: Sc, house: str) -> None:
    """The normal finish with partners: seat 1 finishes, partner seat 3 scores 0 (in okeygg
    after a 101 penalty, which stays)."""
    penalised = house == "okeygg"
    S.deal("Y5", 0, r1=[*_tiles(OPEN1), *_tiles(LAY2)], r2=_tiles(PAIRS2),
           r3=[*_tiles(POINTS3), *(["K6"] if penalised else [])])
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, OPEN1)
    S.discard(1, d1)
    if house == "classic":
        S.declare(2)
    S.draw(2)
    S.open(2, pairs=PAIRS2)
    S.discard(2)
    S.draw(3)
    S.open(3, POINTS3)
    if penalised:
        S.discard(3, "K6", x={"has": [{"type": "penalty_imposed", "seat": 3, "points": 101}]})
    else:
        S.discard(3)
    S.idle(0)
    d2 = S.draw(1)
    S.lay(1, LAY2)
    scores = [202, -101, 2 * S.rs(2), 0]
    totals = [202, -101, 2 * S.rs(2), 101 if penalised else 0]
    teams = [totals[0] + totals[2], totals[1] + totals[3]]
    end: dict[str, Any] = {"type": "match_ended", "totals": totals, "team_totals": teams}
    if house == "classic":  # 1 hand: the lower team gains 1 each, the higher loses 1
        end["rating_changes"] = [-1, 1, -1, 1]
    S.discard(1, d2, x={"has": [{"type": "hand_ended", "scores": scores}, end]})
    S.expect(hand_scores=[scores], penalties=[0, 0, 0, totals[3]], totals=totals)


@scenario("okeygg", "the_partner_of_the_finisher_scores_zero",
          "RULES.md §10 (okeygg, partners): partners face each other; when seat 1 finishes, "
          "seat 3 scores 0 that hand, but the 101 it took for a playable discard stays; the "
          "team total is the sum", options={"partners": True})
def _partner_gg(S: Sc) -> None:
    _partners(S, "okeygg")


@scenario("classic", "the_partner_of_the_finisher_scores_zero",
          "RULES.md §9, §10 (classic, partners): when seat 1 finishes, partner seat 3 scores 0 "
          "that hand though opened; the lower team total gains N rating each, the higher "
          "loses N (seeds/003)", options={"partners": True})
def _partner_classic(S: Sc) -> None:
    _partners(S, "classic")


TEAM_A1 = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["R7", "Y7", "B7", "K7"]]
TEAM_B1_LOW = [["K10", "K11", "K12", "K13"], ["Y10", "Y11", "Y12", "Y13"],
               ["R7", "Y7", "B7", "K7"]]
TEAM_B1 = [["K10", "K11", "K12", "K13"], ["Y10", "Y11", "Y12", "Y13"], ["R8", "Y8", "B8", "K8"]]
TEAM_A2 = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]
TEAM_B2 = [["K10", "K11", "K12", "K13"], ["Y10", "Y11", "Y12", "Y13"], ["R3", "R4", "R5"]]


def _teams(S: Sc, partners: bool) -> None:
    S.deal("Y5", 0, r0=_tiles(TEAM_A1), r1=[*_tiles(TEAM_B1_LOW), "R8", "Y8", "B8", "K8"],
           r2=_tiles(TEAM_A2), r3=_tiles(TEAM_B2))
    S.open(0, TEAM_A1, x={"has": [{"type": "hand_opened", "value": 120, "threshold": 101}]})
    S.discard(0)
    S.draw(1)
    S.open(1, TEAM_B1_LOW, x={"events": ["opening_retracted", "penalty_imposed"]})
    S.open(1, TEAM_B1, x={"has": [{"type": "hand_opened", "value": 124, "threshold": 121}]})
    S.discard(1)
    S.draw(2)
    if partners:
        S.open(2, TEAM_A2, x={"has": [{"type": "hand_opened", "value": 104,
                                       "threshold": 101}]})
    else:
        S.open(2, TEAM_A2, x={"events": ["opening_retracted", "penalty_imposed"]})
    S.discard(2)
    S.draw(3)
    if partners:
        S.open(3, TEAM_B2, x={"has": [{"type": "hand_opened", "value": 104,
                                       "threshold": 101}]})
    else:
        S.open(3, TEAM_B2, x={"events": ["opening_retracted", "penalty_imposed"]})
    S.discard(3)
    S.expect(opened=["points"] * 4 if partners else ["points", "points", None, None],
             penalties=[0, 101, 0, 0] if partners else [0, 101, 101, 101])


@scenario("okeygg", "team_escalation_once_your_partner_opened_101_suffices",
          "RULES.md §10 (okeygg, partners, katlamalı): A1 opens 120; B1 must beat the other "
          "team's 120 (121); A2 and B2 need only 101 once their partners opened",
          options={"partners": True})
def _team_escalation(S: Sc) -> None:
    _teams(S, True)


@scenario("okeygg", "escalation_without_partners_every_opening_beats_the_last",
          "RULES.md §4 (okeygg, no partners): after 120 and 124 every later points opening "
          "needs 125: the 104 openings of seats 2 and 3 are invalid (101 each)")
def _solo_escalation(S: Sc) -> None:
    _teams(S, False)


for _house in ("north-sultan", "okey-oyna"):
    @scenario(_house, "taking_the_discard_to_finish_elden",
              f"RULES.md §2, §7 ({_house}): an elden opening is an opening: an unopened "
              "player may take the discard (K8) that lets them lay the whole rack (72 "
              "points, no threshold) and finish")
    def _take_elden(S: Sc) -> None:
        S.deal("Y5", 0, r0=["K8"], r1=_tiles(ELDEN)[:-1])
        S.discard(0, "K8")
        S.take(1)
        S.open(1, ELDEN, x={"has": [{"type": "hand_opened", "elden": True}]})
        S.discard(1, x=_ended("elden", 1, [404, -202, 404, 404]))
        S.expect(finish="elden", hand_scores=[[404, -202, 404, 404]])
