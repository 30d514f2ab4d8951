"""The player views gateways serve, projected from the events log. Pure (no I/O, no clock).

The rules processor publishes events; this projection folds them per table (`evolve`, as a
replay does) and, for each batch of events, publishes one `PlayerUpdate` per changed table
and seat: the spectators' and every human seat's whole view with the events since the
previous update. Building views is most of the cost of a decision, so it runs outside the
processor's transaction, in its own service (services/views).

A change rebuilds only what it touched (`TableParts`): the updates are encoded from parts
(`msgspec.Raw`) kept per table between batches and keyed by the state they show: a meld's
notation by its `TableMeld`, a seat's public view by its `SeatHand` and thresholds, the turn
by its scratch, a rack by its tiles, the match by its profile and scores; the public view
is encoded once for every seat, the seat rules only for the seats that have any (the seat to
act, or those a seeding window awaits), and each event once however many seats see it. The
bytes are those of encoding `table.views.player_updates` (tests/unit/test_viewparts.py).

An update's `version` is the table seq it shows and `previous` the seq before the batch's
first event of that table, so updates published again after a restart (at least once) carry
versions a reader already holds and are ignored. A finished match leaves memory once its
last update is out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from okey101 import names, scoring, tiles
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import HandState, SeatHand, TableMeld, TableState, TurnScratch
from okey101.table.views import (
    NO_RULES,
    SPECTATOR,
    HandView,
    MeldView,
    PlayerUpdate,
    PlayerView,
    SeatView,
    TurnView,
    _seeding_view,
    event_for,
    player_update_decoder,
    seat_rules,
    unranked_of,
)
from okey101.terms import SEATS

Raw = msgspec.Raw


def _wire(model: type[msgspec.Struct], raw: set[str]) -> Any:
    """`model`'s fields in its order, those in `raw` taken already encoded: a struct
    that encodes to the bytes `model` would."""
    fields = msgspec.structs.fields(model)
    assert raw <= {f.name for f in fields}
    return msgspec.defstruct(
        f"_{model.__name__}Wire",
        [(f.name, Raw if f.name in raw else Any) for f in fields], kw_only=True)


_ViewWire = _wire(PlayerView, {"profile", "players", "bots", "rack", "hand", "hand_scores",
                               "penalties", "totals", "rules", "reconnect_by", "remaining",
                               "seeding", "names"})
_UpdateWire = _wire(PlayerUpdate, {"events", "view"})
_HandWire = _wire(HandView, {"melds", "seats", "current", "indicator", "okey"})

_encode = msgspec.json.Encoder().encode
_NULL = Raw(b"null")
_NO_RULES = Raw(_encode(NO_RULES))


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


class TableParts:
    """One table's view parts as the previous update encoded them, each with what it was
    built from (compared by identity: the state's structs are frozen and shared, so an
    unchanged part is the same object)."""

    def __init__(self) -> None:
        self.profile: tuple[object, Raw, bool] = (None, _NULL, True)  # (profile, raw, labelled)
        self.hand_scores: tuple[object, Raw] = (None, _NULL)
        self.seeding: tuple[object, Raw] = (None, _NULL)
        self.racks: list[tuple[object, Raw]] = [((), Raw(b"[]"))] * SEATS
        self.okey: tuple[object, object, Raw, Raw] = (None, None, _NULL, _NULL)
        self.melds: list[tuple[TableMeld, int, bytes]] = []
        self.melds_of: tuple[object, Raw] = (None, _NULL)
        self.seats: list[tuple[tuple[object, ...], bytes] | None] = [None] * SEATS
        self.current: tuple[object, Raw] = (None, _NULL)

    def updates(self, state: TableState, previous: int, events: list[E.Event]
                ) -> list[Published]:
        """`player_updates(state, previous, events)`, encoded."""
        profile = state.profile
        if self.profile[0] is not profile:
            self.profile = (profile, _raw(profile),
                            profile is None or profile.bots_labelled)
        labelled = self.profile[2]
        bots = state.bots if labelled else (False,) * len(state.bots)
        hand = state.hand
        hand_raw = self._hand(state, hand, bots) if hand is not None else _NULL
        if self.hand_scores[0] is not state.hand_scores:
            self.hand_scores = (state.hand_scores, _raw(state.hand_scores))
        if self.seeding[0] is not state.seeding:
            g = state.seeding
            self.seeding = (g, _raw(_seeding_view(g)) if g is not None else _NULL)
        totals = state.totals()
        unranked = unranked_of(state)
        common = dict(
            table_id=state.table_id, seq=state.seq, status=state.status,
            profile=self.profile[1], players=_raw(state.players), bots=_raw(bots),
            hands_total=state.hands_total, turn=state.turn, hand=hand_raw,
            hand_scores=self.hand_scores[1], penalties=_raw(state.penalties),
            totals=_raw(totals), private=state.private, owner=state.owner,
            bots_requested=state.bots_requested,
            bots_may_sit=profile is not None and R.may_seat_bot(state),
            reconnect_by=_raw([d.reconnect_by if d is not None else None
                               for d in state.disconnected]),
            remaining=_raw(scoring.remaining(profile, totals)) if profile is not None
            else _NULL,
            seeding=self.seeding[1], ranked=profile is not None and not unranked,
            unranked_reason=unranked, names=_raw(names.table_names(list(state.players))))
        # the seats with rules: seat_rules answers NO_RULES for every other
        acting = set(range(SEATS)) if state.seeding is not None and \
            state.status == "playing" else \
            {hand.to_act} if hand is not None and state.status == "playing" and \
            hand.phase != "over" else set()
        encoded: dict[int, bytes] = {}
        shown_all: list[E.Event] = []  # keeps each shown event alive: no id is reused
        out = []
        for seat in (SPECTATOR, *(s for s in range(SEATS)
                                  if state.players[s] and not state.bots[s])):
            seen = []
            for event in events:
                shown = event_for(event, seat)
                if shown is None:
                    continue
                raw = encoded.get(id(shown))
                if raw is None:
                    raw = encoded[id(shown)] = _encode(shown)
                    shown_all.append(shown)
                seen.append(raw)
            rack = Raw(b"[]")
            if hand is not None and 0 <= seat < len(hand.seats):
                rack = self._rack(seat, hand.seats[seat].rack)
            rules = _raw(seat_rules(state, seat)) if seat in acting else _NO_RULES
            view = _ViewWire(seat=seat, rack=rack, rules=rules, **common)
            out.append(Published(state.table_id, seat, state.seq, _encode(_UpdateWire(
                v=E.VERSION, table_id=state.table_id, seat=seat, version=state.seq,
                previous=previous, events=_list(seen), view=Raw(_encode(view))))))
        return out

    def _rack(self, seat: int, rack: tuple[int, ...]) -> Raw:
        held = self.racks[seat]
        if held[0] is not rack:
            held = self.racks[seat] = (rack, _raw(tiles.names(rack)))
        return held[1]

    def _hand(self, state: TableState, hand: HandState, bots: tuple[bool, ...]) -> Raw:
        okey = hand.okey
        if self.okey[0] != okey or self.okey[1] != hand.indicator:
            self.okey = (okey, hand.indicator, _raw(tiles.name(hand.indicator)),
                         _raw(tiles.name(okey)))
            self.melds = []  # a meld's notation depends on the okey
            self.melds_of = (None, _NULL)
        if self.melds_of[0] is not hand.melds:
            self.melds_of = (hand.melds, _list(self._melds(hand.melds, okey)))
        seats = []
        for i, h in enumerate(hand.seats):
            seats.append(self._seat(state, i, h, bots[i]))
        sc = hand.scratch
        if self.current[0] is not sc:
            self.current = (sc, _raw(_turn_view(sc)))
        top = None if sc.put_back else R.available_discard(hand)
        return Raw(_encode(_HandWire(
            number=hand.number, attempt=hand.attempt, starter=hand.starter,
            indicator=self.okey[2], okey=self.okey[3], deck_count=hand.deck_left,
            to_act=hand.to_act, phase=hand.phase,
            available_discard=tiles.name(top) if top is not None else None,
            melds=self.melds_of[1], seats=_list(seats), current=self.current[1],
            finish=hand.finish, finished_by=hand.finished_by)))

    def _melds(self, melds: tuple[TableMeld, ...], okey: int) -> list[bytes]:
        held = self.melds
        out = []
        for i, m in enumerate(melds):
            if i < len(held) and held[i][0] is m:
                out.append(held[i][2])
                continue
            raw = _encode(MeldView(index=i, owner=m.owner, kind=m.meld.kind,
                                   tiles=m.meld.notation(okey), start=m.meld.start,
                                   laid_turn=m.laid_turn))
            if i < len(held):
                held[i] = (m, i, raw)
            else:
                held.append((m, i, raw))
            out.append(raw)
        del held[len(melds):]
        return out

    def _seat(self, state: TableState, i: int, h: SeatHand, bot: bool) -> bytes:
        points = pairs = 0
        if state.profile is not None:
            points, pairs = R.threshold(state, i, "points"), R.threshold(state, i, "pairs")
        key = (h, state.players[i], bot, points, pairs)
        held = self.seats[i]
        if held is not None and held[0][0] is h and held[0][1:] == key[1:]:
            return held[1]
        raw = _encode(SeatView(
            seat=i, player_id=state.players[i], bot=bot, rack_size=len(h.rack),
            discards=tiles.names(h.discards), opened=h.opened, opened_turn=h.opened_turn,
            opening_value=h.opening_value, declared_pairs=h.declared_pairs,
            shown_indicator=h.shown_indicator, has_played=h.has_played,
            penalties=h.penalties, points_needed=points, pairs_needed=pairs))
        self.seats[i] = (key, raw)
        return raw


def _turn_view(sc: TurnScratch) -> TurnView:
    return TurnView(taken=tiles.name(sc.taken) if sc.taken is not None else None,
                    taken_from=sc.taken_from, laid=tiles.names(sc.laid),
                    lay_offs=sc.lay_offs, laid_off=sc.laid_off,
                    end_counts=list(sc.end_counts), put_back=sc.put_back)


class PlayerViews:
    """The live tables of some events partitions, folded from their events."""

    def __init__(self) -> None:
        self.tables: dict[str, TableState] = {}
        self.parts: dict[str, TableParts] = {}

    def fold(self, event: E.Event) -> None:
        """One event into its table, publishing nothing (a rebuild). Raises `IllegalMove`
        for an event that does not follow its table (a gap or a repeat in the log)."""
        after = evolve(self.tables.get(event.table_id, NEW_TABLE), event)
        if after.status == "over":
            self.tables.pop(event.table_id, None)
            self.parts.pop(event.table_id, None)
        else:
            self.tables[event.table_id] = after

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
                out += parts.updates(after, previous, batch)
            except Exception as exc:  # its views cannot be built: not kept
                self.parts.pop(table_id, None)  # its parts may be half-built
                skipped.append((last, f"the views of table {table_id!r}: {exc}", exc))
                continue
            if after.status == "over":
                self.tables.pop(table_id, None)
                self.parts.pop(table_id, None)
            else:
                self.tables[table_id] = after
        return out, skipped

    def apply(self, events: Iterable[E.Event]) -> tuple[list[PlayerUpdate], list[str]]:
        """`publish`, the updates decoded."""
        published, skipped = self.publish(events)
        return [player_update_decoder.decode(p.value) for p in published], skipped

    def forget(self, is_theirs: Callable[[str], bool]) -> None:
        """Drop the tables for which `is_theirs(table_id)` is true (a revoked partition)."""
        for table_id in [t for t in self.tables if is_theirs(t)]:
            del self.tables[table_id]
            self.parts.pop(table_id, None)
