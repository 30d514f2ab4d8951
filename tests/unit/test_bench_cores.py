"""tools.bench.cores: a process started with `python_core_env()` runs the Python reference
alone (the "before" of the native engine's benchmarks)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tools.bench.against import ROOT
from tools.bench.cores import core_in_use, python_core_env

ASK = ("from okey101 import native, solver; from tools.bench.cores import core_in_use; "
       "print(core_in_use(), native.solve is None, solver.meldable.__name__)")


def answer(env: dict[str, str] | None) -> str:
    return subprocess.run([sys.executable, "-c", ASK], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_a_process_with_the_core_hidden_answers_with_the_python_solver() -> None:
    assert answer(python_core_env()) == "python True meldable_reference"


def test_a_process_without_the_stand_in_uses_the_compiled_core() -> None:
    if core_in_use() != "native":
        pytest.skip("the compiled core is not built here")
    assert answer(None) == "native False call"
