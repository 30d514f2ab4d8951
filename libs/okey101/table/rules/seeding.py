"""The deal's seeding windows: who contributes, when a window opens and closes
(proto/DEAL.md v2). Pure."""

from __future__ import annotations

from okey101.table.rules.common import Refusal, _profile, fail, refused
from okey101.table.state import Seeding, TableState
from okey101.terms import (
    SEATS,
    SeedingStage,
)


def may_contribute(s: TableState, seat: int) -> bool:
    """May the player at `seat` send a client seed: a person (a bot's share is the
    server's), who has not forfeited a share this match?"""
    player = s.players[seat]
    return bool(player) and not s.bots[seat] and player not in s.seeding_barred


def opens_seeding(s: TableState) -> bool:
    """Does the next deal wait for client seeds: the table has seeding windows
    (`seeding_seconds`), its deals are not stacked, and somebody at it may contribute?
    A table of bots deals at once (version 1)."""
    return _profile(s).seeding_seconds is not None and s.deals is None and \
        any(may_contribute(s, seat) for seat in range(SEATS))


def seeding_window_ms(s: TableState) -> int:
    """How long each seeding window stays open, in ms."""
    seconds = _profile(s).seeding_seconds
    assert seconds is not None
    return seconds * 1000


def is_awaited_commit(s: TableState, seat: int) -> bool:
    """Does the commit window wait for `seat` before it closes early: a seat that may
    contribute, and where the house does not label bots a bot's seat as well (closing as
    soon as the people have committed would tell which seat is a bot)."""
    return may_contribute(s, seat) or (s.bots[seat] and not _profile(s).bots_labelled)


def are_commits_complete(s: TableState) -> bool:
    """Has every awaited seat committed? Then the commit window closes at once."""
    g = s.seeding
    assert g is not None
    return all(g.commitments[seat] or not is_awaited_commit(s, seat) for seat in range(SEATS))


def are_reveals_complete(s: TableState) -> bool:
    """Has every seat that committed revealed (or forfeited)? Then the deal is dealt."""
    g = s.seeding
    assert g is not None
    return all(not g.commitments[seat] or g.client_seeds[seat] or g.forfeited[seat]
               for seat in range(SEATS))


def _seeding_refusal(s: TableState, stage: SeedingStage, seat: int, at: int | None
                     ) -> Refusal | None:
    """Why no seeding window is open now in `stage` (`at`, ms, before its deadline, when
    given), or None."""
    g = s.seeding
    if s.status != "playing" or g is None:
        return Refusal("no_seeding",
                       lambda: f"seat {seat}: no seeding window is open at this table")
    if g.stage != stage:
        return Refusal("wrong_stage", lambda: f"seat {seat}: the seeding of hand {g.hand} "
                       f"is in its {g.stage} window")
    if at is not None and at >= g.deadline:
        return Refusal("window_closed", lambda: f"seat {seat}: the {stage} window of hand "
                       f"{g.hand} closed at {g.deadline} ms; it is {at}")
    return None


def check_commit_seed(s: TableState, seat: int, at: int | None = None) -> Seeding:
    """`seat` may commit to a client seed now: the commit window is open, the seat's
    player may contribute, and has not committed yet."""
    refused(commit_seed_refusal(s, seat, at))
    assert s.seeding is not None
    return s.seeding


def commit_seed_refusal(s: TableState, seat: int, at: int | None = None) -> Refusal | None:
    """Why `seat` may not commit to a client seed now, or None (`check_commit_seed`)."""
    refusal = _seeding_refusal(s, "commit", seat, at)
    if refusal is not None:
        return refusal
    g = s.seeding
    assert g is not None
    if not s.players[seat]:
        return Refusal("seat_empty", lambda: f"seat {seat} is empty")
    if s.bots[seat]:
        return Refusal("bot_seat",
                       lambda: f"seat {seat}: a bot sends no seed; its share is the server's")
    if not may_contribute(s, seat):
        return Refusal("share_forfeited", lambda: f"seat {seat}: {s.players[seat]!r} "
                       "forfeited a share this match and contributes no more")
    if g.commitments[seat]:
        return Refusal("already_committed", lambda: f"seat {seat} has already committed for "
                       f"hand {g.hand}")
    return None


def check_reveal_seed(s: TableState, seat: int, at: int | None = None) -> Seeding:
    """`seat` may reveal its client seed now: the reveal window is open, its player
    committed this hand, and has neither revealed nor forfeited."""
    refused(reveal_seed_refusal(s, seat, at))
    assert s.seeding is not None
    return s.seeding


def reveal_seed_refusal(s: TableState, seat: int, at: int | None = None) -> Refusal | None:
    """Why `seat` may not reveal its client seed now, or None (`check_reveal_seed`)."""
    refusal = _seeding_refusal(s, "reveal", seat, at)
    if refusal is not None:
        return refusal
    g = s.seeding
    assert g is not None
    if not g.commitments[seat]:
        return Refusal("not_committed", lambda: f"seat {seat} committed to no seed for hand "
                       f"{g.hand}")
    if g.committers[seat] != s.players[seat]:
        return Refusal("not_committer", lambda: f"seat {seat}: {g.committers[seat]!r} "
                       f"committed, not {s.players[seat]!r}")
    if g.client_seeds[seat] or g.forfeited[seat]:
        return Refusal("already_revealed", lambda: f"seat {seat} has already revealed (or "
                       f"forfeited) for hand {g.hand}")
    return None


def check_close_seeding(s: TableState, hand: int, attempt: int, stage: SeedingStage,
                        at: int) -> Seeding:
    """The `stage` window of hand `hand` (re-deal `attempt`) is open on the record, and
    the command's time `at` (ms) is past its deadline."""
    g = s.seeding
    if s.status != "playing" or g is None:
        raise fail("no_seeding", "no seeding window is open at this table")
    if (g.hand, g.attempt, g.stage) != (hand, attempt, stage):
        raise fail("no_such_window", f"no {stage} window of hand {hand} attempt {attempt} "
                                     f"is open (hand {g.hand} attempt {g.attempt} is in its "
                                     f"{g.stage} window)")
    if at < g.deadline:
        raise fail("seeding_window_open", f"the {stage} window of hand {hand} is open until "
                                          f"{g.deadline} ms; it is {at}")
    return g
