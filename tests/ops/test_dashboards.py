"""The dashboards as code: committed files are current, boards are well formed, and every
expression parses (the real evaluation is tests/kafka/test_dashboards.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools.dashboards.boards import BOARDS
from tools.dashboards.files import generated, stale, write
from tools.dashboards.grafana import evaluable, render
from tools.dashboards.promql import metric_names

ROOT = Path(__file__).resolve().parents[2]
GRAFANA = ROOT / "deploy" / "grafana"


def test_the_committed_dashboards_are_what_the_generator_writes() -> None:
    done = subprocess.run([sys.executable, "-m", "tools.dashboards", "--check", str(GRAFANA)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr


def test_the_check_fails_on_a_changed_a_missing_or_an_extra_board(tmp_path: Path) -> None:
    write(tmp_path)
    assert stale(tmp_path) == []
    board = tmp_path / "dashboards" / "okey101-overview.json"
    board.write_text(board.read_text().replace("Commands by result", "Commands"))
    (tmp_path / "dashboards" / "okey101-timers.json").unlink()
    (tmp_path / "dashboards" / "okey101-gone.json").write_text("{}")
    assert stale(tmp_path) == ["dashboards/okey101-overview.json",
                               "dashboards/okey101-timers.json",
                               "dashboards/okey101-gone.json (no board generates it)"]
    write(tmp_path)
    assert stale(tmp_path) == [] and not (tmp_path / "dashboards" / "okey101-gone.json").exists()


def test_there_is_an_overview_and_a_board_per_service_with_unique_uids() -> None:
    uids = [build().uid for build in BOARDS]
    assert uids[0] == "okey101-overview"
    assert {"okey101-processor", "okey101-timers", "okey101-bots"} <= set(uids)
    assert len(uids) == len(set(uids))


@pytest.mark.parametrize("build", BOARDS, ids=lambda b: b.__name__)
def test_panels_lie_on_the_grid_without_overlapping(build) -> None:  # type: ignore[no-untyped-def]
    cells: set[tuple[int, int]] = set()
    for p in render(build())["panels"]:
        g = p["gridPos"]
        assert g["x"] >= 0 and g["x"] + g["w"] <= 24
        mine = {(x, y) for x in range(g["x"], g["x"] + g["w"])
                for y in range(g["y"], g["y"] + g["h"])}
        assert not mine & cells, p["title"]
        cells |= mine


@pytest.mark.parametrize("build", BOARDS, ids=lambda b: b.__name__)
def test_every_target_parses_and_names_okey_metrics(build) -> None:  # type: ignore[no-untyped-def]
    for p in build().panels():
        assert p.targets, p.title
        for t in p.targets:
            names = metric_names(evaluable(t.expr))
            assert names and all(n.startswith(("okey_", "okey:")) or n == "up"
                                 for n in names), (p.title, t.expr)


def test_every_panel_uses_the_datasource_variable() -> None:
    for text in (v for k, v in generated().items() if k.endswith(".json")):
        for p in json.loads(text)["panels"]:
            if p["type"] != "row":
                assert p["datasource"]["uid"] == "${datasource}"


def test_metric_names_come_from_every_selector_of_an_expression() -> None:
    expr = ('histogram_quantile(0.99, sum by (le) (rate(a_bucket{job="x"}[5m]))) > 5 '
            'and on (job) up == 0 or okey:r:ratio_rate5m or {__name__="b"}')
    assert metric_names(expr) == {"a_bucket", "up", "okey:r:ratio_rate5m", "b"}


def test_an_unknown_grafana_variable_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown Grafana variable"):
        evaluable("rate(x[$__nonsense])")
    assert evaluable("rate(x[$__rate_interval])", "10s") == "rate(x[10s])"
