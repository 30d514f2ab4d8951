"""The gateway's tournament board: the matchmaker's tournament decisions folded into what a
lobby lists (`tournaments` frames) and what a bracket shows (`tournament` frames).

Pure: the gateway's shell feeds it every decision it reads from `okey.matchmaker` and asks
it for frames. A tournament is known from its `tournament_scheduled` decision. At its start
the gateway reads the tournaments topic whole (`Index`: every unfinished tournament's
schedule) and the decisions of each partition from the earlier of its newest
`recent_decisions` and the earliest unfinished schedule's time, so a restart knows every
tournament not finished, with its registrations and rounds.
"""

from __future__ import annotations

from typing import Literal

from okey101.app.gateway import websocket as W
from okey101.app.matchmaker import records as R
from okey101.errors import MalformedInput

Status = Literal["open", "running", "ended", "cancelled"]
# the decisions are re-read from this long before the earliest unfinished schedule's time:
# a record's time is its producer's clock, or the broker's where a topic says LogAppendTime
REREAD_MARGIN_MS = 5 * 60 * 1000


class Index:
    """The tournaments topic folded (compacted, keyed by tournament id): the last schedule
    of each key, which a tombstone removes."""

    def __init__(self) -> None:
        self.schedules: dict[str, R.TournamentScheduled] = {}

    def apply(self, key: bytes | None, value: bytes | None) -> None:
        """One record; MalformedInput (nothing changed) for one that is no schedule of
        its key."""
        if not key:
            raise MalformedInput("a tournaments record without a key (a tournament id)")
        tournament_id = key.decode(errors="replace")
        if value is None:
            self.schedules.pop(tournament_id, None)
            return
        d = R.decision_decoder.decode(value)
        if not isinstance(d, R.TournamentScheduled) or d.tournament_id != tournament_id:
            raise MalformedInput(f"tournaments record {tournament_id!r}: a {d.__class__.__name__}"
                                 f" of {getattr(d, 'tournament_id', '')!r}, not its schedule")
        self.schedules[tournament_id] = d

    def reread_from(self) -> int | None:
        """The time (ms) the decisions must be read from to fold every unfinished
        tournament whole; None when there is none."""
        if not self.schedules:
            return None
        return max(0, min(d.at for d in self.schedules.values()) - REREAD_MARGIN_MS)


class Entry:
    """One tournament as the board holds it."""

    def __init__(self, spec: R.TournamentScheduled) -> None:
        self.spec = spec
        self.status: Status = "open"
        self.registered: dict[str, bool] = {}  # player -> is a bot (in registration order)
        self.entrants: list[str] = []
        self.bots: set[str] = set()
        self.rounds: dict[int, dict[str, W.BracketTable]] = {}
        self.standings: list[W.TournamentPlace] = []
        self.reason = ""

    def apply(self, d: R.AnyDecision) -> None:
        match d:
            case R.Registered():
                self.registered[d.player_id] = d.bot
            case R.Unregistered():
                self.registered.pop(d.player_id, None)
            case R.TournamentStarted():
                self.status = "running"
                self.entrants = list(d.entrants)
                self.bots = {p for p in d.entrants if self.registered.get(p, True)}
            case R.Seated():
                self.rounds.setdefault(d.round, {})[d.table_id] = W.BracketTable(
                    table_id=d.table_id, players=[s.player_id for s in d.seats],
                    bots=[s.bot for s in d.seats], entrants=[s.entrant for s in d.seats])
            case R.TableResult():
                table = self.rounds.get(d.round, {}).get(d.table_id)
                if table is not None:
                    self.rounds[d.round][d.table_id] = W.BracketTable(
                        table_id=table.table_id, players=table.players, bots=table.bots,
                        entrants=table.entrants, places=list(d.places),
                        advancing=list(d.advancing))
            case R.TournamentEnded():
                self.status = "ended"
                self.standings = [W.TournamentPlace(
                    player_id=p.player_id, place=p.place, bot=p.bot, title=p.title,
                    league_points=p.league_points, tournament_points=p.tournament_points,
                    reached=p.reached) for p in d.standings]
            case R.TournamentCancelled():
                self.status = "cancelled"
                self.reason = d.reason

    def summary(self, player: str) -> W.TournamentSummary:
        s = self.spec
        return W.TournamentSummary(
            tournament_id=s.tournament_id, house=s.house, name=s.name, starts_at=s.starts_at,
            size=s.size, hands=s.hands, status=self.status,
            registered=len(self.registered), is_registered=player in self.registered,
            round=max(self.rounds, default=0))

    def state(self, player: str, id: str | None = None) -> W.TournamentState:
        return W.TournamentState(
            id=id, tournament=self.summary(player), reason=self.reason,
            entrants=self.entrants or list(self.registered),
            rounds=[W.BracketRound(round=n, tables=list(tables.values()))
                    for n, tables in sorted(self.rounds.items())],
            standings=self.standings)


class TournamentBoard:
    """Every tournament the gateway has read of, and the registrations it sent on."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}  # by tournament id
        self.asked: dict[str, str] = {}  # request id -> tournament id, until answered

    def apply(self, d: R.AnyDecision) -> Entry | None:
        """Fold one decision (a request the board sent is answered by it); the tournament
        it changed, or None for a decision about no tournament."""
        self.asked.pop(getattr(d, "request_id", ""), None)
        if isinstance(d, R.TournamentScheduled):
            scheduled = self.entries[d.tournament_id] = Entry(d)
            return scheduled
        entry = self.entries.get(getattr(d, "tournament_id", ""))
        if entry is not None:
            entry.apply(d)
        return entry

    def sent(self, request_id: str, tournament_id: str) -> None:
        """A registration (or its withdrawal) published, awaiting the matchmaker's answer."""
        self.asked[request_id] = tournament_id

    def refused(self, d: R.Refused) -> str | None:
        """The tournament a refused request was about, if it was one the board sent."""
        return self.asked.pop(d.request_id, None)

    def summaries(self, player: str, house: str | None = None) -> list[W.TournamentSummary]:
        """Open tournaments first (soonest first), then running, then the ended ones."""
        order: dict[Status, int] = {"open": 0, "running": 1, "ended": 2, "cancelled": 3}
        chosen = [e for e in self.entries.values() if house is None or e.spec.house == house]
        chosen.sort(key=lambda e: (order[e.status], e.spec.starts_at, e.spec.tournament_id))
        return [e.summary(player) for e in chosen]

    def state(self, tournament_id: str, player: str,
              id: str | None = None) -> W.TournamentState | None:
        entry = self.entries.get(tournament_id)
        return None if entry is None else entry.state(player, id)

    def watchers(self, entry: Entry) -> set[str]:
        """The accounts a change of `entry` concerns: its registered players and entrants."""
        return {p for p in (*entry.registered, *entry.entrants) if p not in entry.bots}
