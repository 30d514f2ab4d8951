"""okey101-auditor (python -m services.auditor): verify every hand, find collusion.

Options: `okey101-auditor --help` (every flag also reads OKEY_<NAME>; see
services/auditor/settings.py).
"""

from __future__ import annotations

from services.auditor.app import AuditorService
from services.auditor.settings import AuditorSettings
from services.common.runtime import run


def main() -> int:
    return run(AuditorSettings, AuditorService.from_settings)


if __name__ == "__main__":
    raise SystemExit(main())
