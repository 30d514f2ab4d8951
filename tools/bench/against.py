"""Before and after in one run: a benchmark's `--json` figures from the code at a git
commit (its libs/, exported to a temporary folder) and from the working tree's, or from
the working tree with the Python reference alone (`PYTHON_CORE`: the compiled core hidden,
`tools.bench.cores`) and with the compiled core, in alternating rounds, so that a shared
machine's drift moves both; the best of each. The benchmark's own code (tools/) is the
working tree's for both. Where the commit's compiled core (native/) is not the working
tree's, it is built apart (cargo, into .cache/bench-native) and put first on the before's
path, so that each side runs its own core."""

from __future__ import annotations

import json
import os
import shutil
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
            paths = [Path(tmp) / "libs", ROOT]
            core = _core_of(ref, Path(tmp))
            if core is not None:
                paths.insert(0, core)
            envs["before"] = dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, paths)))
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


def _core_of(ref: str, tmp: Path) -> Path | None:
    """A folder holding `ref`'s compiled core (`okey101_native`), built from its native/,
    or None when its native/ is the working tree's (the installed core is both's)."""
    if subprocess.run(["git", "diff", "--quiet", ref, "--", "native"], cwd=ROOT).returncode == 0:
        return None
    archive = subprocess.run(["git", "archive", ref, "native"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
    target = ROOT / ".cache" / "bench-native"
    subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path",
                    str(tmp / "native" / "Cargo.toml")], check=True,
                   env=dict(os.environ, CARGO_TARGET_DIR=str(target)))
    core = tmp / "core"
    core.mkdir()
    shutil.copy(target / "release" / "libokey101_native.so", core / "okey101_native.abi3.so")
    return core
