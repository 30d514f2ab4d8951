"""POST /api/score: a hand's end as the page saw it, scored seat by seat."""

from __future__ import annotations

import msgspec
import pytest

from okey101.app.gateway.sheet import score
from okey101.errors import IllegalMove, MalformedInput
from okey101.profiles import OKEYGG, with_overrides

END = {"profile": "okeygg", "okey": "Y6", "finish": "okey", "finished_by": 0,
       "opened": ["points", "points", "pairs", None],
       "racks": [[], ["R8", "Y6"], ["R1", "R2"], ["K3"]]}


def test_an_okey_finish_at_okeygg_is_broken_down_by_seat() -> None:
    seats = score(END).seats
    assert [(s.rack, s.multiplier, s.okey_surcharge, s.score) for s in seats] == [
        (-101, 2, 0, -202), (8, 2, 101, 117), (6, 2, 0, 12), (202, 2, 0, 404)]


def test_the_tables_own_profile_from_its_view_is_scored_as_sent() -> None:
    capped = with_overrides(OKEYGG, {"multiplier_cap": 1})
    seats = score({**END, "profile": msgspec.to_builtins(capped)}).seats
    assert [s.multiplier for s in seats] == [1, 1, 1, 1]


@pytest.mark.parametrize(("change", "names"), [
    ({"finish": "sideways"}, "finish"), ({"racks": [[]] * 3}, "4 seats"),
    ({"okey": "Z9"}, "okey"), ({"racks": [[], ["R1"] * 23, [], []]}, "22"),
    ({"profile": "nowhere"}, "nowhere"), ({"opened": ["x", None, None, None]}, "opened"),
    ({"profile": {"id": 3}}, "profile")])
def test_a_body_that_is_not_a_hands_end_is_malformed_input_naming_it(
        change: dict[str, object], names: str) -> None:
    with pytest.raises(MalformedInput, match=names):
        score({**END, **change})


def test_an_end_the_rules_forbid_is_an_illegal_move() -> None:
    with pytest.raises(IllegalMove):
        score({**END, "finish": "pairs"})  # seat 0 opened with points
