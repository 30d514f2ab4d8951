"""The bots service's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

COMMANDS = Counter("okey_bot_commands_total", "Commands sent by bots, by level and type",
                   ["level", "type"])
SEATS_FILLED = Counter("okey_bot_seats_filled_total", "Empty seats handed to a bot")
DECISION = Histogram("okey_bot_decision_seconds", "Time a bot takes to choose a command",
                     buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25))
