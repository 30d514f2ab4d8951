"""A command id reused (issue 41 item 8): the processor keeps, with each command id it keeps,
the digest of its command, so the same id with the same command is a retry (the first
outcome, nothing applied twice) and with another command is refused `id_reused`; live, after
a rebuild from the log, and after a snapshot and its restore, alike."""

from __future__ import annotations

import hashlib

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101.app.gateway import websocket as W
from okey101.app.processor import snapshots as S
from okey101.app.processor.processing import PartitionTables
from okey101.table import messages as E
from tests.unit.test_bounded_memory import Log, match


def _digest(command: E.Command) -> str:
    """A digest as a gateway would stamp it: of the command's content (a test's stand-in
    for `command_digest` of the client's frame)."""
    body = msgspec.json.encode(msgspec.structs.replace(command, digest=""), order="sorted")
    return hashlib.blake2b(body, digest_size=16).hexdigest()


def stamped(table: str, n: int = 0) -> list[E.Command]:
    """A match whose commands carry digests, as a gateway's do."""
    return [msgspec.structs.replace(c, digest=_digest(c)) for c in match(table, n)]


def other(command: E.Command) -> E.Command:
    """Another command under the same id: another seq (its digest differs)."""
    changed = msgspec.structs.replace(command, seq=command.seq + 1, digest="")
    return msgspec.structs.replace(changed, digest=_digest(changed))


def memory(t: PartitionTables) -> tuple[object, ...]:
    return (t.tables, t.outcomes, t.digests, list(t.finished.items()),
            list(t.strays.items()))


def test_the_same_id_with_the_same_command_is_a_duplicate_with_its_first_outcome() -> None:
    log = Log()
    commands = stamped("a")[:20]
    log.play(commands)
    before = log.tables.tables["a"]
    again = log.send(commands[5]).outcome
    assert again is not None and again.duplicate and again.accepted
    assert again.seqs == log.outcomes[5].seqs
    assert log.tables.tables["a"] == before  # nothing applied twice


def test_the_same_id_with_another_command_is_refused_id_reused_and_changes_nothing() -> None:
    log = Log()
    commands = stamped("a")[:20]
    log.play(commands)
    before = (log.tables.tables["a"], log.tables.outcomes["a"].copy())
    out = log.send(other(commands[-1]))
    assert out.outcome is not None and not out.outcome.accepted and not out.events
    assert out.outcome.code == "id_reused" and not out.outcome.duplicate
    assert repr(commands[-1].command_id) in out.outcome.message
    assert (log.tables.tables["a"], log.tables.outcomes["a"]) == before
    retry = log.send(commands[-1]).outcome  # the first command, again: still its answer
    assert retry is not None and retry.duplicate and retry.seqs == log.outcomes[19].seqs


def test_a_rejected_first_command_still_holds_its_id() -> None:
    log = Log()
    commands = stamped("a")[:10]
    log.play(commands)
    stale = msgspec.structs.replace(commands[-1], command_id="late", seq=1, digest="")
    stale = msgspec.structs.replace(stale, digest=_digest(stale))
    first = log.send(stale).outcome
    assert first is not None and first.code == "stale_seq"
    out = log.send(other(stale)).outcome
    assert out is not None and out.code == "id_reused"


def test_an_id_whose_first_command_had_no_digest_is_answered_as_a_duplicate() -> None:
    """The server's own producers stamp none (a bots service re-filling a seat mints a
    fresh bot id): their retries stay duplicates, as before."""
    log = Log()
    commands = match("a")[:10]
    log.play(commands)
    out = log.send(other(commands[-1])).outcome
    assert out is not None and out.duplicate and out.accepted


def test_a_stray_keeps_its_digest_too() -> None:
    log = Log()
    sit = E.Sit(table_id="ghost", command_id="g", player_id="p", seat=0, seq=0)
    sit = msgspec.structs.replace(sit, digest=_digest(sit))
    assert log.send(sit).outcome is not None
    assert log.send(sit).outcome.duplicate  # type: ignore[union-attr]
    out = log.send(other(sit)).outcome
    assert out is not None and out.code == "id_reused"


def _run() -> Log:
    log = Log(finished_window=2, stray_window=3, outcomes_per_table=40)
    tables = [stamped(f"t{i}", i) for i in range(3)]
    for i in range(max(len(c) for c in tables)):
        for n, commands in enumerate(tables):
            if n == 2 and i >= 30:
                continue  # t2 stays live
            if i < len(commands):
                log.send(commands[i])
                if i % 9 == 0:
                    log.send(commands[i])  # a retry
                if i % 11 == 0:
                    log.send(other(commands[i]))  # a reuse, refused
    return log


def test_a_rebuild_from_the_log_refuses_the_reused_ids_the_live_run_refuses() -> None:
    log = _run()
    assert any(o.code == "id_reused" for o in log.outcomes)
    rebuilt = PartitionTables(0, 1, allow_stacked_deals=True, finished_window=2,
                              stray_window=3, outcomes_per_table=40)
    rebuilt.restore(log.events, log.outcomes)
    assert memory(rebuilt) == memory(log.tables) and rebuilt.digests["t2"]
    live_command = stamped("t2", 2)[25]
    assert rebuilt.handle(b"t2", E.encode(other(live_command)), "c", 0, lambda: "",
                          ).outcome.code == "id_reused"  # type: ignore[union-attr]


def _snapshot_of(log: Log) -> tuple[S.Cut, dict[str, S.StoredTable]]:
    records = [(i, k, v) for i, (k, v) in enumerate(log.tables.snapshot(0, 0))]
    return S.latest(records, 0)


def test_after_a_snapshot_and_its_restore_a_reused_id_is_refused_and_a_retry_is_not() -> None:
    log = Log()
    commands = stamped("a")[:20]
    log.play(commands)
    cut, tables = _snapshot_of(log)
    assert tables["a"].digests[commands[3].command_id] == commands[3].digest
    restored = PartitionTables(0, 1, allow_stacked_deals=True)
    restored.load(cut, tables)
    assert memory(restored) == memory(log.tables)

    def send(command: E.Command) -> E.Outcome:
        out = restored.handle(b"a", E.encode(command), "c", 99, lambda: "00" * 32, at=5)
        assert out.outcome is not None
        return out.outcome

    assert send(other(commands[3])).code == "id_reused"
    retry = send(commands[3])
    assert retry.duplicate and retry.seqs == log.outcomes[3].seqs


def test_a_version_2_snapshot_without_digests_still_loads_its_ids_as_duplicates() -> None:
    log = Log()
    commands = stamped("a")[:20]
    log.play(commands)
    records = []
    for i, (key, value) in enumerate(log.tables.snapshot(0, 0)):
        assert value is not None
        held = msgspec.json.decode(value)
        held["v"] = 2
        held.pop("digests", None)  # what a version 2 processor wrote
        records.append((i, key, msgspec.json.encode(held)))
    cut, tables = S.latest(records, 0)
    restored = PartitionTables(0, 1, allow_stacked_deals=True)
    restored.load(cut, tables)
    assert restored.outcomes == log.tables.outcomes and restored.digests == {}
    out = restored.handle(b"a", E.encode(other(commands[3])), "c", 99, lambda: "", at=5)
    assert out.outcome is not None and out.outcome.duplicate


def test_a_table_forgets_the_digests_of_the_ids_it_forgets() -> None:
    log = Log(outcomes_per_table=5)
    commands = stamped("a")[:20]
    log.play(commands)
    assert list(log.tables.digests["a"]) == list(log.tables.outcomes["a"])
    assert len(log.tables.digests["a"]) == 5


def test_the_gateway_stamps_the_clients_digest_on_the_command() -> None:
    message = W.client_decoder.decode(b'{"type":"command","id":"c1","table_id":"t",'
                                      b'"command":{"type":"discard","tile":"R5"}}')
    assert isinstance(message, W.SendCommand)
    digest = W.command_digest(message)
    command = W.to_command(message.command, table_id="t", command_id="ayse/c1",
                           player_id="ayse", seat=2, seq=9, digest=digest)
    assert command.digest == digest.hex() and len(command.digest) == 32


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 59), st.sampled_from(["same", "other"])),
                max_size=30))
def test_replay_refuses_and_answers_as_the_live_run_did(
        resends: list[tuple[int, str]]) -> None:
    """Any retries and reuses among a match's commands: a rebuild from what the live run
    wrote ends with its memory, and answers every one of those ids as it did."""
    commands = stamped("a")[:60]
    log = Log()
    for i, command in enumerate(commands):
        log.send(command)
        for at, how in resends:
            if at == i:
                log.send(command if how == "same" else other(command))
    rebuilt = PartitionTables(0, 1, allow_stacked_deals=True)
    rebuilt.restore(log.events, log.outcomes)
    assert memory(rebuilt) == memory(log.tables)
    for at, how in resends:
        probe = commands[at] if how == "same" else other(commands[at])
        live = log.tables.handle(b"a", E.encode(probe), "c", 0, lambda: "", at=1)
        again = rebuilt.handle(b"a", E.encode(probe), "c", 0, lambda: "", at=1)
        assert live.outcome == again.outcome
