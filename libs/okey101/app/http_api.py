"""The HTTP APIs' bodies as structs, and their routes: what `tools.gen_openapi` publishes
as OpenAPI 3.1 (`proto/openapi-*.json`), next to the Kafka and WebSocket schemas.

The services answer with these shapes (or the structs named here: `Tables`, `BoardRow`,
`TableEntry`, `ReplayStep`...); `tests/kafka/test_openapi.py` checks every response of the
running services against the documents, so a body that drifts from its struct fails there.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from okey101.app.gateway.sheet import ScoreAnswer, ScoreRequest
from okey101.app.gateway.standing import MyStanding
from okey101.app.gateway.websocket import Tables
from okey101.app.replays.directory import PublicEntry, TableEntry
from okey101.app.replays.replay import ReplayStep
from okey101.app.solve import Helped
from okey101.profiles import Profile
from okey101.standings.board import BoardRow, HistoryEntry, MatchMoved, Standing
from okey101.standings.house import StandingRules


# ---------------------------------------------------------------- every service
class Alive(msgspec.Struct, frozen=True, kw_only=True):
    alive: bool


class Ready(msgspec.Struct, frozen=True, kw_only=True):
    ready: bool
    reason: str  # what is missing, when not ready


# ---------------------------------------------------------------- the gateway
class GatewayHealth(msgspec.Struct, frozen=True, kw_only=True):
    ready: bool
    connections: int
    tables: int


class GuestRequest(msgspec.Struct, frozen=True, kw_only=True):
    name: str = ""  # kept: letters, digits, - and _, at most 24; "guest" when none is left


class GuestToken(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str  # the name and four hex digits
    token: str  # for the WebSocket's hello and the Authorization header


class SolveRequest(msgspec.Struct, frozen=True, kw_only=True):
    kind: Literal["arrange", "opening", "pairs", "finish"]  # opening: 101; finish: düz
    rack: list[str]  # at most 22 tiles (düz: 15)
    okey: str
    house: str = "okeygg"
    options: dict[str, Any] = {}  # the table's profile options, e.g. {"meld_value": "third"}


class Problem(msgspec.Struct, frozen=True, kw_only=True):
    code: str  # from proto/codes.json's gateway codes
    message: str


# ---------------------------------------------------------------- the leaderboards
class LeaderboardsHealth(msgspec.Struct, frozen=True, kw_only=True):
    ready: bool
    progress: float
    matches: int
    records: int
    bad_input: dict[str, int]
    duplicates: dict[str, int]


class Board(msgspec.Struct, frozen=True, kw_only=True):
    house: str
    week: str | None
    order: str  # "league", or the house's points ("rating", "sp", "none")
    rows: list[BoardRow]
    bots_excluded: int


class SkillFigures(msgspec.Struct, frozen=True, kw_only=True):
    mu: float
    sigma: float
    ordinal: float


class AccountPage(msgspec.Struct, frozen=True, kw_only=True):
    house: str
    account: str
    standing: Standing
    skill: SkillFigures
    room: str
    rooms_open: list[str]
    history: list[HistoryEntry]
    place: int | None  # on the all-time board (None: off it, as a bot the house hides)
    week: str  # the league week now
    league_place: int | None  # on that week's league (None: no points that week)


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    error: str
    pending: bool  # true: the page may poll until the leaderboards fold the match


class UnrankedMatch(msgspec.Struct, frozen=True, kw_only=True):
    """A match the leaderboards folded but never applied: it moved nothing, and why."""

    house: str
    account: str
    table_id: str
    ranked: bool  # always false
    unranked_reason: str


class RoomAnswer(msgspec.Struct, frozen=True, kw_only=True):
    house: str
    account: str
    level: int
    room: str
    rooms_open: list[str]


class Refusal(msgspec.Struct, frozen=True, kw_only=True):
    error: str
    progress: float | None = None  # a board asked for during the rebuild (503)


# ---------------------------------------------------------------- the replays
class PartitionLag(msgspec.Struct, frozen=True, kw_only=True):
    partition: int
    lag_events: int
    newest_indexed_age_seconds: float


class ReplaysStatus(msgspec.Struct, frozen=True, kw_only=True):
    tables: int
    directory: str
    events: str
    auditor: bool
    partitions: list[PartitionLag]


# ---------------------------------------------------------------- the routes
JSON = "application/json"
TEXT = "text/plain"
NDJSON = "application/x-ndjson"


class Param(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    where: Literal["query", "path", "header"]
    schema: dict[str, Any]
    description: str = ""
    required: bool = False


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    """One status of a route: its body's media type and struct (None: text, or no body
    documented), or a `schema` written out where a struct cannot say it (a union), with
    the structs it refers to in `refs`."""

    description: str
    media: str = JSON
    body: Any = None
    schema: dict[str, Any] | None = None
    refs: tuple[Any, ...] = ()
    headers: tuple[str, ...] = ()


class Route(msgspec.Struct, frozen=True, kw_only=True):
    method: Literal["get", "post"]
    path: str
    summary: str
    params: tuple[Param, ...] = ()
    request: Any = None  # the JSON body's struct
    answers: dict[int, Answer]


def _ref(cls: type) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{cls.__name__}"}


HOUSE = Param(name="house", where="path", required=True, schema={"type": "string"},
              description="a house id, as /houses lists them")
ACCOUNT = Param(name="account", where="path", required=True, schema={"type": "string"})
TABLE = Param(name="table", where="path", required=True, schema={"type": "string"})
AS = Param(name="as", where="query", schema={"type": "string",
                                              "enum": ["public", "server", "0", "1", "2", "3"]},
           description="who looks: spectators (the default), the server (auditor flag "
                       "only) or a seat (once the match is over)")
AS_LISTING = Param(name="as", where="query",
                   schema={"type": "string", "enum": ["public", "server"]})
WHOLE = {"type": "string", "pattern": "^-?[0-9]+$"}
ENTRY = {"anyOf": [_ref(PublicEntry), _ref(TableEntry)]}
ENTRIES = (PublicEntry, TableEntry)
REFUSAL = Answer(description="refused: one line why", body=Refusal)
MALFORMED_BODY = Answer(description="the body is not a JSON object", media="", body=None)
LAG = "Directory-Lag"

HEALTH_ROUTES: tuple[Route, ...] = (
    Route(method="get", path="/healthz", summary="liveness: the event loop answers",
          answers={200: Answer(description="alive", body=Alive)}),
    Route(method="get", path="/readyz", summary="readiness: partitions rebuilt, broker up",
          answers={200: Answer(description="ready", body=Ready),
                   503: Answer(description="not ready, and why", body=Ready)}),
    Route(method="get", path="/metrics", summary="the Prometheus text exposition",
          answers={200: Answer(description="the process's metrics", media=TEXT)}),
)

GATEWAY_ROUTES: tuple[Route, ...] = (
    Route(method="get", path="/healthz", summary="the gateway's state",
          answers={200: Answer(description="its connections and cached tables",
                               body=GatewayHealth)}),
    Route(method="get", path="/api/tables", summary="the lobby: open tables",
          params=(Param(name="house", where="query", schema={"type": "string"},
                        description="only this house's tables"),),
          answers={200: Answer(description="the lobby", body=Tables)}),
    Route(method="get", path="/api/houses", summary="every house's rules: the lobby's "
          "defaults and limits (proto/houses.json)",
          answers={200: Answer(description="each house by its id",
                               schema={"type": "object", "additionalProperties": _ref(Profile)},
                               refs=(Profile,))}),
    Route(method="post", path="/api/guest", summary="a guest's token (where the operator "
          "allows guests: --guest-login)", request=GuestRequest,
          answers={200: Answer(description="a token for a new guest id", body=GuestToken),
                   400: MALFORMED_BODY,
                   404: Answer(description="guest login is off", media="")}),
    Route(method="get", path="/api/me/standing", summary="the token's account in a house: "
          "SP or rating, this week's league, level (XP), room and place on the board, read "
          "from the leaderboards (--leaderboards-url)",
          params=(Param(name="house", where="query", required=True,
                        schema={"type": "string"}, description="a house id"),
                  Param(name="Authorization", where="header", required=True,
                        schema={"type": "string"}, description="Bearer TOKEN")),
          answers={200: Answer(description="its standing (known false: no finished match "
                               "there yet, the starting figures)", body=MyStanding),
                   400: Answer(description="no such house", body=Problem),
                   401: Answer(description="no valid token", body=Problem),
                   404: Answer(description="this gateway reads no leaderboards",
                               body=Problem),
                   503: Answer(description="the leaderboards did not answer, or are "
                               "rebuilding", body=Problem)}),
    Route(method="get", path="/api/me/match", summary="what a finished match moved for the "
          "token's account: SP or rating before -> after, league points, XP and level (a "
          "level-up), its board place; read from the leaderboards (--leaderboards-url)",
          params=(Param(name="house", where="query", required=True,
                        schema={"type": "string"}, description="a house id"),
                  Param(name="table", where="query", required=True,
                        schema={"type": "string"}, description="the match's table id"),
                  Param(name="Authorization", where="header", required=True,
                        schema={"type": "string"}, description="Bearer TOKEN")),
          answers={200: Answer(description="what it moved, or that it was unranked (ranked "
                               "false, and why)", schema={
                                   "oneOf": [_ref(MatchMoved), _ref(UnrankedMatch)]},
                               refs=(MatchMoved, UnrankedMatch)),
                   400: Answer(description="no such house, or not a table id", body=Problem),
                   401: Answer(description="no valid token", body=Problem),
                   404: Answer(description="pending: not folded yet (poll briefly) or not "
                               "the account's match; or this gateway reads no leaderboards "
                               "(unavailable)", body=Problem),
                   503: Answer(description="the leaderboards did not answer, or are "
                               "rebuilding", body=Problem)}),
    Route(method="post", path="/api/score", summary="the end-of-hand sheet's breakdown: each "
          "seat's rack, multiplier and okey surcharge for a hand's end (scoring."
          "hand_breakdown)", request=ScoreRequest,
          answers={200: Answer(description="by seat; score is hand_ended's", body=ScoreAnswer),
                   400: Answer(description="not a hand's end the rules allow (a Problem), "
                               "or a body that is not a JSON object", media="")}),
    Route(method="post", path="/api/solve", summary="the rack helpers: arrange (sırala), "
          "opening (Otomatik Seri Aç, 101), pairs (Otomatik Çift Aç), finish (düz), "
          "counted as the house counts (okey101.app.solve, as `okey101 solve`)",
          request=SolveRequest,
          params=(Param(name="Authorization", where="header", required=True,
                        schema={"type": "string"}, description="Bearer TOKEN"),),
          answers={200: Answer(description="the melds found", body=Helped),
                   400: Answer(description="a malformed rack, tile or house (a Problem), or "
                               "a body that is not a JSON object", media=""),
                   401: Answer(description="no valid token", body=Problem),
                   429: Answer(description="more than 5 solves a second", body=Problem)}),
)

LEADERBOARDS_ROUTES: tuple[Route, ...] = (
    Route(method="get", path="/healthz", summary="ready, rebuild progress, bad input",
          answers={200: Answer(description="the service's state", body=LeaderboardsHealth)}),
    Route(method="get", path="/houses", summary="every house's standing rules",
          answers={200: Answer(description="house id -> rules", schema={
              "type": "object", "additionalProperties": _ref(StandingRules)},
              refs=(StandingRules,))}),
    Route(method="get", path="/houses/{house}/board", summary="a house's board",
          params=(HOUSE,
                  Param(name="top", where="query", schema=WHOLE,
                        description="how many rows: 1-1000 (default 10)"),
                  Param(name="week", where="query", schema={"type": "string"},
                        description="a week's league points: current or 2026-W48"),
                  Param(name="bots", where="query", schema={"type": "string",
                                                            "enum": ["0", "1"]},
                        description="list bots or not (the house's rule otherwise)")),
          answers={200: Answer(description="the board", body=Board), 400: REFUSAL,
                   404: REFUSAL, 503: REFUSAL}),
    Route(method="get", path="/houses/{house}/accounts/{account}", summary="an account's page",
          params=(HOUSE, ACCOUNT),
          answers={200: Answer(description="standing, skill, rooms, history",
                               body=AccountPage), 404: REFUSAL, 503: REFUSAL}),
    Route(method="get", path="/houses/{house}/accounts/{account}/room",
          summary="the room an account may enter", params=(HOUSE, ACCOUNT),
          answers={200: Answer(description="its room and every room open", body=RoomAnswer),
                   404: REFUSAL, 503: REFUSAL}),
    Route(method="get", path="/houses/{house}/accounts/{account}/matches/{table}",
          summary="what a match moved for an account: SP or rating before -> after, league "
          "points, XP, level (a level-up), its board place now", params=(HOUSE, ACCOUNT, TABLE),
          answers={200: Answer(description="what it moved, or that it was unranked", schema={
              "oneOf": [_ref(MatchMoved), _ref(UnrankedMatch)]},
              refs=(MatchMoved, UnrankedMatch)),
                   404: Answer(description="not folded yet (poll) or not the account's match: "
                               "pending true; or no such house: a refusal", schema={
                                   "anyOf": [_ref(Pending), _ref(Refusal)]},
                               refs=(Pending, Refusal)),
                   503: REFUSAL}),
)

REPLAYS_ROUTES: tuple[Route, ...] = (
    Route(method="get", path="/tables", summary="the directory, newest first",
          params=(Param(name="house", where="query", schema={"type": "string"}),
                  Param(name="player", where="query", schema={"type": "string"}),
                  Param(name="status", where="query", schema={"type": "string"}),
                  Param(name="since", where="query", schema={"type": "string"},
                        description="ISO 8601 time or ms since the epoch"),
                  Param(name="until", where="query", schema={"type": "string"}),
                  Param(name="limit", where="query", schema=WHOLE,
                        description="1-10000 (default 100)"),
                  AS_LISTING),
          answers={200: Answer(description="the entries", schema={
              "type": "object", "required": ["tables", "count"],
              "properties": {"tables": {"type": "array", "items": ENTRY},
                             "count": {"type": "integer"}}}, refs=ENTRIES),
              400: REFUSAL, 403: REFUSAL}),
    Route(method="get", path="/tables/{table}", summary="one entry",
          params=(TABLE, AS_LISTING),
          answers={200: Answer(description="the entry", schema=ENTRY, refs=ENTRIES,
                               headers=(LAG,)),
                   400: REFUSAL, 403: REFUSAL, 404: REFUSAL}),
    Route(method="get", path="/tables/{table}/events", summary="its events, one JSON a line",
          params=(TABLE, AS),
          answers={200: Answer(description="the events as the viewer saw them", media=NDJSON,
                               headers=(LAG, "Skipped-Records")),
                   400: REFUSAL, 403: REFUSAL, 404: REFUSAL, 503: REFUSAL}),
    Route(method="get", path="/tables/{table}/state", summary="the table at a step",
          params=(TABLE, AS,
                  Param(name="at", where="query", schema=WHOLE, description="a seq"),
                  Param(name="hand", where="query", schema=WHOLE,
                        description="the end of hand N"),
                  Param(name="format", where="query",
                        schema={"type": "string", "enum": ["json", "text"]})),
          answers={200: Answer(description="the step (format=text: drawn as text)",
                               body=ReplayStep, headers=(LAG,)),
                   400: REFUSAL, 403: REFUSAL, 404: REFUSAL, 503: REFUSAL}),
    Route(method="get", path="/tables/{table}/views",
          summary="its views step by step, as the views contract sends them",
          params=(TABLE, AS,
                  Param(name="from", where="query", schema=WHOLE,
                        description="the first step (a seq, default 1): its view whole"),
                  Param(name="to", where="query", schema=WHOLE,
                        description="the last step (a seq, default the last): a patch a "
                                    "step up to it")),
          answers={200: Answer(description="one player-views record a line (proto/"
                               "player-update.schema.json: `kind` view, then patch; whole "
                               "again every 32nd), without the server's notes of bots",
                               media=NDJSON, headers=(LAG, "Steps", "Stopped",
                                                      "Skipped-Records")),
                   400: REFUSAL, 403: REFUSAL, 404: REFUSAL, 503: REFUSAL}),
    Route(method="get", path="/tables/{table}/history", summary="its hand history in words",
          params=(TABLE, AS),
          answers={200: Answer(description="one line an event", media=TEXT, headers=(LAG,)),
                   400: REFUSAL, 403: REFUSAL, 404: REFUSAL, 503: REFUSAL}),
    Route(method="get", path="/status", summary="tables, lag, settings",
          answers={200: Answer(description="the service's state", body=ReplaysStatus)}),
)

APIS: dict[str, tuple[str, str, tuple[Route, ...]]] = {
    # file -> (title, description, routes)
    "openapi-gateway.json": (
        "okey101 gateway HTTP API", "`python -m services.gateway`, beside its WebSocket "
        "(/ws, proto/asyncapi.json) and the browser table (/).", GATEWAY_ROUTES),
    "openapi-leaderboards.json": (
        "okey101 leaderboards HTTP API", "`python -m services.leaderboards --http-port P`.",
        LEADERBOARDS_ROUTES),
    "openapi-replays.json": (
        "okey101 replays HTTP API", "`python -m services.replays --http-port P`.",
        REPLAYS_ROUTES),
    "openapi-health.json": (
        "okey101 service health and metrics", "Every service's --metrics-port.",
        HEALTH_ROUTES),
}
