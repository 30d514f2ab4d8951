"""The timer service's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

TIMEOUTS = Counter("okey_timeouts_issued_total", "TimeOut commands published")
EXPIRIES = Counter("okey_reconnect_expiries_issued_total",
                   "ExpireReconnectWindow commands published (a disconnected player's window "
                   "passed)")
SEEDING_CLOSES = Counter("okey_seeding_closes_issued_total",
                         "CloseSeeding commands published (a seeding window's deadline passed: "
                         "proto/DEAL.md version 2)")
SEND_FAILURES = Counter("okey_timeout_send_failures_total",
                        "Timer commands that could not be published (retried next tick)")
TABLES = Gauge("okey_timer_tables_tracked", "Tables followed (created, match not over)")
CATCHING_UP = Gauge("okey_timer_partitions_catching_up",
                    "Assigned events partitions still being re-read from the beginning")
IGNORED = Counter("okey_timer_events_ignored_total",
                  "Events not folded: a re-read, a finished match or a seq gap")
TICK = Histogram("okey_timer_tick_seconds", "One tick: finding due turns and publishing",
                 buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1))
LATENESS = Histogram("okey_timeout_lateness_seconds",
                     "From a turn's deadline to its TimeOut being published",
                     buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
