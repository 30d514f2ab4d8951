"""The replays service's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

EVENTS = Counter("okey_directory_events_total", "Events folded into the table directory")
UNDECODABLE = Counter("okey_directory_undecodable_total",
                      "Records of the events topic that are no event: skipped, by offset")
TABLES = Gauge("okey_directory_tables", "Tables in the directory")
LAG_EVENTS = Gauge("okey_directory_lag_events",
                   "Events not yet indexed, by events partition", ["partition"])
LAG = Histogram("okey_directory_lag_seconds",
                "From an event's record time to its directory entry being written",
                buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
WRITES = Counter("okey_directory_writes_total", "Directory entries written (upserts)")
REPAIRS = Counter("okey_directory_repairs_total",
                  "Entries written again because a staler write was read back")
REQUESTS = Counter("okey_replay_requests_total", "HTTP requests, by route and status",
                   ["route", "status"])
REPLAY = Histogram("okey_replay_seconds", "Reading and folding one table for a request",
                   buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
