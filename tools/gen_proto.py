"""Generate proto/ (the published wire contract) from the msgspec structs.

`python -m tools.gen_proto proto` writes the JSON Schemas; `--check` fails when proto/ is
stale, so CI catches a struct change that was not published.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from okey101 import profiles


def schemas() -> dict[str, Any]:
    """File name -> JSON Schema, for every published type."""
    out: dict[str, Any] = {
        "profile.schema.json": msgspec.json.schema(profiles.Profile),
        "houses.json": {name: msgspec.to_builtins(p) for name, p in profiles.HOUSES.items()},
    }
    try:
        from okey101.table import messages
    except ImportError:
        return out
    out.update(messages.published_schemas())
    from okey101.table import views
    out["view-update.schema.json"] = msgspec.json.schema(views.ViewUpdate)
    from okey101.standings import board, house
    out["standing.schema.json"] = msgspec.json.schema(board.Standing)
    out["standings-houses.json"] = house.published()
    from okey101.app import directory, replay
    out["directory-entry.schema.json"] = msgspec.json.schema(directory.TableEntry)
    out["directory-public-entry.schema.json"] = msgspec.json.schema(directory.PublicEntry)
    out["replay-step.schema.json"] = msgspec.json.schema(replay.ReplayStep)
    return out


def render(doc: Any) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--check", action="store_true", help="fail if the folder is stale")
    args = parser.parse_args()
    stale = []
    for name, doc in schemas().items():
        path = args.folder / name
        text = render(doc)
        current = path.read_text() if path.exists() else ""
        if current == text:
            continue
        if args.check:
            stale.append(name)
            diff = difflib.unified_diff(current.splitlines(), text.splitlines(),
                                        f"{path} (committed)", f"{path} (from structs)",
                                        lineterm="", n=1)
            print("\n".join(list(diff)[:40]), file=sys.stderr)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print(f"proto/ is stale ({', '.join(stale)}): run `make proto` and commit",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
