"""Rule profiles: every option of RULES.md sections 2-12 as a named, typed field.

A house is a value of `Profile`; a table's profile is a named house plus overrides
(`resolve`). New houses are configuration, not code.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from okey101.errors import MalformedInput
from okey101.terms import Game, MeldCount

HouseId = Literal["north-sultan", "okeygg", "classic", "okey-oyna"]
TakeOkeyFromGroups = Literal["four_only", "complete_all_colours"]
DeckExhaustedNoneOpened = Literal["score_racks", "nobody_scores", "replay"]
Rating = Literal["none", "classic", "sp_league_xp"]


class Profile(msgspec.Struct, frozen=True, kw_only=True):
    """Every rule option of one house. Field comments cite RULES.md sections.

    Unknown fields are ignored when a profile is decoded, so that old event logs whose
    `table_created` carries a retired option still replay; a table's options are checked
    by name (`with_overrides`), so a client can never send an unknown one."""

    id: str
    # §12 the game: 101 Okey, or classic (düz) Okey played by the same engine
    game: Game = "101"  # chosen by the house: never an override
    starter_tiles: int = 22  # §2 the deal (düz: 15); a property of the game, never overridden
    other_tiles: int = 21  # düz: 14
    # §2 seats, deal, turn
    turn_seconds: int | None = 45
    untimed_when_only_bots: bool = False
    put_back_allowed: bool = False  # UI houses let a taken discard go back while nothing is laid
    opened_take_must_use: bool = False  # okey-oyna: a discard taken after opening is laid that turn
    discarded_okey_takeable: bool = True
    # §3 melds
    run_wraps_13_to_1: bool = False  # 12-13-1 (that 1 counts 1 point); 13-1-2 is never valid
    # §4 opening
    meld_value: MeldCount = "face"  # §12 "third": the "34" count, floor(sum / 3) per meld
    opening_points: int = 101  # in the house's count; follows meld_value (34) unless set
    opening_pairs: int = 5
    escalating_openings: bool = False  # katlamalı: each opening beats the highest of its kind
    opening_counts_own_extensions: bool = False  # okeygg: 4-5-6 + 7, 8 in one turn counts 30
    lay_off_in_opening_turn: bool = True  # counted only where opening_counts_own_extensions
    lay_off_wait_rounds: int = 0  # classic: wait one full round after opening before laying off
    pairs_opener_lay_off_limit: int | None = None  # north-sultan: 2 tiles per turn
    pairs_need_declaration: bool = False  # classic: "çifte gidiyorum" before opening pairs
    indicator_pair: bool = False  # okeygg: the indicator's twin works as an okey in pairs only
    siler: bool = False  # okeygg: opening with 150+ points or 7+ pairs erases 101 at once
    siler_points: int = 150  # in the house's count; follows meld_value (50) unless set
    siler_pairs: int = 7
    siler_reward: int = 101
    invalid_opening_penalty: int = 0  # classic/okeygg: a retracted invalid opening costs 101
    # §5 laying off and taking the okey
    run_end_lay_off_limit: int | None = None  # okeygg: at most 2 tiles at each end per turn
    take_okey_from_groups: TakeOkeyFromGroups = "four_only"
    okey_taken_penalty: int = 0  # okeygg: the player whose okey is taken pays 101
    # §6 penalties
    penalties: bool = True  # okeygg "cezalı" switch; off removes every in-game penalty
    playable_discard_penalty: int = 101
    okey_discard_penalty: int = 101
    opened_with_discard_multiplier: int = 0  # okeygg: 10 (or 20) x the discard's value
    # §7 end of the hand
    elden_only_while_nobody_opened: bool = True
    elden_lay_off_allowed: bool = False  # north-sultan: no lay-off or okey-taking in that turn
    deck_exhausted_none_opened: DeckExhaustedNoneOpened = "score_racks"
    void_when_all_open_pairs: bool = False
    # §8 scoring
    finish_score: int = -101
    finisher_doubled_for_pairs: bool = True
    elden_finisher_multiplier: int = 2
    elden_others_multiplier: int = 2
    multiplier_cap: int = 4
    unopened_score: int = 202
    okey_in_rack_value: int = 101
    # an okey left in an opened rack counts inside the rack sum, multiplied with it
    # (north-sultan, classic); False: added after every multiplier, never doubled
    # (okey-oyna, okeygg: "101 cezaları katlanmaz")
    okey_in_rack_multiplied: bool = True
    pairs_rack_multiplier: int = 2
    # §9 the match
    hands_per_match: int = 11
    hands_range: tuple[int, int] = (1, 99)
    turn_seconds_range: tuple[int, int] = (5, 600)
    rating: Rating = "none"  # how match results move standings (classic: in the engine)
    rating_start: int = 1500  # standings data: every player's classic rating before a match
    # a disconnected player has this long to come back (classic: 7 minutes); then the seat
    # is left (-2N where rated) and a substitute or a bot may take it. None: no window
    reconnect_seconds: int | None = None
    # §12 düz scoring: points lost, each seat counting down (the seed gives no numbers but
    # the starting counts; see DUZ below for this project's definitions)
    countdown_from: int | None = None  # düz: 20 (or 30, 40, 50); a seat at 0 ends the match
    countdown_finish_cost: int = 2  # düz: a finish costs every other seat this (x2 okey, x2 pairs)
    indicator_show_cost: int = 0  # düz: showing the indicator's twin costs every other seat 1
    # §10 partners
    partners_allowed: bool = False
    partners: bool = False
    team_escalation: bool = False
    partner_of_finisher_scores_zero: bool = True
    # §11 bots
    bots_allowed: bool = True
    bots_labelled: bool = True  # north-sultan: nothing public tells a bot seat from a person's
    private_room_bots_on_request: bool = False  # north-sultan: only if the room's owner asks
    # players contribute entropy (proto/DEAL.md, deal version 2): before each hand the
    # seated people may commit to a client seed, then reveal it; each window lasts at most
    # this long. None: the server's seed alone (version 1). A table of bots never waits
    seeding_seconds: int | None = None


NORTH_SULTAN = Profile(
    id="north-sultan",
    turn_seconds=45,
    discarded_okey_takeable=True,
    run_wraps_13_to_1=True,
    lay_off_in_opening_turn=True,
    pairs_opener_lay_off_limit=2,
    take_okey_from_groups="four_only",
    elden_only_while_nobody_opened=False,
    elden_lay_off_allowed=False,
    deck_exhausted_none_opened="score_racks",
    void_when_all_open_pairs=True,
    finisher_doubled_for_pairs=True,
    elden_finisher_multiplier=2,
    rating="sp_league_xp",
    bots_allowed=True,
    bots_labelled=False,
    private_room_bots_on_request=True,
)

OKEYGG = Profile(
    id="okeygg",
    okey_in_rack_multiplied=False,
    turn_seconds=45,
    untimed_when_only_bots=True,
    turn_seconds_range=(15, 120),
    put_back_allowed=True,
    discarded_okey_takeable=False,
    escalating_openings=True,
    opening_counts_own_extensions=True,
    indicator_pair=True,
    siler=True,
    invalid_opening_penalty=101,
    run_end_lay_off_limit=2,
    take_okey_from_groups="complete_all_colours",
    okey_taken_penalty=101,
    opened_with_discard_multiplier=10,
    deck_exhausted_none_opened="nobody_scores",
    hands_range=(7, 21),
    partners_allowed=True,
    team_escalation=True,
    bots_allowed=True,
)

CLASSIC = Profile(
    id="classic",
    put_back_allowed=True,
    lay_off_in_opening_turn=False,
    lay_off_wait_rounds=1,
    pairs_need_declaration=True,
    invalid_opening_penalty=101,
    deck_exhausted_none_opened="replay",
    void_when_all_open_pairs=True,
    finisher_doubled_for_pairs=False,
    elden_finisher_multiplier=1,
    rating="classic",
    reconnect_seconds=420,
    partners_allowed=True,
    bots_allowed=False,
)

OKEY_OYNA = Profile(
    id="okey-oyna",
    okey_in_rack_multiplied=False,
    opened_take_must_use=True,
    take_okey_from_groups="complete_all_colours",
    bots_allowed=True,
)

OKEY_OYNA_DUZ = Profile(
    id="okey-oyna-duz",
    game="duz",
    starter_tiles=15,
    other_tiles=14,
    run_wraps_13_to_1=True,
    penalties=False,
    countdown_from=20,
    countdown_finish_cost=2,
    indicator_show_cost=1,
    hands_per_match=99,
    partners_allowed=True,
    bots_allowed=True,
)
"""Classic (düz) Okey as okey-oyna plays it (seeds/004, RULES.md §12), a game of the same
engine. What the seed says: 14 tiles (the starter 15), no opening; a player finishes when,
after discarding the last tile, all 14 form runs and groups (12-13-1 valid here) or seven
pairs (an okey is a joker in either); scores count down from 20 (or 30, 40, 50:
`countdown_from`); a taken discard need not be used; a partners (eşli) form exists.

What the seed leaves open, defined here as house data (the usual table rules):
- A finish costs every other seat `countdown_finish_cost` (2); discarding an okey to
  finish, or showing seven pairs, doubles it (4); both, x4 (8) (`finish_multipliers`,
  capped at `multiplier_cap`). The finisher loses nothing; with partners, neither does the
  finisher's partner.
- The indicator (gösterge): a seat holding the indicator's twin may show it before its
  first draw (the starter: before its first discard); every other seat loses
  `indicator_show_cost` (1) at once.
- The deck runs out (the seat to draw finds it empty): the hand ends with no finisher and
  nobody loses anything; the next hand is dealt (the starter moves on).
- The match ends after the hand in which a seat's count reaches 0 (it has lost
  `countdown_from` points); the most points left wins (lowest points lost). Partners are
  counted seat by seat, with team totals beside. `hands_per_match` (99) is only a guard.
- No in-game penalties: nothing is laid on the table before the finish.
"""

HOUSES: dict[str, Profile] = {
    p.id: p for p in (NORTH_SULTAN, OKEYGG, CLASSIC, OKEY_OYNA, OKEY_OYNA_DUZ)}

_LOCKED = frozenset({"id", "hands_range", "turn_seconds_range", "game", "starter_tiles",
                     "other_tiles"})
# fields in the house's count that follow `meld_value` when it changes and they are not set
COUNT_DEFAULTS: dict[str, dict[str, int]] = {
    "face": {"opening_points": 101, "siler_points": 150},
    "third": {"opening_points": 34, "siler_points": 50},
}
COUNTDOWNS = (20, 30, 40, 50)
SEEDING_SECONDS_MAX = 120  # each seeding window: the table waits at most twice this per hand


def house(name: str) -> Profile:
    try:
        return HOUSES[name]
    except KeyError:
        known = ", ".join(sorted(HOUSES))
        raise MalformedInput(f"unknown profile {name!r}: known houses are {known}") from None


def resolve(spec: str | dict[str, Any]) -> Profile:
    """A table's profile from ``"okeygg"`` or ``{"base": "okeygg", "options": {...}}``."""
    if isinstance(spec, str):
        return house(spec)
    if not isinstance(spec, dict) or not isinstance(spec.get("base"), str):
        raise MalformedInput('profile must be a house name or {"base": NAME, "options": {...}}')
    options = spec.get("options") or {}
    if not isinstance(options, dict):
        raise MalformedInput("profile options must be an object")
    return with_overrides(house(spec["base"]), options)


class OptionRefused(MalformedInput):
    """A table option refused; `code` says how (okey101.codes), the message names the key."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


MAX_OPTIONS = 64  # a profile has fewer fields: more is not a table's options
OPTION_INT_RANGE = (-1_000_000, 1_000_000)  # any integer option, before its own checks
_OPTION_TYPES: dict[str, Any] = {
    f.name: f.type for f in msgspec.structs.fields(Profile)}


def with_overrides(base: Profile, options: dict[str, Any]) -> Profile:
    """`base` with `options` applied, type-checked and range-checked; each refusal names
    the option and carries its code (unknown_option, option_locked, option_type,
    option_range, too_many_options)."""
    if len(options) > MAX_OPTIONS:
        raise OptionRefused(f"{len(options)} profile options: at most {MAX_OPTIONS}",
                            code="too_many_options")
    for key, value in options.items():
        if key not in Profile.__struct_fields__:
            shown = key if len(key) <= 64 else key[:61] + "..."
            raise OptionRefused(f"unknown profile option {shown!r}", code="unknown_option")
        if key in _LOCKED:
            raise OptionRefused(f"profile option {key!r} cannot be overridden",
                                code="option_locked")
        try:
            msgspec.convert(value, _OPTION_TYPES[key])
        except msgspec.ValidationError as exc:
            raise OptionRefused(f"profile option {key!r}: {exc}", code="option_type") from None
        lo, hi = OPTION_INT_RANGE
        if isinstance(value, int) and not isinstance(value, bool) and not lo <= value <= hi:
            raise OptionRefused(f"profile option {key!r}={value} is outside {lo}-{hi}",
                                code="option_range")
    merged = msgspec.to_builtins(base) | options
    count = options.get("meld_value")
    if count != base.meld_value and isinstance(count, str) and count in COUNT_DEFAULTS:
        merged |= {k: v for k, v in COUNT_DEFAULTS[count].items() if k not in options}
    try:
        profile = msgspec.convert(merged, Profile)
    except msgspec.ValidationError as exc:
        raise OptionRefused(f"profile option: {exc}", code="option_type") from None
    try:
        validate(profile)
    except MalformedInput as exc:  # every message names the option
        raise OptionRefused(str(exc), code="option_range") from None
    return profile


def validate(p: Profile) -> None:
    lo, hi = p.hands_range
    if not lo <= p.hands_per_match <= hi:
        raise MalformedInput(
            f"hands_per_match={p.hands_per_match} is outside {lo}-{hi} for {p.id}"
        )
    if p.turn_seconds is not None:
        lo, hi = p.turn_seconds_range
        if not lo <= p.turn_seconds <= hi:
            raise MalformedInput(
                f"turn_seconds={p.turn_seconds} is outside {lo}-{hi} s (or none) for {p.id}"
            )
    if p.partners and not p.partners_allowed:
        raise MalformedInput(f"{p.id} has no partners (eşli) mode")
    if p.opened_with_discard_multiplier not in (0, 10, 20):
        raise MalformedInput("opened_with_discard_multiplier must be 0, 10 or 20")
    for field in ("opening_points", "opening_pairs", "multiplier_cap"):
        if getattr(p, field) < 1:
            raise MalformedInput(f"{field} must be at least 1")
    if p.lay_off_wait_rounds < 0:
        raise MalformedInput("lay_off_wait_rounds must not be negative")
    if p.reconnect_seconds is not None and p.reconnect_seconds < 1:
        raise MalformedInput("reconnect_seconds must be at least 1 (or none)")
    if p.seeding_seconds is not None and not 1 <= p.seeding_seconds <= SEEDING_SECONDS_MAX:
        raise MalformedInput(f"seeding_seconds={p.seeding_seconds} is outside "
                             f"1-{SEEDING_SECONDS_MAX} s (or none)")
    _validate_game(p)


def _validate_game(p: Profile) -> None:
    if p.game == "duz":
        if p.countdown_from not in COUNTDOWNS:
            raise MalformedInput(f"countdown_from={p.countdown_from}: düz counts down from "
                                 f"{', '.join(map(str, COUNTDOWNS))}")
        if p.meld_value != "face":
            raise MalformedInput("meld_value: düz has no opening to count")
        if p.countdown_finish_cost < 1 or p.indicator_show_cost < 0:
            raise MalformedInput("countdown_finish_cost must be at least 1 and "
                                 "indicator_show_cost not negative")
    elif p.countdown_from is not None:
        raise MalformedInput("countdown_from: only düz counts down")
