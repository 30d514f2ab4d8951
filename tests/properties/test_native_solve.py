"""The compiled solve gives the same Solution as the Python specification
(`okey101.solver._solve_reference`): the same value, the same melds in the same order (the
tie-breaking included) and the same leftover, for every house's options: 12-13-1 (wraps),
the okey's value in the rack (joker_weight), the fewest left (düz: unit), the "34" count,
with one okey, both okeys and fake okeys. A mismatch names the rack and the options."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101 import native, solver, tiles
from okey101.errors import MalformedInput
from tools.bench.solver import deal_racks

core = pytest.importorskip("okey101_native")

SET = tiles.full_set()
Case = tuple[tuple[int, ...], int, bool, int | None, bool]


def compiled(rack: tuple[int, ...], okey: int, wraps: bool, joker_weight: int | None,
             unit: bool) -> solver.Solution:
    """The solver's own answer, without its cache: through the compiled core."""
    answer: solver.Solution = solver._solve_sorted.__wrapped__(  # type: ignore[attr-defined]
        rack, okey, wraps, joker_weight, unit)
    return answer


def assert_same(case: Case, where: str = "") -> None:
    rack, okey, wraps, joker_weight, unit = case
    expected = solver._solve_reference(rack, okey, wraps, joker_weight, unit)
    got = compiled(rack, okey, wraps, joker_weight, unit)
    assert got == expected, (
        f"{where}rack={list(rack)} ({tiles.names(list(rack))}) okey={okey} wraps={wraps} "
        f"joker_weight={joker_weight} unit={unit}")


weights = st.one_of(st.none(), st.sampled_from([0, 1, 101, native.MAX_JOKER_WEIGHT]),
                    st.integers(0, 300))


@st.composite
def dealt(draw: st.DrawFn) -> Case:
    """Any rack of 0-23 tiles from the set (about one in 28 of 22 holds both okeys)."""
    size = draw(st.integers(0, 23))
    rack = draw(st.permutations(SET))[:size]
    okey = tiles.okey_for(draw(st.integers(0, tiles.FAKE - 1)))
    return tuple(sorted(rack)), okey, draw(st.booleans()), draw(weights), draw(st.booleans())


@st.composite
def jokered(draw: st.DrawFn) -> Case:
    """Racks holding one or both okeys and up to two fake okeys."""
    okey = tiles.okey_for(draw(st.integers(0, tiles.FAKE - 1)))
    jokers, fakes = draw(st.integers(1, 2)), draw(st.integers(0, 2))
    naturals = [t for t in SET if t not in (okey, tiles.FAKE)]
    size = draw(st.integers(max(0, 10 - jokers - fakes), 22 - jokers - fakes))
    rack = draw(st.permutations(naturals))[:size] + [okey] * jokers + [tiles.FAKE] * fakes
    return tuple(sorted(rack)), okey, draw(st.booleans()), draw(weights), draw(st.booleans())


@settings(max_examples=3000, derandomize=True, deadline=None)
@given(dealt())
def test_the_compiled_solve_gives_the_python_solution_for_any_rack(case: Case) -> None:
    assert_same(case)


@settings(max_examples=3000, derandomize=True, deadline=None)
@given(jokered())
def test_the_compiled_solve_gives_the_python_solution_with_okeys_and_fakes(case: Case) -> None:
    assert_same(case)


@pytest.mark.parametrize("wraps", [False, True])
def test_the_compiled_solve_gives_the_python_solution_on_the_bench_racks(wraps: bool) -> None:
    for i, (rack, okey) in enumerate(deal_racks(1000, 101)):
        key = tuple(sorted(rack))
        for joker_weight, unit in ((None, False), (101, False), (1, True)):
            assert_same((key, okey, wraps, joker_weight, unit), f"bench rack {i} (seed 101): ")


@settings(max_examples=300, derandomize=True, deadline=None)
@given(dealt())
def test_the_34_count_is_the_same_through_either_solve(case: Case) -> None:
    """The "34" count's branch and bound solves many sub-racks: each through the core."""
    rack, okey, wraps, _, _ = case
    solver._solve_sorted.cache_clear()
    got = solver.opening(rack, okey, wraps, "third")
    with mock.patch.object(solver, "_solve_sorted", solver._solve_reference):
        expected = solver.opening(rack, okey, wraps, "third")
    assert got == expected, f"rack={list(rack)} okey={okey} wraps={wraps}"


def test_an_okey_value_beyond_the_compiled_core_is_solved_in_python() -> None:
    rack = (0, 1, 2, 5, 5)
    huge = native.MAX_JOKER_WEIGHT + 1
    assert solver.arrange(rack, 5, False, huge) == solver._solve_reference(
        rack, 5, False, huge)
    with pytest.raises(ValueError, match="joker_weight"):
        core.solve(list(rack), 5, False, huge)


@pytest.mark.parametrize(("rack", "reason"), [
    ([0, 300], r"rack\[1\]: 300"), ([-1], r"rack\[0\]: -1"), ([7, 7, 7], r"rack\[2\]: a third"),
    ([1, 53], r"rack\[1\]: 53"),
])
def test_a_rack_the_compiled_solve_cannot_take_raises_malformed_input(
        rack: list[int], reason: str) -> None:
    assert native.solve is not None
    with pytest.raises(MalformedInput, match=reason):
        native.solve(rack, 5)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(st.one_of(st.integers(-300, 300), st.text(max_size=2), st.none(),
                          st.floats()), max_size=30), st.integers(-5, 60))
def test_the_compiled_solve_refuses_garbage_with_a_reason_and_never_crashes(
        rack: list[object], okey: int) -> None:
    assert native.solve is not None
    valid = (0 <= okey < tiles.FAKE
             and all(type(t) is int and 0 <= t <= tiles.FAKE for t in rack)
             and all(rack.count(t) <= 2 for t in rack))
    if valid:
        ints = tuple(sorted(t for t in rack if isinstance(t, int)))
        assert_same((ints, okey, False, None, False))
    else:
        with pytest.raises(MalformedInput):
            native.solve(rack, okey)  # type: ignore[arg-type]
