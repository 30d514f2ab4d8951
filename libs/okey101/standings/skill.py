"""The cross-house skill rating for matchmaking: OpenSkill's Plackett-Luce model, by HAND.

One skill per account over every house (account ids are global). What is rated: every
scored hand of a match (`hand_ended`, a replayed deal not counted) is one Plackett-Luce game
between the accounts that played the match whole (sat at the start and at the end), ranked
by that hand's score (penalty points, lower better; equal scores share a rank): a
free-for-all of up to four, or, with partners, two teams of two ranked by the team's hand
total (a team missing a whole-match player is not rated, nor is its match). The hands are
applied in order, one update each, when the match ends. A match whose hands are unknown
(`MatchResult.hand_scores` empty) is rated once by its places. Leavers and substitutes are
not rated here: the house standing deals with them. Bots are rated like anyone (they are
opponents whose strength matters to the humans' skill) and hidden where the house says.

Why hands, not only matches: a match of N hands holds N orderings of the same players; its
places keep one. On the simulated population (`tools/bench/ratings.py`) rating the hands
orders accounts markedly better after the same number of matches.

Shown as the conservative ordinal, mu - 3 sigma (the board's and the matchmaker's order).

The update is OpenSkill's (`openskill.models.PlackettLuce(beta=BETA).rate(teams,
ranks=...)`, openskill 6: mu 25, sigma 25/3, kappa 0.0001, tau 25/300 as the package's
defaults; beta as set below); it is written out below without the package's per-call deep copies and
rating objects (which cost more than the rest of the fold), and
`tests/unit/test_standings_skill.py` checks it equals the package's to 1e-9.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from okey101 import scoring
from okey101.standings.match import MatchResult

MU = 25.0
SIGMA = MU / 3
# OpenSkill's beta: the spread of one game's performance around the skill. Its default,
# 25/6, is for a game that says much about the players; one hand says little (the deal
# decides much of it), so beta is six times the default here. Measured on the simulated
# population (tools/bench/ratings.py, seed 1, Kendall tau after 50 matches): beta 25/6:
# 0.61, 12: 0.65, 25: 0.70, 50: 0.70.
BETA = 25.0
KAPPA = 0.0001
TAU = 25.0 / 300  # OpenSkill's default dynamics (sigma^2 += TAU^2 before each game)
Z = 3.0  # the ordinal: mu - Z sigma


class Skill(msgspec.Struct, frozen=True):
    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        return self.mu - Z * self.sigma


def plackett_luce(teams: Sequence[Sequence[Skill]], ranks: Sequence[int],
                  tau: float = TAU, beta: float = BETA) -> list[list[Skill]]:
    """One Plackett-Luce game: each team's players' new skills (ranks: lower better, ties
    equal). OpenSkill's `PlackettLuce.rate` (Weng & Lin 2011, algorithm 4) with its
    defaults, for these arguments."""
    tau2 = tau * tau
    players = [[(s.mu, math.sqrt(s.sigma * s.sigma + tau2)) for s in team] for team in teams]
    team_mu: list[float] = []
    team_s2: list[float] = []
    for team in players:
        mu_sum = s2_sum = 0.0
        for mu, sd in team:
            mu_sum += mu
            s2_sum += sd * sd
        team_mu.append(mu_sum)
        team_s2.append(s2_sum)
    c = math.sqrt(sum(team_s2) + len(teams) * beta * beta)
    strength = [math.exp(mu / c) for mu in team_mu]
    sum_q: list[float] = []
    tied: list[int] = []
    for rq in ranks:
        below = 0.0
        same = 0
        for e, r in zip(strength, ranks, strict=True):
            if r >= rq:
                below += e
                same += r == rq
        sum_q.append(below)
        tied.append(same)
    out: list[list[Skill]] = []
    for i, team in enumerate(players):
        omega = delta = 0.0
        for q, rq in enumerate(ranks):
            if rq > ranks[i]:
                continue
            p = strength[i] / sum_q[q]
            delta += p * (1 - p) / tied[q]
            omega += ((1 - p) if q == i else -p) / tied[q]
        s2 = team_s2[i]
        omega *= s2 / c
        delta *= s2 / (c * c) * (math.sqrt(s2) / c)
        out.append([Skill(mu=mu + sd * sd / s2 * omega,
                          sigma=sd * math.sqrt(max(1 - sd * sd / s2 * delta, KAPPA)))
                    for mu, sd in team])
    return out


def _places(scores: Sequence[int]) -> list[int]:
    """`okey101.scoring.places` (1 = lowest, ties share), by one sort."""
    ordered = sorted(scores)
    return [ordered.index(v) + 1 for v in scores]


def games(result: MatchResult) -> list[tuple[list[list[str]], list[int]]]:
    """The games the match is rated as: (teams of accounts, their ranks) per scored hand, in
    order (or once by the match when its hands are unknown); empty when it rates nobody."""
    whole = {p.seat: p.account for p in result.participants if p.role == "played"}
    outcomes = [s for s in result.hand_scores if len(s) == 4] or [result.totals]
    if result.partners:
        teams = [[whole[s] for s in (t, t + 2) if s in whole] for t in (0, 1)]
        if any(len(team) != 2 for team in teams):
            return []
        return [(teams, _places(scoring.team_totals(scores))) for scores in outcomes]
    seats = sorted(whole)
    if len(seats) < 2:
        return []
    teams = [[whole[s]] for s in seats]
    return [(teams, [places[s] for s in seats])
            for places in (_places(scores) for scores in outcomes)]


def rate(result: MatchResult, skills: dict[str, Skill]) -> dict[str, Skill]:
    """The new skill of every account the match rates (empty when it rates nobody)."""
    now: dict[str, Skill] = {}
    for teams, ranks in games(result):
        before = [[now.get(a) or skills.get(a) or Skill() for a in team] for team in teams]
        for team, rated in zip(teams, plackett_luce(before, ranks), strict=True):
            now.update(zip(team, rated, strict=True))
    return now
