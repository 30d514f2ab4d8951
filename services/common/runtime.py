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
from aiokafka.errors import KafkaError
from prometheus_client import start_http_server

from okey101.errors import InfrastructureFault, MalformedInput
from services.common.kafka import KafkaClientLog, fault_text

log = structlog.get_logger("service")


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


def _client_record(record: logging.LogRecord) -> None:
    """The Kafka client's own warnings, as JSON lines like ours."""
    structlog.get_logger(record.name).log(record.levelno, "kafka_client",
                                          message=record.getMessage())


def serve(args: argparse.Namespace, build: Callable[[], Service]) -> int:
    """JSON logs, the metrics endpoint, then the service until SIGTERM or SIGINT. A bad
    setting (exit 2) or a broker that cannot be used (exit 1) ends it with one line."""
    configure_logging(os.environ.get("OKEY_LOG_LEVEL", "info"))
    client_log = KafkaClientLog(forward=_client_record)
    logging.getLogger("aiokafka").addHandler(client_log)
    if args.metrics_port:
        start_http_server(args.metrics_port, addr=args.metrics_addr)

    async def main() -> None:
        service = build()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, service.stop)
        await service.run()

    try:
        asyncio.run(main())
    except MalformedInput as exc:
        log.error("service_failed", error=str(exc))
        return 2
    except (KafkaError, InfrastructureFault, OSError) as exc:
        log.error("service_failed", error=fault_text(exc),
                  cause=client_log.last_error or None,
                  kafka_user=os.environ.get("OKEY_KAFKA_USERNAME") or None)
        return 1
    return 0
