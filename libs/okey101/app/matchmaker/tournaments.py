"""A tournament, folded from its decisions (seeds/000 §8: free entry; prizes are
cosmetics, titles and league points).

Registration is open until `starts_at`; then the entrants (in registration order, and bots
to the size where the schedule says so) are seated by skill: sorted by the ordinal they had
when they registered, best first, four to a table, a bot filling what is left of the last
table (a filler: it plays, and never advances or places). At each table the entrants whose
place among the table's entrants is within the house's `advance_per_table` advance; ties
share the place (RULES.md §9), so tied entrants advance together, except that a table
cannot send all its entrants on (then the earliest seated of them advance: the project's
ruling, or a round could repeat forever). A round of one table is the final. Places: the
final table's by its match (ties share), everyone else by the round they reached (the
entrants knocked out in one round share a place). Titles and league points go by place to
human accounts only (bots never get rewards, titles or league places: RULES.md §9, §11);
tournament points are earned a match at a time by match place, and the repeated-pair rule
stops a match's points (and, for the match that decided a place, the league points).
"""

from __future__ import annotations

from collections.abc import Iterator

from okey101.app.matchmaker import halls
from okey101.app.matchmaker import records as R
from okey101.app.matchmaker.refusals import digest, refuse
from okey101.terms import SEATS


class Tournament:
    def __init__(self, spec: R.TournamentScheduled) -> None:
        self.spec = spec
        rules = halls.HALL_RULES[spec.house].tournaments
        assert rules is not None  # a house without tournaments schedules none
        self.rules = rules
        self.status = "open"  # open, running, ended, cancelled
        self.registered: dict[str, R.Registered] = {}
        self.entrants: list[str] = []
        self.bots: set[str] = set()
        self.ordinals: dict[str, float] = {}
        self.round = 0
        self.tables: dict[str, R.Seated] = {}  # this round's
        self.results: dict[str, R.TableResult] = {}  # this round's
        self.reached: dict[str, int] = {}
        self.points: dict[str, int] = {}
        self.last_counted: dict[str, bool] = {}
        self.matches = 0
        self.final: R.TableResult | None = None
        self.ended: R.TournamentEnded | None = None

    # ------------------------------------------------------------ the fold
    def apply(self, d: R.AnyDecision) -> None:
        match d:
            case R.Registered():
                self.registered[d.player_id] = d
            case R.Unregistered():
                del self.registered[d.player_id]
            case R.TournamentStarted():
                self.status = "running"
                self.entrants = list(d.entrants)
                self.bots = set(d.entrants) - set(self.registered)
                self.ordinals = {p: self.registered[p].ordinal if p in self.registered
                                 else 0.0 for p in d.entrants}
                self.reached = dict.fromkeys(d.entrants, 0)
                self.points = dict.fromkeys(d.entrants, 0)
            case R.TableResult():
                self.results[d.table_id] = d
                self.matches += 1
                for p, points in d.points.items():
                    self.points[p] += points
                    self.last_counted[p] = p not in d.not_counted
                if len(self.tables) == 1:
                    self.final = d
            case R.TournamentEnded():
                self.status = "ended"
                self.ended = d
            case R.TournamentCancelled():
                self.status = "cancelled"

    def seat(self, d: R.Seated) -> None:
        if d.round != self.round:
            self.round = d.round
            self.tables, self.results = {}, {}
        self.tables[d.table_id] = d
        for s in d.seats:
            if s.entrant:
                self.reached[s.player_id] = d.round

    # ------------------------------------------------------------ questions
    def is_entrant(self, player: str) -> bool:
        return player in self.reached

    def plays(self, player: str) -> bool:
        """Still in a running tournament (seated this round, or through to the next)."""
        return self.status == "running" and self.reached.get(player) == self.round and \
            not any(player in r.players and player not in r.advancing
                    for r in self.results.values())

    def check_register(self, player: str) -> None:
        if self.status != "open":
            raise refuse("registration_closed", f"{self.spec.tournament_id} has "
                         f"{'started' if self.status == 'running' else self.status}")
        if player in self.registered:
            raise refuse("already_registered", f"{player} is registered")
        if len(self.registered) >= self.spec.size:
            raise refuse("tournament_full", f"{self.spec.tournament_id} holds "
                         f"{self.spec.size} entrants")

    def check_unregister(self, player: str) -> None:
        if self.status != "open":
            raise refuse("registration_closed", f"{self.spec.tournament_id} has started")
        if player not in self.registered:
            raise refuse("not_registered", f"{player} is not registered")

    def match_points(self, place: int) -> int:
        return self.rules.points_by_place[place - 1]

    def advancing(self, table: R.Seated, places: list[int]) -> list[str]:
        entrants = [(s.player_id, place) for s, place in zip(table.seats, places, strict=True)
                    if s.entrant]
        ranked = [p for p, place in entrants
                  if 1 + sum(other < place for _, other in entrants)
                  <= self.rules.advance_per_table]
        if len(self.tables) > 1 and len(ranked) == len(entrants) > self.rules.advance_per_table:
            ranked = ranked[:self.rules.advance_per_table]
        return ranked

    # ------------------------------------------------------------ decisions
    def start_if_due(self, now: int) -> Iterator[R.AnyDecision]:
        if self.status != "open" or now < self.spec.starts_at:
            return
        s = self.spec
        entrants = list(self.registered)
        if s.fill_with_bots and halls.bots_allowed(s.house):
            entrants += [_bot(s.tournament_id, "entrant", str(n))
                         for n in range(len(entrants), s.size)]
        if len(entrants) < 2:
            yield R.TournamentCancelled(house=s.house, at=now, tournament_id=s.tournament_id,
                                        reason=f"{len(entrants)} entrant(s) at the start")
            return
        started = R.TournamentStarted(house=s.house, at=now, tournament_id=s.tournament_id,
                                      entrants=entrants)
        yield started  # the caller applies it before the seating below reads it
        yield from self._seat_round(1, entrants, now)

    def _seat_round(self, number: int, players: list[str], now: int) -> Iterator[R.Seated]:
        s = self.spec
        order = sorted(players, key=lambda p: (-self.ordinals[p], self.entrants.index(p)))
        for n in range(0, len(order), SEATS):
            table_id = f"mm.{s.house}.{s.tournament_id}.r{number}.t{n // SEATS + 1}"
            group = order[n:n + SEATS]
            seats = [R.Seat(player_id=p, bot=p in self.bots, ordinal=self.ordinals[p],
                            bot_level=s.bot_level if p in self.bots else 0) for p in group]
            seats += [R.Seat(player_id=_bot(table_id, "filler", str(k)), bot=True,
                             bot_level=s.bot_level, entrant=False)
                      for k in range(len(group), SEATS)]
            yield R.Seated(house=s.house, at=now, table_id=table_id, hall="", seats=seats,
                           window=0.0, waited_ms=[0] * SEATS, hands=s.hands,
                           tournament_id=s.tournament_id, round=number)

    def next_step(self, now: int) -> Iterator[R.AnyDecision]:
        """After a table's result: the next round, or the standings, once the round is done."""
        if self.status != "running" or len(self.results) < len(self.tables):
            return
        if len(self.tables) == 1:
            yield self._standings(now)
            return
        through = [p for r in self.results.values() for p in r.advancing]
        through.sort(key=self.entrants.index)
        yield from self._seat_round(self.round + 1, through, now)

    def _standings(self, now: int) -> R.TournamentEnded:
        s, final = self.spec, self.final
        assert final is not None
        table = self.tables[final.table_id]
        finalists = [(seat.player_id, place) for seat, place in
                     zip(table.seats, final.places, strict=True) if seat.entrant]
        place_of = {p: 1 + sum(other < place for _, other in finalists) for p, place in finalists}
        for p in self.entrants:
            if p not in place_of:
                place_of[p] = 1 + sum(r > self.reached[p] for r in self.reached.values())
        standings = []
        for p in sorted(self.entrants, key=lambda p: (place_of[p], self.entrants.index(p))):
            place, bot = place_of[p], p in self.bots
            title = self.rules.titles[place - 1] if place <= len(self.rules.titles) else ""
            league = self.rules.league_by_place[place - 1] \
                if place <= len(self.rules.league_by_place) else 0
            rewarded = not bot
            standings.append(R.Placing(
                player_id=p, place=place, bot=bot, title=title if rewarded else "",
                league_points=league if rewarded and self.last_counted.get(p, True) else 0,
                tournament_points=self.points[p] if rewarded else 0,
                reached=self.reached[p]))
        return R.TournamentEnded(house=s.house, at=now, tournament_id=s.tournament_id,
                                 standings=standings, matches=self.matches)


def _bot(*parts: str) -> str:
    return digest(*parts)[:32]
