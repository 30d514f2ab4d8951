"""decide(state, command) -> the events it causes, or a Rejection. Pure.

Each handler checks the command against the rules of the table's profile and emits events;
every emitted event is folded at once into a working state (`_Ctx.emit`), so later checks
in the same decision (a finishing discard, the next deal) read the state they create.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from okey101 import melds as M
from okey101 import scoring, solver, tiles
from okey101.errors import IllegalMove, MalformedInput
from okey101.profiles import Profile, resolve
from okey101.table import deal as D
from okey101.table import messages as E
from okey101.table.evolve import (
    build_meld,
    evolve,
    pair_jokers,
    played_tiles,
    replace_okey,
    without,
)
from okey101.table.state import HandState, SeatHand, TableState
from okey101.tiles import FAKE, Tile

Decision = list[E.Event] | E.Rejection


def decide(state: TableState, command: E.Command) -> Decision:
    """The events `command` causes on `state`, or why it is rejected (state unchanged)."""
    return decide_and_fold(state, command)[1]


def decide_and_fold(state: TableState, command: E.Command) -> tuple[TableState, Decision]:
    """`decide`, with the state its events fold into (`state` itself on a rejection).
    The decision folds every event as it emits it, so a caller holding this state need
    not fold the events again: equal to `replay(events, state)`."""
    try:
        ctx = _Ctx(state, command)
        _check_envelope(state, command)
        _HANDLERS[type(command)](ctx, command)
        return ctx.s, ctx.events
    except IllegalMove as exc:
        return state, E.Rejection(code=exc.code, message=exc.message)
    except MalformedInput as exc:
        return state, E.Rejection(code="malformed", message=str(exc))


class _Ctx:
    def __init__(self, state: TableState, command: E.Command) -> None:
        self.s = state
        self.command = command
        self.events: list[E.Event] = []

    def emit(self, event_type: type[E.Event], /, **fields: Any) -> None:
        event = event_type(table_id=self.command.table_id, seq=self.s.seq + 1,
                           at=self.command.at, **fields)
        self.s = evolve(self.s, event)
        self.events.append(event)

    @property
    def profile(self) -> Profile:
        assert self.s.profile is not None
        return self.s.profile

    @property
    def hand(self) -> HandState:
        if self.s.hand is None or self.s.status != "playing":
            raise IllegalMove("no hand is being played at this table", "no_hand")
        return self.s.hand


def _fail(code: str, message: str) -> IllegalMove:
    return IllegalMove(message, code)


# ---------------------------------------------------------------- envelope checks
_SERVER_COMMANDS: tuple[type[E.Command], ...] = (E.CreateTable, E.TimeOut)


def _check_envelope(s: TableState, c: E.Command) -> None:
    if not isinstance(c.table_id, str) or not c.table_id:
        raise MalformedInput("command has no table_id")
    if s.status != "new" and c.table_id != s.table_id:
        raise _fail("wrong_table", f"command for table {c.table_id!r} sent to {s.table_id!r}")
    if c.seq != s.seq:
        raise _fail("stale_seq", f"command {c.command_id} was decided against seq {c.seq}; "
                                 f"table {c.table_id} is at seq {s.seq}")
    if isinstance(c, E.CreateTable):
        return
    if s.status == "new":
        raise _fail("unknown_table", f"table {c.table_id!r} does not exist")
    if isinstance(c, (E.Sit, E.TimeOut, E.ReplaceWithBot)):
        if not 0 <= c.seat < 4:
            raise _fail("bad_seat", f"seat {c.seat} does not exist (0-3)")
        return
    if not 0 <= c.seat < 4 or not c.player_id or s.players[c.seat] != c.player_id:
        raise _fail("not_your_seat", f"player {c.player_id!r} does not sit at seat {c.seat}")


def _my_turn(ctx: _Ctx, c: E.Command, phase: str | None = None) -> HandState:
    hand = ctx.hand
    if hand.phase == "over":
        raise _fail("hand_over", "the hand is over")
    if hand.to_act != c.seat:
        raise _fail("not_your_turn", f"seat {c.seat} acted on seat {hand.to_act}'s turn")
    if phase is not None and hand.phase != phase:
        wanted = "draw or take the discard first" if hand.phase == "draw" else "discard"
        raise _fail("wrong_phase", f"seat {c.seat}: {type(c).__name__} now; {wanted}")
    return hand


# ---------------------------------------------------------------- seating
def _create_table(ctx: _Ctx, c: E.CreateTable) -> None:
    if ctx.s.status != "new":
        raise _fail("table_exists", f"table {c.table_id!r} already exists")
    profile = resolve({"base": c.profile, "options": c.options})
    ctx.emit(E.TableCreated, profile=profile)


def _sit(ctx: _Ctx, c: E.Sit) -> None:
    s = ctx.s
    if s.status == "over":
        raise _fail("match_over", "the match is over")
    if not c.player_id:
        raise MalformedInput("sit: player_id is empty")
    if s.players[c.seat]:
        raise _fail("seat_taken", f"seat {c.seat} is taken by {s.players[c.seat]!r}")
    if c.player_id in s.players:
        raise _fail("already_seated", f"player {c.player_id!r} already sits at this table")
    if c.bot and not ctx.profile.bots_allowed:
        raise _fail("no_bots", f"{ctx.profile.id} tables have no bots")
    ctx.emit(E.PlayerSat, seat=c.seat, player_id=c.player_id, bot=c.bot)


def _leave(ctx: _Ctx, c: E.Leave) -> None:
    ctx.emit(E.PlayerLeft, seat=c.seat, player_id=c.player_id)


def _replace_with_bot(ctx: _Ctx, c: E.ReplaceWithBot) -> None:
    s = ctx.s
    if not ctx.profile.bots_allowed:
        raise _fail("no_bots", f"{ctx.profile.id} tables have no bots")
    occupant = s.players[c.seat]
    if occupant and occupant != c.player_id:
        raise _fail("seat_taken", f"seat {c.seat} is taken by {occupant!r}")
    bot_id = c.bot_id or f"bot-{c.table_id}-{c.seat}"
    if bot_id in s.players and occupant != bot_id:
        raise _fail("already_seated", f"{bot_id!r} already sits at this table")
    ctx.emit(E.SeatHandedToBot, seat=c.seat, bot_id=bot_id)


def _start_match(ctx: _Ctx, c: E.StartMatch) -> None:
    s = ctx.s
    if s.status != "seating":
        raise _fail("match_started", "the match has already started")
    if not all(s.players):
        raise _fail("seats_empty", f"seats {[i for i, p in enumerate(s.players) if not p]} "
                                   "are empty")
    if c.deals is not None:
        if not c.deals:
            raise MalformedInput("start_match: deals is empty")
        for i, d in enumerate(c.deals):
            stacked_deal(d, f"deal {i}")
        hands = len(c.deals)
    else:
        try:
            seed = bytes.fromhex(c.seed)
        except ValueError:
            raise MalformedInput("start_match: seed must be hex") from None
        if len(seed) < 16:
            raise MalformedInput("start_match: seed must be at least 16 bytes")
        hands = ctx.profile.hands_per_match
    ctx.emit(E.MatchStarted, hands=hands, players=list(s.players))
    ctx.emit(E.MatchSeeded, seed=c.seed, deals=c.deals)
    _deal_hand(ctx, 1, 0, c.deals[0].starter if c.deals else 0)


def stacked_deal(d: E.StackedDeal, where: str) -> D.Dealt:
    """A given deal, checked: 22 tiles for the starter, 21 for the others, the deck
    topped up with the tiles named nowhere, in canonical order."""
    if not 0 <= d.starter < 4:
        raise MalformedInput(f"{where}: starter {d.starter} is not a seat (0-3)")
    if len(d.racks) != 4:
        raise MalformedInput(f"{where}: {len(d.racks)} racks given; 4 needed")
    racks = []
    for seat, rack in enumerate(d.racks):
        want = D.STARTER_TILES if seat == d.starter else D.OTHER_TILES
        if len(rack) != want:
            raise MalformedInput(f"{where}: rack {seat} has {len(rack)} tiles; {want} needed")
        racks.append(tuple(_parse_at(rack, f"{where} rack {seat}")))
    indicator = _parse_at([d.indicator], f"{where} indicator")[0]
    if indicator == FAKE:
        raise MalformedInput(f"{where}: a fake okey cannot be the indicator")
    deck = _parse_at(d.deck, f"{where} deck")
    named = [t for r in racks for t in r] + [indicator] + deck
    tiles.check_counts(named, where)
    rest = Counter(tiles.full_set())
    rest.subtract(named)
    deck += [t for t in tiles.full_set() if rest[t] > 0 and not rest.subtract([t])]
    return D.Dealt(d.starter, indicator, tuple(racks), tuple(deck))


def _parse_at(tokens: Sequence[str], where: str) -> list[Tile]:
    out = []
    for i, token in enumerate(tokens):
        try:
            out.append(tiles.parse(token))
        except MalformedInput as exc:
            raise MalformedInput(f"{where}, tile {i}: {exc}") from None
    return out


def _deal_hand(ctx: _Ctx, number: int, attempt: int, starter: int) -> None:
    s = ctx.s
    if s.deals is not None:
        if s.deals_used >= len(s.deals):
            _end_match(ctx)
            return
        dealt, seed = stacked_deal(s.deals[s.deals_used], f"deal {s.deals_used}"), b""
        if (number > 1 or attempt > 0) and dealt.starter != starter:  # moves each hand §2
            raise MalformedInput(f"deal {s.deals_used}: starter {dealt.starter}, but hand "
                                 f"{number} starts at seat {starter}")
    else:
        seed = D.hand_seed(bytes.fromhex(s.match_seed), number, attempt)
        dealt = D.deal(seed, starter)
    okey = tiles.okey_for(dealt.indicator)
    ctx.emit(E.HandStarted, hand=number, attempt=attempt, starter=dealt.starter,
             indicator=tiles.name(dealt.indicator), okey=tiles.name(okey),
             commitment=D.commitment(seed) if seed else "", deck_count=len(dealt.deck))
    ctx.emit(E.HandDealt, hand=number, seed=seed.hex(),
             racks=[tiles.names(r) for r in dealt.racks], deck=tiles.names(dealt.deck))
    for seat in range(4):
        ctx.emit(E.RackDealt, seat=seat, tiles=tiles.names(dealt.racks[seat]))


# ---------------------------------------------------------------- drawing
def _draw(ctx: _Ctx, c: E.Draw) -> None:
    hand = _my_turn(ctx, c, "draw")
    if hand.deck_left == 0:
        _end_hand(ctx, None, "deck_exhausted")
        return
    ctx.emit(E.TileDrawn, seat=c.seat, tile=tiles.name(hand.deck[hand.deck_pos]))


def available_discard(hand: HandState) -> Tile | None:
    pile = hand.seats[(hand.to_act - 1) % 4].discards
    return pile[-1] if hand.phase == "draw" and pile else None


def _take_discard(ctx: _Ctx, c: E.TakeDiscard) -> None:
    hand = _my_turn(ctx, c, "draw")
    tile = available_discard(hand)
    if tile is None:
        raise _fail("no_discard", f"seat {c.seat}: there is no discard to take")
    if hand.scratch.put_back:
        raise _fail("put_back_must_draw", f"seat {c.seat} put {tiles.name(tile)} back this "
                                          "turn and draws from the deck")
    p = ctx.profile
    if tile == hand.okey and not p.discarded_okey_takeable:
        raise _fail("okey_discard_untakeable", f"{tiles.name(tile)} is the okey: "
                                               f"{p.id} never lets a discarded okey be taken")
    seat = hand.seats[c.seat]
    if seat.opened is None and not p.put_back_allowed and not can_open_with(ctx.s, c.seat, tile):
        raise _fail("cannot_open_with_discard",
                    f"seat {c.seat} has not opened and cannot open with {tiles.name(tile)} "
                    "this turn, so may not take it")
    if seat.opened is not None and p.opened_take_must_use and \
            not can_use(ctx.s, c.seat, tile):
        raise _fail("cannot_use_discard", f"{tiles.name(tile)} cannot be laid this turn; "
                                          f"{p.id} requires a taken discard to be used")
    ctx.emit(E.DiscardTaken, seat=c.seat, tile=tiles.name(tile))


def _put_back(ctx: _Ctx, c: E.PutBack) -> None:
    hand = _my_turn(ctx, c, "play")
    if not ctx.profile.put_back_allowed:
        raise _fail("put_back_not_allowed", f"{ctx.profile.id} does not let a discard go back")
    taken = hand.scratch.taken
    if taken is None:
        raise _fail("nothing_to_put_back", f"seat {c.seat} took no discard this turn")
    if hand.scratch.laid:
        raise _fail("already_laid", "tiles were laid this turn: the discard cannot go back")
    ctx.emit(E.DiscardPutBack, seat=c.seat, tile=tiles.name(taken))


# ---------------------------------------------------------------- declarations
def _declare_pairs(ctx: _Ctx, c: E.DeclarePairs) -> None:
    hand = _my_turn(ctx, c)
    if not ctx.profile.pairs_need_declaration:
        raise _fail("not_applicable", f"{ctx.profile.id} has no pairs declaration")
    seat = hand.seats[c.seat]
    if seat.opened is not None or seat.declared_pairs:
        raise _fail("already_declared", f"seat {c.seat} has already declared or opened")
    ctx.emit(E.PairsDeclared, seat=c.seat)


def _show_indicator(ctx: _Ctx, c: E.ShowIndicator) -> None:
    hand = _my_turn(ctx, c)
    if not ctx.profile.indicator_pair:
        raise _fail("not_applicable", f"{ctx.profile.id} has no indicator pair")
    seat = hand.seats[c.seat]
    if seat.has_played or hand.scratch.taken is not None or \
            (c.seat != hand.starter and hand.phase != "draw"):
        raise _fail("too_late", "the indicator's twin is shown before the seat first draws")
    if seat.shown_indicator:
        raise _fail("already_shown", f"seat {c.seat} has already shown the indicator")
    if hand.indicator not in seat.rack:
        raise _fail("tile_not_in_rack", f"seat {c.seat} does not hold the indicator's twin "
                                        f"{tiles.name(hand.indicator)}")
    ctx.emit(E.IndicatorShown, seat=c.seat, tile=tiles.name(hand.indicator))


# ---------------------------------------------------------------- thresholds
def threshold(s: TableState, seat: int, kind: str) -> int:
    """What an opening of `kind` needs now (escalation and team escalation included)."""
    p = s.profile
    assert p is not None and s.hand is not None
    base = p.opening_points if kind == "points" else p.opening_pairs
    if not p.escalating_openings:
        return base
    seats = s.hand.seats
    rivals = range(4)
    if p.partners and p.team_escalation:
        if seats[(seat + 2) % 4].opened is not None:
            return base
        rivals = range((seat + 1) % 2, 4, 2)  # the other team
    best = [seats[r].opening_value for r in rivals if seats[r].opened == kind]
    return max(base, max(best) + 1) if best else base


def _tokens_in_rack(rack: Sequence[Tile], groups: Sequence[Sequence[str]], seat: int) -> None:
    need = Counter(t for g in groups for t in played_tiles(g))
    have = Counter(rack)
    for tile, n in need.items():
        if have[tile] < n:
            raise _fail("tile_not_in_rack", f"seat {seat} does not hold {n} x {tiles.name(tile)}")
    if sum(need.values()) >= len(rack):
        raise _fail("must_keep_a_discard", f"seat {seat} must keep a tile to discard")


def _check_groups(groups: object, what: str) -> list[list[str]]:
    if not isinstance(groups, list) or not all(
            isinstance(g, list) and g and all(isinstance(t, str) for t in g) for g in groups):
        raise MalformedInput(f"{what} must be a list of tile lists")
    return groups


# ---------------------------------------------------------------- opening and laying
def _open(ctx: _Ctx, c: E.Open) -> None:
    hand = _my_turn(ctx, c, "play")
    p, seat = ctx.profile, hand.seats[c.seat]
    if seat.opened is not None:
        raise _fail("already_opened", f"seat {c.seat} has already opened")
    melds, pairs = _check_groups(c.melds, "melds"), _check_groups(c.pairs, "pairs")
    if bool(melds) == bool(pairs):
        raise _fail("open_one_way", "open with melds or with pairs, never both or neither")
    groups, kind = (melds, "points") if melds else (pairs, "pairs")
    _tokens_in_rack(seat.rack, groups, c.seat)
    taken = hand.scratch.taken
    if taken is not None and taken not in [t for g in groups for t in played_tiles(g)]:
        raise _fail("must_open_with_taken_tile",
                    f"the taken discard {tiles.name(taken)} (or its twin) must be in the opening")
    try:
        if kind == "pairs" and p.pairs_need_declaration and not seat.declared_pairs:
            raise _fail("pairs_not_declared", f"seat {c.seat} must declare pairs first")
        built = [build_meld(g, hand, p.run_wraps_13_to_1, kind == "pairs",
                            pair_jokers(hand, c.seat)) for g in groups]
        value = sum(m.value() for m in built) if kind == "points" else len(built)
        need = threshold(ctx.s, c.seat, kind)
        elden = kind == "points" and value < need and _can_open_elden(ctx.s, c.seat, groups)
        if value < need and not elden:
            unit = "points" if kind == "points" else "pairs"
            raise _fail("below_threshold", f"an opening of {value} {unit} does not reach {need}")
    except IllegalMove as exc:
        if exc.code == "pairs_not_declared" or not p.penalties or not p.invalid_opening_penalty:
            raise
        ctx.emit(E.OpeningRetracted, seat=c.seat, reason=exc.message)
        ctx.emit(E.PenaltyImposed, seat=c.seat, points=p.invalid_opening_penalty,
                 reason="invalid_opening")
        return
    notation = [m.notation(hand.okey) for m in built]
    ctx.emit(E.HandOpened, seat=c.seat, kind=kind, melds=notation, value=value, threshold=need,
             elden=elden)
    _after_opening(ctx, c.seat, kind, value)


def _can_open_elden(s: TableState, seat: int, groups: Sequence[Sequence[str]]) -> bool:
    """Elden: the whole rack laid in one turn bar the last discard, no threshold."""
    p, hand = s.profile, s.hand
    assert p is not None and hand is not None
    laid = sum(len(g) for g in groups)
    if laid != len(hand.seats[seat].rack) - 1:
        return False
    return not (p.elden_only_while_nobody_opened and
                any(h.opened is not None for i, h in enumerate(hand.seats) if i != seat))


def _after_opening(ctx: _Ctx, seat: int, kind: str, value: int) -> None:
    p, hand = ctx.profile, ctx.hand
    taken = hand.scratch.taken
    if taken is not None and p.penalties and p.opened_with_discard_multiplier:
        source = hand.scratch.taken_from
        points = p.opened_with_discard_multiplier * tiles.face_value(taken, hand.okey)
        ctx.emit(E.PenaltyImposed, seat=source, points=points, reason="opener_used_discard")
    _maybe_siler(ctx, seat)
    if p.void_when_all_open_pairs and all(h.opened == "pairs" for h in ctx.hand.seats):
        _end_hand(ctx, None, "void")


def _maybe_siler(ctx: _Ctx, seat: int) -> None:
    p, hand = ctx.profile, ctx.hand
    me = hand.seats[seat]
    if me.opened is None or not p.siler:
        return
    if not me.siler and me.opened_turn == ctx.s.turn and \
            scoring.siler_applies(p, me.opened, me.opening_value):
        ctx.emit(E.PenaltyImposed, seat=seat, points=scoring.siler_adjustment(p),
                 reason="siler")


def _lay(ctx: _Ctx, c: E.Lay) -> None:
    hand = _my_turn(ctx, c, "play")
    p, seat = ctx.profile, hand.seats[c.seat]
    if seat.opened is None:
        raise _fail("not_opened", f"seat {c.seat} must open before laying melds")
    melds, pairs = _check_groups(c.melds, "melds"), _check_groups(c.pairs, "pairs")
    if bool(melds) == bool(pairs):
        raise _fail("lay_one_way", "lay melds or pairs, one kind per command")
    if melds and seat.opened == "pairs":
        raise _fail("pairs_opener_cannot_lay_melds",
                    f"seat {c.seat} opened with pairs and may not lay runs or groups")
    if pairs and seat.opened == "points" and \
            not any(h.opened == "pairs" for h in hand.seats):
        raise _fail("pairs_not_allowed", "a points-opener may lay pairs only after somebody "
                                         "opened with pairs")
    groups = melds or pairs
    _tokens_in_rack(seat.rack, groups, c.seat)
    built = [build_meld(g, hand, p.run_wraps_13_to_1, bool(pairs), pair_jokers(hand, c.seat))
             for g in groups]
    ctx.emit(E.MeldsLaid, seat=c.seat, melds=[m.notation(hand.okey) for m in built],
             pairs=bool(pairs))
    _maybe_siler(ctx, c.seat)


def _may_touch_table(ctx: _Ctx, c: E.Command, action: str) -> SeatHand:
    """Lay-off and okey-taking share their gates: opened, the opening-turn and wait rules."""
    p, hand = ctx.profile, ctx.hand
    seat = hand.seats[c.seat]
    if seat.opened is None:
        raise _fail("not_opened", f"seat {c.seat} must open before it can {action}")
    if seat.opened_turn == ctx.s.turn and not p.lay_off_in_opening_turn:
        raise _fail("must_wait_a_round", f"{p.id}: no {action} in the opening turn")
    if seat.elden_opening and seat.opened_turn == ctx.s.turn and not p.elden_lay_off_allowed:
        raise _fail("elden_turn", f"{p.id}: an elden opening below the threshold finishes "
                                  f"as it is: no {action} in that turn")
    if ctx.s.turn - seat.opened_turn < 4 * p.lay_off_wait_rounds and \
            seat.opened_turn != ctx.s.turn:
        raise _fail("must_wait_a_round", f"{p.id}: wait one full round after opening "
                                         f"before you {action}")
    return seat


def _target(hand: HandState, index: int) -> M.Meld:
    if not isinstance(index, int) or not 0 <= index < len(hand.melds):
        raise _fail("no_such_meld", f"there is no meld #{index} (the table has "
                                    f"{len(hand.melds)})")
    return hand.melds[index].meld


def _lay_off(ctx: _Ctx, c: E.LayOff) -> None:
    hand = _my_turn(ctx, c, "play")
    p = ctx.profile
    seat = _may_touch_table(ctx, c, "lay off")
    if not c.tiles or not all(isinstance(t, str) for t in c.tiles):
        raise MalformedInput("lay_off: tiles must be a non-empty list of tiles")
    meld = _target(hand, c.meld)
    if meld.kind == "pair":
        raise _fail("cannot_lay_off", f"meld #{c.meld} is a pair: lay new pairs with 'lay'")
    _tokens_in_rack(seat.rack, [c.tiles], c.seat)
    if seat.opened == "pairs" and p.pairs_opener_lay_off_limit is not None and \
            hand.scratch.lay_offs + len(c.tiles) > p.pairs_opener_lay_off_limit:
        raise _fail("lay_off_limit", f"a pairs-opener lays off at most "
                                     f"{p.pairs_opener_lay_off_limit} tiles a turn in {p.id}")
    placed_tokens, end = _lay_off_plan(hand, meld, c, p.run_wraps_13_to_1)
    if p.run_end_lay_off_limit is not None and end != "group":
        before = next((n for m, e, n in hand.scratch.end_counts if (m, e) == (c.meld, end)), 0)
        if before + len(placed_tokens) > p.run_end_lay_off_limit:
            raise _fail("lay_off_limit", f"at most {p.run_end_lay_off_limit} tiles at each end "
                                         f"of a run per turn ({p.id}); meld #{c.meld} {end}")
    ctx.emit(E.TilesLaidOff, seat=c.seat, meld=c.meld, tiles=placed_tokens, end=end)
    _maybe_siler(ctx, c.seat)


def _lay_off_plan(hand: HandState, meld: M.Meld, c: E.LayOff, wraps: bool
                  ) -> tuple[list[str], str]:
    """Place the tiles one by one at one end (or into a group); tokens in laying order."""
    placed = [M.place(*tiles.parse_meld_token(t), hand.okey, t) for t in c.tiles]
    if meld.kind == "group":
        grown, added = meld, []
        for token, pl in zip(c.tiles, placed, strict=True):
            if not M.lay_off_targets(pl[1], grown, wraps) and not (
                    pl[0] == hand.okey and pl[1] == hand.okey and M.missing_colours(grown)):
                raise _fail("cannot_lay_off", f"{token} does not fit group #{c.meld} "
                                              f"{meld.describe(hand.okey)}")
            if pl[0] == hand.okey and pl[1] == hand.okey:
                pl = (pl[0], tiles.make(M.missing_colours(grown)[0], grown.number))
            grown = M.extend(grown, pl, 0, wraps)
            added.append(pl)  # grown.tiles is sorted by colour: its tail is not the new tiles
        return [M.placed_name(pl, hand.okey) for pl in added], "group"
    for end in ([c.end] if c.end else ["high", "low"]):
        order = _run_order(meld, placed, end, hand.okey, wraps)
        if order is not None:
            return [M.placed_name(pl, hand.okey) for pl in order], end
    shown = " ".join(c.tiles)
    raise _fail("cannot_lay_off", f"{shown} cannot extend meld #{c.meld} "
                                  f"{meld.describe(hand.okey)}")


def _run_order(meld: M.Meld, placed: list[M.Placed], end: str, okey: Tile, wraps: bool
               ) -> list[M.Placed] | None:
    """The tiles in the order that extends `meld` at `end`, or None if they do not."""
    pool = list(placed)
    grown, out = meld, []
    while pool:
        positions = M.extension_positions(grown, wraps)
        pos = (grown.start - 1) if end == "low" else grown.start + len(grown.tiles)
        if pos not in positions:
            return None
        want = M.stands_at(meld.colour, pos)
        pick = next((pl for pl in pool if pl[1] == want and pl[0] != okey), None) or \
            next((pl for pl in pool if pl[0] == okey and pl[1] in (want, okey)), None)
        if pick is None:
            return None
        pool.remove(pick)
        pick = (pick[0], want)
        grown = M.extend(grown, pick, pos, wraps)
        out.append(pick)
    return out


def _take_okey(ctx: _Ctx, c: E.TakeOkey) -> None:
    hand = _my_turn(ctx, c, "play")
    p = ctx.profile
    seat = _may_touch_table(ctx, c, "take an okey")
    meld = _target(hand, c.meld)
    if not c.tiles or not all(isinstance(t, str) for t in c.tiles):
        raise MalformedInput("take_okey: tiles must be a non-empty list of tiles")
    put = _parse_at(c.tiles, "take_okey")
    have = Counter(seat.rack)
    for t, n in Counter(put).items():
        if have[t] < n:
            raise _fail("tile_not_in_rack", f"seat {c.seat} does not hold {tiles.name(t)}")
    jokers = [stands for played, stands in meld.tiles if played == hand.okey]
    if not jokers:
        raise _fail("no_okey_there", f"meld #{c.meld} {meld.describe(hand.okey)} holds no okey")
    if meld.kind == "group" and len(meld.tiles) == 3:
        if p.take_okey_from_groups == "four_only":
            raise _fail("ambiguous_okey", f"{p.id}: the okey in a 3-tile group cannot be taken")
        need = sorted([*M.missing_colours(meld), tiles.colour_of(jokers[0])])
        wanted = sorted(tiles.make(col, meld.number) for col in need)
        if sorted(put) != wanted:
            raise _fail("wrong_tiles", f"to take the okey from group #{c.meld} put all of "
                                       f"{' '.join(tiles.names(wanted))}")
    elif len(put) != 1 or put[0] not in jokers:
        raise _fail("wrong_tiles", f"the okey in meld #{c.meld} stands for "
                                   f"{' or '.join(tiles.names(jokers))}; put exactly that tile")
    replace_okey(meld, hand.okey, put)  # checks the swap is well-formed
    ctx.emit(E.OkeyTaken, seat=c.seat, meld=c.meld, tiles=tiles.names(put),
             okey=tiles.name(hand.okey))
    owner = hand.melds[c.meld].owner
    if p.penalties and p.okey_taken_penalty and owner != c.seat:
        ctx.emit(E.PenaltyImposed, seat=owner, points=p.okey_taken_penalty, reason="okey_taken")


# ---------------------------------------------------------------- discarding and finishing
def _discard(ctx: _Ctx, c: E.Discard, timed_out: bool = False) -> None:
    hand = _my_turn(ctx, c, "play")
    p, seat = ctx.profile, hand.seats[c.seat]
    tile = _parse_at([c.tile], "discard")[0] if isinstance(c.tile, str) else None
    if tile is None:
        raise MalformedInput("discard: tile must be a tile name")
    if tile not in seat.rack:
        raise _fail("tile_not_in_rack", f"seat {c.seat} does not hold {tiles.name(tile)}")
    taken = hand.scratch.taken
    if not timed_out and taken is not None:
        if seat.opened is None:
            raise _fail("must_open_with_taken_tile", f"seat {c.seat} took "
                        f"{tiles.name(taken)} and must open with it (or put it back)")
        if p.opened_take_must_use and taken not in hand.scratch.laid:
            raise _fail("taken_tile_not_used", f"the taken {tiles.name(taken)} must be laid "
                                               f"this turn ({p.id})")
    finishing = len(seat.rack) == 1
    penalty = None if finishing else _discard_penalty(ctx, seat, tile)
    ctx.emit(E.TileDiscarded, seat=c.seat, tile=tiles.name(tile))
    if penalty is not None:
        ctx.emit(E.PenaltyImposed, seat=c.seat, points=penalty[0], reason=penalty[1])
    if finishing:
        _end_hand(ctx, c.seat, _finish_kind(ctx.s, c.seat, tile))


def _discard_penalty(ctx: _Ctx, seat: SeatHand, tile: Tile) -> tuple[int, str] | None:
    """RULES.md 6: an okey, or a tile that fits a run or group on the table, costs 101
    (north-sultan: even before opening). The finishing discard is never penalised."""
    p, hand = ctx.profile, ctx.hand
    if not p.penalties:
        return None
    if tile == hand.okey:
        return (p.okey_discard_penalty, "okey_discarded") if p.okey_discard_penalty else None
    if (seat.opened is not None or p.playable_discard_penalty_unopened) and \
            p.playable_discard_penalty and M.is_playable(
                tile, [m.meld for m in hand.melds], hand.okey, p.run_wraps_13_to_1):
        return (p.playable_discard_penalty, "playable_discard")
    return None


def _finish_kind(s: TableState, seat: int, last: Tile) -> str:
    p, hand = s.profile, s.hand
    assert p is not None and hand is not None
    me = hand.seats[seat]
    okey = last == hand.okey
    elden = me.opened_turn == s.turn and \
        not (p.elden_only_while_nobody_opened and
             any(h.opened is not None for i, h in enumerate(hand.seats) if i != seat)) and \
        (p.elden_lay_off_allowed or not hand.scratch.laid_off)
    if elden:
        return "elden_okey" if okey else "elden"
    if me.opened == "pairs":
        return "pairs_okey" if okey else "pairs"
    return "okey" if okey else "normal"


def _end_hand(ctx: _Ctx, finisher: int | None, finish: str) -> None:
    p, hand = ctx.profile, ctx.hand
    opened = [h.opened for h in hand.seats]
    racks = [h.rack for h in hand.seats]
    result = scoring.hand_scores(p, hand.okey, finisher, finish, opened, racks,  # type: ignore[arg-type]
                                 p.partners)
    ctx.emit(E.HandEnded, hand=hand.number, finish=finish, finished_by=finisher,
             scores=list(result.scores), racks=[tiles.names(r) for r in racks],
             seed=hand.seed, replay=result.replay)
    if result.replay:
        _deal_hand(ctx, hand.number, hand.attempt + 1, hand.starter)
    elif hand.number >= ctx.s.hands_total:
        _end_match(ctx)
    else:
        _deal_hand(ctx, hand.number + 1, 0, (hand.starter + 1) % 4)


def _end_match(ctx: _Ctx) -> None:
    s, p = ctx.s, ctx.profile
    totals = s.totals()
    rating = None
    if p.rating == "classic":  # partners are rated by team totals (seeds/003)
        rate = scoring.classic_team_rating_changes if p.partners else \
            scoring.classic_rating_changes
        rating = rate(totals, max(1, len(s.hand_scores)), s.left)
    teams = list(scoring.team_totals(totals)) if p.partners else None
    ctx.emit(E.MatchEnded, totals=totals, places=scoring.places(totals),
             rating_changes=rating, team_totals=teams)


# ---------------------------------------------------------------- time-outs
def _timeout(ctx: _Ctx, c: E.TimeOut) -> None:
    hand = ctx.hand
    if c.turn != ctx.s.turn or hand.phase == "over":
        raise _fail("stale_timeout", f"timeout for turn {c.turn}; the table is at turn "
                                     f"{ctx.s.turn}")
    if c.seat != hand.to_act:
        raise _fail("not_your_turn", f"timeout names seat {c.seat}; seat {hand.to_act} acts")
    ctx.emit(E.TurnTimedOut, seat=c.seat, turn=c.turn)
    taken, laid = hand.scratch.taken, hand.scratch.laid
    # a taken discard the player still owes a use of (unopened: the opening; okey-oyna: a
    # lay) goes back while nothing is laid, or else is the tile discarded; a free take stays
    owed = taken is not None and hand.phase == "play" and (
        hand.seats[c.seat].opened is None
        or (ctx.profile.opened_take_must_use and taken not in laid))
    if owed and not laid:
        assert taken is not None
        ctx.emit(E.DiscardPutBack, seat=c.seat, tile=tiles.name(taken))
    if ctx.hand.phase == "draw":
        if ctx.hand.deck_left == 0:
            _end_hand(ctx, None, "deck_exhausted")
            return
        ctx.emit(E.TileDrawn, seat=c.seat, tile=tiles.name(ctx.hand.deck[ctx.hand.deck_pos]))
    tile = taken if owed and laid and taken is not None else timeout_discard(ctx.s, c.seat)
    _discard(ctx, E.Discard(table_id=c.table_id, command_id=c.command_id, seat=c.seat,
                            tile=tiles.name(tile)), timed_out=True)


def timeout_discard(s: TableState, seat: int) -> Tile:
    """The house's move for a stalled seat: the highest loose tile, never an okey or a
    playable tile when another will do."""
    p, hand = s.profile, s.hand
    assert p is not None and hand is not None
    rack = hand.seats[seat].rack
    loose = solver.arrange(rack, hand.okey, p.run_wraps_13_to_1).leftover
    pool = [t for t in loose if t != hand.okey] or [t for t in rack if t != hand.okey] or \
        list(rack)
    table = [m.meld for m in hand.melds]
    safe = [t for t in pool if not M.is_playable(t, table, hand.okey, p.run_wraps_13_to_1)]
    return max(safe or pool, key=lambda t: (tiles.face_value(t, hand.okey), -t))


# ---------------------------------------------------------------- feasibility for takes
def can_open_with(s: TableState, seat: int, tile: Tile) -> bool:
    """Could `seat` open this turn with `tile` (or its twin) in the opening?"""
    p, hand = s.profile, s.hand
    assert p is not None and hand is not None
    me = hand.seats[seat]
    rack = [*me.rack, tile]
    if not p.pairs_need_declaration or me.declared_pairs:
        # a shown indicator twin is a pairs joker, not a natural tile as well
        extra = 1 if me.shown_indicator and hand.indicator in me.rack else 0
        pool = list(without(tuple(rack), [hand.indicator])) if extra else rack
        twin = rack.count(tile) >= 2 or hand.okey in me.rack or \
            (extra == 1 and tile != hand.indicator)
        if twin and solver.most_pairs(pool, hand.okey, extra) >= threshold(s, seat, "pairs"):
            return True
    need = threshold(s, seat, "points")
    best = solver.opening(rack, hand.okey, p.run_wraps_13_to_1)
    if best.value >= need:
        if any(pl[0] == tile for m in best.melds for pl in m.tiles):
            return True
        if any(m.value() + solver.opening(without(tuple(rack), [pl[0] for pl in m.tiles]),
                                          hand.okey, p.run_wraps_13_to_1).value >= need
               for m in melds_with(rack, tile, hand.okey, p.run_wraps_13_to_1)):
            return True
    return _can_go_elden_with(s, seat, rack, tile)


def _can_go_elden_with(s: TableState, seat: int, rack: list[Tile], tile: Tile) -> bool:
    """Could `rack` (holding the taken `tile`) be laid whole bar one discard, `tile` laid?
    An elden opening is an opening, with no threshold (section 7)."""
    p, hand = s.profile, s.hand
    assert p is not None and hand is not None
    if p.elden_only_while_nobody_opened and \
            any(h.opened is not None for i, h in enumerate(hand.seats) if i != seat):
        return False
    wraps = p.run_wraps_13_to_1
    first = solver.arrange(rack, hand.okey, wraps)
    if len(first.leftover) == 1 and (first.leftover[0] != tile or rack.count(tile) > 1):
        return True
    if hand.okey not in rack and solver.leftover_value(first.leftover, hand.okey) > 13:
        return False  # a single left-over tile is worth 13 at most
    for u in sorted(set(rack)):
        if u == tile and rack.count(tile) < 2:
            continue
        if not solver.arrange(without(tuple(rack), [u]), hand.okey, wraps).leftover:
            return True
    return False


def can_use(s: TableState, seat: int, tile: Tile) -> bool:
    """Could an opened `seat` lay `tile` this turn (on the table or in a new meld)?"""
    p, hand = s.profile, s.hand
    assert p is not None and hand is not None
    if M.is_playable(tile, [m.meld for m in hand.melds], hand.okey, p.run_wraps_13_to_1):
        return True
    me = hand.seats[seat]
    # a new pair or meld with it, keeping a tile for the discard
    if (me.opened == "pairs" or any(h.opened == "pairs" for h in hand.seats)) and \
            len(me.rack) >= 2 and (tile in me.rack or hand.okey in me.rack or tile == hand.okey):
        return True  # pairs are open to this seat
    if me.opened == "pairs":  # a pairs-opener lays no runs or groups
        return False
    rack = [*me.rack, tile]
    return any(len(m.tiles) <= len(me.rack)
               for m in melds_with(rack, tile, hand.okey, p.run_wraps_13_to_1))


def melds_with(rack: Sequence[Tile], tile: Tile, okey: Tile, wraps: bool) -> list[M.Meld]:
    """Runs (3-5 long: longer runs split) and groups from `rack` that use `tile`."""
    have = Counter(rack)
    jokers = have.pop(okey, 0)
    stands = okey if tile == FAKE else tile
    colour, number = tiles.colour_of(stands), tiles.number_of(stands)
    shapes: list[tuple[str, list[Tile], int]] = []
    top = 14 if wraps else 13
    positions = [number] + ([14] if wraps and number == 1 else [])
    for pos in positions:
        for length in (3, 4, 5):
            for start in range(max(1, pos - length + 1), min(pos, top - length + 1) + 1):
                shapes.append(("run", [M.stands_at(colour, q)
                                       for q in range(start, start + length)], start))
    others = [c for c in range(4) if c != colour]
    for size in (2, 3):
        for i in range(len(others)):
            for j in range(i + 1, len(others)):
                cols = [others[i], others[j]] if size == 2 else others
                shapes.append(("group", [stands, *(tiles.make(x, number) for x in cols)], 0))
    out = []
    for kind, need, start in shapes:
        pool = Counter(have)
        pool[stands] = pool.get(stands, 0)
        placed: list[M.Placed] = []
        spare = jokers
        first = True
        for want in need:
            natural = FAKE if want == okey and pool[FAKE] > 0 else want
            if first and want == stands:
                natural, first = tile, False
            if pool[natural] > 0:
                pool[natural] -= 1
                placed.append((natural, want))
            elif spare > 0:
                spare -= 1
                placed.append((okey, want))
            else:
                break
        else:
            if any(pl[0] == tile for pl in placed):
                meld = M.Meld("run", tuple(placed), start) if kind == "run" else \
                    M.as_group(placed)
                if meld is not None:
                    out.append(meld)
    return out


_HANDLERS: dict[type[E.Command], Callable[[_Ctx, Any], None]] = {
    E.CreateTable: _create_table,
    E.Sit: _sit,
    E.Leave: _leave,
    E.ReplaceWithBot: _replace_with_bot,
    E.StartMatch: _start_match,
    E.Draw: _draw,
    E.TakeDiscard: _take_discard,
    E.PutBack: _put_back,
    E.DeclarePairs: _declare_pairs,
    E.ShowIndicator: _show_indicator,
    E.Open: _open,
    E.Lay: _lay,
    E.LayOff: _lay_off,
    E.TakeOkey: _take_okey,
    E.Discard: _discard,
    E.TimeOut: _timeout,
}
