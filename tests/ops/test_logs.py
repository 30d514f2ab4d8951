"""Library log records and warnings become the service's JSON lines, never free text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A service process from its start: logging configured, then its own event, a library's
# warning and chatter, and a Python warning. In a fresh interpreter, as every service runs
# (a test process's warning machinery has been through every earlier test's hands).
PROGRAM = """
import logging, warnings
import structlog
from services.common.logs import configure_logging
configure_logging("info")
structlog.get_logger("processor").info("processor_started", partitions=8)
logging.getLogger("aiokafka.consumer").warning("Heartbeat failed for group %s", "g")
logging.getLogger("aiokafka").info("chatter below the library floor")
warnings.simplefilter("always")
warnings.warn("Unclosed AIOKafkaProducer", ResourceWarning, stacklevel=1)
"""


def test_library_warnings_and_the_services_own_events_are_json_lines() -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(x["event"].split("\n")[0][:40], x["level"]) for x in lines] == [
        ("processor_started", "info"),
        ("Heartbeat failed for group g", "warning"),
        (lines[2]["event"].split("\n")[0][:40], "warning"),
    ]
    assert lines[1]["logger"] == "aiokafka.consumer"
    assert "Unclosed AIOKafkaProducer" in lines[2]["event"] and lines[2]["logger"] == "py.warnings"
