"""The league week of a moment: weeks start Monday 00:00 Europe/Istanbul (seeds/000 §8).

A week is named by its ISO year and number in Istanbul time, "2026-W48": ISO weeks start on
Monday, so the name changes exactly at Monday 00:00 Istanbul.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from okey101.errors import MalformedInput

ISTANBUL = ZoneInfo("Europe/Istanbul")
_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


def week_of(at_ms: int) -> str:
    """The league week holding `at_ms` (ms since the epoch)."""
    year, week, _ = datetime.fromtimestamp(at_ms / 1000, ISTANBUL).isocalendar()
    return f"{year:04d}-W{week:02d}"


def week_start_ms(week: str) -> int:
    """Monday 00:00 Istanbul of `week` ("2026-W48"), in ms since the epoch."""
    match = _WEEK.match(week)
    if match is None:
        raise MalformedInput(f"week {week!r}: expected YYYY-Www, e.g. 2026-W48")
    year, number = int(match.group(1)), int(match.group(2))
    try:
        monday = datetime.fromisocalendar(year, number, 1).replace(tzinfo=ISTANBUL)
    except ValueError:
        raise MalformedInput(f"week {week!r}: {year} has no week {number}") from None
    return int(monday.timestamp() * 1000)


def check_week(week: str) -> str:
    """`week` if it names a week, else MalformedInput naming it."""
    week_start_ms(week)
    return week
