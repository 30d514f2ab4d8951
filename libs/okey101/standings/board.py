"""Every house's standings, applied in the canonical order of matches, each match once.

The canonical order is (match_ended.at, table id). Classic rating, SP, league points, XP
and counts add up whatever the order, but the OpenSkill rating and the repeated-pair rule do
not; so a match that arrives after a later one (events of different tables, different
partitions) is put in its place: the later matches are undone (each keeps what it changed)
and applied again after it. A rebuild that sorts every match first and a live fold that
meets them in any order end with exactly the same board (`tests/unit/test_standings_*`).

What can be undone is bounded (`horizon` matches); a match older than that is applied at
the end instead, and counted (`late_beyond_horizon`).
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from okey101.standings.awards import Award, match_awards
from okey101.standings.house import (
    HOUSE_RULES,
    StandingRules,
    level_for,
    room_for,
    rooms_open,
)
from okey101.standings.match import MatchResult
from okey101.standings.skill import Skill, rate
from okey101.standings.week import week_of
from okey101.table import messages as E

Key = tuple[int, str]  # (ended_at, table_id)
AccountKey = tuple[str, str]  # (house, account)
PairKey = tuple[str, str, str]  # (house, account, account), the two accounts sorted


class Standing(msgspec.Struct, frozen=True, kw_only=True):
    """One account in one house: the value of the compacted standings topic."""

    house: str
    account: str
    bot: bool = False
    points: int = 0  # the classic rating or SP; 0 where the house has neither
    league: dict[str, int] = msgspec.field(default_factory=dict)  # week -> league points
    xp: int = 0
    level: int = 1
    room: str = ""
    played: int = 0  # matches finished at the table (leavers not counted)
    won: int = 0
    left: int = 0  # running matches left
    substituted: int = 0  # matches finished as a substitute
    not_counted: int = 0  # matches the repeated-pair rule stopped
    skill_mu: float = Skill().mu  # the cross-house skill after this account's last match here
    skill_sigma: float = Skill().sigma
    skill_ordinal: float = Skill().ordinal
    last_table: str = ""
    last_at: int = 0
    matches: int = 0  # matches applied to this account here, leavers' included
    v: int = E.VERSION  # the contract's version (proto/VERSIONING.md)


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One match in an account's page: what it gave and what the account had after."""

    table_id: str
    at: int
    role: str
    place: int
    change: int
    points: int
    league: int
    xp: int
    counted: bool
    level_before: int = 1
    level: int = 1  # after the match
    week: str = ""  # the league week the match ended in
    league_week: int = 0  # that week's league points after the match


class MatchMoved(msgspec.Struct, frozen=True, kw_only=True):
    """What one applied match moved for one account: the end-of-match sheet's figures."""

    house: str
    account: str
    table_id: str
    role: str
    place: int  # the place at the table
    counted: bool  # False: the repeated-pair rule stopped its SP and league points
    points_before: int
    points: int
    change: int
    league: int  # league points this match gave
    week: str
    league_week: int  # that week's league points after it
    xp: int  # XP this match gave
    level_before: int
    level: int
    leveled_up: bool
    board_place: int | None  # the account's place on the all-time board now
    league_place: int | None  # and on the match's week's league
    ranked: bool = True


class BoardRow(msgspec.Struct, frozen=True, kw_only=True):
    rank: int
    account: str
    bot: bool
    points: int
    league: int
    skill_ordinal: float
    level: int
    played: int
    won: int
    left: int


@dataclass
class _Undo:
    key: Key
    result: MatchResult
    standings: dict[AccountKey, Standing | None] = field(default_factory=dict)
    skills: dict[str, Skill | None] = field(default_factory=dict)
    pairs: list[PairKey] = field(default_factory=list)
    history: list[AccountKey] = field(default_factory=list)


class Board:
    """The standings of every house (mutable); `apply` returns what changed."""

    def __init__(self, rules: dict[str, StandingRules] | None = None,
                 horizon: int = 50_000) -> None:
        self.rules = dict(HOUSE_RULES if rules is None else rules)
        self.horizon = horizon
        self.standings: dict[AccountKey, Standing] = {}
        self.skills: dict[str, Skill] = {}
        self.history: dict[AccountKey, list[HistoryEntry]] = {}
        self.pairs: dict[PairKey, list[int]] = {}
        self.applied: set[str] = set()  # table ids
        self._undo: deque[_Undo] = deque()  # the undoable matches, in canonical order
        self._floor: Key | None = None  # the latest key no longer undoable
        self.rewinds = 0  # matches undone and applied again
        self.late_beyond_horizon = 0

    # ------------------------------------------------------------ applying
    def apply(self, result: MatchResult) -> set[AccountKey] | None:
        """Apply a match once; the (house, account) standings it changed (a late match:
        also those of the later matches applied again), or None for a table already
        applied or a house without rules."""
        if result.table_id in self.applied or result.house not in self.rules:
            return None
        key = result.key
        if self._floor is not None and key < self._floor:
            self.late_beyond_horizon += 1
            return self._apply(result, key)
        later: list[_Undo] = []
        while self._undo and self._undo[-1].key > key:
            later.append(self._pop())
        changed = self._apply(result, key)
        for undo in reversed(later):
            changed |= self._apply(undo.result, undo.key)
            changed |= set(undo.standings)
        self.rewinds += len(later)
        return changed

    def apply_all(self, results: Iterable[MatchResult]) -> set[AccountKey]:
        """Apply many (a rebuild): sorted first, so nothing is undone."""
        changed: set[AccountKey] = set()
        for result in sorted(results, key=lambda r: r.key):
            changed |= self.apply(result) or set()
        return changed

    def _apply(self, result: MatchResult, key: Key) -> set[AccountKey]:
        rules = self.rules[result.house]
        undo = _Undo(key=key, result=result)
        awards = match_awards(rules, result, self._repeated(rules, result, undo))
        new_skills = rate(result, self.skills)
        for account, skill in new_skills.items():
            undo.skills[account] = self.skills.get(account)
            self.skills[account] = skill
        week = week_of(result.ended_at)
        for award in awards:
            self._award(rules, result, week, award, undo)
        self.applied.add(result.table_id)
        self._undo.append(undo)
        if len(self._undo) > self.horizon:
            self._floor = self._undo.popleft().key
        return set(undo.standings)

    def _repeated(self, rules: StandingRules, result: MatchResult, undo: _Undo
                  ) -> frozenset[str]:
        """The accounts the repeated-pair rule stops this match for; records the pairs."""
        if rules.repeat_limit is None:
            return frozenset()
        humans = sorted({p.account for p in result.participants if not p.bot})
        stopped: set[str] = set()
        for i, a in enumerate(humans):
            for b in humans[i + 1:]:
                pair = (result.house, a, b)
                times = self.pairs.setdefault(pair, [])
                since = result.ended_at - rules.repeat_window_ms
                if len(times) - bisect.bisect_right(times, since) >= rules.repeat_limit:
                    stopped |= {a, b}
                times.append(result.ended_at)
                undo.pairs.append(pair)
        return frozenset(stopped)

    def _award(self, rules: StandingRules, result: MatchResult, week: str, award: Award,
               undo: _Undo) -> None:
        key = (result.house, award.account)
        before = self.standings.get(key)
        undo.standings.setdefault(key, before)
        s = before or Standing(house=result.house, account=award.account, points=rules.start,
                               room=room_for(rules, 1))
        points = s.points + award.points
        if rules.floor is not None:
            points = max(rules.floor, points)
        league = s.league
        if award.league:
            league = {**league, week: league.get(week, 0) + award.league}
        xp = s.xp + award.xp
        level = level_for(rules, xp)
        skill = self.skills.get(award.account, Skill())
        finished = award.role != "left"
        self.standings[key] = msgspec.structs.replace(
            s, bot=s.bot or award.bot, points=points, league=league, xp=xp, level=level,
            room=room_for(rules, level), played=s.played + finished,
            won=s.won + award.won, left=s.left + (not finished),
            substituted=s.substituted + (award.role == "substitute"),
            not_counted=s.not_counted + (not award.counted),
            skill_mu=skill.mu, skill_sigma=skill.sigma, skill_ordinal=skill.ordinal,
            last_table=result.table_id, last_at=result.ended_at, matches=s.matches + 1)
        self.history.setdefault(key, []).append(HistoryEntry(
            table_id=result.table_id, at=result.ended_at, role=award.role, place=award.place,
            change=points - s.points, points=points, league=award.league, xp=award.xp,
            counted=award.counted, level_before=s.level, level=level, week=week,
            league_week=league.get(week, 0)))
        undo.history.append(key)

    def _pop(self) -> _Undo:
        undo = self._undo.pop()
        for key in reversed(undo.history):
            self.history[key].pop()
        for pair in reversed(undo.pairs):
            self.pairs[pair].pop()
        for account_key, standing in undo.standings.items():
            if standing is None:
                del self.standings[account_key]
                del self.history[account_key]
            else:
                self.standings[account_key] = standing
        for account, skill in undo.skills.items():
            if skill is None:
                del self.skills[account]
            else:
                self.skills[account] = skill
        self.applied.discard(undo.result.table_id)
        return undo

    # ------------------------------------------------------------ reading
    def top(self, house: str, n: int = 10, week: str | None = None,
            with_bots: bool | None = None) -> list[BoardRow]:
        """The first `n` of a house's board: all time (by rating or SP; by the skill ordinal
        where the house has neither), or `week`'s league points (accounts with some).
        Bots only where the house lists them (`with_bots` overrides)."""
        rows = self._ordered(house, week, with_bots)
        return [BoardRow(rank=i, account=s.account, bot=s.bot, points=s.points,
                         league=s.league.get(week, 0) if week else sum(s.league.values()),
                         skill_ordinal=round(self._ordinal(s), 3), level=s.level,
                         played=s.played, won=s.won, left=s.left)
                for i, s in enumerate(rows[:n], start=1)]

    def place(self, house: str, account: str, week: str | None = None) -> int | None:
        """`account`'s place on the board `top` reads (1 is first), all time or `week`'s
        league; None where it is not on that board (no standing, no league points that
        week, or a bot the house keeps off its board)."""
        for i, s in enumerate(self._ordered(house, week, None), start=1):
            if s.account == account:
                return i
        return None

    def _ordered(self, house: str, week: str | None, with_bots: bool | None
                 ) -> list[Standing]:
        rules = self.rules[house]
        show_bots = rules.bots_on_board if with_bots is None else with_bots
        rows = [s for (h, _), s in self.standings.items()
                if h == house and (show_bots or not s.bot)]
        if week is not None:
            rows = [s for s in rows if s.league.get(week, 0) > 0]
            rows.sort(key=lambda s: (-s.league[week], -s.points, -self._ordinal(s),
                                     s.account))
        elif rules.points == "none":
            rows.sort(key=lambda s: (-self._ordinal(s), -s.won, s.account))
        else:
            rows.sort(key=lambda s: (-s.points, -s.won, -self._ordinal(s), s.account))
        return rows

    def _ordinal(self, s: Standing) -> float:
        return self.skills.get(s.account, Skill()).ordinal

    def standing(self, house: str, account: str) -> Standing | None:
        return self.standings.get((house, account))

    def page(self, house: str, account: str) -> dict[str, object] | None:
        """An account's page: its standing, live skill, room and rating history by match."""
        s = self.standings.get((house, account))
        if s is None:
            return None
        rules = self.rules[house]
        skill = self.skills.get(account, Skill())
        return {
            "standing": msgspec.to_builtins(s),
            "skill": {"mu": skill.mu, "sigma": skill.sigma, "ordinal": skill.ordinal},
            "room": room_for(rules, s.level), "rooms_open": rooms_open(rules, s.level),
            "history": msgspec.to_builtins(self.history.get((house, account), [])),
        }

    def moved(self, house: str, account: str, table_id: str) -> MatchMoved | None:
        """What match `table_id` moved for `account` in `house`; None where the board has
        not applied that match to that account (unknown, not yet folded, or not theirs)."""
        for h in reversed(self.history.get((house, account), [])):
            if h.table_id == table_id:
                return MatchMoved(
                    house=house, account=account, table_id=table_id, role=h.role,
                    place=h.place, counted=h.counted, points_before=h.points - h.change,
                    points=h.points, change=h.change, league=h.league, week=h.week,
                    league_week=h.league_week, xp=h.xp, level_before=h.level_before,
                    level=h.level, leveled_up=h.level > h.level_before,
                    board_place=self.place(house, account),
                    league_place=self.place(house, account, h.week))
        return None

    def excluded_bots(self, house: str) -> int:
        """Bot accounts the house keeps off its board."""
        if self.rules[house].bots_on_board:
            return 0
        return sum(1 for (h, _), s in self.standings.items() if h == house and s.bot)
