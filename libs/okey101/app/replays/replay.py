"""Replay a table to any step, as a viewer may see it. Pure.

A table's events (read from its offset range) are folded with the real `evolve` up to the
step asked for (`at` a seq, or the end of a hand), and the state there is shown through the
core's own redaction (`okey101.table.views`): a seat sees `player_view(state, seat)` and its
events through `event_for`, spectators `public_view` and `public_event`. Only the server
viewer (auditors) sees everything, the deal included. Nothing here redacts on its own, so
a replay shows exactly what the table showed its players then.

A viewer's views over a range of steps (`view_frames`) are the views contract's records, as
the views service published them to that viewer (`table.viewparts.TableParts`): the first
step's view whole, then each step as a patch to the one before (whole again every
`KEYFRAME`th), so a replay reader follows a match the way a live client does, with the
same patch code. The turn's deadline (`turn_by`) is the live one: the time of the event
that moved the turn on, plus the house's turn time.

Undecodable records are skipped by the reader and named here by offset; folding stops,
without raising, at an event that does not follow (a gap left by a skipped record, an
event the state refuses), and the replay says where and why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import msgspec

from okey101 import tiles
from okey101.errors import IllegalMove, MalformedInput
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.rules import is_new_turn
from okey101.table.state import TableState
from okey101.table.viewparts import TableParts
from okey101.table.viewpatch import decode_update
from okey101.table.views import (
    SPECTATOR,
    PlayerView,
    event_for,
    player_views,
    public_event,
)

SERVER = -2  # the auditors' viewer: everything, the deal included
PUBLIC = SPECTATOR


def viewer_name(viewer: int) -> str:
    if viewer == SERVER:
        return "server"
    return "public" if viewer == PUBLIC else f"seat {viewer}"


def check_viewer(viewer: int) -> int:
    if viewer not in (SERVER, PUBLIC, 0, 1, 2, 3):
        raise MalformedInput(f"seat {viewer}: a seat is 0-3")
    return viewer


def visible(event: E.Event, viewer: int) -> E.Event | None:
    """`event` as `viewer` may see it (None: hidden), by the core's own filter."""
    if viewer == SERVER:
        return event
    return public_event(event) if viewer == PUBLIC else event_for(event, viewer)


class Skipped(msgspec.Struct, frozen=True, kw_only=True):
    """A record of the table's offset range that is not an event: skipped, never folded."""

    partition: int
    offset: int
    reason: str


class ServerView(msgspec.Struct, frozen=True, kw_only=True):
    """What only the server knows at a step (auditors only): who sits where and which seats
    are bots, every rack, the deck left (top first) and the seeds."""

    players: list[str]
    bots: list[bool]
    racks: list[list[str]]
    deck: list[str]
    hand_seed: str
    match_seed: str


class ReplayStep(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    seq: int  # the step shown
    last_seq: int  # the table's last seq in the log read
    at: int  # when the step's event was decided (ms since the epoch)
    viewer: str  # "seat N", "public" or "server"
    event: E.AnyEvent | None  # the step's event as the viewer saw it (None: hidden)
    view: PlayerView  # the viewer's view (the server's: the spectators' one) ...
    server: ServerView | None = None  # ... and, for the server only, all the rest
    stopped: str = ""  # why folding stopped before the step asked for
    skipped: list[Skipped] = msgspec.field(default_factory=list)


class Folded(msgspec.Struct, frozen=True, kw_only=True):
    state: TableState
    event: E.Event | None  # the last event folded
    stopped: str = ""
    turn_started: int | None = None  # the `at` of the event that moved the turn on


def last_seq(events: Sequence[E.Event]) -> int:
    return events[-1].seq if events else 0


def fold(events: Iterable[E.Event], until: int | None = None) -> Folded:
    """The state after the events up to seq `until` (all of them when None). Stops, with
    the reason, at an event that does not follow or that the state refuses."""
    state, last, started = NEW_TABLE, None, None
    for event in events:
        if until is not None and event.seq > until:
            break
        try:
            after = _step(state, event)
        except _Stop as stop:
            return Folded(state=state, event=last, stopped=str(stop), turn_started=started)
        if is_new_turn(state, after):
            started = event.at
        state, last = after, event
    return Folded(state=state, event=last, turn_started=started)


class _Stop(Exception):
    """Folding stops at an event: why, in words."""


def _step(state: TableState, event: E.Event) -> TableState:
    try:
        return evolve(state, event)
    except IllegalMove as exc:
        raise _Stop(f"stopped at seq {state.seq}: {exc.message}") from None
    except (AssertionError, IndexError, KeyError, ValueError, TypeError) as exc:
        raise _Stop(f"stopped at seq {state.seq}: seq {event.seq} "
                    f"({type(event).__name__}) does not apply: "
                    f"{type(exc).__name__} {exc}") from None


def step_for(events: Sequence[E.Event], table_id: str, at: int | None = None,
             hand: int | None = None) -> int:
    """The seq to show: `at`, the end of hand `hand` (the latest step while it is being
    played), or the last step. Bad input names the table and what it holds."""
    end = last_seq(events)
    if end == 0:
        raise MalformedInput(f"table {table_id!r} has no events")
    if at is not None and hand is not None:
        raise MalformedInput("give --at or --hand, not both")
    if at is not None:
        if not 1 <= at <= end:
            raise MalformedInput(f"seq {at} is past the end of table {table_id!r}: its "
                                 f"events are seq 1-{end}" if at > end else
                                 f"seq {at}: seqs start at 1")
        return at
    if hand is not None:
        started = [e.hand for e in events if isinstance(e, E.HandStarted)]
        if hand not in started:
            held = f"hands 1-{max(started)}" if started else "no hand yet"
            raise MalformedInput(f"table {table_id!r} has no hand {hand} ({held})")
        ended = [e.seq for e in events if isinstance(e, E.HandEnded) and e.hand == hand
                 and not e.replay]
        return ended[-1] if ended else end
    return end


def view_of(state: TableState, viewer: int, turn_started: int | None = None) -> PlayerView:
    """The core's view for `viewer` (the server's table view is the spectators' one)."""
    return player_views(state, [_seat_of(viewer)], turn_started=turn_started)[0]


def _seat_of(viewer: int) -> int:
    return viewer if viewer >= 0 else SPECTATOR


class ViewFrames(msgspec.Struct, frozen=True, kw_only=True):
    """`view_frames`' answer: the records, encoded, and why it stopped short, if it did."""

    frames: list[bytes]
    first: int  # the seq of the first step sent (0: none)
    last: int  # ... and of the last
    stopped: str = ""


def view_frames(table_id: str, events: Sequence[E.Event], viewer: int,
                start: int | None = None, end: int | None = None) -> ViewFrames:
    """`viewer`'s view at every step from seq `start` (default 1) to `end` (default the
    last), as the views contract's records (`PlayerUpdate`, then `PlayerPatch`es, whole
    again every `KEYFRAME`th), without the server's notes of bots (`bot`, `bot_level`).
    The server's viewer gets the spectators' views. Bad input names the table and what it
    holds."""
    check_viewer(viewer)
    last = last_seq(events)
    first = step_for(events, table_id, start if start is not None else 1)
    final = step_for(events, table_id, end) if end is not None else last
    if final < first:
        raise MalformedInput(f"from {first} is after to {final}")
    parts, seat = TableParts(), _seat_of(viewer)
    state, started = NEW_TABLE, None
    frames: list[bytes] = []
    for event in events:
        if event.seq > final:
            break
        try:
            after = _step(state, event)
        except _Stop as stop:
            return ViewFrames(frames=frames, first=first if frames else 0,
                              last=state.seq if frames else 0, stopped=str(stop))
        if is_new_turn(state, after):
            started = event.at
        if event.seq >= first:
            [published] = parts.updates(after, state.seq, [event], started, seats=[seat])
            frames.append(_without_bots(published.value))
        state = after
    return ViewFrames(frames=frames, first=first if frames else 0,
                      last=state.seq if frames else 0)


def _without_bots(value: bytes) -> bytes:
    update = decode_update(value)
    return msgspec.json.encode(msgspec.structs.replace(update, bot=False, bot_level=None))


def server_view(state: TableState) -> ServerView:
    hand = state.hand
    racks = [tiles.names(s.rack) for s in hand.seats] if hand is not None else []
    deck = tiles.names(hand.deck[hand.deck_pos:]) if hand is not None else []
    return ServerView(players=list(state.players),
                      bots=list(state.bots), racks=racks, deck=deck,
                      hand_seed=hand.seed if hand is not None else "",
                      match_seed=state.match_seed)


def replay_step(table_id: str, events: Sequence[E.Event], viewer: int,
                at: int | None = None, hand: int | None = None,
                skipped: Sequence[Skipped] = (), table_last: int | None = None
                ) -> ReplayStep:
    """The table at the step asked for, as `viewer` saw it. `events` may stop short of
    the table's end (read only up to the step), `table_last` then says where it ends."""
    check_viewer(viewer)
    target = step_for(events, table_id, at, hand)
    folded = fold(events, target)
    shown = folded.event
    seen = visible(shown, viewer) if shown is not None else None
    stopped = folded.stopped
    if not stopped and folded.state.seq != target:
        stopped = f"the log holds no seq {target} after seq {folded.state.seq}"
    return ReplayStep(
        table_id=table_id, seq=folded.state.seq,
        last_seq=max(last_seq(events), table_last or 0),
        at=shown.at if shown is not None else 0, viewer=viewer_name(viewer),
        event=cast(E.AnyEvent | None, seen),
        view=view_of(folded.state, viewer, folded.turn_started),
        server=server_view(folded.state) if viewer == SERVER else None, stopped=stopped,
        skipped=list(skipped))


def events_as(events: Iterable[E.Event], viewer: int) -> list[E.Event]:
    """The table's events as `viewer` saw them (hidden ones left out)."""
    check_viewer(viewer)
    out = []
    for event in events:
        seen = visible(event, viewer)
        if seen is not None:
            out.append(seen)
    return out


def to_builtins(step: ReplayStep) -> Any:
    return msgspec.to_builtins(step)
