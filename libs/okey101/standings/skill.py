"""The cross-house skill rating for matchmaking: OpenSkill's Plackett-Luce model.

One skill per account over every house (account ids are global). A match rates the
accounts that played it whole (sat at the start and at the end): a free-for-all of up to
four by place (ties share a rank), or, with partners, two teams of two by team total (a
team missing a whole-match player is not rated, nor is its match). Leavers and substitutes
are not rated here: the house standing deals with them. Bots are rated like anyone (they
are opponents whose strength matters to the humans' skill) and hidden where the house says.
Shown as the conservative ordinal, mu - 3 sigma.
"""

from __future__ import annotations

import msgspec
from openskill.models import PlackettLuce

from okey101.standings.match import MatchResult

_MODEL = PlackettLuce()


class Skill(msgspec.Struct, frozen=True):
    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def _rated_groups(result: MatchResult) -> tuple[list[list[str]], list[int]]:
    """(teams of accounts, their ranks), lower rank better."""
    whole = {p.seat: p.account for p in result.participants if p.role == "played"}
    if result.partners:
        teams = [[whole[s] for s in (t, t + 2) if s in whole] for t in (0, 1)]
        if any(len(team) != 2 for team in teams):
            return [], []
        team_totals = [result.totals[0] + result.totals[2], result.totals[1] + result.totals[3]]
        ranks = [1 + sum(1 for o in team_totals if o < mine) for mine in team_totals]
        return teams, ranks
    seats = sorted(whole)
    return [[whole[s]] for s in seats], [result.places[s] for s in seats]


def rate(result: MatchResult, skills: dict[str, Skill]) -> dict[str, Skill]:
    """The new skill of every account the match rates (empty when it rates nobody)."""
    teams, ranks = _rated_groups(result)
    if len(teams) < 2:
        return {}
    before = [[_MODEL.rating(mu=s.mu, sigma=s.sigma)
               for s in (skills.get(a, Skill()) for a in team)] for team in teams]
    after = _MODEL.rate(before, ranks=[float(r) for r in ranks])
    return {account: Skill(mu=r.mu, sigma=r.sigma)
            for team, rated in zip(teams, after, strict=True)
            for account, r in zip(team, rated, strict=True)}
