"""evolve(state, event) -> the next state. Pure; replay is a fold over the events."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, assert_never, cast

from msgspec.structs import replace

from okey101 import melds as M
from okey101 import tiles
from okey101.errors import IllegalMove
from okey101.table import messages as E
from okey101.table.notation import build_meld, meld_of, pair_jokers, placed_tiles, without
from okey101.table.state import (
    NO_SITTERS,
    Disconnection,
    HandState,
    SeatHand,
    Seeding,
    Sitter,
    TableMeld,
    TableState,
    TurnScratch,
)
from okey101.terms import SEATS
from okey101.tiles import Tile

NEW_TABLE = TableState()
_Handler = Callable[[TableState, Any], TableState]
_HANDLERS: dict[type[E.Event], _Handler] = {}


def evolve(state: TableState, event: E.Event) -> TableState:
    if event.seq != state.seq + 1:
        _check_seq(state, event)
    handler = _HANDLERS.get(type(event))
    if handler is None:
        handler = _handler_for(cast(E.AnyEvent, event))
        if handler not in _SETS_SEQ:
            handler = _sequenced(handler)
        _HANDLERS[type(event)] = handler
    return handler(state, event)


def _check_seq(state: TableState, event: E.Event) -> None:
    if event.seq != state.seq + 1:
        raise IllegalMove(f"event seq {event.seq} does not follow table seq {state.seq}",
                          "seq_gap")


def _sequenced(handler: _Handler) -> _Handler:
    """`handler`, given the state at the event's seq: most handlers fold that. The hot ones
    (`_SETS_SEQ`) set the seq in the one copy of the state they make anyway."""
    def fold(s: TableState, e: Any) -> TableState:
        return handler(replace(s, seq=e.seq), e)
    return fold


def _handler_for(e: E.AnyEvent) -> _Handler:
    """The fold of `e`'s type: every event type has its case (mypy checks the match is
    exhaustive); `evolve` keeps the answer per type, so each event costs a dict lookup."""
    match e:
        case E.TileDrawn():
            return _tile_drawn
        case E.TileDiscarded():
            return _tile_discarded
        case E.RackShown():
            return _rack_shown
        case E.DiscardTaken():
            return _discard_taken
        case E.TilesLaidOff():
            return _tiles_laid_off
        case E.MeldsLaid():
            return _melds_laid
        case E.HandOpened():
            return _hand_opened
        case E.PenaltyImposed():
            return _penalty_imposed
        case E.RackDealt() | E.OpeningRetracted() | E.TurnTimedOut():
            return _unchanged
        case E.HandStarted():
            return _hand_started
        case E.HandDealt():
            return _hand_dealt
        case E.HandEnded():
            return _hand_ended
        case E.DiscardPutBack():
            return _discard_put_back
        case E.OkeyTaken():
            return _okey_taken
        case E.PairsDeclared():
            return _pairs_declared
        case E.IndicatorShown():
            return _indicator_shown
        case E.TableCreated():
            return _table_created
        case E.PlayerSat():
            return _player_sat
        case E.PlayerLeft():
            return _player_left
        case E.SeatHandedToBot():
            return _seat_handed_to_bot
        case E.MatchStarted():
            return _match_started
        case E.MatchSeeded():
            return _match_seeded
        case E.MatchEnded():
            return _match_ended
        case E.BotsRequested():
            return _bots_requested
        case E.PlayerDisconnected():
            return _player_disconnected
        case E.PlayerReconnected():
            return _player_reconnected
        case E.SeedingOpened():
            return _seeding_opened
        case E.SeedCommitted():
            return _seed_committed
        case E.SeedCommitsClosed():
            return _seed_commits_closed
        case E.SeedRevealed():
            return _seed_revealed
        case E.SeedForfeited():
            return _seed_forfeited
        case E.SeedingClosed():
            return _seeding_closed
        case _:
            assert_never(e)


def replay(events: Iterable[E.Event], state: TableState = NEW_TABLE) -> TableState:
    for event in events:
        state = evolve(state, event)
    return state


# ---------------------------------------------------------------- helpers
def _seat(hand: HandState, seat: int, **changes: Any) -> HandState:
    seats = list(hand.seats)
    seats[seat] = replace(seats[seat], **changes)
    return replace(hand, seats=tuple(seats))


def _put(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """`items` with `value` at `index` (a seat's entry)."""
    out = list(items)
    out[index] = value
    return tuple(out)


_NEW_TURN = TurnScratch()
_BY_NAME = tiles.BY_NAME


def _hand(state: TableState) -> HandState:
    assert state.hand is not None
    return state.hand


def _with(state: TableState, tuple_field: str, index: int, value: Any) -> TableState:
    items = list(getattr(state, tuple_field))
    items[index] = value
    return replace(state, **{tuple_field: tuple(items)})


# ---------------------------------------------------------------- table handlers
def _table_created(s: TableState, e: E.TableCreated) -> TableState:
    return replace(s, table_id=e.table_id, profile=e.profile, status="seating",
                   private=e.private, owner=e.owner)


def _seated(s: TableState, seat: int, player_id: str, bot: bool, level: int | None
            ) -> TableState:
    """`player_id` sits at `seat`; while the match runs, as a substitute."""
    s = _with(s, "players", seat, player_id)
    s = _with(s, "bots", seat, bot)
    s = _with(s, "bot_levels", seat, level)
    if s.status == "playing":
        s = _with(s, "sitters", seat, (*s.sitters[seat], Sitter(player_id, substitute=True)))
    return s


def _player_sat(s: TableState, e: E.PlayerSat) -> TableState:
    return _seated(s, e.seat, e.player_id, e.is_bot, e.bot_level)


def _player_left(s: TableState, e: E.PlayerLeft) -> TableState:
    s = _with(s, "players", e.seat, "")
    s = _with(s, "bots", e.seat, False)
    s = _with(s, "bot_levels", e.seat, None)
    s = _with(s, "disconnected", e.seat, None)
    sitters = s.sitters[e.seat]
    if s.status == "playing" and sitters and sitters[-1].player_id == e.player_id:
        s = _with(s, "sitters", e.seat, (*sitters[:-1], replace(sitters[-1], left=True)))
    return s


def _seat_handed_to_bot(s: TableState, e: E.SeatHandedToBot) -> TableState:
    return _seated(s, e.seat, e.bot_id, True, None)


def _bots_requested(s: TableState, e: E.BotsRequested) -> TableState:
    return replace(s, bots_requested=True)


def _player_disconnected(s: TableState, e: E.PlayerDisconnected) -> TableState:
    return _with(s, "disconnected", e.seat, Disconnection(e.player_id, e.seq, e.reconnect_by))


def _player_reconnected(s: TableState, e: E.PlayerReconnected) -> TableState:
    return _with(s, "disconnected", e.seat, None)


def _match_started(s: TableState, e: E.MatchStarted) -> TableState:
    sitters = tuple((Sitter(p, substitute=False),) for p in e.players) if e.players else \
        NO_SITTERS
    return replace(s, status="playing", hands_total=e.hands, hand_scores=(),
                   penalties=(0, 0, 0, 0), deals_used=0, sitters=sitters, seeding=None,
                   seeding_barred=())


def _match_seeded(s: TableState, e: E.MatchSeeded) -> TableState:
    deals = tuple(e.deals) if e.deals is not None else None
    return replace(s, match_seed=e.seed, deals=deals)


# ---------------------------------------------------------------- seeding (DEAL.md v2)
def _seeding(s: TableState) -> Seeding:
    assert s.seeding is not None
    return s.seeding


def _at_seat(items: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return (*items[:seat], value, *items[seat + 1:])


def _seeding_opened(s: TableState, e: E.SeedingOpened) -> TableState:
    return replace(s, seeding=Seeding(hand=e.hand, attempt=e.attempt, starter=e.starter,
                                      server_commitment=e.server_commitment,
                                      deadline=e.commit_by))


def _seed_committed(s: TableState, e: E.SeedCommitted) -> TableState:
    g = _seeding(s)
    return replace(s, seeding=replace(
        g, commitments=_at_seat(g.commitments, e.seat, e.commitment),
        committers=_at_seat(g.committers, e.seat, s.players[e.seat])))


def _seed_commits_closed(s: TableState, e: E.SeedCommitsClosed) -> TableState:
    return replace(s, seeding=replace(_seeding(s), stage="reveal", deadline=e.reveal_by))


def _seed_revealed(s: TableState, e: E.SeedRevealed) -> TableState:
    g = _seeding(s)
    return replace(s, seeding=replace(
        g, client_seeds=_at_seat(g.client_seeds, e.seat, e.client_seed)))


def _seed_forfeited(s: TableState, e: E.SeedForfeited) -> TableState:
    g = _seeding(s)
    barred = s.seeding_barred if e.player_id in s.seeding_barred else \
        (*s.seeding_barred, e.player_id)
    return replace(s, seeding=replace(g, forfeited=_at_seat(g.forfeited, e.seat, True)),
                   seeding_barred=barred)


def _seeding_closed(s: TableState, e: E.SeedingClosed) -> TableState:
    return replace(s, seeding=None)


def _hand_started(s: TableState, e: E.HandStarted) -> TableState:
    hand = HandState(number=e.hand, attempt=e.attempt, starter=e.starter,
                     indicator=tiles.parse(e.indicator), okey=tiles.parse(e.okey),
                     to_act=e.starter, phase="play", deal_version=e.deal_version)
    return replace(s, hand=hand, deals_used=s.deals_used + 1, turn=s.turn + 1)


def _hand_dealt(s: TableState, e: E.HandDealt) -> TableState:
    hand = _hand(s)
    seats = tuple(SeatHand(rack=tuple(tiles.parse_many(r))) for r in e.racks)
    return replace(s, hand=replace(hand, seed=e.seed, deck=tuple(tiles.parse_many(e.deck)),
                                   seats=seats))


def _tile_drawn(s: TableState, e: E.TileDrawn) -> TableState:
    hand = s.hand
    assert hand is not None
    pos = hand.deck_pos
    seats = list(hand.seats)
    seat = seats[e.seat]
    seats[e.seat] = replace(seat, rack=(*seat.rack, hand.deck[pos]), has_played=True)
    return replace(s, seq=e.seq, hand=replace(hand, seats=tuple(seats), deck_pos=pos + 1,
                                              phase="play"))


def _discard_taken(s: TableState, e: E.DiscardTaken) -> TableState:
    hand = _hand(s)
    i = e.seat
    source = (i - 1) % SEATS
    tile = tiles.parse(e.tile)
    seats = list(hand.seats)
    seats[source] = replace(seats[source], discards=seats[source].discards[:-1])
    seats[i] = replace(seats[i], rack=(*seats[i].rack, tile), has_played=True)
    scratch = replace(hand.scratch, taken=tile, taken_from=source)
    return replace(s, seq=e.seq, hand=replace(hand, seats=tuple(seats), phase="play",
                                              scratch=scratch))


def _discard_put_back(s: TableState, e: E.DiscardPutBack) -> TableState:
    hand = _hand(s)
    source = hand.scratch.taken_from
    tile = tiles.parse(e.tile)
    hand = _seat(hand, source, discards=(*hand.seats[source].discards, tile))
    hand = _seat(hand, e.seat, rack=without(hand.seats[e.seat].rack, [tile]))
    return replace(s, hand=replace(hand, phase="draw", scratch=TurnScratch(put_back=True)))


def _pairs_declared(s: TableState, e: E.PairsDeclared) -> TableState:
    return replace(s, hand=_seat(_hand(s), e.seat, declared_pairs=True))


def _indicator_shown(s: TableState, e: E.IndicatorShown) -> TableState:
    return replace(s, hand=_seat(_hand(s), e.seat, shown_indicator=True))


_Laid = tuple[HandState, SeatHand, tuple[TableMeld, ...]]


def _lay(s: TableState, seat: int, groups: list[list[str]], pairs: bool) -> _Laid:
    """The hand with `groups` laid by `seat`, less the seat's own change: the seat (its
    rack less the tiles laid, for the caller to change further) and the new melds."""
    assert s.profile is not None
    hand = _hand(s)
    wraps = s.profile.run_wraps_13_to_1
    okey = hand.okey
    jokers = pair_jokers(hand, seat)
    built = []
    laid: list[Tile] = []
    for g in groups:
        placed = placed_tiles(g, okey)
        laid += [pl[0] for pl in placed]
        built.append(meld_of(placed, g, okey, wraps, pairs, jokers))
    return _laid(s, seat, built, laid)


def _laid(s: TableState, seat: int, built: Sequence[M.Meld], laid: Sequence[Tile]) -> _Laid:
    hand = _hand(s)
    new = tuple(TableMeld(m, seat, s.turn) for m in built)
    me = hand.seats[seat]
    me = replace(me, rack=without(me.rack, laid))
    scratch = replace(hand.scratch, laid=(*hand.scratch.laid, *laid))
    return replace(hand, melds=(*hand.melds, *new), scratch=scratch), me, new


def fold_laid(s: TableState, e: E.HandOpened | E.MeldsLaid, built: Sequence[M.Meld],
              laid: Sequence[Tile]) -> TableState:
    """`evolve(s, e)` where `decide` has just built `e`'s melds (`built`, whose notation
    `e` carries) laying `laid` (its tokens' tiles, in order): nothing parsed again."""
    _check_seq(s, e)
    if isinstance(e, E.HandOpened):
        return _opened(s, e, _laid(s, e.seat, built, laid))
    return _melds_added(s, e, _laid(s, e.seat, built, laid))


def _hand_opened(s: TableState, e: E.HandOpened) -> TableState:
    return _opened(s, e, _lay(s, e.seat, e.melds, e.kind == "pairs"))


def _opened(s: TableState, e: E.HandOpened, laid: _Laid) -> TableState:
    hand, me, _ = laid
    me = replace(me, opened=e.kind, opened_turn=s.turn, opening_value=e.value,
                 elden_opening=e.elden)
    return replace(s, seq=e.seq, hand=replace(hand, seats=_put(hand.seats, e.seat, me)))


def _melds_laid(s: TableState, e: E.MeldsLaid) -> TableState:
    return _melds_added(s, e, _lay(s, e.seat, e.melds, e.pairs))


def _melds_added(s: TableState, e: E.MeldsLaid, laid: _Laid) -> TableState:
    hand, me, new = laid
    assert s.profile is not None
    if me.opened_turn == s.turn:  # laid in the opening turn: part of the opening
        if e.pairs and me.opened == "pairs":
            me = replace(me, opening_value=me.opening_value + len(e.melds))
        elif not e.pairs and me.opened == "points":
            count = s.profile.meld_value
            added = sum(M.counted_value(m.meld, count) for m in new)
            me = replace(me, opening_value=me.opening_value + added)
    return replace(s, seq=e.seq, hand=replace(hand, seats=_put(hand.seats, e.seat, me)))


def _tiles_laid_off(s: TableState, e: E.TilesLaidOff) -> TableState:
    assert s.profile is not None
    hand = _hand(s)
    wraps = s.profile.run_wraps_13_to_1
    target = hand.melds[e.meld]
    meld = target.meld
    placed = placed_tiles(e.tiles, hand.okey)
    for pl in placed:
        meld = M.extend(meld, pl, M.lay_off_position(meld, e.end), wraps)
    laid = [pl[0] for pl in placed]
    melds = list(hand.melds)
    melds[e.meld] = replace(target, meld=meld)
    seat = hand.seats[e.seat]
    value = seat.opening_value
    if (s.profile.opening_counts_own_extensions and seat.opened == "points"
            and seat.opened_turn == s.turn and target.owner == e.seat
            and target.laid_turn == s.turn):
        count = s.profile.meld_value
        value += M.counted_value(meld, count) - M.counted_value(target.meld, count)
    seats = _put(hand.seats, e.seat, replace(seat, rack=without(seat.rack, laid),
                                             opening_value=value))
    sc = hand.scratch
    key = (e.meld, e.end)
    counts = [c for c in sc.end_counts if c[:2] != key]
    before = next((c[2] for c in sc.end_counts if c[:2] == key), 0)
    counts.append((e.meld, e.end, before + len(laid)))
    scratch = replace(sc, laid=(*sc.laid, *laid), lay_offs=sc.lay_offs + len(laid),
                      laid_off=True, end_counts=tuple(counts))
    return replace(s, seq=e.seq, hand=replace(hand, seats=seats, melds=tuple(melds),
                                              scratch=scratch))


def _okey_taken(s: TableState, e: E.OkeyTaken) -> TableState:
    hand = _hand(s)
    put = tiles.parse_many(e.tiles)
    target = hand.melds[e.meld]
    melds = list(hand.melds)
    melds[e.meld] = replace(target, meld=M.replace_okey(target.meld, hand.okey, put))
    seat = hand.seats[e.seat]
    hand = _seat(hand, e.seat, rack=(*without(seat.rack, put), hand.okey))
    scratch = replace(hand.scratch, laid=(*hand.scratch.laid, *put), laid_off=True)
    return replace(s, hand=replace(hand, melds=tuple(melds), scratch=scratch))


def _tile_discarded(s: TableState, e: E.TileDiscarded) -> TableState:
    hand = s.hand
    assert hand is not None
    tile = _BY_NAME.get(e.tile)
    if tile is None:
        tile = tiles.parse(e.tile)
    i = e.seat
    seats = list(hand.seats)
    seat = seats[i]
    rack = list(seat.rack)
    rack.remove(tile)
    seats[i] = replace(seat, rack=tuple(rack), discards=(*seat.discards, tile),
                       has_played=True)
    if not rack:  # the finishing discard: HandEnded follows
        return replace(s, seq=e.seq, hand=replace(hand, seats=tuple(seats), phase="over"))
    hand = replace(hand, seats=tuple(seats), to_act=(i + 1) % SEATS, phase="draw",
                   scratch=_NEW_TURN)
    return replace(s, seq=e.seq, hand=hand, turn=s.turn + 1)


def _rack_shown(s: TableState, e: E.RackShown) -> TableState:
    """Düz: the discard goes on the seat's pile, the rest of the rack on the table."""
    assert s.profile is not None
    hand = _hand(s)
    tile = tiles.parse(e.tile)
    seat = hand.seats[e.seat]
    wraps = s.profile.run_wraps_13_to_1
    shown = tuple(TableMeld(build_meld(g, hand, wraps, e.pairs), e.seat, s.turn)
                  for g in e.melds)
    hand = _seat(hand, e.seat, rack=(), discards=(*seat.discards, tile), has_played=True)
    return replace(s, hand=replace(hand, melds=(*hand.melds, *shown), phase="over"))


def _penalty_imposed(s: TableState, e: E.PenaltyImposed) -> TableState:
    i = e.seat
    penalties = _put(s.penalties, i, s.penalties[i] + e.points)
    hand = s.hand
    if hand is None:
        return replace(s, seq=e.seq, penalties=penalties)
    seat = hand.seats[i]
    seats = _put(hand.seats, i, replace(seat, penalties=seat.penalties + e.points,
                                        siler=seat.siler or e.reason == "siler"))
    return replace(s, seq=e.seq, penalties=penalties, hand=replace(hand, seats=seats))


def _hand_ended(s: TableState, e: E.HandEnded) -> TableState:
    hand = replace(_hand(s), phase="over", finish=e.finish, finished_by=e.finished_by)
    scores = s.hand_scores if e.replay else (*s.hand_scores, tuple(e.scores))
    return replace(s, hand=hand, hand_scores=scores)


def _match_ended(s: TableState, e: E.MatchEnded) -> TableState:
    return replace(s, status="over", disconnected=(None, None, None, None), seeding=None)


def _unchanged(s: TableState, e: E.Event) -> TableState:
    return replace(s, seq=e.seq)


# the handlers that set the event's seq themselves (`evolve` gives the others the state
# at that seq)
_SETS_SEQ: frozenset[_Handler] = frozenset({
    _tile_drawn, _tile_discarded, _discard_taken, _hand_opened, _melds_laid,
    _tiles_laid_off, _penalty_imposed, _unchanged})
