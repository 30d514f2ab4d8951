"""Bots at every level play whole matches under every house (düz, and the "34" count, too):
always legal, only in turn, and from nothing but their own seat's view (RULES.md section
11)."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest

from okey101 import bots
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.state import TableState
from okey101.table.views import PlayerView, player_view

HOUSES = {
    "north-sultan": {"base": "north-sultan", "options": {"hands_per_match": 2}},
    "okeygg": {"base": "okeygg", "options": {"hands_per_match": 7}},
    "classic": {"base": "classic", "options": {"hands_per_match": 2, "bots_allowed": True}},
    "okey-oyna": {"base": "okey-oyna", "options": {"hands_per_match": 2}},
    "okey-oyna-duz": {"base": "okey-oyna-duz", "options": {"hands_per_match": 2}},
    "classic-34-count": {"base": "classic", "options": {
        "hands_per_match": 2, "bots_allowed": True, "meld_value": "third"}},
}


def _levels() -> dict[str, Callable[[], Callable[[PlayerView], E.Command]]]:
    return {"level1": lambda: bots.level1, "level2": lambda: bots.level2,
            "level3": bots.Level3, "level4": lambda: bots.Level4(playouts=6)}


@pytest.mark.parametrize("house", sorted(HOUSES))
@pytest.mark.parametrize("level", sorted(_levels()))
def test_bots_never_send_a_rejected_command_nor_act_out_of_turn(house: str, level: str) -> None:
    make = _levels()[level]
    for seed in match_seeds(7, 2):
        acted: list[tuple[int, int]] = []

        def watch(before: TableState, command: E.Command, decision: object,
                  after: TableState, acted: list[tuple[int, int]] = acted) -> None:
            if before.hand is not None and not isinstance(command, E.TimeOut) and \
                    before.status == "playing":
                acted.append((command.seat, before.hand.to_act))

        record = play_match(HOUSES[house], seed, players=[make() for _ in range(4)],
                            observer=watch)
        assert record.rejections == 0, record.rejection_codes
        assert not record.capped
        assert record.final.status == "over"
        assert all(seat == to_act for seat, to_act in acted)


@pytest.mark.parametrize("level", sorted(_levels()))
def test_a_bot_is_given_exactly_its_seats_view_and_nothing_hidden(level: str) -> None:
    bot = _levels()[level]()
    seen: list[PlayerView] = []
    truth: list[PlayerView] = []

    def spy(view: PlayerView) -> E.Command:
        seen.append(view)
        return bot(view)

    def watch(before: TableState, command: E.Command, decision: object,
              after: TableState) -> None:
        if before.hand is not None and before.status == "playing" and \
                before.hand.to_act == 0 and not isinstance(command, E.TimeOut):
            truth.append(player_view(before, 0))  # what seat 0 may know, from the state

    play_match(HOUSES["north-sultan"], match_seeds(3, 1)[0],
               players=[spy, bots.level1, bots.level1, bots.level1], observer=watch)
    assert len(seen) == len(truth) > 10
    for view, expected in zip(seen, truth, strict=True):
        assert view == expected
        encoded = msgspec.json.encode(view).decode()
        assert '"deck"' not in encoded and '"seed"' not in encoded
