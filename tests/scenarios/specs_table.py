"""Specs: RULES.md section 5 (laying off, taking the okey) and section 6 (penalties)."""

from __future__ import annotations

from tests.scenarios.builder import Sc, scenario

POINTS_104 = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]
POINTS_138 = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"],
              ["K10", "K11", "K12", "K13"]]


def _tiles(groups: list[list[str]]) -> list[str]:
    return [t.split("=")[0] for g in groups for t in g]


# ---------------------------------------------------------------- §5 laying off
@scenario("north-sultan", "only_an_opened_player_lays_off_or_takes_the_okey",
          "RULES.md §5 (north-sultan): only a player who has opened may lay off or take an "
          "okey from the table")
def _not_opened(S: Sc) -> None:
    melds = [["R10", "Y6=R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]
    S.deal("Y5", 0, r0=_tiles(melds), r1=["R9", "R11"])
    S.open(0, melds)
    S.discard(0)
    S.draw(1)
    S.lay_off(1, 0, ["R9"], x="not_opened")
    S.take_okey(1, 0, ["R11"], x="not_opened")
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0])


@scenario("okeygg", "at_most_two_tiles_at_each_run_end_per_turn",
          "RULES.md §5 (okeygg): in one turn at most 2 tiles at each end of a run: K4-K6 takes "
          "K7 and K8 now, K9 only next turn; the other end counts on its own")
def _run_end(S: Sc) -> None:
    melds = [["K4", "K5", "K6"], ["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"]]
    S.deal("Y5", 0, r0=[*_tiles(melds), "K7", "K8", "K9", "K3", "K2", "K1", "K10"])
    S.open(0, melds, x={"has": [{"type": "hand_opened", "value": 107}]})
    S.lay_off(0, 0, ["K7", "K8", "K9"], x="lay_off_limit")
    S.lay_off(0, 0, ["K7", "K8"], x={"has": [{"type": "tiles_laid_off", "end": "high"}]})
    S.lay_off(0, 0, ["K9"], x="lay_off_limit")
    S.lay_off(0, 0, ["K3"], x={"has": [{"type": "tiles_laid_off", "end": "low"}]})
    S.lay_off(0, 0, ["K2"], x={"has": [{"type": "tiles_laid_off", "end": "low"}]})
    S.lay_off(0, 0, ["K1"], x="lay_off_limit")
    S.discard(0)
    S.idle(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.lay_off(0, 0, ["K9", "K10"], x={"has": [{"type": "tiles_laid_off", "tiles": ["K9", "K10"]}]})
    S.lay_off(0, 0, ["K1"])
    S.discard(0)
    S.expect(penalties=[0, 0, 0, 0])


@scenario("north-sultan", "a_group_takes_only_its_missing_colour",
          "RULES.md §3, §5 (north-sultan): a group of 3 takes only its missing fourth colour; "
          "no colour twice, never a fifth tile")
def _group(S: Sc) -> None:
    melds = [["R7", "Y7", "B7"], ["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"]]
    S.deal("Y5", 0, r0=[*_tiles(melds), "R7", "K7", "K7"])
    S.open(0, melds, x={"has": [{"type": "hand_opened", "value": 113}]})
    S.lay_off(0, 0, ["R7"], x="cannot_lay_off")
    S.lay_off(0, 0, ["K7"], x={"has": [{"type": "tiles_laid_off", "end": "group",
                                        "tiles": ["K7"]}]})
    S.lay_off(0, 0, ["K7"], x="cannot_lay_off")
    S.discard(0)
    S.expect(penalties=[0, 0, 0, 0])


@scenario("classic", "pairs_are_laid_only_after_somebody_opened_pairs",
          "RULES.md §4, §5 (classic): new pairs go to the pairs area only if somebody opened "
          "with pairs; a pair cannot be laid off onto")
def _pairs_area(S: Sc) -> None:
    pairs = [["R2", "R2"], ["B4", "B4"], ["K7", "K7"], ["Y11", "Y11"], ["Y3", "Y3"]]
    S.deal("Y5", 0, r0=[*_tiles(POINTS_138), "K1", "K1", "B9"], r1=_tiles(pairs))
    S.open(0, POINTS_138)
    S.lay(0, pairs=[["K1", "K1"]], x="pairs_not_allowed")
    S.discard(0)
    S.declare(1)
    S.draw(1)
    S.open(1, pairs=pairs)
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.lay_off(0, 3, ["B9"], x="cannot_lay_off")
    S.lay(0, pairs=[["K1", "K1"]])
    S.discard(0)
    S.expect(opened=["points", "pairs", None, None], penalties=[0, 0, 0, 0])


# ---------------------------------------------------------------- §5 taking the okey
@scenario("north-sultan", "take_the_okey_from_a_run",
          "RULES.md §5 (north-sultan): an opened player puts the real tile the okey stands "
          "for (R11) in its place and takes the okey, even in the opening turn")
def _take_run(S: Sc) -> None:
    melds = [["R10", "Y6=R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]
    mine = [["K10", "K11", "K12", "K13"], ["Y10", "Y11", "Y12", "Y13"], ["B7", "B8", "B9"]]
    S.deal("Y5", 0, r0=_tiles(melds), r1=[*_tiles(mine), "R11", "R10", "R11"])
    S.open(0, melds)
    S.discard(0)
    S.draw(1)
    S.open(1, mine)
    S.take_okey(1, 0, ["R10"], x="wrong_tiles")
    S.take_okey(1, 0, ["R11"], x={"events": ["okey_taken"], "has": [
        {"type": "okey_taken", "seat": 1, "meld": 0, "tiles": ["R11"], "okey": "Y6"}]})
    S.take_okey(1, 0, ["R11"], x="no_okey_there")
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0], racks=S.racks())


@scenario("north-sultan", "no_okey_from_a_three_group_but_from_a_four_group",
          "RULES.md §5 (north-sultan): an okey in a 3-tile group is ambiguous and cannot be "
          "taken; from a 4-tile group it can")
def _take_groups(S: Sc) -> None:
    melds = [["R9", "Y6=Y9", "B9"], ["R8", "Y8", "B8", "Y6=K8"], ["R10", "R11", "R12", "R13"]]
    mine = [["K10", "K11", "K12", "K13"], ["Y10", "Y11", "Y12", "Y13"], ["B7", "B8", "B9"]]
    S.deal("Y5", 0, r0=_tiles(melds), r1=[*_tiles(mine), "Y9", "K9", "K8"])
    S.open(0, melds, x={"has": [{"type": "hand_opened", "value": 105}]})
    S.discard(0)
    S.draw(1)
    S.open(1, mine)
    S.take_okey(1, 0, ["Y9"], x="ambiguous_okey")
    S.take_okey(1, 0, ["Y9", "K9"], x="ambiguous_okey")
    S.take_okey(1, 1, ["K8"], x={"has": [{"type": "okey_taken", "meld": 1}]})
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0])


@scenario("okeygg", "okey_from_a_three_group_needs_both_missing_colours",
          "RULES.md §5 (okeygg): from Y12 B12 okey the okey comes only when both R12 and K12 "
          "are put; the player whose okey is taken pays 101")
def _take_okeygg(S: Sc) -> None:
    melds = [["Y12", "B12", "Y6=R12"], ["R3", "R4", "R5", "R6", "R7"], ["K10", "K11", "K12", "K13"]]
    mine = [["B10", "B11", "B12", "B13"], ["Y9", "Y10", "Y11", "Y12"], ["R8", "R9", "R10"]]
    S.deal("Y5", 0, r0=_tiles(melds), r1=[*_tiles(mine), "R12", "K12"])
    S.open(0, melds, x={"has": [{"type": "hand_opened", "value": 107}]})
    S.discard(0)
    S.draw(1)
    S.open(1, mine, x={"has": [{"type": "hand_opened", "value": 115, "threshold": 108}]})
    S.take_okey(1, 0, ["R12"], x="wrong_tiles")
    S.take_okey(1, 0, ["K12"], x="wrong_tiles")
    S.take_okey(1, 0, ["R12", "K12"], x={"events": ["okey_taken", "penalty_imposed"], "has": [
        {"type": "penalty_imposed", "seat": 0, "points": 101, "reason": "okey_taken"}]})
    S.discard(1)
    S.expect(penalties=[101, 0, 0, 0], racks=S.racks())


@scenario("okey-oyna", "okey_from_a_three_group_needs_both_missing_colours",
          "RULES.md §5 (okey-oyna): an okey in a group comes only when all four colours are "
          "completed; okey-oyna has no okey-taken penalty")
def _take_oyna(S: Sc) -> None:
    melds = [["Y12", "B12", "Y6=R12"], ["R3", "R4", "R5", "R6", "R7"], ["K10", "K11", "K12", "K13"]]
    mine = [["B10", "B11", "B12", "B13"], ["Y9", "Y10", "Y11", "Y12"], ["R8", "R9", "R10"]]
    S.deal("Y5", 0, r0=_tiles(melds), r1=[*_tiles(mine), "R12", "K12"])
    S.open(0, melds)
    S.discard(0)
    S.draw(1)
    S.open(1, mine)
    S.take_okey(1, 0, ["R12"], x="wrong_tiles")
    S.take_okey(1, 0, ["R12", "K12"], x={"events": ["okey_taken"]})
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0], racks=S.racks())


@scenario("okeygg", "taking_back_your_own_okey_costs_nothing",
          "RULES.md §5 (okeygg): the 101 for a taken okey is not charged when the player "
          "takes back their own")
def _own_okey(S: Sc) -> None:
    melds = [["R10", "Y6=R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]
    S.deal("Y5", 0, r0=[*_tiles(melds), "R11"])
    S.open(0, melds)
    S.discard(0)
    S.idle(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.take_okey(0, 0, ["R11"], x={"events": ["okey_taken"]})
    S.discard(0)
    S.expect(penalties=[0, 0, 0, 0])


@scenario("okeygg", "a_taken_okey_costs_nothing_with_penalties_off",
          "RULES.md §5, §6 (okeygg, cezalı off): with in-game penalties off the owner of a "
          "taken okey pays nothing", options={"penalties": False})
def _okey_off(S: Sc) -> None:
    melds = [["R10", "Y6=R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]
    mine = [["K10", "K11", "K12", "K13"], ["Y10", "Y11", "Y12", "Y13"], ["B7", "B8", "B9"]]
    S.deal("Y5", 0, r0=_tiles(melds), r1=[*_tiles(mine), "R11"])
    S.open(0, melds)
    S.discard(0)
    S.draw(1)
    S.open(1, mine)
    S.take_okey(1, 0, ["R11"], x={"events": ["okey_taken"]})
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0])


@scenario("north-sultan", "an_okey_laid_off_can_be_taken_with_its_tile",
          "RULES.md §5 (north-sultan): an okey laid off onto a run (as R9) stays there as R9 "
          "until an opened player puts the real R9 and takes it")
def _okey_lay_off(S: Sc) -> None:
    mine = [["K10", "K11", "K12", "K13"], ["Y10", "Y11", "Y12", "Y13"], ["B7", "B8", "B9"]]
    S.deal("Y5", 0, r0=[*_tiles(POINTS_138), "Y6"], r1=[*_tiles(mine), "R9"])
    S.open(0, POINTS_138)
    S.lay_off(0, 0, ["Y6"], end="low", x={"has": [{"type": "tiles_laid_off",
                                                   "tiles": ["Y6=R9"], "end": "low"}]})
    S.discard(0)
    S.draw(1)
    S.open(1, mine)
    S.take_okey(1, 0, ["R9"], x={"has": [{"type": "okey_taken", "tiles": ["R9"]}]})
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0], racks=S.racks())


@scenario("north-sultan", "take_the_okey_from_a_pair",
          "RULES.md §5 (north-sultan): an okey in a pair can be taken by putting the tile it "
          "pairs with")
def _okey_pair(S: Sc) -> None:
    pairs = [["R2", "R2"], ["B4", "B4"], ["K9", "Y6"], ["Y11", "Y11"], ["Y3", "Y3"]]
    S.deal("Y5", 0, r1=_tiles(pairs), r2=[*_tiles(POINTS_104), "K9"])
    S.discard(0)
    S.draw(1)
    S.open(1, pairs=pairs)
    S.discard(1)
    S.draw(2)
    S.open(2, POINTS_104)
    S.take_okey(2, 2, ["K9"], x={"has": [{"type": "okey_taken", "meld": 2, "tiles": ["K9"]}]})
    S.discard(2)
    S.expect(penalties=[0, 0, 0, 0], racks=S.racks())


# ---------------------------------------------------------------- §6 penalties
@scenario("okeygg", "discarding_a_playable_tile_costs_101",
          "RULES.md §6 (okeygg): a player who discards a tile that could be laid off onto a "
          "run or group on the table pays 101, opened or not")
def _playable(S: Sc) -> None:
    S.deal("Y5", 0, r0=[*_tiles(POINTS_138), "R9"], r1=["B9"])
    S.open(0, POINTS_138)
    S.discard(0, "R9", x={"events": ["tile_discarded", "penalty_imposed"], "has": [
        {"type": "penalty_imposed", "seat": 0, "points": 101, "reason": "playable_discard"}]})
    S.draw(1)
    S.discard(1, "B9", x={"events": ["tile_discarded", "penalty_imposed"], "has": [
        {"type": "penalty_imposed", "seat": 1, "points": 101, "reason": "playable_discard"}]})
    S.expect(penalties=[101, 101, 0, 0], totals=[101, 101, 0, 0])


for _house in ("okeygg", "classic", "okey-oyna"):
    @scenario(_house, "a_playable_discard_costs_101_even_unopened",
              f"RULES.md §6 ({_house}, corrected): discarding a tile that could be laid off "
              "costs 101 whether or not the discarder has opened (here B9 onto B10-B13)")
    def _playable_unopened(S: Sc) -> None:
        S.deal("Y5", 0, r0=_tiles(POINTS_138), r1=["B9"])
        S.open(0, POINTS_138)
        S.discard(0)
        S.draw(1)
        S.discard(1, "B9", x={"events": ["tile_discarded", "penalty_imposed"], "has": [
            {"type": "penalty_imposed", "seat": 1, "points": 101,
             "reason": "playable_discard"}]})
        S.expect(penalties=[0, 101, 0, 0])


@scenario("north-sultan", "a_playable_discard_costs_101_even_unopened",
          "RULES.md §6 (north-sultan): discarding a tile that could be laid off costs 101 even "
          "when the discarder has not opened (here B9 onto B10-B13, and K1 after K12-K13 "
          "where 12-13-1 is a run)")
def _playable_ns(S: Sc) -> None:
    S.deal("Y5", 0, r0=_tiles(POINTS_138), r1=["B9", "K1"])
    S.open(0, POINTS_138)
    S.discard(0)
    S.draw(1)
    S.discard(1, "B9", x={"events": ["tile_discarded", "penalty_imposed"], "has": [
        {"type": "penalty_imposed", "seat": 1, "points": 101}]})
    S.idle(2)
    S.idle(3)
    S.idle(0)
    S.draw(1)
    S.discard(1, "K1", x={"has": [{"type": "penalty_imposed", "seat": 1, "points": 101}]})
    S.expect(penalties=[0, 202, 0, 0])


@scenario("classic", "discarding_an_okey_costs_101",
          "RULES.md §6 (classic): discarding an okey costs 101, opened or not; a fake okey "
          "is no okey")
def _okey_discard(S: Sc) -> None:
    S.deal("Y5", 0, r0=["Y6", "F"])
    S.discard(0, "F", x={"events": ["tile_discarded"]})
    S.idle(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.discard(0, "Y6", x={"has": [{"type": "penalty_imposed", "seat": 0, "points": 101,
                                   "reason": "okey_discarded"}]})
    S.draw(1)
    S.discard(1)
    S.expect(penalties=[101, 0, 0, 0])


@scenario("okeygg", "an_opener_using_your_discard_costs_you_10x_its_value",
          "RULES.md §6 (okeygg): when the next player opens with your discard you pay 10 x "
          "its value (R13: 130)")
def _ten_x(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R13"], r1=["R10", "R11", "R12", "B10", "B11", "B12", "B13",
                                    "K3", "K4", "K5"])
    S.discard(0, "R13")
    S.take(1)
    S.open(1, POINTS_104, x={"has": [{"type": "penalty_imposed", "seat": 0, "points": 130,
                                      "reason": "opener_used_discard"}]})
    S.discard(1)
    S.expect(penalties=[130, 0, 0, 0], totals=[130, 0, 0, 0])


@scenario("okeygg", "an_opener_using_your_discard_costs_20x_where_the_table_says",
          "RULES.md §6 (okeygg, table option 20x): the opener-used-your-discard penalty is "
          "20 x the tile (R13: 260)", options={"opened_with_discard_multiplier": 20})
def _twenty_x(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R13"], r1=["R10", "R11", "R12", "B10", "B11", "B12", "B13",
                                    "K3", "K4", "K5"])
    S.discard(0, "R13")
    S.take(1)
    S.open(1, POINTS_104, x={"has": [{"type": "penalty_imposed", "seat": 0, "points": 260}]})
    S.discard(1)
    S.expect(penalties=[260, 0, 0, 0])


@scenario("north-sultan", "no_10x_penalty_outside_okeygg",
          "RULES.md §6 (north-sultan): opening with the previous player's discard costs the "
          "discarder nothing here")
def _no_ten_x(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R13"], r1=["R10", "R11", "R12", "B10", "B11", "B12", "B13",
                                    "K3", "K4", "K5"])
    S.discard(0, "R13")
    S.take(1)
    S.open(1, POINTS_104, x={"events": ["hand_opened"]})
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0])


@scenario("okeygg", "penalties_off_removes_every_in_game_penalty",
          "RULES.md §6 (okeygg, cezalı off): no penalty for an okey discard, a playable "
          "discard or an opener using your discard", options={"penalties": False})
def _off(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R13", "Y6", "B9"], r1=["R10", "R11", "R12", "B10", "B11", "B12",
                                                "B13", "K3", "K4", "K5"])
    S.discard(0, "R13")
    S.take(1)
    S.open(1, POINTS_104, x={"events": ["hand_opened"]})
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.discard(0, "Y6", x={"events": ["tile_discarded"]})
    S.draw(1)
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.discard(0, "B9", x={"events": ["tile_discarded"]})
    S.expect(penalties=[0, 0, 0, 0])
