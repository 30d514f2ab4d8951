"""The bots service's Prometheus metrics (its rejections are counted by the processor:
`okey_bot_rejections_total`, since the bots never read outcomes)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from services.common.kafka import LAG as LAG

COMMANDS = Counter("okey_bot_commands_total", "Commands sent by bots, by level and type",
                   ["level", "type"])
SEATS_FILLED = Counter("okey_bot_seats_filled_total", "Empty seats handed to a bot")
VIEWS = Counter("okey_bot_views_total", "Views read (the newest of each bot seat, or of a "
                "table with an empty seat, in a fetch)")
DECISION = Histogram("okey_bot_decision_seconds", "Time a bot takes to choose a command",
                     buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25))
