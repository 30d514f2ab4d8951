"""One settings object per service: flags beat OKEY_* variables beat defaults, every bad
value is one line naming the flag and the variable, --help shows the defaults."""

from __future__ import annotations

import subprocess
import sys

import pytest

from services.bots.settings import BotsSettings
from services.common.settings import load
from services.processor.settings import ProcessorSettings
from services.timers.settings import TimersSettings
from tests.kafka.support import ROOT


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    for name in list(os.environ):
        if name.startswith("OKEY_") or name == "KAFKA_BOOTSTRAP":
            monkeypatch.delenv(name)


def test_the_defaults_are_each_services_own() -> None:
    processor, timers, bots = (load(ProcessorSettings, []), load(TimersSettings, []),
                               load(BotsSettings, []))
    assert isinstance(processor, ProcessorSettings)
    assert isinstance(timers, TimersSettings) and isinstance(bots, BotsSettings)
    assert (processor.metrics_port, timers.metrics_port, bots.metrics_port) == (9101, 9102, 9103)
    assert (processor.group, timers.group, bots.group) == ("okey-processor", "okey-timers",
                                                            "okey-bots")
    assert processor.bootstrap == "127.0.0.1:19092" and processor.linger_ms == 2.0


def test_a_flag_beats_a_variable_which_beats_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKEY_LINGER_MS", "7")
    monkeypatch.setenv("OKEY_LOG_LEVEL", "debug")
    got = load(ProcessorSettings, ["--linger-ms", "9"])
    assert isinstance(got, ProcessorSettings)
    assert (got.linger_ms, got.log_level) == (9.0, "debug")


def test_okey_bootstrap_beats_kafka_bootstrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_BOOTSTRAP", "k1:9092")
    got = load(TimersSettings, [])
    assert isinstance(got, TimersSettings) and got.bootstrap == "k1:9092"
    monkeypatch.setenv("OKEY_BOOTSTRAP", "o1:9092,o2:9092")
    got = load(TimersSettings, [])
    assert isinstance(got, TimersSettings) and got.bootstrap == "o1:9092,o2:9092"


def test_every_bad_value_is_one_line_naming_its_flag_and_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKEY_THINK_MS", "-5")
    got = load(BotsSettings, ["--level", "4", "--metrics-port", "70000", "--bootstrap", "nohost",
                              "--prefix", "a b"])
    assert isinstance(got, list)
    assert sorted(got) == sorted([
        "bad setting --bootstrap (OKEY_BOOTSTRAP or KAFKA_BOOTSTRAP) = 'nohost': expected "
        "host:port[,host:port...], not 'nohost'",
        "bad setting --prefix (OKEY_PREFIX) = 'a b': letters, digits, '.', '_' and '-' only",
        "bad setting --metrics-port (OKEY_METRICS_PORT) = '70000': Input should be less than "
        "or equal to 65535",
        "bad setting --level (OKEY_LEVEL) = '4': Input should be 1, 2 or 3",
        "bad setting --think-ms (OKEY_THINK_MS) = '-5': Input should be greater than or "
        "equal to 0",
    ])


def test_an_unknown_flag_is_one_line() -> None:
    assert load(TimersSettings, ["--tick", "5"]) == ["bad arguments: unrecognized arguments: "
                                                     "--tick 5"]


def test_a_bad_setting_at_start_is_one_line_on_stderr_and_exit_status_2() -> None:
    done = subprocess.run([sys.executable, "-m", "services.timers", "--tick-ms", "0"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "okey101-timers: bad setting --tick-ms (OKEY_TICK_MS) = '0': Input should be greater "
        "than 0"]


def test_help_shows_every_option_with_its_default_and_variable() -> None:
    done = subprocess.run([sys.executable, "-m", "services.processor", "--help"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert text.startswith("usage: okey101-processor")
    for shown in ("--linger-ms float", "[OKEY_LINGER_MS] (default: 2.0)",
                  "--metrics-port int", "(default: 9101)", "[OKEY_BOOTSTRAP or KAFKA_BOOTSTRAP]",
                  "(default: 127.0.0.1:19092)", "--allow-stacked-deals",
                  "[OKEY_INSTANCE_ID]"):
        assert shown in text, shown
