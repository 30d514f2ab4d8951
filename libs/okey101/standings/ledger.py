"""Event records in, standings out: the fold the leaderboards service and the CLI share.

`read` takes one record of the events topic (its raw value, partition and offset), in the
topic's order within a partition; partitions may interleave in any way. Nothing raises:
bad input becomes a `Notice` (counted in `counts` by kind, with where it was) and changes
nothing. A match is applied once, keyed by its table id, whatever is delivered again:

- `undecodable`: not an event (bad JSON, a field of the wrong type, an unknown type);
- `unknown_table`: an event of a table whose `table_created` was never read (the table is
  then ignored, once counted);
- `unknown_house`: a table of a house without standing rules, ignored;
- `bad_account`: an empty or too long account id (that seat is not ranked);
- `bad_event`: an event that contradicts the table (`match_ended` before the start);
- `seq_gap`: a table's seq jumped (an event is missing); folded anyway;
- `duplicate_event` / `duplicate_match`: a seq already read (a table replayed, a record
  delivered again); skipped, not bad input.

A table that is not ranked (`house.unranked_reason`: a private room, fewer hands than the
house's ranked matches have, an option changed) is folded like any other and its match
counted as `unranked`, never applied: it moves no standing. Not bad input either.

While `buffering` (a rebuild catching up), finished matches are kept and applied sorted by
`flush`; afterwards each is applied as it comes (the board puts a late one in its place).
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import msgspec

from okey101.standings.board import AccountKey, Board
from okey101.standings.house import StandingRules, unranked_reason
from okey101.standings.match import MatchResult, TableTrack
from okey101.table import messages as E

NEEDED = frozenset({"table_created", "player_sat", "seat_handed_to_bot", "player_left",
                    "match_started", "hand_ended", "match_ended"})
BAD_INPUT = ("undecodable", "unknown_table", "unknown_house", "bad_account", "bad_event",
             "seq_gap")


class _Head(msgspec.Struct):
    type: str
    table_id: str
    seq: int


_head = msgspec.json.Decoder(_Head)


class _Where(NamedTuple):
    partition: int
    offset: int
    table_id: str


class Notice(msgspec.Struct, frozen=True, kw_only=True):
    kind: str
    detail: str
    partition: int = -1
    offset: int = -1
    table_id: str = ""


class Fed(msgspec.Struct, frozen=True):
    """What one record did: a finished match (if any), the standings it changed, notices."""

    result: MatchResult | None = None
    changed: frozenset[AccountKey] = frozenset()
    notices: tuple[Notice, ...] = ()


class Ledger:
    def __init__(self, rules: dict[str, StandingRules] | None = None,
                 horizon: int = 50_000, buffering: bool = False) -> None:
        self.board = Board(rules, horizon)
        self.buffering = buffering
        self.pending: list[MatchResult] = []
        self.tracks: dict[str, TableTrack] = {}
        self.finished: dict[str, int] = {}  # table id -> the seq of its match_ended
        self.ignored: set[str] = set()
        self.unranked: dict[str, str] = {}  # table id -> why it is not ranked
        self.counts: Counter[str] = Counter()
        self.records = 0

    def read(self, value: bytes | None, partition: int = -1, offset: int = -1) -> Fed:
        self.records += 1
        try:
            head = _head.decode(value or b"")
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return self._note("undecodable", str(exc)[:200], _Where(partition, offset, ""))
        table = head.table_id
        where_t = _Where(partition, offset, table)
        if table in self.finished:
            if head.seq <= self.finished[table]:
                return self._duplicate(head)
            return Fed()
        if table in self.ignored:
            return Fed()
        track = self.tracks.get(table)
        if track is not None and head.seq <= track.last_seq:
            return self._duplicate(head)
        if head.type not in NEEDED:
            if track is None:
                return self._unknown(table, head, where_t)
            return self._gap_and_step(track, head, where_t)
        fed = Fed() if track is None else self._gap_and_step(track, head, where_t)
        try:
            event = E.event_decoder.decode(value or b"")
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return self._note("undecodable", str(exc)[:200], where_t)
        if track is None:
            if not isinstance(event, E.TableCreated):
                return self._unknown(table, head, where_t)
            return self._create(event, where_t)
        result = track.fold(event)
        notices = list(fed.notices) + [
            self._note("bad_account" if "account id" in p else "bad_event", p,
                       where_t).notices[0] for p in track.problems]
        if result is None:
            return Fed(notices=tuple(notices))
        del self.tracks[table]
        self.finished[table] = head.seq
        if not track.ranked:
            self.counts["unranked"] += 1
            self.unranked[table] = unranked_reason(track.profile, track.private,
                                                   self.board.rules.get(track.profile.id))
            return Fed(notices=tuple(notices))
        return Fed(result=result, changed=self._take(result), notices=tuple(notices))

    def flush(self) -> frozenset[AccountKey]:
        """Apply the buffered matches, sorted, and stop buffering."""
        self.buffering = False
        pending, self.pending = self.pending, []
        return frozenset(self.board.apply_all(pending))

    def _take(self, result: MatchResult) -> frozenset[AccountKey]:
        self.counts["matches"] += 1
        if self.buffering:
            self.pending.append(result)
            return frozenset()
        changed = self.board.apply(result)
        if changed is None:
            self.counts["duplicate_match"] += 1
            return frozenset()
        return frozenset(changed)

    def _create(self, event: E.TableCreated, where: _Where) -> Fed:
        rules = self.board.rules.get(event.profile.id)
        if rules is None:
            self.ignored.add(event.table_id)
            return self._note("unknown_house", f"house {event.profile.id!r} has no standing "
                              "rules; table not ranked", where)
        track = TableTrack(event.table_id, event.profile,
                           ranked=not unranked_reason(event.profile, event.private, rules),
                           private=event.private)
        track.last_seq = event.seq
        self.tracks[event.table_id] = track
        return Fed()

    def _unknown(self, table: str, head: _Head, where: _Where) -> Fed:
        self.ignored.add(table)
        return self._note("unknown_table", f"{head.type} (seq {head.seq}) of a table whose "
                          "table_created was never read; ignored", where)

    def _gap_and_step(self, track: TableTrack, head: _Head, where: _Where) -> Fed:
        gap = head.seq > track.last_seq + 1
        expected = track.last_seq + 1
        track.last_seq = head.seq
        if not gap:
            return Fed()
        return self._note("seq_gap", f"seq {head.seq} after {expected - 1}: events "
                          f"{expected}-{head.seq - 1} missing", where)

    def _duplicate(self, head: _Head) -> Fed:
        self.counts["duplicate_event"] += 1
        if head.type == "match_ended":
            self.counts["duplicate_match"] += 1
        return Fed()

    def _note(self, kind: str, detail: str, where: _Where) -> Fed:
        self.counts[kind] += 1
        return Fed(notices=(Notice(kind=kind, detail=detail, partition=where.partition,
                                   offset=where.offset, table_id=where.table_id),))
