"""The exact rack solver: the best opening (RULES.md section 4), the least leftover (section 8,
an okey left counting 101) and the most pairs, checked on worked cases and, on small racks,
against the brute force in `brute.py`.

Houses differ only in 12-13-1 (section 3): `wraps=True` is north-sultan, `wraps=False` the
others (okeygg, classic, okey-oyna).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from okey101 import melds, solver, tiles
from okey101.errors import MalformedInput
from okey101.melds import Meld
from okey101.profiles import CLASSIC, NORTH_SULTAN, OKEY_OYNA, OKEYGG, Profile
from okey101.tiles import FAKE, Tile
from tests.unit import brute

ALL_HOUSES = [NORTH_SULTAN, OKEYGG, CLASSIC, OKEY_OYNA]
HOUSE_IDS = [p.id for p in ALL_HOUSES]
WRAPS = [False, True]
WRAP_IDS = ["okeygg-classic-okey-oyna", "north-sultan"]


def rack_of(text: str) -> list[Tile]:
    return tiles.parse_many(text.split())


def okey_of(indicator: str) -> Tile:
    return tiles.okey_for(tiles.parse(indicator))


def check_solution(sol: solver.Solution, rack: Sequence[Tile], okey: Tile, wraps: bool) -> None:
    """The melds are valid runs and groups made of the rack's own tiles, disjoint, worth
    `sol.value`, and with the leftover they give back exactly the rack."""
    played: Counter[Tile] = Counter()
    total = 0
    for meld in sol.melds:
        assert meld.kind in ("run", "group")
        again = melds.classify(list(meld.tiles), wraps)
        assert again.kind == meld.kind
        assert (melds.as_run(list(meld.tiles), wraps) if meld.kind == "run"
                else melds.as_group(list(meld.tiles))) is not None
        assert again.value() == meld.value()
        if meld.kind == "run":  # each tile stands at its position (14 is the 1 after 13)
            for position, (_, stands) in zip(meld.positions(), meld.tiles, strict=True):
                assert stands == tiles.make(meld.colour, 1 if position == 14 else position)
        for tile, stands in meld.tiles:
            played[tile] += 1
            if tile == FAKE:
                assert stands == okey  # a fake okey is the okey's own tile
            elif tile != okey:
                assert stands == tile  # only an okey stands for another tile
        total += meld.value()
    assert total == sol.value
    assert played + Counter(sol.leftover) == Counter(rack)
    assert list(sol.leftover) == sorted(sol.leftover, key=tiles.sort_key)


# --- worked cases ---------------------------------------------------------------------------


def test_three_parallel_runs_use_every_tile_okey_b13_is_112_okeygg() -> None:
    okey = tiles.parse("B13")
    rack = rack_of("B10 B11 F B12 F B11 B13 B10 B12 B9")
    for wraps in WRAPS:
        sol = solver.opening(rack, okey, wraps)
        assert sol.value == 112
        assert sol.leftover == ()
        check_solution(sol, rack, okey, wraps)


def test_4_5_6_7_8_opens_with_30_okeygg() -> None:
    rack = rack_of("R4 R5 R6 R7 R8 K1")
    sol = solver.opening(rack, okey_of("Y5"), OKEYGG.run_wraps_13_to_1)
    assert sol.value == 30
    assert [m.describe(okey_of("Y5")) for m in sol.melds] == ["run (R4-R8)"]
    assert tiles.names(sol.leftover) == ["K1"]


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_12_13_1_opens_with_26_only_in_north_sultan(profile: Profile) -> None:
    rack = rack_of("K12 K13 K1")
    sol = solver.opening(rack, okey_of("Y5"), profile.run_wraps_13_to_1)
    assert sol.value == (26 if profile.id == "north-sultan" else 0)
    check_solution(sol, rack, okey_of("Y5"), profile.run_wraps_13_to_1)


@pytest.mark.parametrize("wraps", WRAPS, ids=WRAP_IDS)
def test_13_1_2_never_opens_every_house(wraps: bool) -> None:
    assert solver.opening(rack_of("K13 K1 K2"), okey_of("Y5"), wraps).value == 0


def test_a_1_goes_where_it_is_worth_most_after_13_or_before_2_north_sultan() -> None:
    okey = okey_of("Y5")
    # one K1: K1-K2-K3 (6) or K12-K13-K1 (26); with both K1s, both runs
    assert solver.opening(rack_of("K1 K2 K3 K12 K13"), okey, True).value == 26
    assert solver.opening(rack_of("K1 K2 K3 K12 K13 K1"), okey, True).value == 32
    assert solver.opening(rack_of("K1 K2 K3 K12 K13 K1"), okey, False).value == 6


def test_all_13_and_the_second_1_make_one_run_worth_92_north_sultan() -> None:
    okey = okey_of("Y5")
    rack = rack_of(" ".join(f"B{n}" for n in range(1, 14)) + " B1")
    sol = solver.opening(rack, okey, True)
    assert sol.value == 92 and sol.leftover == ()
    check_solution(sol, rack, okey, True)
    assert solver.opening(rack, okey, False).value == 91


def test_groups_and_runs_share_no_tile_classic() -> None:
    okey = okey_of("Y5")
    # R7 is either in R5-R6-R7 (18) or in the group of 7s (21): the group wins
    rack = rack_of("R5 R6 R7 Y7 K7")
    sol = solver.opening(rack, okey, CLASSIC.run_wraps_13_to_1)
    assert sol.value == 21
    check_solution(sol, rack, okey, False)


def test_an_okey_counts_as_the_tile_it_stands_for_okey_y6() -> None:
    okey = okey_of("Y5")
    sol = solver.opening(rack_of("K12 K13 Y6"), okey, False)
    assert sol.value == 11 + 12 + 13  # the okey as K11
    sol = solver.opening(rack_of("R13 B13 Y6"), okey, False)
    assert sol.value == 39  # the okey as a third 13 beats 11-12-13 of one colour (36)


def test_both_okeys_make_four_runs_over_one_colour_okeygg() -> None:
    # 9-10-11 twice and J-12-13 twice (jokers low) beat two 9-13 runs? Both use all tiles;
    # the solver must find some arrangement melding all ten tiles.
    okey = tiles.parse("R1")
    rack = rack_of("K9 K9 K10 K10 K11 K11 K12 K12 K13 K13 R1 R1")
    sol = solver.opening(rack, okey, False)
    assert sol.leftover == ()
    check_solution(sol, rack, okey, False)


def test_fake_okey_plays_as_the_okey_tile_y6_not_as_a_joker_okey_oyna() -> None:
    okey = okey_of("Y5")
    assert solver.opening(rack_of("Y4 Y5 F"), okey, False).value == 15
    assert solver.opening(rack_of("R4 R5 F"), okey, False).value == 0
    assert solver.opening(rack_of("R6 B6 F"), okey, False).value == 18


def test_empty_and_hopeless_racks_open_with_nothing() -> None:
    okey = okey_of("Y5")
    assert solver.opening([], okey) == solver.Solution(0, (), ())
    sol = solver.opening(rack_of("R1 Y3 B5 K7 R9 Y11 B13"), okey, True)
    assert sol.value == 0 and sol.melds == ()


def test_arrange_leaves_the_least_where_openings_tie_classic() -> None:
    okey = okey_of("Y5")
    # R11 R12 Y6=R13 and R12 Y6=Y12 K12 both open with 36; only the group leaves the
    # lower tiles (R11 K9 = 20, not K12 K9 = 21)
    rack = rack_of("R11 R12 K12 K9 Y6")
    assert solver.opening(rack, okey, False).value == 36
    arranged = solver.arrange(rack, okey, CLASSIC.run_wraps_13_to_1)
    assert solver.leftover_value(arranged.leftover, okey) == 20
    assert tiles.names(arranged.leftover) == ["R11", "K9"]
    check_solution(arranged, rack, okey, False)


def test_arrange_melds_every_tile_it_can_okey_counting_101() -> None:
    okey = okey_of("Y5")
    rack = rack_of("K11 K12 K13 R2 R3 Y6")
    sol = solver.arrange(rack, okey, False)
    assert solver.leftover_value(sol.leftover, okey) == 0
    check_solution(sol, rack, okey, False)


def test_leftover_value_counts_an_okey_101_and_a_fake_okey_its_number_okey_oyna() -> None:
    okey = okey_of("Y5")
    assert solver.leftover_value(rack_of("Y6 F R3"), okey) == 101 + 6 + 3
    assert solver.leftover_value(rack_of("Y6"), okey, okey_value=0) == 0


def test_most_pairs_okey_pairs_with_any_tile() -> None:
    okey = okey_of("Y5")
    assert solver.most_pairs(rack_of("R1 R1 K2 B3 Y6"), okey) == 2
    assert solver.most_pairs(rack_of("R1 R1 Y6 Y6"), okey) == 2
    assert solver.most_pairs(rack_of("F F R2"), okey) == 1
    assert solver.most_pairs(rack_of("F Y6"), okey) == 1
    assert solver.most_pairs(rack_of("R2 K2"), okey, extra_jokers=1) == 1


def test_pairs_of_matches_okeys_with_the_highest_single() -> None:
    okey = okey_of("Y5")
    pairs = solver.pairs_of(rack_of("R1 R1 K2 B13 Y6"), okey)
    assert len(pairs) == 2
    shown = sorted(" ".join(m.notation(okey)) for m in pairs)
    assert shown == ["B13 Y6=B13", "R1 R1"]


# --- properties on small racks, against the brute force -------------------------------------


@st.composite
def small_racks(draw: st.DrawFn, most: int = 9) -> tuple[list[Tile], Tile]:
    """Up to `most` tiles, mostly from a few colours and a short stretch of numbers (often
    around 12-13-1), a fake okey now and then, and 0-2 okeys."""
    okey = draw(st.integers(0, 51))
    colours = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
    low = draw(st.sampled_from([1, 1, 2, 4, 7, 9, 10, 11, 11, 12]))
    high = min(13, low + draw(st.integers(2, 6)))
    numbers = list(range(low, high + 1))
    if draw(st.booleans()):
        numbers += [1, 12, 13]
    pool = [tiles.make(c, n) for c in colours for n in numbers]
    pool += [tiles.make(draw(st.integers(0, 3)), draw(st.integers(1, 13)))]  # a stray tile
    jokers = draw(st.sampled_from([0, 0, 1, 1, 2]))
    size = draw(st.integers(0, most - jokers))
    picked = draw(st.lists(st.sampled_from([*pool, FAKE]), max_size=size))
    rack = [t for t in picked if t != okey] + [okey] * jokers
    counts = Counter(rack)
    assume(all(n <= 2 for n in counts.values()))
    return rack, okey


SMALL = settings(max_examples=250, deadline=None,
                 suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@SMALL
@given(small_racks())
def test_opening_is_the_brute_force_best_and_valid_both_wrap_rules(
        case: tuple[list[Tile], Tile]) -> None:
    rack, okey = case
    for wraps in WRAPS:
        sol = solver.opening(rack, okey, wraps)
        assert sol.value == brute.best_opening(rack, okey, wraps)
        check_solution(sol, rack, okey, wraps)


@SMALL
@given(small_racks(most=8), st.sampled_from([101, 101, 0, 7]))
def test_arrange_leaves_the_brute_force_least_and_never_more_than_opening(
        case: tuple[list[Tile], Tile], okey_value: int) -> None:
    rack, okey = case
    for wraps in WRAPS:
        arranged = solver.arrange(rack, okey, wraps, okey_value)
        check_solution(arranged, rack, okey, wraps)
        left = solver.leftover_value(arranged.leftover, okey, okey_value)
        assert left == brute.least_leftover(rack, okey, wraps, okey_value)
        opened = solver.opening(rack, okey, wraps)
        assert left <= solver.leftover_value(opened.leftover, okey, okey_value)


@settings(max_examples=150, deadline=None)
@given(small_racks(most=12))
def test_most_pairs_is_the_brute_force_most_and_pairs_of_finds_that_many(
        case: tuple[list[Tile], Tile]) -> None:
    rack, okey = case
    best = brute.most_pairs(rack, okey)
    assert solver.most_pairs(rack, okey) == best
    pairs = solver.pairs_of(rack, okey)
    assert len(pairs) == best
    used: Counter[Tile] = Counter()
    for pair in pairs:
        assert melds.as_pair(list(pair.tiles), okey) is not None
        used.update(t for t, _ in pair.tiles)
    assert not used - Counter(rack)


# --- properties on full racks (no brute force: too slow) ------------------------------------


@st.composite
def dealt_racks(draw: st.DrawFn) -> tuple[list[Tile], Tile]:
    """22 tiles dealt from the shuffled set, with the okey from a drawn indicator."""
    deck = draw(st.permutations(tiles.full_set()))
    indicator = next(t for t in deck[22:] if t != FAKE)
    return list(deck[:22]), tiles.okey_for(indicator)


@settings(max_examples=60, deadline=None)
@given(dealt_racks())
def test_full_rack_solutions_are_valid_and_12_13_1_never_lowers_the_value(
        case: tuple[list[Tile], Tile]) -> None:
    rack, okey = case
    plain = solver.opening(rack, okey, False)
    wrapped = solver.opening(rack, okey, True)
    check_solution(plain, rack, okey, False)
    check_solution(wrapped, rack, okey, True)
    assert wrapped.value >= plain.value
    for wraps in WRAPS:
        arranged = solver.arrange(rack, okey, wraps)
        check_solution(arranged, rack, okey, wraps)
        assert solver.leftover_value(arranged.leftover, okey) <= solver.leftover_value(
            solver.opening(rack, okey, wraps).leftover, okey)


@settings(max_examples=60, deadline=None)
@given(dealt_racks(), st.randoms(use_true_random=False))
def test_a_solution_depends_on_the_racks_tiles_not_their_order_nor_the_cache(
        case: tuple[list[Tile], Tile], rng: Any) -> None:
    """The solver keeps solutions by sorted rack: a shuffled rack gets the solution the
    uncached solve gives it."""
    rack, okey = case
    shuffled = list(rack)
    rng.shuffle(shuffled)
    for wraps in WRAPS:
        for weight in (None, 101, 0):
            fresh = solver._solve_sorted.__wrapped__(tuple(shuffled), okey, wraps, weight, False)
            assert solver._solve(rack, okey, wraps, weight) == fresh
            assert solver._solve(shuffled, okey, wraps, weight) == fresh


def test_a_rack_with_three_of_a_tile_is_refused() -> None:
    okey = okey_of("Y5")
    with pytest.raises(MalformedInput):
        solver.opening(rack_of("R7 R7 R7"), okey)
    with pytest.raises(MalformedInput):
        solver.opening(rack_of("Y6 Y6 Y6 R1"), okey)  # three okeys
    with pytest.raises(MalformedInput):
        solver.arrange([FAKE, FAKE, FAKE], okey)


def test_arrange_refuses_a_negative_okey_value() -> None:
    with pytest.raises(ValueError):
        solver.arrange(rack_of("R1 R2 R3"), okey_of("Y5"), okey_value=-1)


def test_solution_melds_are_meld_structs() -> None:
    sol = solver.opening(rack_of("R1 R2 R3 K9 Y9 B9"), okey_of("Y5"))
    assert all(isinstance(m, Meld) for m in sol.melds)
    assert sorted(m.kind for m in sol.melds) == ["group", "run"]


def test_three_groups_of_one_number_with_a_joker_beat_two_groups_of_four() -> None:
    """Eight 1s (two of each colour) and a joker: three 3-groups (9) lay more than two
    4-groups (8). Found by hypothesis against the brute force; pinned."""
    okey = tiles.parse("R2")
    rack = tiles.parse_many(["R1", "Y1", "B1", "K1", "R1", "Y1", "B1", "K1", "R2"])
    best = solver.opening(rack, okey, False)
    assert best.value == 9 == brute.best_opening(rack, okey, False)
    assert len(best.melds) == 3 and all(m.kind == "group" for m in best.melds)
    assert solver.opening(rack, okey, False, "third").value == 3
    assert not solver.arrange(rack, okey, False).leftover


def test_an_okey_stands_for_a_tile_the_rack_holds_when_that_leaves_less() -> None:
    # R12 Y12 B12 and both okeys (R1): R12 Y12 okey okey is a group, B12 (12) stays, not
    # an okey (101) or R12 Y12 (24)
    rack = [tiles.parse(n) for n in ("R12", "Y12", "B12", "R1", "R1")]
    arranged = solver.arrange(rack, tiles.parse("R1"), False, 101)
    assert solver.leftover_value(arranged.leftover, tiles.parse("R1"), 101) == 12
    assert brute.least_leftover(rack, tiles.parse("R1"), False, 101) == 12


def test_meldable_counts_only_tiles_a_meld_could_hold_a_joker_at_13() -> None:
    okey = okey_of("Y5")  # the okey is Y6
    assert solver.meldable(rack_of("R1 R2 R3 K7 B9"), okey) == (3, 6)
    # one joker cannot make a meld of a lone tile; two can
    assert solver.meldable(rack_of("R1 R2 R3 K7 B9 Y6"), okey) == (4, 6 + 13)
    assert solver.meldable(rack_of("R1 R2 R3 K7 Y6 Y6"), okey) == (6, 6 + 7 + 2 * 13)
    assert solver.meldable(rack_of("R12 R13 R1"), okey, wraps=True) == (3, 26)
    assert solver.meldable(rack_of("R12 R13 R1"), okey, wraps=False) == (0, 0)


@settings(max_examples=60, deadline=None)
@given(dealt_racks(), st.sampled_from(WRAPS))
def test_meldable_bounds_every_opening_and_arrangement(
        case: tuple[list[Tile], Tile], wraps: bool) -> None:
    """The rule queries skip a solve on these bounds, so no solution may pass them."""
    rack, okey = case
    most_tiles, most_value = solver.meldable(rack, okey, wraps)
    best = solver.opening(rack, okey, wraps)
    assert best.value <= most_value
    for sol in (best, solver.arrange(rack, okey, wraps), solver.fewest_left(rack, okey, wraps)):
        assert len(rack) - len(sol.leftover) <= most_tiles


@SMALL
@given(small_racks(most=10))
def test_holds_is_true_exactly_when_some_run_or_group_holds_the_tile(
        case: tuple[list[Tile], Tile]) -> None:
    """The take-discard gate answers False on `holds` without listing the melds."""
    rack, okey = case
    for wraps in WRAPS:
        for tile in set(rack) - {okey}:
            assert solver.holds(rack, tile, okey, wraps) == \
                bool(melds.melds_with(rack, tile, okey, wraps)), (tiles.names(rack), tile)


@settings(max_examples=40, deadline=None)
@given(dealt_racks(), st.sampled_from(WRAPS))
def test_holds_agrees_with_the_melds_listed_on_dealt_racks(
        case: tuple[list[Tile], Tile], wraps: bool) -> None:
    rack, okey = case
    for tile in set(rack) - {okey}:
        assert solver.holds(rack, tile, okey, wraps) == \
            bool(melds.melds_with(rack, tile, okey, wraps))


@SMALL
@given(small_racks(most=10))
def test_a_rack_laid_whole_bar_one_tile_has_an_opening_worth_its_naturals_less_the_highest(
        case: tuple[list[Tile], Tile]) -> None:
    """The elden check of the take-discard gate skips its solves below this bound."""
    rack, okey = case
    naturals = [tiles.face_value(t, okey) for t in rack if t != okey]
    assume(naturals)
    for wraps in WRAPS:
        if any(not solver.arrange(without_one(rack, u), okey, wraps).leftover
               for u in set(rack)):
            best = solver.opening(rack, okey, wraps).value
            assert best >= sum(naturals) - max(naturals)
            assert solver.meldable(rack, okey, wraps)[1] >= best


def without_one(rack: Sequence[Tile], tile: Tile) -> list[Tile]:
    rest = list(rack)
    rest.remove(tile)
    return rest
