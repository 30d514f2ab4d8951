"""What a gateway keeps between a client's frames and the topics' records, apart from the
views themselves (`viewcache`): who is connected and watches which table, the commands
published and waiting for their outcomes, the acknowledgements held back until the update
that shows them, the command ids an account has used, and the finished tables to forget.
Pure: the socket layer passes the connections (any hashable object) and the time in.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

C = TypeVar("C", bound=Hashable)

ANSWER_WITHIN = 120.0  # seconds: a command unanswered by then was dead-lettered or lost
FORGET_AFTER = 600.0  # seconds a finished, unwatched table stays in memory


@dataclass
class Waiting(Generic[C]):
    """A command published for one or more connections, awaiting its outcome."""

    conns: list[tuple[C, str]]  # (connection, its client id)
    kind: str
    started: float


@dataclass(frozen=True)
class Sent:
    """What a client's command id stood for: a retry is the same command again."""

    digest: bytes
    table_id: str  # the table it named (a create_table's new table)


@dataclass
class Bookkeeping(Generic[C]):
    ids_kept: int = 100_000  # (account, command id)s remembered, to refuse reuse
    accounts: dict[str, set[C]] = field(default_factory=dict)
    watchers: dict[str, set[C]] = field(default_factory=dict)
    watching: dict[C, set[str]] = field(default_factory=dict)
    awaiting: dict[str, dict[C, tuple[int, int]]] = field(default_factory=dict)  # a watch
    # answered once the gateway holds the (seat, version) its client holds
    waiting: dict[tuple[str, str], Waiting[C]] = field(default_factory=dict)
    acks: dict[str, list[tuple[C, int, bytes]]] = field(default_factory=dict)  # deferred
    finished: dict[str, float] = field(default_factory=dict)  # table -> seen over
    sent: OrderedDict[tuple[str, str], Sent] = field(default_factory=OrderedDict)

    # ------------------------------------------------------------ connections
    def connections(self, player_id: str) -> int:
        return len(self.accounts.get(player_id, ()))

    def connected(self, player_id: str, conn: C) -> None:
        self.accounts.setdefault(player_id, set()).add(conn)
        self.watching.setdefault(conn, set())

    def disconnected(self, player_id: str, conn: C) -> bool:
        """`conn` forgotten; False when it was not known (already forgotten)."""
        for table_id in self.watching.pop(conn, set()):
            self._unwatch(conn, table_id)
        account = self.accounts.get(player_id)
        if account is None or conn not in account:
            return False
        account.discard(conn)
        if not account:
            del self.accounts[player_id]
        return True

    def everyone(self) -> list[C]:
        return [conn for conns in self.accounts.values() for conn in conns]

    # ------------------------------------------------------------ watching
    def watch(self, conn: C, table_id: str) -> None:
        """`conn` watches `table_id` (a watch again replaces the one awaited, if any)."""
        self._stop_awaiting(conn, table_id)
        self.watching.setdefault(conn, set()).add(table_id)
        self.watchers.setdefault(table_id, set()).add(conn)

    def unwatch(self, conn: C, table_id: str) -> None:
        self.watching.get(conn, set()).discard(table_id)
        self._unwatch(conn, table_id)

    def await_version(self, conn: C, table_id: str, seat: int, version: int) -> None:
        """`conn` watches `table_id` holding `version` of `seat`'s view, which this gateway
        has not reached: its watch is answered when it does (`due`)."""
        self.awaiting.setdefault(table_id, {})[conn] = (seat, version)

    def due(self, table_id: str, seat: int, version: int) -> list[tuple[C, int]]:
        """The watches awaiting `seat`'s view that `version` reaches, each with the version
        its client holds, no longer awaited."""
        waiting = self.awaiting.get(table_id)
        if not waiting:
            return []
        out = [(conn, held) for conn, (s, held) in waiting.items()
               if s == seat and held <= version]
        for conn, _ in out:
            del waiting[conn]
        if not waiting:
            del self.awaiting[table_id]
        return out

    def _stop_awaiting(self, conn: C, table_id: str) -> None:
        waiting = self.awaiting.get(table_id)
        if waiting is not None and waiting.pop(conn, None) is not None and not waiting:
            del self.awaiting[table_id]

    def is_watching(self, conn: C, table_id: str) -> bool:
        return table_id in self.watching.get(conn, ())

    def watchers_of(self, table_id: str) -> list[C]:
        return list(self.watchers.get(table_id, ()))

    def _unwatch(self, conn: C, table_id: str) -> None:
        self._stop_awaiting(conn, table_id)
        watchers = self.watchers.get(table_id)
        if watchers is not None:
            watchers.discard(conn)
            if not watchers:
                del self.watchers[table_id]

    # ------------------------------------------------------------ command ids
    def sent_before(self, player_id: str, client_id: str) -> Sent | None:
        return self.sent.get((player_id, client_id))

    def is_reused(self, player_id: str, client_id: str, digest: bytes) -> bool:
        """Was `client_id` used by `player_id` for another command?"""
        sent = self.sent.get((player_id, client_id))
        return sent is not None and sent.digest != digest

    def remember(self, player_id: str, client_id: str, digest: bytes, table_id: str) -> None:
        """The id kept (the oldest forgotten past `ids_kept`); a retry keeps the first."""
        self.sent.setdefault((player_id, client_id), Sent(digest, table_id))
        while len(self.sent) > self.ids_kept:
            self.sent.popitem(last=False)

    def forget(self, player_id: str, client_id: str) -> None:
        """The id no longer this gateway's to judge: never published, or refused
        `id_reused` by the processor (which holds its first command, not the one kept)."""
        self.sent.pop((player_id, client_id), None)

    # ------------------------------------------------------------ outcomes
    def publishing(self, table_id: str, command_id: str, conn: C, client_id: str, kind: str,
                   now: float) -> bool:
        """`conn` waits for the command's outcome; True when it is to be published (False:
        the same command is in flight already, and `conn` gets the one answer too)."""
        waiting = self.waiting.get((table_id, command_id))
        if waiting is not None:
            waiting.conns.append((conn, client_id))
            return False
        self.waiting[(table_id, command_id)] = Waiting([(conn, client_id)], kind, now)
        return True

    def not_published(self, table_id: str, command_id: str, player_id: str,
                      client_id: str) -> None:
        """A publish failed: nobody waits, and the id is free again."""
        self.waiting.pop((table_id, command_id), None)
        self.forget(player_id, client_id)

    def answered(self, table_id: str, command_id: str) -> Waiting[C] | None:
        """Who waited for this outcome (None: nobody here)."""
        return self.waiting.pop((table_id, command_id), None)

    def hold(self, table_id: str, conn: C, last: int, ack: bytes) -> None:
        """An acknowledgement held until `conn` has been sent the update at `last`."""
        self.acks.setdefault(table_id, []).append((conn, last, ack))

    def release(self, table_id: str, version: int, seat: int,
                seat_of: Callable[[C], int]) -> list[tuple[C, bytes]]:
        """The held acknowledgements the update at `version` for `seat` lets go: those of
        the connections shown that seat's view (`seat_of`) up to `last` or past it."""
        held = self.acks.get(table_id)
        if not held:
            return []
        out, keep = [], []
        for conn, last, ack in held:
            if last <= version and seat_of(conn) == seat:
                out.append((conn, ack))
            else:
                keep.append((conn, last, ack))
        self.acks[table_id] = keep
        return out

    # ------------------------------------------------------------ memory
    def seen_over(self, table_id: str, now: float) -> None:
        self.finished.setdefault(table_id, now)

    def sweep(self, now: float, is_closed: Callable[[C], bool]) -> list[str]:
        """Drop what nobody will ask for again; the finished tables to forget."""
        for key, waiting in list(self.waiting.items()):
            if now - waiting.started > ANSWER_WITHIN:
                del self.waiting[key]
        for table_id, held in list(self.acks.items()):
            self.acks[table_id] = [h for h in held if not is_closed(h[0])]
            if not self.acks[table_id]:
                del self.acks[table_id]
        forget = [table_id for table_id, since in self.finished.items()
                  if now - since > FORGET_AFTER and not self.watchers.get(table_id)]
        for table_id in forget:
            del self.finished[table_id]
        return forget
