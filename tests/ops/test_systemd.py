"""The systemd units: templates named by their metrics port, hardened, stopping within a
bound the processor's shutdown fits in, running flags the settings accept, and valid for
systemd itself (systemd-analyze verify, where it exists)."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from services.bots.settings import BotsSettings
from services.common.settings import ServiceSettings, load
from services.gateway.settings import GatewaySettings
from services.leaderboards.settings import LeaderboardsSettings
from services.processor import app as processor_app
from services.processor.settings import ProcessorSettings
from services.replays.settings import ReplaysSettings
from services.timers.settings import TimersSettings
from services.views.settings import ViewsSettings

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
SERVICES: dict[str, type[ServiceSettings]] = {
    "processor": ProcessorSettings, "timers": TimersSettings, "bots": BotsSettings,
    "leaderboards": LeaderboardsSettings, "replays": ReplaysSettings,
    "gateway": GatewaySettings, "views": ViewsSettings}
HARDENING = {"NoNewPrivileges": "yes", "ProtectSystem": "strict", "PrivateTmp": "yes",
             "ProtectHome": "yes", "PrivateDevices": "yes", "RestrictNamespaces": "yes",
             "CapabilityBoundingSet": "", "SystemCallFilter": None}


def unit(name: str) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string((UNITS / name).read_text())
    return parser


@pytest.mark.parametrize("service", SERVICES)
def test_each_service_is_a_template_named_by_its_metrics_port(service: str) -> None:
    assert not (UNITS / f"okey101-{service}.service").exists()
    exec_start = unit(f"okey101-{service}@.service")["Service"]["ExecStart"]
    assert "--metrics-port %i" in exec_start
    assert f"Wants=okey101-health@{service}-%i.timer" in \
        (UNITS / f"okey101-{service}@.service").read_text()


@pytest.mark.parametrize("service", SERVICES)
def test_each_unit_runs_a_console_script_with_flags_its_settings_accept(
        service: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKEY_GATEWAY_SECRET", "s" * 32)  # from the environment file
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    argv = shlex.split(unit(f"okey101-{service}@.service")["Service"]["ExecStart"]
                       .replace("%i", "9101").replace("%H", "host1"))
    assert argv[0] == f"/opt/okey101/venv/bin/okey101-{service}"
    assert f"okey101-{service}" in scripts
    settings = load(SERVICES[service], argv[1:])
    assert isinstance(settings, ServiceSettings), settings
    assert settings.metrics_port == 9101 and settings.metrics_addr == "0.0.0.0"


@pytest.mark.parametrize("service", SERVICES)
def test_each_unit_is_hardened_and_stops_with_sigterm(service: str) -> None:
    section = unit(f"okey101-{service}@.service")["Service"]
    for key, value in HARDENING.items():
        assert key in section, key
        if value is not None:
            assert section[key] == value, key
    assert section["KillSignal"] == "SIGTERM"
    assert section["User"] == "okey101"
    assert "okey101 health 127.0.0.1:%i" in section["ExecStartPost"]


def test_the_processor_may_finish_its_transactions_before_systemd_kills_it() -> None:
    stop = int(unit("okey101-processor@.service")["Service"]["TimeoutStopSec"])
    worst = processor_app.TRANSACTION_GRACE_S + 2 * processor_app.CLOSE_TIMEOUT_S
    assert stop >= worst + 10, (stop, worst)


@pytest.mark.parametrize("path", sorted(UNITS.iterdir()), ids=lambda p: p.name)
def test_each_units_comments_name_its_own_unit(path: Path) -> None:
    text = path.read_text()
    kind = path.name.split("@")[0]
    named = set(re.findall(r"(okey101-[a-z]+)@", "\n".join(
        line for line in text.splitlines() if line.startswith("#") and "enable" in line)))
    assert named <= {kind}, named


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_analyze_verify_finds_nothing_to_say(tmp_path: Path) -> None:
    venv = ROOT / ".venv" / "bin"
    instances = {"okey101-processor@.service": "okey101-processor@9101.service",
                 "okey101-timers@.service": "okey101-timers@9102.service",
                 "okey101-bots@.service": "okey101-bots@9103.service",
                 "okey101-leaderboards@.service": "okey101-leaderboards@9104.service",
                 "okey101-replays@.service": "okey101-replays@9105.service",
                 "okey101-gateway@.service": "okey101-gateway@9106.service",
                 "okey101-views@.service": "okey101-views@9108.service",
                 "okey101-health@.service": "okey101-health@processor-9101.service",
                 "okey101-health@.timer": "okey101-health@processor-9101.timer"}
    for template, instance in instances.items():
        text = (UNITS / template).read_text().replace("/opt/okey101/venv/bin", str(venv))
        text = text.replace("/opt/okey101/src", str(ROOT))
        (tmp_path / template).write_text(text)
        (tmp_path / instance).write_text(text)
    for instance in instances.values():
        done = subprocess.run(["systemd-analyze", "verify", "--man=no",
                               str(tmp_path / instance)], capture_output=True, text=True,
                              env={"SYSTEMD_UNIT_PATH": f"{tmp_path}:", "PATH": "/usr/bin:/bin"})
        said = [line for line in (done.stdout + done.stderr).splitlines()
                if str(tmp_path) in line]
        assert said == [], said
