"""The table's wire messages: commands (imperative), events (past tense), rejections.

One tagged union each, tag field ``type``; one JSON encoder/decoder built once. Tiles
travel in notation (``R7``, ``F``, ``Y6=K9``), so any JSON client can speak the contract.
New fields get defaults; a field is never retyped. proto/ is generated from these structs.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgspec

from okey101.profiles import Profile
from okey101.terms import (
    DEFAULT_BOT_LEVEL,
    ForfeitReason,
    LayOffEnd,
    LeaveReason,
    OpeningKind,
    RunEnd,
    SeedingStage,
)

Visibility = Literal["public", "seat", "server"]
End = RunEnd  # kept: bots and clients name it
VERSION = 1  # the contract's major version: `v` on every message (proto/VERSIONING.md)

_TILE = "(?:[RYBK](?:[1-9]|1[0-3])|F)"
TILE_PATTERN = f"^{_TILE}$"
MELD_TOKEN_PATTERN = f"^{_TILE}(?:=[RYBK](?:[1-9]|1[0-3]))?$"
# Tiles travel as notation; the schema carries the pattern, the engine checks it (a bad
# name is a `malformed` rejection naming the token, not an undecodable record).
TileName = Annotated[str, msgspec.Meta(extra_json_schema={
    "pattern": TILE_PATTERN, "description": "a tile: R7 Y13 B1 K10 (red, yellow, blue, "
    "black 1-13) or F, a fake okey"})]
MeldToken = Annotated[str, msgspec.Meta(extra_json_schema={
    "pattern": MELD_TOKEN_PATTERN, "description": "a tile in a meld; the okey standing for "
    "another tile is written Y6=K9"})]
HiddenTile = Annotated[str, msgspec.Meta(extra_json_schema={
    "pattern": f"^(?:{_TILE})?$", "description": "a tile, or empty where the seat may not "
    "see it"})]
ServerOnly = {"x-server-only": True}  # left out of the public schemas (proto/)


# ---------------------------------------------------------------- commands
class Command(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    # required on the wire (the public schema) though defaulted here for in-process use:
    # the processor refuses a command without them (not_your_seat, stale_seq)
    wire_required: ClassVar[tuple[str, ...]] = ("player_id", "seat", "seq")
    v: int = VERSION
    table_id: str
    command_id: str
    player_id: str = ""
    seat: int = -1
    seq: int = 0  # the table seq this command was decided against
    at: int = 0  # ms since the epoch: set by the server (the record's time), never a client
    # what a client's command id stands for (hex; the gateway's `command_digest` of its
    # table, seq and move): the processor refuses the id reused with another (`id_reused`).
    # Empty from the server's own producers, whose retries may differ (a fresh bot id)
    digest: str = ""


class StackedDeal(msgspec.Struct, frozen=True, kw_only=True):
    """A given deal (tests, scenarios): racks by seat, the deck top first."""

    indicator: TileName
    starter: int = 0
    racks: list[list[TileName]] = msgspec.field(default_factory=list)
    deck: list[TileName] = msgspec.field(default_factory=list)


class CreateTable(Command, tag="create_table", frozen=True):
    wire_required: ClassVar[tuple[str, ...]] = ("player_id",)
    profile: str = "okeygg"
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    private: bool = False  # a private room; its owner is the creator, `player_id`


class Sit(Command, tag="sit", frozen=True):
    """A player sits (before the match, or in an empty seat as a substitute). `bot` and
    `bot_level` are the server side's: a gateway never relays them from a client."""

    bot: Annotated[bool, msgspec.Meta(extra_json_schema=ServerOnly)] = False
    # the level the bots service plays this seat at
    bot_level: Annotated[int, msgspec.Meta(extra_json_schema=ServerOnly)] = DEFAULT_BOT_LEVEL


class Leave(Command, tag="leave", frozen=True):
    pass


class ReplaceWithBot(Command, tag="replace_with_bot", frozen=True):
    """The server side hands an empty seat (or the sender's own) to a bot. The bot's id is
    the sender's to choose (the engine invents none): where the house does not label
    bots it must look like any player's id."""

    bot_id: str = ""
    bot_level: int = DEFAULT_BOT_LEVEL


class RequestBots(Command, tag="request_bots", frozen=True):
    """The owner of a private room asks for bots in its empty seats (section 11)."""


class ReportDisconnect(Command, tag="report_disconnect", frozen=True):
    """A gateway's own report (never relayed from a client): the player at `seat` lost
    the connection; the house's reconnect window starts (section 9)."""


class ReportReconnect(Command, tag="report_reconnect", frozen=True):
    """A gateway's own report: the disconnected player at `seat` is back in time."""


class ExpireReconnectWindow(Command, tag="expire_reconnect_window", frozen=True):
    """The timers service: the reconnect window of `player_id` at `seat` has passed (the
    engine checks the command's `at` against the window); the seat is left."""

    since: int = -1  # the seq of the `player_disconnected` that opened the window


class StartMatch(Command, tag="start_match", frozen=True):
    # hex; filled in by the server, never by a client
    seed: Annotated[str, msgspec.Meta(extra_json_schema=ServerOnly)] = ""
    # server-side tests only
    deals: Annotated[list[StackedDeal] | None, msgspec.Meta(extra_json_schema=ServerOnly)] = None


class CommitSeed(Command, tag="commit_seed", frozen=True):
    """A seated person commits to a client seed for the next deal (proto/DEAL.md, version
    2): `commitment` is hex SHA-256 of 32 random bytes the client keeps until the reveal."""

    commitment: str = ""


class RevealSeed(Command, tag="reveal_seed", frozen=True):
    """The seat reveals the client seed it committed to (hex, 32 bytes)."""

    client_seed: str = ""


class CloseSeeding(Command, tag="close_seeding", frozen=True):
    """The timers service: the `stage` window of the seeding before hand `hand` (re-deal
    `attempt`) has passed; the engine checks the command's `at` against its deadline."""

    hand: int = 0
    attempt: int = 0
    stage: SeedingStage = "commit"


class Draw(Command, tag="draw", frozen=True):
    pass


class TakeDiscard(Command, tag="take_discard", frozen=True):
    pass


class PutBack(Command, tag="put_back", frozen=True):
    pass


class DeclarePairs(Command, tag="declare_pairs", frozen=True):
    pass


class ShowIndicator(Command, tag="show_indicator", frozen=True):
    pass


class Open(Command, tag="open", frozen=True):
    melds: list[list[MeldToken]] = msgspec.field(default_factory=list)
    pairs: list[list[MeldToken]] = msgspec.field(default_factory=list)


class Lay(Command, tag="lay", frozen=True):
    melds: list[list[MeldToken]] = msgspec.field(default_factory=list)
    pairs: list[list[MeldToken]] = msgspec.field(default_factory=list)


class LayOff(Command, tag="lay_off", frozen=True):
    meld: int  # the meld's number on the table (0, 1, ... in the order laid)
    tiles: list[MeldToken]
    end: End | None = None


class TakeOkey(Command, tag="take_okey", frozen=True):
    meld: int
    tiles: list[TileName]  # the real tile(s) put in the okey's place


class Discard(Command, tag="discard", frozen=True):
    tile: TileName


class Finish(Command, tag="finish", frozen=True):
    """Düz (classic) Okey: discard `tile` and show every other tile of the rack, as runs
    and groups (`melds`) or as seven pairs (`pairs`): the hand is won."""

    tile: TileName
    melds: list[list[MeldToken]] = msgspec.field(default_factory=list)
    pairs: list[list[MeldToken]] = msgspec.field(default_factory=list)


class TimeOut(Command, tag="timeout", frozen=True):
    """Server only (the timers service): play the house's move for a stalled seat."""

    wire_required: ClassVar[tuple[str, ...]] = ("seat", "seq")
    turn: int  # the turn this timeout is for; a stale one is rejected


AnyCommand = (
    CreateTable | Sit | Leave | ReplaceWithBot | StartMatch | Draw | TakeDiscard | PutBack
    | DeclarePairs | ShowIndicator | Open | Lay | LayOff | TakeOkey | Discard | Finish | TimeOut
    | RequestBots | ReportDisconnect | ReportReconnect | ExpireReconnectWindow | CommitSeed
    | RevealSeed | CloseSeeding
)


# ---------------------------------------------------------------- events
class Event(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    v: int = VERSION
    table_id: str
    seq: int  # contiguous from 1 for each table
    at: int = 0  # ms since the epoch when it was decided (its command's `at`); 0: unknown


class TableCreated(Event, tag="table_created", frozen=True):
    profile: Profile
    private: bool = False
    owner: str = ""  # a private room's owner (its creator)


class PlayerSat(Event, tag="player_sat", frozen=True):
    seat: int
    player_id: str
    bot: bool = False  # a bot sat: said only where the house labels bots (bots_labelled)
    bot_level: int | None = None  # server only (never on a views topic): a bot of this level

    @property
    def is_bot(self) -> bool:
        """Whether a bot sat, as the server record (the events topic) knows it; on a views
        topic it is `bot`, which north-sultan never sets."""
        return self.bot or self.bot_level is not None


class PlayerLeft(Event, tag="player_left", frozen=True):
    seat: int
    player_id: str
    reason: LeaveReason = "left"


class SeatHandedToBot(Event, tag="seat_handed_to_bot", frozen=True):
    """Legacy, server only: no longer emitted (a bot sitting is a `player_sat`, its level
    server-only); still folded so that older event logs replay."""

    seat: int
    bot_id: str


class BotsRequested(Event, tag="bots_requested", frozen=True):
    """The owner of a private room asked for bots in its empty seats."""

    player_id: str


class PlayerDisconnected(Event, tag="player_disconnected", frozen=True):
    seat: int
    player_id: str
    reconnect_by: int  # ms since the epoch: back by then, or the seat is left


class PlayerReconnected(Event, tag="player_reconnected", frozen=True):
    seat: int
    player_id: str


class MatchStarted(Event, tag="match_started", frozen=True):
    hands: int
    players: list[str]


class MatchSeeded(Event, tag="match_seeded", frozen=True):
    """Server only: the match seed (or the stacked deals) every hand is dealt from."""

    seed: str
    deals: list[StackedDeal] | None = None


class SeedingOpened(Event, tag="seeding_opened", frozen=True):
    """Before hand `hand` is dealt (proto/DEAL.md, version 2): the server commits to its
    share; every seated person may commit to a client seed until `commit_by`."""

    hand: int
    attempt: int
    starter: int
    server_commitment: str  # SHA-256 of the server's share, hex: revealed by hand_ended
    commit_by: int  # ms since the epoch


class SeedCommitted(Event, tag="seed_committed", frozen=True):
    seat: int
    commitment: str  # SHA-256 of the seat's client seed, hex


class SeedCommitsClosed(Event, tag="seed_commits_closed", frozen=True):
    """No more commitments: the seats in `committed` reveal their seeds by `reveal_by`."""

    hand: int
    committed: list[int]
    reveal_by: int  # ms since the epoch


class SeedRevealed(Event, tag="seed_revealed", frozen=True):
    seat: int
    client_seed: str  # hex; SHA-256 of it is the seat's commitment


class SeedForfeited(Event, tag="seed_forfeited", frozen=True):
    """`seat` committed and did not reveal in time, or revealed a seed that does not match:
    its share is left out of the deal, and `player_id` contributes no more this match."""

    seat: int
    player_id: str
    reason: ForfeitReason


class SeedingClosed(Event, tag="seeding_closed", frozen=True):
    """The inputs of the hand's seed besides the server's share: by seat, the revealed
    client seed (hex), or "" where the seat contributed nothing."""

    hand: int
    attempt: int
    client_seeds: list[str]


class HandStarted(Event, tag="hand_started", frozen=True):
    hand: int  # 1-based
    attempt: int  # a replayed hand (void, or classic deck-out) deals again
    starter: int
    indicator: TileName
    okey: TileName
    commitment: str  # SHA-256 of the hand seed, hex; "" for a stacked deal
    deck_count: int
    deal_version: int = 1  # proto/DEAL.md: 1 the server's seed alone; 2 with client seeds


class HandDealt(Event, tag="hand_dealt", frozen=True):
    """Server only: every rack and the deck order."""

    hand: int
    seed: str
    racks: list[list[TileName]]
    deck: list[TileName]


class RackDealt(Event, tag="rack_dealt", frozen=True):
    """Private to `seat`: its own rack."""

    seat: int
    tiles: list[TileName]


class TileDrawn(Event, tag="tile_drawn", frozen=True):
    """Private to `seat`; other seats see it with `tile` empty."""

    seat: int
    tile: HiddenTile = ""


class DiscardTaken(Event, tag="discard_taken", frozen=True):
    seat: int
    tile: TileName


class DiscardPutBack(Event, tag="discard_put_back", frozen=True):
    seat: int
    tile: TileName


class PairsDeclared(Event, tag="pairs_declared", frozen=True):
    seat: int


class IndicatorShown(Event, tag="indicator_shown", frozen=True):
    seat: int
    tile: TileName


class HandOpened(Event, tag="hand_opened", frozen=True):
    seat: int
    kind: OpeningKind
    melds: list[list[MeldToken]]
    value: int  # points, or the number of pairs
    threshold: int
    elden: bool = False


class MeldsLaid(Event, tag="melds_laid", frozen=True):
    seat: int
    melds: list[list[MeldToken]]
    pairs: bool = False


class TilesLaidOff(Event, tag="tiles_laid_off", frozen=True):
    seat: int
    meld: int
    tiles: list[MeldToken]
    end: LayOffEnd


class OkeyTaken(Event, tag="okey_taken", frozen=True):
    seat: int
    meld: int
    tiles: list[TileName]  # what was put on the table in the okey's place
    okey: TileName


class TileDiscarded(Event, tag="tile_discarded", frozen=True):
    seat: int
    tile: TileName


class RackShown(Event, tag="rack_shown", frozen=True):
    """Düz: `seat` discarded `tile` and showed the rest of its rack as `melds` (runs and
    groups), or as seven pairs (`pairs`): it won the hand, and the melds lie on the table."""

    seat: int
    tile: str
    melds: list[list[str]]
    pairs: bool = False


class PenaltyImposed(Event, tag="penalty_imposed", frozen=True):
    seat: int
    points: int  # negative for Siler; düz: points lost (an indicator shown)
    reason: str  # a PenaltyReason (okey101.terms)


class OpeningRetracted(Event, tag="opening_retracted", frozen=True):
    seat: int
    reason: str


class TurnTimedOut(Event, tag="turn_timed_out", frozen=True):
    seat: int
    turn: int


class HandEnded(Event, tag="hand_ended", frozen=True):
    hand: int
    finish: str  # a FinishKind (okey101.terms): normal, okey, pairs, ... deck_exhausted, void
    finished_by: int | None
    scores: list[int]  # penalty points, lower is better (düz: the points each seat lost)
    racks: list[list[TileName]]
    seed: str  # revealed: SHA-256 of it is the hand's commitment
    replay: bool = False
    server_share: str = ""  # deal version 2: the server's share, revealed (hex)


class MatchResult(msgspec.Struct, frozen=True, kw_only=True):
    """One account's result in a match: every player who sat in a seat while it ran."""

    player_id: str
    seat: int
    place: int  # the seat's place
    change: int | None  # the rating change where the engine rates the house (classic)
    left: bool  # left the running match (the reconnect window passing included)
    substitute: bool  # sat in for a player who left


class MatchEnded(Event, tag="match_ended", frozen=True):
    totals: list[int]
    places: list[int]
    rating_changes: list[int] | None = None  # by seat: the player sitting there at the end
    team_totals: list[int] | None = None
    results: list[MatchResult] = msgspec.field(default_factory=list)  # by account
    remaining: list[int] | None = None  # düz: each seat's count left (from 20, 30, 40, 50)


AnyEvent = (
    TableCreated | PlayerSat | PlayerLeft | SeatHandedToBot | MatchStarted | MatchSeeded
    | HandStarted | HandDealt | RackDealt | TileDrawn | DiscardTaken | DiscardPutBack
    | PairsDeclared | IndicatorShown | HandOpened | MeldsLaid | TilesLaidOff | OkeyTaken
    | TileDiscarded | RackShown | PenaltyImposed | OpeningRetracted | TurnTimedOut | HandEnded
    | MatchEnded | BotsRequested | PlayerDisconnected | PlayerReconnected | SeedingOpened
    | SeedCommitted | SeedCommitsClosed | SeedRevealed | SeedForfeited | SeedingClosed
)

SERVER_ONLY: frozenset[type[Event]] = frozenset({MatchSeeded, HandDealt, SeatHandedToBot})
SEAT_PRIVATE: frozenset[type[Event]] = frozenset({RackDealt, TileDrawn})
# fields of public events that only the server record keeps: blanked to these values
# wherever the event is shown to a seat or a spectator (okey101.table.views.event_for)
SERVER_FIELDS: dict[type[Event], dict[str, Any]] = {PlayerSat: {"bot_level": None}}


def visibility(event: Event) -> Visibility:
    kind = type(event)
    if kind in SERVER_ONLY:
        return "server"
    if kind in SEAT_PRIVATE:
        return "seat"
    return "public"


class Rejection(msgspec.Struct, frozen=True, kw_only=True):
    code: str  # stable snake_case: okey101.codes.REJECTIONS
    message: str  # names the input and the position


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """What became of one command: accepted with the seqs of its events, or rejected."""

    v: int = VERSION
    table_id: str
    command_id: str
    accepted: bool
    seqs: list[int] = msgspec.field(default_factory=list)
    code: str = ""
    message: str = ""
    duplicate: bool = False  # this command id was seen before: the original outcome again
    digest: str = ""  # the command's digest, kept so a rebuild refuses its id reused too


class DeadLetter(msgspec.Struct, frozen=True, kw_only=True):
    """A record a consumer could not decode, validate or apply, with the reason and where
    it came from (the source topic, partition and offset)."""

    v: int = VERSION
    reason: str  # in words
    topic: str
    partition: int
    offset: int
    key: str = ""
    value: str = ""  # the raw bytes, decoded as UTF-8 with replacement (at most 64 KiB)
    # the reason's kind (okey101.app.bounds.KINDS: too_deep, undecodable, failed, ...)
    kind: str = ""
    error: str = ""  # the exception's type, where one was raised (RecursionError)
    service: str = ""  # the consumer that gave up on it (processor, views, ...)


# ---------------------------------------------------------------- codecs, built once
command_decoder = msgspec.json.Decoder(AnyCommand)
outcome_decoder = msgspec.json.Decoder(Outcome)
dead_letter_decoder = msgspec.json.Decoder(DeadLetter)
event_decoder = msgspec.json.Decoder(AnyEvent)
encoder = msgspec.json.Encoder()


def encode(message: msgspec.Struct) -> bytes:
    return encoder.encode(message)


def published_schemas() -> dict[str, Any]:
    return {
        "table-commands.schema.json": msgspec.json.schema(AnyCommand),
        "table-events.schema.json": msgspec.json.schema(AnyEvent),
        "rejection.schema.json": msgspec.json.schema(Rejection),
        "outcome.schema.json": msgspec.json.schema(Outcome),
        "dead-letter.schema.json": msgspec.json.schema(DeadLetter),
    }
