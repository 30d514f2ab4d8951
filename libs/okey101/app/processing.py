"""The rules processor's logic for one partition, without Kafka.

`PartitionTables` holds the tables of one commands partition and the outcome of every
command seen there. `handle` turns one consumed record into what must be produced, in one
transaction: events, the outcome, per-seat views, or a dead letter. `restore_*` rebuild
the same memory from the events and outcomes topics after a restart or a rebalance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import msgspec

from okey101.app import topics
from okey101.table import messages as E
from okey101.table.decide import decide_and_fold
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.table.views import PlayerUpdate, ViewUpdate, event_for, player_updates, view_updates
from okey101.terms import SEATS


class Output(msgspec.Struct):
    events: list[E.Event] = msgspec.field(default_factory=list)
    outcome: E.Outcome | None = None
    views: list[E.SeatEvent] = msgspec.field(default_factory=list)
    seat_views: list[ViewUpdate] = msgspec.field(default_factory=list)
    dead_letter: E.DeadLetter | None = None
    command: E.Command | None = None


class Changed:
    """The tables one transaction changed, each with its version before the transaction and
    the events since: what `PartitionTables.player_updates` publishes once per table, so a
    batch of many commands at a table costs one view per seat, not one per command."""

    def __init__(self) -> None:
        self.tables: dict[str, tuple[int, list[E.Event]]] = {}

    def note(self, out: Output) -> None:
        if not out.events:
            return
        first = out.events[0]
        entry = self.tables.get(first.table_id)
        if entry is None:
            entry = self.tables[first.table_id] = (first.seq - 1, [])
        entry[1].extend(out.events)


class PartitionTables:
    def __init__(self, partition: int, partitions: int, allow_stacked_deals: bool = False
                 ) -> None:
        self.partition = partition
        self.partitions = partitions
        self.allow_stacked_deals = allow_stacked_deals
        self.tables: dict[str, TableState] = {}
        self.outcomes: dict[tuple[str, str], E.Outcome] = {}

    # ------------------------------------------------------------ recovery
    def restore_event(self, event: E.Event) -> None:
        state = self.tables.get(event.table_id, NEW_TABLE)
        if event.seq <= state.seq:
            return  # already folded (a snapshot or a re-read)
        self.tables[event.table_id] = evolve(state, event)

    def restore_outcome(self, outcome: E.Outcome) -> None:
        if not outcome.duplicate:
            self.outcomes.setdefault((outcome.table_id, outcome.command_id), outcome)

    # ------------------------------------------------------------ processing
    def handle(self, key: bytes | None, value: bytes | None, topic: str, offset: int,
               entropy: Callable[[], str], at: int = 0) -> Output:
        """One command record. `at` (ms since the epoch, the record's timestamp) becomes
        the command's time and so every event's: the core reads no clock."""
        def dead(reason: str) -> Output:
            return Output(dead_letter=E.DeadLetter(
                reason=reason, topic=topic, partition=self.partition, offset=offset,
                key=(key or b"").decode("utf-8", "replace"),
                value=(value or b"").decode("utf-8", "replace")))

        if value is None:
            return dead("empty value")
        try:
            command = E.command_decoder.decode(value)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return dead(f"undecodable command: {exc}")
        if command.v != E.VERSION:
            return dead(f"contract version v={command.v}: this processor speaks "
                        f"v={E.VERSION} (proto/VERSIONING.md)")
        if key is None or key.decode("utf-8", "replace") != command.table_id:
            return dead(f"record key {key!r} is not the command's table_id "
                        f"{command.table_id!r}")
        expected = topics.partition_for(key, self.partitions)
        if expected != self.partition:
            return dead(f"table {command.table_id!r} belongs on partition {expected}, "
                        f"not {self.partition}: produce with the murmur2 partitioner")
        seen = self.outcomes.get((command.table_id, command.command_id))
        if seen is not None:
            return Output(outcome=msgspec.structs.replace(seen, duplicate=True),
                          command=command)
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
        key = (command.table_id, command.command_id)
        if isinstance(decision, E.Rejection):
            outcome = E.Outcome(table_id=command.table_id, command_id=command.command_id,
                                accepted=False, code=decision.code, message=decision.message)
            self.outcomes[key] = outcome
            return Output(outcome=outcome, command=command)
        views = []
        for event in decision:
            for seat in range(SEATS):
                seen = event_for(event, seat)
                if seen is not None:
                    views.append(E.SeatEvent(table_id=command.table_id, seat=seat,
                                             event=cast(E.AnyEvent, seen)))
        self.tables[command.table_id] = after
        outcome = E.Outcome(table_id=command.table_id, command_id=command.command_id,
                            accepted=True, seqs=[e.seq for e in decision])
        self.outcomes[key] = outcome
        return Output(events=decision, outcome=outcome, views=views, command=command,
                      seat_views=view_updates(after))

    def player_updates(self, changed: Changed) -> list[PlayerUpdate]:
        """The last view of every human seat and of the spectators at each changed table."""
        out: list[PlayerUpdate] = []
        for table_id, (previous, events) in changed.tables.items():
            out += player_updates(self.tables[table_id], previous, events)
        return out

    def active_tables(self) -> int:
        return sum(1 for s in self.tables.values() if s.status in ("seating", "playing"))
