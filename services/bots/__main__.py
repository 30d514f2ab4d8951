"""python -m services.bots — run the bots (they play the bot seats from their views).

Environment: KAFKA_BOOTSTRAP (default 127.0.0.1:19092), OKEY_LOG_LEVEL (default info).
"""

from __future__ import annotations

from services.bots.app import Bots
from services.common.kafka import bootstrap_servers
from services.common.runtime import parser, serve


def main() -> int:
    p = parser("services.bots", __doc__, "okey-bots", 9103)
    p.add_argument("--level", type=int, choices=(1, 2, 3), default=2,
                   help="level of the bots this service seats")
    p.add_argument("--think-ms", type=float, default=0, help="pause before each move")
    p.add_argument("--no-fill", action="store_true", help="do not fill empty seats")
    args = p.parse_args()
    return serve(args, lambda: Bots(
        bootstrap_servers(args.bootstrap), prefix=args.prefix, group=args.group,
        level=args.level, think=args.think_ms / 1000, fill_seats=not args.no_fill))


if __name__ == "__main__":
    raise SystemExit(main())
