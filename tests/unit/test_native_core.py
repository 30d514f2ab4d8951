"""The compiled core (native/) is built into the test venv by `make test` and is the
tree's own: a test that skipped on a missing module would hide a broken build."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_compiled_core_is_built_from_this_tree() -> None:
    native = importlib.import_module("okey101_native")
    cargo = tomllib.loads((ROOT / "native" / "Cargo.toml").read_text())
    assert native.core_version() == cargo["package"]["version"]


def test_the_compiled_core_plays_a_hand() -> None:
    native = importlib.import_module("okey101_native")
    assert hasattr(native, "HandSim")
