"""Runs, groups and pairs: RULES.md sections 1, 3 and 5 (lay-offs), 6 (playable discards).

Each test is named after the rule it checks and cites the house (profile) where the houses
differ. Unless a test says otherwise the indicator is Y5, so the okey (joker) is Y6 and
each fake okey F plays as Y6, worth 6 (okey-oyna's own example).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from okey101 import melds, tiles
from okey101.errors import IllegalMove, MalformedInput
from okey101.melds import Meld, Placed
from okey101.profiles import CLASSIC, NORTH_SULTAN, OKEY_OYNA, OKEYGG, Profile
from okey101.tiles import FAKE

OKEY = tiles.okey_for(tiles.parse("Y5"))  # Y6
ALL_HOUSES = [NORTH_SULTAN, OKEYGG, CLASSIC, OKEY_OYNA]
HOUSE_IDS = [p.id for p in ALL_HOUSES]


def placed(*tokens: str, okey: int = OKEY) -> list[Placed]:
    return melds.parse_placed(list(tokens), okey)


def run(*tokens: str, wraps: bool = False, okey: int = OKEY) -> Meld | None:
    return melds.as_run(placed(*tokens, okey=okey), wraps)


def group(*tokens: str) -> Meld | None:
    return melds.as_group(placed(*tokens))


def meld(*tokens: str, wraps: bool = False) -> Meld:
    return melds.classify(placed(*tokens), wraps)


def stands(m: Meld) -> list[str]:
    return [tiles.name(s) for _, s in m.tiles]


# --- runs (section 3) --------------------------------------------------------------------


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_run_is_three_or_more_consecutive_of_one_colour_every_house(profile: Profile) -> None:
    wraps = profile.run_wraps_13_to_1
    found = run("R4", "R5", "R6", wraps=wraps)
    assert found is not None and found.kind == "run" and found.start == 4
    long = run("K7", "K8", "K9", "K10", "K11", wraps=wraps)
    assert long is not None and long.positions() == [7, 8, 9, 10, 11]
    assert run("R4", "R5", wraps=wraps) is None  # two tiles are not a run
    assert run("R4", "R5", "Y6=R6", wraps=wraps) is not None  # the okey Y6 as R6
    assert run("R4", "R5", "Y6", wraps=wraps) is None  # an okey named as nothing is Y6
    assert run("R4", "R5", "B6", wraps=wraps) is None  # two colours
    assert run("R4", "R5", "R7", wraps=wraps) is None  # a gap
    assert run("R4", "R4", "R5", wraps=wraps) is None  # a number twice


def test_run_tiles_may_come_in_any_order_and_are_put_in_order() -> None:
    found = run("R6", "R4", "R5")
    assert found is not None and stands(found) == ["R4", "R5", "R6"]


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_run_1_2_3_is_valid_every_house(profile: Profile) -> None:
    found = run("B1", "B2", "B3", wraps=profile.run_wraps_13_to_1)
    assert found is not None and found.start == 1 and found.value() == 6


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_run_12_13_1_is_valid_only_in_north_sultan(profile: Profile) -> None:
    found = run("K12", "K13", "K1", wraps=profile.run_wraps_13_to_1)
    assert (found is not None) == (profile.id == "north-sultan")


def test_run_12_13_1_counts_the_1_as_1_point_north_sultan() -> None:
    found = run("K1", "K12", "K13", wraps=NORTH_SULTAN.run_wraps_13_to_1)
    assert found is not None
    assert found.start == 12 and found.positions() == [12, 13, 14]
    assert stands(found) == ["K12", "K13", "K1"]
    assert found.value() == 12 + 13 + 1


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_run_13_1_2_is_never_valid_every_house(profile: Profile) -> None:
    assert run("K13", "K1", "K2", wraps=profile.run_wraps_13_to_1) is None
    assert run("K12", "K13", "K1", "K2", wraps=profile.run_wraps_13_to_1) is None


def test_run_of_all_13_then_the_second_1_uses_a_1_at_each_end_north_sultan() -> None:
    tokens = [f"R{n}" for n in range(1, 14)] + ["R1"]
    found = run(*tokens, wraps=NORTH_SULTAN.run_wraps_13_to_1)
    assert found is not None and found.start == 1 and len(found.tiles) == 14
    assert found.value() == sum(range(1, 14)) + 1
    assert run(*tokens, wraps=CLASSIC.run_wraps_13_to_1) is None


def test_run_with_a_joker_counts_the_tile_it_stands_for() -> None:
    found = meld("K8", "Y6=K9", "K10")
    assert found.kind == "run" and found.value() == 27
    assert found.notation(OKEY) == ["K8", "Y6=K9", "K10"]
    assert found.jokers(OKEY) == [1]
    assert found.describe(OKEY) == "run (K8 Y6=K9 K10)"


def test_run_with_two_jokers_one_natural_is_valid() -> None:
    found = meld("Y6=B11", "B12", "Y6=B13")
    assert found.kind == "run" and found.value() == 36


def test_run_with_a_joker_standing_for_the_1_after_13_north_sultan() -> None:
    found = meld("B12", "B13", "Y6=B1", wraps=NORTH_SULTAN.run_wraps_13_to_1)
    assert found.kind == "run" and found.start == 12 and found.value() == 26


def test_long_run_is_described_by_its_ends() -> None:
    assert meld("K3", "K4", "K5", "K6").describe(OKEY) == "run (K3-K6)"


def test_fake_okey_plays_as_the_okey_y6_worth_6_not_as_a_joker_okey_oyna() -> None:
    found = meld("Y5", "F", "Y7")
    assert found.kind == "run" and stands(found) == ["Y5", "Y6", "Y7"]
    assert found.value() == 18
    assert found.jokers(OKEY) == []  # F is not a joker
    assert run("R5", "F", "R7") is None  # F is Y6, never R6


def test_fake_okey_cannot_stand_for_another_tile_okey_oyna() -> None:
    with pytest.raises(IllegalMove) as err:
        placed("R5", "F=R6", "R7")
    assert err.value.code == "fake_okey_is_not_a_joker"
    assert placed("F=Y6") == [(FAKE, OKEY)]  # naming its own tile is fine


def test_only_an_okey_can_stand_for_another_tile() -> None:
    with pytest.raises(IllegalMove) as err:
        placed("R7=K9")
    assert err.value.code == "not_a_joker"
    assert placed("R7=R7") == [(tiles.parse("R7"), tiles.parse("R7"))]


def test_an_okey_named_as_nothing_stands_for_itself() -> None:
    assert placed("Y6") == [(OKEY, OKEY)]
    assert meld("Y5", "Y6", "Y7").value() == 18


def test_meld_tokens_must_come_as_a_list() -> None:
    with pytest.raises(MalformedInput):
        melds.parse_placed("R1 R2 R3", OKEY)  # type: ignore[arg-type]


# --- groups (section 3) ------------------------------------------------------------------


def test_group_is_three_or_four_of_one_number_in_different_colours() -> None:
    three = group("R9", "Y9", "B9")
    four = group("K9", "R9", "B9", "Y9")
    assert three is not None and three.kind == "group" and three.value() == 27
    assert four is not None and four.value() == 36
    assert stands(four) == ["R9", "Y9", "B9", "K9"]  # put in colour order


def test_group_may_not_hold_a_colour_twice() -> None:
    assert group("R9", "R9", "B9") is None
    assert group("R9", "Y9", "B9", "R9") is None


def test_group_is_not_two_or_five_tiles() -> None:
    assert group("R9", "Y9") is None
    assert group("R9", "Y9", "B9", "K9", "Y6=K9") is None


def test_group_must_be_one_number() -> None:
    assert group("R9", "Y9", "B8") is None


def test_group_with_a_joker_counts_the_tile_it_stands_for() -> None:
    found = meld("R9", "Y6=K9", "B9")
    assert found.kind == "group" and found.value() == 27
    assert group("R9", "Y6=R9", "B9") is None  # the joker may not repeat a colour


def test_group_with_the_fake_okey_as_y6_okey_oyna() -> None:
    found = meld("R6", "F", "K6")
    assert found.kind == "group" and found.value() == 18


def test_classify_refuses_neither_run_nor_group_naming_the_tiles() -> None:
    with pytest.raises(IllegalMove) as err:
        meld("R1", "Y5", "K9")
    assert err.value.code == "invalid_meld"
    assert "R1 Y5 K9" in err.value.message


# --- pairs (section 3) -------------------------------------------------------------------


def test_pair_is_two_identical_tiles() -> None:
    found = melds.as_pair(placed("B4", "B4"), OKEY)
    assert found is not None and found.kind == "pair"
    assert melds.as_pair(placed("B4", "R4"), OKEY) is None
    assert melds.as_pair(placed("B4", "B5"), OKEY) is None
    assert melds.as_pair(placed("B4"), OKEY) is None
    assert melds.as_pair(placed("B4", "B4", "B4"), OKEY) is None


def test_an_okey_pairs_with_any_tile_and_stands_for_it() -> None:
    found = melds.as_pair(placed("K13", "Y6"), OKEY)
    assert found is not None and stands(found) == ["K13", "K13"]
    found = melds.as_pair(placed("Y6", "R2"), OKEY)
    assert found is not None and stands(found) == ["R2", "R2"]
    assert melds.as_pair(placed("Y6", "Y6"), OKEY) is not None


def test_two_fake_okeys_pair_and_a_fake_okey_pairs_with_an_okey() -> None:
    assert melds.as_pair(placed("F", "F"), OKEY) is not None
    assert melds.as_pair(placed("F", "Y6"), OKEY) is not None
    assert melds.as_pair(placed("F", "R6"), OKEY) is None  # F is Y6, not R6


def test_indicator_twin_pairs_with_any_tile_only_as_a_pair_okeygg() -> None:
    twin = tiles.parse("Y5")
    found = melds.as_pair(placed("Y5", "K2"), OKEY, frozenset({twin}))
    assert found is not None and stands(found) == ["K2", "K2"]
    assert melds.as_pair(placed("Y5", "K2"), OKEY) is None  # without the okeygg option
    assert run("K1", "Y5", "K3") is None  # never a joker in a run


# --- values (sections 3, 4) ---------------------------------------------------------------


def test_4_5_6_7_8_is_worth_30_okeygg() -> None:
    assert meld("R4", "R5", "R6", "R7", "R8").value() == 30


def test_meld_value_adds_the_tiles_jokers_at_what_they_stand_for() -> None:
    assert meld("Y6=R13", "B13", "K13").value() == 39
    assert meld("R11", "R12", "Y6=R13").value() == 36


# --- lay-offs (section 5) and playable discards (section 6) --------------------------------


def test_run_takes_a_lay_off_at_either_end() -> None:
    table = meld("R4", "R5", "R6")
    assert melds.extension_positions(table, False) == [3, 7]
    assert melds.lay_off_targets(tiles.parse("R3"), table, False) == [3]
    assert melds.lay_off_targets(tiles.parse("R7"), table, False) == [7]
    assert melds.lay_off_targets(tiles.parse("R8"), table, False) == []
    assert melds.lay_off_targets(tiles.parse("K7"), table, False) == []


def test_run_ending_at_13_takes_the_1_only_where_12_13_1_is_valid_north_sultan() -> None:
    table = meld("R11", "R12", "R13")
    r1 = tiles.parse("R1")
    assert melds.lay_off_targets(r1, table, NORTH_SULTAN.run_wraps_13_to_1) == [14]
    for profile in (OKEYGG, CLASSIC, OKEY_OYNA):
        assert melds.lay_off_targets(r1, table, profile.run_wraps_13_to_1) == []


def test_run_from_1_takes_nothing_below_it_every_house() -> None:
    table = meld("K1", "K2", "K3")
    assert melds.extension_positions(table, True) == [4]
    assert melds.lay_off_targets(tiles.parse("K13"), table, True) == []  # 13-1-2 never


def test_wrapped_run_takes_nothing_after_the_1_north_sultan() -> None:
    table = meld("B12", "B13", "B1", wraps=True)
    assert melds.extension_positions(table, True) == [11]
    assert melds.lay_off_targets(tiles.parse("B2"), table, True) == []


def test_group_of_3_takes_its_missing_colour_and_a_group_of_4_nothing() -> None:
    three = meld("R9", "Y9", "B9")
    assert melds.missing_colours(three) == [3]
    assert melds.lay_off_targets(tiles.parse("K9"), three, False) == [0]
    assert melds.lay_off_targets(tiles.parse("R9"), three, False) == []
    assert melds.lay_off_targets(tiles.parse("K8"), three, False) == []
    four = meld("R9", "Y9", "B9", "K9")
    assert melds.lay_off_targets(tiles.parse("K9"), four, False) == []


def test_pairs_take_no_lay_off() -> None:
    pair = melds.as_pair(placed("R3", "R3"), OKEY)
    assert pair is not None
    assert melds.lay_off_targets(tiles.parse("R4"), pair, False) == []
    assert melds.extension_positions(pair, False) == []


def test_extend_adds_a_tile_at_either_end_of_a_run() -> None:
    table = meld("R4", "R5", "R6")
    low = melds.extend(table, melds.place(tiles.parse("R3"), None, OKEY), 3, False)
    assert low.start == 3 and stands(low) == ["R3", "R4", "R5", "R6"] and low.value() == 18
    high = melds.extend(low, melds.place(OKEY, tiles.parse("R7"), OKEY), 7, False)
    assert stands(high) == ["R3", "R4", "R5", "R6", "R7"] and high.value() == 25
    assert high.notation(OKEY)[-1] == "Y6=R7"


def test_extend_wraps_a_run_to_the_1_after_13_north_sultan() -> None:
    table = meld("K11", "K12", "K13")
    grown = melds.extend(table, melds.place(tiles.parse("K1"), None, OKEY), 14, True)
    assert grown.positions() == [11, 12, 13, 14] and grown.value() == 11 + 12 + 13 + 1


def test_extend_completes_a_group_of_3_and_refuses_a_repeated_colour() -> None:
    three = meld("R9", "Y9", "B9")
    four = melds.extend(three, melds.place(tiles.parse("K9"), None, OKEY), 0, False)
    assert four.kind == "group" and stands(four) == ["R9", "Y9", "B9", "K9"]
    with pytest.raises(IllegalMove) as err:
        melds.extend(three, melds.place(tiles.parse("R9"), None, OKEY), 0, False)
    assert err.value.code == "cannot_lay_off"


TABLE: Sequence[Meld] = (
    meld("R4", "R5", "R6"),
    meld("K9", "Y9", "B9"),
    melds.as_pair(placed("B2", "B2"), OKEY) or meld("B1", "B2", "B3"),
)


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_discard_that_could_be_laid_off_onto_a_run_or_group_is_playable(
        profile: Profile) -> None:
    wraps = profile.run_wraps_13_to_1
    assert melds.is_playable(tiles.parse("R7"), TABLE, OKEY, wraps)  # run end
    assert melds.is_playable(tiles.parse("R3"), TABLE, OKEY, wraps)  # run start
    assert melds.is_playable(tiles.parse("R9"), TABLE, OKEY, wraps)  # group's missing red
    assert not melds.is_playable(tiles.parse("K9"), TABLE, OKEY, wraps)  # black is there
    assert not melds.is_playable(tiles.parse("R8"), TABLE, OKEY, wraps)
    assert not melds.is_playable(tiles.parse("B2"), TABLE, OKEY, wraps)  # pairs do not count


def test_an_okey_is_playable_wherever_a_run_or_group_has_room() -> None:
    assert melds.is_playable(OKEY, TABLE, OKEY, False)
    full = [meld("R9", "Y9", "B9", "K9"), meld(*[f"K{n}" for n in range(1, 14)])]
    assert not melds.is_playable(OKEY, full, OKEY, False)
    assert melds.is_playable(OKEY, full, OKEY, True)  # K1 after K13, north-sultan


def test_fake_okey_discard_is_playable_as_the_okey_tile_y6_okey_oyna() -> None:
    table = [meld("Y3", "Y4", "Y5")]
    assert melds.is_playable(FAKE, table, OKEY, OKEY_OYNA.run_wraps_13_to_1)
    assert not melds.is_playable(FAKE, [meld("R3", "R4", "R5")], OKEY, False)


def test_1_is_playable_after_a_run_ending_at_13_only_in_north_sultan() -> None:
    table = [meld("B11", "B12", "B13")]
    b1 = tiles.parse("B1")
    assert melds.is_playable(b1, table, OKEY, NORTH_SULTAN.run_wraps_13_to_1)
    assert not melds.is_playable(b1, table, OKEY, CLASSIC.run_wraps_13_to_1)


def test_meld_positions_and_colour_number() -> None:
    found = meld("B7", "B8", "B9")
    assert found.positions() == [7, 8, 9]
    assert (found.colour, found.number) == (2, 7)
    assert meld("R2", "Y2", "K2").positions() == [2, 2, 2]
    assert melds.position_value(14) == 1 and melds.position_value(9) == 9
    assert melds.stands_at(0, 14) == tiles.parse("R1")
