"""Bounded memory of the processor (issue 13): command ids are kept for live tables and a
window of finished tables, the last `outcomes_per_table` of each, finished tables leave
memory, and a rebuild from the log ends with the same memory as the live run."""

from __future__ import annotations

import msgspec
import pytest

from okey101.app.processor.processing import Output, PartitionTables
from okey101.app.views.playerviews import PlayerViews
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from services.processor.app import decode_log

PROFILE = {"base": "north-sultan", "options": {"hands_per_match": 1}}
MATCHES = [play_match(PROFILE, s).commands for s in match_seeds(7, 3)]


def match(table: str, n: int = 0) -> list[E.Command]:
    return [msgspec.structs.replace(c, table_id=table, command_id=f"{table}-{i}")
            for i, c in enumerate(MATCHES[n % len(MATCHES)])]


class Log:
    """A partition's live run, with the events and outcomes it wrote, in order."""

    def __init__(self, **kw: int) -> None:
        self.tables = PartitionTables(0, 1, allow_stacked_deals=True, **kw)
        self.events: list[E.Event] = []
        self.outcomes: list[E.Outcome] = []
        self.offset = 0

    def send(self, command: E.Command) -> Output:
        out = self.tables.handle(command.table_id.encode(), E.encode(command), "commands",
                                 self.offset, lambda: "00" * 32, at=1_000 + self.offset)
        self.offset += 1
        self.events += out.events
        if out.outcome is not None:
            self.outcomes.append(out.outcome)
        return out

    def play(self, commands: list[E.Command]) -> None:
        for command in commands:
            out = self.send(command)
            assert out.outcome is not None and out.outcome.accepted, out.outcome


def memory(t: PartitionTables) -> tuple[object, ...]:
    return (t.tables, t.outcomes, list(t.finished.items()), list(t.strays.items()))


def test_after_n_finished_tables_only_the_window_remains() -> None:
    log = Log(finished_window=3)
    for i in range(8):
        log.play(match(f"t{i}", i))
    t = log.tables
    assert t.tables == {}
    assert list(t.finished) == ["t5", "t6", "t7"]
    assert set(t.outcomes) == {"t5", "t6", "t7"}
    assert t.command_ids() == sum(len(match(f"t{i}", i)) for i in (5, 6, 7))
    assert t.evicted == 5


def test_a_live_table_keeps_every_command_id_while_others_finish() -> None:
    log = Log(finished_window=1)
    half = match("live", 1)
    log.play(half[:20])
    for i in range(4):
        log.play(match(f"done{i}", i))
    assert set(log.tables.tables) == {"live"}
    assert set(log.tables.outcomes["live"]) == {c.command_id for c in half[:20]}
    log.play(half[20:])  # the live table goes on to its end
    assert log.tables.tables == {} and list(log.tables.finished) == ["live"]


def test_a_retry_inside_the_window_is_a_duplicate_with_its_first_outcome() -> None:
    log = Log(finished_window=2)
    commands = match("a")
    log.play(commands)
    log.play(match("b", 1))
    first = {o.command_id: o for o in log.outcomes}
    for command in (commands[0], commands[10], commands[-1]):
        out = log.send(command)
        assert out.events == [] and out.outcome is not None and out.outcome.duplicate
        assert msgspec.structs.replace(out.outcome, duplicate=False) == \
            first[command.command_id]


def test_a_new_command_for_a_finished_table_in_the_window_is_rejected_match_over() -> None:
    log = Log(finished_window=2)
    commands = match("a")
    log.play(commands)
    late = msgspec.structs.replace(commands[-1], command_id="late")
    out = log.send(late)
    assert out.outcome is not None and not out.outcome.accepted
    assert out.outcome.code == "match_over" and "'a'" in out.outcome.message
    again = log.send(late)  # and its retry is a duplicate of that answer
    assert again.outcome is not None and again.outcome.duplicate
    assert again.outcome.code == "match_over"


def test_a_command_for_a_table_that_left_the_window_is_unknown_and_changes_nothing() -> None:
    log = Log(finished_window=1)
    commands = match("a")
    log.play(commands)
    log.play(match("b", 1))
    assert "a" not in log.tables.outcomes and "a" not in log.tables.finished
    out = log.send(commands[-1])  # a retry from beyond the window
    assert out.events == [] and out.outcome is not None and not out.outcome.accepted
    assert out.outcome.code == "stale_seq"  # decided against a new table, at seq 0
    assert log.tables.tables == {}  # no table was opened again
    again = log.send(commands[-1])
    assert again.outcome is not None and again.outcome.duplicate  # kept among the strays


def test_the_strays_are_bounded_oldest_first() -> None:
    log = Log(stray_window=3)
    for i in range(5):
        out = log.send(E.Sit(table_id=f"nowhere{i}", command_id=f"s{i}", player_id="p",
                             seat=0, seq=0))
        assert out.outcome is not None and out.outcome.code == "unknown_table"
    assert [k for k, _ in log.tables.strays.items()] == \
        [("nowhere2", "s2"), ("nowhere3", "s3"), ("nowhere4", "s4")]


def test_a_rejection_before_a_table_exists_stays_a_duplicate_once_it_does() -> None:
    log = Log()
    commands = match("a")
    early = log.send(msgspec.structs.replace(commands[1], seq=0))  # before the create
    assert early.outcome is not None and early.outcome.code == "unknown_table"
    log.send(commands[0])
    again = log.send(msgspec.structs.replace(commands[1], seq=0))
    assert again.outcome is not None and again.outcome.duplicate
    assert again.outcome.code == "unknown_table" and again.events == []


def test_a_table_keeps_the_outcomes_of_its_last_command_ids_only() -> None:
    log = Log(outcomes_per_table=10)
    commands = match("a")
    log.play(commands[:30])
    assert list(log.tables.outcomes["a"]) == [c.command_id for c in commands[20:30]]
    log.play(commands[30:])  # and on to the end of its match: still the last 10
    assert list(log.tables.finished) == ["a"]
    assert list(log.tables.outcomes["a"]) == [c.command_id for c in commands[-10:]]


def test_a_retry_older_than_the_kept_ids_is_refused_stale_and_changes_nothing() -> None:
    log = Log(outcomes_per_table=5)
    commands = match("a")
    log.play(commands[:20])
    before = log.tables.tables["a"]
    kept = log.send(commands[17])  # among the last five: its first outcome again
    assert kept.outcome is not None and kept.outcome.duplicate and kept.outcome.accepted
    old = log.send(commands[3])  # no longer kept: decided again against seq 19
    assert old.outcome is not None and not old.outcome.duplicate
    assert not old.outcome.accepted and old.outcome.code == "stale_seq"
    assert old.events == [] and log.tables.tables["a"] == before
    again = log.send(commands[3])  # that answer is kept now, like any other
    assert again.outcome is not None and again.outcome.duplicate
    assert again.outcome.code == "stale_seq"


def test_a_finished_table_in_the_window_keeps_its_last_command_ids() -> None:
    log = Log(finished_window=2, outcomes_per_table=8)
    commands = match("a")
    log.play(commands)
    last = log.send(commands[-1])  # the command that ended the match, retried
    assert last.outcome is not None and last.outcome.duplicate and last.outcome.accepted
    first = log.send(commands[0])  # the create, long before: refused, nothing opened
    assert first.outcome is not None and not first.outcome.accepted
    assert first.outcome.code == "match_over" and log.tables.tables == {}


@pytest.mark.parametrize(("window", "kept"), [(1, 100), (2, 100), (5, 100), (2, 7)])
def test_a_rebuild_from_the_log_equals_the_live_memory(window: int, kept: int) -> None:
    log = Log(finished_window=window, stray_window=4, outcomes_per_table=kept)
    per_table = [match(f"t{i}", i) for i in range(6)]
    log.send(msgspec.structs.replace(per_table[5][1], command_id="early", seq=0))  # a stray
    for i in range(max(len(c) for c in per_table)):  # interleaved, as on a partition
        for n, commands in enumerate(per_table):
            if n == 4 and i >= 30:
                continue  # t4 stays live
            if i < len(commands):
                log.send(commands[i])
                if i % 7 == 0:
                    log.send(commands[i])  # a retry: a duplicate
        if i == 60:
            log.send(msgspec.structs.replace(per_table[0][-1], command_id="late"))
            log.send(E.Sit(table_id="ghost", command_id="g", player_id="p", seat=0))
    assert log.tables.tables.keys() == {"t4"} and log.tables.finished
    rebuilt = PartitionTables(0, 1, allow_stacked_deals=True, finished_window=window,
                              stray_window=4, outcomes_per_table=kept)
    rebuilt.restore(log.events, log.outcomes)
    assert memory(rebuilt) == memory(log.tables)


def test_an_undecodable_record_is_skipped_at_a_rebuild_not_fatal() -> None:
    event = E.encode(match("a")[0])  # a command where an event should be: wrong type
    good = E.encode(E.Outcome(table_id="a", command_id="c", accepted=True, seqs=[1]))
    records = [(0, b"a", good), (1, b"a", b"{not json"), (2, b"a", event), (3, b"a", None),
               (4, b"a", good)]
    decoded = decode_log(records, E.outcome_decoder, "okey.outcomes", 0)
    assert [o.command_id for o in decoded] == ["c", "c"]


# ---------------------------------------------------------------- the timers' clock
def _events_of(n: int) -> list[E.Event]:
    log = Log()
    for i in range(n):
        log.play(match(f"t{i}", i))
    return log.events


def test_the_clock_forgets_finished_tables_but_the_window_of_their_ids() -> None:
    from okey101.app.timers.deadlines import TurnClock
    events = _events_of(6)
    clock = TurnClock(finished_window=2)
    assert all(clock.fold(e, e.at / 1000) for e in events)
    assert clock.tracked == 0 and clock.finished == 2
    assert clock.queued <= 64  # stale deadlines of finished tables do not pile up
    last = [e for e in events if e.table_id == "t5"]
    assert not clock.fold(last[-1], last[-1].at / 1000)  # a re-read: ignored
    older = [e for e in events if e.table_id == "t0"]
    assert not clock.fold(older[-1], older[-1].at / 1000)  # past the window: a seq gap
    assert clock.tracked == 0 and clock.due(10**12) == []


def test_a_clock_rebuilt_from_the_log_issues_what_the_live_one_issues() -> None:
    from okey101.app.timers.deadlines import TurnClock
    log = Log(finished_window=1)
    for i in range(3):
        log.play(match(f"t{i}", i))
    log.play(match("live", 1)[:12])  # a table mid-hand: its turn is timed
    live, rebuilt = TurnClock(finished_window=1), TurnClock(finished_window=1)
    for e in log.events:
        live.fold(e, e.at / 1000)
    for e in log.events:
        rebuilt.fold(e, e.at / 1000)
    assert (live.tracked, live.finished) == (rebuilt.tracked, rebuilt.finished) == (1, 1)
    assert live.due(10**12) == rebuilt.due(10**12) != []


# ---------------------------------------------------------------- the bots' memory
def test_the_bots_act_once_per_seq_and_forget_a_finished_table() -> None:
    from okey101.bots.memory import ActedOn
    acted = ActedOn(max_tables=10, finished_window=2)
    assert acted.first("a", 0, 5) and not acted.first("a", 0, 5)
    assert not acted.first("a", 0, 4) and acted.first("a", 1, 5)
    assert acted.finish("a") and not acted.finish("a")
    assert acted.tables == 0 and not acted.first("a", 0, 9)  # a stale view: ignored
    for t in ("b", "c", "d"):
        acted.finish(t)
    assert acted.finished == 2 and not acted.is_finished("a")


def test_the_bots_keep_at_most_max_tables_the_least_recent_leaving() -> None:
    from okey101.bots.memory import ActedOn
    acted = ActedOn(max_tables=3)
    for t in ("a", "b", "c"):
        acted.first(t, 0, 1)
    acted.first("a", 0, 2)  # a is seen again: b is now the least recent
    acted.first("d", 0, 1)
    assert acted.tables == 3
    assert acted.first("b", 0, 1)  # b was forgotten: it may act again (a duplicate id)
    assert not acted.first("a", 0, 2)


def test_the_bots_service_forgets_a_table_whose_match_is_over() -> None:
    from services.bots.app import Bots
    log = Log()
    commands = match("a")
    commands[4] = msgspec.structs.replace(commands[4], bot=True, bot_level=3)  # seat 3: a bot
    service = Bots("unused:9092", level=3)
    projection = PlayerViews()
    seen = 0
    for command in commands:
        out = log.send(command)
        assert out.outcome is not None and out.outcome.accepted
        for update in projection.apply(out.events)[0]:
            service.respond(update)
        seen = max(seen, service.level3.remembered + service.acted.tables)
    assert seen >= 2  # it remembered the table while the match ran
    assert "a" not in log.tables.tables  # the match is over
    assert service.acted.tables == 0 and service.acted.is_finished("a")
    assert service.level3.remembered == 0


# ---------------------------------------------------------------- snapshots
def _snapshots_run(window: int, per_table: int = 100
                   ) -> tuple[Log, list[tuple[int, bytes, bytes | None]], int, int]:
    """A live run that takes a snapshot after every few hand ends; the snapshots log (as
    (offset, key, value)) and the offsets of the last cut."""
    log = Log(finished_window=window, stray_window=3, outcomes_per_table=per_table)
    per_table = [match(f"t{i}", i) for i in range(6)]
    records: list[tuple[int, bytes, bytes | None]] = []
    at = (0, 0)
    for i in range(max(len(c) for c in per_table)):
        for n, commands in enumerate(per_table):
            if n == 4 and i >= 30:
                continue
            if i < len(commands):
                log.send(commands[i])
        if i % 5 == 0:
            log.send(E.Sit(table_id=f"ghost{i}", command_id="g", player_id="p", seat=0))
        if log.tables.hands_ended and i < 55:  # the tail: the last commands
            at = (len(log.events), len(log.outcomes))
            for key, value in log.tables.snapshot(*at):
                records.append((len(records), key, value))
    return log, records, *at


@pytest.mark.parametrize(("window", "per_table"), [(1, 100), (3, 100), (3, 6)])
def test_a_rebuild_from_snapshots_and_the_tail_equals_the_full_log(window: int,
                                                                   per_table: int) -> None:
    from okey101.app.processor import snapshots as S
    log, records, events_at, outcomes_at = _snapshots_run(window, per_table)
    assert 0 < events_at < len(log.events) and 0 < outcomes_at < len(log.outcomes)
    cut, tables = S.latest(records, 0)
    assert (cut.events_offset, cut.outcomes_offset) == (events_at, outcomes_at)
    rebuilt = PartitionTables(0, 1, allow_stacked_deals=True, finished_window=window,
                              stray_window=3, outcomes_per_table=per_table)
    rebuilt.load(cut, tables)
    rebuilt.restore(log.events[events_at:], log.outcomes[outcomes_at:])
    full = PartitionTables(0, 1, allow_stacked_deals=True, finished_window=window,
                           stray_window=3, outcomes_per_table=per_table)
    full.restore(log.events, log.outcomes)
    assert memory(rebuilt) == memory(full) == memory(log.tables)


def test_a_snapshot_written_with_a_larger_bound_loads_each_tables_last_ids() -> None:
    from okey101.app.processor import snapshots as S
    log, records, events_at, outcomes_at = _snapshots_run(3, per_table=100)
    cut, tables = S.latest(records, 0)
    assert max(len(t.kept) for t in tables.values()) > 6
    rebuilt = PartitionTables(0, 1, allow_stacked_deals=True, finished_window=3,
                              stray_window=3, outcomes_per_table=6)
    rebuilt.load(cut, tables)
    rebuilt.restore(log.events[events_at:], log.outcomes[outcomes_at:])
    full = PartitionTables(0, 1, allow_stacked_deals=True, finished_window=3,
                           stray_window=3, outcomes_per_table=6)
    full.restore(log.events, log.outcomes)
    assert memory(rebuilt) == memory(full)


def test_a_snapshot_of_another_version_falls_back_to_the_full_log() -> None:
    from okey101.app.processor import snapshots as S
    _, records, _, _ = _snapshots_run(2)
    offset, key, value = records[-1]
    assert value is not None and key == b"~cut:0"
    newer = value.replace(b'"v":%d' % S.VERSION, b'"v":%d' % (S.VERSION + 1))
    with pytest.raises(S.Unusable, match=f"version v={S.VERSION + 1}"):
        S.latest([*records[:-1], (offset, key, newer)], 0)
    older = value.replace(b'"v":%d' % S.VERSION, b'"v":1')  # before `kept`: read it all
    with pytest.raises(S.Unusable, match="version v=1"):
        S.latest([*records[:-1], (offset, key, older)], 0)
    with pytest.raises(S.Unusable, match="undecodable"):
        S.latest([*records[:-1], (offset, key, b"{oops")], 0)
    with pytest.raises(S.Unusable, match="no snapshot cut"):
        S.latest(records, 1)
    with pytest.raises(S.Unusable, match="table records"):
        S.latest([r for r in records if r[1] != b"t4"], 0)


def test_the_stored_table_record_is_the_documented_table_snapshot_on_the_wire() -> None:
    from okey101.app.processor import snapshots as S
    _, records, _, _ = _snapshots_run(3)
    documented = msgspec.json.Decoder(S.Record)
    stored = [(k, v) for _, k, v in records if v is not None and not k.startswith(b"~cut")]
    assert stored
    for _, value in stored:  # what the processor writes reads as the published schema
        record = documented.decode(value)
        assert isinstance(record, S.TableSnapshot)
        assert msgspec.json.encode(record) == value
        assert record.outcomes == [] and record.kept
        assert all(isinstance(o, E.Outcome) or all(type(q) is int for q in o)
                   for o in record.kept.values())


def test_the_processors_memory_gives_the_cyclic_collector_nothing_to_walk() -> None:
    import gc
    log = Log()
    log.play(match("a")[:40])  # mid-hand: racks, melds, discards
    state = log.tables.tables["a"]
    assert state.hand is not None and state.hand.melds
    walked = [state, state.hand, *state.hand.seats, *state.hand.melds,
              *(m.meld for m in state.hand.melds), state.hand.scratch]
    assert not any(gc.is_tracked(o) for o in walked)
    kept = log.tables.outcomes["a"]
    assert kept and all(type(o) is bytes for o in kept.values())  # encoded, untracked


def test_without_snapshots_no_record_of_changed_tables_is_kept() -> None:
    log = Log(finished_window=1, snapshots=False)  # the processor's --snapshot-every 0
    for i in range(3):
        log.play(match(f"t{i}", i))
    assert log.tables.dirty == set()  # nothing would ever clear it
    with_cuts = Log(finished_window=1)
    with_cuts.play(match("t0"))
    assert with_cuts.tables.dirty == {"t0"}  # kept for the next cut


def test_a_plain_accepted_outcome_is_kept_as_its_seqs_and_answered_whole() -> None:
    log = Log()
    commands = match("a")[:30]
    log.play(commands)
    stale = msgspec.structs.replace(commands[-1], command_id="a-late", seq=0)
    rejected = log.send(stale).outcome
    assert rejected is not None and not rejected.accepted
    kept = log.tables.outcomes["a"]
    assert all(kept[c.command_id][:1] == b"[" for c in commands)  # seqs only
    assert kept["a-late"] == E.encode(rejected)  # anything else whole
    for original in [*log.outcomes[:30], rejected]:
        assert log.tables.outcome("a", original.command_id) == original


def test_a_cut_writes_a_plain_accepted_outcome_in_a_fifth_of_its_bytes() -> None:
    log = Log()
    log.play(match("a")[:60])  # mid-match
    ((key, value), _cut) = log.tables.snapshot(0, 0)
    assert key == b"a" and value is not None
    whole = sum(len(E.encode(o)) for o in log.outcomes)
    assert len(value) < len(E.encode(log.tables.tables["a"])) + whole / 5
