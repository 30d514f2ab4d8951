"""The deal's seeding windows: who contributes, when a window opens and closes
(proto/DEAL.md v2). Pure."""

from __future__ import annotations

from okey101.table.rules.common import _profile, fail
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


def _open_seeding(s: TableState, stage: SeedingStage, seat: int, at: int | None) -> Seeding:
    """The seeding window open now in `stage` (`at`, ms, before its deadline, when given)."""
    g = s.seeding
    if s.status != "playing" or g is None:
        raise fail("no_seeding", f"seat {seat}: no seeding window is open at this table")
    if g.stage != stage:
        raise fail("wrong_stage", f"seat {seat}: the seeding of hand {g.hand} is in its "
                                  f"{g.stage} window")
    if at is not None and at >= g.deadline:
        raise fail("window_closed", f"seat {seat}: the {stage} window of hand {g.hand} "
                                    f"closed at {g.deadline} ms; it is {at}")
    return g


def check_commit_seed(s: TableState, seat: int, at: int | None = None) -> Seeding:
    """`seat` may commit to a client seed now: the commit window is open, the seat's
    player may contribute, and has not committed yet."""
    g = _open_seeding(s, "commit", seat, at)
    if not s.players[seat]:
        raise fail("seat_empty", f"seat {seat} is empty")
    if s.bots[seat]:
        raise fail("bot_seat", f"seat {seat}: a bot sends no seed; its share is the server's")
    if not may_contribute(s, seat):
        raise fail("share_forfeited", f"seat {seat}: {s.players[seat]!r} forfeited a share "
                                      "this match and contributes no more")
    if g.commitments[seat]:
        raise fail("already_committed", f"seat {seat} has already committed for hand "
                                        f"{g.hand}")
    return g


def check_reveal_seed(s: TableState, seat: int, at: int | None = None) -> Seeding:
    """`seat` may reveal its client seed now: the reveal window is open, its player
    committed this hand, and has neither revealed nor forfeited."""
    g = _open_seeding(s, "reveal", seat, at)
    if not g.commitments[seat]:
        raise fail("not_committed", f"seat {seat} committed to no seed for hand {g.hand}")
    if g.committers[seat] != s.players[seat]:
        raise fail("not_committer", f"seat {seat}: {g.committers[seat]!r} committed, not "
                                    f"{s.players[seat]!r}")
    if g.client_seeds[seat] or g.forfeited[seat]:
        raise fail("already_revealed", f"seat {seat} has already revealed (or forfeited) "
                                       f"for hand {g.hand}")
    return g


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
