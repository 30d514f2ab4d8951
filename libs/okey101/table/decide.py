"""decide(state, command) -> the events it causes, or a Rejection. Pure.

One handler per command. A handler asks the rule queries (`okey101.table.rules`) whether
the seat may act, checks the command's own arguments, and emits typed events; every
emitted event is folded at once into a working state (`_Ctx.emit`), so later checks in the
same decision (a finishing discard, the next deal) read the state they create.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypedDict, assert_never, cast

from okey101 import melds as M
from okey101 import scoring, tiles
from okey101.errors import IllegalMove, MalformedInput
from okey101.profiles import Profile, resolve
from okey101.table import deal as D
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.table.evolve import evolve, fold_laid
from okey101.table.notation import build_meld, pair_jokers, played_tiles
from okey101.table.state import HandState, TableState
from okey101.terms import SEATS, FinishKind, OpeningKind
from okey101.tiles import Tile

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
        _handle(ctx, command)
        return ctx.s, ctx.events
    except IllegalMove as exc:
        return state, E.Rejection(code=exc.code, message=exc.message)
    except MalformedInput as exc:
        return state, E.Rejection(code=getattr(exc, "code", "malformed"), message=str(exc))


class Head(TypedDict):
    """The envelope of the next event: its table, its seq, its time."""

    table_id: str
    seq: int
    at: int


class _Ctx:
    __slots__ = ("at", "command", "events", "s", "table_id")

    def __init__(self, state: TableState, command: E.Command) -> None:
        self.s = state
        self.command = command
        self.events: list[E.Event] = []
        self.table_id = command.table_id  # the envelope of every event: its table, its time
        self.at = command.at

    def head(self) -> Head:
        return {"table_id": self.table_id, "seq": self.s.seq + 1, "at": self.at}

    @property
    def seq(self) -> int:
        """The next event's seq (the hot handlers spell the envelope out: `head()`
        unpacked costs more than the event's fold)."""
        return self.s.seq + 1

    def emit(self, event: E.Event) -> None:
        self.s = evolve(self.s, event)
        self.events.append(event)

    def emit_laid(self, event: E.HandOpened | E.MeldsLaid, built: list[M.Meld],
                  laid: list[Tile]) -> None:
        """`emit` for melds the decision has just built from the event's own tokens (laying
        `laid`, in the tokens' order): folded without parsing and classifying them again."""
        self.s = fold_laid(self.s, event, built, laid)
        self.events.append(event)

    @property
    def profile(self) -> Profile:
        assert self.s.profile is not None
        return self.s.profile

    @property
    def hand(self) -> HandState:
        return R.playing_hand(self.s)


_Handler = Callable[[_Ctx, Any], None]
_HANDLERS: dict[type[E.Command], _Handler] = {}


def _handle(ctx: _Ctx, c: E.Command) -> None:
    handler = _HANDLERS.get(type(c))
    if handler is None:
        handler = _HANDLERS[type(c)] = _handler_for(cast(E.AnyCommand, c))
    handler(ctx, c)


def _handler_for(c: E.AnyCommand) -> _Handler:
    """The handler of `c`'s type: every command type has its case (mypy checks the match
    is exhaustive); `_handle` keeps the answer per type, so a command costs a dict lookup."""
    match c:
        case E.Draw():
            return _draw
        case E.Discard():
            return _discard
        case E.Finish():
            return _finish
        case E.TakeDiscard():
            return _take_discard
        case E.LayOff():
            return _lay_off
        case E.Lay():
            return _lay
        case E.Open():
            return _open
        case E.TimeOut():
            return _timeout
        case E.TakeOkey():
            return _take_okey
        case E.PutBack():
            return _put_back
        case E.DeclarePairs():
            return _declare_pairs
        case E.ShowIndicator():
            return _show_indicator
        case E.CreateTable():
            return _create_table
        case E.Sit():
            return _sit
        case E.Leave():
            return _leave
        case E.ReplaceWithBot():
            return _replace_with_bot
        case E.StartMatch():
            return _start_match
        case E.RequestBots():
            return _request_bots
        case E.ReportDisconnect():
            return _report_disconnect
        case E.ReportReconnect():
            return _report_reconnect
        case E.ExpireReconnectWindow():
            return _expire_reconnect_window
        case E.CommitSeed():
            return _commit_seed
        case E.RevealSeed():
            return _reveal_seed
        case E.CloseSeeding():
            return _close_seeding
        case _:
            assert_never(c)


# ---------------------------------------------------------------- envelope checks
# what a command's envelope must name, by command type (`_envelope_of`)
_CREATES, _TABLE_WIDE, _SEAT_ONLY, _PLAYER_AT_SEAT = range(4)
_ENVELOPES: dict[type[E.Command], int] = {}


def _envelope_of(c: E.Command) -> int:
    if isinstance(c, E.CreateTable):
        return _CREATES
    if isinstance(c, (E.RequestBots, E.CloseSeeding)):
        return _TABLE_WIDE  # a room's owner need not sit; a seeding window closes for the table
    if isinstance(c, (E.Sit, E.TimeOut, E.ReplaceWithBot, E.ExpireReconnectWindow)):
        return _SEAT_ONLY
    return _PLAYER_AT_SEAT


def _check_envelope(s: TableState, c: E.Command) -> None:
    if not isinstance(c.table_id, str) or not c.table_id:
        raise MalformedInput("command has no table_id")
    R.check_addressed(s, c.table_id, c.seq, c.command_id)
    kind = _ENVELOPES.get(type(c))
    if kind is None:
        kind = _ENVELOPES[type(c)] = _envelope_of(c)
    if kind == _CREATES:
        return
    R.check_exists(s, c.table_id)
    if kind == _TABLE_WIDE:
        return
    if kind == _SEAT_ONLY:
        R.check_seat_exists(c.seat)
        return
    R.check_seated(s, c.seat, c.player_id)


# ---------------------------------------------------------------- seating
def _create_table(ctx: _Ctx, c: E.CreateTable) -> None:
    R.check_new(ctx.s, c.table_id)
    if c.private and not c.player_id:
        raise MalformedInput("create_table: a private room needs its owner's player_id")
    profile = resolve({"base": c.profile, "options": c.options})
    ctx.emit(E.TableCreated(**ctx.head(), profile=profile, private=c.private,
                            owner=c.player_id if c.private else ""))


def _sit(ctx: _Ctx, c: E.Sit) -> None:
    if not c.player_id:
        raise MalformedInput("sit: player_id is empty")
    R.check_sit(ctx.s, c.seat, c.player_id)
    if c.bot:
        R.check_bot_may_sit(ctx.s)
        _seat_bot(ctx, c.seat, c.player_id, R.check_bot_level(c.bot_level, "sit"))
    else:
        ctx.emit(E.PlayerSat(**ctx.head(), seat=c.seat, player_id=c.player_id))


def _seat_bot(ctx: _Ctx, seat: int, player_id: str, level: int) -> None:
    """A bot sits: what the public sees of it is a player sitting down, labelled a bot
    only where the house labels bots; its level is the server record's (section 11)."""
    ctx.emit(E.PlayerSat(**ctx.head(), seat=seat, player_id=player_id,
                         bot=ctx.profile.bots_labelled, bot_level=level))


def _leave(ctx: _Ctx, c: E.Leave) -> None:
    ctx.emit(E.PlayerLeft(**ctx.head(), seat=c.seat, player_id=c.player_id))


def _replace_with_bot(ctx: _Ctx, c: E.ReplaceWithBot) -> None:
    """An empty seat, or the sender's own (it leaves), goes to the bot the sender names."""
    R.check_bot_may_sit(ctx.s)
    level = R.check_bot_level(c.bot_level, "replace_with_bot")
    if not c.bot_id:
        raise MalformedInput("replace_with_bot: bot_id is empty (the sender names the bot)")
    occupant = R.check_seat_free_for(ctx.s, c.seat, c.player_id)
    if occupant:  # a rejection below still changes nothing: the decision is dropped
        ctx.emit(E.PlayerLeft(**ctx.head(), seat=c.seat, player_id=occupant))
    R.check_sit(ctx.s, c.seat, c.bot_id)
    _seat_bot(ctx, c.seat, c.bot_id, level)


def _request_bots(ctx: _Ctx, c: E.RequestBots) -> None:
    R.check_request_bots(ctx.s, c.player_id)
    ctx.emit(E.BotsRequested(**ctx.head(), player_id=c.player_id))


# ---------------------------------------------------------------- connections (section 9)
def _report_disconnect(ctx: _Ctx, c: E.ReportDisconnect) -> None:
    window = R.check_report_disconnect(ctx.s, c.seat)
    ctx.emit(E.PlayerDisconnected(**ctx.head(), seat=c.seat, player_id=c.player_id,
                                  reconnect_by=c.at + window))


def _report_reconnect(ctx: _Ctx, c: E.ReportReconnect) -> None:
    R.check_report_reconnect(ctx.s, c.seat)
    ctx.emit(E.PlayerReconnected(**ctx.head(), seat=c.seat, player_id=c.player_id))


def _expire_reconnect_window(ctx: _Ctx, c: E.ExpireReconnectWindow) -> None:
    away = R.check_reconnect_window_passed(ctx.s, c.seat, c.player_id, c.since, c.at)
    ctx.emit(E.PlayerLeft(**ctx.head(), seat=c.seat, player_id=away.player_id,
                          reason="disconnected"))


def _start_match(ctx: _Ctx, c: E.StartMatch) -> None:
    s = ctx.s
    R.check_start_match(s)
    if c.deals is not None:
        if not c.deals:
            raise MalformedInput("start_match: deals is empty")
        for i, d in enumerate(c.deals):
            _stacked(d, f"deal {i}", ctx.profile)
        hands = len(c.deals)
    else:
        try:
            seed = bytes.fromhex(c.seed)
        except ValueError:
            raise MalformedInput("start_match: seed must be hex") from None
        if len(seed) < 16:
            raise MalformedInput("start_match: seed must be at least 16 bytes")
        hands = ctx.profile.hands_per_match
    ctx.emit(E.MatchStarted(**ctx.head(), hands=hands, players=list(s.players)))
    ctx.emit(E.MatchSeeded(**ctx.head(), seed=c.seed, deals=c.deals))
    _deal_hand(ctx, 1, 0, c.deals[0].starter if c.deals else 0)


def _stacked(d: E.StackedDeal, where: str, p: Profile) -> D.Dealt:
    return D.stacked_deal(d.racks, d.indicator, d.deck, d.starter, where, _sizes(p))


def _sizes(p: Profile) -> D.Sizes:
    return D.Sizes(p.starter_tiles, p.other_tiles)


def _deal_hand(ctx: _Ctx, number: int, attempt: int, starter: int) -> None:
    s = ctx.s
    if s.deals is not None:
        if s.deals_used >= len(s.deals):
            _end_match(ctx)
            return
        dealt = _stacked(s.deals[s.deals_used], f"deal {s.deals_used}", ctx.profile)
        if (number > 1 or attempt > 0) and dealt.starter != starter:  # moves each hand §2
            raise MalformedInput(f"deal {s.deals_used}: starter {dealt.starter}, but hand "
                                 f"{number} starts at seat {starter}")
        _start_hand(ctx, number, attempt, dealt, b"", 1)
    elif R.opens_seeding(s):
        _open_seeding(ctx, number, attempt, starter)
    else:
        seed = D.hand_seed(bytes.fromhex(s.match_seed), number, attempt)
        _start_hand(ctx, number, attempt, D.deal(seed, starter, _sizes(ctx.profile)), seed, 1)


def _start_hand(ctx: _Ctx, number: int, attempt: int, dealt: D.Dealt, seed: bytes,
                version: int) -> None:
    okey = tiles.okey_for(dealt.indicator)
    ctx.emit(E.HandStarted(
        **ctx.head(), hand=number, attempt=attempt, starter=dealt.starter,
        indicator=tiles.name(dealt.indicator), okey=tiles.name(okey),
        commitment=D.commitment(seed) if seed else "", deck_count=len(dealt.deck),
        deal_version=version))
    racks = [tiles.names(r) for r in dealt.racks]
    ctx.emit(E.HandDealt(table_id=ctx.table_id, seq=ctx.seq, at=ctx.at, hand=number,
                         seed=seed.hex(), racks=racks, deck=tiles.names(dealt.deck)))
    for seat in range(SEATS):
        ctx.emit(E.RackDealt(table_id=ctx.table_id, seq=ctx.seq, at=ctx.at, seat=seat,
                             tiles=list(racks[seat])))


# ---------------------------------------------------------------- seeding (DEAL.md v2)
def _server_share(s: TableState, number: int, attempt: int) -> bytes:
    return D.server_share(bytes.fromhex(s.match_seed), number, attempt)


def _open_seeding(ctx: _Ctx, number: int, attempt: int, starter: int) -> None:
    """The server commits to its share of the hand; the people may commit to seeds."""
    share = _server_share(ctx.s, number, attempt)
    ctx.emit(E.SeedingOpened(**ctx.head(), hand=number, attempt=attempt, starter=starter,
                             server_commitment=D.commitment(share),
                             commit_by=ctx.command.at + R.seeding_window_ms(ctx.s)))


def _hex32(value: object, what: str) -> str:
    """`value` as 32 bytes in lower-case hex, or malformed input naming `what`."""
    if not isinstance(value, str):
        raise MalformedInput(f"{what} must be hex")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise MalformedInput(f"{what} {value[:80]!r} is not hex") from None
    if len(raw) != D.SEED_BYTES:
        raise MalformedInput(f"{what} is {len(raw)} bytes; it must be exactly "
                             f"{D.SEED_BYTES} ({2 * D.SEED_BYTES} hex digits)")
    return raw.hex()


def _commit_seed(ctx: _Ctx, c: E.CommitSeed) -> None:
    R.check_commit_seed(ctx.s, c.seat, c.at)
    commitment = _hex32(c.commitment, "commit_seed: commitment")
    ctx.emit(E.SeedCommitted(**ctx.head(), seat=c.seat, commitment=commitment))
    if R.are_commits_complete(ctx.s):
        _close_commits(ctx)


def _reveal_seed(ctx: _Ctx, c: E.RevealSeed) -> None:
    g = R.check_reveal_seed(ctx.s, c.seat, c.at)
    seed = _hex32(c.client_seed, "reveal_seed: client_seed")
    if D.commitment(bytes.fromhex(seed)) == g.commitments[c.seat]:
        ctx.emit(E.SeedRevealed(**ctx.head(), seat=c.seat, client_seed=seed))
    else:  # the value is not published: it is nobody's share
        ctx.emit(E.SeedForfeited(**ctx.head(), seat=c.seat, player_id=c.player_id,
                                 reason="mismatch"))
    if R.are_reveals_complete(ctx.s):
        _close_seeding_and_deal(ctx)


def _close_seeding(ctx: _Ctx, c: E.CloseSeeding) -> None:
    g = R.check_close_seeding(ctx.s, c.hand, c.attempt, c.stage, c.at)
    if c.stage == "commit":
        _close_commits(ctx)
        return
    for seat in range(SEATS):
        if g.commitments[seat] and not g.client_seeds[seat] and not g.forfeited[seat]:
            ctx.emit(E.SeedForfeited(**ctx.head(), seat=seat, player_id=g.committers[seat],
                                     reason="not_revealed"))
    _close_seeding_and_deal(ctx)


def _close_commits(ctx: _Ctx) -> None:
    """No more commitments: the seats that committed reveal, or, with none, the deal."""
    g = ctx.s.seeding
    assert g is not None
    committed = [seat for seat in range(SEATS) if g.commitments[seat]]
    if not committed:
        _close_seeding_and_deal(ctx)
        return
    ctx.emit(E.SeedCommitsClosed(**ctx.head(), hand=g.hand, committed=committed,
                                 reveal_by=ctx.command.at + R.seeding_window_ms(ctx.s)))


def _close_seeding_and_deal(ctx: _Ctx) -> None:
    """The hand's seed from the server's share and the revealed client seeds (version 2)."""
    g = ctx.s.seeding
    assert g is not None
    ctx.emit(E.SeedingClosed(**ctx.head(), hand=g.hand, attempt=g.attempt,
                             client_seeds=list(g.client_seeds)))
    shares = [bytes.fromhex(x) if x else None for x in g.client_seeds]
    seed = D.hand_seed_v2(_server_share(ctx.s, g.hand, g.attempt), shares)
    _start_hand(ctx, g.hand, g.attempt, D.deal(seed, g.starter, _sizes(ctx.profile)), seed, 2)


# ---------------------------------------------------------------- drawing
def _draw(ctx: _Ctx, c: E.Draw) -> None:
    hand = R.check_draw(ctx.s, c.seat)
    if hand.deck_left == 0:
        _end_hand(ctx, None, "deck_exhausted")
        return
    ctx.emit(E.TileDrawn(table_id=ctx.table_id, seq=ctx.s.seq + 1, at=ctx.at, seat=c.seat,
                         tile=tiles.name(hand.deck[hand.deck_pos])))


def _take_discard(ctx: _Ctx, c: E.TakeDiscard) -> None:
    tile = R.check_take_discard(ctx.s, c.seat)
    ctx.emit(E.DiscardTaken(table_id=ctx.table_id, seq=ctx.s.seq + 1, at=ctx.at, seat=c.seat,
                            tile=tiles.name(tile)))


def _declare_pairs(ctx: _Ctx, c: E.DeclarePairs) -> None:
    R.check_declare_pairs(ctx.s, c.seat)
    ctx.emit(E.PairsDeclared(**ctx.head(), seat=c.seat))


def _show_indicator(ctx: _Ctx, c: E.ShowIndicator) -> None:
    tile = R.check_show_indicator(ctx.s, c.seat)
    ctx.emit(E.IndicatorShown(**ctx.head(), seat=c.seat, tile=tiles.name(tile)))
    cost = ctx.profile.indicator_show_cost
    if cost:  # düz: every other seat loses it at once
        for seat in range(SEATS):
            if seat != c.seat:
                ctx.emit(E.PenaltyImposed(**ctx.head(), seat=seat, points=cost,
                                          reason="indicator_shown"))


def _put_back(ctx: _Ctx, c: E.PutBack) -> None:
    taken = R.check_put_back(ctx.s, c.seat)
    ctx.emit(E.DiscardPutBack(**ctx.head(), seat=c.seat, tile=tiles.name(taken)))


# ---------------------------------------------------------------- opening and laying
def _groups(groups: object, what: str) -> list[list[str]]:
    if not isinstance(groups, list) or not all(
            isinstance(g, list) and g and all(isinstance(t, str) for t in g) for g in groups):
        raise MalformedInput(f"{what} must be a list of tile lists")
    return groups


def _laid(groups: Sequence[Sequence[str]]) -> list[Tile]:
    """The tiles `groups` put down, in the tokens' order."""
    return [t for g in groups for t in played_tiles(g)]


def _need(groups: Sequence[Sequence[str]]) -> Counter[int]:
    return Counter(_laid(groups))


def _open(ctx: _Ctx, c: E.Open) -> None:
    seat = R.check_open(ctx.s, c.seat)
    hand, p = ctx.hand, ctx.profile
    melds, pairs = _groups(c.melds, "melds"), _groups(c.pairs, "pairs")
    R.check_one_form("open", bool(melds), bool(pairs))
    groups = melds or pairs
    kind: OpeningKind = "points" if melds else "pairs"
    laid = _laid(groups)
    R.tokens_in_rack(seat.rack, Counter(laid), c.seat)
    R.check_opens_with_taken(hand, laid)
    try:
        if kind == "pairs":
            R.check_may_open_with_pairs(ctx.s, c.seat)
        jokers = pair_jokers(hand, c.seat)
        built = [build_meld(g, hand, p.run_wraps_13_to_1, kind == "pairs", jokers)
                 for g in groups]
        value = sum(M.counted_value(m, p.meld_value) for m in built) if kind == "points" \
            else len(built)
        need, elden = R.check_reaches_threshold(ctx.s, c.seat, kind, value,
                                                sum(len(g) for g in groups))
    except IllegalMove as exc:
        if exc.code == "pairs_not_declared" or not p.penalties or not p.invalid_opening_penalty:
            raise
        ctx.emit(E.OpeningRetracted(**ctx.head(), seat=c.seat, reason=exc.message))
        ctx.emit(E.PenaltyImposed(**ctx.head(), seat=c.seat, points=p.invalid_opening_penalty,
                                  reason="invalid_opening"))
        return
    ctx.emit_laid(E.HandOpened(table_id=ctx.table_id, seq=ctx.s.seq + 1, at=ctx.at,
                               seat=c.seat, kind=kind,
                               melds=[m.notation(hand.okey) for m in built], value=value,
                               threshold=need, elden=elden), built, laid)
    _after_opening(ctx, c.seat)


def _after_opening(ctx: _Ctx, seat: int) -> None:
    p, hand = ctx.profile, ctx.hand
    taken = hand.scratch.taken
    if taken is not None and p.penalties and p.opened_with_discard_multiplier:
        points = p.opened_with_discard_multiplier * tiles.face_value(taken, hand.okey)
        ctx.emit(E.PenaltyImposed(**ctx.head(), seat=hand.scratch.taken_from, points=points,
                                  reason="opener_used_discard"))
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
        ctx.emit(E.PenaltyImposed(**ctx.head(), seat=seat, points=scoring.siler_adjustment(p),
                                  reason="siler"))


def _lay(ctx: _Ctx, c: E.Lay) -> None:
    seat = R.check_lay(ctx.s, c.seat)
    hand, p = ctx.hand, ctx.profile
    melds, pairs = _groups(c.melds, "melds"), _groups(c.pairs, "pairs")
    R.check_one_form("lay", bool(melds), bool(pairs))
    R.check_lay_form(hand, seat, c.seat, bool(pairs))
    groups = melds or pairs
    laid = _laid(groups)
    R.tokens_in_rack(seat.rack, Counter(laid), c.seat)
    jokers = pair_jokers(hand, c.seat)
    built = [build_meld(g, hand, p.run_wraps_13_to_1, bool(pairs), jokers) for g in groups]
    ctx.emit_laid(E.MeldsLaid(table_id=ctx.table_id, seq=ctx.s.seq + 1, at=ctx.at,
                              seat=c.seat, melds=[m.notation(hand.okey) for m in built],
                              pairs=bool(pairs)), built, laid)
    _maybe_siler(ctx, c.seat)


def _lay_off(ctx: _Ctx, c: E.LayOff) -> None:
    seat = R.check_touch_table(ctx.s, c.seat, "lay off", "LayOff")
    hand, p = ctx.hand, ctx.profile
    if not c.tiles or not all(isinstance(t, str) for t in c.tiles):
        raise MalformedInput("lay_off: tiles must be a non-empty list of tiles")
    meld = R.meld_at(hand, c.meld)
    R.check_lay_off_target(meld, c.meld)
    R.tokens_in_rack(seat.rack, _need([c.tiles]), c.seat)
    R.check_lay_off_room(ctx.s, c.seat, len(c.tiles), p)
    placed = [M.place(*tiles.parse_meld_token(t), hand.okey, t) for t in c.tiles]
    order, end = M.lay_off_plan(meld, placed, c.tiles, c.end, hand.okey, p.run_wraps_13_to_1,
                                lambda: f"meld #{c.meld} {meld.describe(hand.okey)}")
    R.check_run_end_room(ctx.s, c.meld, end, len(order), p)
    ctx.emit(E.TilesLaidOff(table_id=ctx.table_id, seq=ctx.s.seq + 1, at=ctx.at,
                            seat=c.seat, meld=c.meld,
                            tiles=[M.placed_name(pl, hand.okey) for pl in order], end=end))
    _maybe_siler(ctx, c.seat)


def _take_okey(ctx: _Ctx, c: E.TakeOkey) -> None:
    seat = R.check_touch_table(ctx.s, c.seat, "take an okey", "TakeOkey")
    hand, p = ctx.hand, ctx.profile
    meld = R.meld_at(hand, c.meld)
    if not c.tiles or not all(isinstance(t, str) for t in c.tiles):
        raise MalformedInput("take_okey: tiles must be a non-empty list of tiles")
    put = tiles.parse_at(c.tiles, "take_okey")
    R.check_holds(seat.rack, put, c.seat)
    R.check_okey_swap(p, meld, hand.okey, c.meld, put)
    M.replace_okey(meld, hand.okey, put)  # checks the swap is well-formed
    ctx.emit(E.OkeyTaken(**ctx.head(), seat=c.seat, meld=c.meld, tiles=tiles.names(put),
                         okey=tiles.name(hand.okey)))
    owner = hand.melds[c.meld].owner
    if p.penalties and p.okey_taken_penalty and owner != c.seat:
        ctx.emit(E.PenaltyImposed(**ctx.head(), seat=owner, points=p.okey_taken_penalty,
                                  reason="okey_taken"))


# ---------------------------------------------------------------- discarding and finishing
def _discard(ctx: _Ctx, c: E.Discard, timed_out: bool = False) -> None:
    hand = R.check_turn(ctx.s, c.seat, "play", "Discard")
    seat = hand.seats[c.seat]
    if not isinstance(c.tile, str):
        raise MalformedInput("discard: tile must be a tile name")
    tile = tiles.BY_NAME.get(c.tile)
    if tile is None:
        tile = tiles.parse_at([c.tile], "discard")[0]
    R.check_holds(seat.rack, [tile], c.seat)
    if not timed_out:  # a time-out settles a taken discard itself
        R.check_owed_take(ctx.s, c.seat, hand)
    finishing = len(seat.rack) == 1
    penalty = R.discard_penalty(ctx.s, c.seat, tile)
    ctx.emit(E.TileDiscarded(table_id=ctx.table_id, seq=ctx.s.seq + 1, at=ctx.at,
                             seat=c.seat, tile=tiles.name(tile)))
    if penalty is not None:
        ctx.emit(E.PenaltyImposed(table_id=ctx.table_id, seq=ctx.s.seq + 1, at=ctx.at,
                                  seat=c.seat, points=penalty[0], reason=penalty[1]))
    if finishing:
        _end_hand(ctx, c.seat, R.finish_kind(ctx.s, c.seat, tile))


def _finish(ctx: _Ctx, c: E.Finish) -> None:
    """Düz (RULES.md §12): discard one tile and show the other 14 as runs and groups or as
    seven pairs; the hand is won."""
    me = R.check_finish(ctx.s, c.seat)
    hand, p = ctx.hand, ctx.profile
    if not isinstance(c.tile, str):
        raise MalformedInput("finish: tile must be a tile name")
    tile = tiles.parse_at([c.tile], "finish")[0]
    melds, pairs = _groups(c.melds, "melds"), _groups(c.pairs, "pairs")
    R.check_one_form("finish", bool(melds), bool(pairs))
    groups = melds or pairs
    R.check_shows_whole_rack(me, c.seat, tile, [t for g in groups for t in played_tiles(g)])
    built = [build_meld(g, hand, p.run_wraps_13_to_1, bool(pairs)) for g in groups]
    ctx.emit(E.RackShown(**ctx.head(), seat=c.seat, tile=tiles.name(tile),
                         melds=[m.notation(hand.okey) for m in built], pairs=bool(pairs)))
    _end_hand(ctx, c.seat, R.shown_finish_kind(bool(pairs), tile == hand.okey))


def _end_hand(ctx: _Ctx, finisher: int | None, finish: FinishKind) -> None:
    p, hand = ctx.profile, ctx.hand
    opened = [h.opened for h in hand.seats]
    racks = [h.rack for h in hand.seats]
    result = scoring.hand_scores(p, hand.okey, finisher, finish, opened, racks, p.partners)
    share = _server_share(ctx.s, hand.number, hand.attempt).hex() \
        if hand.deal_version == 2 else ""
    ctx.emit(E.HandEnded(**ctx.head(), hand=hand.number, finish=finish, finished_by=finisher,
                         scores=list(result.scores), racks=[tiles.names(r) for r in racks],
                         seed=hand.seed, replay=result.replay, server_share=share))
    if result.replay:
        _deal_hand(ctx, hand.number, hand.attempt + 1, hand.starter)
    elif hand.number >= ctx.s.hands_total or scoring.is_countdown_over(p, ctx.s.totals()):
        _end_match(ctx)
    else:
        _deal_hand(ctx, hand.number + 1, 0, (hand.starter + 1) % SEATS)


def _end_match(ctx: _Ctx) -> None:
    s, p = ctx.s, ctx.profile
    totals = s.totals()
    places = scoring.places(totals)
    hands = max(1, len(s.hand_scores))
    # a seat is rated for whoever sits there at the end: a substitute, or (empty) a leaver
    last = [seat[-1] if seat else None for seat in s.sitters]
    left = [x is not None and x.left for x in last]
    substitute = [x is not None and not x.left and x.substitute for x in last]
    rating = None
    if p.rating == "classic":  # partners are rated by team totals (seeds/003)
        rate = scoring.classic_team_rating_changes if p.partners else \
            scoring.classic_rating_changes
        rating = rate(totals, hands, left, substitute)
    teams = list(scoring.team_totals(totals)) if p.partners else None
    ctx.emit(E.MatchEnded(**ctx.head(), totals=totals, places=places, rating_changes=rating,
                          team_totals=teams, results=_results(s, places, rating, hands),
                          remaining=scoring.remaining(p, totals)))


def _results(s: TableState, places: list[int], rating: list[int] | None, hands: int
             ) -> list[E.MatchResult]:
    """Every account that sat in a seat while the match ran: a leaver loses 2N where the
    house is rated (section 9), whoever sat there at the end gets the seat's change."""
    out = []
    for seat, sitters in enumerate(s.sitters):
        for x in sitters:
            change = None if rating is None else \
                scoring.leaving_change(hands) if x.left else rating[seat]
            out.append(E.MatchResult(player_id=x.player_id, seat=seat, place=places[seat],
                                     change=change, left=x.left, substitute=x.substitute))
    return out


# ---------------------------------------------------------------- time-outs
def _timeout(ctx: _Ctx, c: E.TimeOut) -> None:
    hand = R.check_timeout(ctx.s, c.seat, c.turn)
    ctx.emit(E.TurnTimedOut(**ctx.head(), seat=c.seat, turn=c.turn))
    laid = hand.scratch.laid
    # a taken discard the player still owes a use of (unopened: the opening; okey-oyna: a
    # lay) goes back while nothing is laid, or else is the tile discarded; a free take stays
    taken = R.owed_take(ctx.s, c.seat)
    if taken is not None and not laid:
        ctx.emit(E.DiscardPutBack(**ctx.head(), seat=c.seat, tile=tiles.name(taken)))
    if ctx.hand.phase == "draw":
        if ctx.hand.deck_left == 0:
            _end_hand(ctx, None, "deck_exhausted")
            return
        ctx.emit(E.TileDrawn(**ctx.head(), seat=c.seat,
                             tile=tiles.name(ctx.hand.deck[ctx.hand.deck_pos])))
    tile = taken if taken is not None and laid else R.timeout_discard(ctx.s, c.seat)
    _discard(ctx, E.Discard(table_id=c.table_id, command_id=c.command_id, seat=c.seat,
                            tile=tiles.name(tile), at=c.at), timed_out=True)
