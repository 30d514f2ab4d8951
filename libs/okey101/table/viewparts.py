"""A table's views as changes: each part of a view kept encoded, and the updates of one
change built from them (the views contract, version 2). Pure (no I/O, no clock).

`TableParts` holds one table's view parts as the previous update encoded them (`msgspec.Raw`),
each keyed by the state it was built from, and builds a change's updates with the one
builder (`table.views.player_views`): a seat's view whole on its first update and every
`KEYFRAME`th, else a JSON Patch from the view sent before. The views service
(`okey101.app.views.playerviews`) publishes them for every seat; the replays serve them for
one viewer, a view at any step as its changes. tests/unit/test_viewparts.py checks the
bytes against the plain full rebuild (`table.views.player_updates`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import msgspec

from okey101 import tiles
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.table.state import HandState, TableMeld, TableState
from okey101.table.views import (
    NO_RULES,
    SPECTATOR,
    HandView,
    PlayerPatch,
    PlayerUpdate,
    PlayerView,
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
        self.seats: list[tuple[tuple[object, ...], Raw] | None] = [None] * SEATS
        self.thresholds_of: tuple[object, object, list[tuple[int, int]]] = (None, None, [])
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
        points, pairs = self._thresholds(state, hand)[i]
        key = (h, state.players[i], bot, points, pairs)
        held = self.seats[i]
        if held is not None and held[0][0] is h and held[0][1:] == key[1:]:
            return held[1]
        raw = Raw(_encode(seat_view(state, hand, i, bot)))
        self.seats[i] = (key, raw)
        return raw

    def _thresholds(self, state: TableState, hand: HandState) -> list[tuple[int, int]]:
        """Each seat's opening thresholds (points, pairs): they read only the hand's seats
        and the house, so they are asked once a change of either."""
        held = self.thresholds_of
        if held[0] is not hand.seats or held[1] is not state.profile:
            found = [(0, 0)] * len(hand.seats)
            if state.profile is not None:
                found = [(R.threshold(state, i, "points"), R.threshold(state, i, "pairs"))
                         for i in range(len(hand.seats))]
            held = self.thresholds_of = (hand.seats, state.profile, found)
        return held[2]

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
        path = _PATHS
        out = {path[k]: v for k, v in table_fields(state, self, turn_started).items()}
        hand = state.hand
        if hand is None:
            out["/hand"] = None
            return out
        bots = _bot_labels(state)
        out["/hand"] = (hand.number, hand.attempt)  # a new hand: the whole hand replaced
        hand_path = _HAND_PATHS
        for k, v in hand_fields(state, hand, bots, self).items():
            out[hand_path[k]] = v
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
        get = sent.get
        for path, value in leaves.items():
            was = get(path, _MISSING)
            if value is was:
                continue  # the common case: a part kept encoded, unchanged
            if hand_replaced and path.startswith("/hand/"):
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
            if value == was:
                continue
            ops.append(_op(b"replace", path.encode(), value if isinstance(value, Raw)
                           else _encode(value)))
        return ops

    # ------------------------------------------------------------ the updates
    def updates(self, state: TableState, previous: int, events: list[E.Event],
                turn_started: int | None = None, seats: list[int] | None = None
                ) -> list[Published]:
        """`player_updates(state, previous, events, turn_started)`, encoded, each seat's as
        a patch when it was sent the table's previous update and fewer than `KEYFRAME`
        patches since its last whole view: each event encoded once however many seats see
        it, the table's part of the patch once for every seat. `seats`: only these (one
        viewer's, for a replay), each sent every update of the table; else
        `update_seats`."""
        if seats is None:
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
_PATHS: dict[str, str] = {k: "/" + k for k in PlayerView.__struct_fields__}
_HAND_PATHS: dict[str, str] = {k: "/hand/" + k for k in HandView.__struct_fields__}


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
