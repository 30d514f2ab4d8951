"""The player's own standing in a house, as the lobby shows it: SP (or rating), this
week's league points and place, level (XP), room and place on the house's board. The
gateway reads the leaderboards' account page (services/leaderboards/api.py) and answers
`GET /api/me/standing` with this shape; an account with no finished match there yet has
what every account starts with (`known` False)."""

from __future__ import annotations

from typing import Any

import msgspec

from okey101.errors import MalformedInput
from okey101.standings.house import HOUSE_RULES, Points, room_for


class MyStanding(msgspec.Struct, frozen=True, kw_only=True):
    house: str
    account: str
    known: bool  # False: no finished match in this house yet (the starting figures)
    points_kind: Points  # what the house's board is ordered by: rating, sp or none
    points: int  # the rating or SP (0 where the house has neither)
    place: int | None  # on the house's all-time board (None: not on it)
    week: str  # this league week ("2026-W49")
    league: int  # this week's league points
    league_place: int | None  # on this week's league (None: no points this week)
    xp: int
    level: int
    has_levels: bool  # the house gives XP levels
    room: str  # the room of its level ("" where the house has no rooms)
    played: int
    won: int


def checked_house(house: object) -> str:
    """The house asked for, or MalformedInput naming the houses there are."""
    if not isinstance(house, str) or house not in HOUSE_RULES:
        raise MalformedInput(f"house={house!r}: one of {', '.join(sorted(HOUSE_RULES))}")
    return house


def my_standing(house: str, account: str, week: str, page: dict[str, Any] | None
                ) -> MyStanding:
    """`page` is the leaderboards' account page (None: it has no such account yet)."""
    rules = HOUSE_RULES[checked_house(house)]
    if page is None:
        return MyStanding(house=house, account=account, known=False,
                          points_kind=rules.points, points=rules.start, place=None,
                          week=week, league=0, league_place=None, xp=0, level=1,
                          has_levels=rules.has_levels, room=room_for(rules, 1), played=0,
                          won=0)
    try:
        s = page["standing"]
        return MyStanding(
            house=house, account=account, known=True, points_kind=rules.points,
            points=int(s["points"]), place=page.get("place"), week=week,
            league=int(s.get("league", {}).get(week, 0)),
            league_place=page.get("league_place") if page.get("week") == week else None,
            xp=int(s["xp"]), level=int(s["level"]), has_levels=rules.has_levels,
            room=str(page.get("room", "")), played=int(s["played"]), won=int(s["won"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MalformedInput(f"the leaderboards' account page is not one: {exc!r}") from exc
