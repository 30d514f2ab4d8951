"""The processor's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

COMMANDS = Counter("okey_commands_total", "Commands processed, by type and result",
                   ["type", "result"])
REJECTIONS = Counter("okey_rejections_total", "Rejected commands, by code", ["code"])
DEAD_LETTERS = Counter("okey_dead_letters_total", "Records sent to the dead-letter topic")
DUPLICATES = Counter("okey_duplicate_commands_total",
                     "Commands seen before, answered with their original outcome")
LATENCY = Histogram("okey_command_latency_seconds",
                    "From a command's produce timestamp to its transaction's commit",
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
                             5, 10))
BATCH = Histogram("okey_batch_processing_seconds", "Deciding and committing one batch",
                  buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5))
ACTIVE_TABLES = Gauge("okey_active_tables", "Tables seating or playing, on this instance")
LAG = Gauge("okey_consumer_lag", "Commands not yet processed, by partition", ["partition"])
REBUILDS = Counter("okey_partition_rebuilds_total",
                   "Partitions rebuilt from the log (assignment or a failed transaction)")
TRANSACTION_FAILURES = Counter("okey_transaction_failures_total",
                               "Transactions aborted by an infrastructure fault")
