"""Dashboard panels as PNG images (matplotlib), from a real run's Prometheus (query_range),
so that a reviewer can see what the boards show without a Grafana."""

from __future__ import annotations

import math
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt
from matplotlib.axes import Axes

from tools.dashboards.grafana import Dashboard, Panel, evaluable
from tools.dashboards.live import RATE_INTERVAL, RealRun

_LABEL = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_UNITS = {"s": ("seconds", 1.0), "ops": ("per second", 1.0), "percentunit": ("%", 100.0),
          "short": ("", 1.0)}


def legend(template: str, labels: dict[str, str], expr: str) -> str:
    if template and template != "__auto":
        return _LABEL.sub(lambda m: labels.get(m.group(1), ""), template)
    shown = {k: v for k, v in labels.items() if k != "__name__"}
    return ", ".join(f"{k}={v}" for k, v in sorted(shown.items())) or expr


def draw(ax: Axes, panel: Panel, run: RealRun) -> int:
    """Plot the panel's series on `ax`; the number of series drawn."""
    axis_label, scale = _UNITS.get(panel.unit, (panel.unit, 1.0))
    drawn = 0
    for target in panel.targets:
        for series in run.query_range(evaluable(target.expr, RATE_INTERVAL)):
            points = [(float(t) - run.start, float(v) * scale) for t, v in series["values"]
                      if not math.isnan(float(v))]  # a quantile of no events is NaN
            if not points:
                continue
            xs, ys = zip(*points, strict=True)
            ax.plot(xs, ys, linewidth=1.2,
                    label=legend(target.legend, series["metric"], target.expr))
            drawn += 1
    ax.set_title(panel.title, fontsize=10, loc="left")
    ax.set_xlabel("seconds into the run", fontsize=8)
    ax.set_ylabel(axis_label, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)
    if drawn:
        ax.legend(fontsize=7, loc="upper left", ncol=2 if drawn > 4 else 1)
    else:
        ax.text(0.5, 0.5, "no data in this run", ha="center", va="center",
                transform=ax.transAxes, fontsize=9, color="grey")
    return drawn


def board_png(board: Dashboard, run: RealRun, path: Path) -> Path:
    """Every panel of `board` on one page, two to a row."""
    panels = board.panels()
    rows = (len(panels) + 1) // 2
    figure, axes = plt.subplots(rows, 2, figsize=(14, 3.2 * rows), squeeze=False)
    for ax, p in zip(axes.flat, panels, strict=False):
        draw(ax, p, run)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    figure.suptitle(f"{board.title}: the demo's load, {run.end - run.start:.0f} s",
                    fontsize=12)
    figure.tight_layout(rect=(0, 0, 1, 0.97))
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=80)
    plt.close(figure)
    return path


def panel_pngs(board: Dashboard, run: RealRun, folder: Path) -> list[Path]:
    """One image per panel: folder/NN-title.png."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for i, p in enumerate(board.panels(), 1):
        figure, ax = plt.subplots(figsize=(8, 3.6))
        draw(ax, p, run)
        figure.tight_layout()
        path = folder / f"{i:02d}-{_slug(p.title)}.png"
        figure.savefig(path, dpi=80)
        plt.close(figure)
        written.append(path)
    return written


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")

