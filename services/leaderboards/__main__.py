"""python -m services.leaderboards — every house's standings from the events topic.

Reads every events partition (read_committed) from the beginning, folds the finished
matches into each house's board (okey101.standings), writes every changed standing to the
compacted standings topic and serves the boards over HTTP (services/leaderboards/api.py).

Environment: KAFKA_BOOTSTRAP (default 127.0.0.1:19092), OKEY_LOG_LEVEL (default info).
"""

from __future__ import annotations

from services.common.kafka import bootstrap_servers
from services.common.runtime import parser, serve
from services.leaderboards.app import Leaderboards


def main() -> int:
    p = parser("services.leaderboards", __doc__, "okey-leaderboards", 9104)
    p.add_argument("--http-port", type=int, default=9110, help="the boards' HTTP port (0: none)")
    p.add_argument("--http-host", default="127.0.0.1")
    p.add_argument("--horizon", type=int, default=50_000,
                   help="how many recent matches a late match may be put before")
    args = p.parse_args()
    if args.horizon < 1:
        p.error("--horizon must be at least 1")
    return serve(args, lambda: Leaderboards(
        bootstrap_servers(args.bootstrap), prefix=args.prefix, http_host=args.http_host,
        http_port=args.http_port, horizon=args.horizon))


if __name__ == "__main__":
    raise SystemExit(main())
