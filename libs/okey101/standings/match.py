"""One table's events folded into a `MatchResult`, per account, from the server record.

The events topic keeps what players never see: `player_sat.is_bot` (its `bot` flag, or the
server-only `bot_level` where the house labels no bot: north-sultan) and, in old logs,
`seat_handed_to_bot` tell bot seats from human ones. Who is who:
- a **starter** sat at the table when `match_started` was decided;
- a **leaver** left the running match (`player_left`, or a bot was handed the seat it sat
  in) and does not sit at the table when it ends; an account that comes back and sits at
  the end (classic's 7-minute reconnect) has not left;
- a **substitute** sat down while the match was running and sits at the end.
So a seat may hold two accounts over a match; every account is rated on its own.

An account id must be 1-64 characters; a seat taken by any other id is not ranked (the
other accounts still are) and the fold reports it (`TableTrack.problems`).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from okey101.profiles import Profile
from okey101.table import messages as E

Role = Literal["played", "substitute", "left"]
MAX_ACCOUNT_ID = 64
SEATS = 4


class Participant(msgspec.Struct, frozen=True, kw_only=True):
    account: str
    seat: int  # where it sat at the end; a leaver: the seat it left
    role: Role
    bot: bool = False


class MatchResult(msgspec.Struct, frozen=True, kw_only=True):
    """A finished match as the standings need it: the seats' totals and places, and every
    account that took part."""

    table_id: str
    house: str
    ended_at: int  # match_ended.at (ms): the canonical order is (ended_at, table_id)
    hands: int  # hands scored (a replayed deal not counted); the classic rating's N
    partners: bool
    totals: list[int]
    places: list[int]
    participants: list[Participant]
    # each scored hand's scores by seat (hand_ended.scores, replays not counted), in order:
    # what the skill rating rates (okey101.standings.skill)
    hand_scores: list[list[int]] = msgspec.field(default_factory=list)

    @property
    def key(self) -> tuple[int, str]:
        return (self.ended_at, self.table_id)

    def at_seat(self, seat: int) -> Participant | None:
        """The account sitting at `seat` when the match ended, if any."""
        for p in self.participants:
            if p.seat == seat and p.role != "left":
                return p
        return None


def valid_account(account: str) -> bool:
    return 0 < len(account) <= MAX_ACCOUNT_ID


class TableTrack:
    """The fold of one table's events up to its `match_ended` (mutable, one per table)."""

    def __init__(self, table_id: str, profile: Profile, ranked: bool = True,
                 private: bool = False) -> None:
        self.table_id = table_id
        self.profile = profile
        self.private = private
        self.ranked = ranked  # house.unranked_reason: its match is folded, never applied
        self.last_seq = 0
        self.playing = False
        self.seats: list[str | None] = [None] * SEATS  # None: empty, "": an invalid id
        self.bots: set[str] = set()
        self.starters: set[str] = set()
        self.left: dict[str, int] = {}  # account -> the seat it left
        self.hands = 0
        self.hand_scores: list[list[int]] = []
        self.problems: list[str] = []  # bad input seen by the last `fold` call

    def fold(self, event: E.Event) -> MatchResult | None:
        """Fold one event (its seq already checked); the result when the match ends."""
        self.problems = []
        self.last_seq = max(self.last_seq, event.seq)
        if isinstance(event, E.PlayerSat):
            self._sit(event.seat, event.player_id, event.is_bot)
        elif isinstance(event, E.SeatHandedToBot):
            self._sit(event.seat, event.bot_id, True)
        elif isinstance(event, E.PlayerLeft):
            self._leave(event.seat)
        elif isinstance(event, E.MatchStarted):
            self.playing = True
            self.starters = {a for a in self.seats if a}
        elif isinstance(event, E.HandEnded):
            if not event.replay:
                self.hands += 1
                self.hand_scores.append(list(event.scores))
        elif isinstance(event, E.MatchEnded):
            return self._result(event)
        return None

    def _seat_ok(self, seat: int) -> bool:
        if 0 <= seat < SEATS:
            return True
        self.problems.append(f"seat {seat} does not exist (0-3)")
        return False

    def _sit(self, seat: int, account: str, bot: bool) -> None:
        if not self._seat_ok(seat):
            return
        if self.seats[seat]:
            self._leave(seat)  # a bot handed the seat of a seated player
        if not valid_account(account):
            self.problems.append(f"seat {seat}: account id {account[:80]!r} is "
                                 f"{'empty' if not account else 'too long'} "
                                 f"(1-{MAX_ACCOUNT_ID} characters); not ranked")
            self.seats[seat] = ""
            return
        self.seats[seat] = account
        if bot:
            self.bots.add(account)
        self.left.pop(account, None)  # back at the table: not a leaver

    def _leave(self, seat: int) -> None:
        if not self._seat_ok(seat):
            return
        account = self.seats[seat]
        self.seats[seat] = None
        if account and self.playing:
            self.left[account] = seat

    def _result(self, event: E.MatchEnded) -> MatchResult | None:
        if not self.playing:
            self.problems.append("match_ended before match_started")
            return None
        if len(event.totals) != SEATS or len(event.places) != SEATS:
            self.problems.append(f"match_ended has {len(event.totals)} totals and "
                                 f"{len(event.places)} places; 4 each needed")
            return None
        people: list[Participant] = []
        for seat, account in enumerate(self.seats):
            if account:
                role: Role = "played" if account in self.starters else "substitute"
                people.append(Participant(account=account, seat=seat, role=role,
                                          bot=account in self.bots))
        seated = {p.account for p in people}
        for account, seat in sorted(self.left.items()):
            if account not in seated:
                people.append(Participant(account=account, seat=seat, role="left",
                                          bot=account in self.bots))
        return MatchResult(
            table_id=self.table_id, house=self.profile.id, ended_at=event.at,
            hands=max(1, self.hands), partners=self.profile.partners,
            totals=list(event.totals), places=list(event.places), participants=people,
            hand_scores=self.hand_scores)
