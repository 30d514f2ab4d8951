"""okey101-views (python -m services.views): project the events into the player views.

Options: `okey101-views --help` (every flag also reads OKEY_<NAME>; see
services/views/settings.py).
"""

from __future__ import annotations

from services.common.runtime import run
from services.views.app import ViewsService
from services.views.settings import ViewsSettings


def main() -> int:
    return run(ViewsSettings, ViewsService.from_settings)


if __name__ == "__main__":
    raise SystemExit(main())
