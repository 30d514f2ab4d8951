"""python -m services.replays — keep the table directory and serve replays over HTTP.

Folds the events topic into the compacted directory topic (`<prefix>.directory`: one entry
per table, with its events' partition and offsets) and answers replays over HTTP from
each table's offset range: the directory, a table's events as ndjson, the state at a step,
the hand history. Server visibility (the deal, other racks) needs --auditor.

Environment: KAFKA_BOOTSTRAP (default 127.0.0.1:19092), OKEY_LOG_LEVEL (default info),
OKEY_INSTANCE_ID (static group membership), OKEY_REPLAYS_AUDITOR=1 (the auditor flag).
"""

from __future__ import annotations

import os

from services.common.kafka import bootstrap_servers
from services.common.runtime import instance_id_argument, parser, serve
from services.replays.app import Replays


def main() -> int:
    p = parser("services.replays", __doc__, "okey-replays", 9105)
    instance_id_argument(p)
    p.add_argument("--http-host", default="127.0.0.1", help="the HTTP API's address")
    p.add_argument("--http-port", type=int, default=9180, help="the HTTP API's port")
    p.add_argument("--auditor", action="store_true",
                   default=os.environ.get("OKEY_REPLAYS_AUDITOR", "") in ("1", "true", "yes"),
                   help="serve server visibility (the deal, every rack, which seats are bots) "
                        "and seat views of live tables: for auditors only; off by default")
    p.add_argument("--readers", type=int, default=2, help="consumers for range reads")
    args = p.parse_args()
    if args.readers < 1:
        p.error("--readers must be at least 1")
    return serve(args, lambda: Replays(
        bootstrap_servers(args.bootstrap), prefix=args.prefix, group=args.group,
        host=args.http_host, port=args.http_port, auditor=args.auditor,
        instance_id=args.instance_id, readers=args.readers))


if __name__ == "__main__":
    raise SystemExit(main())
