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

import operator
from collections.abc import Iterable
from operator import is_
from typing import Any, NamedTuple, cast

import msgspec

from okey101 import native, tiles
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
    ruled_seats,
    seat_rules,
    seat_view,
    table_fields,
    turn_by,
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
        self.seats: list[tuple[tuple[Any, ...], Raw] | None] = [None] * SEATS
        self.thresholds_of: tuple[object, object, object, list[tuple[int, int]]] = \
            (None, None, None, [])
        self.current_of: tuple[object, Raw] = (None, _NULL)
        self.rules_of: tuple[object, int, Raw] = (None, SPECTATOR, _NO_RULES)
        # what the previous update of the table sent: the shared part (`leaves`), each
        # seat's rack and rules, and each seat's patches since its last whole view
        self.sent: Shared | None = None
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
        found = self._thresholds(state, hand)  # the same list while no threshold moved
        held = self.seats[i]
        if held is not None:
            key = held[0]
            if key[0] is h and key[3] is found and key[1] == state.players[i] and \
                    key[2] == bot:
                return held[1]
        raw = Raw(_encode(seat_view(state, hand, i, bot)))
        self.seats[i] = ((h, state.players[i], bot, found), raw)
        return raw

    def _thresholds(self, state: TableState, hand: HandState) -> list[tuple[int, int]]:
        """Each seat's opening thresholds (points, pairs): they read only the house and
        the seats' openings, so they are asked once a change of either (the same list
        kept while neither moves)."""
        held = self.thresholds_of
        if held[0] is hand.seats and held[1] is state.profile:
            return held[3]
        openings = [(h.opened, h.opening_value) for h in hand.seats]
        if held[1] is state.profile and held[2] == openings:
            found = held[3]
        else:
            found = self.thresholds_now(state, hand)
        self.thresholds_of = (hand.seats, state.profile, openings, found)
        return found

    @staticmethod
    def thresholds_now(state: TableState, hand: HandState) -> list[tuple[int, int]]:
        """Each seat's opening thresholds (points, pairs), asked of the rule book."""
        if state.profile is None:
            return [(0, 0)] * len(hand.seats)
        return [(R.threshold(state, i, "points"), R.threshold(state, i, "pairs"))
                for i in range(len(hand.seats))]

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
    def leaves(self, state: TableState, turn_started: int | None) -> Shared:
        """What every seat's view shares, in the groups a patch names by JSON Pointer:
        the table's fields, the hand's, its melds (one list of encoded melds) and each
        seat's public view, each a value or its encoding (`msgspec.Raw`). A group whose
        source the state shares with the previous change's (compared by identity) is that
        change's group itself, so that `public_ops` skips it without looking inside."""
        held = self.sent
        key = _TABLE_STATE(state)
        if held is not None and all(map(is_, key, held.table_key)):
            table = held.table  # nothing but the seq, the turn or the hand moved
        else:
            path = _PATHS
            table = {path[k]: v for k, v in table_fields(state, self, turn_started).items()
                     if k not in _TICKING_FIELDS}
        ticking = (state.seq, state.turn, turn_by(state, turn_started))
        hand = state.hand
        if hand is None:
            return Shared(key, table, ticking, None, {}, [], [])
        bots = _bot_labels(state)
        hand_path = _HAND_PATHS
        fields = {hand_path[k]: v for k, v in hand_fields(state, hand, bots, self).items()}
        self._okey_of(hand)
        if held is not None and held.melds_source is hand.melds:
            melds = held.melds  # the same list: no meld moved
        else:
            self.melds(hand)
            melds = [raw for _, _, raw in self.melds_held]
        seats = [self.seat(state, hand, i, bots[i]) for i in range(len(hand.seats))]
        return Shared(key, table, ticking, (hand.number, hand.attempt), fields, melds, seats,
                      hand.melds)

    def public_ops(self, state: TableState, now: Shared) -> list[bytes]:
        """The operations that take the shared part of the views last sent to `now`."""
        was = self.sent
        assert was is not None
        ops: list[bytes] = []
        if now.table is not was.table:
            _diff(ops, was.table, now.table)
        for path, value, old in zip(_TICKING_PATHS, now.ticking, was.ticking, strict=True):
            if value != old:
                ops.append(_op(b"replace", path, _encode(value)))
        if now.hand_key != was.hand_key:  # a new hand (or none): the whole hand replaced
            hand = state.hand
            raw = _NULL if hand is None else self.hand(state, hand, _bot_labels(state))
            ops.append(_op(b"replace", b"/hand", raw))
            return ops
        if now.hand_key is None:
            return ops
        _diff(ops, was.hand, now.hand)
        if now.melds is not was.melds:
            ops += _meld_ops(was.melds, now.melds)
        for i, (raw, old) in enumerate(zip(now.seats, was.seats, strict=True)):
            if raw is not old and raw != old:
                ops.append(_op(b"replace", _SEAT_PATHS[i], raw))
        return ops

    # ------------------------------------------------------------ the updates
    @staticmethod
    def _seen(events: list[E.Event], public: list[bytes | None], seat: int) -> Raw:
        """The events as `seat` may see them, encoded (`public`: each public one's)."""
        seen = []
        for event, raw in zip(events, public, strict=True):
            if raw is None:
                shown = event_for(event, seat)
                if shown is None:
                    continue
                raw = _encode(shown)
            seen.append(raw)
        return _list(seen)

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
        # what most seats are sent alike: the public events, the shared operations
        everyone = _list(public) if None not in public else None  # type: ignore[arg-type]
        shared_only = _list(shared)
        out = []
        sent_seats: dict[int, tuple[Raw, Raw]] = {}
        table_id, version, bots, levels = state.table_id, state.seq, state.bots, state.bot_levels
        for seat in seats:
            seen = everyone if everyone is not None else self._seen(events, public, seat)
            bot = seat >= 0 and bots[seat]
            level = levels[seat] if bot else None
            mine = sent_seats[seat] = (self.rack(state, seat), self.rules(state, seat))
            view = views.get(seat)
            if view is not None:
                self.patches_since[seat] = 0
                update: Any = PlayerUpdate(
                    table_id=table_id, seat=seat, version=version, previous=previous,
                    events=cast(Any, seen), view=view, bot=bot, bot_level=level)
            else:
                self.patches_since[seat] += 1
                own = _seat_ops(self.sent_seats[seat], mine)
                update = PlayerPatch(
                    table_id=table_id, seat=seat, version=version, previous=previous,
                    events=cast(Any, seen),
                    patch=cast(Any, _list(shared + own) if own else shared_only), bot=bot,
                    bot_level=level)
            out.append(Published(table_id, seat, version, _encode(update)))
        self.sent, self.sent_seats = leaves, sent_seats
        return out


class Shared(NamedTuple):
    """The part of a change's views every seat shares (`TableParts.leaves`), by group."""

    table_key: tuple[object, ...]  # the state's fields the table's group is built from
    table: dict[str, Any]  # the table's fields but the ticking ones, by path
    ticking: tuple[int, int, int | None]  # the seq, the turn and the turn's deadline
    hand_key: tuple[int, int] | None  # the hand's number and attempt (None: no hand)
    hand: dict[str, Any]  # the hand's fields but its melds and seats, by path
    melds: list[bytes]  # each meld encoded
    seats: list[Any]  # each seat's public view encoded
    melds_source: object = None  # the hand's melds `melds` shows


# every field of the state but these three is read by the table's group alone
_TICKING_FIELDS = ("seq", "turn", "turn_by")
_TICKING_PATHS = tuple(b"/" + k.encode() for k in _TICKING_FIELDS)
_TABLE_KEY = [k for k in TableState.__struct_fields__ if k not in ("seq", "turn", "hand")]
_TABLE_STATE = operator.attrgetter(*_TABLE_KEY)
_SEAT_PATHS = [b"/hand/seats/%d" % i for i in range(SEATS)]
_PATHS: dict[str, str] = {k: "/" + k for k in PlayerView.__struct_fields__}
_HAND_PATHS: dict[str, str] = {k: "/hand/" + k for k in HandView.__struct_fields__}


class NativeTableParts(TableParts):
    """`TableParts` with each change's records built by the compiled core
    (`okey101_native.TableChanges`, native/src/views.rs), which mirrors `leaves`,
    `public_ops` and `updates` and builds the whole views as `player_views` does. What
    the rule book answers (the table's group of fields, the bot flags shown, the
    thresholds, the discard on offer, the seat rules, the turn's deadline) and the events'
    encodings stay here: the core asks the first three (`_ASKED`) only when a field they
    read moved. tests/properties/test_native_views.py
    checks that the records are byte for byte `TableParts`'."""

    def __init__(self) -> None:
        super().__init__()
        self.native = native.TableChanges(_TILE_NAMES, bytes(_NO_RULES), KEYFRAME,
                                          list(PlayerView.__struct_fields__), _TABLE_KEY,
                                          *_ASKED, Published)
        self.seats_of: tuple[object, list[int]] = (None, [])

    def updates(self, state: TableState, previous: int, events: list[E.Event],
                turn_started: int | None = None, seats: list[int] | None = None
                ) -> list[Published]:
        hand = state.hand
        top = None
        if hand is not None and not hand.scratch.put_back:
            top = R.available_discard(hand)
        if seats is None:
            if self.seats_of[0] is not state.players:  # who sits where moved
                self.seats_of = (state.players, update_seats(state))
            seats = self.seats_of[1]
        rules = [(seat, _encode(seat_rules(state, seat))) for seat in ruled_seats(state)
                 if seat in seats]
        public: list[bytes | None] = []
        private: list[tuple[int, bytes | None, bytes | None] | None] = []
        for event in events:
            if E.visibility(event) == "public":
                public.append(_encode(event_for(event, SPECTATOR)))
                private.append(None)
                continue
            owner = getattr(event, "seat", SEATS)
            own, other = event_for(event, owner), event_for(
                event, SPECTATOR if owner != SPECTATOR else SEATS)
            public.append(None)
            private.append((owner, _encode(own) if own is not None else None,
                            _encode(other) if other is not None else None))
        published: list[Published] = self.native.changes(
            self, state, previous, turn_by(state, turn_started), seats, top, rules, public,
            private)
        return published


def _thresholds_asked(parts: TableParts, state: TableState) -> list[tuple[int, int]]:
    assert state.hand is not None
    return parts.thresholds_now(state, state.hand)


def _table_asked(parts: TableParts, state: TableState) -> list[tuple[str, bytes]]:
    # the turn's deadline, the one field of the group that reads `turn_started`, is ticking
    return [(k, _encode(v)) for k, v in table_fields(state, parts).items()
            if k not in _TICKING_FIELDS]


_ASKED = (_bot_labels, _thresholds_asked, _table_asked)


_TILE_NAMES = [tiles.name(t) for t in range(tiles.KINDS)]


def table_parts() -> TableParts:
    """A table's parts: built by the compiled core where it is built, else all in Python."""
    return NativeTableParts() if native.TableChanges is not None else TableParts()


def _op(kind: bytes, path: bytes, value: bytes) -> bytes:
    return b'{"op":"' + kind + b'","path":"' + path + b'","value":' + value + b"}"


def _diff(ops: list[bytes], was: dict[str, Any], now: dict[str, Any]) -> None:
    """A replace for each leaf of `now` that differs from `was`'s (the same paths)."""
    for path, value in now.items():
        old = was[path]
        if value is old or value == old:
            continue
        ops.append(_op(b"replace", path.encode(), value if isinstance(value, Raw)
                       else _encode(value)))


def _meld_ops(was: list[bytes], melds: list[bytes]) -> list[bytes]:
    """The table's melds from the list sent to `melds`: those changed replaced, those
    laid since appended; the whole list replaced when it is shorter than before."""
    if len(melds) < len(was):
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
