"""The game's vocabulary as types, each defined once: seats, kinds of opening, finish,
lay-off end and penalty. Every module (scoring, the wire messages, the state) uses these."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

SEATS: Final = 4  # RULES.md section 2: four seats; partners face each other (s, s + 2)
BOT_LEVELS: Final = (0, 1, 2, 3, 4)  # okey101.bots: 0 plain rule-follower, 1-4 houses' bots
DEFAULT_BOT_LEVEL: Final = 2  # a bot seated without a level is played at this one

Game: TypeAlias = Literal[
    "101",  # 101 Okey: open with 101 points or 5 pairs, lay down, finish with an empty rack
    "duz",  # classic (düz) Okey (RULES.md §12): 14 tiles, no opening, finish by showing all
]
MeldCount: TypeAlias = Literal[
    "face",  # a meld is worth its tiles' face values added up (the opening needs 101)
    "third",  # the "34" count (seeds/003): floor(sum / 3) per meld (the opening needs 34)
]

OpeningKind: TypeAlias = Literal["points", "pairs"]
Opened: TypeAlias = OpeningKind | None

FinishKind: TypeAlias = Literal[
    "normal",  # an opened player discards their last tile (düz: shows runs and groups)
    "okey",  # ... and that last discard is an okey
    "pairs",  # a pairs-opener finishes (düz: shows seven pairs)
    "pairs_okey",  # a pairs-opener finishes by discarding an okey (düz: the same)
    "elden",  # an unopened player opens and finishes in one turn
    "elden_okey",  # ... discarding an okey last
    "deck_exhausted",  # the deck ran out: no finisher
    "void",  # all four opened with pairs: nobody scores, deal again
]
FINISH_KINDS: tuple[FinishKind, ...] = (
    "normal", "okey", "pairs", "pairs_okey", "elden", "elden_okey", "deck_exhausted", "void",
)

RunEnd: TypeAlias = Literal["low", "high"]
LayOffEnd: TypeAlias = Literal["low", "high", "group"]  # where a lay-off went

PenaltyReason: TypeAlias = Literal[
    "playable_discard",  # a discard that could have been laid off (section 6)
    "okey_discarded",  # a discarded okey (section 6)
    "opener_used_discard",  # okeygg: the next player opened with your discard
    "okey_taken",  # okeygg: your okey was taken from the table
    "invalid_opening",  # a retracted invalid opening (classic, okeygg)
    "siler",  # okeygg: 150+ points or 7+ pairs erase 101 (negative points)
    "indicator_shown",  # düz: another seat showed the indicator's twin (points lost)
]

LeaveReason: TypeAlias = Literal[
    "left",  # the player left (or handed the seat to a bot)
    "disconnected",  # the reconnect window passed (section 9): left, as if by choice
]

DealVersion: TypeAlias = Literal[
    1,  # the server's seed alone: the hand seed derives from the match seed (proto/DEAL.md)
    2,  # players contribute entropy: the server's share and the revealed client seeds
]
DEAL_VERSIONS: tuple[DealVersion, ...] = (1, 2)

SeedingStage: TypeAlias = Literal[
    "commit",  # the seated people may commit to a client seed (SHA-256 of it)
    "reveal",  # the seats that committed reveal their seeds
]
ForfeitReason: TypeAlias = Literal[
    "not_revealed",  # committed, and the reveal window closed without its seed
    "mismatch",  # revealed a seed whose SHA-256 is not its commitment
]
