"""What one finished match gives each account in its house (RULES.md §9, seeds/002-003).

- Classic rating (`points == "rating"`): `scoring.classic_rating_changes` (partners:
  `classic_team_rating_changes`) by the seats' totals and N = the hands scored; the account
  sitting at a seat at the end is rated as a substitute when it sat down mid-match (cannot
  lose: +1 for finishing, gains if it wins); a leaver gets `scoring.leaving_change(N)`
  (-2N) whatever the totals.
- SP (`points == "sp"`): `sp_by_place` by place (ties split, `scoring.shared_by_position`),
  a substitute cannot lose, a leaver gets `sp_leaving`; weekly league points
  `league_by_place`; XP `xp_finished` + `xp_by_place` for finishing (a leaver: none).
- Bots get nothing, ever. At a table with a bot, `bot_tables == "unrated"` leaves every
  human's numbers where they were (played, won and left are still counted).
- `repeated` (the accounts the repeated-pair rule stops for this match): no rating or SP
  and no league points; a leaver's loss still applies.
"""

from __future__ import annotations

import msgspec

from okey101 import scoring
from okey101.standings.house import StandingRules
from okey101.standings.match import MatchResult, Participant, Role


class Award(msgspec.Struct, frozen=True, kw_only=True):
    account: str
    seat: int
    role: Role
    bot: bool
    place: int  # the seat's place at the end (a leaver: 0)
    won: bool  # place 1, not a leaver
    points: int = 0  # rating or SP change
    league: int = 0
    xp: int = 0
    counted: bool = True  # False: stopped by the repeated-pair rule


def match_awards(rules: StandingRules, result: MatchResult,
                 repeated: frozenset[str] = frozenset()) -> list[Award]:
    """Every participant's award, in `result.participants` order."""
    rated = not (rules.bot_tables == "unrated" and any(p.bot for p in result.participants))
    by_seat = _points_by_seat(rules, result)
    league = scoring.shared_by_position(result.places, rules.league_by_place)
    xp = scoring.shared_by_position(result.places, rules.xp_by_place)
    out = []
    for p in result.participants:
        place = 0 if p.role == "left" else result.places[p.seat]
        award = Award(account=p.account, seat=p.seat, role=p.role, bot=p.bot, place=place,
                      won=place == 1, counted=p.account not in repeated)
        if not p.bot and rated:
            award = _numbers(rules, result, p, award, by_seat[p.seat], league[p.seat],
                             xp[p.seat])
        out.append(award)
    return out


def _points_by_seat(rules: StandingRules, result: MatchResult) -> list[int]:
    """Each end seat's rating or SP change, its occupant rated as who it is."""
    substitute = [False] * 4
    for seat in range(4):
        sitting = result.at_seat(seat)
        substitute[seat] = sitting is not None and sitting.role == "substitute"
    if rules.points == "rating":
        rate = scoring.classic_team_rating_changes if result.partners else \
            scoring.classic_rating_changes
        return rate(result.totals, result.hands, substitute=substitute)
    if rules.points == "sp":
        changes = scoring.shared_by_position(result.places, rules.sp_by_place)
        return [(c if c > 0 else 1) if substitute[s] else c for s, c in enumerate(changes)]
    return [0, 0, 0, 0]


def _numbers(rules: StandingRules, result: MatchResult, p: Participant, award: Award,
             points: int, league: int, xp: int) -> Award:
    if p.role == "left":
        loss = scoring.leaving_change(result.hands) if rules.points == "rating" else \
            rules.sp_leaving if rules.points == "sp" else 0
        return msgspec.structs.replace(award, points=loss)
    return msgspec.structs.replace(
        award, points=points if award.counted else 0, league=league if award.counted else 0,
        xp=rules.xp_finished + xp)
