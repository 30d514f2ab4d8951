"""okey101-gateway (python -m services.gateway): the WebSocket gateway and the browser
table.

Options: `okey101-gateway --help` (every flag also reads OKEY_<NAME>; the token key is
OKEY_GATEWAY_SECRET, required; see services/gateway/settings.py).
"""

from __future__ import annotations

from services.common.runtime import run
from services.gateway.app import Gateway
from services.gateway.settings import GatewaySettings


def main() -> int:
    return run(GatewaySettings, Gateway.from_settings)


if __name__ == "__main__":
    raise SystemExit(main())
