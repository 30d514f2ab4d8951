"""Events carry the time they were decided (`at`, ms since the epoch): the processor's shell
takes it from the command record's timestamp and passes it into the pure core as data."""

from __future__ import annotations

import msgspec

from okey101.app.processor.processing import PartitionTables
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


def test_every_event_of_a_decision_that_ends_a_hand_and_deals_the_next_carries_its_time(
        ) -> None:
    from okey101.simulate import play_match

    steps: list[tuple[object, E.Command, object, object]] = []
    play_match({"base": "north-sultan", "options": {"hands_per_match": 2}}, "3c" * 32,
               observer=lambda *step: steps.append(step))
    before, command = next((b, c) for b, c, d, _ in steps if isinstance(d, list)
                           and any(isinstance(e, E.HandEnded) for e in d)
                           and any(isinstance(e, E.HandStarted) for e in d))
    events = decide(before, msgspec.structs.replace(command, at=1_900_000_000_001))  # type: ignore[arg-type]
    assert isinstance(events, list) and len(events) > 5
    assert {e.at for e in events} == {1_900_000_000_001}


def test_time_is_part_of_the_published_contract() -> None:
    schema = E.published_schemas()["table-events.schema.json"]
    for name, definition in schema["$defs"].items():
        if "properties" in definition and "seq" in definition["properties"]:
            assert definition["properties"]["at"] == {"type": "integer", "default": 0}, name
