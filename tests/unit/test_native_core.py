"""The compiled core (native/) is built into the test venv by `make test` from this tree
and answers: the differential tests skip without it, so this one must not."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from okey101 import native, solver
from okey101.errors import MalformedInput

ROOT = Path(__file__).resolve().parents[2]


def test_the_compiled_core_is_built_from_this_tree() -> None:
    import okey101_native

    cargo = tomllib.loads((ROOT / "native" / "Cargo.toml").read_text())
    assert okey101_native.core_version() == cargo["package"]["version"]
    assert native.core is okey101_native


def test_the_compiled_core_plays_a_hand() -> None:
    import okey101_native

    assert hasattr(okey101_native, "HandSim")


def test_the_solver_answers_through_the_compiled_core() -> None:
    assert solver.most_pairs is native.most_pairs is not None
    assert solver.most_pairs([0, 0, 1], 40) == 1


def test_a_tile_kind_the_compiled_core_cannot_take_raises_malformed_input() -> None:
    with pytest.raises(MalformedInput, match=r"rack\[1\]: 300"):
        solver.meldable([0, 300], 5)


def test_the_solve_answers_through_the_compiled_core(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[object, ...]] = []
    assert native.solve is not None
    compiled = native.solve

    def spy(*args: object) -> native.NativeSolution:
        calls.append(args)
        return compiled(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(native, "solve", spy)
    solver._solve_sorted.cache_clear()
    found = solver.opening([0, 1, 2, 13, 26, 39], 50)
    assert calls == [((0, 1, 2, 13, 26, 39), 50, False, None, False)]
    assert found == solver._solve_reference((0, 1, 2, 13, 26, 39), 50, False, None)
    solver._solve_sorted.cache_clear()


def test_a_rack_the_compiled_solve_cannot_take_raises_malformed_input() -> None:
    solver._solve_sorted.cache_clear()
    with pytest.raises(MalformedInput, match=r"solve: rack\[1\]: 300"):
        solver.opening([0, 300], 5)
