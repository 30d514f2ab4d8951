"""okey101-leaderboards (python -m services.leaderboards): every house's standings from
the events topic.

Reads every events partition (read_committed) from the beginning, folds the finished
matches into each house's board (okey101.standings), writes every changed standing to the
compacted standings topic and serves the boards over HTTP (services/leaderboards/api.py).

Options: `okey101-leaderboards --help` (every flag also reads OKEY_<NAME>; see
services/leaderboards/settings.py).
"""

from __future__ import annotations

from services.common.runtime import run
from services.leaderboards.app import Leaderboards
from services.leaderboards.settings import LeaderboardsSettings


def main() -> int:
    return run(LeaderboardsSettings, Leaderboards.from_settings)


if __name__ == "__main__":
    raise SystemExit(main())
