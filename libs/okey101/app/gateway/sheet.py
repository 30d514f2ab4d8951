"""The end-of-hand sheet's breakdown (POST /api/score): a hand's end as the page saw it
(the table's profile, the okey, the finish, who finished, how each seat opened, the racks
of hand_ended) scored seat by seat by `scoring.hand_breakdown`, so the sheet shows rack,
multiplier and okey surcharge from the rules' one place rather than the page's own."""

from __future__ import annotations

from typing import Any

import msgspec

from okey101 import profiles, scoring, tiles
from okey101.errors import MalformedInput
from okey101.profiles import Profile
from okey101.terms import SEATS, FinishKind, Opened

MAX_RACK = 22


class ScoreRequest(msgspec.Struct, frozen=True, kw_only=True):
    profile: str | dict[str, Any]  # a house id, or the table's profile as its view has it
    okey: str
    finish: FinishKind  # as hand_ended's
    finished_by: int | None
    opened: list[Opened]  # by seat: "points", "pairs" or null
    racks: list[list[str]]  # by seat: hand_ended's racks


class ScoreAnswer(msgspec.Struct, frozen=True, kw_only=True):
    seats: list[scoring.SeatScore]


def _profile(spec: object) -> Profile:
    if isinstance(spec, str):
        return profiles.house(spec)
    if not isinstance(spec, dict):
        raise MalformedInput("profile must be a house id or a profile object")
    try:
        profile = msgspec.convert(spec, Profile)
    except msgspec.ValidationError as exc:
        raise MalformedInput(f"profile: {exc}") from None
    profiles.validate(profile)
    return profile


def score(body: dict[str, Any]) -> ScoreAnswer:
    """MalformedInput naming the field for a body that is not a hand's end; IllegalMove
    (from `hand_scores`) for one the rules could not have ended so."""
    try:
        request = msgspec.convert(body, ScoreRequest)
    except msgspec.ValidationError as exc:
        raise MalformedInput(str(exc)) from None
    profile = _profile(request.profile)
    if len(request.racks) != SEATS or len(request.opened) != SEATS:
        raise MalformedInput(f"racks and opened need {SEATS} seats each")
    if any(len(r) > MAX_RACK for r in request.racks):
        raise MalformedInput(f"a rack holds at most {MAX_RACK} tiles")
    okey = tiles.parse_at([request.okey], "okey")[0]
    racks = [tiles.parse_at(r, f"racks[{seat}]") for seat, r in enumerate(request.racks)]
    parts = scoring.hand_breakdown(profile, okey, request.finished_by, request.finish,
                                   request.opened, racks)
    return ScoreAnswer(seats=list(parts))
