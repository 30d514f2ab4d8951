"""Scoring: RULES.md section 8 (and 4 Siler, 7 end of the hand, 9 the match, 10 partners).

Each test is named after the rule it checks and cites the house (profile) it uses.
The standard table, unless a test says otherwise: seat 0 finishes; seat 1 opened with
points and holds R8 Y5 B10 K11 (34); seat 2 opened with pairs and holds the same 34
(68); seat 3 never opened (202). Indicator Y5, so the okey is Y6.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from okey101 import tiles
from okey101.errors import IllegalMove, MalformedInput
from okey101.profiles import (
    CLASSIC,
    NORTH_SULTAN,
    OKEY_OYNA,
    OKEY_OYNA_DUZ,
    OKEYGG,
    Profile,
    with_overrides,
)
from okey101.scoring import (
    FINISH_KINDS,
    FinishKind,
    HandResult,
    Opened,
    classic_rating_changes,
    classic_team_rating_changes,
    finish_multipliers,
    hand_breakdown,
    hand_scores,
    leaving_change,
    okey_surcharge,
    partner_of,
    places,
    rack_score,
    rack_sum,
    siler_adjustment,
    siler_applies,
    team_totals,
)

OKEY = tiles.okey_for(tiles.parse("Y5"))  # Y6
R34 = tiles.parse_many(["R8", "Y5", "B10", "K11"])
EMPTY: list[int] = []
STANDARD_OPENED: list[Opened] = [None, "points", "pairs", None]
STANDARD_RACKS = [EMPTY, R34, R34, tiles.parse_many(["R1", "R2"])]
NOBODY_OPENED: list[Opened] = [None, None, None, None]
ALL_HOUSES = [NORTH_SULTAN, OKEYGG, CLASSIC, OKEY_OYNA]
HOUSE_IDS = [p.id for p in ALL_HOUSES]


def rack(*names: str) -> list[int]:
    return tiles.parse_many(names)


def score(
    profile: Profile,
    finish: FinishKind,
    opened: Sequence[Opened] = STANDARD_OPENED,
    racks: Sequence[Sequence[int]] = STANDARD_RACKS,
    finisher: int | None = 0,
    partners: bool | None = None,
) -> tuple[int, int, int, int]:
    if finisher is not None:
        opened = list(opened)
        if finish in ("pairs", "pairs_okey"):
            opened[finisher] = "pairs"
        elif finish in ("normal", "okey"):
            opened[finisher] = "points"
    return hand_scores(profile, OKEY, finisher, finish, opened, racks, partners).scores


# --- rack sums (section 8 worked examples) ----------------------------------------------


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_rack_sum_is_face_values_8_5_10_11_is_34_every_house(profile: Profile) -> None:
    assert rack_sum(R34, OKEY, profile.okey_in_rack_value) == 34
    assert rack_score(profile, OKEY, "points", R34) == 34


def test_points_opener_pays_rack_sum_with_101_per_okey_left_classic() -> None:
    left = rack("R4", "B5", "Y8", "K8", "R3", "B3", "Y6")  # Y6 is the okey
    assert rack_sum(left, OKEY, CLASSIC.okey_in_rack_value) == 31 + 101 == 132
    assert rack_score(CLASSIC, OKEY, "points", left) == 132


def test_okey_left_in_rack_counts_101_each_north_sultan() -> None:
    assert rack_score(NORTH_SULTAN, OKEY, "points", rack("Y6", "Y6", "R2")) == 101 + 101 + 2


def test_pairs_opener_pays_twice_the_rack_sum_34_is_68_classic() -> None:
    assert rack_score(CLASSIC, OKEY, "pairs", R34) == 68


def test_pairs_opener_with_an_okey_left_pays_twice_sum_including_101_north_sultan() -> None:
    assert rack_score(NORTH_SULTAN, OKEY, "pairs", rack("Y6", "R2")) == 2 * (101 + 2)
    assert okey_surcharge(NORTH_SULTAN, OKEY, "pairs", rack("Y6", "R2")) == 0


def test_pairs_opener_with_an_okey_left_pays_twice_the_sum_plus_101_undoubled_okeygg() -> None:
    """RULES.md 8 (okeygg, same column as okey-oyna): +101 per okey after every multiplier."""
    assert rack_score(OKEYGG, OKEY, "pairs", rack("Y6", "R2")) == 2 * 2
    assert okey_surcharge(OKEYGG, OKEY, "pairs", rack("Y6", "R2")) == 101


@pytest.mark.parametrize("profile", [OKEY_OYNA, OKEYGG], ids=["okey-oyna", "okeygg"])
def test_an_okey_left_in_an_opened_rack_adds_101_never_doubled(profile: Profile) -> None:
    """RULES.md 8, worked example: opened with points, rack 14 + one okey, okey finish:
    2 x 14 + 101 = 129 (not 2 x 115 = 230); seeds/004 "101 cezaları katlanmaz"."""
    left = rack("R9", "B5", "Y6")  # 9 + 5 and the okey Y6
    result = hand_scores(profile, OKEY, 0, "okey", ["points", "points", None, None],
                         [[], left, rack("R2"), rack("R3")], False)
    assert result.scores[1] == 2 * 14 + 101 == 129
    both = hand_scores(profile, OKEY, 0, "elden_okey", [None, "pairs", None, None],
                       [[], rack("R9", "Y6", "Y6"), rack("R2"), rack("R3")], False)
    assert both.scores[1] == 4 * 2 * 9 + 2 * 101  # x2 pairs-opener, x4 capped; 202 on top


@pytest.mark.parametrize("profile", [NORTH_SULTAN, CLASSIC], ids=["north-sultan", "classic"])
def test_an_okey_left_in_an_opened_rack_is_multiplied_with_the_rack(profile: Profile) -> None:
    """RULES.md 8 (north-sultan: inside the rack sum; classic: +101 multiplied)."""
    left = rack("R9", "B5", "Y6")
    result = hand_scores(profile, OKEY, 0, "okey", ["points", "points", None, None],
                         [[], left, rack("R2"), rack("R3")], False)
    assert result.scores[1] == 2 * (14 + 101) == 230


def test_fake_okey_counts_as_the_okeys_number_indicator_y5_okey_y6_f_is_6_okey_oyna() -> None:
    assert tiles.number_of(OKEY) == 6
    assert rack_sum([tiles.FAKE], OKEY, OKEY_OYNA.okey_in_rack_value) == 6
    assert rack_sum([tiles.FAKE, tiles.FAKE, OKEY], OKEY, 101) == 6 + 6 + 101


def test_fake_okey_after_indicator_13_counts_1_okey_oyna() -> None:
    okey = tiles.okey_for(tiles.parse("K13"))  # K1
    assert rack_sum([tiles.FAKE], okey, OKEY_OYNA.okey_in_rack_value) == 1


def test_unopened_pays_202_whatever_the_rack_holds_every_house() -> None:
    for profile in ALL_HOUSES:
        assert rack_score(profile, OKEY, None, rack("Y6", "K13", "K13")) == 202
        assert rack_score(profile, OKEY, None, EMPTY) == 202


def test_rack_sum_rejects_an_unknown_tile_kind() -> None:
    with pytest.raises(MalformedInput):
        rack_sum([99], OKEY, 101)


# --- finishes, per house (section 8 table) ----------------------------------------------


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_normal_finish_finisher_minus_101_others_rack_scores_every_house(
    profile: Profile,
) -> None:
    assert score(profile, "normal") == (-101, 34, 68, 202)


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_okey_finish_finisher_minus_202_others_doubled_every_house(profile: Profile) -> None:
    assert score(profile, "okey") == (-202, 68, 136, 404)


@pytest.mark.parametrize("profile", [NORTH_SULTAN, OKEYGG, OKEY_OYNA], ids=lambda p: p.id)
def test_pairs_finish_finisher_minus_202_others_doubled_north_sultan_okeygg_okey_oyna(
    profile: Profile,
) -> None:
    assert score(profile, "pairs") == (-202, 68, 136, 404)


def test_pairs_finish_does_not_double_the_finisher_only_others_classic() -> None:
    assert score(CLASSIC, "pairs") == (-101, 68, 136, 404)


@pytest.mark.parametrize("profile", [NORTH_SULTAN, OKEYGG, OKEY_OYNA], ids=lambda p: p.id)
def test_pairs_and_okey_finish_finisher_minus_404_others_x4_north_sultan_okeygg_okey_oyna(
    profile: Profile,
) -> None:
    assert score(profile, "pairs_okey") == (-404, 136, 272, 808)


def test_pairs_and_okey_finish_finisher_minus_202_others_x4_classic() -> None:
    assert score(CLASSIC, "pairs_okey") == (-202, 136, 272, 808)


def test_okey_finish_opened_player_with_okey_left_pays_twice_sum_plus_101_classic() -> None:
    racks = [EMPTY, rack("R4", "B5", "Y8", "K8", "R3", "B3", "Y6"), R34, EMPTY]
    assert score(CLASSIC, "okey", racks=racks) == (-202, 264, 136, 404)


def test_elden_finish_everything_doubled_again_finisher_minus_202_unopened_404_north_sultan() -> (
    None
):
    assert score(NORTH_SULTAN, "elden", NOBODY_OPENED) == (-202, 404, 404, 404)


def test_elden_okey_finish_finisher_minus_404_unopened_808_north_sultan() -> None:
    assert score(NORTH_SULTAN, "elden_okey", NOBODY_OPENED) == (-404, 808, 808, 808)


def test_elden_while_others_opened_doubles_their_rack_scores_too_north_sultan() -> None:
    # north-sultan allows elden after others opened (elden_only_while_nobody_opened=False)
    assert not NORTH_SULTAN.elden_only_while_nobody_opened
    assert score(NORTH_SULTAN, "elden") == (-202, 68, 136, 404)
    assert score(NORTH_SULTAN, "elden_okey") == (-404, 136, 272, 808)


def test_elden_finish_finisher_minus_101_others_404_classic() -> None:
    assert score(CLASSIC, "elden", NOBODY_OPENED) == (-101, 404, 404, 404)


def test_elden_okey_finish_finisher_minus_202_others_808_classic() -> None:
    assert score(CLASSIC, "elden_okey", NOBODY_OPENED) == (-202, 808, 808, 808)


@pytest.mark.parametrize("profile", [OKEYGG, OKEY_OYNA], ids=lambda p: p.id)
def test_elden_finish_finisher_minus_202_every_other_player_404_okeygg_okey_oyna(
    profile: Profile,
) -> None:
    assert score(profile, "elden", NOBODY_OPENED) == (-202, 404, 404, 404)


@pytest.mark.parametrize("profile", [OKEYGG, OKEY_OYNA], ids=lambda p: p.id)
def test_elden_okey_finish_finisher_minus_404_every_other_player_808_okeygg_okey_oyna(
    profile: Profile,
) -> None:
    assert score(profile, "elden_okey", NOBODY_OPENED) == (-404, 808, 808, 808)


def test_elden_finisher_entry_in_opened_is_not_looked_at_okeygg() -> None:
    opened: list[Opened] = ["points", None, None, None]
    assert hand_scores(OKEYGG, OKEY, 0, "elden", opened, STANDARD_RACKS).scores == (
        -202,
        404,
        404,
        404,
    )


@pytest.mark.parametrize("finisher", range(4))
def test_any_seat_can_finish_and_the_finishers_rack_is_ignored_okey_oyna(finisher: int) -> None:
    opened: list[Opened] = [None, None, None, None]
    opened[finisher] = "points"
    racks = [R34, R34, R34, R34]
    expected = [202, 202, 202, 202]
    expected[finisher] = -101
    assert score(OKEY_OYNA, "normal", opened, racks, finisher) == tuple(expected)


# --- the multiplier cap ------------------------------------------------------------------


@pytest.mark.parametrize("profile", ALL_HOUSES, ids=HOUSE_IDS)
def test_no_house_multiplies_beyond_4x_so_unopened_never_pays_more_than_808(
    profile: Profile,
) -> None:
    for finish in FINISH_KINDS:
        finisher_mult, others_mult = finish_multipliers(profile, finish)
        assert finisher_mult <= 4 and others_mult <= 4
        assert others_mult * profile.unopened_score <= 808


def test_multiplier_cap_limits_others_when_elden_multiplier_is_raised_north_sultan() -> None:
    raised = with_overrides(NORTH_SULTAN, {"elden_others_multiplier": 4})
    assert finish_multipliers(raised, "elden") == (2, 4)
    assert finish_multipliers(raised, "elden_okey") == (4, 4)  # 2 x 4 = 8, capped at 4
    assert score(raised, "elden_okey", NOBODY_OPENED) == (-404, 808, 808, 808)


def test_multiplier_cap_2_limits_pairs_and_okey_finish_to_double_okeygg() -> None:
    capped = with_overrides(OKEYGG, {"multiplier_cap": 2})
    assert score(capped, "pairs_okey") == (-202, 68, 136, 404)


def test_finish_multipliers_per_finish_kind_north_sultan_and_classic() -> None:
    expected_ns = {
        "normal": (1, 1),
        "okey": (2, 2),
        "pairs": (2, 2),
        "pairs_okey": (4, 4),
        "elden": (2, 2),
        "elden_okey": (4, 4),
        "deck_exhausted": (1, 1),
        "void": (1, 1),
    }
    expected_classic = expected_ns | {"pairs": (1, 2), "pairs_okey": (2, 4), "elden": (1, 2)}
    expected_classic["elden_okey"] = (2, 4)
    for finish in FINISH_KINDS:
        assert finish_multipliers(NORTH_SULTAN, finish) == expected_ns[finish]
        assert finish_multipliers(CLASSIC, finish) == expected_classic[finish]


# --- deck exhausted (section 7) ----------------------------------------------------------

EXHAUSTED_OPENED: list[Opened] = ["points", "pairs", None, None]
EXHAUSTED_RACKS = [R34, R34, R34, R34]


def exhausted(profile: Profile, opened: Sequence[Opened]) -> HandResult:
    return hand_scores(profile, OKEY, None, "deck_exhausted", opened, EXHAUSTED_RACKS)


def test_deck_exhausted_racks_are_scored_undoubled_north_sultan() -> None:
    assert exhausted(NORTH_SULTAN, EXHAUSTED_OPENED) == HandResult(scores=(34, 68, 202, 202))


def test_deck_exhausted_nobody_opened_everyone_pays_202_north_sultan() -> None:
    assert exhausted(NORTH_SULTAN, NOBODY_OPENED) == HandResult(scores=(202, 202, 202, 202))


def test_deck_exhausted_nobody_opened_nobody_scores_and_no_replay_okeygg() -> None:
    assert exhausted(OKEYGG, NOBODY_OPENED) == HandResult(scores=(0, 0, 0, 0), replay=False)


def test_deck_exhausted_somebody_opened_unopened_202_opened_rack_sum_pairs_double_okeygg() -> None:
    assert exhausted(OKEYGG, EXHAUSTED_OPENED) == HandResult(scores=(34, 68, 202, 202))


def test_deck_exhausted_nobody_opened_hand_is_played_again_classic() -> None:
    assert exhausted(CLASSIC, NOBODY_OPENED) == HandResult(scores=(0, 0, 0, 0), replay=True)


def test_deck_exhausted_somebody_opened_racks_are_scored_classic() -> None:
    assert exhausted(CLASSIC, EXHAUSTED_OPENED) == HandResult(scores=(34, 68, 202, 202))


def test_deck_exhausted_racks_are_scored_okey_oyna() -> None:
    assert exhausted(OKEY_OYNA, EXHAUSTED_OPENED) == HandResult(scores=(34, 68, 202, 202))
    assert exhausted(OKEY_OYNA, NOBODY_OPENED) == HandResult(scores=(202, 202, 202, 202))


def test_deck_exhausted_has_no_finisher() -> None:
    with pytest.raises(MalformedInput):
        hand_scores(OKEYGG, OKEY, 0, "deck_exhausted", EXHAUSTED_OPENED, EXHAUSTED_RACKS)


# --- void hand (section 7) ---------------------------------------------------------------

ALL_PAIRS: list[Opened] = ["pairs", "pairs", "pairs", "pairs"]


@pytest.mark.parametrize("profile", [NORTH_SULTAN, CLASSIC], ids=lambda p: p.id)
def test_all_four_opened_pairs_hand_is_void_nobody_scores_dealt_again_north_sultan_classic(
    profile: Profile,
) -> None:
    result = hand_scores(profile, OKEY, None, "void", ALL_PAIRS, EXHAUSTED_RACKS)
    assert result == HandResult(scores=(0, 0, 0, 0), replay=True)


@pytest.mark.parametrize("profile", [OKEYGG, OKEY_OYNA], ids=lambda p: p.id)
def test_no_void_hand_in_okeygg_okey_oyna(profile: Profile) -> None:
    with pytest.raises(IllegalMove) as err:
        hand_scores(profile, OKEY, None, "void", ALL_PAIRS, EXHAUSTED_RACKS)
    assert err.value.code == "no_void_hand"


def test_void_needs_all_four_opened_with_pairs_classic() -> None:
    with pytest.raises(IllegalMove):
        hand_scores(CLASSIC, OKEY, None, "void", ["pairs", "pairs", "pairs", None], [[]] * 4)


# --- partners (section 10) ---------------------------------------------------------------

OKEYGG_PARTNERS = with_overrides(OKEYGG, {"partners": True})
CLASSIC_PARTNERS = with_overrides(CLASSIC, {"partners": True})


def test_partner_of_is_the_facing_seat() -> None:
    assert [partner_of(s) for s in range(4)] == [2, 3, 0, 1]


def test_finishers_partner_scores_zero_team_gets_minus_101_okeygg_partners() -> None:
    # seeds/001: Ali finishes normally: Ali -101, partner 0; each unopened rival 202
    scores = score(OKEYGG_PARTNERS, "normal", NOBODY_OPENED, [EMPTY, R34, R34, R34])
    assert scores == (-101, 202, 0, 202)
    assert team_totals(scores) == (-101, 404)


def test_finishers_partner_scores_zero_even_when_doubled_okeygg_partners() -> None:
    # seeds/001: okey, pairs or elden finish -> each unopened rival 404; pairs+okey -> 808
    assert score(OKEYGG_PARTNERS, "okey", NOBODY_OPENED) == (-202, 404, 0, 404)
    assert score(OKEYGG_PARTNERS, "pairs", NOBODY_OPENED) == (-202, 404, 0, 404)
    assert score(OKEYGG_PARTNERS, "elden", NOBODY_OPENED) == (-202, 404, 0, 404)
    assert score(OKEYGG_PARTNERS, "pairs_okey", NOBODY_OPENED) == (-404, 808, 0, 808)


def test_finishers_partner_scores_zero_opened_rival_pays_rack_classic_partners() -> None:
    opened: list[Opened] = [None, "points", None, "pairs"]
    racks = [R34, R34, R34, R34]
    assert score(CLASSIC_PARTNERS, "normal", opened, racks, finisher=1) == (202, -101, 202, 0)


def test_partners_argument_overrides_the_profile_okeygg() -> None:
    assert score(OKEYGG, "normal", partners=True) == (-101, 34, 0, 202)
    assert score(OKEYGG_PARTNERS, "normal", partners=False) == (-101, 34, 68, 202)


def test_partner_scored_normally_when_option_off_okeygg_partners() -> None:
    profile = with_overrides(OKEYGG_PARTNERS, {"partner_of_finisher_scores_zero": False})
    assert score(profile, "normal") == (-101, 34, 68, 202)


def test_deck_exhausted_with_partners_zeroes_nobody_classic_partners() -> None:
    assert exhausted(CLASSIC_PARTNERS, EXHAUSTED_OPENED).scores == (34, 68, 202, 202)


def test_team_totals_add_facing_seats() -> None:
    assert team_totals([10, 20, 30, 40]) == (40, 60)


# --- shape and consistency checks --------------------------------------------------------


def test_a_finish_needs_a_finisher() -> None:
    with pytest.raises(MalformedInput):
        hand_scores(OKEYGG, OKEY, None, "normal", STANDARD_OPENED, STANDARD_RACKS)
    with pytest.raises(MalformedInput):
        hand_scores(OKEYGG, OKEY, 4, "normal", STANDARD_OPENED, STANDARD_RACKS)


def test_scoring_needs_four_seats() -> None:
    with pytest.raises(MalformedInput):
        hand_scores(OKEYGG, OKEY, 0, "normal", ["points", None, None], STANDARD_RACKS)


def test_a_points_opener_cannot_make_a_pairs_finish_nor_a_pairs_opener_a_normal_one() -> None:
    with pytest.raises(IllegalMove):
        hand_scores(OKEYGG, OKEY, 0, "pairs", ["points", None, None, None], STANDARD_RACKS)
    with pytest.raises(IllegalMove):
        hand_scores(OKEYGG, OKEY, 0, "okey", ["pairs", None, None, None], STANDARD_RACKS)


def test_an_unopened_player_can_finish_only_elden() -> None:
    with pytest.raises(IllegalMove):
        hand_scores(CLASSIC, OKEY, 0, "normal", NOBODY_OPENED, STANDARD_RACKS)


# --- Siler (section 4, okeygg) -----------------------------------------------------------


def test_siler_opening_with_150_points_or_7_pairs_erases_101_okeygg() -> None:
    assert siler_applies(OKEYGG, "points", 150)
    assert siler_applies(OKEYGG, "points", 201)
    assert not siler_applies(OKEYGG, "points", 149)
    assert siler_applies(OKEYGG, "pairs", 7)
    assert not siler_applies(OKEYGG, "pairs", 6)
    assert siler_adjustment(OKEYGG) == -101


@pytest.mark.parametrize("profile", [NORTH_SULTAN, CLASSIC, OKEY_OYNA], ids=lambda p: p.id)
def test_no_siler_outside_okeygg(profile: Profile) -> None:
    assert not siler_applies(profile, "points", 200)
    assert not siler_applies(profile, "pairs", 10)


# --- places and ratings (section 9) ------------------------------------------------------


def test_places_lowest_total_is_first() -> None:
    assert places([300, -101, 50, 1000]) == [3, 1, 2, 4]


def test_places_ties_share_the_place_competition_ranking() -> None:
    assert places([10, 10, 30, 40]) == [1, 1, 3, 4]
    assert places([10, 20, 20, 40]) == [1, 2, 2, 4]
    assert places([10, 20, 40, 40]) == [1, 2, 3, 3]
    assert places([5, 5, 5, 5]) == [1, 1, 1, 1]


def test_rating_1st_plus_11_2nd_plus_5_3rd_minus_5_4th_minus_11_classic() -> None:
    assert CLASSIC.hands_per_match == 11
    assert classic_rating_changes([400, -101, 1200, 50], 11) == [-5, 11, -11, 5]


def test_rating_uses_floor_of_half_n_for_2nd_and_3rd_classic() -> None:
    assert classic_rating_changes([1, 2, 3, 4], 7) == [7, 3, -3, -7]


def test_rating_tied_players_share_the_average_of_their_places_classic() -> None:
    assert classic_rating_changes([10, 10, 30, 40], 11) == [8, 8, -5, -11]
    assert classic_rating_changes([10, 20, 20, 40], 11) == [11, 0, 0, -11]
    assert classic_rating_changes([10, 20, 40, 40], 11) == [11, 5, -8, -8]
    # (11 + 5 - 5) / 3 = 3.67, truncated toward zero; mirrored at the bottom
    assert classic_rating_changes([10, 10, 10, 40], 11) == [3, 3, 3, -11]
    assert classic_rating_changes([10, 40, 40, 40], 11) == [11, -3, -3, -3]
    assert classic_rating_changes([5, 5, 5, 5], 11) == [0, 0, 0, 0]


def test_leaving_a_running_match_costs_2n_whatever_the_totals_classic() -> None:
    assert leaving_change(11) == -22
    left = [True, False, False, False]
    assert classic_rating_changes([-500, 10, 20, 30], 11, left=left) == [-22, 5, -5, -11]


def test_substitute_who_completes_cannot_lose_gets_plus_1_classic() -> None:
    totals = [10, 20, 30, 40]
    for seat in (1, 2, 3):
        substitute = [s == seat for s in range(4)]
        assert classic_rating_changes(totals, 11, substitute=substitute)[seat] == (
            5 if seat == 1 else 1
        )


def test_substitute_who_wins_gains_classic() -> None:
    substitute = [True, False, False, False]
    assert classic_rating_changes([10, 20, 30, 40], 11, substitute=substitute) == [11, 5, -5, -11]


def test_substitute_in_a_middle_tie_still_gets_plus_1_classic() -> None:
    substitute = [False, True, False, False]
    assert classic_rating_changes([10, 20, 20, 40], 11, substitute=substitute) == [11, 1, 0, -11]


def test_one_seat_cannot_both_leave_and_substitute() -> None:
    flags = [True, False, False, False]
    with pytest.raises(MalformedInput):
        classic_rating_changes([1, 2, 3, 4], 11, left=flags, substitute=flags)


def test_team_rating_lower_team_each_plus_n_higher_each_minus_n_classic_partners() -> None:
    assert classic_team_rating_changes([10, 500, 20, 30], 11) == [11, -11, 11, -11]
    assert classic_team_rating_changes([500, 10, 20, 30], 11) == [-11, 11, -11, 11]
    assert classic_team_rating_changes([10, 20, 20, 10], 11) == [0, 0, 0, 0]


def test_team_rating_leaver_and_substitute_classic_partners() -> None:
    changes = classic_team_rating_changes(
        [500, 10, 20, 30], 11, left=[False, True, False, False], substitute=[True] + [False] * 3
    )
    assert changes == [1, -22, -11, 11]


# --- properties --------------------------------------------------------------------------

profiles_st = st.sampled_from(ALL_HOUSES)
opened_st: st.SearchStrategy[Opened] = st.sampled_from(["points", "pairs", None])
rack_st = st.lists(st.integers(0, tiles.FAKE), max_size=21)
racks_st = st.lists(rack_st, min_size=4, max_size=4)
okey_st = st.integers(0, tiles.FAKE - 1)
Hand = tuple[Profile, int, int | None, FinishKind, list[Opened], list[list[int]]]
finishing_kinds = [k for k in FINISH_KINDS if k not in ("deck_exhausted", "void")]


@st.composite
def hands(draw: st.DrawFn) -> Hand:
    profile = draw(profiles_st)
    finish: FinishKind = draw(st.sampled_from([*finishing_kinds, "deck_exhausted"]))
    opened: list[Opened] = draw(st.lists(opened_st, min_size=4, max_size=4))
    finisher = None if finish == "deck_exhausted" else draw(st.integers(0, 3))
    if finisher is not None:
        if finish in ("pairs", "pairs_okey"):
            opened[finisher] = "pairs"
        elif finish in ("normal", "okey"):
            opened[finisher] = "points"
    return profile, draw(okey_st), finisher, finish, opened, draw(racks_st)


@given(hands(), st.booleans())
def test_property_non_finishers_never_score_below_zero_and_finisher_always_below(
    hand: Hand,
    partners: bool,
) -> None:
    profile, okey, finisher, finish, opened, racks = hand
    result = hand_scores(profile, okey, finisher, finish, opened, racks, partners)
    for seat, value in enumerate(result.scores):
        if seat == finisher:
            assert value < 0
        else:
            assert value >= 0
    if finisher is not None and partners:
        assert result.scores[partner_of(finisher)] == 0


@given(hands())
def test_property_doubling_never_exceeds_the_cap(
    hand: Hand,
) -> None:
    profile, okey, finisher, finish, opened, racks = hand
    result = hand_scores(profile, okey, finisher, finish, opened, racks, False)
    if finish == "deck_exhausted" and all(o is None for o in opened) and \
            profile.deck_exhausted_none_opened != "score_racks":
        assert result.scores == (0, 0, 0, 0)  # okeygg: nobody scores; classic: replayed
        return
    for seat, value in enumerate(result.scores):
        if seat != finisher:
            base = rack_score(profile, okey, opened[seat], racks[seat])
            extra = okey_surcharge(profile, okey, opened[seat], racks[seat])
            assert base + extra <= value <= base * profile.multiplier_cap + extra
            if opened[seat] is None:
                assert value <= 808
        else:
            assert profile.finish_score * profile.multiplier_cap <= value


@given(
    profiles_st,
    st.sampled_from(FINISH_KINDS),
    st.integers(1, 8),
    st.integers(1, 8),
    st.integers(1, 8),
)
def test_property_finish_multipliers_respect_any_cap(
    base: Profile, finish: FinishKind, elden_finisher: int, elden_others: int, cap: int
) -> None:
    profile = with_overrides(
        base,
        {
            "elden_finisher_multiplier": elden_finisher,
            "elden_others_multiplier": elden_others,
            "multiplier_cap": cap,
        },
    )
    finisher_mult, others_mult = finish_multipliers(profile, finish)
    assert 1 <= finisher_mult <= cap
    assert 1 <= others_mult <= cap


@given(st.lists(st.integers(-2000, 5000), min_size=1, max_size=8))
def test_property_places_are_a_competition_ranking(totals: list[int]) -> None:
    result = places(totals)
    ordered = sorted(totals)
    for total, place in zip(totals, result, strict=True):
        assert place == ordered.index(total) + 1
    for a, pa in zip(totals, result, strict=True):
        for b, pb in zip(totals, result, strict=True):
            assert (a < b) == (pa < pb)
            assert (a == b) == (pa == pb)


@given(st.lists(st.integers(-2000, 5000), min_size=4, max_size=4), st.integers(1, 21))
def test_property_rating_is_monotone_and_nearly_zero_sum(totals: list[int], n: int) -> None:
    changes = classic_rating_changes(totals, n)
    assert -3 <= sum(changes) <= 3
    if len(set(totals)) == 4:
        assert sum(changes) == 0
    assert all(-n <= c <= n for c in changes)
    for a, ca in zip(totals, changes, strict=True):
        for b, cb in zip(totals, changes, strict=True):
            if a < b:
                assert ca >= cb
    for seat in range(4):
        flags = [s == seat for s in range(4)]
        assert classic_rating_changes(totals, n, substitute=flags)[seat] >= 1
        assert classic_rating_changes(totals, n, left=flags)[seat] == -2 * n


# --- the end-of-hand sheet's breakdown ---------------------------------------------------


def test_a_breakdown_shows_rack_times_multiplier_plus_the_undoubled_okey_okeygg() -> None:
    racks = [EMPTY, rack("R8", "Y6"), rack("R1", "R2"), rack("K3")]
    parts = hand_breakdown(OKEYGG, OKEY, 0, "okey", ["points", "points", "pairs", None], racks)
    assert [(p.rack, p.multiplier, p.okey_surcharge, p.score) for p in parts] == [
        (-101, 2, 0, -202), (8, 2, 101, 117), (6, 2, 0, 12), (202, 2, 0, 404)]


def test_the_finishers_partner_scores_0_and_is_marked_so_okeygg() -> None:
    parts = hand_breakdown(OKEYGG, OKEY, 0, "normal", ["points", "points", "pairs", None],
                           STANDARD_RACKS, partners=True)
    assert [p.partner_of_finisher for p in parts] == [False, False, True, False]
    assert parts[2].score == 0 and parts[2].rack == 68


def test_a_hand_nobody_scores_breaks_down_to_nothing_okeygg() -> None:
    parts = hand_breakdown(OKEYGG, OKEY, None, "deck_exhausted", NOBODY_OPENED,
                           [EMPTY] * 4)
    assert {(p.rack, p.multiplier, p.score) for p in parts} == {(0, 1, 0)}


@given(house_index=st.sampled_from(range(len(ALL_HOUSES) + 1)),
       finish=st.sampled_from(sorted(FINISH_KINDS)), finisher=st.integers(0, 3),
       opened=st.lists(st.sampled_from([None, "points", "pairs"]), min_size=4, max_size=4),
       racks=st.lists(st.lists(st.integers(0, tiles.FAKE), max_size=6), min_size=4,
                      max_size=4),
       partners=st.booleans())
def test_every_breakdown_adds_up_to_hand_scores(
        house_index: int, finish: FinishKind, finisher: int, opened: list[Opened],
        racks: list[list[int]], partners: bool) -> None:
    profile = [*ALL_HOUSES, OKEY_OYNA_DUZ][house_index]
    seat: int | None = None if finish in ("deck_exhausted", "void") else finisher
    try:
        scores = hand_scores(profile, OKEY, seat, finish, opened, racks, partners).scores
    except (IllegalMove, MalformedInput):
        return
    parts = hand_breakdown(profile, OKEY, seat, finish, opened, racks, partners)
    assert tuple(p.score for p in parts) == scores
    for p in parts:
        assert p.score == (0 if p.partner_of_finisher else p.rack * p.multiplier
                           + p.okey_surcharge)
