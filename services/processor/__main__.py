"""python -m services.processor — run the rules processor.

Environment: KAFKA_BOOTSTRAP (default 127.0.0.1:19092), OKEY_LOG_LEVEL (default info),
OKEY_INSTANCE_ID, OKEY_LINGER_MS.
"""

from __future__ import annotations

import os

from services.common.kafka import bootstrap_servers
from services.common.runtime import instance_id_argument, parser, serve
from services.processor.app import Processor


def main() -> int:
    p = parser("services.processor", __doc__, "okey-processor", 9101)
    instance_id_argument(p)
    p.add_argument("--linger-ms", type=float, default=float(os.environ.get(
        "OKEY_LINGER_MS", "2")), help="wait this long for more commands before a "
        "transaction (fewer, larger transactions)")
    p.add_argument("--allow-stacked-deals", action="store_true",
                   help="accept client seeds and stacked deals (tests only)")
    args = p.parse_args()
    return serve(args, lambda: Processor(
        bootstrap_servers(args.bootstrap), prefix=args.prefix, group=args.group,
        allow_stacked_deals=args.allow_stacked_deals, instance_id=args.instance_id,
        linger=args.linger_ms / 1000))


if __name__ == "__main__":
    raise SystemExit(main())
