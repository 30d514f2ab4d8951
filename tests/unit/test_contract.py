"""The published contract (proto/): one example of every message, each valid against its
schema; the public command schema has no client-chosen deal; tiles have a pattern; every
message carries its version."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest

from okey101.app import topics
from okey101.app.gateway import websocket as W
from okey101.table import messages as E
from okey101.table.views import VIEWS_VERSION
from tools.gen_proto import schemas

PROTO = Path(__file__).resolve().parents[2] / "proto"
DOCS = schemas()
EXAMPLES: dict[str, Any] = DOCS["examples.json"]
SCHEMA_OF = {"command": "table-commands.schema.json", "event": "table-events.schema.json",
             "outcome": "outcome.schema.json",
             "player-update": "player-update.schema.json",
             "player-patch": "player-update.schema.json",
             "dead-letter": "dead-letter.schema.json", "standing": "standing.schema.json",
             "directory-entry": "directory-entry.schema.json",
             "audit": "audit-record.schema.json",
             "snapshot": "snapshot.schema.json",
             "matchmaking": "matchmaking-request.schema.json",
             "matchmaker": "matchmaker-decision.schema.json"}


def _schema_for(name: str) -> dict[str, Any]:
    if name.startswith("ws."):
        kind = name.removeprefix("ws.")
        client = {_tag(c) for c in W.AnyClientMessage.__args__}  # type: ignore[attr-defined]
        return DOCS["websocket-client.schema.json" if kind in client
                    else "websocket-server.schema.json"]
    return DOCS[SCHEMA_OF[name.split(".")[0]]]


def _tag(cls: type) -> str:
    return str(cls.__struct_config__.tag)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_is_valid_against_its_published_schema(name: str) -> None:
    jsonschema.Draft202012Validator(_schema_for(name)).validate(EXAMPLES[name])


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_is_valid_against_its_payload_in_the_asyncapi_document(name: str) -> None:
    doc = DOCS["asyncapi.json"]
    found = [m for m in doc["components"]["messages"].values()
             if m["examples"][0]["name"] == name]
    for message in found:
        schema = {"$ref": message["payload"]["$ref"], "components": doc["components"]}
        jsonschema.Draft7Validator(schema).validate(message["examples"][0]["payload"])


def test_every_command_event_and_websocket_message_has_an_example() -> None:
    tags = [f"command.{_tag(c)}" for c in E.AnyCommand.__args__]  # type: ignore[attr-defined]
    tags += [f"event.{_tag(e)}" for e in E.AnyEvent.__args__]  # type: ignore[attr-defined]
    tags += [f"ws.{_tag(c)}" for c in W.AnyClientMessage.__args__]  # type: ignore[attr-defined]
    assert set(tags) <= EXAMPLES.keys()
    assert {"outcome.accepted", "outcome.rejected", "player-update", "dead-letter",
            "player-patch", "ws.update", "ws.patch", "ws.outcome",
            "ws.error"} <= EXAMPLES.keys()


def test_the_public_command_schema_has_no_client_chosen_seed_or_deal() -> None:
    public = json.dumps(DOCS["table-commands.schema.json"])
    assert '"seed"' not in public and '"deals"' not in public and "StackedDeal" not in public
    internal = DOCS["table-commands.internal.schema.json"]["$defs"]["StartMatch"]
    assert {"seed", "deals"} <= internal["properties"].keys()
    assert "bot" not in DOCS["table-commands.schema.json"]["$defs"]["Sit"]["properties"]


def test_a_command_requires_its_player_seat_seq_and_arguments_on_the_wire() -> None:
    defs = DOCS["table-commands.schema.json"]["$defs"]
    assert {"player_id", "seat", "seq", "tile"} <= set(defs["Discard"]["required"])
    assert {"meld", "tiles"} <= set(defs["LayOff"]["required"])
    assert "seat" not in defs["CreateTable"]["required"]
    discard = {"$ref": "#/$defs/Discard", "$defs": defs}
    with pytest.raises(jsonschema.ValidationError, match="'tile' is a required property"):
        jsonschema.validate({"type": "discard", "table_id": "t", "command_id": "c",
                             "player_id": "p", "seat": 0, "seq": 3}, discard)


@pytest.mark.parametrize("tile,ok", [("R7", True), ("K13", True), ("F", True), ("Y1", True),
                                     ("R0", False), ("R14", False), ("G5", False), ("", False),
                                     ("r7", False), ("Y6=K9", False)])
def test_the_tile_notation_is_a_pattern_in_the_schema(tile: str, ok: bool) -> None:
    schema = DOCS["table-commands.schema.json"]["$defs"]["Discard"]["properties"]["tile"]
    assert bool(re.match(schema["pattern"], tile)) is ok


def test_a_joker_in_a_meld_is_written_with_what_it_stands_for() -> None:
    items = DOCS["table-commands.schema.json"]["$defs"]["LayOff"]["properties"]["tiles"]["items"]
    assert re.match(items["pattern"], "Y6=K9") and not re.match(items["pattern"], "Y6=")


def test_every_message_carries_the_contract_version() -> None:
    from okey101.app.processor import snapshots
    for name, example in EXAMPLES.items():  # a snapshot record: the snapshot schema's own
        wanted = snapshots.VERSION if name.startswith("snapshot.") else \
            VIEWS_VERSION if name.startswith(("ws.", "player-")) else E.VERSION
        assert example.get("v") == wanted, name
    assert E.event_decoder.decode(b'{"type":"pairs_declared","table_id":"t","seq":3,'
                                  b'"seat":1}').v == 1  # written before v existed


def test_codes_are_enumerated_in_the_outcome_schema() -> None:
    enum = DOCS["outcome.schema.json"]["$defs"]["Outcome"]["properties"]["code"]["enum"]
    assert "not_your_turn" in enum and "" in enum


def test_proto_on_disk_is_what_the_structs_generate() -> None:
    for name, doc in DOCS.items():
        on_disk = json.loads((PROTO / name).read_text())
        assert on_disk == json.loads(json.dumps(doc)), f"proto/{name} is stale: make proto"


def test_a_public_decoder_refuses_server_only_fields_from_a_client() -> None:
    with pytest.raises(msgspec.ValidationError, match="seed"):
        W.client_decoder.decode(b'{"type":"command","id":"a","table_id":"t",'
                                b'"command":{"type":"start_match","seed":"00"}}')


def test_every_declared_topic_is_a_channel_of_the_asyncapi_document() -> None:
    channels = DOCS["asyncapi.json"]["channels"]
    addresses = {c["address"] for c in channels.values()}
    assert {spec.name() for spec in topics.ALL} <= addresses
