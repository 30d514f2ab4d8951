"""The fairness auditor's records (the `audit` topic, proto/audit-record.schema.json).

One tagged union, tag field ``type``: a hand verified, a hand failed (the finding names the
event's position: its table seq and its type), and a collusion or abuse flag (the matches
and the moves behind it, for a moderator to read). New fields get defaults; a field is
never retyped.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from okey101.table.messages import VERSION

# what a failed hand's `finding` says went wrong (FINDINGS below has each one's meaning)
Finding = Literal[
    "malformed", "uncommitted", "commitment_mismatch", "server_share_mismatch",
    "client_seed_mismatch", "client_seeds_mismatch", "seed_mismatch", "indicator_mismatch",
    "deal_mismatch", "draw_mismatch", "tile_not_in_rack", "discard_not_on_pile",
    "okey_not_on_meld", "rack_mismatch", "deck_exhausted", "incomplete",
]
FINDINGS: dict[str, str] = {
    "malformed": "an event of the hand cannot be read (a bad tile name, a bad hex seed, a "
                 "missing event); the message names it",
    "uncommitted": "the hand published no commitment (a stacked deal): nobody can verify it",
    "commitment_mismatch": "SHA-256 of the revealed hand seed is not hand_started.commitment",
    "server_share_mismatch": "version 2: SHA-256 of the revealed server share is not "
                             "seeding_opened.server_commitment",
    "client_seed_mismatch": "version 2: a seed_revealed does not hash to its seat's "
                            "seed_committed.commitment",
    "client_seeds_mismatch": "version 2: seeding_closed.client_seeds is not exactly the "
                             "revealed seeds",
    "seed_mismatch": "version 2: the revealed hand seed is not the one the server share and "
                     "the client seeds derive",
    "indicator_mismatch": "the deal of the seed gives another indicator (or okey, or deck "
                          "count) than hand_started",
    "deal_mismatch": "a rack (rack_dealt, hand_dealt) or the deck is not the seed's deal",
    "draw_mismatch": "a drawn tile is not the top of the seed's deck",
    "tile_not_in_rack": "a seat laid, discarded or showed a tile it did not hold by the deal "
                        "and its draws",
    "discard_not_on_pile": "a taken discard is not the top of the previous seat's pile",
    "okey_not_on_meld": "an okey was taken from a meld that holds none",
    "rack_mismatch": "a rack revealed when the hand ended is not what the seat held",
    "deck_exhausted": "a seat drew from a deck the deal had already used up",
    "incomplete": "the hand's log ended or restarted before the hand did",
}

FlagKind = Literal["feeding", "soft_play", "win_trading", "repeated_pair",
                   "deliberate_losing", "bot_timing"]
FLAG_KINDS: dict[str, str] = {
    "feeding": "one account's discards are taken by the next seat, the other account, and "
               "laid at once, far more often than its discards are taken by anyone else",
    "soft_play": "one account passes on the other's discards that fit its own rack, or "
                 "lets the other's discard go while taking everybody else's",
    "win_trading": "in their shared matches one account never opens and the other places "
                   "above it, in both directions, far more often than honest play",
    "repeated_pair": "north-sultan: the two accounts met more often within 24 h than the "
                     "house counts",
    "deliberate_losing": "an account keeps openings it could lay, hand after hand",
    "bot_timing": "an account's decision times are too regular for a person",
}


class Record(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    v: int = VERSION
    table_id: str  # the key of the record (a flag: the latest match behind it)


class HandVerified(Record, tag="hand_verified", frozen=True, kw_only=True):
    """The hand's commitment, seeds, deal and public moves agree."""

    hand: int
    attempt: int
    deal_version: int
    commitment: str
    first_seq: int  # hand_started (version 2: seeding_opened)
    last_seq: int  # hand_ended
    moves: int  # public tile moves replayed against the deal


class HandFailed(Record, tag="hand_failed", frozen=True, kw_only=True):
    """A difference between the hand's log and its deal: the first one found."""

    hand: int
    attempt: int
    deal_version: int
    finding: Finding
    seq: int  # the event's position in the table's log (0: none, the hand's end missing)
    event: str  # its type
    message: str  # names the seat, the tile and what was expected


class Evidence(msgspec.Struct, frozen=True, kw_only=True):
    """One move (or one match) behind a flag."""

    table_id: str
    hand: int = 0  # 0: the whole match
    seq: int = 0  # the event's position in the table's log (0: the whole match or hand)
    seat: int = -1
    what: str  # readable: "p1 discarded R7 (seq 41); p2 took it and opened with it (seq 43)"


class CollusionFlag(Record, tag="collusion_flag", frozen=True, kw_only=True):
    """Accounts whose shared matches show `kind`: the figures, the matches and the moves."""

    kind: FlagKind
    players: list[str]  # the accounts: a pair (the first the actor), or one
    team: bool = False  # partners in a partner mode
    matches: list[str]  # the shared matches (table ids) the features were measured over
    observed: float  # the feature: a rate, a count or a coefficient of variation
    expected: float  # what honest play gives (the population's rate, the house's cap)
    score: float  # how far off: a z-score, or the count over the cap
    summary: str  # one sentence for a moderator
    evidence: list[Evidence] = msgspec.field(default_factory=list)  # up to 20 moves


AnyRecord = HandVerified | HandFailed | CollusionFlag

record_decoder = msgspec.json.Decoder(AnyRecord)
_encoder = msgspec.json.Encoder()


def encode(record: Record) -> bytes:
    return _encoder.encode(record)


def schema() -> dict[str, object]:
    return msgspec.json.schema(AnyRecord)
