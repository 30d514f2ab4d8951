"""The processor's seat events (the views topic): each event as every seat may see it,
written only when asked (`PartitionTables(seat_events=True)`, the processor's
`--seat-events`). No service reads them: the player updates carry the same events."""

from __future__ import annotations

from okey101.app.processor.processing import Output, PartitionTables
from okey101.table import messages as E
from okey101.table.views import event_for
from tests.kafka.support import record_timeout_match

NOW = 1_767_225_600


def _outputs(seat_events: bool) -> list[Output]:
    commands, _ = record_timeout_match("t1", seed=7)
    tables = PartitionTables(0, 1, allow_stacked_deals=True, seat_events=seat_events)
    return [tables.handle(c.table_id.encode(), E.encode(c), "c", i, lambda: "00" * 32,
                          at=NOW * 1000) for i, c in enumerate(commands[:40])]


def test_no_seat_events_are_made_unless_asked() -> None:
    outputs = _outputs(seat_events=False)
    assert sum(len(o.events) for o in outputs) > 40
    assert all(o.views == [] for o in outputs)


def test_asked_each_event_goes_to_every_seat_as_that_seat_may_see_it() -> None:
    for out in _outputs(seat_events=True):
        wanted = [(seat, event_for(event, seat)) for event in out.events
                  for seat in range(4) if event_for(event, seat) is not None]
        assert [(v.seat, v.event) for v in out.views] == wanted
        assert all(v.table_id == "t1" for v in out.views)


def test_the_seat_events_change_no_decision() -> None:
    plain, asked = _outputs(seat_events=False), _outputs(seat_events=True)
    assert [(o.events, o.outcome) for o in plain] == [(o.events, o.outcome) for o in asked]
