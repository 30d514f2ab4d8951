"""The auditor: every table's log followed, each hand verified as it ends, collusion and
abuse measured as matches end. Pure: `Auditor.fold(event)` returns the records the event
completes (none for most events)."""

from __future__ import annotations

from collections import Counter

from okey101.audit.collusion import MAX_ACCOUNTS, MAX_PAIRS, Collusion
from okey101.audit.log import TableAudit
from okey101.audit.records import AnyRecord, CollusionFlag, HandFailed, HandVerified
from okey101.table import messages as E


class Auditor:
    def __init__(self, collusion: bool = True, max_pairs: int = MAX_PAIRS,
                 max_accounts: int = MAX_ACCOUNTS) -> None:
        self.tables: dict[str, TableAudit] = {}
        self.collusion = Collusion(max_pairs, max_accounts) if collusion else None
        self.counts: Counter[str] = Counter()  # hand_verified, hand_failed, collusion_flag

    def fold(self, event: E.Event) -> list[AnyRecord]:
        table = self.tables.get(event.table_id)
        if table is None:
            table = self.tables[event.table_id] = TableAudit(event.table_id)
        out: list[AnyRecord] = list(table.fold(event))
        if self.collusion is not None:
            out += self.collusion.fold(event)
        if isinstance(event, E.MatchEnded):
            del self.tables[event.table_id]  # a match is a table's last
        for record in out:
            self.counts[_kind(record)] += 1
        return out


def _kind(record: AnyRecord) -> str:
    if isinstance(record, HandVerified):
        return "hand_verified"
    if isinstance(record, HandFailed):
        return "hand_failed"
    assert isinstance(record, CollusionFlag)
    return "collusion_flag"


def audit_events(events: list[E.Event], collusion: bool = True) -> list[AnyRecord]:
    """Every record a log gives, in order (`okey101 audit`, tests, benchmarks)."""
    auditor = Auditor(collusion)
    out: list[AnyRecord] = []
    for event in events:
        out += auditor.fold(event)
    return out
