"""okey101-bots (python -m services.bots): the bots play the bot seats from their views.

Options: `okey101-bots --help` (every flag also reads OKEY_<NAME>; see
services/bots/settings.py).
"""

from __future__ import annotations

from services.bots.app import Bots
from services.bots.settings import BotsSettings
from services.common.runtime import run


def main() -> int:
    return run(BotsSettings, Bots.from_settings)


if __name__ == "__main__":
    raise SystemExit(main())
