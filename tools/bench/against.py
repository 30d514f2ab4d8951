"""Before and after in one run: a benchmark's `--json` figures from the code at a git
commit (its libs/, exported to a temporary folder) and from the working tree's, in
alternating rounds, so that a shared machine's drift moves both; the best of each. The
benchmark's own code (tools/) is the working tree's for both."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def best_of_rounds(module: str, args: list[str], ref: str, rounds: int,
                   better: Callable[[float, float], float] = max
                   ) -> dict[str, dict[str, float]]:
    """{"before": figures, "after": figures} of `python -m module --json *args`, each
    figure the `better` of its `rounds` (max for rates, min for times)."""
    with tempfile.TemporaryDirectory(prefix="okey-bench-") as tmp:
        archive = subprocess.run(["git", "archive", ref, "libs"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        libs = {"before": Path(tmp) / "libs", "after": ROOT / "libs"}
        best: dict[str, dict[str, float]] = {name: {} for name in libs}
        for _ in range(rounds):
            for name, path in libs.items():
                env = dict(os.environ, PYTHONPATH=f"{path}{os.pathsep}{ROOT}")
                out = subprocess.run([sys.executable, "-m", module, "--json", *args],
                                     cwd=ROOT, env=env, check=True, capture_output=True,
                                     text=True).stdout
                for key, value in json.loads(out.splitlines()[-1]).items():
                    kept = best[name].get(key)
                    best[name][key] = value if kept is None else better(kept, value)
    return best
