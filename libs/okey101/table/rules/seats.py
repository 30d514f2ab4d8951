"""Who sits at the table: seats, bots, disconnections and their windows (RULES.md §11). Pure."""

from __future__ import annotations

from okey101.errors import MalformedInput
from okey101.table.rules.common import _passes, _profile, fail
from okey101.table.state import Disconnection, TableState
from okey101.terms import (
    BOT_LEVELS,
)


def has_left(s: TableState, player_id: str) -> bool:
    """Has `player_id` left this running match (section 9)? Then it may not sit again."""
    return any(x.left and x.player_id == player_id for seat in s.sitters for x in seat)


def check_sit(s: TableState, seat: int, player_id: str) -> None:
    """`player_id` may sit at `seat` now: before the match, or as a substitute in a seat
    somebody left (section 9)."""
    if s.status == "over":
        raise fail("match_over", "the match is over")
    if s.players[seat]:
        raise fail("seat_taken", f"seat {seat} is taken by {s.players[seat]!r}")
    if player_id in s.players:
        raise fail("already_seated", f"player {player_id!r} already sits at this table")
    if has_left(s, player_id):
        raise fail("left_this_match", f"player {player_id!r} left this match and may not "
                                      "sit in it again")


def check_bot_may_sit(s: TableState) -> None:
    """A bot may sit at this table now (section 11): the house has bots, and a private
    room of a house that asks for it has its owner's request."""
    p = _profile(s)
    if not p.bots_allowed:
        raise fail("no_bots", f"{p.id} tables have no bots")
    if s.private and p.private_room_bots_on_request and not s.bots_requested:
        raise fail("bots_not_requested", f"{p.id}: bots sit in private room "
                                         f"{s.table_id!r} only when its owner asks")


def check_bot_level(level: object, where: str) -> int:
    """A bot level the bots can play (`okey101.bots`), or malformed input."""
    if not isinstance(level, int) or isinstance(level, bool) or level not in BOT_LEVELS:
        raise MalformedInput(f"{where}: bot_level {level!r} is not one of "
                             f"{', '.join(map(str, BOT_LEVELS))}")
    return level


def may_seat_bot(s: TableState) -> bool:
    """May a bot take an empty seat now (published in every view: `bots_may_sit`)?"""
    return s.status in ("seating", "playing") and \
        _passes(lambda st, _: check_bot_may_sit(st), s, -1)


def check_request_bots(s: TableState, player_id: str) -> None:
    """The owner of a private room may ask for bots in its empty seats, once."""
    if s.status == "over":
        raise fail("match_over", "the match is over")
    if not s.private:
        raise fail("not_private", f"table {s.table_id!r} is not a private room")
    if player_id != s.owner:
        raise fail("not_owner", f"player {player_id!r} does not own private room "
                                f"{s.table_id!r}")
    if s.bots_requested:
        raise fail("bots_already_requested", f"bots were already asked for at {s.table_id!r}")


def check_report_disconnect(s: TableState, seat: int) -> int:
    """The player at `seat` may be reported disconnected: the window it gets, in ms."""
    p = _profile(s)
    if p.reconnect_seconds is None:
        raise fail("no_reconnect_window", f"{p.id} has no reconnect window: a "
                                          "disconnected player's turns time out")
    if s.status == "over":
        raise fail("match_over", "the match is over")
    if s.disconnected[seat] is not None:
        raise fail("already_disconnected", f"seat {seat} is already reported disconnected")
    return p.reconnect_seconds * 1000


def check_report_reconnect(s: TableState, seat: int) -> None:
    if s.disconnected[seat] is None:
        raise fail("not_disconnected", f"seat {seat} is not reported disconnected")


def check_reconnect_window_passed(s: TableState, seat: int, player_id: str, since: int,
                                  at: int) -> Disconnection:
    """The window opened at seq `since` for `player_id` at `seat` is still open on the
    record, and the command's time `at` (ms) is past it."""
    away = s.disconnected[seat]
    if away is None or away.since != since or away.player_id != player_id:
        raise fail("no_such_window", f"no reconnect window opened at seq {since} for "
                                     f"{player_id!r} at seat {seat}")
    if at < away.reconnect_by:
        raise fail("reconnect_window_open", f"seat {seat}: {player_id!r} has until "
                                            f"{away.reconnect_by} ms to come back; it is {at}")
    return away


def check_seat_free_for(s: TableState, seat: int, player_id: str) -> str:
    """`seat` is empty or `player_id`'s own; its occupant ("" when empty)."""
    occupant = s.players[seat]
    if occupant and occupant != player_id:
        raise fail("seat_taken", f"seat {seat} is taken by {occupant!r}")
    return occupant


def check_start_match(s: TableState) -> None:
    """The match starts once, with every seat taken."""
    if s.status != "seating":
        raise fail("match_started", "the match has already started")
    if not all(s.players):
        raise fail("seats_empty", f"seats {[i for i, p in enumerate(s.players) if not p]} "
                                  "are empty")


def turn_seconds(state: TableState) -> int | None:
    """The turn time that applies to `state` now, or None: no clock."""
    p = state.profile
    if p is None or p.turn_seconds is None:
        return None
    if p.untimed_when_only_bots and all(state.bots):
        return None
    return p.turn_seconds



def is_new_turn(before: TableState, after: TableState) -> bool:
    """Did the event that took `before` to `after` start a turn (a `HandStarted`, or a
    discard that passed the turn)? The turn's clock starts at that event's time and runs
    out `turn_seconds` later: the timers', the views' and the replays' one rule."""
    return after.turn != before.turn
