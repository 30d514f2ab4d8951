"""Where a player may ask for a seat, by house: the halls by level, the halls a role opens,
bots, and the tournament rules (house data, like okey101.standings.house).

north-sultan (seeds/000 §8): the general halls are split by account level, Acemi (1+),
Kalfa (3+), Usta (6+) and Sultan (10+), "so that you are matched with players of a similar
level"; Has Oda is open to VIP members of any level and gives no point advantage: its
tables are created exactly as a general hall's (same house, same options, public), so the
leaderboards count them the same. Houses without levels have one hall, "".
"""

from __future__ import annotations

import msgspec

from okey101 import profiles
from okey101.standings.house import HOUSE_RULES, rooms_open

GENERAL = ""  # the one hall of a house without halls


class RoleHall(msgspec.Struct, frozen=True):
    name: str
    role: str  # the identity token must carry this role


class TournamentRules(msgspec.Struct, frozen=True, kw_only=True):
    """What a tournament gives (the project's numbers, as data; the seed names the prizes:
    cosmetics, titles and league points). Places by the last round reached, the final
    table's by its match places (ties share, RULES.md §9)."""

    advance_per_table: int = 1  # entrants at or above this place advance (ties advance)
    titles: tuple[str, ...] = ()  # by final place
    league_by_place: tuple[int, ...] = ()  # league points by final place
    points_by_place: tuple[int, int, int, int] = (3, 2, 1, 0)  # tournament points a match
    sizes: tuple[int, ...] = (16, 64)  # sizes an operator may schedule (at most)


class HallRules(msgspec.Struct, frozen=True, kw_only=True):
    house: str
    role_halls: tuple[RoleHall, ...] = ()
    tournaments: TournamentRules | None = None  # None: the house has no tournaments


NORTH_SULTAN = HallRules(
    house="north-sultan", role_halls=(RoleHall("Has Oda", "vip"),),
    tournaments=TournamentRules(
        titles=("Turnuva Sultanı", "Turnuva Veziri", "Turnuva Paşası"),
        league_by_place=(60, 30, 15, 8)))

HALL_RULES: dict[str, HallRules] = {
    name: NORTH_SULTAN if name == "north-sultan" else HallRules(house=name)
    for name in profiles.HOUSES}


def level_halls(house: str) -> list[tuple[str, int]]:
    """(hall, minimum level) of a house's general halls, lowest first; [("", 1)] without."""
    rules = HOUSE_RULES.get(house)
    if rules is None or not rules.rooms:
        return [(GENERAL, 1)]
    return [(r.name, r.min_level) for r in rules.rooms]


def halls_open(house: str, level: int, roles: list[str] | tuple[str, ...]) -> list[str]:
    """Every hall an account of `level` holding `roles` may enter."""
    rules = HOUSE_RULES.get(house)
    general = rooms_open(rules, level) if rules is not None and rules.rooms else [GENERAL]
    return general + [h.name for h in HALL_RULES[house].role_halls if h.role in roles]


def hall_of_level(house: str, level: int) -> str:
    """The hall of a level's peers: the highest general hall it may enter."""
    rules = HOUSE_RULES.get(house)
    return rooms_open(rules, level)[-1] if rules is not None and rules.rooms else GENERAL


def bots_allowed(house: str) -> bool:
    return profiles.HOUSES[house].bots_allowed


def bot_level_near(ordinals: list[float]) -> int:
    """The bot level (1-3) for seats beside players of these skill ordinals: a new account
    (ordinal 0) gets level 1; level 2 from an ordinal of 5, level 3 from 15 (the ordinals
    the leaderboards reach on the simulated population, tools/bench/ratings.py)."""
    if not ordinals:
        return 1
    mean = sum(ordinals) / len(ordinals)
    return 1 if mean < 5 else 2 if mean < 15 else 3
