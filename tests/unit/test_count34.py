"""The "34" count (RULES.md section 12, seeds/003 "34 Oyunu Hesaplama Kuralları") as a house
option: `meld_value` "third", a meld worth floor(sum / 3), an opening needing 34.

Every worked example of the page is pinned here, and the claim that its totals are
floor(sum / 3) of each meld (its "8/3 = 3" is a slip) is checked on each of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okey101 import melds, solver, tiles
from okey101.errors import MalformedInput
from okey101.melds import Meld, counted_value
from okey101.profiles import house, resolve
from okey101.scoring import hand_scores, rack_score
from okey101.table.rules import opening_within
from okey101.tiles import Tile
from tests.unit import brute
from tests.unit.test_solver import check_solution, okey_of, rack_of, small_racks

THIRD = {"base": "classic", "options": {"meld_value": "third"}}


def meld_of(text: str, okey: str = "Y6") -> Meld:
    placed = melds.parse_placed(text.split(), tiles.parse(okey))
    return melds.classify(placed, False)


def page_method(core: Sequence[int], extras: Sequence[int]) -> int:
    """The page's way: the middle of a 3-tile core plus the extra tiles summed, then
    divided by 3, rounded down ("Yanda kalan taşlar toplanılır ... 3'e bölündüğünde")."""
    return sorted(core)[1] + sum(extras) // 3


# ---------------------------------------------------------------- the page's examples
@pytest.mark.parametrize(("meld", "worth"), [
    ("R13 Y13 B13", 13),  # "13-13-13 serisinin orta taş 13'dır ve bu serinin değeri 13"
    ("K7 K8 K9 K10", 11),  # "orta taş 8'dir ve yan olarak 10 var": 8 + 10/3 = 8 + 3
    ("R12 Y12 B12", 12),  # "12-12-12 ... değeri 12"
    ("R1 Y1 B1", 1),  # "1-1-1 ... değeri 1"
    ("K4 K5 K6 K7 K8", 10),  # "serinin değeri 5+2+3=10" (and 1+2+7, and 5+5)
])
def test_the_pages_worked_examples_are_worth_floor_of_their_sum_over_3(meld: str, worth: int
                                                                     ) -> None:
    m = meld_of(meld)
    assert counted_value(m, "third") == worth == m.value() // 3
    assert counted_value(m, "face") == m.value()


def test_the_pages_three_ways_for_4_5_6_7_8_agree_with_floor_of_the_sum_not_per_tile() -> None:
    """Core 4-5-6 with 7, 8 over; core 6-7-8 with 4, 5 over; extras summed (7 + 8 = 15):
    all 10 = floor(30 / 3). Rounding each extra tile down would give 5 + 2 + 2 = 9 and
    7 + 1 + 1 = 9: the page's "8/3 = 3" and "5/3 = 2" are slips its totals do not make."""
    value = counted_value(meld_of("K4 K5 K6 K7 K8"), "third")
    assert value == page_method([4, 5, 6], [7, 8]) == page_method([6, 7, 8], [4, 5]) == 10
    assert 5 + 7 // 3 + 8 // 3 == 9 != value
    assert 7 + 4 // 3 + 5 // 3 == 9 != value


def test_the_pages_melds_open_with_37_against_34() -> None:
    okey = okey_of("Y5")
    rack = rack_of("R13 Y13 B13 K7 K8 K9 K10 R12 Y12 B12 R1 Y1 B1")
    best = solver.opening(rack, okey, False, "third")
    assert best.value == 13 + 11 + 12 + 1 == 37
    assert resolve(THIRD).opening_points == 34


def test_a_joker_counts_the_tile_it_stands_for_in_the_34_count() -> None:
    assert counted_value(meld_of("K7 Y6=K8 K9"), "third") == 8


# ---------------------------------------------------------------- the option
def test_the_34_count_brings_its_threshold_and_siler_unless_they_are_set() -> None:
    classic = resolve(THIRD)
    assert (classic.meld_value, classic.opening_points, classic.siler_points) == \
        ("third", 34, 50)
    own = resolve({"base": "classic", "options": {"meld_value": "third", "opening_points": 40}})
    assert own.opening_points == 40
    okeygg = resolve({"base": "okeygg", "options": {"meld_value": "third"}})
    assert (okeygg.opening_points, okeygg.siler_points) == (34, 50)
    assert house("classic").meld_value == "face" and house("classic").opening_points == 101


def test_an_unknown_count_and_a_count_for_duz_are_refused() -> None:
    with pytest.raises(MalformedInput, match="meld_value"):
        resolve({"base": "classic", "options": {"meld_value": "half"}})
    with pytest.raises(MalformedInput, match="meld_value: düz has no opening"):
        resolve({"base": "okey-oyna-duz", "options": {"meld_value": "third"}})


def test_racks_left_at_the_end_score_face_values_under_the_34_count() -> None:
    """seeds/003's own penalty examples sit beside the 34 count and use face values:
    8+5+10+11 = 34, twice for a pairs-opener (68), an okey left +101."""
    profile = resolve(THIRD)
    okey = okey_of("Y5")
    rack = rack_of("R8 Y5 B10 K11")
    assert rack_score(profile, okey, "points", rack) == 34
    assert rack_score(profile, okey, "pairs", rack) == 68
    scores = hand_scores(profile, okey, 0, "normal", ["points", None, "points", "pairs"],
                         [[], rack_of("R1"), rack, rack])
    assert scores.scores == (-101, 202, 34, 68)


# ---------------------------------------------------------------- the exact solve
def test_the_face_optimums_melds_can_fall_short_of_the_34_counts_best() -> None:
    """R1-R3, R7-R10, B8-B10 and the 9s: face 105 (its melds: 34 in the count), yet
    another choice of melds is worth 35 = floor(105 / 3)."""
    okey = okey_of("K5")
    rack = rack_of("R1 R2 R3 R7 R8 R9 R9 R10 Y9 B8 B9 B9 B10 K6")
    face = solver.opening(rack, okey)
    assert face.value == 105 and sum(counted_value(m, "third") for m in face.melds) == 34
    best = solver.opening(rack, okey, False, "third")
    assert best.value == 35 == brute.best_third(rack, okey, False)
    check_third(best, rack, okey, False)


def test_the_34_count_best_of_a_rack_with_two_short_melds_is_42() -> None:
    okey = okey_of("R13")  # the okey R1 is not in the rack
    rack = rack_of("R6 R8 R8 R9 R10 R11 Y6 Y8 B6 B8 K8 K8 K9 K10 K11")
    face = solver.opening(rack, okey)
    assert sum(counted_value(m, "third") for m in face.melds) == 40
    assert solver.opening(rack, okey, False, "third").value == 42


def test_opening_within_skips_the_exact_search_below_reach() -> None:
    okey = okey_of("Y5")
    rack = rack_of("R1 R2 R3 K7 K8 K9")  # face 30: at most 10 in the count
    assert opening_within(rack, okey, False, "third", 34) is None
    found = opening_within(rack, okey, False, "third", 10)
    assert found is not None and found.value == 10


def check_third(sol: solver.Solution, rack: Sequence[Tile], okey: Tile, wraps: bool) -> None:
    """Valid disjoint melds of the rack, worth `sol.value` in the 34 count."""
    face = sum(m.value() for m in sol.melds)
    check_solution(msgspec.structs.replace(sol, value=face), rack, okey, wraps)
    assert sol.value == sum(counted_value(m, "third") for m in sol.melds)


@st.composite
def meld_heavy_racks(draw: st.DrawFn) -> tuple[list[Tile], Tile, bool]:
    """Up to 12 tiles made of runs of 3-5 and groups of 3-4, with an okey or two: the
    racks where the 34 count and the face count choose different melds."""
    okey = draw(st.integers(0, 51))
    rack: list[Tile] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            colour, start = draw(st.integers(0, 3)), draw(st.integers(1, 11))
            shape = [tiles.make(colour, n)
                     for n in range(start, min(14, start + draw(st.integers(3, 5))))]
        else:
            colours = draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True))
            number = draw(st.integers(1, 13))
            shape = [tiles.make(c, number) for c in colours]
        if len(rack) + len(shape) <= 12 and all(
                rack.count(t) + shape.count(t) <= 2 and t != okey for t in shape):
            rack += shape
    rack += [okey] * min(draw(st.integers(0, 2)), 12 - len(rack))
    return rack, okey, draw(st.booleans())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(meld_heavy_racks())
def test_the_34_count_opening_is_the_brute_force_best_on_meld_heavy_racks(
        case: tuple[list[Tile], Tile, bool]) -> None:
    rack, okey, wraps = case
    best = solver.opening(rack, okey, wraps, "third")
    assert best.value == brute.best_third(rack, okey, wraps)
    check_third(best, rack, okey, wraps)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.filter_too_much])
@given(small_racks())
def test_the_34_count_opening_is_the_brute_force_best_on_small_racks(
        case: tuple[list[Tile], Tile]) -> None:
    rack, okey = case
    for wraps in (False, True):
        best = solver.opening(rack, okey, wraps, "third")
        assert best.value == brute.best_third(rack, okey, wraps)
        check_third(best, rack, okey, wraps)
