"""A small builder of Grafana dashboard JSON (schema 39): panels of PromQL targets laid out
on the 24-column grid, a Prometheus data source chosen by a variable, links between the
okey101 boards. Only what the boards use; the output is plain data, sorted and stable, so
that a regenerated file differs only when a board does."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
TAG = "okey101"
SCHEMA_VERSION = 39
# Grafana's own variables in the expressions, and what they stand for when an expression is
# evaluated outside Grafana (the expression check, the PNG renderer) on data scraped every
# 15 s; a run scraped every second passes its own (`evaluable(expr, rate_interval="10s")`).
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "5m"}
RATE = "$__rate_interval"

Kind = Literal["timeseries", "stat"]


@dataclass(frozen=True)
class Target:
    expr: str
    legend: str = ""


@dataclass(frozen=True)
class Panel:
    title: str
    targets: tuple[Target, ...]
    unit: str = "short"  # a Grafana unit: short, ops, s, percentunit, ...
    kind: Kind = "timeseries"
    description: str = ""
    width: int = 12
    height: int = 8
    stack: bool = False


def panel(title: str, *targets: Target | str, unit: str = "short", kind: Kind = "timeseries",
          description: str = "", width: int = 12, stack: bool = False) -> Panel:
    """A panel; a bare string is a target without a legend."""
    return Panel(title, tuple(t if isinstance(t, Target) else Target(t) for t in targets),
                 unit=unit, kind=kind, description=description, width=width,
                 height=5 if kind == "stat" else 8, stack=stack)


@dataclass(frozen=True)
class Row:
    title: str
    panels: tuple[Panel, ...]


@dataclass(frozen=True)
class Dashboard:
    uid: str
    title: str
    description: str
    rows: tuple[Row, ...]
    tags: tuple[str, ...] = field(default=(TAG,))

    def panels(self) -> list[Panel]:
        return [p for row in self.rows for p in row.panels]


def render(board: Dashboard) -> dict[str, Any]:
    """The dashboard's JSON model."""
    panels: list[dict[str, Any]] = []
    y = 0
    ids = iter(range(1, 1000))
    for row in board.rows:
        panels.append({"type": "row", "id": next(ids), "title": row.title, "collapsed": False,
                       "gridPos": {"x": 0, "y": y, "w": 24, "h": 1}, "panels": []})
        y += 1
        x, line_height = 0, 0
        for p in row.panels:
            if x + p.width > 24:
                x, y = 0, y + line_height
                line_height = 0
            panels.append(_panel(p, next(ids), x, y))
            x += p.width
            line_height = max(line_height, p.height)
        y += line_height
    return {
        "uid": board.uid,
        "title": board.title,
        "description": board.description,
        "tags": list(board.tags),
        "timezone": "utc",
        "editable": False,
        "graphTooltip": 1,
        "refresh": "30s",
        "schemaVersion": SCHEMA_VERSION,
        "version": 1,
        "time": {"from": "now-6h", "to": "now"},
        "links": [{"type": "dashboards", "tags": [TAG], "asDropdown": True,
                   "title": "okey101", "includeVars": False, "keepTime": True}],
        "templating": {"list": [{"name": "datasource", "label": "Prometheus",
                                 "type": "datasource", "query": "prometheus",
                                 "current": {}, "hide": 0}]},
        "annotations": {"list": []},
        "panels": panels,
    }


def _panel(p: Panel, panel_id: int, x: int, y: int) -> dict[str, Any]:
    targets = [{"refId": chr(ord("A") + i), "datasource": DATASOURCE, "expr": t.expr,
                "legendFormat": t.legend or "__auto", "range": True}
               for i, t in enumerate(p.targets)]
    out: dict[str, Any] = {
        "type": p.kind, "id": panel_id, "title": p.title, "description": p.description,
        "datasource": DATASOURCE, "gridPos": {"x": x, "y": y, "w": p.width, "h": p.height},
        "targets": targets,
        "fieldConfig": {"defaults": {"unit": p.unit}, "overrides": []},
    }
    if p.kind == "timeseries":
        out["fieldConfig"]["defaults"]["custom"] = {
            "drawStyle": "line", "lineWidth": 1, "fillOpacity": 10 if p.stack else 0,
            "stacking": {"mode": "normal" if p.stack else "none", "group": "A"},
            "showPoints": "never", "spanNulls": False}
        out["options"] = {"legend": {"displayMode": "list", "placement": "bottom",
                                     "showLegend": True},
                          "tooltip": {"mode": "multi", "sort": "desc"}}
    else:
        out["options"] = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "",
                                            "values": False},
                          "colorMode": "value", "graphMode": "area", "textMode": "auto",
                          "orientation": "auto"}
    return out


def evaluable(expr: str, rate_interval: str | None = None) -> str:
    """`expr` with Grafana's variables replaced, as Prometheus itself can run it."""
    values = dict(GRAFANA_VARIABLES)
    if rate_interval is not None:
        values["$__rate_interval"] = rate_interval
    for name, value in values.items():
        expr = expr.replace(name, value)
    if "$" in expr:
        raise ValueError(f"an unknown Grafana variable in {expr!r}")
    return expr
