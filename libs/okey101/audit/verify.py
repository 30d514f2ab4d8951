"""Verifying one hand against its deal (proto/DEAL.md "Verifying a hand"). Pure.

`verify_hand(events, sizes)` takes a hand's events, from `seeding_opened` (deal version 2)
or `hand_started` (version 1) to `hand_ended`, and answers `HandVerified` or `HandFailed`
with the first difference: the commitment against the revealed seed (version 2: the
server's share against its commitment, each client seed against its seat's commitment, the
hand seed against the one they derive), the deal of that seed against `hand_started`, then
every public tile move replayed against it in log order: a tile a seat laid, discarded,
put back or showed must be in its rack by the deal and its draws and takes; a taken discard
must be the top of the previous seat's pile; every rack revealed by `hand_ended` must be
what the seat holds. Seat-private and server-only events, where present (the events
topic), are checked too: `rack_dealt` and `hand_dealt` against the deal, a drawn tile
against the deck's top. A views topic's events (tiles of other seats' draws blank) verify
the same way.

The deal functions are the engine's own (`okey101.table.deal`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

from okey101 import tiles
from okey101.audit.records import Finding, HandFailed, HandVerified
from okey101.errors import MalformedInput
from okey101.table import deal as D
from okey101.table import messages as E
from okey101.table.notation import played_tiles
from okey101.terms import DEAL_VERSIONS, SEATS
from okey101.tiles import Tile


class _Fail(Exception):
    def __init__(self, finding: Finding, event: E.Event | None, message: str) -> None:
        super().__init__(message)
        self.finding: Finding = finding
        self.event = event
        self.message = message


def _hex(value: str, what: str, event: E.Event) -> bytes:
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise _Fail("malformed", event, f"{what} is not hex: {value[:80]!r}") from None
    if len(raw) != D.SEED_BYTES:
        raise _Fail("malformed", event, f"{what}: {len(raw)} bytes; {D.SEED_BYTES} expected")
    return raw


def tag(event: E.Event | None) -> str:
    """The event's type as the wire writes it ("" for none)."""
    if event is None:
        return ""
    return str(event.__struct_config__.tag)


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _names(items: Sequence[Tile]) -> str:
    return " ".join(tiles.names(sorted(items, key=tiles.sort_key))) or "nothing"


class _Replay:
    """The racks, piles and table melds of one hand, moved by its public events."""

    def __init__(self, dealt: D.Dealt) -> None:
        self.racks = [Counter(r) for r in dealt.racks]
        self.deck = dealt.deck
        self.deck_pos = 0
        self.piles: list[list[Tile]] = [[] for _ in range(SEATS)]
        self.melds: list[list[Tile]] = []
        self.okey = tiles.okey_for(dealt.indicator)
        self.taken_from = -1
        self.moves = 0

    def take_out(self, seat: int, laid: Sequence[Tile], event: E.Event, what: str) -> None:
        rack = self.racks[seat]
        need = Counter(laid)
        short = [t for t, n in need.items() if rack[t] < n]
        if short:
            raise _Fail("tile_not_in_rack", event,
                        f"seat {seat} {what} {_names(list(need.elements()))}, but "
                        f"{_names(short)} was not in its rack (it held "
                        f"{_names(list(rack.elements()))})")
        rack.subtract(need)
        self.moves += 1

    def apply(self, e: E.Event) -> None:
        match e:
            case E.TileDrawn():
                if self.deck_pos >= len(self.deck):
                    raise _Fail("deck_exhausted", e, f"seat {e.seat} drew tile "
                                f"{self.deck_pos + 1} of a deck of {len(self.deck)}")
                top = self.deck[self.deck_pos]
                if e.tile and tiles.parse(e.tile) != top:
                    raise _Fail("draw_mismatch", e, f"seat {e.seat} drew {e.tile}; the deck's "
                                f"tile {self.deck_pos + 1} is {tiles.name(top)}")
                self.deck_pos += 1
                self.racks[e.seat][top] += 1
                self.moves += 1
            case E.TileDiscarded():
                gone = tiles.parse(e.tile)
                self.take_out(e.seat, [gone], e, "discarded")
                self.piles[e.seat].append(gone)
            case E.DiscardTaken():
                tile = tiles.parse(e.tile)
                source = (e.seat - 1) % SEATS
                pile = self.piles[source]
                if not pile or pile[-1] != tile:
                    top_name = tiles.name(pile[-1]) if pile else "nothing"
                    raise _Fail("discard_not_on_pile", e, f"seat {e.seat} took {e.tile} "
                                f"from seat {source}'s pile, whose top is {top_name}")
                pile.pop()
                self.racks[e.seat][tile] += 1
                self.taken_from = source
                self.moves += 1
            case E.DiscardPutBack():
                tile = tiles.parse(e.tile)
                self.take_out(e.seat, [tile], e, "put back")
                source = self.taken_from if self.taken_from >= 0 else (e.seat - 1) % SEATS
                self.piles[source].append(tile)
            case E.IndicatorShown():
                tile = tiles.parse(e.tile)
                if self.racks[e.seat][tile] < 1:
                    raise _Fail("tile_not_in_rack", e, f"seat {e.seat} showed {e.tile}, "
                                "which was not in its rack")
                self.moves += 1
            case E.HandOpened() | E.MeldsLaid():
                for group in e.melds:
                    laid = played_tiles(group)
                    self.take_out(e.seat, laid, e, "laid")
                    self.melds.append(list(laid))
            case E.TilesLaidOff():
                laid = played_tiles(e.tiles)
                if not 0 <= e.meld < len(self.melds):
                    raise _Fail("malformed", e, f"seat {e.seat} laid off on meld {e.meld}; "
                                f"{len(self.melds)} melds are on the table")
                self.take_out(e.seat, laid, e, "laid off")
                self.melds[e.meld].extend(laid)
            case E.OkeyTaken():
                put = tiles.parse_many(e.tiles)
                if not 0 <= e.meld < len(self.melds) or self.okey not in self.melds[e.meld]:
                    raise _Fail("okey_not_on_meld", e, f"seat {e.seat} took the okey "
                                f"{tiles.name(self.okey)} from meld {e.meld}, which holds none")
                self.take_out(e.seat, put, e, "put on the table for the okey")
                self.melds[e.meld].remove(self.okey)
                self.melds[e.meld].extend(put)
                self.racks[e.seat][self.okey] += 1
            case E.RackShown():
                shown = [tiles.parse(e.tile)] + [t for g in e.melds for t in played_tiles(g)]
                self.take_out(e.seat, shown, e, "showed")
                for group in e.melds:
                    self.melds.append(list(played_tiles(group)))
            case _:
                pass


def _seeding_seed(seeding: list[E.Event], ended: E.HandEnded) -> bytes:
    """Version 2: the hand seed the revealed share and client seeds derive, checked."""
    opened = next((e for e in seeding if isinstance(e, E.SeedingOpened)), None)
    closed = next((e for e in seeding if isinstance(e, E.SeedingClosed)), None)
    if opened is None or closed is None:
        raise _Fail("incomplete", ended, "deal version 2, but the hand's seeding_opened or "
                    "seeding_closed is missing")
    share = _hex(ended.server_share, "hand_ended.server_share", ended)
    if _sha(share) != opened.server_commitment:
        raise _Fail("server_share_mismatch", ended, f"SHA-256 of the server share is "
                    f"{_sha(share)}; seeding_opened (seq {opened.seq}) committed to "
                    f"{opened.server_commitment}")
    committed: dict[int, str] = {}
    revealed: dict[int, str] = {}
    for e in seeding:
        if isinstance(e, E.SeedCommitted):
            committed[e.seat] = e.commitment
        elif isinstance(e, E.SeedRevealed):
            raw = _hex(e.client_seed, f"seat {e.seat}'s client seed", e)
            if committed.get(e.seat) != _sha(raw):
                raise _Fail("client_seed_mismatch", e, f"seat {e.seat} revealed a seed whose "
                            f"SHA-256 is {_sha(raw)}; it committed to "
                            f"{committed.get(e.seat) or 'nothing'}")
            revealed[e.seat] = e.client_seed
    if len(closed.client_seeds) != SEATS or any(
            closed.client_seeds[s] != revealed.get(s, "") for s in range(SEATS)):
        raise _Fail("client_seeds_mismatch", closed, f"seeding_closed.client_seeds "
                    f"{closed.client_seeds} are not the seeds revealed, by seat: "
                    f"{[revealed.get(s, '') for s in range(SEATS)]}")
    seeds = [bytes.fromhex(c) if c else None for c in closed.client_seeds]
    return D.derived_seed(2, share, seeds)


def verify_hand(events: Sequence[E.Event], sizes: D.Sizes = D.SIZES_101,
                table_id: str = "") -> HandVerified | HandFailed:
    """The hand's events (seeding included, version 2) checked against its deal."""
    started = next((e for e in events if isinstance(e, E.HandStarted)), None)
    ended = next((e for e in events if isinstance(e, E.HandEnded)), None)
    hand = started.hand if started is not None else ended.hand if ended is not None else 0
    attempt = started.attempt if started is not None else 0
    version = started.deal_version if started is not None else 1
    table = table_id or (events[0].table_id if events else "")

    def failed(finding: Finding, event: E.Event | None, message: str) -> HandFailed:
        return HandFailed(table_id=table, hand=hand, attempt=attempt, deal_version=version,
                          finding=finding, seq=event.seq if event is not None else 0,
                          event=tag(event), message=message)

    if started is None or ended is None:
        last = events[-1] if events else None
        return failed("incomplete", last, "the hand's hand_started or hand_ended is missing")
    try:
        return _verify(events, started, ended, sizes, table)
    except _Fail as f:
        return failed(f.finding, f.event, f.message)
    except (MalformedInput, IndexError, KeyError, ValueError, TypeError) as exc:
        return failed("malformed", ended, f"the hand cannot be verified: {exc}")


def _verify(events: Sequence[E.Event], started: E.HandStarted, ended: E.HandEnded,
            sizes: D.Sizes, table: str) -> HandVerified:
    if not started.commitment:
        raise _Fail("uncommitted", started, "hand_started carries no commitment (a stacked "
                    "deal): the deal cannot be verified")
    if started.deal_version not in DEAL_VERSIONS:
        raise _Fail("malformed", started, f"deal version {started.deal_version}: known "
                    f"versions are {list(DEAL_VERSIONS)}")
    seed = _hex(ended.seed, "hand_ended.seed", ended)
    if started.deal_version == 2:
        at = events.index(started)
        derived = _seeding_seed(list(events[:at]), ended)
        if derived != seed:
            raise _Fail("seed_mismatch", ended, f"the server share and the client seeds "
                        f"derive the hand seed {derived.hex()}; hand_ended revealed {ended.seed}")
    if _sha(seed) != started.commitment:
        raise _Fail("commitment_mismatch", ended, f"SHA-256 of the revealed seed is "
                    f"{_sha(seed)}; hand_started (seq {started.seq}) committed to "
                    f"{started.commitment}")
    if not 0 <= started.starter < SEATS:
        raise _Fail("malformed", started, f"starter {started.starter} is not a seat")
    dealt = D.deal(seed, started.starter, sizes)
    okey = tiles.okey_for(dealt.indicator)
    if (tiles.name(dealt.indicator), tiles.name(okey), len(dealt.deck)) != (
            started.indicator, started.okey, started.deck_count):
        raise _Fail("indicator_mismatch", started, f"the seed deals indicator "
                    f"{tiles.name(dealt.indicator)}, okey {tiles.name(okey)}, "
                    f"{len(dealt.deck)} deck tiles; hand_started says {started.indicator}, "
                    f"{started.okey}, {started.deck_count}")
    replay = _Replay(dealt)
    for e in events[events.index(started) + 1:]:
        try:
            if isinstance(e, E.HandDealt):
                _check_hand_dealt(e, dealt)
            elif isinstance(e, E.RackDealt):
                if not 0 <= e.seat < SEATS or Counter(tiles.parse_many(e.tiles)) != Counter(
                        dealt.racks[e.seat]):
                    raise _Fail("deal_mismatch", e, f"seat {e.seat} was dealt "
                                f"{_names(tiles.parse_many(e.tiles))}; the seed deals it "
                                f"{_names(dealt.racks[e.seat]) if 0 <= e.seat < SEATS else '-'}")
            elif isinstance(e, E.HandEnded):
                _check_racks(e, replay)
                break
            else:
                replay.apply(e)
        except (MalformedInput, IndexError, KeyError, ValueError, TypeError) as exc:
            # a seat out of range, a meld number that is not on the table, a bad token
            raise _Fail("malformed", e, f"cannot be replayed: {exc}") from None
    return HandVerified(table_id=table, hand=started.hand, attempt=started.attempt,
                        deal_version=started.deal_version, commitment=started.commitment,
                        first_seq=events[0].seq, last_seq=ended.seq, moves=replay.moves)


def _check_hand_dealt(e: E.HandDealt, dealt: D.Dealt) -> None:
    racks = [Counter(tiles.parse_many(r)) for r in e.racks]
    if racks != [Counter(r) for r in dealt.racks]:
        seat = next((s for s in range(min(len(racks), SEATS))
                     if racks[s] != Counter(dealt.racks[s])), len(racks))
        raise _Fail("deal_mismatch", e, f"hand_dealt's rack of seat {seat} is not the "
                    "seed's deal")
    if tiles.parse_many(e.deck) != list(dealt.deck):
        raise _Fail("deal_mismatch", e, "hand_dealt's deck is not the seed's deck, in order")


def _check_racks(e: E.HandEnded, replay: _Replay) -> None:
    if len(e.racks) != SEATS:
        raise _Fail("malformed", e, f"hand_ended reveals {len(e.racks)} racks; {SEATS} seats")
    for seat in range(SEATS):
        shown = Counter(tiles.parse_many(e.racks[seat]))
        held = +replay.racks[seat]
        if shown != held:
            extra = list((shown - held).elements())
            missing = list((held - shown).elements())
            raise _Fail("rack_mismatch", e, f"hand_ended reveals seat {seat}'s rack as "
                        f"{_names(list(shown.elements()))}; it held "
                        f"{_names(list(held.elements()))} (revealed but not held: "
                        f"{_names(extra)}; held but not revealed: {_names(missing)})")
