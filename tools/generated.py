"""Write generated files into their folder, or (`check`) fail when the committed ones are
stale: the one loop behind `make proto` / `proto-check` (tools.gen_proto) and `make
kubernetes` / `kubernetes-check` (tools.gen_kubernetes)."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Mapping
from pathlib import Path


def sync(
    files: Mapping[str, str], folder: Path, check: bool, hint: str, source: str = "from the code"
) -> int:
    """`files` (a path under `folder` -> its text) written into `folder` (only those that
    differ), or with `check` nothing written: each stale file's diff on stderr, then
    `hint` (the command that regenerates them), and 1. The exit status."""
    stale = []
    for name, text in files.items():
        path = folder / name
        current = path.read_text() if path.exists() else ""
        if current == text:
            continue
        if check:
            stale.append(name)
            diff = difflib.unified_diff(
                current.splitlines(),
                text.splitlines(),
                f"{path} (committed)",
                f"{path} ({source})",
                lineterm="",
                n=1,
            )
            print("\n".join(list(diff)[:40]), file=sys.stderr)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print(f"{folder} is stale ({', '.join(stale)}): {hint}", file=sys.stderr)
        return 1
    return 0
