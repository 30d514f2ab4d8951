"""The events of a finished match, made up from its outcome: for tests and benchmarks.

Only the events the standings read are made (`table_created`, `player_sat`,
`seat_handed_to_bot`, `player_left`, `match_started`, `hand_ended`, `match_ended`), with
contiguous seqs, as the processor would write them for a match with that outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from okey101 import scoring
from okey101.profiles import Profile, house, with_overrides
from okey101.table import messages as E


class Seating(msgspec.Struct, frozen=True, kw_only=True):
    """Who sits where: `accounts` at the start; `bots` among them (by account); `leaves`:
    seat -> the account taking it over mid-match ("" : nobody, "bot:ID": a bot handed it)."""

    accounts: Sequence[str]
    bots: frozenset[str] = frozenset()
    leaves: dict[int, str] = msgspec.field(default_factory=dict)


def match_events(table_id: str, profile: str | Profile, seating: Seating,
                 totals: Sequence[int], ended_at: int, hands: int = 3,
                 options: dict[str, object] | None = None) -> list[E.Event]:
    """The standings-relevant events of one match, in order."""
    p = profile if isinstance(profile, Profile) else house(profile)
    if options:
        p = with_overrides(p, options)
    events: list[E.Event] = []
    at = ended_at - 60_000

    def emit(kind: type[E.Event], **fields: Any) -> None:
        events.append(kind(table_id=table_id, seq=len(events) + 1, at=at, **fields))

    emit(E.TableCreated, profile=p)
    for seat, account in enumerate(seating.accounts):
        emit(E.PlayerSat, seat=seat, player_id=account, bot=account in seating.bots)
    emit(E.MatchStarted, hands=hands, players=list(seating.accounts))
    per_hand = [t // hands for t in totals]
    for hand in range(1, hands + 1):
        scores = [t - ph * (hands - 1) if hand == hands else ph
                  for t, ph in zip(totals, per_hand, strict=True)]
        emit(E.HandEnded, hand=hand, finish="normal", finished_by=0, scores=scores,
             racks=[[], [], [], []], seed="")
        if hand == 1:
            for seat, taker in sorted(seating.leaves.items()):
                emit(E.PlayerLeft, seat=seat, player_id=seating.accounts[seat])
                if taker.startswith("bot:"):
                    emit(E.SeatHandedToBot, seat=seat, bot_id=taker[4:])
                elif taker:
                    emit(E.PlayerSat, seat=seat, player_id=taker)
    teams = list(scoring.team_totals(totals)) if p.partners else None
    at = ended_at
    emit(E.MatchEnded, totals=list(totals), places=scoring.places(totals), team_totals=teams)
    return events


def encoded(events: Sequence[E.Event]) -> list[bytes]:
    return [E.encode(e) for e in events]
