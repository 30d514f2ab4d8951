"""Events carry the time they were decided (`at`, ms since the epoch): the processor's shell
takes it from the command record's timestamp and passes it into the pure core as data."""

from __future__ import annotations

from okey101.app.processing import PartitionTables
from okey101.app.topics import partition_for
from okey101.table import messages as E
from okey101.table.decide import decide
from okey101.table.evolve import NEW_TABLE


def test_every_event_carries_its_commands_time() -> None:
    command = E.CreateTable(table_id="t", command_id="c", profile="okeygg", at=1_700_000_000_123)
    events = decide(NEW_TABLE, command)
    assert isinstance(events, list) and events
    assert all(e.at == 1_700_000_000_123 for e in events)


def test_an_event_logged_before_at_existed_still_decodes() -> None:
    old = b'{"type":"player_left","table_id":"t","seq":3,"seat":1,"player_id":"p"}'
    event = E.event_decoder.decode(old)
    assert isinstance(event, E.PlayerLeft) and event.at == 0


def test_the_record_time_overrides_whatever_time_a_client_sent() -> None:
    key = b"t1"
    tables = PartitionTables(partition_for(key, 8), 8)
    forged = E.CreateTable(table_id="t1", command_id="c1", profile="okeygg", at=42)
    out = tables.handle(key, E.encode(forged), "okey.commands", 0, lambda: "00" * 32,
                        at=1_800_000_000_000)
    assert out.events and all(e.at == 1_800_000_000_000 for e in out.events)
