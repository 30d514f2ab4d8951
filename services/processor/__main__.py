"""python -m services.processor — run the rules processor.

Environment: KAFKA_BOOTSTRAP (default 127.0.0.1:19092), OKEY_LOG_LEVEL (default info).
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
from services.processor.app import Processor


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
    processor = Processor(bootstrap_servers(args.bootstrap), prefix=args.prefix,
                          group=args.group, allow_stacked_deals=args.allow_stacked_deals,
                          instance_id=args.instance_id or os.environ.get("OKEY_INSTANCE_ID"),
                          linger=args.linger_ms / 1000)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, processor.stop)
    await processor.run()


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m services.processor", description=__doc__)
    parser.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
    parser.add_argument("--prefix", default="okey", help="topic name prefix")
    parser.add_argument("--group", default="okey-processor", help="consumer group")
    parser.add_argument("--instance-id", help="static group membership id (KIP-345): a "
                        "restarted instance takes its partitions back at once (or "
                        "OKEY_INSTANCE_ID)")
    parser.add_argument("--linger-ms", type=float, default=float(os.environ.get(
        "OKEY_LINGER_MS", "2")), help="wait this long for more commands before a "
        "transaction (fewer, larger transactions)")
    parser.add_argument("--metrics-port", type=int, default=9101,
                        help="Prometheus /metrics port (0: none)")
    parser.add_argument("--metrics-addr", default="127.0.0.1")
    parser.add_argument("--allow-stacked-deals", action="store_true",
                        help="accept client seeds and stacked deals (tests only)")
    args = parser.parse_args()
    configure_logging(os.environ.get("OKEY_LOG_LEVEL", "info"))
    if args.metrics_port:
        start_http_server(args.metrics_port, addr=args.metrics_addr)
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
