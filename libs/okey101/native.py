"""The compiled core (`okey101_native`, built from native/) when it is importable.

`okey101.solver` uses these in place of its Python functions, which stay the specification
(`tests/properties/test_native_solver.py` checks that the two agree). Each is None when the
module is not built. A rack the compiled core cannot take raises MalformedInput, the reason
naming the input and position."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast

from okey101.errors import MalformedInput
from okey101.melds import MeldKind

try:
    import okey101_native as core  # type: ignore[import-untyped]
except ImportError:  # not built (a checkout without `make`): the Python solver answers
    core = None


def _checked(function: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except (ValueError, TypeError) as error:
            raise MalformedInput(f"{function.__name__}: {error}") from None
    return call


def _native(name: str) -> Callable[..., Any] | None:
    found = getattr(core, name, None) if core is not None else None
    return _checked(found) if found is not None else None


class Meldable(Protocol):
    def __call__(self, rack: Sequence[int], okey: int, wraps: bool = False
                 ) -> tuple[int, int]: ...


class Holds(Protocol):
    def __call__(self, rack: Sequence[int], tile: int, okey: int, wraps: bool = False
                 ) -> bool: ...


class MostPairs(Protocol):
    def __call__(self, rack: Sequence[int], okey: int, extra_jokers: int = 0) -> int: ...


# (value, melds as (kind, [(played, stands for)], first run position or 0), leftover)
NativeSolution = tuple[int, list[tuple[MeldKind, list[tuple[int, int]], int]], list[int]]


class Solve(Protocol):
    def __call__(self, rack: Sequence[int], okey: int, wraps: bool = False,
                 joker_weight: int | None = None, unit: bool = False) -> NativeSolution: ...


meldable = cast("Meldable | None", _native("meldable"))
holds = cast("Holds | None", _native("holds"))
most_pairs = cast("MostPairs | None", _native("most_pairs"))
# The native solve packs each value in 20 bits: a larger okey value goes to the Python solve.
MAX_JOKER_WEIGHT: int = getattr(core, "MAX_JOKER_WEIGHT", 0)
solve = cast("Solve | None", _native("solve"))
# A table's views as changes, each change's records built (native/src/views.rs), for
# `okey101.table.viewparts.NativeTableParts`; it raises ValueError naming what it cannot take.
TableChanges: Any = getattr(core, "TableChanges", None) if core is not None else None
