"""The matchmaker's records.

Requests (`okey.matchmaking`, key: the house) are written by gateways (a player's quick
play, cancel, registration), by an operator (a tournament's schedule or cancellation:
`okey101 tournament`) and by the
matchmaker's own relay (a table it seated has ended). Decisions (`okey.matchmaker`, key:
the house) are the matchmaker's answers, written in one transaction with the table commands
they call for; the matchmaker's memory is the fold of its decisions, so a restart reads
them back and is where it was. Every record carries its time (`at`, ms): the decisions'
time is the shell's clock when it decided, and nothing in the fold reads a clock.
"""

from __future__ import annotations

from typing import Literal

import msgspec

VERSION = 1


class Request(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    v: int = VERSION
    request_id: str  # the writer's id for this request: a retry carries the same one
    house: str
    at: int = 0


class QuickPlay(Request, tag="quick_play", frozen=True, kw_only=True):
    """A player asks for a seat: in `hall`, or ("") the hall of their level."""

    player_id: str
    hall: str = ""
    roles: list[str] = msgspec.field(default_factory=list)  # from the identity token


class CancelQuickPlay(Request, tag="cancel_quick_play", frozen=True, kw_only=True):
    player_id: str


class ScheduleTournament(Request, tag="schedule_tournament", frozen=True, kw_only=True):
    """An operator's (or a test's) new tournament: free entry (seeds/000 §8)."""

    tournament_id: str
    name: str = ""
    starts_at: int  # ms since the epoch: registration closes and round 1 is seated
    size: int = 64  # at most this many entrants
    hands: int = 0  # hands per match; 0: the house's own
    fill_with_bots: bool = False  # seats no entrant took go to bots at the start
    bot_level: int = 1


class CancelTournament(Request, tag="cancel_tournament", frozen=True, kw_only=True):
    """An operator calls off an open or running tournament (a running one's tables play
    on; no further round is seated and no standings are written)."""

    tournament_id: str
    reason: str = ""


class Register(Request, tag="register", frozen=True, kw_only=True):
    player_id: str
    tournament_id: str


class Unregister(Request, tag="unregister", frozen=True, kw_only=True):
    player_id: str
    tournament_id: str


class TableEnded(Request, tag="table_ended", frozen=True, kw_only=True):
    """The relay: a table the matchmaker seated has ended (its `match_ended`)."""

    table_id: str
    players: list[str]  # by seat
    places: list[int]  # by seat, 1-4, ties share
    totals: list[int]


AnyRequest = (QuickPlay | CancelQuickPlay | ScheduleTournament | CancelTournament | Register
              | Unregister | TableEnded)
request_decoder = msgspec.json.Decoder(AnyRequest)


# ---------------------------------------------------------------- the decisions
class Decision(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    v: int = VERSION
    house: str
    at: int


class Waiting(Decision, tag="waiting", frozen=True, kw_only=True):
    """A quick play accepted: the player waits in `hall` with the skill and level they had."""

    request_id: str
    player_id: str
    hall: str
    ordinal: float
    level: int


class Refused(Decision, tag="refused", frozen=True, kw_only=True):
    """A request refused (okey101.codes.MATCHMAKING): nothing was queued or changed."""

    request_id: str
    player_id: str
    code: str
    message: str


class Cancelled(Decision, tag="cancelled", frozen=True, kw_only=True):
    request_id: str  # the cancel's own id
    player_id: str
    hall: str
    waited_ms: int


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    bot: bool = False
    bot_level: int = 0
    request_id: str = ""  # the quick play it answers ("" for a bot or a tournament seat)
    ordinal: float = 0.0
    entrant: bool = True  # a tournament's entrant (False: a bot filling a seat)


class Seated(Decision, tag="seated", frozen=True, kw_only=True):
    """A table created and filled (its commands are in the same transaction)."""

    table_id: str
    hall: str
    seats: list[Seat]  # by seat 0-3
    window: float  # the skill window the oldest waiting player had reached
    waited_ms: list[int]  # by seat, 0 for a bot
    hands: int = 0  # 0: the house's own
    tournament_id: str = ""
    round: int = 0


class TournamentScheduled(Decision, tag="tournament_scheduled", frozen=True, kw_only=True):
    request_id: str
    tournament_id: str
    name: str
    starts_at: int
    size: int
    hands: int
    fill_with_bots: bool
    bot_level: int


class Registered(Decision, tag="registered", frozen=True, kw_only=True):
    request_id: str
    tournament_id: str
    player_id: str
    ordinal: float
    bot: bool = False


class Unregistered(Decision, tag="unregistered", frozen=True, kw_only=True):
    request_id: str
    tournament_id: str
    player_id: str


class TournamentStarted(Decision, tag="tournament_started", frozen=True, kw_only=True):
    tournament_id: str
    entrants: list[str]  # in seed order (the registrations, then the bots that filled)


class TableResult(Decision, tag="table_result", frozen=True, kw_only=True):
    """A tournament table's match ended: who advances, and the tournament points of each
    entrant (0 where the repeated-pair rule stops the match for them)."""

    tournament_id: str
    round: int
    table_id: str
    players: list[str]  # by seat
    places: list[int]
    advancing: list[str]
    points: dict[str, int]
    not_counted: list[str] = msgspec.field(default_factory=list)  # the repeated-pair rule


class Placing(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    place: int  # ties share
    bot: bool = False
    title: str = ""
    league_points: int = 0
    tournament_points: int = 0
    reached: int = 1  # the last round played


class TournamentEnded(Decision, tag="tournament_ended", frozen=True, kw_only=True):
    tournament_id: str
    standings: list[Placing]  # by place
    matches: int  # every table of every round


class TournamentCancelled(Decision, tag="tournament_cancelled", frozen=True, kw_only=True):
    """Too few entrants at the start (request_id ""), or an operator's `cancel_tournament`
    (its request id)."""

    tournament_id: str
    reason: str
    request_id: str = ""


AnyDecision = (Waiting | Refused | Cancelled | Seated | TournamentScheduled | Registered
               | Unregistered | TournamentStarted | TableResult | TournamentEnded
               | TournamentCancelled)
decision_decoder = msgspec.json.Decoder(AnyDecision)
encode = msgspec.json.encode


def tournament_index(d: AnyDecision) -> tuple[bytes, bytes | None] | None:
    """The record of the tournaments topic (compacted, keyed by tournament id) a decision
    calls for: a schedule kept as it was decided, a tombstone once it has ended or been
    cancelled, nothing for any other decision."""
    match d:
        case TournamentScheduled():
            return d.tournament_id.encode(), encode(d)
        case TournamentEnded() | TournamentCancelled():
            return d.tournament_id.encode(), None
    return None

Status = Literal["waiting", "seated", "refused", "cancelled"]
