"""What the bots service remembers per table, bounded (issue 13).

`ActedOn` keeps, per live table, the seq each of its seats (and the seat filler, seat -1)
last acted on, so a view seen again does not make a second command. A table leaves it when
a view shows its match over (`finish`); its id is then remembered, for the last
`finished_window` finished tables, so a stale view of it read later (a re-read after a
rebalance) is ignored. As a backstop for tables that never show an end to this service (a
table whose bot was replaced, a fill that was refused), at most `max_tables` tables are
kept, the least recently seen leaving first: acting again on a view of such a table sends
the same command id (table, seat, seq), which the processor answers as a duplicate.
"""

from __future__ import annotations

from collections import OrderedDict

MAX_TABLES = 100_000
FINISHED_WINDOW = 10_000


class ActedOn:
    def __init__(self, max_tables: int = MAX_TABLES,
                 finished_window: int = FINISHED_WINDOW) -> None:
        if max_tables < 1 or finished_window < 0:
            raise ValueError(f"max_tables {max_tables} must be >= 1 and finished_window "
                             f"{finished_window} >= 0")
        self.max_tables = max_tables
        self.finished_window = finished_window
        self._tables: OrderedDict[str, dict[int, int]] = OrderedDict()
        self._finished: OrderedDict[str, None] = OrderedDict()

    def first(self, table_id: str, seat: int, seq: int) -> bool:
        """True (and remembered) when `seat` at `table_id` has not acted on `seq` or a later
        seq yet, and the table's match is not known to be over."""
        if table_id in self._finished:
            return False
        seats = self._tables.get(table_id)
        if seats is None:
            seats = self._tables[table_id] = {}
            while len(self._tables) > self.max_tables:
                self._tables.popitem(last=False)
        else:
            self._tables.move_to_end(table_id)
        if seats.get(seat, -1) >= seq:
            return False
        seats[seat] = seq
        return True

    def holds(self, table_id: str, seat: int, seq: int) -> bool:
        """True when a view of `seat` at `table_id` at `seq` can call for nothing new: the
        seat acted on `seq` or a later seq, or the table's match is known to be over (a
        read-only check: nothing is remembered, no table moves)."""
        if table_id in self._finished:
            return True
        seats = self._tables.get(table_id)
        return seats is not None and seats.get(seat, -1) >= seq

    def finish(self, table_id: str) -> bool:
        """The table's match is over: forget it. True when it was not known as over yet."""
        self._tables.pop(table_id, None)
        if table_id in self._finished:
            return False
        if self.finished_window:
            self._finished[table_id] = None
            while len(self._finished) > self.finished_window:
                self._finished.popitem(last=False)
        return True

    def is_finished(self, table_id: str) -> bool:
        return table_id in self._finished

    @property
    def tables(self) -> int:
        """Live tables remembered."""
        return len(self._tables)

    @property
    def finished(self) -> int:
        """Finished tables remembered by id."""
        return len(self._finished)
