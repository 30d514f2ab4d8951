"""evolve(state, event) -> the next state. Pure; replay is a fold over the events."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from msgspec.structs import replace

from okey101 import melds as M
from okey101 import tiles
from okey101.errors import IllegalMove
from okey101.table import messages as E
from okey101.table.state import HandState, SeatHand, TableMeld, TableState, TurnScratch
from okey101.tiles import Tile

NEW_TABLE = TableState()


def evolve(state: TableState, event: E.Event) -> TableState:
    if event.seq != state.seq + 1:
        raise IllegalMove(f"event seq {event.seq} does not follow table seq {state.seq}",
                          "seq_gap")
    handler = _HANDLERS[type(event)]
    return handler(replace(state, seq=event.seq), event)


def replay(events: Iterable[E.Event], state: TableState = NEW_TABLE) -> TableState:
    for event in events:
        state = evolve(state, event)
    return state


# ---------------------------------------------------------------- helpers
def without(rack: tuple[Tile, ...], taken: Iterable[Tile]) -> tuple[Tile, ...]:
    out = list(rack)
    for t in taken:
        out.remove(t)
    return tuple(out)


def _seat(hand: HandState, seat: int, **changes: Any) -> HandState:
    seats = list(hand.seats)
    seats[seat] = replace(seats[seat], **changes)
    return replace(hand, seats=tuple(seats))


def _hand(state: TableState) -> HandState:
    assert state.hand is not None
    return state.hand


def _with(state: TableState, tuple_field: str, index: int, value: Any) -> TableState:
    items = list(getattr(state, tuple_field))
    items[index] = value
    return replace(state, **{tuple_field: tuple(items)})


# canonical names (what events carry) straight to tiles; anything else goes through the
# full parser, which accepts other spellings and names a bad token
_CANON: dict[str, Tile] = {tiles.name(t): t for t in range(tiles.KINDS)}


def _tile(token: str) -> Tile:
    tile = _CANON.get(token) if isinstance(token, str) else None
    return tile if tile is not None else tiles.parse(token)


def _tiles(tokens: Iterable[str]) -> list[Tile]:
    return [_tile(t) for t in tokens]


def played_tiles(tokens: Iterable[str]) -> list[Tile]:
    out = []
    for token in tokens:
        tile = _CANON.get(token) if isinstance(token, str) else None
        out.append(tile if tile is not None else tiles.parse_meld_token(token)[0])
    return out


def placed_tiles(tokens: Sequence[str], okey: Tile) -> list[M.Placed]:
    """`melds.parse_placed`, canonical plain tiles looked up at once (the hot path)."""
    if not isinstance(tokens, (list, tuple)):
        return M.parse_placed(tokens, okey)  # refuses it, naming it
    out: list[M.Placed] = []
    for token in tokens:
        tile = _CANON.get(token) if isinstance(token, str) else None
        if tile is None:
            out.append(M.place(*tiles.parse_meld_token(token), okey, token))
        else:  # as melds.place: a fake okey plays as the okey, a plain tile as itself
            out.append((tile, okey if tile == tiles.FAKE else tile))
    return out


def build_meld(tokens: list[str], hand: HandState, wraps: bool, pairs: bool,
               pair_jokers: frozenset[Tile] = frozenset()) -> M.Meld:
    placed = placed_tiles(tokens, hand.okey)
    if pairs:
        meld = M.as_pair(placed, hand.okey, pair_jokers)
        if meld is None:
            raise IllegalMove(f"[{' '.join(tokens)}] is not a pair", "invalid_pair")
        return meld
    return M.classify(placed, wraps)


# ---------------------------------------------------------------- table handlers
def _table_created(s: TableState, e: E.TableCreated) -> TableState:
    return replace(s, table_id=e.table_id, profile=e.profile, status="seating")


def _player_sat(s: TableState, e: E.PlayerSat) -> TableState:
    s = _with(s, "players", e.seat, e.player_id)
    return _with(s, "bots", e.seat, e.bot)


def _player_left(s: TableState, e: E.PlayerLeft) -> TableState:
    s = _with(s, "players", e.seat, "")
    s = _with(s, "bots", e.seat, False)
    return _with(s, "left", e.seat, True) if s.status == "playing" else s


def _seat_handed_to_bot(s: TableState, e: E.SeatHandedToBot) -> TableState:
    s = _with(s, "players", e.seat, e.bot_id)
    return _with(s, "bots", e.seat, True)


def _match_started(s: TableState, e: E.MatchStarted) -> TableState:
    return replace(s, status="playing", hands_total=e.hands, hand_scores=(),
                   penalties=(0, 0, 0, 0), deals_used=0)


def _match_seeded(s: TableState, e: E.MatchSeeded) -> TableState:
    deals = tuple(e.deals) if e.deals is not None else None
    return replace(s, match_seed=e.seed, deals=deals)


def _hand_started(s: TableState, e: E.HandStarted) -> TableState:
    hand = HandState(number=e.hand, attempt=e.attempt, starter=e.starter,
                     indicator=_tile(e.indicator), okey=_tile(e.okey),
                     to_act=e.starter, phase="play")
    return replace(s, hand=hand, deals_used=s.deals_used + 1, turn=s.turn + 1)


def _hand_dealt(s: TableState, e: E.HandDealt) -> TableState:
    hand = _hand(s)
    seats = tuple(SeatHand(rack=tuple(_tiles(r))) for r in e.racks)
    return replace(s, hand=replace(hand, seed=e.seed, deck=tuple(_tiles(e.deck)),
                                   seats=seats))


def _no_change(s: TableState, e: E.Event) -> TableState:
    return s


def _tile_drawn(s: TableState, e: E.TileDrawn) -> TableState:
    hand = _hand(s)
    tile = hand.deck[hand.deck_pos]
    seat = hand.seats[e.seat]
    hand = _seat(hand, e.seat, rack=(*seat.rack, tile), has_played=True)
    return replace(s, hand=replace(hand, deck_pos=hand.deck_pos + 1, phase="play"))


def _discard_taken(s: TableState, e: E.DiscardTaken) -> TableState:
    hand = _hand(s)
    source = (e.seat - 1) % 4
    tile = _tile(e.tile)
    hand = _seat(hand, source, discards=hand.seats[source].discards[:-1])
    hand = _seat(hand, e.seat, rack=(*hand.seats[e.seat].rack, tile), has_played=True)
    scratch = replace(hand.scratch, taken=tile, taken_from=source)
    return replace(s, hand=replace(hand, phase="play", scratch=scratch))


def _discard_put_back(s: TableState, e: E.DiscardPutBack) -> TableState:
    hand = _hand(s)
    source = hand.scratch.taken_from
    tile = _tile(e.tile)
    hand = _seat(hand, source, discards=(*hand.seats[source].discards, tile))
    hand = _seat(hand, e.seat, rack=without(hand.seats[e.seat].rack, [tile]))
    return replace(s, hand=replace(hand, phase="draw", scratch=TurnScratch(put_back=True)))


def _pairs_declared(s: TableState, e: E.PairsDeclared) -> TableState:
    return replace(s, hand=_seat(_hand(s), e.seat, declared_pairs=True))


def _indicator_shown(s: TableState, e: E.IndicatorShown) -> TableState:
    return replace(s, hand=_seat(_hand(s), e.seat, shown_indicator=True))


def pair_jokers(hand: HandState, seat: int) -> frozenset[Tile]:
    """okeygg: a shown indicator twin works as an okey in pairs, for the seat that showed it."""
    return frozenset({hand.indicator}) if hand.seats[seat].shown_indicator else frozenset()


def _lay(s: TableState, seat: int, groups: list[list[str]], pairs: bool) -> TableState:
    assert s.profile is not None
    hand = _hand(s)
    wraps = s.profile.run_wraps_13_to_1
    jokers = pair_jokers(hand, seat)
    new = [TableMeld(build_meld(g, hand, wraps, pairs, jokers), seat, s.turn) for g in groups]
    laid = [t for g in groups for t in played_tiles(g)]
    hand = _seat(hand, seat, rack=without(hand.seats[seat].rack, laid))
    scratch = replace(hand.scratch, laid=(*hand.scratch.laid, *laid))
    return replace(s, hand=replace(hand, melds=(*hand.melds, *new), scratch=scratch))


def _hand_opened(s: TableState, e: E.HandOpened) -> TableState:
    s = _lay(s, e.seat, e.melds, e.kind == "pairs")
    hand = _seat(_hand(s), e.seat, opened=e.kind, opened_turn=s.turn, opening_value=e.value,
                 elden_opening=e.elden)
    return replace(s, hand=hand)


def _melds_laid(s: TableState, e: E.MeldsLaid) -> TableState:
    s = _lay(s, e.seat, e.melds, e.pairs)
    assert s.profile is not None
    hand = _hand(s)
    seat = hand.seats[e.seat]
    if seat.opened_turn == s.turn:  # laid in the opening turn: part of the opening
        if e.pairs and seat.opened == "pairs":
            hand = _seat(hand, e.seat, opening_value=seat.opening_value + len(e.melds))
        elif not e.pairs and seat.opened == "points":
            wraps = s.profile.run_wraps_13_to_1
            added = sum(build_meld(g, hand, wraps, False).value() for g in e.melds)
            hand = _seat(hand, e.seat, opening_value=seat.opening_value + added)
    return replace(s, hand=hand)


def lay_off_position(meld: M.Meld, end: str) -> int:
    if end == "group":
        return 0
    return meld.start - 1 if end == "low" else meld.start + len(meld.tiles)


def _tiles_laid_off(s: TableState, e: E.TilesLaidOff) -> TableState:
    assert s.profile is not None
    hand = _hand(s)
    wraps = s.profile.run_wraps_13_to_1
    target = hand.melds[e.meld]
    meld = target.meld
    for placed in placed_tiles(e.tiles, hand.okey):
        meld = M.extend(meld, placed, lay_off_position(meld, e.end), wraps)
    laid = played_tiles(e.tiles)
    melds = list(hand.melds)
    melds[e.meld] = replace(target, meld=meld)
    seat = hand.seats[e.seat]
    value = seat.opening_value
    if (s.profile.opening_counts_own_extensions and seat.opened == "points"
            and seat.opened_turn == s.turn and target.owner == e.seat
            and target.laid_turn == s.turn):
        value += meld.value() - target.meld.value()
    hand = _seat(hand, e.seat, rack=without(seat.rack, laid), opening_value=value)
    sc = hand.scratch
    counts = [c for c in sc.end_counts if c[:2] != (e.meld, e.end)]
    before = next((c[2] for c in sc.end_counts if c[:2] == (e.meld, e.end)), 0)
    counts.append((e.meld, e.end, before + len(laid)))
    scratch = replace(sc, laid=(*sc.laid, *laid), lay_offs=sc.lay_offs + len(laid),
                      laid_off=True, end_counts=tuple(counts))
    return replace(s, hand=replace(hand, melds=tuple(melds), scratch=scratch))


def replace_okey(meld: M.Meld, okey: Tile, put: list[Tile]) -> M.Meld:
    """`meld` with its okey swapped for the real tile(s) `put` (a 3-group gets both)."""
    items = list(meld.tiles)
    rest = list(put)
    for i, (played, stands) in enumerate(items):
        if played == okey and stands in rest:
            items[i] = (stands, stands)
            rest.remove(stands)
            break
    for t in rest:  # the fourth colour completing a group
        items.append((t, t))
    if meld.kind == "group":
        return M.Meld("group", tuple(sorted(items, key=lambda p: tiles.colour_of(p[1]))))
    return M.Meld(meld.kind, tuple(items), meld.start)


def _okey_taken(s: TableState, e: E.OkeyTaken) -> TableState:
    hand = _hand(s)
    put = _tiles(e.tiles)
    target = hand.melds[e.meld]
    melds = list(hand.melds)
    melds[e.meld] = replace(target, meld=replace_okey(target.meld, hand.okey, put))
    seat = hand.seats[e.seat]
    hand = _seat(hand, e.seat, rack=(*without(seat.rack, put), hand.okey))
    scratch = replace(hand.scratch, laid=(*hand.scratch.laid, *put), laid_off=True)
    return replace(s, hand=replace(hand, melds=tuple(melds), scratch=scratch))


def _tile_discarded(s: TableState, e: E.TileDiscarded) -> TableState:
    hand = _hand(s)
    tile = _tile(e.tile)
    seat = hand.seats[e.seat]
    hand = _seat(hand, e.seat, rack=without(seat.rack, [tile]),
                 discards=(*seat.discards, tile), has_played=True)
    if not hand.seats[e.seat].rack:  # the finishing discard: HandEnded follows
        return replace(s, hand=replace(hand, phase="over"))
    hand = replace(hand, to_act=(e.seat + 1) % 4, phase="draw", scratch=TurnScratch())
    return replace(s, hand=hand, turn=s.turn + 1)


def _penalty_imposed(s: TableState, e: E.PenaltyImposed) -> TableState:
    s = _with(s, "penalties", e.seat, s.penalties[e.seat] + e.points)
    if s.hand is not None:
        seat = s.hand.seats[e.seat]
        s = replace(s, hand=_seat(s.hand, e.seat, penalties=seat.penalties + e.points,
                                  siler=seat.siler or e.reason == "siler"))
    return s


def _hand_ended(s: TableState, e: E.HandEnded) -> TableState:
    hand = replace(_hand(s), phase="over", finish=e.finish, finished_by=e.finished_by)
    scores = s.hand_scores if e.replay else (*s.hand_scores, tuple(e.scores))
    return replace(s, hand=hand, hand_scores=scores)


def _match_ended(s: TableState, e: E.MatchEnded) -> TableState:
    return replace(s, status="over")


_HANDLERS: dict[type[E.Event], Callable[[TableState, Any], TableState]] = {
    E.TableCreated: _table_created,
    E.PlayerSat: _player_sat,
    E.PlayerLeft: _player_left,
    E.SeatHandedToBot: _seat_handed_to_bot,
    E.MatchStarted: _match_started,
    E.MatchSeeded: _match_seeded,
    E.HandStarted: _hand_started,
    E.HandDealt: _hand_dealt,
    E.RackDealt: _no_change,
    E.TileDrawn: _tile_drawn,
    E.DiscardTaken: _discard_taken,
    E.DiscardPutBack: _discard_put_back,
    E.PairsDeclared: _pairs_declared,
    E.IndicatorShown: _indicator_shown,
    E.HandOpened: _hand_opened,
    E.MeldsLaid: _melds_laid,
    E.TilesLaidOff: _tiles_laid_off,
    E.OkeyTaken: _okey_taken,
    E.TileDiscarded: _tile_discarded,
    E.PenaltyImposed: _penalty_imposed,
    E.OpeningRetracted: _no_change,
    E.TurnTimedOut: _no_change,
    E.HandEnded: _hand_ended,
    E.MatchEnded: _match_ended,
}
