"""The table's options for a seat: lay-offs, okey takes, penalised discards, the commands
allowed now. Pure."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence

from okey101 import melds as M
from okey101 import tiles
from okey101.errors import IllegalMove
from okey101.profiles import Profile
from okey101.table.rules.common import Refusal, _profile, fail
from okey101.table.rules.discards import _charges_discards, _penalty
from okey101.table.rules.seeding import commit_seed_refusal, reveal_seed_refusal
from okey101.table.rules.turn import (
    declare_pairs_refusal_in_turn,
    finish_refusal_in_turn,
    is_in_house,
    lay_off_room,
    lay_refusal_in_turn,
    open_refusal_in_turn,
    owed_take_refusal,
    put_back_refusal_in_turn,
    run_end_room,
    show_indicator_refusal_in_turn,
    table_access_refusal,
    take_discard_refusal_in_turn,
    touch_table_refusal,
    turn_refusal,
)
from okey101.table.state import TableState
from okey101.terms import (
    LayOffEnd,
    PenaltyReason,
)
from okey101.tiles import Tile


def lay_off_options(s: TableState, seat: int) -> list[tuple[Tile, int, LayOffEnd]]:
    """Every single tile `seat` may lay off now: (tile, meld, end), a tile kept to discard."""
    if touch_table_refusal(s, seat, "lay off", "LayOff") is not None:
        return []
    hand = s.hand
    assert hand is not None
    me = hand.seats[seat]
    room = lay_off_room(s, seat)
    if len(me.rack) < 2 or room == 0:
        return []
    wraps, okey = _profile(s).run_wraps_13_to_1, hand.okey
    fits = [M.fitting_stands(tm.meld, wraps) for tm in hand.melds]
    out: list[tuple[Tile, int, LayOffEnd]] = []
    for tile in sorted(set(me.rack)):
        stands = okey if tile == tiles.FAKE else tile
        for i, tm in enumerate(hand.melds):
            if tile != okey and stands not in fits[i]:
                continue  # the common case, without building the meld's ends
            for end in M.lay_off_ends(tile, tm.meld, okey, wraps):
                if run_end_room(s, i, end) != 0:
                    out.append((tile, i, end))
    return out


def okey_take_options(s: TableState, seat: int) -> list[tuple[int, list[Tile]]]:
    """(meld, the real tiles to put in the okey's place) for every okey `seat` may take."""
    if touch_table_refusal(s, seat, "take an okey", "TakeOkey") is not None:
        return []
    hand = s.hand
    assert hand is not None
    have = Counter(hand.seats[seat].rack)
    out: list[tuple[int, list[Tile]]] = []
    p = _profile(s)
    for i, tm in enumerate(hand.melds):
        if not tm.meld.jokers(hand.okey):
            continue  # most melds: no okey to take, without building the refusal
        try:
            put = okey_take_tiles(p, tm.meld, hand.okey, i)
        except IllegalMove:
            continue
        if all(have[t] >= n for t, n in Counter(put).items()):
            out.append((i, put))
    return out


def okey_take_tiles(p: Profile, meld: M.Meld, okey: Tile, index: int) -> list[Tile]:
    """What must be put to take the okey from `meld` (section 5), or why it cannot be."""
    jokers = [stands for played, stands in meld.tiles if played == okey]
    if not jokers:
        raise fail("no_okey_there", f"meld #{index} {meld.describe(okey)} holds no okey")
    if meld.kind == "group" and len(meld.tiles) == 3:
        if p.take_okey_from_groups == "four_only":
            raise fail("ambiguous_okey", f"{p.id}: the okey in a 3-tile group cannot be taken")
        need = [*M.missing_colours(meld), tiles.colour_of(jokers[0])]
        return sorted(tiles.make(col, meld.number) for col in need)
    return [jokers[0]]


def penalised_discards(s: TableState, seat: int) -> list[tuple[Tile, int, PenaltyReason]]:
    """The rack's tiles that would cost a penalty if discarded now."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    rack = hand.seats[seat].rack
    if not _charges_discards(p, rack):
        return []
    table = [m.meld for m in hand.melds]
    out = []
    for tile in sorted(set(rack)):
        penalty = _penalty(p, hand, table, tile)
        if penalty is not None:
            out.append((tile, *penalty))
    return out


Gate = Callable[[TableState, int], Refusal | None]


def _table_access(s: TableState, seat: int) -> Refusal | None:
    """Lay-off's and okey-taking's gate in turn (`turn.touch_table_refusal`): the same for
    both, but for its words, which `allowed_commands` never reads."""
    return table_access_refusal(s, seat, "lay off")


# each in-hand command's gate: the turn's in the phase it asks (None: any), then its own
# in turn (None: the turn's alone; `turn`'s `*_refusal` is their sum), so that
# `allowed_commands` asks the turn's once, and only the gates of the hand's phase (the
# others would refuse with wrong_phase) and of commands the house has (`turn.is_in_house`:
# the others would refuse as not applicable)
_GATES: tuple[tuple[str, str | None, Gate | None], ...] = (
    ("draw", "draw", None),
    ("take_discard", "draw", take_discard_refusal_in_turn),
    ("put_back", "play", put_back_refusal_in_turn),
    ("declare_pairs", None, declare_pairs_refusal_in_turn),
    ("show_indicator", None, show_indicator_refusal_in_turn),
    ("open", "play", open_refusal_in_turn),
    ("lay", "play", lay_refusal_in_turn),
    ("lay_off", "play", _table_access),
    ("take_okey", "play", _table_access),
    ("discard", "play", owed_take_refusal),
    ("finish", "play", finish_refusal_in_turn),
)


_SEEDING_GATES: tuple[tuple[str, Gate], ...] = (
    ("commit_seed", commit_seed_refusal),
    ("reveal_seed", reveal_seed_refusal),
)


def allowed_commands(s: TableState, seat: int) -> list[str]:
    """The in-hand commands (their wire `type`) `seat` may send now, or, while the next
    hand's seeding is open, its seeding commands; the engine still checks each one's
    arguments (the tiles, the melds, the seed) and its time against the window's deadline."""
    if s.seeding is not None:
        return [name for name, gate in _SEEDING_GATES if gate(s, seat) is None]
    if turn_refusal(s, seat) is not None:
        return []
    assert s.hand is not None
    out: list[str] = []
    for names, gate in _house_gates(_profile(s), s.hand.phase):
        if gate is None or gate(s, seat) is None:
            out += names
    return out


@functools.lru_cache(maxsize=256)
def _house_gates(p: Profile, phase: str) -> tuple[tuple[tuple[str, ...], Gate | None], ...]:
    """The gates in turn `allowed_commands` asks in `phase` at house `p` (the profiles are
    frozen), in `_GATES`' order, the commands of one gate side by side asking it once."""
    out: list[tuple[tuple[str, ...], Gate | None]] = []
    for name, needs, gate in _GATES:
        if (needs is None or needs == phase) and is_in_house(p, name):
            if out and gate is not None and out[-1][1] is gate:
                out[-1] = ((*out[-1][0], name), gate)
            else:
                out.append(((name,), gate))
    return tuple(out)


def tokens_in_rack(rack: Sequence[Tile], need: Counter[Tile], seat: int) -> None:
    """The rack holds every tile needed, and keeps one to discard."""
    count = rack.count
    for tile, n in need.items():
        if count(tile) < n:
            raise fail("tile_not_in_rack", f"seat {seat} does not hold {n} x {tiles.name(tile)}")
    if sum(need.values()) >= len(rack):
        raise fail("must_keep_a_discard", f"seat {seat} must keep a tile to discard")
