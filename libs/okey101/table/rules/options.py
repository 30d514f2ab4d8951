"""The table's options for a seat: lay-offs, okey takes, penalised discards, the commands
allowed now. Pure."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from okey101 import melds as M
from okey101 import tiles
from okey101.errors import IllegalMove
from okey101.profiles import Profile
from okey101.table.rules.common import _passes, _profile, fail
from okey101.table.rules.discards import _charges_discards, _penalty
from okey101.table.rules.seeding import check_commit_seed, check_reveal_seed
from okey101.table.rules.turn import (
    check_declare_pairs,
    check_discard,
    check_draw,
    check_finish,
    check_lay,
    check_open,
    check_put_back,
    check_show_indicator,
    check_take_discard,
    check_touch_table,
    is_in_house,
    lay_off_room,
    run_end_room,
)
from okey101.table.state import TableState
from okey101.terms import (
    LayOffEnd,
    PenaltyReason,
)
from okey101.tiles import Tile


def lay_off_options(s: TableState, seat: int) -> list[tuple[Tile, int, LayOffEnd]]:
    """Every single tile `seat` may lay off now: (tile, meld, end), a tile kept to discard."""
    try:
        me = check_touch_table(s, seat, "lay off", "LayOff")
    except IllegalMove:
        return []
    room = lay_off_room(s, seat)
    if len(me.rack) < 2 or room == 0:
        return []
    hand = s.hand
    assert hand is not None
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
    try:
        me = check_touch_table(s, seat, "take an okey", "TakeOkey")
    except IllegalMove:
        return []
    hand = s.hand
    assert hand is not None
    have = Counter(me.rack)
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


# each in-hand command's gate, with the phase its gate's `check_turn` asks (None: any), so
# that `allowed_commands` asks only the gates of the hand's phase (the others would refuse
# with wrong_phase) and of commands the house has (`turn.is_in_house`: the others would
# refuse as not applicable)
_GATES: tuple[tuple[str, str | None, Callable[[TableState, int], object]], ...] = (
    ("draw", "draw", check_draw),
    ("take_discard", "draw", check_take_discard),
    ("put_back", "play", check_put_back),
    ("declare_pairs", None, check_declare_pairs),
    ("show_indicator", None, check_show_indicator),
    ("open", "play", check_open),
    ("lay", "play", check_lay),
    ("lay_off", "play", lambda s, seat: check_touch_table(s, seat, "lay off", "LayOff")),
    ("take_okey", "play",
     lambda s, seat: check_touch_table(s, seat, "take an okey", "TakeOkey")),
    ("discard", "play", check_discard),
    ("finish", "play", check_finish),
)


_SEEDING_GATES: tuple[tuple[str, Callable[[TableState, int], object]], ...] = (
    ("commit_seed", check_commit_seed),
    ("reveal_seed", check_reveal_seed),
)


def allowed_commands(s: TableState, seat: int) -> list[str]:
    """The in-hand commands (their wire `type`) `seat` may send now, or, while the next
    hand's seeding is open, its seeding commands; the engine still checks each one's
    arguments (the tiles, the melds, the seed) and its time against the window's deadline."""
    if s.seeding is not None:
        return [name for name, gate in _SEEDING_GATES if _passes(gate, s, seat)]
    if s.hand is None or s.status != "playing" or s.hand.to_act != seat:
        return []
    phase, p = s.hand.phase, _profile(s)
    return [name for name, needs, gate in _GATES
            if (needs is None or needs == phase) and is_in_house(p, name)
            and _passes(gate, s, seat)]


def tokens_in_rack(rack: Sequence[Tile], need: Counter[Tile], seat: int) -> None:
    """The rack holds every tile needed, and keeps one to discard."""
    count = rack.count
    for tile, n in need.items():
        if count(tile) < n:
            raise fail("tile_not_in_rack", f"seat {seat} does not hold {n} x {tiles.name(tile)}")
    if sum(need.values()) >= len(rack):
        raise fail("must_keep_a_discard", f"seat {seat} must keep a tile to discard")
