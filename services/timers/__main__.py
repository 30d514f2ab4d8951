"""python -m services.timers — time out stalled seats.

Follows the events topic, knows each table's turn deadline (the profile's turn time from
the event that started the turn) and sends the house's TimeOut command when it passes.

Environment: KAFKA_BOOTSTRAP (default 127.0.0.1:19092), OKEY_LOG_LEVEL (default info),
OKEY_INSTANCE_ID (static group membership).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal

import structlog
from prometheus_client import start_http_server

from services.common.kafka import bootstrap_servers
from services.timers.app import Timers


def configure_logging(level: str) -> None:
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]),
    )


async def main_async(args: argparse.Namespace) -> None:
    timers = Timers(bootstrap_servers(args.bootstrap), prefix=args.prefix, group=args.group,
                    tick=args.tick_ms / 1000,
                    instance_id=args.instance_id or os.environ.get("OKEY_INSTANCE_ID"))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, timers.stop)
    await timers.run()


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m services.timers", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
    parser.add_argument("--prefix", default="okey", help="topic name prefix")
    parser.add_argument("--group", default="okey-timers", help="consumer group")
    parser.add_argument("--instance-id", help="static group membership id (KIP-345): a "
                        "restarted instance takes its partitions back at once (or "
                        "OKEY_INSTANCE_ID)")
    parser.add_argument("--tick-ms", type=float, default=100,
                        help="how often due turns are looked for")
    parser.add_argument("--metrics-port", type=int, default=9102,
                        help="Prometheus /metrics port (0: none)")
    parser.add_argument("--metrics-addr", default="127.0.0.1")
    args = parser.parse_args()
    if args.tick_ms <= 0:
        parser.error("--tick-ms must be positive")
    configure_logging(os.environ.get("OKEY_LOG_LEVEL", "info"))
    if args.metrics_port:
        start_http_server(args.metrics_port, addr=args.metrics_addr)
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
