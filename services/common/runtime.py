"""What every service's entry point shares: arguments, JSON logs, metrics, signals."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
from collections.abc import Callable
from typing import Protocol

import structlog
from prometheus_client import start_http_server


class Service(Protocol):
    async def run(self) -> None: ...

    def stop(self) -> None: ...


def parser(prog: str, doc: str | None, group: str, metrics_port: int) -> argparse.ArgumentParser:
    """An argument parser with the options every service takes."""
    p = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
    p.add_argument("--prefix", default="okey", help="topic name prefix")
    p.add_argument("--group", default=group, help="consumer group")
    p.add_argument("--metrics-port", type=int, default=metrics_port,
                   help="Prometheus /metrics port (0: none)")
    p.add_argument("--metrics-addr", default="127.0.0.1")
    return p


def instance_id_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--instance-id", default=os.environ.get("OKEY_INSTANCE_ID"),
                   help="static group membership id (KIP-345): a restarted instance takes "
                        "its partitions back at once (or OKEY_INSTANCE_ID)")


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


def serve(args: argparse.Namespace, build: Callable[[], Service]) -> int:
    """JSON logs, the metrics endpoint, then the service until SIGTERM or SIGINT."""
    configure_logging(os.environ.get("OKEY_LOG_LEVEL", "info"))
    if args.metrics_port:
        start_http_server(args.metrics_port, addr=args.metrics_addr)

    async def main() -> None:
        service = build()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, service.stop)
        await service.run()

    asyncio.run(main())
    return 0
