"""Who may address the table: the right table, at its seq, from a seat that exists and
a player who sits in it. Pure."""

from __future__ import annotations

from okey101.table.rules.common import fail
from okey101.table.state import TableState
from okey101.terms import SEATS


def check_addressed(s: TableState, table_id: str, seq: int, command_id: str) -> None:
    """The command names this table and was decided against its current seq."""
    if s.status != "new" and table_id != s.table_id:
        raise fail("wrong_table", f"command for table {table_id!r} sent to {s.table_id!r}")
    if seq != s.seq:
        raise fail("stale_seq", f"command {command_id} was decided against seq {seq}; "
                                f"table {table_id} is at seq {s.seq}")


def check_exists(s: TableState, table_id: str) -> None:
    if s.status == "new":
        raise fail("unknown_table", f"table {table_id!r} does not exist")


def check_new(s: TableState, table_id: str) -> None:
    if s.status != "new":
        raise fail("table_exists", f"table {table_id!r} already exists")


def check_seat_exists(seat: int) -> None:
    if not 0 <= seat < SEATS:
        raise fail("bad_seat", f"seat {seat} does not exist (0-{SEATS - 1})")


def check_seated(s: TableState, seat: int, player_id: str) -> None:
    """`player_id` sits at `seat`."""
    if not 0 <= seat < SEATS or not player_id or s.players[seat] != player_id:
        raise fail("not_your_seat", f"player {player_id!r} does not sit at seat {seat}")
