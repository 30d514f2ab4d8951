"""Tiles, notation, indicator and okey: RULES.md section 1 (all houses unless named)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from okey101 import tiles
from okey101.errors import MalformedInput
from okey101.tiles import FAKE


def test_set_holds_106_tiles_4_colours_x_13_numbers_x_2_plus_2_fake_okeys() -> None:
    full = tiles.full_set()
    assert len(full) == tiles.SET_SIZE == 106
    counts = Counter(full)
    assert counts[FAKE] == 2
    assert len(counts) == 53
    assert all(counts[tiles.make(c, n)] == 2 for c in range(4) for n in range(1, 14))


def test_colours_are_red_yellow_blue_black_in_notation_r_y_b_k() -> None:
    assert tiles.COLOURS == "RYBK"
    assert [tiles.name(tiles.make(c, 7)) for c in range(4)] == ["R7", "Y7", "B7", "K7"]


@pytest.mark.parametrize("kind", range(tiles.KINDS))
def test_notation_round_trips_for_every_tile_kind(kind: int) -> None:
    assert tiles.parse(tiles.name(kind)) == kind


def test_notation_accepts_lower_case_and_spaces() -> None:
    assert tiles.parse("k10") == tiles.make(3, 10)
    assert tiles.parse(" r7 ") == tiles.make(0, 7)
    assert tiles.parse("f") == FAKE


def test_notation_of_fake_okey_is_f() -> None:
    assert tiles.name(FAKE) == "F"
    assert tiles.is_fake(FAKE)
    assert not tiles.is_fake(tiles.parse("R1"))


def test_colour_and_number_of_a_tile() -> None:
    k10 = tiles.parse("K10")
    assert (tiles.colour_of(k10), tiles.number_of(k10)) == (3, 10)
    assert tiles.names(tiles.parse_many(["R1", "Y13", "F"])) == ["R1", "Y13", "F"]


@pytest.mark.parametrize("bad", ["X7", "R14", "R0", "R", "7", "", "R7=K9", "FF", "B1 3"])
def test_parse_error_names_the_bad_token(bad: str) -> None:
    with pytest.raises(MalformedInput) as err:
        tiles.parse(bad)
    assert repr(bad) in str(err.value)


def test_parse_error_names_a_token_that_is_not_text() -> None:
    with pytest.raises(MalformedInput, match="7"):
        tiles.parse(7)  # type: ignore[arg-type]


def test_parse_many_error_names_the_bad_token_among_good_ones() -> None:
    with pytest.raises(MalformedInput, match="'Q3'"):
        tiles.parse_many(["R1", "Q3", "B2"])


def test_name_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(MalformedInput):
        tiles.name(53)
    with pytest.raises(MalformedInput):
        tiles.name(-1)


def test_okey_is_indicator_colour_number_plus_1_indicator_y5_okey_y6_okey_oyna() -> None:
    assert tiles.okey_for(tiles.parse("Y5")) == tiles.parse("Y6")


@pytest.mark.parametrize("colour", range(4))
@pytest.mark.parametrize("number", range(1, 13))
def test_okey_is_the_next_number_of_the_indicator_colour(colour: int, number: int) -> None:
    assert tiles.okey_for(tiles.make(colour, number)) == tiles.make(colour, number + 1)


@pytest.mark.parametrize("colour", range(4))
def test_indicator_13_makes_that_colours_1_the_okey(colour: int) -> None:
    assert tiles.okey_for(tiles.make(colour, 13)) == tiles.make(colour, 1)


def test_fake_okey_cannot_be_the_indicator_okeygg() -> None:
    with pytest.raises(MalformedInput, match="fake okey"):
        tiles.okey_for(FAKE)


def test_meld_token_y6_eq_k9_is_the_okey_y6_standing_for_k9() -> None:
    assert tiles.parse_meld_token("Y6=K9") == (tiles.parse("Y6"), tiles.parse("K9"))


def test_meld_token_without_eq_stands_for_itself() -> None:
    assert tiles.parse_meld_token("R7") == (tiles.parse("R7"), None)
    assert tiles.parse_meld_token("F") == (FAKE, None)


def test_meld_token_joker_cannot_stand_for_a_fake_okey() -> None:
    with pytest.raises(MalformedInput, match="Y6=F"):
        tiles.parse_meld_token("Y6=F")


@pytest.mark.parametrize("bad", ["Y6=Q9", "Q6=K9", "=K9", "Y6="])
def test_meld_token_errors_name_the_bad_part(bad: str) -> None:
    with pytest.raises(MalformedInput):
        tiles.parse_meld_token(bad)


def test_face_value_of_fake_okey_is_the_okeys_number_y6_is_6_okey_oyna() -> None:
    okey = tiles.okey_for(tiles.parse("Y5"))
    assert tiles.face_value(FAKE, okey) == 6
    assert tiles.face_value(tiles.parse("K11"), okey) == 11


def test_face_value_of_fake_okey_after_indicator_13_is_1() -> None:
    assert tiles.face_value(FAKE, tiles.okey_for(tiles.parse("B13"))) == 1


def test_more_than_two_copies_of_a_kind_are_refused_and_named() -> None:
    tiles.check_counts(tiles.parse_many(["R7", "R7", "F", "F"]))
    with pytest.raises(MalformedInput, match="R7 appears 3 times"):
        tiles.check_counts(tiles.parse_many(["R7", "R7", "R7"]))
    with pytest.raises(MalformedInput, match="F appears 3 times"):
        tiles.check_counts([FAKE, FAKE, FAKE])


def test_sort_key_orders_by_colour_then_number_fake_okeys_last() -> None:
    rack = tiles.parse_many(["F", "K1", "R13", "R2", "Y7"])
    assert tiles.names(sorted(rack, key=tiles.sort_key)) == ["R2", "R13", "Y7", "K1", "F"]


@given(st.lists(st.sampled_from(tiles.full_set()), max_size=22))
def test_a_rack_survives_notation_and_back(rack: list[int]) -> None:
    assert tiles.parse_many(tiles.names(rack)) == rack
