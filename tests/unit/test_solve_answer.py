"""The rack helpers give one answer: `okey101 solve` and the gateway's /api/solve both ask
`okey101.app.solve`, so they count an opening as the house counts, limit a düz rack to 15
tiles, and answer düz with a finish."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from okey101 import profiles, solver, tiles
from okey101.app import solve
from okey101.errors import MalformedInput
from services.cli.main import main as cli
from services.gateway.app import _solve

RUNS = ["R10", "R11", "R12", "R13", "B10", "B11", "B12", "B13", "Y9", "Y10", "Y11"]
THIRD = {"meld_value": "third"}
DUZ_FINISH = ["R1", "R2", "R3", "R4", "R5", "B4", "B5", "B6", "Y7", "Y8", "Y9",
              "K10", "K11", "K12", "Y1"]  # only Y1 is left over


def test_the_opening_helper_counts_as_the_34_count_counts() -> None:
    answer = _solve({"kind": "opening", "rack": RUNS, "okey": "K5", "house": "classic",
                     "options": THIRD})
    rack = tiles.parse_many(RUNS)
    face = solver.opening(rack, tiles.parse("K5")).value
    assert answer["value"] == solver.opening(rack, tiles.parse("K5"), False,
                                             "third").value
    assert answer["value"] < face  # each meld counts floor(sum / 3), not its sum


def test_the_gateway_and_the_cli_give_one_opening_value() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        cli(["solve", "--profile", "classic", "--option", "meld_value=third",
             "--indicator", "K4", *RUNS])
    gateway = _solve({"kind": "opening", "rack": RUNS, "okey": "K5", "house": "classic",
                      "options": THIRD})
    assert json.loads(out.getvalue())["opening_value"] == gateway["value"]


def test_a_duz_rack_holds_at_most_15_tiles() -> None:
    with pytest.raises(MalformedInput, match="16 tiles: a rack holds at most 15 in düz"):
        _solve({"kind": "arrange", "rack": [*DUZ_FINISH, "Y1"], "okey": "B1",
                "house": "okey-oyna-duz"})
    assert len(solve.rack_of(profiles.house("okeygg"), [*DUZ_FINISH, "Y1"])) == 16


def test_the_finish_helper_shows_a_duz_finish_with_its_discard() -> None:
    answer = _solve({"kind": "finish", "rack": DUZ_FINISH, "okey": "B1",
                     "house": "okey-oyna-duz"})
    assert answer["value"] == 1
    assert answer["leftover"] == ["Y1"]
    assert answer["finish_kind"] == "normal"
    assert sum(len(m) for m in answer["melds"]) == 14


def test_a_duz_rack_that_cannot_finish_says_so() -> None:
    rack = ["R1", "R5", "R9", "B2", "B6", "B11", "Y3", "Y7", "Y12", "K4", "K8", "K13"]
    answer = _solve({"kind": "finish", "rack": rack, "okey": "B1", "house": "okey-oyna-duz"})
    assert answer["value"] == 0 and answer["finish_kind"] is None


@pytest.mark.parametrize("kind,house,named", [
    ("opening", "okey-oyna-duz", "düz house; ask finish"),
    ("finish", "okeygg", "101 house; ask opening"),
])
def test_a_helper_of_the_other_game_is_refused_by_name(kind: str, house: str,
                                                       named: str) -> None:
    with pytest.raises(MalformedInput, match=named):
        _solve({"kind": kind, "rack": ["R1"], "okey": "B1", "house": house})


def test_an_unknown_option_is_refused_by_name() -> None:
    with pytest.raises(MalformedInput, match="no_such"):
        _solve({"kind": "opening", "rack": ["R1"], "okey": "B1", "options": {"no_such": 1}})
