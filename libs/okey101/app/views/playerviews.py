"""Every view of a table, projected from the events log. Pure (no I/O, no clock).

The rules processor publishes events; this projection folds them per table (`evolve`, as a
replay does) and, for each batch of events, publishes one `PlayerUpdate` per changed table
and seat: the spectators' and every seated seat's whole view, a bot's included (with the
server's record of the bot beside the view, `PlayerUpdate.bot_level`), with the events
since the previous update. Gateways serve these to people and the bots service plays from
them: one projection, outside the processor's transaction (services/views).

A change rebuilds only what it touched (`table.viewparts.TableParts`): the views are built
by the one builder (`table.views.player_views`) from parts kept encoded (`msgspec.Raw`) per table
between batches and keyed by the state they show: a meld's notation by its `TableMeld`, a
seat's public view by its `SeatHand` and thresholds, the turn by its scratch, a rack by its
tiles, the match by its profile and scores; the public table is encoded once for every
seat, the seat rules only for the seats that have any (the seat to act, or those a seeding
window awaits), and each event once however many seats see it. The bytes are those of
encoding `table.views.player_updates` (tests/unit/test_viewparts.py).

The turn's deadline (`PlayerView.turn_by`) is the time (`at`) of the event that moved the
table's turn on, plus the house's turn time: the projection keeps that time per table.

An update's `version` is the table seq it shows and `previous` the seq before the batch's
first event of that table, so updates published again after a restart (at least once) carry
versions a reader already holds and are ignored. A finished match leaves memory once its
last update is out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.rules import is_new_turn
from okey101.table.state import TableState
from okey101.table.viewparts import KEYFRAME, Published, TableParts, table_parts
from okey101.table.viewpatch import ViewFollower, decode_update
from okey101.table.views import PlayerUpdate

__all__ = ["KEYFRAME", "PlayerViews", "Published", "TableParts"]


class PlayerViews:
    """The live tables of some events partitions, folded from their events."""

    def __init__(self, seats: Callable[[TableState], list[int]] | None = None,
                 parts: Callable[[], TableParts] = table_parts) -> None:
        """`seats`: the seats a change publishes updates for (by default the spectators' and
        every seat's, `table.views.update_seats`); `parts`: a table's (by default the
        compiled core's where it is built: `table.viewparts.table_parts`)."""
        self.seats = seats
        self.new_parts = parts
        self.tables: dict[str, TableState] = {}
        self.parts: dict[str, TableParts] = {}
        self.turn_started: dict[str, int] = {}  # the `at` of the event that started a turn
        self.follower = ViewFollower()  # `apply`'s reader

    def _started(self, before: TableState, after: TableState, event: E.Event) -> None:
        if is_new_turn(before, after):
            self.turn_started[event.table_id] = event.at

    def _drop(self, table_id: str) -> None:
        self.tables.pop(table_id, None)
        self.parts.pop(table_id, None)
        self.turn_started.pop(table_id, None)

    def fold(self, event: E.Event) -> None:
        """One event into its table, publishing nothing (a rebuild). Raises `IllegalMove`
        for an event that does not follow its table (a gap or a repeat in the log)."""
        before = self.tables.get(event.table_id, NEW_TABLE)
        after = evolve(before, event)
        if after.status == "over":
            self._drop(event.table_id)
        else:
            self.tables[event.table_id] = after
            self._started(before, after, event)

    def publish(self, events: Iterable[E.Event]) -> tuple[list[Published], list[str]]:
        """Fold a batch of events: the updates to publish, encoded (one per changed table
        and seat, in the order the tables first changed; a table's views are built once
        per batch, however many events) and, described, the events skipped because they
        do not follow their table (a gap or a repeat in the log) or cannot be folded at
        all."""
        published, skipped = self.publish_each(events)
        return published, [text for _, text, _ in skipped]

    def publish_each(self, events: Iterable[E.Event]
                     ) -> tuple[list[Published], list[tuple[int, str, Exception]]]:
        """`publish`, each skipped event named by its place in `events`, with the exception
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
            self._started(state, after, event)
            if entry is None:
                changed[event.table_id] = (state.seq, [event], after, i)
            else:
                entry[1].append(event)
                changed[event.table_id] = (entry[0], entry[1], after, i)
        out: list[Published] = []
        for table_id, (previous, batch, after, last) in changed.items():
            parts = self.parts.get(table_id)
            if parts is None:
                parts = self.parts[table_id] = self.new_parts()
            try:
                out += parts.updates(after, previous, batch, self.turn_started.get(table_id),
                                     self.seats(after) if self.seats is not None else None)
            except Exception as exc:  # its views cannot be built: not kept
                self.parts.pop(table_id, None)  # its parts may be half-built
                skipped.append((last, f"the views of table {table_id!r}: {exc}", exc))
                continue
            if after.status == "over":
                self._drop(table_id)
            else:
                self.tables[table_id] = after
        return out, skipped

    def apply(self, events: Iterable[E.Event]) -> tuple[list[PlayerUpdate], list[str]]:
        """`publish`, the updates decoded and whole (each patch applied to the seat's view
        before it, as a reader does: `table.viewpatch.ViewFollower`)."""
        published, skipped = self.publish(events)
        out = []
        for p in published:
            whole = self.follower.follow(decode_update(p.value))
            assert whole is not None, f"{p.key!r} {p.version}: no whole view to follow"
            out.append(whole)
        return out, skipped

    def forget(self, is_theirs: Callable[[str], bool]) -> None:
        """Drop the tables for which `is_theirs(table_id)` is true (a revoked partition)."""
        for table_id in [t for t in self.tables if is_theirs(t)]:
            self._drop(table_id)
