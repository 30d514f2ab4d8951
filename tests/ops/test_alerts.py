"""The alerting rules are valid, every alert is unit-tested by `promtool test rules` both
firing and quiet, and every alert has a severity and a runbook section."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
RULE_FILES = [PROMETHEUS / "recording.yml", PROMETHEUS / "alerts.yml"]
TESTS = sorted((PROMETHEUS / "tests").glob("*.yml"))
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool (Debian package "
                                    "prometheus) is missing; `make test` installs it")


def alerts() -> dict[str, dict]:  # type: ignore[type-arg]
    doc = yaml.safe_load((PROMETHEUS / "alerts.yml").read_text())
    return {rule["alert"]: rule for group in doc["groups"] for rule in group["rules"]}


def alert_cases() -> list[dict]:  # type: ignore[type-arg]
    return [case for path in TESTS for test in yaml.safe_load(path.read_text())["tests"]
            for case in test.get("alert_rule_test", [])]


def _promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, cwd=PROMETHEUS)


@needs_promtool
def test_promtool_checks_the_rules() -> None:
    done = _promtool("check", "rules", *map(str, RULE_FILES))
    assert done.returncode == 0, done.stdout + done.stderr


@needs_promtool
def test_promtool_checks_the_deploy_configuration() -> None:
    done = _promtool("check", "config", str(PROMETHEUS / "prometheus.yml"))
    assert done.returncode == 0, done.stdout + done.stderr


@needs_promtool
def test_the_alert_unit_tests_pass() -> None:
    assert TESTS
    done = _promtool("test", "rules", *map(str, TESTS))
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_alert_has_a_case_where_it_fires_and_one_where_it_does_not() -> None:
    cases = alert_cases()
    fires = {c["alertname"] for c in cases if c.get("exp_alerts")}
    quiet = {c["alertname"] for c in cases if not c.get("exp_alerts")}
    assert set(alerts()) - fires == set(), "alerts never shown firing"
    assert set(alerts()) - quiet == set(), "alerts never shown quiet"
    assert {c["alertname"] for c in cases} <= set(alerts()), "tests of unknown alerts"


def test_every_alert_has_a_severity_and_a_summary() -> None:
    for name, rule in alerts().items():
        assert rule.get("labels", {}).get("severity") in ("critical", "warning"), name
        assert rule.get("annotations", {}).get("summary"), name


def test_every_alert_links_its_runbook_section_in_deploy_readme() -> None:
    readme = (ROOT / "deploy" / "README.md").read_text()
    anchors = {re.sub(r"[^a-z0-9 -]", "", h.strip().lower()).replace(" ", "-")
               for h in re.findall(r"^#+ (.+)$", readme, flags=re.M)}
    for name, rule in alerts().items():
        url = rule["annotations"].get("runbook_url", "")
        assert url == f"deploy/README.md#{name.lower()}", name
        assert name.lower() in anchors, f"deploy/README.md has no section '{name}'"


def test_the_burn_rate_alerts_pair_a_long_and_a_short_window_at_14_4x_and_6x() -> None:
    rules = alerts()
    for slo, budget in (("Error", "0.001"), ("Latency", "0.01")):
        fast = " ".join(rules[f"Command{slo}BudgetBurnFast"]["expr"].split())
        slow = " ".join(rules[f"Command{slo}BudgetBurnSlow"]["expr"].split())
        assert "ratio_rate1h >" in fast and "ratio_rate5m >" in fast
        assert fast.count(f"(14.4 * {budget})") == 2
        assert "ratio_rate6h >" in slow and "ratio_rate30m >" in slow
        assert slow.count(f"(6 * {budget})") == 2
