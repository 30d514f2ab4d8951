"""The matchmaker's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from services.common.kafka import LAG as LAG

REQUESTS = Counter("okey_matchmaker_requests_total", "Requests read, by type and what "
                   "became of them (accepted, refused, duplicate)", ["type", "result"])
REFUSED = Counter("okey_matchmaker_refused_total", "Requests refused, by code", ["code"])
BAD_RECORDS = Counter("okey_matchmaker_bad_records_total", "Records that could not be "
                      "decoded, by topic (dead-lettered and skipped)", ["topic"])
SEATED = Counter("okey_matchmaker_tables_seated_total", "Tables created and filled, by "
                 "house and kind (quick_play, tournament)", ["house", "kind"])
BOT_SEATS = Counter("okey_matchmaker_bot_seats_total", "Seats filled by bots, by house",
                    ["house"])
WAIT = Histogram("okey_matchmaker_wait_seconds", "From a quick-play request to its seat",
                 ["house"], buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300))
SPREAD = Histogram("okey_matchmaker_table_spread", "Skill (ordinal) spread of the humans "
                   "at a quick-play table: highest minus lowest",
                   buckets=(0.5, 1, 2, 5, 10, 20, 40, 80))
WAITING = Gauge("okey_matchmaker_waiting", "Players waiting for a seat, by house and hall",
                ["house", "hall"])
OLDEST = Gauge("okey_matchmaker_oldest_wait_seconds", "How long the longest-waiting player "
               "has waited, by house", ["house"])
TOURNAMENTS = Gauge("okey_matchmaker_tournaments", "Tournaments by status",
                    ["house", "status"])
TOURNAMENT_TABLES = Counter("okey_matchmaker_tournament_results_total", "Tournament tables "
                            "whose match ended, by house", ["house"])
TRANSACTIONS = Counter("okey_matchmaker_transactions_total", "Transactions, by result "
                       "(committed, aborted)", ["result"])
TRANSACTION = Histogram("okey_matchmaker_transaction_seconds", "A transaction's time "
                        "(decisions, commands, offsets, commit)",
                        buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5))
REBUILD = Histogram("okey_matchmaker_rebuild_seconds", "Reading a partition's decisions "
                    "back on assignment", buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
RELAYED = Counter("okey_matchmaker_relayed_total", "Ends of seated tables relayed from the "
                  "events topic")
