"""Bad input on the command line (issue: one rule book, item 5): one clear line on stderr
naming the input and its place, exit status 2, never a traceback."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okey101.errors import MalformedInput
from okey101.simulate import match_seeds
from okey101.table import scenario
from services.cli.main import main

WHOLE_HAND = Path(__file__).parents[1] / "properties" / "whole_hand.json"
SEED = "00" * 32


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run `okey101 argv`; it must exit 2 with exactly one line on stderr."""
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err
    return err


def write(tmp_path: Path, doc: Any) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_a_scenario_nested_100000_deep_is_refused_not_a_recursion_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in refused(capsys, "scenario", path)


def test_a_missing_field_is_named_as_missing(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(WHOLE_HAND.read_text())
    doc["commands"][0] = {"seat": doc["commands"][0]["seat"], "cmd": "discard"}
    err = refused(capsys, "scenario", write(tmp_path, doc))
    assert "commands[0]" in err and "missing field `tile`" in err
    assert "unknown tile" not in err and "None" not in err


def test_a_null_tile_is_a_type_error_not_an_unknown_tile(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(WHOLE_HAND.read_text())
    doc["commands"][0] = {"seat": doc["commands"][0]["seat"], "cmd": "discard", "tile": None}
    err = refused(capsys, "scenario", write(tmp_path, doc))
    assert "commands[0]" in err and "`tile`" in err


@pytest.mark.parametrize(("change", "named"), [
    (lambda d: d.__setitem__("comands", []), "scenario: unknown key 'comands'"),
    (lambda d: d["deal"].__setitem__("stater", 0), "deal: unknown key 'stater'"),
    (lambda d: d["commands"][0].__setitem__("tyle", "R7"), "commands[0] (discard): unknown key"
                                                            " 'tyle'"),
])
def test_unknown_keys_are_refused_naming_the_key_and_its_place(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        change: Callable[[dict[str, Any]], None], named: str) -> None:
    doc = json.loads(WHOLE_HAND.read_text())
    change(doc)
    assert named in refused(capsys, "scenario", write(tmp_path, doc))


def test_a_negative_simulation_seed_is_not_its_absolute_value() -> None:
    assert match_seeds(-1, 3) != match_seeds(1, 3)
    assert match_seeds(-1, 3) == match_seeds(-1, 3)


@pytest.mark.parametrize(("argv", "named"), [
    (["deal", "--seed", "abcd"], "exactly 32 bytes"),
    (["deal", "--seed", "zz"], "not hex"),
    (["deal", "--seed", SEED * 2], "exactly 32 bytes"),
    (["deal", "--seed", SEED, "--hand", "0"], "--hand 0: hands count from 1"),
    (["deal", "--seed", SEED, "--hand", "1", "--attempt", "-1"], "--attempt -1"),
    (["solve", "--indicator", "Y5", "R4", "Q7"], "rack, tile 2: unknown tile 'Q7'"),
    (["solve", "--indicator", "Q5", "R4"], "--indicator, tile 0"),
    (["solve", "--indicator", "Y5", *["R1", "R2", "R3", "R4"] * 6], "24 tiles: a rack holds"
                                                                    " at most 22"),
    (["simulate", "--matches", "-1"], "--matches -1"),
    (["simulate", "--hands", "0"], "hands_per_match=0 is outside 7-21 for okeygg"),
    # okey101 tournament: refused before Kafka is asked (tests/kafka/test_tournament_cli.py
    # has the ones the decisions decide)
    (["tournament", "schedule", "--house", "nowhere", "--id", "c", "--starts-at", "1"],
     "--house 'nowhere': no such house"),
    (["tournament", "schedule", "--house", "north-sultan", "--id", "c", "--starts-at", "1"],
     "--starts-at 1970-01-01T00:00:00Z: in the past"),
    (["tournament", "schedule", "--house", "north-sultan", "--id", "c", "--starts-at",
      "4102444800000", "--size", "8"], "size 8: north-sultan holds tournaments of 16, 64"),
    (["tournament", "cancel", "c", "--house", "nowhere"], "--house 'nowhere'"),
])
def test_bad_arguments_get_one_line_naming_them(
        capsys: pytest.CaptureFixture[str], argv: list[str], named: str) -> None:
    assert named in refused(capsys, *argv)


def test_a_tournament_argument_argparse_cannot_parse_gets_one_line_too(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["tournament", "schedule", "--house", "north-sultan", "--id", "c",
              "--starts-at", "1", "--size", "abc"])
    assert exited.value.code == 2
    assert capsys.readouterr().err == ("okey101 tournament schedule: argument --size: "
                                       "invalid int value: 'abc'\n")


def test_a_hand_seed_of_32_bytes_and_hand_1_are_accepted(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", "--seed", SEED, "--hand", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["starter"] == 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 30) | st.text(max_size=4)
    | st.sampled_from(["R7", "Y6=K9", "F", "discard", "open", "okeygg", "Y5"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["profile", "deal", "commands", "cmd", "seat", "tile",
                                       "racks", "indicator", "melds", "x"]), inner,
                      max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=json_values)
def test_any_json_document_is_played_or_refused_as_malformed_never_a_crash(doc: Any) -> None:
    with contextlib.suppress(MalformedInput):
        scenario.run(doc)
