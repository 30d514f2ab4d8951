"""Grafana dashboards as code: `python -m tools.dashboards` (see __main__)."""
