"""The auditor's Prometheus metrics (the consumer lag is the shared okey_consumer_lag)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

HANDS_VERIFIED = Counter("okey_audit_hands_verified_total",
                         "Hands whose commitment, deal and public moves agree")
HANDS_FAILED = Counter("okey_audit_hands_failed_total",
                       "Hands with a difference between the log and the deal, by finding",
                       ["finding"])
FLAGS = Counter("okey_audit_flags_total", "Collusion and abuse flags raised, by kind",
                ["kind"])
EVENTS = Counter("okey_audit_events_total", "Events folded (re-reads included)")
UNDECODABLE = Counter("okey_audit_events_undecodable_total",
                      "Records of the events topic that are no table event")
LAG_SECONDS = Gauge("okey_audit_lag_seconds",
                    "From the last folded event's record time to its folding")
CATCHING_UP = Gauge("okey_audit_partitions_catching_up",
                    "Assigned events partitions still being re-read to rebuild the state")
KEPT = Gauge("okey_audit_collusion_kept", "Pairs of accounts and accounts whose collusion "
             "figures are kept (at most --max-pairs and --max-accounts)", ["what"])
FORGOTTEN = Gauge("okey_audit_collusion_forgotten", "Pairs and accounts that left memory "
                  "(the least recently met beyond the limits) since this auditor started")
