"""The table directory: one entry per table, folded from its events. Pure.

An entry says what a table is (house and options, players, which seats were bots), how far
it got (status, created/started/ended times, hands played, final totals and places) and
where its events are (the events partition, the first and last offsets, and where each
hand starts and ends), so a replay reads only that offset range.

`fold(entry, event, partition, offset)` is an idempotent upsert: an event at or below the
entry's last offset is already in it and changes nothing, so reading a stretch of the log
again (a restart from committed offsets) gives the same entry. Times are the events' `at`,
never a clock: the directory is a function of the log.

Seating is kept twice: as the server knows it (`players`, `bots`), and as spectators see it
(`public_players`, `public_bots`), folded from `views.public_event` of every event, so the
public listing shows exactly what the core lets spectators see.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from okey101 import profiles
from okey101.errors import MalformedInput
from okey101.profiles import Profile
from okey101.table import messages as E
from okey101.table.views import public_event

NO_SEATS: tuple[str, ...] = ("", "", "", "")
NO_BOTS: tuple[bool, ...] = (False, False, False, False)


class HandMark(msgspec.Struct, frozen=True, kw_only=True):
    """Where one hand (one deal: a replayed deal is another attempt) is in the log."""

    hand: int
    attempt: int
    started_seq: int
    started_offset: int
    started_at: int
    ended_seq: int = 0  # 0: still being played
    ended_offset: int = -1
    ended_at: int = 0
    finish: str = ""
    finished_by: int | None = None
    turns: int = 0  # discards made in the hand


class TableEntry(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    partition: int  # of the events topic; every event of a table is there
    first_offset: int
    last_offset: int
    first_seq: int
    last_seq: int
    events: int = 0  # events folded
    house: str = ""
    options: dict[str, Any] = msgspec.field(default_factory=dict)  # changed from the house
    status: str = "new"  # new, seating, playing, over
    players: tuple[str, ...] = NO_SEATS  # as the server knows them
    bots: tuple[bool, ...] = NO_BOTS
    public_players: tuple[str, ...] = NO_SEATS  # as spectators see them (views.public_event)
    public_bots: tuple[bool, ...] = NO_BOTS
    created_at: int = 0  # ms since the epoch, from the events' `at`
    started_at: int = 0
    ended_at: int = 0
    updated_at: int = 0
    hands_total: int = 0
    hands_played: int = 0  # scored hands (a replayed deal is not one)
    hands: tuple[HandMark, ...] = ()
    totals: tuple[int, ...] = ()
    places: tuple[int, ...] = ()
    gaps: int = 0  # events whose seq did not follow the one before
    skipped: tuple[int, ...] = ()  # offsets of undecodable records under this table's key
    v: int = E.VERSION  # the contract's version (proto/VERSIONING.md)


class PublicEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A directory entry as anyone may see it: seating as spectators see it."""

    table_id: str
    house: str
    options: dict[str, Any]
    status: str
    players: tuple[str, ...]
    bots: tuple[bool, ...]
    created_at: int
    started_at: int
    ended_at: int
    updated_at: int
    hands_total: int
    hands_played: int
    totals: tuple[int, ...]
    places: tuple[int, ...]
    last_seq: int
    events: int


entry_decoder = msgspec.json.Decoder(TableEntry)


def public_entry(entry: TableEntry) -> PublicEntry:
    return PublicEntry(
        table_id=entry.table_id, house=entry.house, options=entry.options,
        status=entry.status, players=entry.public_players, bots=entry.public_bots,
        created_at=entry.created_at, started_at=entry.started_at, ended_at=entry.ended_at,
        updated_at=entry.updated_at, hands_total=entry.hands_total,
        hands_played=entry.hands_played, totals=entry.totals, places=entry.places,
        last_seq=entry.last_seq, events=entry.events)


# ---------------------------------------------------------------- folding
def fold(entry: TableEntry | None, event: E.Event, partition: int, offset: int
         ) -> TableEntry:
    """`entry` with `event` (found at `offset` of `partition`) folded in; the same entry
    when that offset is already in it."""
    if entry is None:
        entry = TableEntry(table_id=event.table_id, partition=partition, first_offset=offset,
                           last_offset=offset - 1, first_seq=event.seq,
                           last_seq=event.seq - 1)
    elif offset <= entry.last_offset:
        return entry
    changes: dict[str, Any] = {
        "last_offset": offset, "last_seq": max(entry.last_seq, event.seq),
        "events": entry.events + 1, "updated_at": max(entry.updated_at, event.at)}
    if event.seq != entry.last_seq + 1:
        changes["gaps"] = entry.gaps + 1
    changes |= _table_changes(entry, event, offset)
    seating = _seating(entry.players, entry.bots, event)
    if seating is not None:
        changes["players"], changes["bots"] = seating
    seen = public_event(event)
    public = _seating(entry.public_players, entry.public_bots, seen) if seen else None
    if public is not None:
        changes["public_players"], changes["public_bots"] = public
    return msgspec.structs.replace(entry, **changes)


def skip(entry: TableEntry | None, table_id: str, partition: int, offset: int
         ) -> TableEntry:
    """An undecodable record under `table_id`'s key at `offset`: noted, nothing folded."""
    if entry is None:
        entry = TableEntry(table_id=table_id, partition=partition, first_offset=offset,
                           last_offset=offset - 1, first_seq=1, last_seq=0)
    elif offset <= entry.last_offset:
        return entry
    return msgspec.structs.replace(entry, last_offset=offset,
                                   skipped=(*entry.skipped, offset))


def is_newer(candidate: TableEntry, current: TableEntry | None) -> bool:
    """Whether `candidate` holds more of the log than `current` (the later write wins only
    when it knows more: a stale write read back never replaces a fresher entry)."""
    return current is None or candidate.last_offset > current.last_offset


def _table_changes(entry: TableEntry, event: E.Event, offset: int) -> dict[str, Any]:
    if isinstance(event, E.TableCreated):
        return {"house": event.profile.id, "options": options_of(event.profile),
                "status": "seating", "created_at": event.at}
    if isinstance(event, E.MatchStarted):
        return {"status": "playing", "started_at": event.at, "hands_total": event.hands}
    if isinstance(event, E.HandStarted):
        mark = HandMark(hand=event.hand, attempt=event.attempt, started_seq=event.seq,
                        started_offset=offset, started_at=event.at)
        return {"hands": (*entry.hands, mark)}
    if isinstance(event, E.TileDiscarded) and entry.hands:
        last = entry.hands[-1]
        return {"hands": (*entry.hands[:-1], msgspec.structs.replace(last, turns=last.turns + 1))}
    if isinstance(event, E.HandEnded) and entry.hands:
        last = msgspec.structs.replace(
            entry.hands[-1], ended_seq=event.seq, ended_offset=offset, ended_at=event.at,
            finish=event.finish, finished_by=event.finished_by)
        played = entry.hands_played + (0 if event.replay else 1)
        return {"hands": (*entry.hands[:-1], last), "hands_played": played}
    if isinstance(event, E.MatchEnded):
        return {"status": "over", "ended_at": event.at, "totals": tuple(event.totals),
                "places": tuple(event.places)}
    return {}


def _seating(players: tuple[str, ...], bots: tuple[bool, ...], event: E.Event
             ) -> tuple[tuple[str, ...], tuple[bool, ...]] | None:
    """The seating after `event`, or None when it does not change seats."""
    if isinstance(event, E.MatchStarted) and len(event.players) == len(players):
        return tuple(event.players), bots
    if isinstance(event, E.PlayerSat):
        seat, player, bot = event.seat, event.player_id, is_bot(event)
    elif isinstance(event, E.SeatHandedToBot):
        seat, player, bot = event.seat, event.bot_id, True
    elif isinstance(event, E.PlayerLeft):
        seat, player, bot = event.seat, "", False
    else:
        return None
    if not 0 <= seat < len(players):
        return None
    return (tuple(player if i == seat else p for i, p in enumerate(players)),
            tuple(bot if i == seat else b for i, b in enumerate(bots)))


def is_bot(event: E.PlayerSat) -> bool:
    """Whether a bot sat: the server record's answer (a house that does not label bots
    keeps it out of `bot`, in the server-only `bot_level`)."""
    return event.is_bot


def options_of(profile: Profile) -> dict[str, Any]:
    """The options `profile` changes from its house (all of it for an unknown house)."""
    base = profiles.HOUSES.get(profile.id)
    doc = msgspec.to_builtins(profile)
    if base is None:
        return dict(doc)
    plain = msgspec.to_builtins(base)
    return {k: v for k, v in doc.items() if plain.get(k) != v}


def offset_for(entry: TableEntry, at: int | None = None, hand: int | None = None
               ) -> int | None:
    """The offset a replay to seq `at` (or to the end of hand `hand`) needs to read up to:
    the end of the hand holding that step, when the entry knows it; None: the whole range."""
    if hand is not None:
        marks = [m for m in entry.hands if m.hand == hand]
        return marks[-1].ended_offset if marks and marks[-1].ended_seq else None
    if at is not None:
        return next((m.ended_offset for m in entry.hands if m.ended_seq >= at), None)
    return None


# ---------------------------------------------------------------- finding
def parse_time(text: str, what: str) -> int:
    """ms since the epoch from ms digits, an ISO date or an ISO date-time (UTC unless it
    says otherwise)."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise MalformedInput(f"{what} {text!r}: not a time (ms since the epoch, 2026-11-30 "
                             "or 2026-11-30T15:00:00+00:00)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def is_listed(entry: TableEntry, *, house: str | None = None, player: str | None = None,
              status: str | None = None, since: int | None = None, until: int | None = None,
              public: bool = True) -> bool:
    """Whether `entry` passes the filters: its house and status, a player seated (as the
    audience sees the seating), and its life [created, last event] meeting [since, until)."""
    if house is not None and entry.house != house:
        return False
    if status is not None and entry.status != status:
        return False
    if player is not None and player not in (entry.public_players if public else entry.players):
        return False
    if since is not None and max(entry.updated_at, entry.created_at) < since:
        return False
    return until is None or entry.created_at < until
