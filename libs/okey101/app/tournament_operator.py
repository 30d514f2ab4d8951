"""An operator's tournament requests (`okey101 tournament`), checked before anything is
written.

Pure: the command line gives the arguments, the time and the tournaments folded from the
decisions topic (the gateway's board, `okey101.app.gateway.tournaments`, the one fold of
them); what comes back is the request to write, or MalformedInput naming the argument. The
house's own rules are the matchmaker's (`core.check_schedule`), so the command refuses what
the matchmaker would; the matchmaker decides again when the request arrives (a race with
another operator is its to refuse).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

import msgspec

from okey101 import profiles
from okey101.app.gateway.tournaments import Entry, TournamentBoard
from okey101.app.matchmaker import core
from okey101.app.matchmaker import records as R
from okey101.app.matchmaker.refusals import Refusal
from okey101.errors import MalformedInput

TOURNAMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
OVER = ("ended", "cancelled")


def board_of(decisions: Iterable[R.AnyDecision]) -> TournamentBoard:
    """The tournaments the decisions tell of, folded as the gateway folds them."""
    board = TournamentBoard()
    for d in decisions:
        board.apply(d)
    return board


def parse_start(text: str) -> int:
    """--starts-at: ms since the epoch, or an ISO 8601 time with its zone (Z or +03:00)."""
    if text.isdigit():
        return int(text)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise MalformedInput(f"--starts-at {text!r}: neither ms since the epoch nor an ISO "
                             "8601 time (2026-12-06T20:00:00+03:00)") from None
    if when.tzinfo is None:
        raise MalformedInput(f"--starts-at {text!r}: give the time zone (Z, +03:00)")
    return int(when.timestamp() * 1000)


def _utc(ms: int) -> str:
    return f"{datetime.fromtimestamp(ms / 1000, tz=UTC):%Y-%m-%dT%H:%M:%SZ}"


def check_house(house: str) -> None:
    if house not in profiles.HOUSES:
        raise MalformedInput(f"--house {house!r}: no such house (houses: "
                             f"{', '.join(sorted(profiles.HOUSES))})")


def _entry(board: TournamentBoard, house: str, tournament_id: str) -> Entry | None:
    entry = board.entries.get(tournament_id)
    return entry if entry is not None and entry.spec.house == house else None


def schedule(q: R.ScheduleTournament, board: TournamentBoard, now: int) -> R.ScheduleTournament:
    """`q` if the matchmaker would schedule it at `now`; else MalformedInput saying why."""
    check_house(q.house)
    if not TOURNAMENT_ID.fullmatch(q.tournament_id):
        raise MalformedInput(f"--id {q.tournament_id!r}: 1-64 letters, digits, '-' or '_', "
                             "starting with a letter or digit")
    if q.starts_at <= now:
        raise MalformedInput(f"--starts-at {_utc(q.starts_at)}: in the past (it is "
                             f"{_utc(now)})")
    try:
        core.check_schedule(q)
    except Refusal as refusal:
        raise MalformedInput(f"{refusal.code}: {refusal.message}") from None
    if _entry(board, q.house, q.tournament_id) is not None:
        raise MalformedInput(f"--id {q.tournament_id!r}: {q.house} has scheduled it already")
    return q


def cancel(q: R.CancelTournament, board: TournamentBoard) -> R.CancelTournament:
    """`q` if the tournament is open or running; else MalformedInput saying why."""
    check_house(q.house)
    entry = _entry(board, q.house, q.tournament_id)
    if entry is None:
        raise MalformedInput(f"{q.tournament_id!r}: {q.house} has no such tournament")
    if entry.status in OVER:
        raise MalformedInput(f"{q.tournament_id!r}: the tournament has {entry.status}"
                             if entry.status == "ended" else
                             f"{q.tournament_id!r}: the tournament is cancelled already")
    return q


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """One tournament as `okey101 tournament list` prints it."""

    tournament_id: str
    house: str
    name: str
    starts_at: int
    size: int
    hands: int
    registered: int
    status: str
    round: int
    reason: str = ""  # why it was cancelled


def rows(board: TournamentBoard, house: str | None) -> list[Row]:
    """The board's tournaments (of `house`, or all) in the lobby's order: open ones first,
    soonest first, then running, ended, cancelled."""
    if house is not None:
        check_house(house)
    out = []
    for t in board.summaries("", house):
        out.append(Row(tournament_id=t.tournament_id, house=t.house, name=t.name,
                       starts_at=t.starts_at, size=t.size, hands=t.hands,
                       registered=t.registered, status=t.status, round=t.round,
                       reason=board.entries[t.tournament_id].reason))
    return out


def render(found: list[Row]) -> str:
    """The tournaments as a plain-text table (starts in UTC)."""
    head = (f"{'id':<24} {'house':<14} {'name':<24} {'starts (UTC)':<16} {'size':>4} "
            f"{'registered':>10}  status")
    lines = [head, "-" * len(head)]
    for t in found:
        starts = datetime.fromtimestamp(t.starts_at / 1000, tz=UTC)
        lines.append(f"{t.tournament_id[:24]:<24} {t.house[:14]:<14} {t.name[:24]:<24} "
                     f"{starts:%Y-%m-%d %H:%M} {t.size:>4} {t.registered:>10}  {t.status}"
                     + (f" ({t.reason})" if t.reason else ""))
    if not found:
        lines.append("(no tournaments)")
    return "\n".join(lines)


def answer(d: R.AnyDecision) -> tuple[bool, str]:
    """The matchmaker's answer to an operator's request: accepted?, and one line."""
    match d:
        case R.TournamentScheduled():
            return True, (f"scheduled {d.tournament_id} in {d.house}, starting "
                          f"{_utc(d.starts_at)}")
        case R.TournamentCancelled():
            return True, f"cancelled {d.tournament_id} in {d.house}: {d.reason}"
        case R.Refused():
            return False, f"refused ({d.code}): {d.message}"
    return False, f"answered {type(d).__name__}"
