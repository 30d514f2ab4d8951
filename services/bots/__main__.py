"""python -m services.bots — run the bots (they play the bot seats from their views).

Environment: KAFKA_BOOTSTRAP (default 127.0.0.1:19092), OKEY_LOG_LEVEL (default info).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal

from prometheus_client import start_http_server

from services.bots.app import Bots
from services.common.kafka import bootstrap_servers
from services.processor.__main__ import configure_logging


async def main_async(args: argparse.Namespace) -> None:
    service = Bots(bootstrap_servers(args.bootstrap), prefix=args.prefix, group=args.group,
                   level=args.level, think=args.think_ms / 1000,
                   fill_seats=not args.no_fill)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, service.stop)
    await service.run()


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m services.bots", description=__doc__)
    parser.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
    parser.add_argument("--prefix", default="okey", help="topic name prefix")
    parser.add_argument("--group", default="okey-bots", help="consumer group")
    parser.add_argument("--level", type=int, choices=(1, 2, 3), default=2,
                        help="level of the bots this service seats")
    parser.add_argument("--think-ms", type=float, default=0, help="pause before each move")
    parser.add_argument("--no-fill", action="store_true", help="do not fill empty seats")
    parser.add_argument("--metrics-port", type=int, default=9103)
    parser.add_argument("--metrics-addr", default="127.0.0.1")
    args = parser.parse_args()
    configure_logging(os.environ.get("OKEY_LOG_LEVEL", "info"))
    if args.metrics_port:
        start_http_server(args.metrics_port, addr=args.metrics_addr)
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
