"""The compiled core or the Python reference alone, for a benchmark's before and after in
one run: a process started with `python_core_env()` cannot import `okey101_native` (a
stand-in first on its PYTHONPATH raises ImportError, as on a checkout where the core is not
built), so `okey101.native`, `native_table` and `native_policy` fall back to Python."""

from __future__ import annotations

import os
from pathlib import Path

HIDDEN = Path(__file__).resolve().parent / "without_core"


def python_core_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (the environment by default) with the compiled core hidden."""
    env = dict(os.environ if base is None else base)
    return env | python_core_vars(env)


def python_core_vars(base: dict[str, str] | None = None) -> dict[str, str]:
    """The variables that hide the compiled core from a process started with `base`."""
    path = (os.environ if base is None else base).get("PYTHONPATH")
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(HIDDEN), path) if p)}


def core_in_use() -> str:
    """"native" where the compiled core is importable, else "python"."""
    try:
        import okey101_native  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return "python"
    return "native"
