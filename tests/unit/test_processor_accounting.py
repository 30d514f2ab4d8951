"""The processor's accounting of each decided command (`services.processor.app._account`):
every command is counted; an accepted one is logged only at debug level (no logger is
bound for it otherwise: it was a tenth of the processor's per-command cost outside the
rules), a rejected or duplicate one always, with its table, command and offset."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
import structlog
from structlog.testing import capture_logs

from okey101.app.processor.processing import Output
from okey101.table import messages as E
from services.processor import metrics
from services.processor.app import _account

DRAW = E.Draw(table_id="t1", command_id="c1", player_id="p", seat=0, seq=7)
RECORD = SimpleNamespace(offset=42, timestamp=0)


@pytest.fixture(autouse=True)
def every_level_logged() -> Iterator[None]:
    """A debug line reaches the capture whatever an earlier test configured (a filtering
    logger at INFO drops it before any processor)."""
    saved = structlog.get_config()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    yield
    structlog.configure(**saved)


def _accepted() -> Output:
    return Output(command=DRAW, outcome=E.Outcome(table_id="t1", command_id="c1",
                                                  accepted=True, seqs=[8]))


def _count(result: str) -> float:
    value = metrics.COMMANDS.labels("draw", result)._value.get()
    return float(value)


@pytest.mark.parametrize("debug", [False, True])
def test_an_accepted_command_is_counted_and_logged_only_at_debug(debug: bool) -> None:
    before = _count("accepted")
    with capture_logs() as logs:
        _account(3, RECORD, _accepted(), 0.0, {}, debug)
    assert _count("accepted") == before + 1
    lines = [e for e in logs if e["event"] == "command_accepted"]
    if debug:
        assert lines == [{"event": "command_accepted", "log_level": "debug",
                          "table_id": "t1", "command_id": "c1", "seq": 7, "partition": 3,
                          "offset": 42, "seqs": [8]}]
    else:
        assert lines == []


def test_a_rejected_command_is_logged_with_its_code_whatever_the_level() -> None:
    out = Output(command=DRAW, outcome=E.Outcome(
        table_id="t1", command_id="c1", accepted=False, code="not_your_turn",
        message="seat 0 cannot draw: it is seat 2's turn"))
    before = _count("rejected")
    with capture_logs() as logs:
        _account(3, RECORD, out, 0.0, {}, False)
    assert _count("rejected") == before + 1
    (line,) = [e for e in logs if e["event"] == "command_rejected"]
    assert (line["table_id"], line["offset"], line["code"]) == ("t1", 42, "not_your_turn")


def test_a_duplicate_is_counted_as_one_and_logged() -> None:
    out = Output(command=DRAW, outcome=E.Outcome(table_id="t1", command_id="c1",
                                                 accepted=True, seqs=[8], duplicate=True))
    before = (_count("duplicate"), _count("accepted"))
    with capture_logs() as logs:
        _account(3, RECORD, out, 0.0, {}, False)
    assert (_count("duplicate"), _count("accepted")) == (before[0] + 1, before[1])
    assert [e["event"] for e in logs] == ["duplicate_command"]
