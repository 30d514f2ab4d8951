"""The views service's Prometheus metrics (the consumer lag is the shared okey_consumer_lag)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

EVENTS = Counter("okey_views_events_total", "Events folded (re-reads included)")
UPDATES = Counter("okey_views_updates_total", "Player updates published")
SKIPPED = Counter("okey_views_events_skipped_total",
                  "Events not folded: undecodable, or not following their table's state",
                  ["reason"])
TABLES = Gauge("okey_views_tables", "Live tables held (finished matches leave)")
CATCHING_UP = Gauge("okey_views_partitions_catching_up",
                    "Assigned events partitions still being re-read to rebuild the tables")
DELAY = Histogram("okey_views_delay_seconds",
                  "From an event's record time to the publishing of its views",
                  buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
