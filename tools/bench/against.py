"""Before and after in one run: a benchmark's `--json` figures from the code at a git
commit (its libs/, exported to a temporary folder) and from the working tree's, or from
the working tree with the Python reference alone (`PYTHON_CORE`: the compiled core hidden,
`tools.bench.cores`) and with the compiled core, in alternating rounds, so that a shared
machine's drift moves both; the best of each. The benchmark's own code (tools/) is the
working tree's for both."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from tools.bench.cores import python_core_env

PYTHON_CORE = "python-core"  # `ref` for the working tree without the compiled core
ROOT = Path(__file__).resolve().parents[2]


def best_of_rounds(module: str, args: list[str], ref: str, rounds: int,
                   better: Callable[[float, float], float] = max
                   ) -> dict[str, dict[str, float]]:
    """{"before": figures, "after": figures} of `python -m module --json *args`, each
    figure the `better` of its `rounds` (max for rates, min for times). `ref`: a git
    commit, or `PYTHON_CORE` (before: this tree with the Python reference alone)."""
    with tempfile.TemporaryDirectory(prefix="okey-bench-") as tmp:
        here = dict(os.environ, PYTHONPATH=f"{ROOT / 'libs'}{os.pathsep}{ROOT}")
        envs = {"before": python_core_env(here), "after": here}
        if ref != PYTHON_CORE:
            archive = subprocess.run(["git", "archive", ref, "libs"], cwd=ROOT, check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            envs["before"] = dict(os.environ,
                                  PYTHONPATH=f"{Path(tmp) / 'libs'}{os.pathsep}{ROOT}")
        best: dict[str, dict[str, float]] = {name: {} for name in envs}
        for _ in range(rounds):
            for name, env in envs.items():
                out = subprocess.run([sys.executable, "-m", module, "--json", *args],
                                     cwd=ROOT, env=env, check=True, capture_output=True,
                                     text=True).stdout
                for key, value in json.loads(out.splitlines()[-1]).items():
                    kept = best[name].get(key)
                    best[name][key] = value if kept is None else better(kept, value)
    return best
