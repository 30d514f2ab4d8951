"""python -m services.timers — time out stalled seats.

Follows the events topic, knows each table's turn deadline (the profile's turn time from
the event that started the turn) and sends the house's TimeOut command when it passes.

Environment: KAFKA_BOOTSTRAP (default 127.0.0.1:19092), OKEY_LOG_LEVEL (default info),
OKEY_INSTANCE_ID (static group membership).
"""

from __future__ import annotations

from services.common.kafka import bootstrap_servers
from services.common.runtime import instance_id_argument, parser, serve
from services.timers.app import Timers


def main() -> int:
    p = parser("services.timers", __doc__, "okey-timers", 9102)
    instance_id_argument(p)
    p.add_argument("--tick-ms", type=float, default=100,
                   help="how often due turns are looked for")
    args = p.parse_args()
    if args.tick_ms <= 0:
        p.error("--tick-ms must be positive")
    return serve(args, lambda: Timers(
        bootstrap_servers(args.bootstrap), prefix=args.prefix, group=args.group,
        tick=args.tick_ms / 1000, instance_id=args.instance_id))


if __name__ == "__main__":
    raise SystemExit(main())
