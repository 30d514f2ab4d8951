"""Turn clocks: which seat has overstayed its turn. Pure; time is always an argument.

A `TurnClock` folds each table's events with the real `evolve` (so `turn`, the seat to act
and the seq mean exactly what the processor means by them), together with the time each
event was recorded (the Kafka record timestamp, in seconds). A turn starts with the event
that advanced `state.turn` (a `HandStarted`, or a `TileDiscarded` that passed the turn);
its deadline is that event's time plus the profile's `turn_seconds`. Other events within
the turn (a draw, a taken discard, a lay) change the seq but not the deadline.

No deadline where the profile has no turn time (`turn_seconds` None), where
`untimed_when_only_bots` and all four seats are bots (an empty seat is not a bot: a seat
left during the match still needs the clock to move the table on), or where no hand is
being played (seating, a finished hand, a finished match).

`due(now)` gives a `TimeOut` for every table whose deadline has come: the seat to act, the
turn, the current seq and a command id made of (table, turn, seq). The same events with the
same timestamps give the same deadlines and the same commands, ids included, so a restarted
timer service re-issues a command the processor answers from its duplicate detection. A
timeout for a turn already played is rejected by the engine (`turn`, `seq`), so no seat
moves twice; within one run the clock also issues each (table, turn, seq) at most once
(unless `release`d after a failed send). A seq that moves on within the same timed-out turn
(the player drew as the timeout was sent) gives a new command for the new seq at once.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from okey101.errors import IllegalMove
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState


def command_id(table_id: str, turn: int, seq: int) -> str:
    """The id of the timeout for (table, turn, seq): the same after any restart."""
    return f"timeout-{table_id}-{turn}-{seq}"


def turn_seconds(state: TableState) -> int | None:
    """The turn time that applies to `state` now, or None: no clock."""
    p = state.profile
    if p is None or p.turn_seconds is None:
        return None
    if p.untimed_when_only_bots and all(state.bots):
        return None
    return p.turn_seconds


def turn_deadline(state: TableState, started: float | None) -> float | None:
    """When the turn that started at `started` runs out, or None when nothing is timed."""
    seconds = turn_seconds(state)
    if (seconds is None or started is None or state.status != "playing"
            or state.hand is None or state.hand.phase == "over"):
        return None
    return started + seconds


@dataclass(frozen=True, slots=True)
class Deadline:
    table_id: str
    seat: int
    turn: int
    seq: int
    at: float  # seconds, the clock of the event timestamps

    def command(self) -> E.TimeOut:
        return E.TimeOut(table_id=self.table_id, command_id=command_id(
            self.table_id, self.turn, self.seq), seat=self.seat, turn=self.turn, seq=self.seq)


@dataclass(slots=True)
class _Table:
    state: TableState
    started: float | None = None  # when state.turn started
    issued: tuple[int, int] | None = None  # (turn, seq) of the timeout issued this run
    queued: float | None = None  # the deadline this table sits in the heap under


class TurnClock:
    """The deadlines of a set of tables (say, one events partition), from their events."""

    def __init__(self) -> None:
        self._tables: dict[str, _Table] = {}
        self._finished: set[str] = set()  # matches over: nothing more to time
        self._heap: list[tuple[float, str]] = []  # (deadline, table id); stale entries too

    # ------------------------------------------------------------ folding
    def fold(self, event: E.Event, at: float) -> bool:
        """Fold one event recorded at `at` (seconds). False when it is ignored: already
        folded (a re-read), a finished match, or one that does not follow the table's seq."""
        table_id = event.table_id
        if table_id in self._finished:
            return False
        table = self._tables.get(table_id)
        before = table.state if table is not None else NEW_TABLE
        if event.seq <= before.seq:
            return False
        try:
            after = evolve(before, event)
        except IllegalMove:  # a seq gap: this table cannot be followed
            return False
        if after.status == "over":
            self._tables.pop(table_id, None)
            self._finished.add(table_id)
            return True
        if table is None:
            table = self._tables[table_id] = _Table(after)
        table.state = after
        if after.turn != before.turn:
            table.started = at
            table.issued = None
        self._enqueue(table_id, table)
        return True

    def _enqueue(self, table_id: str, table: _Table) -> None:
        deadline = turn_deadline(table.state, table.started)
        if deadline is not None and deadline != table.queued:
            table.queued = deadline
            heapq.heappush(self._heap, (deadline, table_id))

    # ------------------------------------------------------------ reading
    def deadline(self, table_id: str) -> Deadline | None:
        table = self._tables.get(table_id)
        if table is None:
            return None
        at = turn_deadline(table.state, table.started)
        if at is None:
            return None
        hand = table.state.hand
        assert hand is not None
        return Deadline(table_id, hand.to_act, table.state.turn, table.state.seq, at)

    def deadlines(self) -> list[Deadline]:
        found = (self.deadline(t) for t in sorted(self._tables))
        return sorted((d for d in found if d is not None), key=lambda d: (d.at, d.table_id))

    def state(self, table_id: str) -> TableState | None:
        table = self._tables.get(table_id)
        return table.state if table is not None else None

    @property
    def tracked(self) -> int:
        """Tables followed (created, match not over)."""
        return len(self._tables)

    def next_at(self) -> float | None:
        """The earliest time `due` may have something (possibly a stale entry)."""
        return self._heap[0][0] if self._heap else None

    # ------------------------------------------------------------ issuing
    def due(self, now: float) -> list[E.TimeOut]:
        """A timeout for every table whose turn ran out by `now` and that was not issued
        for its current (turn, seq) yet; earliest deadline first. Marks them issued."""
        out: list[E.TimeOut] = []
        while self._heap and self._heap[0][0] <= now:
            at, table_id = heapq.heappop(self._heap)
            table = self._tables.get(table_id)
            if table is None or table.queued != at:
                continue  # stale: the table's deadline moved, or its match is over
            table.queued = None
            found = self.deadline(table_id)
            if found is None:
                continue  # untimed now (all bots, the hand over)
            if found.at > now:  # cannot happen while queued == at; kept for safety
                self._enqueue(table_id, table)
                continue
            if table.issued == (found.turn, found.seq):
                continue
            table.issued = (found.turn, found.seq)
            out.append(found.command())
        return out

    def release(self, command: E.TimeOut) -> None:
        """`command` was not delivered (a failed send): `due` may issue it again."""
        table = self._tables.get(command.table_id)
        if table is None or table.issued != (command.turn, command.seq):
            return
        table.issued = None
        table.queued = None
        self._enqueue(command.table_id, table)
