"""The simulation driver and the CLI commands built on the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from okey101.simulate import render, simulate
from okey101.table import messages as E
from services.cli.main import main

from .support import houses, recorded, seeds, short_profile

SCENARIO = Path(__file__).parent / "whole_hand.json"  # a copy of one scenario


def test_a_simulation_is_reproducible_from_its_seed() -> None:
    first = simulate(short_profile("north-sultan"), 2, seed=5)
    assert simulate(short_profile("north-sultan"), 2, seed=5) == first
    assert simulate(short_profile("north-sultan"), 2, seed=6) != first
    assert first.matches == len(first.results) == 2
    assert first.commands == sum(r.commands for r in first.results)
    for r in first.results:
        assert sorted(r.places)[0] == 1 and not r.capped
        assert sum(r.finishes.values()) >= r.hands
    assert "mean" in render(first)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(house=houses, seed=seeds)
def test_simple_players_send_only_commands_the_engine_accepts(house: str, seed: str) -> None:
    """A rejection means the player misread its view, or the engine is wrong: look."""
    rec = recorded(house, seed).record
    assert rec.rejections == 0, rec.rejection_codes
    assert isinstance(rec.events[-1], E.MatchEnded)


def test_cli_scenario_prints_a_line_per_command_then_the_final(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(SCENARIO.read_text())
    assert main(["scenario", str(SCENARIO)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == len(doc["commands"]) + 1 and "final" in lines[-1]


@pytest.mark.parametrize(("change", "named"), [
    (lambda d: d["deal"]["racks"][1].__setitem__(0, "Q7"), "rack 1, tile 0"),
    (lambda d: d["deal"]["racks"][1].pop(), "rack 1 has 20 tiles"),
    (lambda d: d["deal"]["racks"][2].__setitem__(0, d["deal"]["racks"][1][0]), "appears"),
    (lambda d: d["commands"].__setitem__(1, {"cmd": "fly", "seat": 1}), "commands[1]"),
])
def test_cli_scenario_refuses_a_malformed_file_with_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: object, named: str
) -> None:
    doc = json.loads(SCENARIO.read_text())
    assert callable(change)
    change(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    assert main(["scenario", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and named in err and str(path) in err


def test_cli_scenario_refuses_bad_json_and_answers_a_rejection_as_a_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"profile": ')
    assert main(["scenario", str(path)]) == 2
    assert "line 1" in capsys.readouterr().err
    doc = json.loads(SCENARIO.read_text())
    doc["commands"][1] = {"cmd": "discard", "seat": 2, "tile": "R1"}  # out of turn
    path.write_text(json.dumps(doc))
    assert main(["scenario", str(path)]) == 0
    second = json.loads(capsys.readouterr().out.splitlines()[1])
    assert second["ok"] is False and second["code"] == "not_your_turn"


def test_cli_simulate_prints_standings(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--profile", "okey-oyna", "--matches", "1", "--seed", "2",
            "--hands", "1"]
    assert main([*args, "--json"]) == 0
    standings = json.loads(capsys.readouterr().out)
    assert standings["matches"] == 1 and standings["hands"] >= 1
    assert main(args) == 0
    assert "okey-oyna" in capsys.readouterr().out
    assert main(["simulate", "--profile", "okeygg", "--hands", "3"]) == 2
    assert "hands_per_match" in capsys.readouterr().err
