"""Every PromQL expression of every dashboard panel and every rule, evaluated by a real
Prometheus against the real services under the demo's load: no expression errors, and no
metric name the services do not expose."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.kafka.support import ROOT, TAGS
from tools.dashboards.boards import BOARDS
from tools.dashboards.grafana import evaluable
from tools.dashboards.live import DEMO_JOBS, RATE_INTERVAL, RealRun, real_run
from tools.dashboards.promql import metric_names
from tools.dashboards.render import board_png

pytestmark = pytest.mark.skipif(shutil.which("prometheus") is None,
                                reason="the prometheus package is missing")
RULE_FILES = [ROOT / "deploy" / "prometheus" / name for name in ("recording.yml", "alerts.yml")]
_SUFFIXES = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_count", "_sum",
                                                               "_created"),
             "gauge": ("",), "summary": ("", "_count", "_sum", "_created"), "info": ("_info",)}


@pytest.fixture(scope="module")
def run(kafka_bootstrap: str) -> Iterator[RealRun]:
    with real_run(kafka_bootstrap, hands=1, timeout=300) as live:
        demo = re.search(r"topics (demo[0-9a-f]+)\.\*", live.demo_output)
        if demo:  # the demo keeps its topics for replays; the tests do not
            TAGS.add(demo.group(1))
        yield live


def rules() -> list[dict[str, str]]:
    return [rule for path in RULE_FILES for group in yaml.safe_load(path.read_text())["groups"]
            for rule in group["rules"]]


def recorded() -> set[str]:
    return {rule["record"] for rule in rules() if "record" in rule}


def scraped(run: RealRun) -> set[str]:
    """Metric names Prometheus stored from the okey101 jobs during the run."""
    return set(run.get("/api/v1/label/__name__/values",
                       **{"match[]": '{job=~"okey101-.*"}', "start": run.start,
                          "end": run.end}))


def declared(run: RealRun) -> set[str]:
    """Sample names the services' /metrics declare, with or without samples yet (a
    labelled counter nothing has incremented shows only its HELP and TYPE)."""
    names: set[str] = set()
    for text in run.expositions.values():
        for family in text_string_to_metric_families(text):
            names |= {family.name + suffix for suffix in _SUFFIXES.get(family.type, ("",))}
            names |= {sample.name for sample in family.samples}
    return names


def expressions() -> list[tuple[str, str]]:
    """(where, expression) for every panel target of every board and every rule."""
    out = []
    for build in BOARDS:
        board = build()
        for panel in board.panels():
            for target in panel.targets:
                out.append((f"{board.uid} / {panel.title}", evaluable(target.expr,
                                                                      RATE_INTERVAL)))
    for rule in rules():
        out.append((f"rule {rule.get('alert') or rule.get('record')}", rule["expr"]))
    return out


def test_the_demo_ran_and_every_service_was_scraped(run: RealRun) -> None:
    assert set(run.expositions) == set(DEMO_JOBS), run.expositions.keys()
    up = {r["metric"]["job"]: r["value"][1] for r in run.query('up{job=~"okey101-.*"}')}
    assert {job: up.get(job) for job in DEMO_JOBS} == {job: "1" for job in DEMO_JOBS}
    accepted = run.query('sum(okey_commands_total{result="accepted"})')
    assert accepted and float(accepted[0]["value"][1]) > 100


def test_every_dashboard_and_rule_expression_evaluates_without_error(run: RealRun) -> None:
    failures = []
    for where, expr in expressions():
        try:
            run.query(expr)
        except ValueError as exc:
            failures.append(f"{where}: {exc}")
    assert not failures, "\n".join(failures)


def test_every_metric_an_expression_names_is_one_the_services_expose(run: RealRun) -> None:
    exposed = scraped(run) | declared(run)
    unknown = []
    for where, expr in expressions():
        missing = metric_names(expr) - exposed - recorded()
        if missing:
            unknown.append(f"{where}: {sorted(missing)} in {expr!r}")
    assert not unknown, "\n".join(unknown)
    # the recording rules read only real metrics too, so their names are no loophole
    for rule in rules():
        if "record" in rule:
            assert metric_names(rule["expr"]) <= exposed, rule["record"]


def test_every_board_has_expressions_and_shows_data(run: RealRun) -> None:
    """No board is skipped: each one, whatever BOARDS lists, has panels, and at least one of
    its panels returns series from this run."""
    assert BOARDS
    for build in BOARDS:
        board = build()
        targets = [t for p in board.panels() for t in p.targets]
        assert targets, f"{board.uid} has no expression"
        with_data = [t.expr for t in targets if run.query(evaluable(t.expr, RATE_INTERVAL))]
        assert with_data, f"{board.uid}: no panel shows any data from the run"


def test_prometheus_loaded_every_rule_and_evaluated_it_without_error(run: RealRun) -> None:
    groups = run.get("/api/v1/rules")["groups"]
    loaded = {rule["name"]: rule for group in groups for rule in group["rules"]}
    wanted = {rule.get("alert") or rule.get("record") for rule in rules()}
    assert set(loaded) == wanted
    unhealthy = {name: rule.get("lastError") for name, rule in loaded.items()
                 if rule["health"] != "ok"}
    assert not unhealthy, unhealthy


def test_the_overview_renders_as_a_png_from_the_run(run: RealRun, tmp_path: Path) -> None:
    path = board_png(BOARDS[0](), run, tmp_path / "overview.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 20_000
