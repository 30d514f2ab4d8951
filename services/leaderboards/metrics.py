"""The leaderboards service's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

MATCHES = Counter("okey_standings_matches_applied_total", "Finished matches applied, by house",
                  ["house"])
DUPLICATES = Counter("okey_standings_duplicates_skipped_total",
                     "Records skipped as already read: events, and matches among them",
                     ["kind"])
BAD_INPUT = Counter("okey_standings_bad_input_total",
                    "Records counted as bad input (logged with partition and offset)",
                    ["reason"])
PUBLISHED = Counter("okey_standings_changes_published_total",
                    "Standings written to the standings topic")
REWINDS = Counter("okey_standings_rewinds_total",
                  "Matches undone and applied again to put a late match in its place")
LAG = Gauge("okey_standings_lag_records",
            "Committed events not yet read (sum over the events partitions)")
REBUILD = Gauge("okey_standings_rebuild_progress",
                "Share of the events topic read at start-up before going live (0-1)")
READY = Gauge("okey_standings_ready", "1 once the start-up rebuild is applied")
DELAY = Histogram("okey_standings_delay_seconds",
                  "From a match_ended record's timestamp to its standings being written",
                  buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
