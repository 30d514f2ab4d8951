"""The compiled solver's rack tests agree with the Python specification (okey101.solver).

The solve (the DP) has its own differential test: test_native_solve.py."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101 import solver, tiles

native = pytest.importorskip("okey101_native")

SET = tiles.full_set()


@st.composite
def racks(draw: st.DrawFn) -> tuple[list[int], int, bool]:
    size = draw(st.integers(0, 22))
    rack = draw(st.permutations(SET))[:size]
    indicator = draw(st.integers(0, tiles.FAKE - 1))
    return rack, tiles.okey_for(indicator), draw(st.booleans())


@settings(max_examples=3000, derandomize=True, deadline=None)
@given(racks(), st.integers(0, 2))
def test_native_rack_tests_match_the_python_solver(
        case: tuple[list[int], int, bool], extra: int) -> None:
    rack, okey, wraps = case
    where = f"rack={tiles.names(rack)} okey={tiles.name(okey)} wraps={wraps}"
    assert native.meldable(rack, okey, wraps) == solver.meldable_reference(
        rack, okey, wraps), where
    assert native.most_pairs(rack, okey, extra) == solver.most_pairs_reference(
        rack, okey, extra), where
    for tile in set(rack) - {okey}:
        expected = solver.holds_reference(rack, tile, okey, wraps)
        assert native.holds(rack, tile, okey, wraps) == expected, f"{where} {tiles.name(tile)}"


@settings(max_examples=500, derandomize=True, deadline=None)
@given(st.lists(st.one_of(st.integers(-300, 300), st.text(max_size=2), st.none(),
                          st.floats()), max_size=30), st.integers(-5, 60))
def test_native_rejects_a_rack_it_cannot_take_with_a_reason(
        rack: list[object], okey: int) -> None:
    valid = ( 0 <= okey < tiles.FAKE
             and all(type(t) is int and 0 <= t <= tiles.FAKE for t in rack)
             and all(rack.count(t) <= 2 for t in rack))
    if valid:
        assert native.most_pairs(rack, okey) == solver.most_pairs_reference(rack, okey)  # type: ignore[arg-type]
    else:
        with pytest.raises((ValueError, TypeError)):
            native.most_pairs(rack, okey)


@pytest.mark.parametrize(("rack", "reason"), [
    ([53], "rack[0]: 53"), ([0, -1], "rack[1]: -1"), ([300], "rack[0]: 300"),
    ([5, 5, 5], "rack[2]: a third copy"), ([4, 4, 53], "rack[2]: 53"),
])
def test_a_rack_the_native_core_cannot_take_names_the_tile(rack: list[int], reason: str) -> None:
    with pytest.raises(ValueError, match=reason.replace("[", r"\[").replace("]", r"\]")):
        native.meldable(rack, 0)
