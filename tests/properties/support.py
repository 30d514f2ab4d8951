"""Shared pieces of the engine properties: random whole matches and the tile ledger."""

from __future__ import annotations

import hashlib
from collections import Counter
from functools import lru_cache
from typing import Any

import msgspec
from hypothesis import strategies as st

from okey101 import tiles
from okey101.simulate import CONTRIBUTIONS, Contribution, MatchRecord, play_match
from okey101.table import messages as E
from okey101.table.state import TableState

HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna", "okey-oyna-duz")
# short matches: okeygg allows 7-21 hands, the others 1-99 (düz: 2 hands, not its countdown)
SHORT_HANDS = {"north-sultan": 2, "okeygg": 7, "classic": 2, "okey-oyna": 2,
               "okey-oyna-duz": 2}
FULL_SET = Counter(tiles.full_set())

houses = st.sampled_from(HOUSES)
seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


def short_profile(house: str, seeding: bool = False) -> dict[str, Any]:
    options: dict[str, Any] = {"hands_per_match": SHORT_HANDS[house]}
    if seeding:
        options["seeding_seconds"] = SEEDING_SECONDS
    return {"base": house, "options": options}


SEEDING_SECONDS = 10


def is_seeded(seed: str) -> bool:
    """Half the random matches have seeding windows (deal version 2): an odd first byte."""
    return int(seed[:2], 16) % 2 == 1


def contributions(seed: str) -> list[Contribution]:
    """How each seat's client contributes to a seeded match, from its seed: honest, silent,
    withholding or mismatching, mixed."""
    digest = hashlib.sha256(bytes.fromhex(seed)).digest()
    return [CONTRIBUTIONS[b % len(CONTRIBUTIONS)] for b in digest[:4]]


Step = tuple[TableState, E.Command, E.Rejection | list[E.Event], TableState]


class Recorded(msgspec.Struct, kw_only=True):
    record: MatchRecord
    steps: list[Step]  # (state before, command, decision, state after), every command


@lru_cache(maxsize=64)
def recorded(house: str, seed: str) -> Recorded:
    steps: list[Step] = []
    seeded = is_seeded(seed)
    record = play_match(short_profile(house, seeded), seed,
                        observer=lambda *step: steps.append(step),
                        contributions=contributions(seed) if seeded else None)
    assert not record.capped, f"{house} {seed}: the match hit the command cap"
    return Recorded(record=record, steps=steps)


def ledger(state: TableState) -> Counter[int] | None:
    """Every tile of the hand by where it is (racks, deck left, discard piles, table melds,
    indicator), or None between HandStarted and HandDealt (nothing is dealt yet)."""
    hand = state.hand
    if hand is None or not hand.deck:
        return None
    out: Counter[int] = Counter()
    for seat in hand.seats:
        out.update(seat.rack)
        out.update(seat.discards)
    out.update(hand.deck[hand.deck_pos:])
    for meld in hand.melds:
        out.update(played for played, _ in meld.meld.tiles)
    out[hand.indicator] += 1
    return out


def fingerprint(state: TableState) -> bytes:
    """The whole state as bytes: equal bytes, identical state (lists inside included)."""
    return msgspec.json.encode(state)


def command_of_to_act(state: TableState, kind: type[E.Command], **fields: Any) -> E.Command:
    """A command of `kind` by the seat to act in `state`'s hand, at the table's seq."""
    hand = state.hand
    assert hand is not None
    seat = hand.to_act
    return kind(table_id=state.table_id, command_id="x", seat=seat,
                player_id=state.players[seat], seq=state.seq, **fields)
