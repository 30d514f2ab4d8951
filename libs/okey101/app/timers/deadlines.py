"""Turn clocks and reconnect windows: which seat has overstayed its turn, and which
disconnected player has not come back in time. Pure; time is always an argument.

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

Reconnect windows (RULES.md section 9, `Profile.reconnect_seconds`): a `PlayerDisconnected`
carries its deadline, `reconnect_by` (ms, from the event's `at`); the folded state keeps
every open window (`TableState.disconnected`) until the player is reported back or leaves.
When a window's deadline has come, `due` gives an `ExpireReconnectWindow` naming the seat,
the player, the window (the seq that opened it) and the current seq, with a command id made
of them: issued once per (window, seq), again after a restart (a duplicate for the
processor), and again at once when the seq moves on before the command lands. The engine
checks the command's server-stamped `at` against the deadline, so an early one changes
nothing.

Seeding windows (proto/DEAL.md, version 2; `Profile.seeding_seconds`): while the next hand's
seeding is open, its deadline is on the record (`SeedingOpened.commit_by`, then
`SeedCommitsClosed.reveal_by`, ms, from the events' `at`). When it has come, `due` gives a
`CloseSeeding` naming the hand, the attempt, the stage and the current seq, with a command id
made of them: issued once per (window, seq) like an expiry, so a commit or reveal landing
first (a new seq) gets a new command at once, and a restarted service issues the same one.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from dataclasses import dataclass, field

from okey101.errors import IllegalMove
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.rules import is_new_turn, turn_seconds
from okey101.table.state import TableState
from okey101.terms import SeedingStage

Due = E.TimeOut | E.ExpireReconnectWindow | E.CloseSeeding  # what the clock issues


def command_id(table_id: str, turn: int, seq: int) -> str:
    """The id of the timeout for (table, turn, seq): the same after any restart."""
    return f"timeout-{table_id}-{turn}-{seq}"


def expiry_command_id(table_id: str, seat: int, since: int, seq: int) -> str:
    """The id of the expiry of the window opened at seq `since` for `seat`, sent at `seq`."""
    return f"reconnect-{table_id}-{seat}-{since}-{seq}"


def seeding_command_id(table_id: str, hand: int, attempt: int, stage: str, seq: int) -> str:
    """The id of the close of hand `hand`'s (re-deal `attempt`) `stage` window, at `seq`."""
    return f"seeding-{table_id}-{hand}-{attempt}-{stage}-{seq}"


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


@dataclass(frozen=True, slots=True)
class Window:
    """An open reconnect window: `player_id` at `seat` must be back by `at` (seconds)."""

    table_id: str
    seat: int
    player_id: str
    since: int  # the seq of the PlayerDisconnected that opened it
    seq: int  # the table's seq now
    at: float

    def command(self) -> E.ExpireReconnectWindow:
        return E.ExpireReconnectWindow(
            table_id=self.table_id, command_id=expiry_command_id(
                self.table_id, self.seat, self.since, self.seq),
            seat=self.seat, player_id=self.player_id, since=self.since, seq=self.seq)


@dataclass(frozen=True, slots=True)
class SeedingWindow:
    """The open seeding window of a table: it closes at `at` (seconds)."""

    table_id: str
    hand: int
    attempt: int
    stage: SeedingStage
    seq: int  # the table's seq now
    at: float

    @property
    def key(self) -> tuple[int, int, str, int]:
        return (self.hand, self.attempt, self.stage, self.seq)

    def command(self) -> E.CloseSeeding:
        return E.CloseSeeding(
            table_id=self.table_id, command_id=seeding_command_id(
                self.table_id, self.hand, self.attempt, self.stage, self.seq),
            seq=self.seq, hand=self.hand, attempt=self.attempt, stage=self.stage)


def seeding_window(state: TableState) -> SeedingWindow | None:
    """The seeding window open at `state`, if any."""
    g = state.seeding
    if g is None or state.status != "playing":
        return None
    return SeedingWindow(state.table_id, g.hand, g.attempt, g.stage, state.seq,
                         g.deadline / 1000)


def windows(state: TableState) -> list[Window]:
    """The reconnect windows open at `state`, by seat."""
    if state.status == "over":
        return []
    return [Window(state.table_id, seat, d.player_id, d.since, state.seq, d.reconnect_by / 1000)
            for seat, d in enumerate(state.disconnected) if d is not None]


@dataclass(slots=True)
class _Table:
    state: TableState
    started: float | None = None  # when state.turn started
    issued: tuple[int, int] | None = None  # (turn, seq) of the timeout issued this run
    expired: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat: (since, seq)
    closed: tuple[int, int, str, int] | None = None  # the seeding close issued (its key)
    queued: float | None = None  # the deadline this table sits in the heap under


FINISHED_WINDOW = 10000  # finished tables remembered (by id) per clock


class TurnClock:
    """The deadlines of a set of tables (say, one events partition), from their events.

    Bounded memory (issue 13): a table whose match is over leaves the clock at once; only
    its id is remembered, for the last `finished_window` finished tables, so that a re-read
    event of it is ignored without folding. An event of a finished table older than that
    is ignored as well: folded onto a new table it does not follow (a seq gap), unless it
    is a table's first event, which would follow that table again until its match ends."""

    def __init__(self, finished_window: int = FINISHED_WINDOW) -> None:
        if finished_window < 0:
            raise ValueError(f"finished_window {finished_window} must be >= 0")
        self.finished_window = finished_window
        self._tables: dict[str, _Table] = {}
        # matches over, oldest first: nothing more to time
        self._finished: OrderedDict[str, None] = OrderedDict()
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
            if self.finished_window:
                self._finished[table_id] = None
                while len(self._finished) > self.finished_window:
                    self._finished.popitem(last=False)
            self._compact()
            return True
        if table is None:
            table = self._tables[table_id] = _Table(after)
        table.state = after
        if is_new_turn(before, after):
            table.started = at
            table.issued = None
        if table.expired and after.disconnected != before.disconnected:
            table.expired = {seat: key for seat, key in table.expired.items()
                             if after.disconnected[seat] is not None}
        self._enqueue(table_id, table)
        return True

    def _compact(self) -> None:
        """Drop the heap's stale entries once they outnumber the tables: a finished table's
        deadline would otherwise stay queued until its time came."""
        if len(self._heap) > 64 and len(self._heap) > 2 * len(self._tables):
            self._heap = [(at, t) for at, t in self._heap
                          if (table := self._tables.get(t)) is not None and table.queued == at]
            heapq.heapify(self._heap)

    def _pending(self, table: _Table) -> float | None:
        """The earliest deadline of `table` not issued yet for the current seq."""
        state = table.state
        found = [w.at for w in windows(state)
                 if table.expired.get(w.seat) != (w.since, w.seq)]
        turn = turn_deadline(state, table.started)
        if turn is not None and table.issued != (state.turn, state.seq):
            found.append(turn)
        seeding = seeding_window(state)
        if seeding is not None and table.closed != seeding.key:
            found.append(seeding.at)
        return min(found) if found else None

    def _enqueue(self, table_id: str, table: _Table) -> None:
        deadline = self._pending(table)
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

    def windows(self, table_id: str) -> list[Window]:
        """The open reconnect windows of `table_id`."""
        table = self._tables.get(table_id)
        return windows(table.state) if table is not None else []

    def seeding(self, table_id: str) -> SeedingWindow | None:
        """The open seeding window of `table_id`."""
        table = self._tables.get(table_id)
        return seeding_window(table.state) if table is not None else None

    def when(self, command: E.Command) -> float | None:
        """The deadline a command `due` gave answers (seconds), while it is still open."""
        if isinstance(command, E.CloseSeeding):
            seeding = self.seeding(command.table_id)
            return seeding.at if seeding is not None else None
        if isinstance(command, E.ExpireReconnectWindow):
            return next((w.at for w in self.windows(command.table_id)
                         if (w.seat, w.since) == (command.seat, command.since)), None)
        found = self.deadline(command.table_id)
        return found.at if found is not None else None

    def deadlines(self) -> list[Deadline]:
        found = (self.deadline(t) for t in sorted(self._tables))
        return sorted((d for d in found if d is not None), key=lambda d: (d.at, d.table_id))

    def state(self, table_id: str) -> TableState | None:
        table = self._tables.get(table_id)
        return table.state if table is not None else None

    @property
    def finished(self) -> int:
        """Finished tables remembered by id (at most `finished_window`)."""
        return len(self._finished)

    @property
    def queued(self) -> int:
        """Entries in the deadline heap (stale ones included)."""
        return len(self._heap)

    @property
    def tracked(self) -> int:
        """Tables followed (created, match not over)."""
        return len(self._tables)

    def next_at(self) -> float | None:
        """The earliest time `due` may have something (possibly a stale entry)."""
        return self._heap[0][0] if self._heap else None

    # ------------------------------------------------------------ issuing
    def due(self, now: float) -> list[Due]:
        """A timeout for every table whose turn ran out by `now`, an expiry for every
        reconnect window that passed and a close for every seeding window that passed, not
        issued for the current seq yet; earliest deadline first. Marks them issued."""
        out: list[Due] = []
        while self._heap and self._heap[0][0] <= now:
            at, table_id = heapq.heappop(self._heap)
            table = self._tables.get(table_id)
            if table is None or table.queued != at:
                continue  # stale: the table's deadline moved, or its match is over
            table.queued = None
            found = self.deadline(table_id)  # None: untimed now (all bots, the hand over)
            if found is not None and found.at <= now and \
                    table.issued != (found.turn, found.seq):
                table.issued = (found.turn, found.seq)
                out.append(found.command())
            for window in windows(table.state):
                if window.at <= now and \
                        table.expired.get(window.seat) != (window.since, window.seq):
                    table.expired[window.seat] = (window.since, window.seq)
                    out.append(window.command())
            seeding = seeding_window(table.state)
            if seeding is not None and seeding.at <= now and table.closed != seeding.key:
                table.closed = seeding.key
                out.append(seeding.command())
            self._enqueue(table_id, table)  # a later deadline of the same table, if any
        return out

    def release(self, command: Due) -> None:
        """`command` was not delivered (a failed send): `due` may issue it again."""
        table = self._tables.get(command.table_id)
        if table is None:
            return
        if isinstance(command, E.CloseSeeding):
            if table.closed != (command.hand, command.attempt, command.stage, command.seq):
                return
            table.closed = None
        elif isinstance(command, E.ExpireReconnectWindow):
            if table.expired.get(command.seat) != (command.since, command.seq):
                return
            del table.expired[command.seat]
        elif table.issued == (command.turn, command.seq):
            table.issued = None
        else:
            return
        table.queued = None
        self._enqueue(command.table_id, table)
