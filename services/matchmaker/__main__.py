"""okey101-matchmaker (python -m services.matchmaker): halls, quick play and tournaments.

Options: `okey101-matchmaker --help` (every flag also reads OKEY_<NAME>; see
services/matchmaker/settings.py).
"""

from __future__ import annotations

from services.common.runtime import run
from services.matchmaker.app import Matchmaker
from services.matchmaker.settings import MatchmakerSettings


def main() -> int:
    return run(MatchmakerSettings, Matchmaker.from_settings)


if __name__ == "__main__":
    raise SystemExit(main())
