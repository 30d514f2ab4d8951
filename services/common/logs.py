"""JSON log lines for everything a service process logs: its own structlog events and the
libraries' stdlib `logging` records (aiokafka, asyncio, aiohttp) and `warnings`, so that no
library writes free text to the terminal."""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

import structlog

_SHARED: list[Any] = [
    structlog.processors.add_log_level,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]
# Libraries are heard from at WARNING and above; their INFO chatter (group joins,
# metadata updates) is for debugging: `--log-level debug` lets it through.
_LIBRARY_FLOOR = logging.WARNING


def configure_logging(level: str, stream: TextIO | None = None) -> None:
    """JSON lines to `stream` (default stdout) at `level` and above."""
    out = stream if stream is not None else sys.stdout
    threshold = logging.getLevelNamesMapping()[level.upper()]
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, *_SHARED,
                    structlog.processors.format_exc_info, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(threshold),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *_SHARED],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info,
                    structlog.processors.JSONRenderer()]))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(threshold if threshold <= logging.DEBUG else max(threshold, _LIBRARY_FLOOR))
    # warnings.warn (ResourceWarning...) as log records. Released first: captureWarnings(True)
    # is a no-op while an earlier capture is recorded, even after someone else (a test
    # harness's catch_warnings) has put its own showwarning back.
    logging.captureWarnings(False)
    logging.captureWarnings(True)
