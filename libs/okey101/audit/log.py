"""Following a table's log: each hand's events gathered and verified as it ends. Pure.

`TableAudit.fold(event)` returns the records the event completes: a hand's verdict when
its `hand_ended` arrives, an `incomplete` failure when a hand's log restarts before it
ended. A hand runs from `seeding_opened` (deal version 2) or `hand_started` to `hand_ended`.
"""

from __future__ import annotations

from okey101.audit.records import HandFailed, HandVerified
from okey101.audit.verify import tag, verify_hand
from okey101.table import deal as D
from okey101.table import messages as E

Verdict = HandVerified | HandFailed


class TableAudit:
    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.sizes = D.SIZES_101
        self.hand: list[E.Event] = []
        self.last_seq = 0

    def fold(self, event: E.Event) -> list[Verdict]:
        out: list[Verdict] = []
        if event.seq <= self.last_seq:  # read again (a restart): already folded
            return out
        self.last_seq = event.seq
        if isinstance(event, E.TableCreated):
            self.sizes = D.Sizes(event.profile.starter_tiles, event.profile.other_tiles)
        elif isinstance(event, E.SeedingOpened):
            out += self._abandon(event)
            self.hand = [event]
        elif isinstance(event, E.HandStarted):
            if not (self.hand and isinstance(self.hand[0], E.SeedingOpened)
                    and not any(isinstance(e, E.HandStarted) for e in self.hand)):
                out += self._abandon(event)
                self.hand = []
            self.hand.append(event)
        elif self.hand:
            self.hand.append(event)
            if isinstance(event, E.HandEnded):
                out.append(verify_hand(self.hand, self.sizes, self.table_id))
                self.hand = []
        return out

    def _abandon(self, event: E.Event) -> list[Verdict]:
        """A hand that began and never ended before `event` restarted the count."""
        started = next((e for e in self.hand if isinstance(e, E.HandStarted)), None)
        if started is None:
            return []
        return [HandFailed(table_id=self.table_id, hand=started.hand, attempt=started.attempt,
                           deal_version=started.deal_version, finding="incomplete",
                           seq=event.seq, event=tag(event),
                           message=f"hand {started.hand} (seq {started.seq}) never ended "
                                   f"before this {tag(event)}")]
