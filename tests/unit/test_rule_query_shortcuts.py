"""The rule queries' shortcuts change no answer (every house).

`can_open_with` answers False without a solve when no meld (run or group, a joker
allowed) can hold the tile, since neither an opening nor an elden opening can then lay
it, when every tile a meld could hold is worth less than the threshold, and (elden) when
more than one tile is in no meld or when melds holding every natural tile but one would
be worth more than the best opening (or, unsolved, every meldable tile);
`lay_off_options` asks a meld for its ends only when the tile stands for one of the tiles
that fit it (an okey: always). Both are checked against their plain definitions at every
turn of played matches."""

from __future__ import annotations

from collections import Counter

import pytest

from okey101 import melds as M
from okey101 import solver, tiles
from okey101.errors import IllegalMove
from okey101.simulate import match_seeds, play_match
from okey101.table import rules as R
from okey101.table.state import TableState

HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna")


def _states(house: str, matches: int = 3) -> list[TableState]:
    seen: list[TableState] = []
    profile = {"base": house, "options": {"hands_per_match": 2 if house != "okeygg" else 7}}
    for seed in match_seeds(5, matches):
        play_match(profile, seed, observer=lambda before, c, d, after: seen.append(after))
    return [s for s in seen if s.hand is not None and s.status == "playing"]


def _plain_can_open_with(s: TableState, seat: int, tile: int) -> bool:
    """`can_open_with` by its definition: every opening and elden opening solved."""
    hand = s.hand
    assert hand is not None
    rack = [*hand.seats[seat].rack, tile]
    return R.can_open_pairs_with(s, seat, rack, tile) or \
        _plain_can_open_points_with(s, seat, rack, tile) or \
        _plain_can_go_elden_with(s, seat, rack, tile)


def _plain_can_open_points_with(s: TableState, seat: int, rack: list[int], tile: int) -> bool:
    """The best opening in the house's count reaches the threshold with `tile` laid: the
    best of the whole rack, or a meld holding `tile` plus the best of the rest."""
    hand = s.hand
    assert hand is not None
    assert s.profile is not None
    p = s.profile
    need, wraps, count = R.threshold(s, seat, "points"), p.run_wraps_13_to_1, p.meld_value
    best = solver.opening(rack, hand.okey, wraps, count)
    if best.value >= need and any(pl[0] == tile for m in best.melds for pl in m.tiles):
        return True
    for m in M.melds_with(rack, tile, hand.okey, wraps):
        rest = list(rack)
        for played, _ in m.tiles:
            rest.remove(played)
        if M.counted_value(m, count) + \
                solver.opening(rest, hand.okey, wraps, count).value >= need:
            return True
    return False


def _plain_can_go_elden_with(s: TableState, seat: int, rack: list[int], tile: int) -> bool:
    """Some tile other than the taken one is left alone by an arrangement of the rest."""
    hand = s.hand
    assert hand is not None
    if not R.is_elden_open(s, seat):
        return False
    assert s.profile is not None
    wraps = s.profile.run_wraps_13_to_1
    for u in set(rack):
        if u == tile and rack.count(tile) < 2:
            continue
        rest = list(rack)
        rest.remove(u)
        if not solver.arrange(rest, hand.okey, wraps).leftover:
            return True
    return False


def _plain_lay_off_options(s: TableState, seat: int) -> list[tuple[int, int, str]]:
    """Every (rack tile, meld) pair asked for its ends."""
    hand = s.hand
    assert hand is not None
    if not _may_lay_off(s, seat):
        return []
    assert s.profile is not None
    wraps = s.profile.run_wraps_13_to_1
    return [(t, i, end) for t in sorted(set(hand.seats[seat].rack))
            for i, tm in enumerate(hand.melds)
            for end in M.lay_off_ends(t, tm.meld, hand.okey, wraps)
            if R.run_end_room(s, i, end) != 0]


def _may_lay_off(s: TableState, seat: int) -> bool:
    try:
        me = R.check_touch_table(s, seat, "lay off", "LayOff")
    except IllegalMove:
        return False
    return len(me.rack) >= 2 and R.lay_off_room(s, seat) != 0


@pytest.mark.parametrize("house", HOUSES)
def test_can_open_with_answers_as_its_definition_at_every_draw(house: str) -> None:
    asked = Counter[bool]()
    for s in _states(house):
        hand = s.hand
        assert hand is not None
        seat = hand.to_act
        if hand.phase != "draw" or hand.seats[seat].opened is not None:
            continue
        candidates = {t for t in (R.available_discard(hand), hand.okey, tiles.FAKE)
                      if t is not None and hand.seats[seat].rack.count(t) < 2}
        for tile in sorted(candidates):
            answer = R.can_open_with(s, seat, tile)
            assert answer == _plain_can_open_with(s, seat, tile), (house, s.seq, tile)
            asked[answer] += 1
    assert asked[False] > 0 and sum(asked.values()) > 50, asked


@pytest.mark.parametrize("house", HOUSES)
def test_lay_off_options_answer_as_every_tile_and_meld_asked(house: str) -> None:
    found = 0
    for s in _states(house):
        hand = s.hand
        assert hand is not None
        seat = hand.to_act
        if hand.phase != "play":
            continue
        options = R.lay_off_options(s, seat)
        assert options == _plain_lay_off_options(s, seat), (house, s.seq)
        found += len(options)
    assert found > 0
