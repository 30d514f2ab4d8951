"""One settings object per service: flags beat OKEY_* variables beat defaults, every bad
value is one line naming the flag and the variable, --help shows the defaults."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from services.bots.settings import BotsSettings
from services.common.kafka import bootstrap_servers
from services.common.settings import load
from services.gateway.settings import GatewaySettings
from services.leaderboards.settings import LeaderboardsSettings
from services.processor.settings import ProcessorSettings
from services.replays.settings import ReplaysSettings
from services.timers.settings import TimersSettings
from tests.kafka.support import ROOT


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    for name in list(os.environ):
        if name.startswith("OKEY_") or name in ("KAFKA_BOOTSTRAP", "KAFKA_PORT"):
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


def test_kafka_port_alone_is_the_local_broker_and_kafka_bootstrap_beats_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_PORT", "29092")
    got = load(TimersSettings, [])
    assert isinstance(got, TimersSettings) and got.bootstrap == "127.0.0.1:29092"
    monkeypatch.setenv("KAFKA_BOOTSTRAP", "k1:9092")
    got = load(TimersSettings, [])
    assert isinstance(got, TimersSettings) and got.bootstrap == "k1:9092"


def test_every_bad_value_is_one_line_naming_its_flag_and_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKEY_THINK_MS", "-5")
    got = load(BotsSettings, ["--level", "5", "--metrics-port", "70000", "--bootstrap", "nohost",
                              "--prefix", "a b"])
    assert isinstance(got, list)
    assert sorted(got) == sorted([
        "bad setting --bootstrap (OKEY_BOOTSTRAP or KAFKA_BOOTSTRAP) = 'nohost': expected "
        "host:port[,host:port...], not 'nohost'",
        "bad setting --prefix (OKEY_PREFIX) = 'a b': letters, digits, '.', '_' and '-' only",
        "bad setting --metrics-port (OKEY_METRICS_PORT) = '70000': Input should be less than "
        "or equal to 65535",
        "bad setting --level (OKEY_LEVEL) = '5': Input should be 1, 2, 3 or 4",
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


def test_the_later_services_have_their_own_defaults_and_distinct_ports(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKEY_GATEWAY_SECRET", "s" * 32)
    boards, replays, gateway = (load(LeaderboardsSettings, []), load(ReplaysSettings, []),
                                load(GatewaySettings, []))
    assert isinstance(boards, LeaderboardsSettings) and isinstance(replays, ReplaysSettings)
    assert isinstance(gateway, GatewaySettings)
    assert (boards.metrics_port, replays.metrics_port, gateway.metrics_port) == (9104, 9105,
                                                                                 9106)
    assert (boards.http_port, replays.http_port, gateway.port) == (9110, 9180, 8100)
    assert (boards.horizon, replays.readers, replays.auditor, gateway.guest_login) == \
        (50_000, 2, False, False)
    assert replays.group == "okey-replays"


@pytest.mark.parametrize(("settings", "argv"), [
    (LeaderboardsSettings, ["--prefix", "p", "--metrics-port", "0", "--http-port", "9999",
                            "--http-host", "0.0.0.0", "--horizon", "10"]),
    (ReplaysSettings, ["--prefix", "p", "--metrics-port", "0", "--http-port", "9998",
                       "--instance-id", "replays", "--http-host", "0.0.0.0", "--auditor",
                       "--readers", "3"]),
    (GatewaySettings, ["--prefix", "p", "--metrics-port", "0", "--port", "0", "--host",
                       "0.0.0.0", "--guest-login", "--frame-bytes", "2048",
                       "--queued-messages", "8", "--commands-per-second", "5",
                       "--command-burst", "5", "--connections-per-account", "3",
                       "--send-buffer", "4096"]),
])
def test_the_flags_the_demo_tests_and_units_pass_stay_valid(
        settings: type[LeaderboardsSettings | ReplaysSettings | GatewaySettings],
        argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKEY_GATEWAY_SECRET", "s" * 32)
    got = load(settings, argv)
    assert isinstance(got, settings), got
    assert got.prefix == "p" and got.metrics_port == 0


def test_the_replays_auditor_flag_still_reads_its_older_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKEY_REPLAYS_AUDITOR", "1")
    got = load(ReplaysSettings, [])
    assert isinstance(got, ReplaysSettings) and got.auditor
    assert load(ReplaysSettings, ["--no-auditor"]) == got.model_copy(update={"auditor": False})


def test_later_services_bad_values_are_one_line_each_and_a_secret_is_not_repeated(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKEY_GATEWAY_SECRET", "too-short-secret")
    assert load(GatewaySettings, ["--port", "-1"]) == [
        "bad setting --port (OKEY_PORT) = '-1': Input should be greater than or equal to 0",
        "bad setting --gateway-secret (OKEY_GATEWAY_SECRET) = (hidden): set "
        "OKEY_GATEWAY_SECRET to at least 32 characters (the key tokens are signed with)"]
    assert load(LeaderboardsSettings, ["--horizon", "0"]) == [
        "bad setting --horizon (OKEY_HORIZON) = '0': Input should be greater than or equal "
        "to 1"]
    monkeypatch.setenv("OKEY_REPLAYS_AUDITOR", "maybe")
    assert load(ReplaysSettings, ["--readers", "0"]) == [
        "bad setting --auditor (OKEY_AUDITOR or OKEY_REPLAYS_AUDITOR) = 'maybe': Input "
        "should be a valid boolean, unable to interpret input",
        "bad setting --readers (OKEY_READERS) = '0': Input should be greater than or equal "
        "to 1"]


@pytest.mark.parametrize("service", ["leaderboards", "replays", "gateway"])
def test_a_later_service_with_a_bad_setting_says_so_in_one_line(service: str) -> None:
    import os
    env = {k: v for k, v in os.environ.items() if k != "OKEY_GATEWAY_SECRET"}
    done = subprocess.run([sys.executable, "-m", f"services.{service}", "--metrics-port",
                           "-5"], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          env=dict(env, OKEY_GATEWAY_SECRET="s" * 32))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"okey101-{service}: bad setting --metrics-port (OKEY_METRICS_PORT) = '-5': Input "
        "should be greater than or equal to 0"]


@pytest.mark.parametrize("service", ["leaderboards", "replays", "gateway"])
def test_a_later_services_help_shows_its_defaults(service: str) -> None:
    done = subprocess.run([sys.executable, "-m", f"services.{service}", "--help"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert text.startswith(f"usage: okey101-{service}")
    port = {"leaderboards": "9104", "replays": "9105", "gateway": "9106"}[service]
    assert f"[OKEY_METRICS_PORT] (default: {port})" in text


@pytest.mark.parametrize("named", [{"KAFKA_PORT": "29092"},
                                   {"KAFKA_PORT": "29092", "KAFKA_BOOTSTRAP": "k1:9092"},
                                   {}])
def test_the_script_the_services_and_the_tools_name_one_broker_whichever_variable_is_set(
        monkeypatch: pytest.MonkeyPatch, named: dict[str, str]) -> None:
    for name, value in named.items():
        monkeypatch.setenv(name, value)
    script = ROOT / "tools" / "kafka" / "broker.sh"
    printed = subprocess.run(["bash", str(script), "bootstrap"], capture_output=True,
                             text=True, check=True, env=dict(os.environ)).stdout.strip()
    settings = load(ProcessorSettings, [])
    assert isinstance(settings, ProcessorSettings)
    # the script (the demo's and the tests' broker), the services' settings, the tools'
    assert printed == settings.bootstrap == bootstrap_servers()
    assert printed == named.get("KAFKA_BOOTSTRAP", f"127.0.0.1:{named.get('KAFKA_PORT', 19092)}")
