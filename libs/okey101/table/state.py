"""The table's state: what folding its events gives. Frozen structs, shared structure.

The structs are `gc=False`: frozen and holding only tuples, strings, numbers and other
frozen structs, they can never be part of a reference cycle, so Python's cyclic collector
need not track them; a full collection then no longer walks every live table (with the
processor's outcomes kept encoded: over 500 live tables, 54 ms -> 0.2 ms of CPU)."""

from __future__ import annotations

from typing import Literal

import msgspec

from okey101.melds import Meld
from okey101.profiles import Profile
from okey101.table.messages import StackedDeal
from okey101.terms import SEATS, LayOffEnd, Opened, SeedingStage
from okey101.tiles import Tile

Status = Literal["new", "seating", "playing", "over"]
Phase = Literal["draw", "play", "over"]


class TableMeld(msgspec.Struct, frozen=True, gc=False):
    meld: Meld
    owner: int
    laid_turn: int  # the table turn it was laid in


class SeatHand(msgspec.Struct, frozen=True, gc=False):
    """One seat within a hand."""

    rack: tuple[Tile, ...] = ()
    discards: tuple[Tile, ...] = ()  # this seat's discard pile, top last
    opened: Opened = None
    opened_turn: int = -1
    opening_value: int = 0  # points, or pairs
    declared_pairs: bool = False
    shown_indicator: bool = False
    has_played: bool = False  # has drawn, taken or discarded this hand
    penalties: int = 0  # in-game penalties this hand (and Siler)
    elden_opening: bool = False  # opened below the threshold by laying the whole rack
    siler: bool = False  # okeygg: this opening has had its 101 erased


class TurnScratch(msgspec.Struct, frozen=True, gc=False):
    """What happened so far in the current turn."""

    taken: Tile | None = None  # the discard taken this turn
    taken_from: int = -1
    laid: tuple[Tile, ...] = ()  # tiles laid on the table this turn
    lay_offs: int = 0
    laid_off: bool = False  # laid off or took an okey (north-sultan: then not elden)
    end_counts: tuple[tuple[int, LayOffEnd, int], ...] = ()  # (meld, end, tiles) this turn
    put_back: bool = False  # the taken discard went back: this turn draws from the deck


class HandState(msgspec.Struct, frozen=True, gc=False):
    number: int
    attempt: int
    starter: int
    indicator: Tile
    okey: Tile
    seed: str = ""
    deck: tuple[Tile, ...] = ()
    deck_pos: int = 0
    seats: tuple[SeatHand, ...] = (SeatHand(), SeatHand(), SeatHand(), SeatHand())
    melds: tuple[TableMeld, ...] = ()
    to_act: int = 0
    phase: Phase = "play"
    scratch: TurnScratch = TurnScratch()
    finish: str | None = None
    finished_by: int | None = None
    deal_version: int = 1  # proto/DEAL.md: 2 when client seeds went into the seed

    @property
    def deck_left(self) -> int:
        return len(self.deck) - self.deck_pos


class Sitter(msgspec.Struct, frozen=True, gc=False):
    """One account that sat in a seat while the match ran (section 9)."""

    player_id: str
    substitute: bool  # sat down after the match started, in a seat somebody left
    left: bool = False  # left the running match (the reconnect window passing included)


class Disconnection(msgspec.Struct, frozen=True, gc=False):
    """A seated player the gateway reported disconnected: back by `reconnect_by` (ms)."""

    player_id: str
    since: int  # the seq of the event that opened the window
    reconnect_by: int


NO_SHARES: tuple[str, ...] = ("", "", "", "")


class Seeding(msgspec.Struct, frozen=True, gc=False):
    """The seeding before a hand is dealt (proto/DEAL.md, version 2). The server's share
    is never kept here: `decide` derives it from the match seed when it needs it."""

    hand: int
    attempt: int
    starter: int
    server_commitment: str
    stage: SeedingStage = "commit"
    deadline: int = 0  # ms since the epoch: the commit window's end, then the reveal's
    commitments: tuple[str, ...] = NO_SHARES  # by seat, "" for none
    committers: tuple[str, ...] = NO_SHARES  # the player who committed at each seat
    client_seeds: tuple[str, ...] = NO_SHARES  # revealed (hex), "" for none
    forfeited: tuple[bool, ...] = (False, False, False, False)


NO_SITTERS: tuple[tuple[Sitter, ...], ...] = ((), (), (), ())


class TableState(msgspec.Struct, frozen=True, gc=False):
    table_id: str = ""
    seq: int = 0
    profile: Profile | None = None
    status: Status = "new"
    players: tuple[str, ...] = ("", "", "", "")
    bots: tuple[bool, ...] = (False, False, False, False)  # server only, as the next two
    bot_levels: tuple[int | None, ...] = (None, None, None, None)
    sitters: tuple[tuple[Sitter, ...], ...] = NO_SITTERS  # by seat, while the match runs
    disconnected: tuple[Disconnection | None, ...] = (None, None, None, None)
    private: bool = False
    owner: str = ""  # a private room's owner
    bots_requested: bool = False  # the owner asked for bots in the empty seats
    hands_total: int = 0
    match_seed: str = ""
    deals: tuple[StackedDeal, ...] | None = None
    deals_used: int = 0
    turn: int = 0  # counts turns over the whole match: a timeout names one
    hand: HandState | None = None
    seeding: Seeding | None = None  # the next hand's seeding, while it is open
    seeding_barred: tuple[str, ...] = ()  # players who forfeited a share this match
    hand_scores: tuple[tuple[int, ...], ...] = ()
    penalties: tuple[int, ...] = (0, 0, 0, 0)

    def totals(self) -> list[int]:
        return [sum(s[i] for s in self.hand_scores) + self.penalties[i] for i in range(SEATS)]
