"""okey101-timers (python -m services.timers): time out stalled seats.

Options: `okey101-timers --help` (every flag also reads OKEY_<NAME>; see
services/timers/settings.py).
"""

from __future__ import annotations

from services.common.runtime import run
from services.timers.app import Timers
from services.timers.settings import TimersSettings


def main() -> int:
    return run(TimersSettings, Timers.from_settings)


if __name__ == "__main__":
    raise SystemExit(main())
