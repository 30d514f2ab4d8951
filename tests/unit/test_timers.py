"""The turn clock (RULES.md section 2, turn time), in virtual time: the events are real
(decided by the engine), the times are given."""

from __future__ import annotations

import msgspec
import pytest

from okey101 import tiles
from okey101.app.timers.deadlines import TurnClock, command_id, expiry_command_id
from okey101.table import messages as E
from okey101.table.decide import decide
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState

T0 = 1_000.0
TABLE = "tbl"


class Table:
    """A table driven by commands through the engine; every event is folded into the
    clocks given, with the time the command was applied at."""

    def __init__(self, *clocks: TurnClock, table_id: str = TABLE) -> None:
        self.table_id = table_id
        self.state: TableState = NEW_TABLE
        self.clocks = list(clocks)
        self.log: list[tuple[E.Event, float]] = []

    def apply(self, command: E.Command, at: float) -> list[E.Event]:
        """`command` as the processor applies it: its seq, its record's time (ms)."""
        command = msgspec.structs.replace(command, table_id=self.table_id, seq=self.state.seq,
                                          at=round(at * 1000))
        decision = decide(self.state, command)
        assert isinstance(decision, list), f"{command} rejected: {decision}"
        for event in decision:
            self.state = evolve(self.state, event)
            self.log.append((event, at))
            for clock in self.clocks:
                clock.fold(event, at)
        return decision

    def setup(self, profile: str = "north-sultan", options: dict[str, object] | None = None,
              bots: tuple[bool, ...] = (False,) * 4, at: float = T0, hands: int | None = None
              ) -> None:
        opts = dict(options or {})
        if hands is not None:
            opts["hands_per_match"] = hands
        self.apply(E.CreateTable(table_id="", command_id="create", profile=profile,
                                 options=opts), at)
        for seat in range(4):
            self.apply(E.Sit(table_id="", command_id=f"sit{seat}", seat=seat,
                             player_id=f"p{seat}", bot=bots[seat]), at)
        self.apply(E.StartMatch(table_id="", command_id="start", player_id="p0", seat=0,
                                seed=f"{7:064x}"), at)

    @property
    def to_act(self) -> int:
        assert self.state.hand is not None
        return self.state.hand.to_act

    def discard(self, at: float) -> None:
        """The seat to act discards its last rack tile (drawing first when it must)."""
        assert self.state.hand is not None
        seat = self.to_act
        if self.state.hand.phase == "draw":
            self.draw(at)
        tile = self.state.hand.seats[seat].rack[-1]
        self.apply(E.Discard(table_id="", command_id=f"d{self.state.seq}", seat=seat,
                             player_id=f"p{seat}", tile=tiles.name(tile)), at)

    def draw(self, at: float) -> None:
        seat = self.to_act
        self.apply(E.Draw(table_id="", command_id=f"draw{self.state.seq}", seat=seat,
                          player_id=f"p{seat}"), at)

    def timeout(self, command: E.TimeOut, at: float) -> list[E.Event]:
        """Apply a clock's command exactly as the processor would: it must be accepted."""
        assert command.seq == self.state.seq and command.turn == self.state.turn
        return self.apply(command, at)


def expected(table: Table) -> E.TimeOut:
    s = table.state
    return E.TimeOut(table_id=table.table_id, command_id=command_id(table.table_id, s.turn,
                     s.seq), seat=table.to_act, turn=s.turn, seq=s.seq)


# ---------------------------------------------------------------- the deadline
def test_a_stalled_seat_is_timed_out_exactly_at_the_deadline_and_not_before() -> None:
    """north-sultan: 45 s a turn, from the event that started it."""
    clock = TurnClock()
    table = Table(clock)
    table.setup("north-sultan")
    assert table.state.turn == 1
    deadline = clock.deadline(TABLE)
    assert deadline is not None and deadline.at == T0 + 45 and deadline.seat == table.to_act
    assert clock.due(T0 + 44.999) == []
    due = clock.due(T0 + 45)
    assert due == [expected(table)]
    assert due[0].command_id == f"timeout-{TABLE}-1-{table.state.seq}"
    events = table.timeout(due[0], T0 + 45.01)  # the engine accepts it as it is
    assert [type(e) for e in events][:1] == [E.TurnTimedOut]


def test_the_same_turn_and_seq_is_not_issued_twice_in_one_run() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup()
    assert len(clock.due(T0 + 45)) == 1
    assert clock.due(T0 + 46) == []
    assert clock.due(T0 + 10_000) == []


def test_a_seat_that_plays_in_time_is_not_timed_out_and_the_next_turn_has_its_own_clock(
        ) -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup()
    table.discard(T0 + 30)  # the starter discards in time
    assert table.state.turn == 2
    assert clock.due(T0 + 45) == []
    assert clock.due(T0 + 74.999) == []
    assert clock.due(T0 + 75) == [expected(table)]


def test_drawing_without_discarding_does_not_reset_the_clock() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup()
    table.discard(T0 + 10)  # turn 2 starts at T0 + 10
    table.draw(T0 + 50)  # seat 2 draws late in its turn, then stalls
    assert clock.due(T0 + 54.999) == []
    due = clock.due(T0 + 55)
    assert due == [expected(table)]  # with the seq after the draw
    table.timeout(due[0], T0 + 55)  # draw already done: the house only discards
    assert table.state.turn == 3


def test_a_move_after_an_issued_timeout_gives_a_new_command_for_the_new_seq() -> None:
    """The player drew while the timeout was on its way: that timeout is stale (seq); the
    clock answers the new seq at once, and only once."""
    clock = TurnClock()
    table = Table(clock)
    table.setup()
    table.discard(T0 + 1)
    first = clock.due(T0 + 46)
    assert len(first) == 1
    table.draw(T0 + 46.1)
    rejection = decide(table.state, first[0])
    assert isinstance(rejection, E.Rejection) and rejection.code == "stale_seq"
    second = clock.due(T0 + 46.2)
    assert second == [expected(table)] and second[0].command_id != first[0].command_id
    assert clock.due(T0 + 47) == []


# ---------------------------------------------------------------- no clock
def test_okeygg_with_only_bots_has_no_clock() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup("okeygg", bots=(True,) * 4)
    assert clock.deadline(TABLE) is None
    assert clock.due(T0 + 10**9) == []


def test_okeygg_with_one_human_has_its_45_second_clock() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup("okeygg", bots=(True, True, False, True))
    assert clock.due(T0 + 44) == []
    assert clock.due(T0 + 45) == [expected(table)]


def test_north_sultan_times_bots_too() -> None:
    """untimed_when_only_bots is okeygg's: north-sultan keeps its clock."""
    clock = TurnClock()
    table = Table(clock)
    table.setup("north-sultan", bots=(True,) * 4)
    assert clock.due(T0 + 45) == [expected(table)]


def test_the_clock_stops_when_the_last_human_hands_the_seat_to_a_bot() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup("okeygg", bots=(True, True, True, False))
    assert clock.deadline(TABLE) is not None
    table.apply(E.ReplaceWithBot(table_id="", command_id="bot3", seat=3, player_id="p3",
                                 bot_id="b3"), T0 + 5)
    assert clock.due(T0 + 10**9) == []


@pytest.mark.parametrize("profile", ["okeygg", "north-sultan"])
def test_an_unlimited_turn_time_has_no_clock(profile: str) -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup(profile, options={"turn_seconds": None})
    assert clock.deadline(TABLE) is None
    assert clock.due(T0 + 10**9) == []


def test_a_chosen_turn_time_is_used() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup("okeygg", options={"turn_seconds": 15})
    assert clock.due(T0 + 14.99) == []
    assert clock.due(T0 + 15) == [expected(table)]


def test_no_clock_before_the_match_starts() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.apply(E.CreateTable(table_id="", command_id="c", profile="north-sultan"), T0)
    table.apply(E.Sit(table_id="", command_id="s", seat=0, player_id="p0"), T0)
    assert clock.tracked == 1
    assert clock.due(T0 + 10**9) == []


# ---------------------------------------------------------------- a whole match, restarts
def test_a_match_played_only_by_timeouts_runs_to_its_end_and_is_forgotten() -> None:
    """Nobody plays: every turn is timed out at its deadline, each once, in turn order, and
    every command is accepted; after MatchEnded the table is no longer tracked."""
    clock = TurnClock()
    table = Table(clock)
    table.setup("north-sultan", hands=2)
    turns = []
    now = T0
    while table.state.status == "playing":
        deadline = clock.deadline(TABLE)
        assert deadline is not None
        assert clock.due(deadline.at - 0.001) == []
        now = deadline.at
        due = clock.due(now)
        assert due == [expected(table)]
        turns.append(due[0].turn)
        table.timeout(due[0], now + 0.004)
    assert turns == list(range(1, len(turns) + 1))
    assert any(isinstance(e, E.HandEnded) for e, _ in table.log)
    assert clock.tracked == 0 and clock.deadlines() == [] and clock.due(now + 10**6) == []


def test_a_restarted_clock_issues_the_same_command_and_never_one_for_a_played_turn() -> None:
    first = TurnClock()
    table = Table(first)
    table.setup()
    table.discard(T0 + 20)
    issued = first.due(T0 + 65)
    assert len(issued) == 1
    # the timer crashes now; the command may or may not have reached the processor
    restarted = TurnClock()
    for event, at in table.log:
        restarted.fold(event, at)
    assert restarted.due(T0 + 65) == issued  # same command id: a duplicate for the processor
    assert restarted.due(T0 + 70) == []
    # the processor applied it; the events reach a third incarnation of the timer
    table.timeout(issued[0], T0 + 65.2)
    third = TurnClock()
    for event, at in table.log:
        third.fold(event, at)
    assert third.due(T0 + 110.1) == []  # turn 2 was played: nothing for it, ever
    due = third.due(T0 + 110.2)
    assert [c.turn for c in due] == [3] and due == [expected(table)]


def test_re_reading_events_already_folded_changes_nothing() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup()
    for event, _ in table.log:
        assert clock.fold(event, T0 + 30) is False  # a re-read with other times: ignored
    assert clock.due(T0 + 45) == [expected(table)]


def test_a_released_command_is_issued_again() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup()
    [command] = clock.due(T0 + 45)
    clock.release(command)
    assert clock.due(T0 + 45.5) == [command]


def test_tables_are_timed_independently_earliest_first() -> None:
    clock = TurnClock()
    late, early = Table(clock, table_id="late"), Table(clock, table_id="early")
    late.setup(at=T0 + 3)
    early.setup(at=T0)
    assert clock.due(T0 + 44) == []
    due = clock.due(T0 + 50)
    assert [c.table_id for c in due] == ["early", "late"]
    assert [d.table_id for d in clock.deadlines()] == ["early", "late"]


# ---------------------------------------------------------------- reconnect windows (§9)
UNTIMED = {"turn_seconds": None}  # classic without a turn clock: only the window is timed


def disconnect(table: Table, seat: int, at: float) -> E.PlayerDisconnected:
    [event] = table.apply(E.ReportDisconnect(table_id="", command_id=f"away{seat}-{at}",
                                             seat=seat, player_id=f"p{seat}"), at)
    assert isinstance(event, E.PlayerDisconnected)
    return event


def expiry(table: Table, seat: int, since: int) -> E.ExpireReconnectWindow:
    s = table.state
    return E.ExpireReconnectWindow(
        table_id=TABLE, command_id=expiry_command_id(TABLE, seat, since, s.seq), seat=seat,
        player_id=f"p{seat}", since=since, seq=s.seq)


def test_classic_a_disconnected_player_has_7_minutes_then_the_seat_is_left() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup("classic", options=UNTIMED)
    away = disconnect(table, 2, T0 + 10)
    assert away.reconnect_by == round((T0 + 10 + 420) * 1000)  # from the event's time
    assert [w.at for w in clock.windows(TABLE)] == [T0 + 430]
    assert clock.due(T0 + 429.999) == []
    due = clock.due(T0 + 430)
    assert due == [expiry(table, 2, away.seq)]
    [left] = table.apply(due[0], T0 + 430.01)  # the engine accepts it as it is
    assert isinstance(left, E.PlayerLeft) and left.reason == "disconnected"
    assert table.state.players[2] == "" and table.state.sitters[2][-1].left
    assert clock.windows(TABLE) == [] and clock.due(T0 + 10**6) == []


def test_classic_a_reconnect_in_time_closes_the_window() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup("classic", options=UNTIMED)
    disconnect(table, 1, T0)
    table.apply(E.ReportReconnect(table_id="", command_id="back", seat=1, player_id="p1"),
                T0 + 419)
    assert clock.windows(TABLE) == [] and clock.due(T0 + 10**6) == []


def test_classic_an_expiry_before_the_deadline_is_refused_by_the_engine() -> None:
    """The core reads no clock: it compares the command's server-stamped time with the
    window, so an early expiry (a clock running ahead) changes nothing."""
    table = Table()
    table.setup("classic", options=UNTIMED)
    away = disconnect(table, 2, T0)
    early = msgspec.structs.replace(expiry(table, 2, away.seq), at=away.reconnect_by - 1)
    decision = decide(table.state, early)
    assert isinstance(decision, E.Rejection) and decision.code == "reconnect_window_open"


def test_classic_turns_time_out_as_usual_while_a_player_is_away() -> None:
    """The starter is away: its turns (and everybody's) time out at 45 s; its window
    expires at 420 s in between, once, and is accepted like any timer command."""
    clock = TurnClock()
    table = Table(clock)
    table.setup("classic")
    away = disconnect(table, 0, T0)
    now, timeouts, expiries = T0, 0, []
    while True:
        nxt = clock.next_at()
        assert nxt is not None
        if nxt > T0 + 500:
            break
        now = nxt
        for command in clock.due(now):
            if isinstance(command, E.ExpireReconnectWindow):
                expiries.append(now)
            else:
                timeouts += 1
            table.apply(command, now)
    assert expiries == [T0 + 420] and timeouts == 11  # turns end at 45, 90, ... 495 s
    assert table.state.players[0] == "" and table.state.sitters[0][0].left
    assert away.reconnect_by == round((T0 + 420) * 1000)


def test_a_restarted_clock_issues_the_same_expiry() -> None:
    first = TurnClock()
    table = Table(first)
    table.setup("classic", options=UNTIMED)
    disconnect(table, 3, T0 + 1)
    issued = first.due(T0 + 421)
    assert len(issued) == 1
    restarted = TurnClock()
    for event, at in table.log:
        restarted.fold(event, at)
    assert restarted.due(T0 + 421) == issued  # same command id: a duplicate for the processor
    assert restarted.due(T0 + 500) == []


def test_a_move_before_the_expiry_lands_gives_a_new_expiry_for_the_new_seq() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup("classic", options=UNTIMED)
    away = disconnect(table, 2, T0)
    [stale] = clock.due(T0 + 420)
    table.discard(T0 + 420.1)  # seat 0 moves while the expiry is on its way
    decision = decide(table.state, stale)
    assert isinstance(decision, E.Rejection) and decision.code == "stale_seq"
    [fresh] = clock.due(T0 + 420.2)
    assert fresh == expiry(table, 2, away.seq) and fresh.command_id != stale.command_id
    assert clock.due(T0 + 421) == []


def test_a_released_expiry_is_issued_again() -> None:
    clock = TurnClock()
    table = Table(clock)
    table.setup("classic", options=UNTIMED)
    disconnect(table, 2, T0)
    [command] = clock.due(T0 + 420)
    clock.release(command)
    assert clock.due(T0 + 420.5) == [command]
