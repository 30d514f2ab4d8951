"""Tiles and melds as the table's commands and events write them, and back. Pure.

Shared by `decide` (checking a command's tiles) and `evolve` (folding an event's): a meld
is built from its tokens the same way on both sides.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from okey101 import melds as M
from okey101 import tiles
from okey101.errors import IllegalMove
from okey101.table.state import HandState
from okey101.tiles import Tile


def without(rack: Sequence[Tile], taken: Iterable[Tile]) -> tuple[Tile, ...]:
    """`rack` less one copy of each tile `taken`."""
    out = list(rack)
    for t in taken:
        out.remove(t)
    return tuple(out)


def played_tiles(tokens: Iterable[str]) -> list[Tile]:
    """The tiles put down, from meld tokens (``Y6=K9`` puts down Y6)."""
    return [tiles.parse_meld_token(token)[0] for token in tokens]


_BY_NAME = tiles.BY_NAME
_FAKE = tiles.FAKE


def placed_tiles(tokens: Sequence[str], okey: Tile) -> list[M.Placed]:
    """(played, stands) for each meld token."""
    if not isinstance(tokens, (list, tuple)):
        return M.parse_placed(tokens, okey)  # refuses it, naming it
    out: list[M.Placed] = []
    get = _BY_NAME.get
    for token in tokens:
        played = get(token) if type(token) is str else None
        if played is not None:  # a canonical name: as melds.place, a fake okey plays as
            out.append((played, okey if played == _FAKE else played))  # the okey
            continue
        played, stands = tiles.parse_meld_token(token)
        if stands is None:
            out.append((played, okey if played == _FAKE else played))
        else:
            out.append(M.place(played, stands, okey, token))
    return out


def pair_jokers(hand: HandState, seat: int) -> frozenset[Tile]:
    """okeygg: a shown indicator twin works as an okey in pairs, for the seat that showed it."""
    return frozenset({hand.indicator}) if hand.seats[seat].shown_indicator else frozenset()


def build_meld(tokens: Sequence[str], hand: HandState, wraps: bool, pairs: bool,
               jokers: frozenset[Tile] = frozenset()) -> M.Meld:
    """The meld `tokens` make: a pair (`pairs`), else a run or a group; or IllegalMove."""
    return meld_of(placed_tiles(tokens, hand.okey), tokens, hand.okey, wraps, pairs, jokers)


def meld_of(placed: list[M.Placed], tokens: Sequence[str], okey: Tile, wraps: bool,
            pairs: bool, jokers: frozenset[Tile] = frozenset()) -> M.Meld:
    """`build_meld` of tiles already placed (`placed_tiles` of `tokens`)."""
    if pairs:
        meld = M.as_pair(placed, okey, jokers)
        if meld is None:
            raise IllegalMove(f"[{' '.join(tokens)}] is not a pair", "invalid_pair")
        return meld
    return M.classify(placed, wraps)
