"""The processor's Prometheus metrics.

The labelled counters start with every known label value at 0, so that a rate() over them
exists before the first increment (alerts and dashboards see 0, not "no data").
"""

from __future__ import annotations

from typing import get_args

from prometheus_client import Counter, Gauge, Histogram

from okey101.table import messages as E
from services.common.kafka import LAG as LAG

COMMAND_TYPES = tuple(t.__struct_config__.tag for t in get_args(E.AnyCommand))
RESULTS = ("accepted", "rejected", "duplicate")

COMMANDS = Counter("okey_commands_total", "Commands processed, by type and result",
                   ["type", "result"])
REJECTIONS = Counter("okey_rejections_total", "Rejected commands, by code", ["code"])
BOT_REJECTIONS = Counter("okey_bot_rejections_total",
                         "Rejected commands sent for a bot's seat by its bot, by code "
                         "(a bot is never meant to be rejected)", ["code"])
DUPLICATES = Counter("okey_duplicate_commands_total",
                     "Commands seen before, answered with their original outcome")
LATENCY = Histogram("okey_command_latency_seconds",
                    "From a command's produce timestamp to its transaction's commit",
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
                             5, 10))
BATCH = Histogram("okey_batch_processing_seconds", "Deciding and committing one batch",
                  buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5))
ACTIVE_TABLES = Gauge("okey_active_tables", "Tables seating or playing, on this instance")
OWNED_PARTITIONS = Gauge("okey_processor_partitions", "Commands partitions this instance "
                         "owns (assigned and rebuilt)")
REBUILDS = Counter("okey_partition_rebuilds_total",
                   "Partitions rebuilt from the log (assignment or a failed transaction)")
TRANSACTION_FAILURES = Counter("okey_transaction_failures_total",
                               "Transactions aborted by an infrastructure fault")
ABORTED_COMMANDS = Counter("okey_aborted_commands_total",
                           "Command records in aborted transactions (processed again after "
                           "the rebuild: late, never lost)")
UNDECODABLE = Counter("okey_rebuild_undecodable_total", "Records of the events or outcomes "
                      "topic skipped at a rebuild because they could not be decoded, by topic",
                      ["topic"])
KEPT_COMMAND_IDS = Gauge("okey_kept_command_ids", "Command ids kept for duplicate detection "
                         "(live tables, the finished window, the strays), on this instance")
FINISHED_TABLES = Gauge("okey_finished_tables_kept", "Finished tables in the duplicate "
                        "window (final seq and command ids, no state), on this instance")
SNAPSHOTS = Counter("okey_snapshots_total", "Snapshot cuts written (each with the records "
                    "of the tables changed since the previous one)")
SNAPSHOT_RECORDS = Counter("okey_snapshot_records_total", "Table snapshot records and "
                           "tombstones written, cuts included")
SNAPSHOT_FALLBACKS = Counter("okey_snapshot_fallbacks_total", "Rebuilds that found snapshots "
                             "they could not use and read the full log, by reason (one of "
                             "okey101.app.processor.snapshots.KINDS, or failed)", ["reason"])

for _topic in ("events", "outcomes"):
    UNDECODABLE.labels(_topic)
for _type in COMMAND_TYPES:
    for _result in RESULTS:
        COMMANDS.labels(_type, _result)
