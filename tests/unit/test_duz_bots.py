"""Düz bots (bots/duz.py): level 3's discard is level 2's, its ties broken by live outs."""

from __future__ import annotations

from okey101 import solver, tiles
from okey101.bots.duz import DuzPlay
from okey101.bots.inference import Knowledge
from okey101.bots.seat import Seat
from okey101.table.views import player_view
from tests.unit.test_duz import _table


def _play(rack: str, level: int) -> DuzPlay:
    s = Seat(player_view(_table({0: rack}), 0))  # the starter, 15 tiles, to discard
    return DuzPlay(s, level, Knowledge(s) if level >= 3 else None)


# R1-R2-R3, B7-B8-B9, K10-K11-K12 and the 12s are melds; R5, B3 and K4 are loose. A draw
# of R4 melds R5 (R1-R5); K4 has no partner at all; B3 sits with R3 only.
RACK = "R1 R2 R3 B7 B8 B9 K10 K11 K12 B12 R12 Y12 R5 K4 B3"


def test_level3_in_duz_keeps_a_tile_that_extends_its_run_over_an_isolated_one() -> None:
    play = _play(RACK, 3)
    assert tiles.names(play.loose()) == ["R5", "B3", "K4"]
    rest = [t for t in play.s.rack if t != tiles.parse("K4")]
    # R5 is worth keeping: with it, a draw of R4 finishes (R1-R5, B3 discarded)
    with_r4 = solver.fewest_left([*rest, tiles.parse("R4")], play.s.okey, play.s.wraps)
    assert tiles.names(with_r4.leftover) == ["B3"]
    # ... and the next seat is less likely to meld it than K4, which main's level 3 weighed
    # first (it threw R5)
    assert play.k is not None
    assert play.k.p_feeds(tiles.parse("R5")) < play.k.p_feeds(tiles.parse("K4"))
    assert tiles.name(play.discard()) == "K4"


def test_level3_in_duz_throws_what_level2_throws_when_the_live_outs_tie() -> None:
    assert tiles.name(_play(RACK, 3).discard()) == tiles.name(_play(RACK, 2).discard())


def test_level3_in_duz_keeps_two_loose_tiles_a_live_draw_melds() -> None:
    # R5 and R7 wait on R6 (two live copies); K4 waits on nothing
    play = _play("R1 R2 R3 B7 B8 B9 K10 K11 K12 B12 R12 Y12 R5 R7 K4", 3)
    assert tiles.name(play.discard()) == "K4"
