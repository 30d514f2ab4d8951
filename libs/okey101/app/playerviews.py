"""The player views gateways serve, projected from the events log. Pure (no I/O, no clock).

The rules processor publishes events; this projection folds them per table (`evolve`, as a
replay does) and, for each batch of events, publishes one `PlayerUpdate` per changed table
and seat: the spectators' and every human seat's whole view with the events since the
previous update. Building views is most of the cost of a decision, so it runs outside the
processor's transaction, in its own service (services/views).

An update's `version` is the table seq it shows and `previous` the seq before the batch's
first event of that table, so updates published again after a restart (at least once) carry
versions a reader already holds and are ignored. A finished match leaves memory once its
last update is out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.table.views import PlayerUpdate, player_updates


class PlayerViews:
    """The live tables of some events partitions, folded from their events."""

    def __init__(self) -> None:
        self.tables: dict[str, TableState] = {}

    def fold(self, event: E.Event) -> None:
        """One event into its table, publishing nothing (a rebuild). Raises `IllegalMove`
        for an event that does not follow its table (a gap or a repeat in the log)."""
        after = evolve(self.tables.get(event.table_id, NEW_TABLE), event)
        if after.status == "over":
            self.tables.pop(event.table_id, None)
        else:
            self.tables[event.table_id] = after

    def apply(self, events: Iterable[E.Event]) -> tuple[list[PlayerUpdate], list[str]]:
        """Fold a batch of events: the updates to publish (one per changed table and
        seat, in the order the tables first changed; a table's views are built once per
        batch, however many events) and, described, the events skipped because they do not
        follow their table (a gap or a repeat in the log) or cannot be folded at all."""
        updates, skipped = self.apply_each(events)
        return updates, [text for _, text, _ in skipped]

    def apply_each(self, events: Iterable[E.Event]
                   ) -> tuple[list[PlayerUpdate], list[tuple[int, str, Exception]]]:
        """`apply`, each skipped event named by its place in `events`, with the exception
        it raised (any exception: a table's state is never left half-folded)."""
        changed: dict[str, tuple[int, list[E.Event], TableState, int]] = {}
        skipped: list[tuple[int, str, Exception]] = []
        for i, event in enumerate(events):
            entry = changed.get(event.table_id)
            state = entry[2] if entry else self.tables.get(event.table_id, NEW_TABLE)
            try:
                after = evolve(state, event)
            except Exception as exc:  # IllegalMove, or a foreign event
                skipped.append((i, f"{type(event).__struct_config__.tag} of table "
                                f"{event.table_id!r}: {exc}", exc))
                continue
            if entry is None:
                changed[event.table_id] = (state.seq, [event], after, i)
            else:
                entry[1].append(event)
                changed[event.table_id] = (entry[0], entry[1], after, i)
        out: list[PlayerUpdate] = []
        for table_id, (previous, batch, after, last) in changed.items():
            try:
                out += player_updates(after, previous, batch)
            except Exception as exc:  # its views cannot be built: not kept
                skipped.append((last, f"the views of table {table_id!r}: {exc}", exc))
                continue
            if after.status == "over":
                self.tables.pop(table_id, None)
            else:
                self.tables[table_id] = after
        return out, skipped

    def forget(self, is_theirs: Callable[[str], bool]) -> None:
        """Drop the tables for which `is_theirs(table_id)` is true (a revoked partition)."""
        for table_id in [t for t in self.tables if is_theirs(t)]:
            del self.tables[table_id]
