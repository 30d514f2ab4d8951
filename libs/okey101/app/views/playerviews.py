"""Every view of a table, projected from the events log. Pure (no I/O, no clock).

The rules processor publishes events; this projection folds them per table (`evolve`, as a
replay does) and, for each batch of events, publishes one `PlayerUpdate` per changed table
and seat: the spectators' and every seated seat's whole view, a bot's included (with the
server's record of the bot beside the view, `PlayerUpdate.bot_level`), with the events
since the previous update. Gateways serve these to people and the bots service plays from
them: one projection, outside the processor's transaction (services/views).

A change rebuilds only what it touched (`TableParts`): the views are built by the one
builder (`table.views.player_views`) from parts kept encoded (`msgspec.Raw`) per table
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
from typing import Any, cast

import msgspec

from okey101 import tiles
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import HandState, TableMeld, TableState
from okey101.table.viewpatch import ViewFollower, decode_update
from okey101.table.views import (
    NO_RULES,
    SPECTATOR,
    PlayerPatch,
    PlayerUpdate,
    ViewParts,
    _bot_labels,
    _seeding_view,
    event_for,
    hand_fields,
    has_rules,
    meld_view,
    player_views,
    seat_rules,
    seat_view,
    table_fields,
    turn_view,
    update_seats,
)
from okey101.terms import SEATS

Raw = msgspec.Raw

_encode = msgspec.json.Encoder().encode
_NULL = Raw(b"null")
_NO_RULES = Raw(_encode(NO_RULES))
KEYFRAME = 32  # a seat's view is sent whole at least every KEYFRAME updates (a reader that
# lost the chain, or reads the compacted topic from its start, waits at most that long)


def _raw(value: object) -> Raw:
    return Raw(_encode(value))


def _list(parts: Iterable[bytes]) -> Raw:
    return Raw(b"[" + b",".join(parts) + b"]")


class Published(msgspec.Struct, frozen=True, gc=False):
    """An encoded `PlayerUpdate` and what it is keyed by on the player-views topic."""

    table_id: str
    seat: int
    version: int
    value: bytes

    @property
    def key(self) -> bytes:
        return f"{self.table_id}:{self.seat}".encode()


class TableParts(ViewParts):
    """One table's view parts as the previous update encoded them, each with what it was
    built from (compared by identity: the state's structs are frozen and shared, so an
    unchanged part is the same object). The parts of `ViewParts`, encoded: the view is
    built by the same `player_views`."""

    def __init__(self) -> None:
        self.profile_of: tuple[object, Raw] = (None, _NULL)
        self.seated_of: tuple[object, object, object, tuple[Raw, Raw, Raw]] | None = None
        self.scores_of: tuple[object, object, object, tuple[Raw, Raw, Raw, Raw]] | None = None
        self.reconnect_of: tuple[object, Raw] = (None, _NULL)
        self.seeding_of: tuple[object, Raw] = (None, _NULL)
        self.racks: list[tuple[object, Raw]] = [((), Raw(b"[]"))] * SEATS
        self.okey: tuple[object, object] = (None, None)
        self.tiles: dict[int, Raw] = {}
        self.melds_held: list[tuple[TableMeld, int, bytes]] = []
        self.melds_of: tuple[object, Raw] = (None, _NULL)
        self.seats: list[tuple[tuple[object, ...], bytes] | None] = [None] * SEATS
        self.current_of: tuple[object, Raw] = (None, _NULL)
        self.rules_of: tuple[object, int, Raw] = (None, SPECTATOR, _NO_RULES)
        # what the previous update of the table sent: the shared part (`leaves`), each
        # seat's rack and rules, and each seat's patches since its last whole view
        self.sent: dict[str, Any] | None = None
        self.sent_seats: dict[int, tuple[Raw, Raw]] = {}
        self.patches_since: dict[int, int] = dict.fromkeys(range(SPECTATOR, SEATS), 0)

    # ------------------------------------------------------------ the parts, encoded
    def seated(self, state: TableState) -> tuple[Any, Any, Any]:
        held = self.seated_of
        if held is None or held[0] is not state.players or held[1] is not state.bots or \
                held[2] is not state.profile:
            parts = super().seated(state)
            held = self.seated_of = (state.players, state.bots, state.profile,
                                     (_raw(parts[0]), _raw(parts[1]), _raw(parts[2])))
        return held[3]

    def scores(self, state: TableState) -> tuple[Any, Any, Any, Any]:
        held = self.scores_of
        if held is None or held[0] is not state.hand_scores or \
                held[1] is not state.penalties or held[2] is not state.profile:
            parts = super().scores(state)
            held = self.scores_of = (state.hand_scores, state.penalties, state.profile,
                                     (_raw(parts[0]), _raw(parts[1]), _raw(parts[2]),
                                      _raw(parts[3])))
        return held[3]

    def reconnect_by(self, state: TableState) -> Any:
        if self.reconnect_of[0] is not state.disconnected:
            self.reconnect_of = (state.disconnected, _raw(super().reconnect_by(state)))
        return self.reconnect_of[1]

    def profile(self, state: TableState) -> Any:
        if self.profile_of[0] is not state.profile:
            self.profile_of = (state.profile, _raw(state.profile))
        return self.profile_of[1]

    def seeding(self, state: TableState) -> Any:
        if self.seeding_of[0] is not state.seeding:
            g = state.seeding
            self.seeding_of = (g, _raw(_seeding_view(g)) if g is not None else _NULL)
        return self.seeding_of[1]

    def hand(self, state: TableState, hand: HandState, bots: list[bool]) -> Any:
        self._okey_of(hand)
        return _raw(super().hand(state, hand, bots))

    def _okey_of(self, hand: HandState) -> None:
        if self.okey != (hand.okey, hand.indicator):
            self.okey = (hand.okey, hand.indicator)
            self.melds_held = []  # a meld's notation depends on the okey
            self.melds_of = (None, _NULL)

    def tile(self, tile: int) -> Any:
        raw = self.tiles.get(tile)
        if raw is None:
            raw = self.tiles[tile] = _raw(tiles.name(tile))
        return raw

    def melds(self, hand: HandState) -> Any:
        if self.melds_of[0] is not hand.melds:
            self.melds_of = (hand.melds, _list(self._melds(hand.melds, hand.okey)))
        return self.melds_of[1]

    def _melds(self, melds: tuple[TableMeld, ...], okey: int) -> list[bytes]:
        held = self.melds_held
        out = []
        for i, m in enumerate(melds):
            if i < len(held) and held[i][0] is m:
                out.append(held[i][2])
                continue
            raw = _encode(meld_view(i, m, okey))
            if i < len(held):
                held[i] = (m, i, raw)
            else:
                held.append((m, i, raw))
            out.append(raw)
        del held[len(melds):]
        return out

    def seat(self, state: TableState, hand: HandState, i: int, bot: bool) -> Any:
        h = hand.seats[i]
        points = pairs = 0
        if state.profile is not None:
            points, pairs = R.threshold(state, i, "points"), R.threshold(state, i, "pairs")
        key = (h, state.players[i], bot, points, pairs)
        held = self.seats[i]
        if held is not None and held[0][0] is h and held[0][1:] == key[1:]:
            return Raw(held[1])
        raw = _encode(seat_view(state, hand, i, bot))
        self.seats[i] = (key, raw)
        return Raw(raw)

    def current(self, hand: HandState) -> Any:
        sc = hand.scratch
        if self.current_of[0] is not sc:
            self.current_of = (sc, _raw(turn_view(sc)))
        return self.current_of[1]

    def rack(self, state: TableState, seat: int) -> Any:
        hand = state.hand
        if hand is None or not 0 <= seat < len(hand.seats):
            return Raw(b"[]")
        rack = hand.seats[seat].rack
        held = self.racks[seat]
        if held[0] is not rack:
            held = self.racks[seat] = (rack, _raw(tiles.names(rack)))
        return held[1]

    def rules(self, state: TableState, seat: int) -> Any:
        # asked twice of a state whose seat is sent whole (its view, then its own part)
        if not has_rules(state, seat):
            return _NO_RULES
        held = self.rules_of
        if held[0] is not state or held[1] != seat:
            held = self.rules_of = (state, seat, _raw(seat_rules(state, seat)))
        return held[2]

    # ------------------------------------------------------------ the patches
    def leaves(self, state: TableState, turn_started: int | None) -> dict[str, Any]:
        """What every seat's view shares, by the JSON Pointer a patch names it with: the
        table's fields and the hand's (its melds as one list of encoded melds, each seat's
        public view apart), each a value or its encoding (`msgspec.Raw`)."""
        out = {"/" + k: v for k, v in table_fields(state, self, turn_started).items()}
        hand = state.hand
        if hand is None:
            out["/hand"] = None
            return out
        bots = _bot_labels(state)
        out["/hand"] = (hand.number, hand.attempt)  # a new hand: the whole hand replaced
        out |= {"/hand/" + k: v for k, v in hand_fields(state, hand, bots, self).items()}
        self._okey_of(hand)
        self.melds(hand)
        out["/hand/melds"] = [raw for _, _, raw in self.melds_held]
        for i in range(len(hand.seats)):
            out[_SEAT_PATHS[i]] = self.seat(state, hand, i, bots[i])
        return out

    def public_ops(self, state: TableState, leaves: dict[str, Any]) -> list[bytes]:
        """The operations that take the shared part of the views last sent to `leaves`."""
        sent = self.sent
        assert sent is not None
        ops: list[bytes] = []
        hand_replaced = False
        for path, value in leaves.items():
            was = sent.get(path, _MISSING)
            if path.startswith("/hand/") and hand_replaced:
                continue
            if path == "/hand":
                hand_replaced = value != was
                if hand_replaced:
                    hand = state.hand
                    raw = _NULL if hand is None else self.hand(state, hand, _bot_labels(state))
                    ops.append(_op(b"replace", b"/hand", raw))
                continue
            if path == "/hand/melds":
                ops += _meld_ops(was, value)
                continue
            if value is was or value == was:
                continue
            ops.append(_op(b"replace", path.encode(), value if isinstance(value, Raw)
                           else _encode(value)))
        return ops

    # ------------------------------------------------------------ the updates
    def updates(self, state: TableState, previous: int, events: list[E.Event],
                turn_started: int | None = None) -> list[Published]:
        """`player_updates(state, previous, events, turn_started)`, encoded, each seat's as
        a patch when it was sent the table's previous update and fewer than `KEYFRAME`
        patches since its last whole view: each event encoded once however many seats see
        it, the table's part of the patch once for every seat."""
        seats = update_seats(state)
        leaves = self.leaves(state, turn_started)
        whole = [seat for seat in seats if seat not in self.sent_seats
                 or self.patches_since[seat] >= KEYFRAME - 1]
        views = dict(zip(whole, player_views(state, whole, self, turn_started), strict=True))
        shared = self.public_ops(state, leaves) if len(whole) < len(seats) else []
        public: list[bytes | None] = []
        for event in events:
            public.append(_encode(event_for(event, SPECTATOR))
                          if E.visibility(event) == "public" else None)
        out = []
        sent_seats: dict[int, tuple[Raw, Raw]] = {}
        for seat in seats:
            seen = []
            for event, raw in zip(events, public, strict=True):
                if raw is None:
                    shown = event_for(event, seat)
                    if shown is None:
                        continue
                    raw = _encode(shown)
                seen.append(raw)
            bot = seat >= 0 and state.bots[seat]
            level = state.bot_levels[seat] if bot else None
            mine = sent_seats[seat] = (self.rack(state, seat), self.rules(state, seat))
            view = views.get(seat)
            if view is not None:
                self.patches_since[seat] = 0
                update: Any = PlayerUpdate(
                    table_id=state.table_id, seat=seat, version=state.seq, previous=previous,
                    events=cast(Any, _list(seen)), view=view, bot=bot, bot_level=level)
            else:
                self.patches_since[seat] += 1
                ops = shared + _seat_ops(self.sent_seats[seat], mine)
                update = PlayerPatch(
                    table_id=state.table_id, seat=seat, version=state.seq, previous=previous,
                    events=cast(Any, _list(seen)), patch=cast(Any, _list(ops)), bot=bot,
                    bot_level=level)
            out.append(Published(state.table_id, seat, state.seq, _encode(update)))
        self.sent, self.sent_seats = leaves, sent_seats
        return out


_MISSING = object()
_SEAT_PATHS = [f"/hand/seats/{i}" for i in range(SEATS)]


def _op(kind: bytes, path: bytes, value: bytes) -> bytes:
    return b'{"op":"' + kind + b'","path":"' + path + b'","value":' + value + b"}"


def _meld_ops(was: Any, melds: list[bytes]) -> list[bytes]:
    """The table's melds from the list sent to `melds`: those changed replaced, those
    laid since appended; the whole list replaced when it is shorter than before."""
    if was is _MISSING or was is None or len(melds) < len(was):
        return [_op(b"replace", b"/hand/melds", b"[" + b",".join(melds) + b"]")]
    ops = [_op(b"replace", b"/hand/melds/%d" % i, raw)
           for i, (raw, old) in enumerate(zip(melds, was, strict=False)) if raw != old]
    ops += [_op(b"add", b"/hand/melds/-", raw) for raw in melds[len(was):]]
    return ops


def _seat_ops(was: tuple[Raw, Raw], now: tuple[Raw, Raw]) -> list[bytes]:
    """The viewer's own part: its rack and its rules, when they changed."""
    ops = []
    if now[0] != was[0]:
        ops.append(_op(b"replace", b"/rack", now[0]))
    if now[1] != was[1]:
        ops.append(_op(b"replace", b"/rules", now[1]))
    return ops


class PlayerViews:
    """The live tables of some events partitions, folded from their events."""

    def __init__(self) -> None:
        self.tables: dict[str, TableState] = {}
        self.parts: dict[str, TableParts] = {}
        self.turn_started: dict[str, int] = {}  # the `at` of the event that started a turn
        self.follower = ViewFollower()  # `apply`'s reader

    def _started(self, before: TableState, after: TableState, event: E.Event) -> None:
        if after.turn != before.turn:
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
                parts = self.parts[table_id] = TableParts()
            try:
                out += parts.updates(after, previous, batch,
                                     self.turn_started.get(table_id))
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
