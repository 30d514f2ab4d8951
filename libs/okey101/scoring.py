"""End-of-hand scoring, match places and ratings (RULES.md sections 7-10, 4 Siler).

Pure functions: no I/O, no clock, no randomness. Scores are penalty points, lower is
better. Every house difference comes from a `Profile` field, never from the house id:

- ``finish_score`` (-101), ``finisher_doubled_for_pairs`` (classic: False),
  ``elden_finisher_multiplier`` (classic: 1, others 2), ``elden_others_multiplier`` (2),
  ``multiplier_cap`` (4), ``unopened_score`` (202), ``okey_in_rack_value`` (101),
  ``pairs_rack_multiplier`` (2), ``deck_exhausted_none_opened``,
  ``void_when_all_open_pairs``, ``partners``, ``partner_of_finisher_scores_zero``,
  ``siler``/``siler_points``/``siler_pairs``/``siler_reward``.

In-game penalties (section 6) and Siler are NOT part of `hand_scores`: they are added to
a player's score as they happen and are never multiplied by finish doubling.

Seats are 0..3; partners face each other (seat and seat + 2).

Düz (classic) Okey (``game`` "duz", RULES.md §12) counts down: a hand's scores are the
points each seat loses (`countdown_scores`), still lower-is-better, so totals and places
work alike; ``countdown_from`` less a seat's total is what it has left, and the match
ends after the hand in which a seat reaches 0 (`is_countdown_over`).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from okey101 import tiles
from okey101.errors import IllegalMove, MalformedInput
from okey101.profiles import Profile
from okey101.terms import FINISH_KINDS, SEATS, FinishKind, Opened, OpeningKind

_NO_FINISHER: frozenset[FinishKind] = frozenset({"deck_exhausted", "void"})
_OKEY_FINISHES: frozenset[FinishKind] = frozenset({"okey", "pairs_okey", "elden_okey"})
_PAIRS_FINISHES: frozenset[FinishKind] = frozenset({"pairs", "pairs_okey"})
_ELDEN_FINISHES: frozenset[FinishKind] = frozenset({"elden", "elden_okey"})


class HandResult(msgspec.Struct, frozen=True, kw_only=True):
    """The scores of one hand, per seat, and whether the hand is dealt again.

    `replay` is True for a void hand and for classic's deck exhaustion with nobody
    opened; the scores are then all 0 and the hand does not count toward the match.
    """

    scores: tuple[int, int, int, int]
    replay: bool = False


# --- rack values ---------------------------------------------------------------------


def rack_sum(rack: Sequence[int], okey: int, okey_value: int = 101) -> int:
    """The sum of the tiles left in a rack (section 8).

    Each tile counts its face value; a fake okey (F) counts as the okey's number; each
    real okey (the okey kind itself, a joker) counts `okey_value` instead of its face.
    Worked examples: 8+5+10+11 -> 34; 4+5+8+8+3+3 plus an okey -> 31 + 101 = 132.
    """
    total = 0
    for tile in rack:
        if not 0 <= tile <= tiles.FAKE:
            raise MalformedInput(f"no tile has kind {tile}")
        total += okey_value if tile == okey else tiles.face_value(tile, okey)
    return total


def rack_score(profile: Profile, okey: int, opened: Opened, rack: Sequence[int]) -> int:
    """What a non-finisher's rack is worth before finish doubling.

    Never opened: `unopened_score` (202) whatever the rack holds. Opened with points:
    the rack sum. Opened with pairs: `pairs_rack_multiplier` (2) x the rack sum. An okey
    counts `okey_in_rack_value` (101) inside the sum where `okey_in_rack_multiplied`
    (north-sultan, classic); elsewhere it counts nothing here and `okey_surcharge` adds
    it after every multiplier.
    """
    if opened is None:
        return profile.unopened_score
    inside = profile.okey_in_rack_value if profile.okey_in_rack_multiplied else 0
    value = rack_sum(rack, okey, inside)
    return value * profile.pairs_rack_multiplier if opened == "pairs" else value


def okey_surcharge(profile: Profile, okey: int, opened: Opened, rack: Sequence[int]) -> int:
    """RULES.md 8 (okey-oyna, okeygg): +101 per okey left in an opened rack, added after
    every multiplier (a pairs-opener's, a finish's): "101 cezaları katlanmaz"."""
    if opened is None or profile.okey_in_rack_multiplied:
        return 0
    return profile.okey_in_rack_value * sum(1 for t in rack if t == okey)


# --- multipliers -----------------------------------------------------------------------


def finish_multipliers(profile: Profile, finish: FinishKind) -> tuple[int, int]:
    """(finisher's multiplier of `finish_score`, every other player's multiplier).

    Okey finish: x2 each. Pairs finish: others x2, the finisher x2 only where
    `finisher_doubled_for_pairs` (not classic). Pairs and okey: x4 others. Elden: the
    finisher x `elden_finisher_multiplier`, others x `elden_others_multiplier` on top of
    the okey doubling. Both are capped at `multiplier_cap` (4), so an unopened player
    never pays more than 4 x 202 = 808. No finish (deck exhausted, void): (1, 1).

    Decision: the cap is applied to the finisher's multiplier as well as the others'.
    For the four houses it never binds (the largest products are exactly 4); it only
    matters for tables that override a multiplier or the cap.
    """
    if finish in _NO_FINISHER:
        return 1, 1
    finisher = others = 1
    if finish in _OKEY_FINISHES:
        finisher *= 2
        others *= 2
    if finish in _PAIRS_FINISHES:
        others *= 2
        if profile.finisher_doubled_for_pairs:
            finisher *= 2
    if finish in _ELDEN_FINISHES:
        finisher *= profile.elden_finisher_multiplier
        others *= profile.elden_others_multiplier
    cap = profile.multiplier_cap
    return min(finisher, cap), min(others, cap)


# --- one hand --------------------------------------------------------------------------


def partner_of(seat: int) -> int:
    """The seat facing `seat`: its partner in partners (eşli) play."""
    return (seat + 2) % SEATS


def hand_scores(
    profile: Profile,
    okey: int,
    finisher: int | None,
    finish: FinishKind,
    opened: Sequence[Opened],
    racks: Sequence[Sequence[int]],
    partners: bool | None = None,
) -> HandResult:
    """Score one hand (RULES.md sections 7, 8, 10), without penalties or Siler.

    - `okey`: the okey tile kind of the hand (indicator + 1).
    - `finisher`: the seat that finished, or None for "deck_exhausted" and "void".
    - `opened[seat]`: how that seat opened ("points", "pairs") or None. An elden
      finisher's own entry is not looked at.
    - `racks[seat]`: the tiles left in that seat's rack; the finisher's is ignored.
    - `partners`: partners (eşli) play; None means `profile.partners`. With partners
      and `partner_of_finisher_scores_zero`, the finisher's partner scores 0.

    The finisher scores `finish_score` x the finisher multiplier; each other player
    scores `rack_score` x the others' multiplier (see `finish_multipliers`).

    Deck exhausted (no finisher): racks are scored undoubled; when nobody opened the
    house decides by `deck_exhausted_none_opened`: "score_racks" (everyone unopened
    pays 202), "nobody_scores" (all 0), "replay" (all 0 and `replay=True`).
    Void (all four opened with pairs, houses with `void_when_all_open_pairs`): all 0
    and `replay=True`.

    Raises `MalformedInput` for a wrong shape (not 4 seats, a finisher where there is
    none or none where there must be one) and `IllegalMove` for a finish that
    contradicts the openings or the house (a pairs finish by a points-opener, a
    void hand in a house without void hands).
    """
    _check_shape(finisher, finish, opened, racks)
    if profile.game == "duz":
        return countdown_scores(profile, finisher, finish, partners)
    if finish == "void":
        if not profile.void_when_all_open_pairs:
            raise IllegalMove(f"{profile.id} has no void hands", code="no_void_hand")
        if any(o != "pairs" for o in opened):
            raise IllegalMove("a hand is void only when all four opened with pairs", "not_void")
        return HandResult(scores=(0, 0, 0, 0), replay=True)
    if finish == "deck_exhausted" and all(o is None for o in opened):
        rule = profile.deck_exhausted_none_opened
        if rule == "replay":
            return HandResult(scores=(0, 0, 0, 0), replay=True)
        if rule == "nobody_scores":
            return HandResult(scores=(0, 0, 0, 0))
    if finisher is not None and finish not in _ELDEN_FINISHES:
        opened_as = opened[finisher]
        if opened_as is None:
            raise IllegalMove(f"seat {finisher} cannot finish without having opened")
        if (opened_as == "pairs") != (finish in _PAIRS_FINISHES):
            raise IllegalMove(
                f"seat {finisher} opened with {opened_as}: a {finish!r} finish is impossible"
            )

    parts = _seat_parts(profile, okey, finisher, finish, opened, racks, partners)
    return HandResult(scores=(parts[0].score, parts[1].score, parts[2].score, parts[3].score))


class SeatScore(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's hand score broken down as the end-of-hand sheet shows it:
    `score` = `rack` x `multiplier` + `okey_surcharge`, except for the finisher's partner
    where the house scores it 0 (`partner_of_finisher`) and a hand nobody scores (all 0)."""

    rack: int  # the finisher's `finish_score`; another seat's `rack_score` (düz: the cost)
    multiplier: int  # the finish's multiplier of `rack` (`finish_multipliers`)
    okey_surcharge: int  # okeys left in an opened rack, added after every multiplier
    score: int  # what `hand_scores` gives the seat
    partner_of_finisher: bool = False


def hand_breakdown(
    profile: Profile,
    okey: int,
    finisher: int | None,
    finish: FinishKind,
    opened: Sequence[Opened],
    racks: Sequence[Sequence[int]],
    partners: bool | None = None,
) -> tuple[SeatScore, ...]:
    """`hand_scores` seat by seat: its rack, multiplier and okey surcharge (the same
    arguments, the same refusals). The scores are `hand_scores`' own."""
    result = hand_scores(profile, okey, finisher, finish, opened, racks, partners)
    with_partners = profile.partners if partners is None else partners
    zeroed = finisher is not None and with_partners and profile.partner_of_finisher_scores_zero
    if profile.game == "duz":
        _, others = finish_multipliers(profile, finish)
        return tuple(SeatScore(
            rack=0 if finisher in (None, seat) else profile.countdown_finish_cost,
            multiplier=others if finisher is not None else 1, okey_surcharge=0,
            score=result.scores[seat],
            partner_of_finisher=zeroed and seat == partner_of(finisher or 0))
            for seat in range(SEATS))
    if not any(result.scores):  # a void hand, replayed or nobody scoring: nothing counts
        return tuple(SeatScore(rack=0, multiplier=1, okey_surcharge=0, score=0)
                     for _ in range(SEATS))
    return _seat_parts(profile, okey, finisher, finish, opened, racks, partners)


def _seat_parts(profile: Profile, okey: int, finisher: int | None, finish: FinishKind,
                opened: Sequence[Opened], racks: Sequence[Sequence[int]],
                partners: bool | None) -> tuple[SeatScore, ...]:
    finisher_mult, others_mult = finish_multipliers(profile, finish)
    with_partners = profile.partners if partners is None else partners
    zeroed = None
    if finisher is not None and with_partners and profile.partner_of_finisher_scores_zero:
        zeroed = partner_of(finisher)
    parts = []
    for seat in range(SEATS):
        if seat == finisher:
            rack, mult, extra = profile.finish_score, finisher_mult, 0
        else:
            rack = rack_score(profile, okey, opened[seat], racks[seat])
            mult = others_mult
            extra = okey_surcharge(profile, okey, opened[seat], racks[seat])
        parts.append(SeatScore(rack=rack, multiplier=mult, okey_surcharge=extra,
                               score=0 if seat == zeroed else rack * mult + extra,
                               partner_of_finisher=seat == zeroed))
    return tuple(parts)


def countdown_scores(profile: Profile, finisher: int | None, finish: FinishKind,
                     partners: bool | None = None) -> HandResult:
    """Düz (RULES.md §12): the points each seat loses this hand.

    The finisher loses nothing; every other seat loses `countdown_finish_cost` (2) times
    the others' multiplier of `finish_multipliers`: an okey discarded last x2 (4), seven
    pairs x2 (4), both x4 (8). With partners the finisher's partner loses nothing. The
    deck ran out (no finisher): nobody loses anything, and the hand is not dealt again.
    There is no elden and no void hand in düz.
    """
    if finish in _ELDEN_FINISHES or finish == "void":
        raise IllegalMove(f"düz has no {finish!r} hand", "not_in_duz")
    if finisher is None:
        return HandResult(scores=(0, 0, 0, 0))
    _, others = finish_multipliers(profile, finish)
    lost = [0 if seat == finisher else profile.countdown_finish_cost * others
            for seat in range(SEATS)]
    with_partners = profile.partners if partners is None else partners
    if with_partners and profile.partner_of_finisher_scores_zero:
        lost[partner_of(finisher)] = 0
    return HandResult(scores=(lost[0], lost[1], lost[2], lost[3]))


def remaining(profile: Profile, totals: Sequence[int]) -> list[int] | None:
    """Düz: what each seat has left of its count (`countdown_from` less the points it
    lost); None where the house does not count down."""
    if profile.countdown_from is None:
        return None
    return [profile.countdown_from - t for t in totals]


def is_countdown_over(profile: Profile, totals: Sequence[int]) -> bool:
    """Düz: has a seat lost its whole count (reached 0)? The match then ends."""
    start = profile.countdown_from
    return start is not None and any(t >= start for t in totals)


def _check_shape(
    finisher: int | None,
    finish: FinishKind,
    opened: Sequence[Opened],
    racks: Sequence[Sequence[int]],
) -> None:
    if finish not in FINISH_KINDS:
        raise MalformedInput(f"unknown finish kind {finish!r}")
    if len(opened) != SEATS or len(racks) != SEATS:
        raise MalformedInput(f"scoring needs {SEATS} seats of openings and racks")
    if any(o not in ("points", "pairs", None) for o in opened):
        raise MalformedInput(f"opened must be 'points', 'pairs' or None, not {list(opened)}")
    if finish in _NO_FINISHER:
        if finisher is not None:
            raise MalformedInput(f"a {finish!r} hand has no finisher")
    elif finisher is None or not 0 <= finisher < SEATS:
        raise MalformedInput(f"a {finish!r} finish needs a finisher seat 0-3, not {finisher}")


# --- Siler (okeygg) --------------------------------------------------------------------


def siler_applies(profile: Profile, kind: OpeningKind, value: int) -> bool:
    """Whether an opening erases `profile.siler_reward` (101) at once (okeygg "Siler").

    `value` is the opening's points total or its number of pairs: 150+ points or 7+
    pairs in okeygg (`siler_points`, `siler_pairs`); never where `profile.siler` is off.
    """
    if not profile.siler:
        return False
    if kind == "points":
        return value >= profile.siler_points
    return value >= profile.siler_pairs


def siler_adjustment(profile: Profile) -> int:
    """The score adjustment of a Siler opening: minus `siler_reward` (-101)."""
    return -profile.siler_reward


# --- the match -------------------------------------------------------------------------


def team_totals(scores: Sequence[int]) -> tuple[int, int]:
    """Partners' totals: (seats 0 + 2, seats 1 + 3)."""
    if len(scores) != SEATS:
        raise MalformedInput(f"team totals need {SEATS} seats")
    return scores[0] + scores[2], scores[1] + scores[3]


def places(totals: Sequence[int]) -> list[int]:
    """The place of each entry, 1 = lowest total; ties share the place (1, 1, 3, 4)."""
    return [1 + sum(1 for other in totals if other < mine) for mine in totals]


def leaving_change(hands: int) -> int:
    """Classic: a player who leaves a running match of `hands` hands loses 2N."""
    return -2 * hands


def classic_rating_changes(
    totals: Sequence[int],
    hands: int,
    left: Sequence[bool] = (False, False, False, False),
    substitute: Sequence[bool] = (False, False, False, False),
) -> list[int]:
    """Classic rating changes per seat after an N-hand match (section 9).

    1st +N, 2nd +floor(N/2), 3rd -floor(N/2), 4th -N (N = `hands`).
    - `left[seat]`: that seat's player left the running match: -2N whatever the totals.
    - `substitute[seat]`: that seat's player sat in for a leaver and completed the
      match: they cannot lose, so they get their change if it is positive, else +1.
    A seat whose player left and was replaced has two people: rate the substitute here
    and the leaver with `leaving_change(hands)`.

    Ties share the place (section 9); the tied players split the changes of the
    positions they occupy: the average, truncated toward zero (N=11: a tie for 1st
    gives +8 each, a tie for 2nd gives 0 each). Decision: giving each the better
    place's change would let a four-way tie mint +4N rating from nothing; averaging
    keeps the match zero-sum (up to the truncation) and treats a tie at the top and at
    the bottom symmetrically.
    """
    if len(totals) != SEATS or len(left) != SEATS or len(substitute) != SEATS:
        raise MalformedInput(f"rating changes need {SEATS} seats")
    if hands < 1:
        raise MalformedInput("a match has at least one hand")
    by_position = [hands, hands // 2, -(hands // 2), -hands]
    changes = shared_by_position(places(totals), by_position)
    return _apply_leavers(changes, hands, left, substitute)


def classic_team_rating_changes(
    totals: Sequence[int],
    hands: int,
    left: Sequence[bool] = (False, False, False, False),
    substitute: Sequence[bool] = (False, False, False, False),
) -> list[int]:
    """Classic partners rating changes per seat (seeds/003 "Eşli Oyunlarda Puanlama").

    Partners' totals are added; each player of the lower team gains N, each of the
    higher team loses N; equal team totals: 0 for everyone. `left` and `substitute`
    as in `classic_rating_changes`. (Not in RULES.md; taken from seeds/003, whose
    "110" is read as 11 like the solo table.)
    """
    if len(totals) != SEATS or len(left) != SEATS or len(substitute) != SEATS:
        raise MalformedInput(f"rating changes need {SEATS} seats")
    if hands < 1:
        raise MalformedInput("a match has at least one hand")
    team_a, team_b = team_totals(totals)
    sign_a = (team_a < team_b) - (team_a > team_b)
    changes = [sign_a * hands if seat % 2 == 0 else -sign_a * hands for seat in range(SEATS)]
    return _apply_leavers(changes, hands, left, substitute)


def shared_by_position(seat_places: Sequence[int], by_position: Sequence[int]) -> list[int]:
    """Each seat's award when position k (1-4) is worth `by_position[k - 1]`: the average of
    the positions its tie group occupies, truncated toward zero (the classic rating's tie
    rule, reused by the standings for SP, league points and XP)."""
    changes = []
    for place in seat_places:
        tied = sum(1 for p in seat_places if p == place)
        total = sum(by_position[place - 1 : place - 1 + tied])
        magnitude = abs(total) // tied
        changes.append(magnitude if total >= 0 else -magnitude)
    return changes


def _apply_leavers(
    changes: list[int], hands: int, left: Sequence[bool], substitute: Sequence[bool]
) -> list[int]:
    result = []
    for seat, change in enumerate(changes):
        if left[seat] and substitute[seat]:
            raise MalformedInput(
                f"seat {seat}: one player cannot both leave and complete as a substitute"
            )
        if left[seat]:
            result.append(leaving_change(hands))
        elif substitute[seat]:
            result.append(change if change > 0 else 1)
        else:
            result.append(change)
    return result
