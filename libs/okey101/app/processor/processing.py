"""The rules processor's logic for one partition, without Kafka.

`PartitionTables` holds the live tables of one commands partition and the outcomes of the
commands that may still be retried. `handle` turns one consumed record into what must be
produced, in one transaction: events and the outcome, or a dead letter (only what must be
exactly once: every view is built outside it, by the views service).
`restore` rebuilds the same memory from the events and outcomes topics after a restart or
a rebalance.

Bounded memory (issue 13). What is kept, per partition:

- every live table (status seating or playing; a table that was never finished stays);
- the last `finished_window` finished tables (in the order their matches ended), each as
  its final seq, not its state;
- of each of those tables, live or finished, the outcomes of its last
  `outcomes_per_table` command ids (in the order they were decided);
- the last `stray_window` outcomes of commands for tables neither live nor in that window
  (rejections: an unknown table, say).

A retried command whose id is still kept is answered as a duplicate with its first outcome
(exactly once). A retried command whose id is no longer kept is decided again and changes
nothing: every command names the seq it was decided against and the engine refuses any
other (`stale_seq`), and an accepted command moved its table's seq on; so only its answer
differs from the first (a gateway retries within seconds, when its table is at most a few
commands further: the last 100 command ids cover that many times over). A new command for
a finished table in the window is rejected with `match_over`, naming the table and the seq
its match ended at, and that answer is kept like any other. Once a finished table has left
the window, nothing of it is kept: a command for it is decided against a new table, so the
engine refuses it (`stale_seq`, the table being at seq 0, or `unknown_table`) and changes
nothing; a retried id gets that answer, not its first one. The one command that would not
be refused there is a `create_table` of the same id, which would open a new table under a
reused id: table ids are minted fresh by the gateways, so only a create retried after more
than `finished_window` later matches of its partition had ended could do that. Which
tables and ids are kept depends only on the order of the log, so `restore` (which
interleaves the outcomes with the events they follow, exactly as they were produced) ends
with the same memory as the live run that wrote the log. `load` keeps a table record's last
`outcomes_per_table` outcomes, so a snapshot written with a larger bound serves too.

A command id reused (issue 41 item 8). With each kept id goes the digest of its command
(`Command.digest`, the gateway's hash of the client's table, seq and move): the same id with
the same digest is the retry above; with another digest it is refused `id_reused`, nothing
applied and nothing remembered (the first outcome stays the id's answer). The digest is in
the outcome as produced and in the snapshot (`digests`), so a rebuild from either refuses
the same commands as the live run, and every gateway (a second one, a restarted one) gets
the same answer. The bound is the outcomes' bound, and safe: an id reused past its table's last
`outcomes_per_table` ids is forgotten, so its command is decided on its own, as a new id's
would be (the harm a reused id does is a new command answered with another's outcome,
never applied; that cannot happen once the id is forgotten), and a retry of the old
command is refused `stale_seq` as above: nothing is applied twice or swallowed either
way. An id whose first command carried no digest (the server's own producers: the timers,
the bots, the matchmaker, whose retries may differ, a fresh bot id) is answered as a
duplicate, as before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable

import msgspec

from okey101.app import bounds, topics
from okey101.app.processor import snapshots as S
from okey101.table import messages as E
from okey101.table.decide import decide_and_fold
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState


class Output(msgspec.Struct):
    events: list[E.Event] = msgspec.field(default_factory=list)
    outcome: E.Outcome | None = None
    dead_letter: E.DeadLetter | None = None
    encoded_outcome: bytes = b""  # the outcome as produced (empty: encode `outcome`)
    command: E.Command | None = None
    state: TableState | None = None  # the table after the events (a finished one too)


_seqs = msgspec.json.Decoder(list[int])


def _accepted(table_id: str, command_id: str, seqs: list[int]) -> E.Outcome:
    """A plain accepted outcome: nothing but its seqs set (what a decision answers, and
    what a kept list of seqs stands for)."""
    return E.Outcome(table_id=table_id, command_id=command_id, accepted=True, seqs=seqs)


def _kept_form(outcome: E.Outcome, encoded: bytes) -> bytes:
    """How an outcome is kept for retries: a plain accepted one (most of them) as its
    seqs, a fifth of the bytes, else as produced."""
    plain = _accepted(outcome.table_id, outcome.command_id, outcome.seqs)
    return msgspec.json.encode(outcome.seqs) if outcome == plain else encoded


def _reused(command: E.Command, first: E.Outcome) -> E.Outcome:
    """The refusal of a command id kept for another command (its digest differs)."""
    was = "accepted" if first.accepted else f"rejected {first.code}"
    return E.Outcome(table_id=command.table_id, command_id=command.command_id,
                     accepted=False, code="id_reused", digest=command.digest,
                     message=f"command id {command.command_id!r} was used at table "
                     f"{command.table_id!r} for another command (digest {command.digest} "
                     f"is not its first's; the first was {was}): nothing was applied, send "
                     "a new command under a new id")


def is_reused(outcome: E.Outcome) -> bool:
    """An `id_reused` refusal: never kept, so a rebuild skips it as the live run did."""
    return not outcome.accepted and outcome.code == "id_reused"

DEAD_VALUE_BYTES = 64 * 1024  # of a dead record's value, kept in its dead letter


def dead_letter(reason: str, topic: str, partition: int, offset: int, key: bytes | None,
                value: bytes | None, kind: str, error: str = "",
                service: str = "") -> E.DeadLetter:
    """The dead letter of a record: where it came from, why, and (cut) what it held."""
    return E.DeadLetter(
        reason=reason, topic=topic, partition=partition, offset=offset,
        key=(key or b"")[:1024].decode("utf-8", "replace"),
        value=(value or b"")[:DEAD_VALUE_BYTES].decode("utf-8", "replace"),
        kind=kind, error=error, service=service)


FINISHED_WINDOW = 1000  # finished tables per partition whose command ids are kept
OUTCOMES_PER_TABLE = 100  # the last command ids of a table whose outcomes are kept
STRAY_WINDOW = 1000  # outcomes kept of commands for tables neither live nor in that window


class PartitionTables:
    def __init__(self, partition: int, partitions: int, allow_stacked_deals: bool = False,
                 finished_window: int = FINISHED_WINDOW, stray_window: int = STRAY_WINDOW,
                 outcomes_per_table: int = OUTCOMES_PER_TABLE, snapshots: bool = True
                 ) -> None:
        if finished_window < 1 or stray_window < 0 or outcomes_per_table < 1:
            raise ValueError(f"finished_window {finished_window} and outcomes_per_table "
                             f"{outcomes_per_table} must be >= 1, stray_window "
                             f"{stray_window} >= 0")
        self.partition = partition
        self.partitions = partitions
        self.allow_stacked_deals = allow_stacked_deals
        self.finished_window = finished_window
        self.stray_window = stray_window
        self.outcomes_per_table = outcomes_per_table
        self.tables: dict[str, TableState] = {}  # live tables only
        # the outcomes by table, then command id (oldest first, at most outcomes_per_table):
        # live tables and the finished window. Kept encoded (`_kept_form`): bytes are no
        # work for the cyclic garbage collector, and a cut writes them as they are
        self.outcomes: dict[str, dict[str, bytes]] = {}
        # the digests of those kept ids whose command carried one, by table then command id
        self.digests: dict[str, dict[str, str]] = {}
        self.finished: OrderedDict[str, int] = OrderedDict()  # table id: final seq, oldest first
        self.strays: OrderedDict[tuple[str, str], E.Outcome] = OrderedDict()
        self.evicted = 0  # finished tables that left the window (a counter, for metrics)
        self.unfoldable = 0  # events of the log skipped at a rebuild: they did not follow
        # snapshots: the tables changed since the last cut (none kept without snapshots,
        # where no cut would ever clear them), and hands ended since then
        self.snapshots = snapshots
        self.dirty: set[str] = set()
        self.hands_ended = 0

    # ------------------------------------------------------------ memory
    def outcome(self, table_id: str, command_id: str) -> E.Outcome | None:
        """The first outcome of a command id still kept, if any."""
        kept = self.outcomes.get(table_id)
        if kept is not None:
            found = kept.get(command_id)
            if found is not None:
                if found[:1] == b"[":  # a plain accepted one, kept as its seqs
                    return _accepted(table_id, command_id, _seqs.decode(found))
                return E.outcome_decoder.decode(found)
        return self.strays.get((table_id, command_id))

    def digest(self, table_id: str, command_id: str) -> str:
        """The digest of a kept command id's first command ("" if it had none)."""
        kept = self.digests.get(table_id)
        if kept is not None and command_id in kept:
            return kept[command_id]
        stray = self.strays.get((table_id, command_id))
        return stray.digest if stray is not None else ""

    def command_ids(self) -> int:
        """Command ids kept (live tables, the finished window and the strays)."""
        return sum(len(k) for k in self.outcomes.values()) + len(self.strays)

    def _remember(self, outcome: E.Outcome, encoded: bytes) -> None:
        """Keep a first outcome: with its table while the table is live or in the finished
        window (the table's oldest leaving past `outcomes_per_table`), else among the
        strays (the oldest leaving past `stray_window`)."""
        table_id = outcome.table_id
        if table_id in self.tables or table_id in self.finished:
            kept = self.outcomes.setdefault(table_id, {})
            if outcome.command_id not in kept:
                digest = outcome.digest
                if digest:  # kept beside it: a plain accepted outcome stays its seqs
                    outcome = msgspec.structs.replace(outcome, digest="")
                    encoded = E.encode(outcome)
                    self.digests.setdefault(table_id, {})[outcome.command_id] = digest
                kept[outcome.command_id] = _kept_form(outcome, encoded)
                if len(kept) > self.outcomes_per_table:
                    self._forget(table_id, next(iter(kept)))
            if self.snapshots:
                self.dirty.add(table_id)
            return
        key = (table_id, outcome.command_id)
        if key in self.strays or self.stray_window == 0:
            return
        self.strays[key] = outcome
        while len(self.strays) > self.stray_window:
            self.strays.popitem(last=False)

    def _forget(self, table_id: str, command_id: str) -> None:
        del self.outcomes[table_id][command_id]
        digests = self.digests.get(table_id)
        if digests is not None and digests.pop(command_id, None) is not None and not digests:
            del self.digests[table_id]

    def _set(self, table_id: str, after: TableState) -> None:
        """A table's new state: a finished match moves it into the finished window (its
        state dropped), and the oldest finished table beyond the window leaves memory."""
        if self.snapshots:
            self.dirty.add(table_id)
        if after.status != "over":
            self.tables[table_id] = after
            return
        self.tables.pop(table_id, None)
        self.finished[table_id] = after.seq
        while len(self.finished) > self.finished_window:
            gone, _ = self.finished.popitem(last=False)
            self.outcomes.pop(gone, None)
            self.digests.pop(gone, None)
            if self.snapshots:
                self.dirty.add(gone)
            self.evicted += 1

    # ------------------------------------------------------------ snapshots
    def snapshot(self, events_offset: int, outcomes_offset: int
                 ) -> list[tuple[bytes, bytes | None]]:
        """The snapshot records (key, value; None a tombstone) of every table changed since
        the last cut, then the cut at these offsets (`okey101.app.processor.snapshots`)."""
        out: list[tuple[bytes, bytes | None]] = []
        for table_id in sorted(self.dirty):
            state = self.tables.get(table_id)
            final = self.finished.get(table_id)
            if state is None and final is None:
                out.append((table_id.encode(), None))
                continue
            kept = {c: msgspec.Raw(o) for c, o in self.outcomes.get(table_id, {}).items()}
            record = S.StoredTable(table_id=table_id, state=state, final_seq=final or 0,
                                   kept=kept, digests=self.digests.get(table_id, {}))
            out.append((table_id.encode(), msgspec.json.encode(record)))
        cut = S.Cut(partition=self.partition, events_offset=events_offset,
                    outcomes_offset=outcomes_offset, finished=list(self.finished),
                    strays=list(self.strays.values()),
                    tables=len(self.tables) + len(self.finished))
        out.append((S.cut_key(self.partition).encode(), msgspec.json.encode(cut)))
        self.dirty.clear()
        self.hands_ended = 0
        return out

    def load(self, cut: S.Cut, tables: dict[str, S.StoredTable]) -> None:
        """The memory at a cut as `snapshots.latest` gives it (and checks: every finished
        table of the cut has its record); the tail is `restore`d after it."""
        for record in tables.values():
            if record.state is not None:
                self.tables[record.table_id] = record.state
            kept = list(record.kept.items())[-self.outcomes_per_table:]  # a larger bound
            self.outcomes[record.table_id] = {c: bytes(o) for c, o in kept}
            digests = {c: record.digests[c] for c, _ in kept if record.digests.get(c)}
            if digests:  # a version 2 record has none: its ids are answered as duplicates
                self.digests[record.table_id] = digests
        for table_id in cut.finished:
            self.finished[table_id] = tables[table_id].final_seq
        for outcome in cut.strays:
            self.strays[(outcome.table_id, outcome.command_id)] = outcome
        for table_id in [t for t, kept in self.outcomes.items() if not kept]:
            del self.outcomes[table_id]

    # ------------------------------------------------------------ recovery
    def restore(self, events: Iterable[E.Event], outcomes: Iterable[E.Outcome]) -> None:
        """Rebuild from a partition's events and outcomes logs (each in log order). The
        outcomes are interleaved with the events as they were written (a command's events,
        then its outcome, in one transaction), so every outcome is kept or dropped against
        the tables as they were when it was decided: the memory equals the live run's."""
        pending = iter(events)
        for outcome in outcomes:
            if outcome.duplicate or is_reused(outcome):
                continue
            if outcome.accepted and outcome.seqs:
                last = outcome.seqs[-1]
                for event in pending:
                    self.restore_event(event)
                    if event.table_id == outcome.table_id and event.seq >= last:
                        break
            self._remember(outcome, E.encode(outcome))
        for event in pending:
            self.restore_event(event)

    def restore_event(self, event: E.Event) -> None:
        if event.table_id in self.finished:
            return  # its match is over: nothing follows (a re-read)
        state = self.tables.get(event.table_id, NEW_TABLE)
        if event.seq <= state.seq:
            return  # already folded (a snapshot or a re-read)
        try:
            after = evolve(state, event)
        except Exception:  # a foreign event that does not follow: never written by us
            self.unfoldable += 1
            return
        self._set(event.table_id, after)

    # ------------------------------------------------------------ processing
    def handle(self, key: bytes | None, value: bytes | None, topic: str, offset: int,
               entropy: Callable[[], str], at: int = 0) -> Output:
        """One command record. `at` (ms since the epoch, the record's timestamp) becomes
        the command's time and so every event's: the core reads no clock."""
        def dead(reason: str, kind: str, error: str = "") -> Output:
            return Output(dead_letter=dead_letter(
                reason, topic, self.partition, offset, key, value, kind, error, "processor"))

        if value is None:
            return dead("empty value", "empty")
        try:
            bounds.check(value, bounds.COMMANDS)
            command = E.command_decoder.decode(value)
            bounds.check_integers(command)
        except Exception as exc:  # any record a decoder cannot take is a dead letter
            return dead(f"undecodable command: {bounds.describe(exc)}", bounds.kind_of(exc),
                        type(exc).__name__)
        if command.v != E.VERSION:
            return dead(f"contract version v={command.v}: this processor speaks "
                        f"v={E.VERSION} (proto/VERSIONING.md)", "invalid")
        if key is None or key.decode("utf-8", "replace") != command.table_id:
            return dead(f"record key {key!r:.100} is not the command's table_id "
                        f"{command.table_id!r}", "wrong_key")
        expected = topics.partition_for(key, self.partitions)
        if expected != self.partition:
            return dead(f"table {command.table_id!r} belongs on partition {expected}, "
                        f"not {self.partition}: produce with the murmur2 partitioner",
                        "wrong_key")
        try:
            return self._apply(command, entropy, at)
        except Exception as exc:  # the partition goes on past any record
            return dead(f"command could not be applied: {bounds.describe(exc)}", "failed",
                        type(exc).__name__)

    def _apply(self, command: E.Command, entropy: Callable[[], str], at: int) -> Output:
        seen = self.outcome(command.table_id, command.command_id)
        if seen is not None:
            first = self.digest(command.table_id, command.command_id)
            if command.digest and first and command.digest != first:
                refused = _reused(command, seen)
                return Output(outcome=refused, command=command,
                              encoded_outcome=E.encode(refused))
            return Output(outcome=msgspec.structs.replace(seen, duplicate=True, digest=""),
                          command=command)
        final = self.finished.get(command.table_id)
        if final is not None:
            return self._record(command, E.Rejection(
                code="match_over", message=f"table {command.table_id!r} is over: its match "
                f"ended at seq {final}"), NEW_TABLE)
        prepared = self._prepare(msgspec.structs.replace(command, at=at), entropy)
        if isinstance(prepared, E.Rejection):
            return self._record(command, prepared, NEW_TABLE)
        state = self.tables.get(command.table_id, NEW_TABLE)
        after, decision = decide_and_fold(state, prepared)
        return self._record(prepared, decision, after)

    def _prepare(self, command: E.Command, entropy: Callable[[], str]
                 ) -> E.Command | E.Rejection:
        """The server's part of a command: the deal's entropy, never a client's. The match
        seed derives every hand's seed (deal version 1) or the server's share of every hand
        (version 2, proto/DEAL.md); clients add theirs only with `commit_seed` and
        `reveal_seed`, after the server has committed to its share."""
        if not isinstance(command, E.StartMatch):
            return command
        if command.deals is not None or command.seed:
            if self.allow_stacked_deals:
                return command
            return E.Rejection(code="seed_forbidden", message="start_match: the server "
                               "chooses the deal; a client sends neither seed nor deals")
        return msgspec.structs.replace(command, seed=entropy())

    def _record(self, command: E.Command, decision: list[E.Event] | E.Rejection,
                after: TableState) -> Output:
        if isinstance(decision, E.Rejection):
            outcome = E.Outcome(table_id=command.table_id, command_id=command.command_id,
                                accepted=False, code=decision.code, message=decision.message,
                                digest=command.digest)
            encoded = E.encode(outcome)
            self._remember(outcome, encoded)
            return Output(outcome=outcome, command=command, encoded_outcome=encoded)
        outcome = _accepted(command.table_id, command.command_id, [e.seq for e in decision])
        if command.digest:
            outcome = msgspec.structs.replace(outcome, digest=command.digest)
        if decision:
            self._set(command.table_id, after)
            self.hands_ended += sum(isinstance(e, E.HandEnded) for e in decision)
        encoded = E.encode(outcome)
        self._remember(outcome, encoded)
        return Output(events=decision, outcome=outcome, command=command, state=after,
                      encoded_outcome=encoded)

    def active_tables(self) -> int:
        return sum(1 for s in self.tables.values() if s.status in ("seating", "playing"))
