"""What a seat (or a spectator) may know of a table: its views and its events.

RULES.md section 11: only the server knows the deck and the other racks; each player is
sent only their own rack and the public table. `player_view` is that knowledge as one
struct, built from the state; `event_for` filters the event stream the same way. Bots read
the same views as people: a bot never sees more than its own seat.

Never in a view: another seat's tiles, the deck order, a hand's seed or the server's share of
it (both are revealed by `HandEnded`, with the racks, once the hand is over: that event is
public; a client seed is public once its seat reveals it, and never before), and, where
the house does not label bots (`Profile.bots_labelled`, north-sultan), anything that tells
a bot seat from a person's: the bot flags read False and a bot's level stays on the server
(`PlayerUpdate.bot_level`, beside the view: gateways never forward it).
"""

from __future__ import annotations

import functools
from typing import Any, Literal, TypeVar, cast

import msgspec

from okey101 import names, scoring, tiles
from okey101.profiles import Profile
from okey101.standings.house import unranked_reason
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.table.messages import MeldToken, TileName
from okey101.table.rules import available_discard, threshold, turn_seconds
from okey101.table.state import (
    HandState,
    Phase,
    Seeding,
    Status,
    TableMeld,
    TableState,
    TurnScratch,
)
from okey101.terms import SEATS, LayOffEnd, Opened

SPECTATOR = -1
EventT = TypeVar("EventT", bound=E.Event)


class MeldView(msgspec.Struct, frozen=True, kw_only=True):
    index: int  # the meld's number on the table: lay_off and take_okey name it
    owner: int
    kind: str  # run, group, pair
    tiles: list[MeldToken]  # in order; a joker written as ``Y6=K9``
    start: int = 0  # a run's first position (14 is "1 after 13")
    laid_turn: int


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str
    bot: bool  # where the house labels bots; False everywhere where it does not
    rack_size: int
    discards: list[TileName]  # the seat's discard pile, top last
    opened: Opened
    opened_turn: int
    opening_value: int  # points, or pairs
    declared_pairs: bool
    shown_indicator: bool
    has_played: bool
    penalties: int  # in-game penalties this hand
    points_needed: int  # what an opening by points needs now, in the house's count
    # (escalation included); 0 in düz, which has no opening
    pairs_needed: int


class TurnView(msgspec.Struct, frozen=True, kw_only=True):
    """The current turn so far (all of it happened in public)."""

    taken: TileName | None  # the discard taken this turn
    taken_from: int
    laid: list[TileName]  # tiles laid on the table this turn
    lay_offs: int
    laid_off: bool
    end_counts: list[tuple[int, str, int]]  # (meld, end, tiles) laid off this turn
    put_back: bool = False  # the taken discard went back: this turn draws from the deck


class HandView(msgspec.Struct, frozen=True, kw_only=True):
    number: int
    attempt: int
    starter: int
    indicator: TileName
    okey: TileName
    deck_count: int
    to_act: int
    phase: Phase
    available_discard: TileName | None  # what the seat to act may take now
    melds: list[MeldView]
    seats: list[SeatView]
    current: TurnView
    finish: str | None
    finished_by: int | None


class LayOffOption(msgspec.Struct, frozen=True, kw_only=True):
    """One tile the seat may lay off now, and where (send it as `lay_off`)."""

    tile: TileName
    meld: int
    end: LayOffEnd


class OkeyTakeOption(msgspec.Struct, frozen=True, kw_only=True):
    """An okey the seat may take now: put `tiles` on meld `meld` (send it as `take_okey`)."""

    meld: int
    tiles: list[TileName]


class PenalisedDiscard(msgspec.Struct, frozen=True, kw_only=True):
    """A rack tile that would cost a penalty if discarded now."""

    tile: TileName
    points: int
    reason: str  # a PenaltyReason (okey101.terms)


class SeatRules(msgspec.Struct, frozen=True, kw_only=True):
    """What the rules allow this seat's next move (`okey101.table.rules`), so that a client
    never re-implements a rule: the commands it may send (their `type`), whether it may
    lay off at all and how much, what it owes. The detail (every single-tile lay-off and
    okey take open to it, what each discard would cost) is not sent with every change: a
    client asks for it (the gateway's `rules` frame, `table.viewrules.RulesDetail`)."""

    allowed: list[str] = msgspec.field(default_factory=list)
    may_lay_off: bool = False  # lay off or take an okey this turn (opened, waits served)
    lay_off_room: int | None = None  # tiles a pairs-opener may still lay off this turn
    full_run_ends: list[tuple[int, LayOffEnd]] = msgspec.field(default_factory=list)
    is_elden_open: bool = True  # an elden finish is still open to it
    may_open_pairs: bool = False  # unopened, and pairs declared where the house asks
    owed_tile: TileName | None = None  # a taken discard to open with (or lay) before discarding


NO_RULES = SeatRules()


class SeedingView(msgspec.Struct, frozen=True, kw_only=True):
    """The next hand's seeding (proto/DEAL.md, version 2), all of it public: the server's
    commitment, the window open now and its deadline, and each seat's commitment and
    revealed client seed ("" for none)."""

    hand: int
    attempt: int
    stage: str  # a SeedingStage: commit, reveal
    deadline: int  # ms since the epoch: the open window's end
    server_commitment: str
    commitments: list[str]  # by seat
    client_seeds: list[str]  # by seat, once revealed
    forfeited: list[bool]  # by seat: committed and did not reveal a matching seed


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    seq: int
    seat: int  # the viewer; -1 for a spectator
    status: Status
    profile: Profile | None
    players: list[str]
    bots: list[bool]  # where the house labels bots; all False where it does not
    hands_total: int
    turn: int
    rack: list[TileName]  # the viewer's own rack, in rack order; [] for a spectator
    hand: HandView | None
    hand_scores: list[list[int]]
    penalties: list[int]
    totals: list[int]  # penalty points, lower is better (düz: the points each seat lost)
    rules: SeatRules = NO_RULES  # the viewer's; empty for spectators and between turns
    private: bool = False  # a private room (section 11)
    owner: str = ""  # its owner
    bots_requested: bool = False  # the owner asked for bots in the empty seats
    bots_may_sit: bool = False  # a bot may take an empty seat now (rules.may_seat_bot)
    reconnect_by: list[int | None] = msgspec.field(default_factory=list)  # by seat: a
    # disconnected player's deadline (ms since the epoch) to come back, or None
    remaining: list[int] | None = None  # düz: each seat's count left (it counts down to 0)
    seeding: SeedingView | None = None  # the next hand's seeding while it is open
    # whether the match moves the house's standings (RULES.md §9: a public table, the
    # house's own options, its number of hands), and why not
    ranked: bool = False
    unranked_reason: str = ""
    names: list[str] = msgspec.field(default_factory=list)  # by seat: the name shown
    # (okey101.names: the id without its suffix, unique at the table; "" for an empty seat)
    turn_by: int | None = None  # the current turn's deadline, ms since the epoch (`turn_by`);
    # None where no turn is timed or no one is to act


VIEWS_VERSION = 2  # the views contract's major version: the player-views records and the
# gateway's frames (proto/VERSIONING.md: version 2 sends changes)


class PlayerUpdate(msgspec.Struct, frozen=True, kw_only=True, tag="view", tag_field="kind"):
    """A seat's (a person's, a bot's, or the spectators', seat -1) whole view after a
    change, with the events that made it as that seat may see them (the player-views
    topic): what gateways serve and bots play from. `version` is the table seq the view
    shows; `previous` the version of this table's update before it, so a reader that holds
    `previous` missed nothing. The views service publishes one per changed table and seat
    per poll (the last view): whole (`kind` "view") for a seat's first update, then every
    `KEYFRAME`-th, and as a `PlayerPatch` (`kind` "patch") in between. A record without
    `kind` (version 1) is a whole view.

    `bot` and `bot_level` are the server's record of the bot playing `seat` (False and None
    for a person's seat and the spectators'): beside the view, never in it, so that the
    bots service knows its seats and their levels while a gateway, which forwards only the
    view and the events (`app.gateway.viewcache.RawPlayerUpdate`), never passes them on."""

    v: int = VIEWS_VERSION
    table_id: str
    seat: int
    version: int
    previous: int
    events: list[E.AnyEvent]
    view: PlayerView
    bot: bool = False
    bot_level: int | None = None


class PatchOp(msgspec.Struct, frozen=True, kw_only=True):
    """One change of a view: a JSON Patch operation (RFC 6902, of the kinds a view needs).
    `path` is a JSON Pointer (RFC 6901) into the view, such as `/hand/seats/2` or
    `/hand/deck_count`; `replace` sets a member or an array's item that exists, `add` with
    a path ending in `-` appends to an array (a meld laid on the table). A view's keys hold
    no `/` or `~`, so a pointer is never escaped."""

    op: Literal["replace", "add"]
    path: str
    value: Any


class PlayerPatch(msgspec.Struct, frozen=True, kw_only=True, tag="patch", tag_field="kind"):
    """A seat's view after a change, as what the change made different: `patch` applied in
    order to the view at `previous` (`okey101.table.viewpatch.apply`) gives, byte for
    byte once encoded, the whole view at `version` (`player_views`). A reader that does not
    hold the view at `previous` (a gap) waits for the next whole view, or asks for it
    (a gateway's client: `watch` with its version). The rest as `PlayerUpdate`."""

    v: int = VIEWS_VERSION
    table_id: str
    seat: int
    version: int
    previous: int
    events: list[E.AnyEvent]
    patch: list[PatchOp]
    bot: bool = False
    bot_level: int | None = None


AnyPlayerUpdate = PlayerUpdate | PlayerPatch
player_update_decoder = msgspec.json.Decoder(PlayerUpdate)  # a whole view's record


def update_seats(state: TableState) -> list[int]:
    """The seats an update is published for after a change: the spectators' first (a
    reader learns who sits where before a seat's own update), then every seated seat's,
    a bot's included."""
    return [SPECTATOR, *(seat for seat in range(SEATS) if state.players[seat])]


class ViewParts:
    """What a view is built from (`player_views`), as structs. The views service's
    `TableParts` returns the same parts already encoded (`msgspec.Raw`, which encodes as
    itself) and kept between changes, so that one builder makes both the struct and the
    bytes: a part's encoding is the encoding of the struct this class returns for it."""

    def seated(self, state: TableState) -> tuple[Any, Any, Any]:
        """Who sits where: the players, the bot flags a view shows, the names."""
        return (list(state.players), _bot_labels(state),
                names.table_names(list(state.players)))

    def scores(self, state: TableState) -> tuple[Any, Any, Any, Any]:
        """The match's count: hand scores, penalties, totals, and (düz) what remains."""
        totals = state.totals()
        profile = state.profile
        return ([list(s) for s in state.hand_scores], list(state.penalties), totals,
                scoring.remaining(profile, totals) if profile is not None else None)

    def reconnect_by(self, state: TableState) -> Any:
        return [d.reconnect_by if d is not None else None for d in state.disconnected]

    def profile(self, state: TableState) -> Any:
        return state.profile

    def seeding(self, state: TableState) -> Any:
        return _seeding_view(state.seeding) if state.seeding is not None else None

    def hand(self, state: TableState, hand: HandState, bots: list[bool]) -> Any:
        return _hand_view(state, hand, bots, self)

    def melds(self, hand: HandState) -> Any:
        okey = hand.okey
        return [meld_view(i, m, okey) for i, m in enumerate(hand.melds)]

    def seat(self, state: TableState, hand: HandState, i: int, bot: bool) -> Any:
        return seat_view(state, hand, i, bot)

    def current(self, hand: HandState) -> Any:
        return turn_view(hand.scratch)

    def tile(self, tile: int) -> Any:
        return tiles.name(tile)

    def rack(self, state: TableState, seat: int) -> Any:
        hand = state.hand
        if hand is not None and 0 <= seat < len(hand.seats):
            return tiles.names(hand.seats[seat].rack)
        return []

    def rules(self, state: TableState, seat: int) -> Any:
        return seat_rules(state, seat)


PLAIN = ViewParts()


def player_views(state: TableState, seats: list[int], parts: ViewParts = PLAIN,
                 turn_started: int | None = None) -> list[PlayerView]:
    """What each of `seats` may know (a spectator: -1, no rack): the one builder of a
    view. The table's part is built once for all of them; `turn_started` is the time
    (ms) of the event that started the current turn, for `turn_by`."""
    if not seats:
        return []
    common = table_fields(state, parts, turn_started)
    hand = state.hand
    common["hand"] = parts.hand(state, hand, _bot_labels(state)) if hand is not None else None
    first = PlayerView(seat=seats[0], rack=parts.rack(state, seats[0]),
                       rules=parts.rules(state, seats[0]), **common)
    replace = msgspec.structs.replace  # the table's part shared: a copy, not a new build
    return [first, *(replace(first, seat=seat, rack=parts.rack(state, seat),
                             rules=parts.rules(state, seat)) for seat in seats[1:])]


def table_fields(state: TableState, parts: ViewParts = PLAIN, turn_started: int | None = None
                 ) -> dict[str, Any]:
    """The fields of a view every seat shares, but the hand (`PlayerView`'s, by name): the
    one place they are computed, for the whole views and for the patches
    (`app.views.playerviews`)."""
    profile = state.profile
    unranked = unranked_of(state)
    players, bots, shown = parts.seated(state)
    hand_scores, penalties, totals, remaining = parts.scores(state)
    return dict(
        table_id=state.table_id, seq=state.seq, status=state.status,
        profile=parts.profile(state), players=players, bots=bots,
        hands_total=state.hands_total, turn=state.turn,
        hand_scores=hand_scores, penalties=penalties, totals=totals, private=state.private,
        owner=state.owner, bots_requested=state.bots_requested,
        bots_may_sit=profile is not None and R.may_seat_bot(state),
        reconnect_by=parts.reconnect_by(state), remaining=remaining,
        seeding=parts.seeding(state), ranked=profile is not None and not unranked,
        unranked_reason=unranked, names=shown, turn_by=turn_by(state, turn_started))


def player_view(state: TableState, seat: int, turn_started: int | None = None
                ) -> PlayerView:
    """What `seat` may know (a spectator: `seat` = -1, no rack)."""
    return player_views(state, [seat], turn_started=turn_started)[0]


def turn_by(state: TableState, turn_started: int | None) -> int | None:
    """The current turn's deadline (ms since the epoch): the time of the event that
    started the turn plus the house's turn time, the timers' rule
    (`okey101.app.timers.deadlines.turn_deadline`); None where no turn is timed (no turn
    time, only bots where the house leaves them untimed, no hand being played) or the
    turn's start is unknown."""
    if not turn_started:
        return None
    seconds = turn_seconds(state)
    if (seconds is None or state.status != "playing" or state.hand is None
            or state.hand.phase == "over"):
        return None
    return turn_started + seconds * 1000


def player_updates(state: TableState, previous: int, events: list[E.Event],
                   turn_started: int | None = None) -> list[PlayerUpdate]:
    """The updates to publish after `events` took a table from version `previous` to
    `state`: one per `update_seats`, the bot seats' with their record."""
    seats = update_seats(state)
    out = []
    for seat, view in zip(seats, player_views(state, seats, turn_started=turn_started),
                          strict=True):
        seen = [e for e in (event_for(event, seat) for event in events) if e is not None]
        bot = seat >= 0 and state.bots[seat]
        out.append(PlayerUpdate(table_id=state.table_id, seat=seat, version=state.seq,
                                previous=previous, events=cast(list[E.AnyEvent], seen),
                                view=view, bot=bot,
                                bot_level=state.bot_levels[seat] if bot else None))
    return out


_unranked = functools.lru_cache(maxsize=256)(unranked_reason)  # a table's, on every view


def unranked_of(state: TableState) -> str:
    """Why the table's match moves no standings ("" when it is ranked, or has no house)."""
    return _unranked(state.profile, state.private) if state.profile is not None else ""


def _seeding_view(g: Seeding) -> SeedingView:
    return SeedingView(hand=g.hand, attempt=g.attempt, stage=g.stage, deadline=g.deadline,
                       server_commitment=g.server_commitment,
                       commitments=list(g.commitments), client_seeds=list(g.client_seeds),
                       forfeited=list(g.forfeited))


def _bot_labels(state: TableState) -> list[bool]:
    """The bot flags a view shows: the record's where the house labels bots, else none."""
    if state.profile is not None and not state.profile.bots_labelled:
        return [False] * len(state.bots)
    return list(state.bots)


def seat_rules(state: TableState, seat: int) -> SeatRules:
    """The rule queries' answers for `seat`: only the seat to act has any, or, while a
    seeding window is open, the seats that may send a seeding command."""
    if not has_rules(state, seat):
        return NO_RULES
    if state.seeding is not None:
        allowed = R.allowed_commands(state, seat)
        return SeatRules(allowed=allowed) if allowed else NO_RULES
    hand = state.hand
    assert hand is not None
    allowed = R.allowed_commands(state, seat)
    owed = R.owed_take(state, seat)
    return SeatRules(
        allowed=allowed,
        may_lay_off=R.may_touch_table(state, seat),
        lay_off_room=R.lay_off_room(state, seat),
        full_run_ends=R.full_run_ends(state),
        is_elden_open=R.is_elden_open(state, seat),
        may_open_pairs=R.may_open_with_pairs(state, seat),
        owed_tile=tiles.name(owed) if owed is not None else None)


def has_rules(state: TableState, seat: int) -> bool:
    """Whether `seat_rules` may answer anything but `NO_RULES` for `seat`."""
    return seat in ruled_seats(state)


_ALL_SEATS = tuple(range(SEATS))


def ruled_seats(state: TableState) -> tuple[int, ...]:
    """The seats `seat_rules` may answer anything but `NO_RULES` for: the seat to act in a
    hand being played, or every seat while a seeding window is open."""
    if state.status != "playing":
        return ()
    if state.seeding is not None:
        return _ALL_SEATS
    hand = state.hand
    return (hand.to_act,) if hand is not None and hand.phase != "over" else ()


def public_view(state: TableState) -> PlayerView:
    """The spectators' view: the public table only."""
    return player_view(state, SPECTATOR)


def _hand_view(state: TableState, hand: HandState, bots: list[bool], parts: ViewParts
               ) -> HandView:
    return HandView(**hand_fields(state, hand, bots, parts), melds=parts.melds(hand),
                    seats=[parts.seat(state, hand, i, bots[i])
                           for i in range(len(hand.seats))])


def hand_fields(state: TableState, hand: HandState, bots: list[bool], parts: ViewParts
                ) -> dict[str, Any]:
    """`HandView`'s fields but its melds and seats (each patched apart), by name."""
    sc = hand.scratch
    top = None if sc.put_back else available_discard(hand)
    return dict(
        number=hand.number, attempt=hand.attempt, starter=hand.starter,
        indicator=parts.tile(hand.indicator), okey=parts.tile(hand.okey),
        deck_count=hand.deck_left, to_act=hand.to_act, phase=hand.phase,
        available_discard=tiles.name(top) if top is not None else None,
        current=parts.current(hand), finish=hand.finish, finished_by=hand.finished_by)


def meld_view(i: int, m: TableMeld, okey: int) -> MeldView:
    return MeldView(index=i, owner=m.owner, kind=m.meld.kind, tiles=m.meld.notation(okey),
                    start=m.meld.start, laid_turn=m.laid_turn)


def turn_view(sc: TurnScratch) -> TurnView:
    return TurnView(taken=tiles.name(sc.taken) if sc.taken is not None else None,
                    taken_from=sc.taken_from, laid=tiles.names(sc.laid),
                    lay_offs=sc.lay_offs, laid_off=sc.laid_off,
                    end_counts=list(sc.end_counts), put_back=sc.put_back)


def seat_view(state: TableState, hand: HandState, i: int, bot: bool) -> SeatView:
    h = hand.seats[i]
    points = pairs = 0
    if state.profile is not None:
        points, pairs = threshold(state, i, "points"), threshold(state, i, "pairs")
    return SeatView(
        seat=i, player_id=state.players[i], bot=bot, rack_size=len(h.rack),
        discards=tiles.names(h.discards), opened=h.opened, opened_turn=h.opened_turn,
        opening_value=h.opening_value, declared_pairs=h.declared_pairs,
        shown_indicator=h.shown_indicator, has_played=h.has_played, penalties=h.penalties,
        points_needed=points, pairs_needed=pairs)


# ---------------------------------------------------------------- the event stream
def event_for(event: EventT, seat: int) -> EventT | None:
    """`event` as `seat` may see it: None for server-only events and for another seat's
    rack; another seat's draw with its tile blanked; public events unchanged but for the
    fields only the server record keeps (`messages.SERVER_FIELDS`: a bot's level)."""
    kind = E.visibility(event)
    if kind == "server":
        return None
    if kind == "public":
        blank = E.SERVER_FIELDS.get(type(event))
        if blank and any(getattr(event, k) != v for k, v in blank.items()):
            return msgspec.structs.replace(event, **blank)
        return event
    if isinstance(event, E.TileDrawn):
        return event if event.seat == seat else msgspec.structs.replace(event, tile="")
    if isinstance(event, E.RackDealt):
        return event if event.seat == seat else None
    return None  # a seat-private event of a kind this filter does not know: withhold it


def public_event(event: EventT) -> EventT | None:
    """`event` as spectators see it."""
    return event_for(event, SPECTATOR)
