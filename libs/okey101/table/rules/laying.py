"""What a seat lays and how: one form a command (melds or pairs), the opening's taken
tile and threshold, who may lay pairs, the meld laid off on and its room, the tiles an
okey take puts in its place (RULES.md §4-5). Pure."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from okey101 import melds as M
from okey101 import solver, tiles
from okey101.profiles import Profile
from okey101.table.notation import without
from okey101.table.rules.common import _profile, fail
from okey101.table.rules.options import okey_take_tiles
from okey101.table.rules.takes import opening_within
from okey101.table.rules.thresholds import is_elden_opening, threshold
from okey101.table.rules.turn import lay_off_room, may_lay_pairs, may_open_with_pairs, run_end_room
from okey101.table.state import HandState, SeatHand, TableState
from okey101.terms import LayOffEnd, OpeningKind
from okey101.tiles import Tile


def check_one_form(action: str, melds: bool, pairs: bool) -> None:
    """A command to `action` (open, lay, finish) carries melds or pairs, not both."""
    if melds != pairs:
        return
    if action == "open":
        raise fail("open_one_way", "open with melds or with pairs, never both or neither")
    if action == "lay":
        raise fail("lay_one_way", "lay melds or pairs, one kind per command")
    raise fail("finish_one_way", "show the rack as melds or as pairs, never both or neither")


def check_opens_with_taken(hand: HandState, laid: Sequence[Tile]) -> None:
    """An opening after taking the discard uses it (or its twin)."""
    taken = hand.scratch.taken
    if taken is not None and taken not in laid:
        raise fail("must_open_with_taken_tile",
                   f"the taken discard {tiles.name(taken)} (or its twin) must be in the opening")


def check_may_open_with_pairs(s: TableState, seat: int) -> None:
    if not may_open_with_pairs(s, seat):
        raise fail("pairs_not_declared", f"seat {seat} must declare pairs first")


def check_reaches_threshold(s: TableState, seat: int, kind: OpeningKind, value: int,
                            laid: int) -> tuple[int, bool]:
    """The opening's threshold and whether it opens elden (below it, laying `laid` tiles
    where the house allows); `below_threshold` when it does neither."""
    need = threshold(s, seat, kind)
    elden = kind == "points" and value < need and is_elden_opening(s, seat, laid)
    if value < need and not elden:
        raise fail("below_threshold", f"an opening of {value} {kind} does not reach {need}")
    return need, elden


def check_lay_form(hand: HandState, me: SeatHand, seat: int, pairs: bool) -> None:
    """A pairs-opener lays only pairs; a points-opener lays pairs once somebody opened
    with pairs."""
    if not pairs and me.opened == "pairs":
        raise fail("pairs_opener_cannot_lay_melds",
                   f"seat {seat} opened with pairs and may not lay runs or groups")
    if pairs and not may_lay_pairs(hand, seat):
        raise fail("pairs_not_allowed", "a points-opener may lay pairs only after somebody "
                                        "opened with pairs")


def meld_at(hand: HandState, index: int) -> M.Meld:
    """The table's meld #`index`, or `no_such_meld`."""
    if not isinstance(index, int) or not 0 <= index < len(hand.melds):
        raise fail("no_such_meld", f"there is no meld #{index} (the table has "
                                   f"{len(hand.melds)})")
    return hand.melds[index].meld


def check_lay_off_target(meld: M.Meld, index: int) -> None:
    if meld.kind == "pair":
        raise fail("cannot_lay_off", f"meld #{index} is a pair: lay new pairs with 'lay'")


def check_lay_off_room(s: TableState, seat: int, count: int, p: Profile) -> None:
    """A pairs-opener lays off at most the house's limit a turn."""
    room = lay_off_room(s, seat)
    if room is not None and count > room:
        raise fail("lay_off_limit", f"a pairs-opener lays off at most "
                                    f"{p.pairs_opener_lay_off_limit} tiles a turn in {p.id}")


def check_run_end_room(s: TableState, index: int, end: LayOffEnd, count: int,
                       p: Profile) -> None:
    """okeygg: at most the house's limit at each end of a run a turn."""
    room = run_end_room(s, index, end)
    if room is not None and count > room:
        raise fail("lay_off_limit", f"at most {p.run_end_lay_off_limit} tiles at each end "
                                    f"of a run per turn ({p.id}); meld #{index} {end}")


def check_holds(rack: Sequence[Tile], wanted: Sequence[Tile], seat: int) -> None:
    """The rack holds every tile of `wanted` (as many times as it names it)."""
    if len(wanted) == 1:  # a discard: every command of the turn has one
        if wanted[0] not in rack:
            raise fail("tile_not_in_rack", f"seat {seat} does not hold {tiles.name(wanted[0])}")
        return
    have = Counter(rack)
    for t, n in Counter(wanted).items():
        if have[t] < n:
            raise fail("tile_not_in_rack", f"seat {seat} does not hold {tiles.name(t)}")


def check_okey_swap(p: Profile, meld: M.Meld, okey: Tile, index: int,
                    put: Sequence[Tile]) -> None:
    """The tiles put in place of meld #`index`'s okey are the ones it stands for."""
    wanted = okey_take_tiles(p, meld, okey, index)
    if sorted(put) == sorted(wanted):
        return
    if len(wanted) > 1:
        raise fail("wrong_tiles", f"to take the okey from group #{index} put all of "
                                  f"{' '.join(tiles.names(wanted))}")
    jokers = [stands for played, stands in meld.tiles if played == okey]
    if not (len(put) == 1 and put[0] in jokers):
        raise fail("wrong_tiles", f"the okey in meld #{index} stands for "
                                  f"{' or '.join(tiles.names(jokers))}; put exactly that tile")


def can_open_now(s: TableState, seat: int) -> bool:
    """Does the unopened seat's rack hold an opening it could lay now: the points the
    house's count needs, or (where pairs are open to it) the pairs, a tile kept to
    discard? The collusion audit's "ended the hand holding an opening" asks this."""
    hand = s.hand
    if hand is None or _profile(s).game == "duz" or hand.seats[seat].opened is not None:
        return False
    p, rack = _profile(s), hand.seats[seat].rack
    need = threshold(s, seat, "points")
    wraps, count = p.run_wraps_13_to_1, p.meld_value
    best = opening_within(rack, hand.okey, wraps, count, need)
    if best is not None and best.value >= need:
        if best.leftover:
            return True
        for kept in set(rack):  # the opening took every tile: one must stay to discard
            rest = without(tuple(rack), [kept])
            found = opening_within(rest, hand.okey, wraps, count, need)
            if found is not None and found.value >= need:
                return True
    if not may_open_with_pairs(s, seat):
        return False
    pairs = min(solver.most_pairs(rack, hand.okey), (len(rack) - 1) // 2)
    return pairs >= threshold(s, seat, "pairs")
