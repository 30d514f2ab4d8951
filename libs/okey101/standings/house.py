"""The house data of standing: what a finished match gives, by house (RULES.md §9, §11).

The seeds give the classic rating's arithmetic (seeds/002, 003) and name North Sultan's SP,
weekly league points, XP levels and rooms (seeds/000) without numbers; the numbers here are
this project's, as data. proto/standings-houses.json is generated from `HOUSE_RULES`.

Every house:
- bots (`player_sat.is_bot`, `seat_handed_to_bot` in the server record) never get rating, SP,
  league points or XP; `bots_on_board` says whether the house lists them at all (flagged).
- `bot_tables`: what a human's result at a table with a bot counts for: "count" (as against
  anyone) or "unrated" (played and won are counted, nothing else moves).
- the repeated-pair rule (`repeat_limit`, `repeat_window_ms`): a match in which two human
  accounts meet for the (limit + 1)-th time within the window (their earlier matches in the
  canonical order, ended less than the window before) gives neither of them SP or league
  points; XP and the counts still move. `repeat_limit = None`: no such rule.
- ranked tables (RULES.md §9, `unranked_reason`): a match moves standings only when it was
  played at a public table under the house's own options, with at least `ranked_hands`
  hands; the options a player may still choose at a ranked table are `ranked_choices`
  (partners where the house has them, the seeding window, düz's starting count). Any other
  option changed, fewer hands, or a private room: unranked, and the table's view says so.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from okey101.profiles import HOUSES, Profile

Points = Literal["rating", "sp", "none"]  # the house's own number: classic rating, SP, none
BotTables = Literal["count", "unrated"]
DAY_MS = 24 * 3600 * 1000
# the eşli mode (refused where the house has none) and the deal's entropy window (who
# shuffles, not how the game is played)
RANKED_CHOICES = ("partners", "seeding_seconds")


class Room(msgspec.Struct, frozen=True):
    name: str
    min_level: int


class StandingRules(msgspec.Struct, frozen=True, kw_only=True):
    """What a match gives each account in one house. Places are 1-4, ties share a place and
    split the awards of the positions they occupy (as `scoring.classic_rating_changes`)."""

    house: str
    points: Points  # what orders the all-time board; "none": ordered by the OpenSkill ordinal
    start: int = 0  # the number every account starts with (classic rating 1500)
    floor: int | None = None  # points never go below this
    sp_by_place: tuple[int, int, int, int] = (0, 0, 0, 0)  # "sp" houses
    sp_leaving: int = 0  # "sp" houses: leaving a running match
    league_by_place: tuple[int, int, int, int] = (0, 0, 0, 0)  # weekly league points
    xp_finished: int = 0  # XP for every match finished (a leaver gets none)
    xp_by_place: tuple[int, int, int, int] = (0, 0, 0, 0)  # XP on top, by place
    level_xp: tuple[int, ...] = (0,)  # level L needs level_xp[L - 1] XP; one entry: no levels
    rooms: tuple[Room, ...] = ()  # the general rooms, by the level they need
    bots_on_board: bool = False
    bot_tables: BotTables = "count"
    repeat_limit: int | None = None  # the (limit + 1)-th match of a pair within the window
    repeat_window_ms: int = DAY_MS
    ranked_hands: int = 11  # the fewest hands a ranked match has (the house's usual number)
    # the profile options a ranked table may set away from the house's own; hands_per_match
    # too, to at least ranked_hands
    ranked_choices: tuple[str, ...] = RANKED_CHOICES

    @property
    def has_levels(self) -> bool:
        return len(self.level_xp) > 1


def _levels(top: int, step: int) -> tuple[int, ...]:
    """XP to reach levels 1..top: step x (0, 1, 3, 6, 10, ...), each level one step more."""
    return tuple(step * n * (n - 1) // 2 for n in range(1, top + 1))


NORTH_SULTAN = StandingRules(
    house="north-sultan", points="sp", start=1000, floor=0,
    sp_by_place=(24, 8, -8, -24), sp_leaving=-48,
    league_by_place=(12, 6, 3, 1),
    xp_finished=40, xp_by_place=(30, 20, 10, 0), level_xp=_levels(30, 100),
    rooms=(Room("Acemi", 1), Room("Kalfa", 3), Room("Usta", 6), Room("Sultan", 10)),
    bots_on_board=False, bot_tables="count", repeat_limit=3, repeat_window_ms=DAY_MS)

CLASSIC = StandingRules(
    house="classic", points="rating", start=1500,
    bots_on_board=False, bot_tables="unrated")

OKEYGG = StandingRules(house="okeygg", points="none", bots_on_board=True,
                       ranked_hands=7)  # a match of 7-21 hands, the players' choice

OKEY_OYNA = StandingRules(house="okey-oyna", points="none", bots_on_board=True)

# düz (classic) Okey at okey-oyna: no house number either; places come from the count left
OKEY_OYNA_DUZ = StandingRules(house="okey-oyna-duz", points="none", bots_on_board=True,
                              ranked_hands=99,  # the count ends the match; 99 a guard
                              ranked_choices=(*RANKED_CHOICES, "countdown_from"))

HOUSE_RULES: dict[str, StandingRules] = {
    r.house: r for r in (NORTH_SULTAN, OKEYGG, CLASSIC, OKEY_OYNA, OKEY_OYNA_DUZ)}


def rules_for(profile: Profile) -> StandingRules | None:
    """The standing rules of a table's house (its profile id); None for an unknown house.

    A profile whose `rating` is "classic" or "sp_league_xp" must agree with its house's
    points: a table overriding `rating` away from its house is not ranked (None)."""
    rules = HOUSE_RULES.get(profile.id)
    if rules is None:
        return None
    expected = {"classic": "rating", "sp_league_xp": "sp", "none": "none"}[profile.rating]
    return rules if rules.points == expected else None


def unranked_reason(profile: Profile, private: bool, rules: StandingRules | None = None
                    ) -> str:
    """Why a table of `profile` is not ranked, in words; "" when it is. `rules`: its
    house's standing rules (default: `HOUSE_RULES`'). Pure, and decided from what
    `table_created` says, so the lobby, the table's view and the leaderboards agree."""
    if private:
        return "a private room"
    rules = rules if rules is not None else HOUSE_RULES.get(profile.id)
    own = HOUSES.get(profile.id)
    if rules is None or own is None:
        return f"house {profile.id!r} keeps no standings"
    why = []
    hands = profile.hands_per_match
    if hands < rules.ranked_hands:
        why.append(f"{hands} hand{'s' if hands != 1 else ''}: a ranked match has at least "
                   f"{rules.ranked_hands}")
    free = {"hands_per_match", *rules.ranked_choices}
    changed = [name for name in Profile.__struct_fields__
               if name not in free and getattr(profile, name) != getattr(own, name)]
    if changed:
        why.append(f"options changed from the house's: {', '.join(changed)}")
    return "; ".join(why)


def level_for(rules: StandingRules, xp: int) -> int:
    """The level `xp` reaches (1 at 0 XP); past the last threshold, the last level."""
    level = 1
    for n, need in enumerate(rules.level_xp, start=1):
        if xp >= need:
            level = n
    return level


def rooms_open(rules: StandingRules, level: int) -> list[str]:
    """The general rooms an account of `level` may enter, lowest first."""
    return [r.name for r in rules.rooms if level >= r.min_level]


def room_for(rules: StandingRules, level: int) -> str:
    """The room of `level`'s peers: the highest room it may enter ("" in a house without
    rooms)."""
    open_rooms = rooms_open(rules, level)
    return open_rooms[-1] if open_rooms else ""


def published() -> dict[str, object]:
    """The house data as published in proto/standings-houses.json."""
    return {name: msgspec.to_builtins(r) for name, r in HOUSE_RULES.items()}
