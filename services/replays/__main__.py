"""okey101-replays (python -m services.replays): keep the table directory and serve
replays over HTTP.

Folds the events topic into the compacted directory topic (`<prefix>.directory`: one entry
per table, with its events' partition and offsets) and answers replays over HTTP from
each table's offset range: the directory, a table's events as ndjson, the state at a step,
the hand history. Server visibility (the deal, other racks) needs --auditor.

Options: `okey101-replays --help` (every flag also reads OKEY_<NAME>; --auditor also
OKEY_REPLAYS_AUDITOR; see services/replays/settings.py).
"""

from __future__ import annotations

from services.common.runtime import run
from services.replays.app import Replays
from services.replays.settings import ReplaysSettings


def main() -> int:
    return run(ReplaysSettings, Replays.from_settings)


if __name__ == "__main__":
    raise SystemExit(main())
