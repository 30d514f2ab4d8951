"""The rules a seat's own view answers: every single-tile lay-off and okey take open to it
and what each discard would cost. Pure.

A view carries the rules the seat's next move needs (`table.views.SeatRules`: the commands
it may send, whether it may lay off at all, what it owes); the detail, per tile and per
meld, is asked for (the gateway's `rules` frame, the bots when they choose). Readers hold
views, not states, so the detail is answered from the view: `state_of_view` rebuilds the
table as the seat knows it (the public table and its own rack; every other rack and the
deck are unknown, and no query of the seat's reads them), and the one rule book
(`okey101.table.rules`) answers on it. tests/unit/test_viewrules.py checks, at every
state of recorded matches in every house and mode, that the answers equal those on the
authoritative state.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from okey101 import melds as M
from okey101 import tiles
from okey101.table import rules as R
from okey101.table.state import HandState, SeatHand, TableMeld, TableState, TurnScratch
from okey101.table.views import (
    LayOffOption,
    MeldView,
    OkeyTakeOption,
    PenalisedDiscard,
    PlayerView,
    SeatView,
)
from okey101.terms import SEATS
from okey101.tiles import Tile


class RulesDetail(msgspec.Struct, frozen=True, kw_only=True):
    """The rules' detail for a seat at one version of its view: each single tile it may
    lay off and where (send it as `lay_off`), each okey it may take (`take_okey`), and each
    rack tile that would cost a penalty if discarded now. All empty but for the seat to
    act in its play phase."""

    lay_offs: list[LayOffOption] = msgspec.field(default_factory=list)
    okey_takes: list[OkeyTakeOption] = msgspec.field(default_factory=list)
    penalised_discards: list[PenalisedDiscard] = msgspec.field(default_factory=list)


NO_DETAIL = RulesDetail()


class UnanswerableView(ValueError):
    """A view the rules cannot be asked about (a spectator's, no hand, a tile or meld that
    is not one): the message names what."""


def detail(state: TableState, seat: int) -> RulesDetail:
    """The rules' detail for `seat` on `state`: the one place it is computed."""
    hand = state.hand
    if (hand is None or state.status != "playing" or hand.to_act != seat
            or hand.phase != "play" or state.profile is None):
        return NO_DETAIL
    return RulesDetail(
        lay_offs=[LayOffOption(tile=tiles.name(t), meld=m, end=e)
                  for t, m, e in R.lay_off_options(state, seat)],
        okey_takes=[OkeyTakeOption(meld=m, tiles=tiles.names(put))
                    for m, put in R.okey_take_options(state, seat)],
        penalised_discards=[PenalisedDiscard(tile=tiles.name(t), points=n, reason=why)
                            for t, n, why in R.penalised_discards(state, seat)])


def view_detail(view: PlayerView) -> RulesDetail:
    """`detail` for the view's seat, from the view alone. Raises `UnanswerableView`."""
    if not 0 <= view.seat < SEATS:
        raise UnanswerableView(f"seat {view.seat}: only a seated player's view has rules")
    hand = view.hand
    if hand is None or hand.to_act != view.seat or hand.phase != "play":
        return NO_DETAIL
    if not view.rules.may_lay_off:
        # the table is closed to the seat: its gate reads what a view does not carry
        # (an elden opening), and the view's answer is the engine's
        state = state_of_view(view)
        return RulesDetail(penalised_discards=detail(state, view.seat).penalised_discards)
    return detail(state_of_view(view), view.seat)


def state_of_view(view: PlayerView) -> TableState:
    """The table as `view`'s seat knows it: the public table and the seat's own rack; the
    other racks hold no tiles and the deck as many unknown tiles as it has left."""
    hand = view.hand
    if view.profile is None or hand is None:
        raise UnanswerableView(f"table {view.table_id!r}: no hand is being played")
    try:
        rebuilt = hand_of_view(view)
    except (ValueError, KeyError, IndexError) as exc:
        raise UnanswerableView(f"table {view.table_id!r} at {view.seq}: {exc}") from None
    return TableState(
        table_id=view.table_id, seq=view.seq, profile=view.profile, status=view.status,
        players=tuple(view.players), turn=view.turn, hand=rebuilt,
        hand_scores=tuple(tuple(s) for s in view.hand_scores),
        penalties=tuple(view.penalties), private=view.private, owner=view.owner)


def hand_of_view(view: PlayerView, racks: Sequence[tuple[Tile, ...]] | None = None,
                 deck: tuple[Tile, ...] | None = None) -> HandState:
    """The hand `view` shows, as the engine holds it: each seat's rack from `racks` (by
    default the viewer's own and no tiles for the others) and `deck` (by default as many
    unknown tiles as it has left). Raises ValueError (and KeyError, IndexError) for a view
    whose tiles or melds are not ones."""
    hand = view.hand
    if hand is None:
        raise ValueError("no hand is being played")
    okey = tiles.parse(hand.okey)
    if len(hand.seats) != SEATS:
        raise ValueError(f"{len(hand.seats)} seats, not {SEATS}")
    if racks is None:
        own = tuple(tiles.parse_many(view.rack))
        racks = [own if s.seat == view.seat else () for s in hand.seats]
    seats = tuple(_seat_of(s, racks[i]) for i, s in enumerate(hand.seats))
    cur = hand.current
    scratch = TurnScratch(
        taken=tiles.parse(cur.taken) if cur.taken is not None else None,
        taken_from=cur.taken_from, laid=tuple(tiles.parse_many(cur.laid)),
        lay_offs=cur.lay_offs, laid_off=cur.laid_off,
        end_counts=tuple((m, e, n) for m, e, n in cur.end_counts),  # type: ignore[misc]
        put_back=cur.put_back)
    melds = tuple(TableMeld(meld=meld_of_view(m, okey), owner=m.owner, laid_turn=m.laid_turn)
                  for m in hand.melds)
    return HandState(
        number=hand.number, attempt=hand.attempt, starter=hand.starter,
        indicator=tiles.parse(hand.indicator), okey=okey,
        deck=(tiles.FAKE,) * hand.deck_count if deck is None else deck, seats=seats,
        melds=melds, to_act=hand.to_act, phase=hand.phase, scratch=scratch,
        finish=hand.finish, finished_by=hand.finished_by)


def _seat_of(s: SeatView, rack: tuple[Tile, ...]) -> SeatHand:
    return SeatHand(rack=rack, discards=tuple(tiles.parse_many(s.discards)), opened=s.opened,
                    opened_turn=s.opened_turn, opening_value=s.opening_value,
                    declared_pairs=s.declared_pairs, shown_indicator=s.shown_indicator,
                    has_played=s.has_played, penalties=s.penalties)


def meld_of_view(m: MeldView, okey: Tile) -> M.Meld:
    """A meld on the table, as the engine holds it, from its public notation."""
    if m.kind not in ("run", "group", "pair"):
        raise ValueError(f"a meld of kind {m.kind!r}")
    return M.Meld(m.kind, tuple(M.parse_placed(m.tiles, okey)), m.start)  # type: ignore[arg-type]
