"""python -m services.gateway — the WebSocket gateway and the browser table.

Environment: KAFKA_BOOTSTRAP (default 127.0.0.1:19092), OKEY_GATEWAY_SECRET (the HMAC key
tokens are signed with; required), OKEY_LOG_LEVEL (default info).
"""

from __future__ import annotations

import os
import sys

from services.common.kafka import bootstrap_servers
from services.common.runtime import parser, serve
from services.gateway.app import Gateway, Settings


def main() -> int:
    p = parser("services.gateway", __doc__, "okey-gateway", 9104)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=8100, help="HTTP/WebSocket port (0: any free)")
    p.add_argument("--guest-login", action="store_true",
                   help="let anyone get a token for a guest name (demos only)")
    p.add_argument("--frame-bytes", type=int, default=16 * 1024, help="largest client frame")
    p.add_argument("--commands-per-second", type=float, default=10.0)
    p.add_argument("--command-burst", type=int, default=20)
    p.add_argument("--connections-per-account", type=int, default=5)
    p.add_argument("--queued-messages", type=int, default=256,
                   help="frames queued for one client before it is dropped as too slow")
    p.add_argument("--send-buffer", type=int, default=128 * 1024,
                   help="kernel send buffer per socket (bytes): what a frozen client can hold")
    args = p.parse_args()
    secret = os.environ.get("OKEY_GATEWAY_SECRET", "")
    if len(secret) < 32:
        print("services.gateway: set OKEY_GATEWAY_SECRET to at least 32 characters (the key "
              "tokens are signed with)", file=sys.stderr)
        return 2
    settings = Settings(
        bootstrap=bootstrap_servers(args.bootstrap), secret=secret, prefix=args.prefix,
        host=args.host, port=args.port, guest_login=args.guest_login,
        frame_bytes=args.frame_bytes, commands_per_second=args.commands_per_second,
        command_burst=args.command_burst, connections_per_account=args.connections_per_account,
        queued_messages=args.queued_messages, send_buffer=args.send_buffer)
    return serve(args, lambda: Gateway(settings))


if __name__ == "__main__":
    raise SystemExit(main())
