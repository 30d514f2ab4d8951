"""Library log records and warnings become the service's JSON lines, never free text."""

from __future__ import annotations

import io
import json
import logging
import warnings

import structlog

from services.common.logs import configure_logging


def test_library_warnings_and_the_services_own_events_are_json_lines() -> None:
    out = io.StringIO()
    configure_logging("info", out)
    try:
        structlog.get_logger("processor").info("processor_started", partitions=8)
        logging.getLogger("aiokafka.consumer").warning("Heartbeat failed for group %s", "g")
        logging.getLogger("aiokafka").info("chatter below the library floor")
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn("Unclosed AIOKafkaProducer", ResourceWarning, stacklevel=1)
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
    finally:
        configure_logging("info")
        logging.captureWarnings(False)
    assert [(x["event"].split("\n")[0][:40], x["level"]) for x in lines] == [
        ("processor_started", "info"),
        ("Heartbeat failed for group g", "warning"),
        (lines[2]["event"].split("\n")[0][:40], "warning"),
    ]
    assert lines[1]["logger"] == "aiokafka.consumer"
    assert "Unclosed AIOKafkaProducer" in lines[2]["event"] and lines[2]["logger"] == "py.warnings"
