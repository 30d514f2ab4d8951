"""Standings: every house's leaderboard folded from the events topic (RULES.md §9, §11).

Pure: no I/O, no clock, no randomness; time arrives in the events' `at`. Modules:

- `house`: the house data of standing (SP, league points and XP by place, levels, rooms,
  the repeated-pair rule, what bots get), documented next to the profiles.
- `week`: the league week of a moment (weeks start Monday 00:00 Europe/Istanbul).
- `match`: one table's events folded into a `MatchResult`, per ACCOUNT (a seat may hold a
  leaver and a substitute), bots as the server record says.
- `awards`: what one match gives each account in its house (classic rating with teams,
  leavers and substitutes via `okey101.scoring`; SP, league points, XP).
- `skill`: the cross-house OpenSkill (Plackett-Luce) rating for matchmaking, every scored
  hand of a match one game (the hands' scores come with `MatchResult.hand_scores`).
- `board`: the standings of every house, applied in the canonical order of matches
  (end time, table id) whatever order they arrive in, each match once.
- `ledger`: raw event records (with their partition and offset) in, standings out; bad
  input counted and named, never raised.
"""

from __future__ import annotations

from .board import Board, BoardRow, MatchMoved, Standing
from .house import HOUSE_RULES, StandingRules, rules_for
from .ledger import Ledger, Notice
from .match import MatchResult, Participant

__all__ = [
    "HOUSE_RULES", "Board", "BoardRow", "Ledger", "MatchMoved", "MatchResult", "Notice",
    "Participant", "Standing", "StandingRules", "rules_for",
]
