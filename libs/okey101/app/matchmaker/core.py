"""The matchmaker's memory, folded from its decisions, and the decisions it makes.

`Matchmaker.apply(decision)` is the fold: the live service and a rebuilt one (a restart
reads the decisions topic back) apply the same decisions in the same order, so they hold
the same memory. `handle(request)` and `tick(now)` decide: each decision is applied as it
is made, then returned for the shell to write (with the table commands `commands` derives
from a `Seated`, in one transaction). Nothing here reads a clock: `tick` is given the time,
and every decision carries it.

Quick play, per hall: the oldest waiting player is seated with the three others of the hall
closest to them in skill (the OpenSkill ordinal the leaderboards keep, as it was when they
asked) whose distance is within the oldest's window; the window widens with the time waited
(`Policy`). A player who has waited `bot_wait_ms` where the house allows bots is seated with
whoever is in their window and bots of a level near theirs in the empty seats.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec

from okey101 import profiles
from okey101.app.matchmaker import halls
from okey101.app.matchmaker import records as R
from okey101.app.matchmaker.refusals import Refusal, digest, refuse
from okey101.app.matchmaker.tournaments import Tournament
from okey101.standings.house import HOUSE_RULES
from okey101.table import messages as E
from okey101.terms import DEFAULT_BOT_LEVEL, SEATS

REMEMBERED_REQUESTS = 100_000  # request ids kept per house to answer a retry once


class Policy(msgspec.Struct, frozen=True, kw_only=True):
    window_base: float = 2.0  # ordinal distance accepted at once
    window_per_s: float = 1.0  # and this much more per second waited
    window_max: float = 60.0
    bot_wait_ms: int = 20_000  # seats still empty after this go to bots (where allowed)


class Account(msgspec.Struct, frozen=True):
    level: int = 1
    ordinal: float = 0.0


Accounts = Callable[[str, str], Account]  # (house, player) -> what the leaderboards say


def bot_id(table_id: str, seat: int) -> str:
    """A bot's account id: derived (no randomness here), shaped like any account's."""
    return digest(table_id, str(seat))[:32]


@dataclass
class House:
    name: str
    queues: dict[str, list[R.Waiting]] = field(default_factory=dict)  # hall -> oldest first
    waiting: dict[str, R.Waiting] = field(default_factory=dict)  # player -> their wait
    decided: OrderedDict[str, None] = field(default_factory=OrderedDict)  # request ids
    tournaments: dict[str, Tournament] = field(default_factory=dict)
    tables: dict[str, R.Seated] = field(default_factory=dict)  # tournament tables in play
    pairs: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # -> seated at
    seated: int = 0  # tables seated (quick play and tournaments)


class Matchmaker:
    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy or Policy()
        self.houses: dict[str, House] = {}

    def unfinished(self) -> list[R.TournamentScheduled]:
        """The schedules of the tournaments not ended or cancelled, in every house."""
        return [t.spec for h in self.houses.values() for t in h.tournaments.values()
                if t.status in ("open", "running")]

    def house(self, name: str) -> House:
        found = self.houses.get(name)
        if found is None:
            found = self.houses[name] = House(name)
        return found

    # ------------------------------------------------------------ the fold
    def apply(self, d: R.AnyDecision) -> None:
        h = self.house(d.house)
        request = getattr(d, "request_id", "")
        if request:
            h.decided[request] = None
            if len(h.decided) > REMEMBERED_REQUESTS:
                h.decided.popitem(last=False)
        match d:
            case R.Waiting():
                h.queues.setdefault(d.hall, []).append(d)
                h.waiting[d.player_id] = d
            case R.Cancelled():
                self._unqueue(h, d.player_id)
            case R.Seated():
                for seat in d.seats:
                    if not seat.bot:
                        self._unqueue(h, seat.player_id)
                self._remember_pairs(h, d)
                h.seated += 1
                if d.tournament_id:
                    h.tables[d.table_id] = d
                    h.tournaments[d.tournament_id].seat(d)
            case R.TournamentScheduled():
                h.tournaments[d.tournament_id] = Tournament(d)
            case R.Registered() | R.Unregistered() | R.TournamentStarted() | \
                    R.TournamentEnded() | R.TournamentCancelled():
                h.tournaments[d.tournament_id].apply(d)
            case R.TableResult():
                h.tables.pop(d.table_id, None)
                h.tournaments[d.tournament_id].apply(d)
            case R.Refused():
                pass

    def _unqueue(self, h: House, player: str) -> None:
        wait = h.waiting.pop(player, None)
        if wait is not None:
            queue = h.queues[wait.hall]
            queue.remove(wait)

    def _remember_pairs(self, h: House, d: R.Seated) -> None:
        rules = HOUSE_RULES.get(h.name)
        if rules is None or rules.repeat_limit is None:
            return
        humans = sorted(s.player_id for s in d.seats if not s.bot)
        for i, a in enumerate(humans):
            for b in humans[i + 1:]:
                times = h.pairs.setdefault((a, b), [])
                times.append(d.at)
                while times and times[0] <= d.at - rules.repeat_window_ms:
                    times.pop(0)

    def counted(self, house: str, table: R.Seated, player: str) -> bool:
        """The repeated-pair rule (RULES.md §9) for `player`'s match at `table`: False when
        they met another human there for the (limit + 1)-th time within the window (the
        tables the matchmaker seated are the matches it knows)."""
        rules = HOUSE_RULES.get(house)
        if rules is None or rules.repeat_limit is None:
            return True
        h = self.house(house)
        for seat in table.seats:
            if seat.bot or seat.player_id == player:
                continue
            times = h.pairs.get(tuple(sorted((player, seat.player_id))), [])  # type: ignore[arg-type]
            within = [t for t in times if table.at - rules.repeat_window_ms < t <= table.at]
            if len(within) > rules.repeat_limit:
                return False
        return True

    # ------------------------------------------------------------ decisions
    def _emit(self, out: list[R.AnyDecision], d: R.AnyDecision) -> None:
        self.apply(d)
        out.append(d)

    def handle(self, request: R.AnyRequest, accounts: Accounts, now: int) -> list[R.AnyDecision]:
        """The decisions one request calls for (a request id seen before: none)."""
        out: list[R.AnyDecision] = []
        if request.house in self.houses and \
                request.request_id in self.houses[request.house].decided:
            return out
        try:
            self._handle(request, accounts, now, out)
        except Refusal as refusal:
            player = getattr(request, "player_id", "")
            self._emit(out, R.Refused(house=request.house, at=now,
                                      request_id=request.request_id, player_id=player,
                                      code=refusal.code, message=refusal.message))
        return out

    def _handle(self, q: R.AnyRequest, accounts: Accounts, now: int,
                out: list[R.AnyDecision]) -> None:
        if isinstance(q, R.TableEnded):
            self._table_ended(q, now, out)
            return
        if q.house not in profiles.HOUSES:
            raise refuse("unknown_house", f"no house {q.house!r}")
        h = self.house(q.house)
        match q:
            case R.QuickPlay():
                self._quick_play(h, q, accounts(q.house, q.player_id), now, out)
            case R.CancelQuickPlay():
                wait = h.waiting.get(q.player_id)
                if wait is None:
                    raise refuse("nothing_waiting", f"{q.player_id} is not waiting in "
                                 f"{q.house}")
                self._emit(out, R.Cancelled(house=q.house, at=now, request_id=q.request_id,
                                            player_id=q.player_id, hall=wait.hall,
                                            waited_ms=now - wait.at))
            case R.ScheduleTournament():
                self._schedule(h, q, now, out)
            case R.CancelTournament():
                self._cancel_tournament(h, q, now, out)
            case R.Register():
                t = self._tournament(h, q.tournament_id)
                t.check_register(q.player_id)
                self._emit(out, R.Registered(
                    house=q.house, at=now, request_id=q.request_id,
                    tournament_id=q.tournament_id, player_id=q.player_id,
                    ordinal=accounts(q.house, q.player_id).ordinal))
            case R.Unregister():
                t = self._tournament(h, q.tournament_id)
                t.check_unregister(q.player_id)
                self._emit(out, R.Unregistered(house=q.house, at=now, request_id=q.request_id,
                                               tournament_id=q.tournament_id,
                                               player_id=q.player_id))

    def _quick_play(self, h: House, q: R.QuickPlay, account: Account, now: int,
                    out: list[R.AnyDecision]) -> None:
        if q.player_id in h.waiting:
            raise refuse("already_waiting", f"{q.player_id} already waits in "
                         f"{h.waiting[q.player_id].hall or h.name}")
        if any(t.plays(q.player_id) for t in h.tournaments.values()):
            raise refuse("in_tournament", f"{q.player_id} plays in a running tournament")
        hall = q.hall or halls.hall_of_level(h.name, account.level)
        role_halls = {r.name: r.role for r in halls.HALL_RULES[h.name].role_halls}
        if hall in role_halls:
            if role_halls[hall] not in q.roles:
                raise refuse("role_missing", f"{hall} is open to the role "
                             f"{role_halls[hall]!r}, which the token does not carry")
        else:
            levels = dict(halls.level_halls(h.name))
            if hall not in levels:
                raise refuse("unknown_hall", f"{h.name} has no hall {hall!r} (its halls: "
                             f"{', '.join(repr(n) for n in [*levels, *role_halls])})")
            if account.level < levels[hall]:
                raise refuse("hall_above_level", f"{hall} needs level {levels[hall]}; "
                             f"{q.player_id} is level {account.level}")
        self._emit(out, R.Waiting(house=h.name, at=now, request_id=q.request_id,
                                  player_id=q.player_id, hall=hall, ordinal=account.ordinal,
                                  level=account.level))

    def _tournament(self, h: House, tournament_id: str) -> Tournament:
        t = h.tournaments.get(tournament_id)
        if t is None:
            raise refuse("unknown_tournament", f"{h.name} has no tournament "
                         f"{tournament_id!r}")
        return t

    def _schedule(self, h: House, q: R.ScheduleTournament, now: int,
                  out: list[R.AnyDecision]) -> None:
        check_schedule(q)
        if q.tournament_id in h.tournaments:
            raise refuse("tournament_exists", f"tournament {q.tournament_id!r} exists")
        self._emit(out, R.TournamentScheduled(
            house=h.name, at=now, request_id=q.request_id, tournament_id=q.tournament_id,
            name=q.name or q.tournament_id, starts_at=q.starts_at, size=q.size,
            hands=q.hands, fill_with_bots=q.fill_with_bots, bot_level=q.bot_level))

    def _cancel_tournament(self, h: House, q: R.CancelTournament, now: int,
                           out: list[R.AnyDecision]) -> None:
        t = self._tournament(h, q.tournament_id)
        if t.status in ("ended", "cancelled"):
            raise refuse("tournament_over", f"{q.tournament_id} has {t.status}"
                         if t.status == "ended" else f"{q.tournament_id} is cancelled")
        self._emit(out, R.TournamentCancelled(
            house=h.name, at=now, request_id=q.request_id, tournament_id=q.tournament_id,
            reason=q.reason or "cancelled by an operator"))

    def _table_ended(self, q: R.TableEnded, now: int, out: list[R.AnyDecision]) -> None:
        h = self.houses.get(q.house)
        table = h.tables.get(q.table_id) if h is not None else None
        if h is None or table is None:
            return  # a quick-play table, or a result already taken: nothing to decide
        t = h.tournaments[table.tournament_id]
        players = q.players or [s.player_id for s in table.seats]
        entrants = [(p, place) for p, place in zip(players, q.places, strict=True)
                    if t.is_entrant(p)]
        stopped = [p for p, _ in entrants if not self.counted(h.name, table, p)]
        self._emit(out, R.TableResult(
            house=h.name, at=now, tournament_id=t.spec.tournament_id, round=table.round,
            table_id=q.table_id, players=players, places=q.places,
            advancing=t.advancing(table, q.places),
            points={p: 0 if p in stopped else t.match_points(place) for p, place in entrants},
            not_counted=stopped))
        for d in t.next_step(now):
            self._emit(out, d)

    def tick(self, now: int) -> list[R.AnyDecision]:
        """What the time calls for: tournaments to start, waiting players to seat."""
        out: list[R.AnyDecision] = []
        for h in list(self.houses.values()):
            for t in list(h.tournaments.values()):
                for d in t.start_if_due(now):
                    self._emit(out, d)
            for hall in list(h.queues):
                self._match_hall(h, hall, now, out)
        return out

    def _match_hall(self, h: House, hall: str, now: int, out: list[R.AnyDecision]) -> None:
        p = self.policy
        for a in list(h.queues.get(hall, [])):
            queue = h.queues[hall]
            if a not in queue:
                continue  # seated meanwhile
            waited = now - a.at
            window = min(p.window_max, p.window_base + p.window_per_s * waited / 1000)
            near = sorted((w for w in queue if w is not a
                           and abs(w.ordinal - a.ordinal) <= window),
                          key=lambda w: (abs(w.ordinal - a.ordinal), w.at))
            if len(near) >= SEATS - 1:
                group = [a, *near[:SEATS - 1]]
            elif waited >= p.bot_wait_ms and halls.bots_allowed(h.name):
                group = [a, *near]
            else:
                continue
            group.sort(key=lambda w: w.at)
            self._emit(out, self._seat(h.name, hall, group, window, now))

    def _seat(self, house: str, hall: str, group: list[R.Waiting], window: float,
              now: int) -> R.Seated:
        table_id = f"mm.{house}.{digest(*(w.request_id for w in group))[:16]}"
        level = halls.bot_level_near([w.ordinal for w in group])
        seats = [R.Seat(player_id=w.player_id, request_id=w.request_id, ordinal=w.ordinal)
                 for w in group]
        seats += [R.Seat(player_id=bot_id(table_id, n), bot=True, bot_level=level)
                  for n in range(len(seats), SEATS)]
        return R.Seated(house=house, at=now, table_id=table_id, hall=hall, seats=seats,
                        window=round(window, 3),
                        waited_ms=[now - w.at for w in group] + [0] * (SEATS - len(group)))


def check_schedule(q: R.ScheduleTournament) -> None:
    """The house's rules for a schedule (its house known): the Refusal it gets, if any.
    The operator's command checks with this too, before it writes anything."""
    rules = halls.HALL_RULES[q.house].tournaments
    if rules is None:
        raise refuse("no_tournaments", f"{q.house} holds no tournaments")
    if q.size not in rules.sizes:
        raise refuse("bad_schedule", f"size {q.size}: {q.house} holds tournaments of "
                     f"{', '.join(map(str, rules.sizes))}")
    lo, hi = profiles.HOUSES[q.house].hands_range
    if q.hands and not lo <= q.hands <= hi:
        raise refuse("bad_schedule", f"hands {q.hands}: {q.house} plays {lo}-{hi}")
    if not 0 <= q.bot_level <= 3:
        raise refuse("bad_schedule", f"bot level {q.bot_level}: 0-3")


def commands(d: R.Seated) -> list[E.Command]:
    """The table commands a seating calls for, as a gateway would send them: create the
    public table with the house's own options (a tournament's hands aside), sit the four,
    start. Command ids and seqs are the seating's, so a command sent again is answered as a
    duplicate and changes nothing."""
    options = {"hands_per_match": d.hands} if d.hands else {}
    at = next((n for n, s in enumerate(d.seats) if not s.bot), 0)
    first = d.seats[at].player_id
    out: list[E.Command] = [E.CreateTable(table_id=d.table_id, command_id=f"{d.table_id}/create",
                                          player_id=first, profile=d.house, options=options,
                                          at=d.at)]
    for n, seat in enumerate(d.seats):
        out.append(E.Sit(table_id=d.table_id, command_id=f"{d.table_id}/sit{n}", seat=n,
                         seq=1 + n, player_id=seat.player_id, bot=seat.bot,
                         bot_level=seat.bot_level if seat.bot else DEFAULT_BOT_LEVEL,
                         at=d.at))
    out.append(E.StartMatch(table_id=d.table_id, command_id=f"{d.table_id}/start",
                            player_id=first, seat=at, seq=1 + len(d.seats), at=d.at))
    return out
