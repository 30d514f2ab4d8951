"""Scenario files: each JSON file under tests/scenarios/<house>/ plays one rule of RULES.md.

A file is a scenario (the contract of `okey101.table.scenario.run`) plus two keys the
engine ignores: ``"rule"`` (the RULES.md section and house it shows) and ``"expect"``:

    "expect": {
      "lines": {                      # by command index; a command not listed must succeed
        "3": {"ok": false, "code": "cannot_open_with_discard"},
        "5": {"events": ["tile_discarded", "penalty_imposed"],      # exact event types
              "has": [{"type": "penalty_imposed", "seat": 0, "points": 101}]}  # subsets
      },
      "final": {"totals": [...], "finish": "okey", "penalties": [...]}   # exact, per key
    }

The files are data. They were written by `python -m tests.scenarios.builder` from the specs
in specs_*.py (which fill the racks with tiles that do nothing); to change one, change its
spec and run the builder again, or edit the JSON by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from okey101.errors import MalformedInput
from okey101.table import scenario
from okey101.table.evolve import replay

HERE = Path(__file__).parent
FILES = sorted(HERE.glob("*/*.json"))
HOUSES = {"north-sultan", "okeygg", "classic", "okey-oyna", "okey-oyna-duz"}


def _check_line(i: int, line: dict[str, Any], want: dict[str, Any]) -> None:
    where = f"command {i}"
    ok = want.get("ok", "code" not in want)
    assert line["ok"] is ok, f"{where}: expected ok={ok}, got {line}"
    if "code" in want:
        assert line["code"] == want["code"], f"{where}: {line}"
    if "events" in want:
        types = [e["type"] for e in line["events"]]
        assert types == want["events"], f"{where}: events {types}"
    for partial in want.get("has", []):
        assert any(all(e.get(k) == v for k, v in partial.items()) for e in line["events"]), \
            f"{where}: no event matches {partial} in {line['events']}"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(HERE)) for p in FILES])
def test_scenario(path: Path) -> None:
    doc = json.loads(path.read_text())
    assert path.parent.name in HOUSES, f"{path}: folder must be a house id"
    assert isinstance(doc.get("rule"), str) and doc["rule"], f"{path}: no rule"
    expect = doc["expect"]
    out = scenario.run(doc)
    lines, final = out[:-1], out[-1]["final"]
    want_lines = expect.get("lines", {})
    assert all(0 <= int(k) < len(lines) for k in want_lines), "expect names a missing line"
    for line in lines:
        want = want_lines.get(str(line["i"]), {})
        _check_line(line["i"], line, want)
    for key, value in expect.get("final", {}).items():
        assert final[key] == value, f"final {key}: expected {value}, got {final[key]}"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(HERE)) for p in FILES])
def test_replaying_a_scenarios_events_gives_its_state(path: Path) -> None:
    """Event sourcing: folding every event the scenario produced, from a new table,
    gives the state the live run ended in."""
    doc = json.loads(path.read_text())
    state, events = scenario.setup(doc)
    for i, raw in enumerate(doc["commands"]):
        state, decision = scenario.apply(state, scenario.to_command(state, raw, i))
        if isinstance(decision, list):
            events += decision
    assert replay(events) == state


def test_there_are_scenarios_for_every_house() -> None:
    assert {p.parent.name for p in FILES} == HOUSES


# ---------------------------------------------------------------- malformed scenario files
def _doc(**changes: Any) -> dict[str, Any]:
    """A small well-formed scenario: the canonical order dealt out, nothing played."""
    order = [f"{c}{n}" for c in "RYBK" for n in range(1, 14) for _ in range(2)]
    doc: dict[str, Any] = {
        "profile": "okeygg",
        "deal": {"indicator": "K12", "starter": 0,
                 "racks": [order[0:22], order[22:43], order[43:64], order[64:85]]},
        "commands": [{"seat": 0, "cmd": "discard", "tile": "R1"}],
    }
    doc.update(changes)
    return doc


def test_the_small_document_is_well_formed() -> None:
    out = scenario.run(_doc())
    assert out[0]["ok"] is True


@pytest.mark.parametrize("change, where", [
    ({"commands": [{"seat": 0, "cmd": "discard", "tile": "R14"}]}, "commands[0]"),
    ({"commands": [{"seat": 0, "cmd": "fly"}]}, "commands[0]"),
    ({"commands": [{"seat": 5, "cmd": "draw"}]}, "commands[0]"),
    ({"commands": [{"seat": 0, "cmd": "open", "melds": [["R1", "X2"]]}]}, "commands[0]"),
    ({"profile": "nowhere"}, "profile"),
    ({"profile": {"base": "okeygg", "options": {"no_such_option": 1}}}, "option"),
])
def test_malformed_documents_raise_naming_the_place(change: dict[str, Any], where: str
                                                    ) -> None:
    with pytest.raises(MalformedInput, match=where.replace("[", r"\[").replace("]", r"\]")):
        scenario.run(_doc(**change))


def test_a_bad_indicator_is_malformed() -> None:
    doc = _doc()
    doc["deal"]["indicator"] = "Z5"
    with pytest.raises(MalformedInput, match="deal 0 indicator, tile 0: unknown tile 'Z5'"):
        scenario.run(doc)


def test_a_wrong_tile_count_is_malformed() -> None:
    doc = _doc()
    doc["deal"]["racks"][1] = doc["deal"]["racks"][1][:-1]
    with pytest.raises(MalformedInput, match="rack 1 has 20 tiles; 21 needed"):
        scenario.run(doc)


def test_a_tile_used_too_often_is_malformed() -> None:
    doc = _doc()
    doc["deal"]["racks"][3][0] = "R1"  # R1 R1 are in rack 0 already
    with pytest.raises(MalformedInput, match="R1 appears 3 times"):
        scenario.run(doc)


def test_a_rejected_command_is_not_an_error() -> None:
    out = scenario.run(_doc(commands=[{"seat": 1, "cmd": "draw"}]))
    assert out[0] == {"i": 0, "ok": False, "code": "not_your_turn",
                      "message": "seat 1 acted on seat 0's turn"}


def test_a_deal_whose_starter_does_not_rotate_is_malformed() -> None:
    path = HERE / "okeygg" / "a_three_hand_match_moves_the_starter_each_hand.json"
    doc = json.loads(path.read_text())
    doc["deals"][1]["starter"] = 0  # hand 2 must start at seat 1
    racks = doc["deals"][1]["racks"]
    racks[0].append(racks[1].pop())  # keep 22/21 valid for starter 0
    with pytest.raises(MalformedInput, match="deal 1: starter 0, but hand 2 starts at seat 1"):
        scenario.run(doc)
