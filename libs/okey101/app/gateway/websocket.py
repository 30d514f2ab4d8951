"""The gateway's WebSocket API, v2: what a client sends and what it is sent.

Every frame is one JSON object with `type` (the tag) and `v` (the contract's major
version). A connection starts with `hello` carrying a signed token; the gateway stamps the
player from the token and ignores any player a payload names. Then:
- `watch` a table (with the `version` last seen, to resume): the seat's whole view comes
  back as an `update` (or `synced` when nothing was missed), then every change in order,
  each a `patch` to the view at its `previous` (now and then an `update`, whole): a client
  whose version is not a patch's `previous` has missed one and sends `watch` again with
  its version (version 2; a frame of version 1 is refused as `unsupported_version`);
- `command` with the client's own `id`: answered by one `outcome` (a retry with the same
  id and the same command gets the same outcome, never a second move; the id reused for
  another command is refused as `id_reused`: by an `error` from the gateway that remembers
  the id, else by the processor, whose memory every gateway shares, as a rejected `outcome`);
- `rules` with an `id`, the table, your seat and the version of the view you hold: the
  rules' detail for that view (each lay-off and okey take open to you, each penalised
  discard) as a `rules` frame under the same `id`; refused (`not_your_seat`,
  `stale_version`, `rules_unavailable`, `not_watching`) with nothing published;
- `tables`: the lobby, the open tables by house (each says whether it is `ranked`);
- `quick_play` / `cancel_quick_play`: ask the matchmaker for a seat (or stop waiting);
  `quick_play_state` frames say where the request stands, and which table to watch.
A frame the gateway refuses gets an `error` with a code from `okey101.codes.GATEWAY`, and
with the frame's `id` whenever its top level has a string one (`id_of`), however wrong the
rest is; a frame nested deeper than 32 levels (`MAX_DEPTH`) is refused as `malformed`
before it is decoded. A connection that keeps sending past its rate limit is closed (1008,
`rate_limited`) after the gateway's `flood_strikes` refusals. proto/asyncapi.json
describes the channel; the structs here generate its schemas.
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any, Literal

import msgspec

from okey101.app.jsondepth import MAX_DEPTH, too_deep
from okey101.table import messages as E
from okey101.table.messages import MeldToken, TileName
from okey101.table.viewrules import RulesDetail
from okey101.table.views import VIEWS_VERSION, PatchOp, PlayerView
from okey101.terms import DEFAULT_BOT_LEVEL, RunEnd

VERSION = VIEWS_VERSION  # the views contract's: version 2 sends a view as its changes


# ---------------------------------------------------------------- the commands a client sends
class Move(msgspec.Struct, tag_field="type", kw_only=True, frozen=True, forbid_unknown_fields=True):
    """A table command as a client sends it: no table, player, command id or seq (the
    `command` frame carries those, and the gateway stamps the player)."""


class CreateTableMove(Move, tag="create_table", frozen=True, kw_only=True):
    profile: str = "okeygg"  # a house id
    options: dict[str, Any] = msgspec.field(default_factory=dict)  # proto/profile.schema.json
    private: bool = False  # a private room, owned by its creator (RULES.md section 11)


class SitMove(Move, tag="sit", frozen=True, kw_only=True):
    seat: int


class LeaveMove(Move, tag="leave", frozen=True, kw_only=True):
    pass


class ReplaceWithBotMove(Move, tag="replace_with_bot", frozen=True, kw_only=True):
    """Hand an empty seat (or one's own) to a bot, where the house allows bots, at
    `bot_level` (1-4; 4, the searching bot, is the strongest)."""

    seat: int
    bot_level: Annotated[int, msgspec.Meta(ge=1, le=4)] = DEFAULT_BOT_LEVEL


class RequestBotsMove(Move, tag="request_bots", frozen=True, kw_only=True):
    """The owner of a private room asks for bots in its empty seats (seated or not)."""


class StartMatchMove(Move, tag="start_match", frozen=True, kw_only=True):
    pass


class CommitSeedMove(Move, tag="commit_seed", frozen=True, kw_only=True):
    """The seat's commitment to its own client seed for the next deal (proto/DEAL.md,
    version 2): hex SHA-256 of 32 random bytes the client keeps until the reveal."""

    commitment: str


class RevealSeedMove(Move, tag="reveal_seed", frozen=True, kw_only=True):
    """The client seed committed to, revealed (hex, 32 bytes)."""

    client_seed: str


class DrawMove(Move, tag="draw", frozen=True, kw_only=True):
    pass


class TakeDiscardMove(Move, tag="take_discard", frozen=True, kw_only=True):
    pass


class PutBackMove(Move, tag="put_back", frozen=True, kw_only=True):
    pass


class DeclarePairsMove(Move, tag="declare_pairs", frozen=True, kw_only=True):
    pass


class ShowIndicatorMove(Move, tag="show_indicator", frozen=True, kw_only=True):
    pass


class OpenMove(Move, tag="open", frozen=True, kw_only=True):
    melds: list[list[MeldToken]] = msgspec.field(default_factory=list)
    pairs: list[list[MeldToken]] = msgspec.field(default_factory=list)


class LayMove(Move, tag="lay", frozen=True, kw_only=True):
    melds: list[list[MeldToken]] = msgspec.field(default_factory=list)
    pairs: list[list[MeldToken]] = msgspec.field(default_factory=list)


class LayOffMove(Move, tag="lay_off", frozen=True, kw_only=True):
    meld: int
    tiles: list[MeldToken]
    end: RunEnd | None = None


class TakeOkeyMove(Move, tag="take_okey", frozen=True, kw_only=True):
    meld: int
    tiles: list[TileName]


class DiscardMove(Move, tag="discard", frozen=True, kw_only=True):
    tile: TileName


class FinishMove(Move, tag="finish", frozen=True, kw_only=True):
    """Düz (classic) Okey: discard `tile` and show the rest of the rack as melds or pairs."""

    tile: TileName
    melds: list[list[MeldToken]] = msgspec.field(default_factory=list)
    pairs: list[list[MeldToken]] = msgspec.field(default_factory=list)


AnyMove = (
    CreateTableMove | SitMove | LeaveMove | ReplaceWithBotMove | RequestBotsMove
    | StartMatchMove | CommitSeedMove | RevealSeedMove | DrawMove | TakeDiscardMove
    | PutBackMove | DeclarePairsMove | ShowIndicatorMove | OpenMove | LayMove | LayOffMove
    | TakeOkeyMove | DiscardMove | FinishMove
)
SEATED_ANYWHERE = (SitMove, ReplaceWithBotMove)  # name their seat themselves
BY_OWNER = (RequestBotsMove,)  # the room's owner, seated or not (the engine checks)


# ---------------------------------------------------------------- client -> gateway
class ClientMessage(msgspec.Struct, tag_field="type", kw_only=True, frozen=True,
                    forbid_unknown_fields=True):
    v: int = VERSION


class Hello(ClientMessage, tag="hello", frozen=True, kw_only=True):
    """The first frame: the token (never in the URL), and the version the client speaks,
    which the gateway checks once: a hello without `v` is version 1's (whole views), refused
    as `unsupported_version`; the connection's later frames may leave `v` out."""

    v: int = 1
    token: str


class Watch(ClientMessage, tag="watch", frozen=True, kw_only=True):
    """Follow a table: your seat's view if you sit there, else the spectators'. `version`:
    the last version you hold, to get only what you missed (the whole view again after a
    gap in the patches); a version this gateway has not reached yet (you read another
    gateway further on) is answered when it gets there, never with an older view. `id`,
    when given, names the frame in a refusal."""

    table_id: str
    version: int | None = None
    id: str | None = None


class Unwatch(ClientMessage, tag="unwatch", frozen=True, kw_only=True):
    table_id: str


class SendCommand(ClientMessage, tag="command", frozen=True, kw_only=True):
    """A move, under the client's own `id` (1-64 of A-Z a-z 0-9 _ . : -). `table_id` is
    empty for create_table (the gateway names the table and says so in the outcome); `seq`
    is the version the move was decided against (default: the newest the gateway knows)."""

    id: str
    table_id: str = ""
    seq: int | None = None
    command: AnyMove


class AskRules(ClientMessage, tag="rules", frozen=True, kw_only=True):
    """The rules' detail of your seat's view at `version` (the one you hold): answered by a
    `rules` frame under the same `id`, or an `error` (`unknown_table`, `not_watching`,
    `not_your_seat` for another seat's, `stale_version` when the gateway's newest view of
    the seat is another version, `rules_unavailable` when the gateway cannot rebuild the
    table from that view). Rate-limited like any frame; nothing is published."""

    id: str
    table_id: str
    seat: int
    version: int


class ListTables(ClientMessage, tag="tables", frozen=True, kw_only=True):
    house: str | None = None


class AskQuickPlay(ClientMessage, tag="quick_play", frozen=True, kw_only=True):
    """Ask the matchmaker for a seat in `house`: in `hall`, or ("") the hall of your level.
    Answered by `quick_play_state` frames under the same `id` (waiting, then seated with
    the table to watch; or refused with a code from `okey101.codes.MATCHMAKING`)."""

    id: str
    house: str
    hall: str = ""


class WithdrawQuickPlay(ClientMessage, tag="cancel_quick_play", frozen=True, kw_only=True):
    """Stop waiting for a seat in `house` (answered `cancelled`, or refused
    `nothing_waiting`)."""

    id: str
    house: str


class ListTournaments(ClientMessage, tag="tournaments", frozen=True, kw_only=True):
    """The tournaments the gateway knows (of `house`, or every house): a `tournaments` frame."""

    house: str | None = None


class ShowTournament(ClientMessage, tag="tournament", frozen=True, kw_only=True):
    """One tournament's bracket and results: a `tournament` frame under the same `id` (or
    `error` `unknown_tournament`)."""

    id: str | None = None
    tournament_id: str


class RegisterForTournament(ClientMessage, tag="register", frozen=True, kw_only=True):
    """Enter a tournament (free entry) while its registration is open. Answered by a
    `tournament` frame under the same `id` once the matchmaker has registered you, or by
    `error` with a code from `okey101.codes.MATCHMAKING`."""

    id: str
    house: str
    tournament_id: str


class WithdrawFromTournament(ClientMessage, tag="unregister", frozen=True, kw_only=True):
    """Leave a tournament before it starts; answered as `register` is."""

    id: str
    house: str
    tournament_id: str


AnyClientMessage = (Hello | Watch | Unwatch | SendCommand | AskRules | ListTables | AskQuickPlay
                    | WithdrawQuickPlay | ListTournaments | ShowTournament
                    | RegisterForTournament | WithdrawFromTournament)


# ---------------------------------------------------------------- gateway -> client
class ServerMessage(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    v: int = VERSION


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    frame_bytes: int
    commands_per_second: float
    command_burst: int
    connections_per_account: int
    queued_messages: int


class Welcome(ServerMessage, tag="welcome", frozen=True, kw_only=True):
    player_id: str
    limits: Limits


class ErrorReply(ServerMessage, tag="error", frozen=True, kw_only=True):
    """A frame refused (`okey101.codes.GATEWAY`; a tournament's registration refused by the
    matchmaker: `okey101.codes.MATCHMAKING`); `id` names the frame it answers."""

    code: str
    message: str
    id: str | None = None


class CommandOutcome(ServerMessage, tag="outcome", frozen=True, kw_only=True):
    """What became of command `id`: accepted with its events' seqs, or rejected with a code
    from `okey101.codes.REJECTIONS`. An accepted outcome is sent after the update that
    shows it, so `seqs[-1]` is at most the version the client holds."""

    id: str
    table_id: str
    accepted: bool
    seqs: list[int] = msgspec.field(default_factory=list)
    code: str = ""
    message: str = ""
    duplicate: bool = False


class Update(ServerMessage, tag="update", frozen=True, kw_only=True):
    """The seat's whole view at `version`, with the events (as the seat may see them) since
    `previous`. A client holding `previous` missed nothing; `reset` says the gateway could
    not give every event since the client's version (the view is still whole)."""

    table_id: str
    seat: int
    version: int
    previous: int
    reset: bool = False
    events: list[E.AnyEvent]
    view: PlayerView


class Patch(ServerMessage, tag="patch", frozen=True, kw_only=True):
    """The seat's view at `version` as the changes to its view at `previous`: `patch`
    (JSON Patch, RFC 6902: `replace` and `add`) applied in order to the view the client
    holds at `previous` gives the whole view, byte for byte as an `update` would send it.
    A client that holds another version has missed a change: it sends `watch` with its
    version and gets the whole view (or the events since, with it)."""

    table_id: str
    seat: int
    version: int
    previous: int
    events: list[E.AnyEvent]
    patch: list[PatchOp]


class Rules(ServerMessage, tag="rules", frozen=True, kw_only=True):
    """The answer to `rules` `id`: the rules' detail of `seat`'s view at `version`
    (`table.viewrules.RulesDetail`; all empty but for the seat to act in its play phase)."""

    id: str
    table_id: str
    seat: int
    version: int
    rules: RulesDetail


class Synced(ServerMessage, tag="synced", frozen=True, kw_only=True):
    """A resumed watch: the client's version is the newest; nothing was missed."""

    table_id: str
    seat: int
    version: int


class TableSummary(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    house: str
    status: str
    version: int
    players: list[str]
    free_seats: list[int]
    hands_total: int
    bots_allowed: bool
    turn_seconds: int | None
    ranked: bool = False  # its match moves the house's standings (the view's `ranked`)


class Tables(ServerMessage, tag="tables", frozen=True, kw_only=True):
    tables: list[TableSummary]


class QuickPlayState(ServerMessage, tag="quick_play_state", frozen=True, kw_only=True):
    """Where your quick play stands (also sent after `welcome` while you wait): `waiting` in
    `hall`, `seated` at `table_id` in `seat` (watch it), `cancelled`, or `refused` with
    `code` and `message`. `id` is the quick play's (or the cancel's) own."""

    id: str | None = None
    house: str
    hall: str = ""
    status: Literal["waiting", "seated", "cancelled", "refused"]
    since: int = 0  # ms since the epoch: when the wait began (or the state was decided)
    table_id: str = ""
    seat: int = -1
    code: str = ""
    message: str = ""


class TournamentSummary(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str
    house: str
    name: str
    starts_at: int  # ms since the epoch: registration closes, round 1 is seated
    size: int
    hands: int  # per match; 0: the house's own
    status: Literal["open", "running", "ended", "cancelled"]
    registered: int  # how many have registered
    is_registered: bool  # whether you have
    round: int = 0  # the round being played (0 before the start)


class Tournaments(ServerMessage, tag="tournaments", frozen=True, kw_only=True):
    tournaments: list[TournamentSummary]


class BracketTable(msgspec.Struct, frozen=True, kw_only=True):
    """A table of a round, by seat: `places` (1-4, ties share) and `advancing` once its
    match has ended. A seat that is no entrant is a bot filling the table."""

    table_id: str
    players: list[str]
    bots: list[bool]
    entrants: list[bool]
    places: list[int] = msgspec.field(default_factory=list)
    advancing: list[str] = msgspec.field(default_factory=list)


class BracketRound(msgspec.Struct, frozen=True, kw_only=True):
    round: int
    tables: list[BracketTable]


class TournamentPlace(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    place: int  # ties share
    bot: bool
    title: str
    league_points: int
    tournament_points: int
    reached: int  # the last round played


class TournamentState(ServerMessage, tag="tournament", frozen=True, kw_only=True):
    """A tournament's bracket and results (also sent to its entrants as it changes):
    the entrants, every round's tables, and the final standings once it has ended."""

    id: str | None = None
    tournament: TournamentSummary
    reason: str = ""  # why it was cancelled
    entrants: list[str]
    rounds: list[BracketRound]
    standings: list[TournamentPlace]


AnyServerMessage = (Welcome | ErrorReply | CommandOutcome | Update | Patch | Rules | Synced
                    | Tables
                    | QuickPlayState | Tournaments | TournamentState)

client_decoder = msgspec.json.Decoder(AnyClientMessage)
encoder = msgspec.json.Encoder()


_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:,]')


def decode_client(data: bytes | str) -> AnyClientMessage:
    """A client frame, or msgspec.DecodeError / ValidationError naming what is wrong (a
    frame nested past `MAX_DEPTH` among them, refused before any decoder recurses)."""
    if too_deep(data):
        raise msgspec.DecodeError(f"the frame nests deeper than {MAX_DEPTH} levels")
    message: AnyClientMessage = client_decoder.decode(data)
    return message


def id_of(data: bytes | str) -> str | None:
    """The string `id` at the top level of a frame that is a JSON object, however wrong
    or deep the rest is (read by scanning, never by a recursive decoder); None when there
    is none."""
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    if not raw.lstrip().startswith(b"{"):
        return None
    depth, key, after_colon = 0, b"", False
    for match in _TOKEN.finditer(raw):
        token = match.group()
        if token in (b"{", b"["):
            depth += 1
        elif token in (b"}", b"]"):
            depth -= 1
            if depth <= 0:
                return None
        elif depth != 1:
            continue
        elif token == b":":
            after_colon = True
        elif token == b",":
            key, after_colon = b"", False
        elif not after_colon:
            key = token
        elif key == b'"id"':
            raw_end = raw[match.end():].lstrip()[:1]
            if raw_end not in (b",", b"}"):
                return None  # "id": "a" "b" is no string
            try:
                found = msgspec.json.decode(token)
            except msgspec.DecodeError:
                return None
            return found if isinstance(found, str) else None
    return None


def command_digest(message: SendCommand) -> bytes:
    """What a command id stands for: its table, seq and move (keys sorted), hashed. A
    retry has the same digest; a command id reused for another command does not."""
    body = msgspec.json.encode([message.table_id, message.seq, message.command],
                               order="sorted")
    return hashlib.blake2b(body, digest_size=16).digest()


def encode(message: msgspec.Struct) -> bytes:
    return encoder.encode(message)


def refuse(code: str, message: str, id: str | None = None) -> ErrorReply:
    """An error frame with a registered gateway code (`okey101.codes.GATEWAY`)."""
    return ErrorReply(code=code, message=message, id=id)


def to_command(move: AnyMove, *, table_id: str, command_id: str, player_id: str, seat: int,
               seq: int, bot_id: str = "", digest: bytes = b"") -> E.AnyCommand:
    """The table command for `move`, with the envelope the gateway stamps (and, for a bot
    it seats, the bot's id the gateway mints: a client never names one). `digest`
    (`command_digest`) goes with it: the processor refuses its id reused for another."""
    fields = msgspec.to_builtins(move)
    fields.update(table_id=table_id, command_id=command_id, player_id=player_id, seat=seat,
                  seq=seq, digest=digest.hex())
    if isinstance(move, ReplaceWithBotMove):
        fields["bot_id"] = bot_id
    command: E.AnyCommand = msgspec.convert(fields, E.AnyCommand)
    return command


def published_schemas() -> dict[str, Any]:
    return {
        "websocket-client.schema.json": msgspec.json.schema(AnyClientMessage),
        "websocket-server.schema.json": msgspec.json.schema(AnyServerMessage),
    }
