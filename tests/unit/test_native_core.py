"""The compiled core is built into the test venv (`make test` builds it) and answers."""

from okey101 import native, solver


def test_the_compiled_core_is_importable() -> None:
    import okey101_native
    assert okey101_native.core_version()
    assert native.core is okey101_native


def test_the_solver_answers_through_the_compiled_core() -> None:
    assert solver.most_pairs is native.most_pairs is not None
    assert solver.most_pairs([0, 0, 1], 40) == 1


def test_a_tile_kind_the_compiled_core_cannot_take_raises_malformed_input() -> None:
    import pytest

    from okey101.errors import MalformedInput
    with pytest.raises(MalformedInput, match=r"rack\[1\]: 300"):
        solver.meldable([0, 300], 5)
