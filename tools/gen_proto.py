"""Generate proto/ (the published wire contract) from the msgspec structs.

`python -m tools.gen_proto proto` writes the JSON Schemas, the code registry, one example of
every message, the AsyncAPI 3 document and the HTTP APIs' OpenAPI 3.1 documents
(tools.gen_openapi); `--check` fails when proto/ is stale, so CI catches a struct change
that was not published. The public schemas leave out what only servers send (fields marked
`x-server-only`: the match seed, stacked deals, the bot flag) and list as required the
envelope fields the processor needs (`wire_required`); `table-commands.internal.schema.json`
keeps everything.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import msgspec

from okey101 import codes, profiles
from okey101.app import topics
from okey101.app.gateway import websocket as W
from okey101.app.matchmaker import halls
from okey101.app.matchmaker import records as MM
from okey101.app.processor import snapshots
from okey101.app.replays import directory, replay
from okey101.audit import records as A
from okey101.standings import board, house
from okey101.table import messages as E
from okey101.table import views as V
from tools.gen_openapi import documents as openapi_documents
from tools.generated import sync
from tools.proto_examples import examples

SCHEMA_ID = "https://okey101.invalid/proto/v{v}/{name}"
VIEWS_FILES = {"player-update.schema.json", "websocket-client.schema.json",
               "websocket-server.schema.json"}  # the views contract's (its own `v`)
_COMMANDS = {cls.__name__: cls for cls in E.AnyCommand.__args__}  # type: ignore[attr-defined]


def public(schema: dict[str, Any], defs_key: str = "$defs", prune: bool = True
           ) -> dict[str, Any]:
    """`schema` without server-only fields, with the commands' wire-required fields."""
    out = json.loads(json.dumps(schema))
    defs = out.get(defs_key, out)
    for name, body in defs.items():
        props = body.get("properties")
        if not isinstance(props, dict):
            continue
        for field in [f for f, s in props.items() if s.get("x-server-only")]:
            del props[field]
            if field in body.get("required", []):
                body["required"].remove(field)
        command = _COMMANDS.get(name)
        if command is not None:
            wanted = [f for f in command.wire_required if f not in body["required"]]
            body["required"] = body["required"] + wanted
    if prune:
        _drop_unreferenced(out, defs)
    return out


def _drop_unreferenced(doc: dict[str, Any], defs: dict[str, Any]) -> None:
    while True:
        text = json.dumps(doc)
        unused = [n for n in defs if f'/{n}"' not in text]
        if not unused:
            return
        for name in unused:
            del defs[name]


def _with_codes(schema: dict[str, Any], struct: str, allowed: list[str],
                defs_key: str = "$defs") -> None:
    body = schema[defs_key][struct] if defs_key in schema and struct in schema[defs_key] \
        else schema
    body["properties"]["code"]["enum"] = allowed


def schemas() -> dict[str, Any]:
    """File name -> document, for every published file."""
    rejections = sorted(codes.REJECTIONS)
    out: dict[str, Any] = {
        "profile.schema.json": msgspec.json.schema(profiles.Profile),
        "houses.json": {name: msgspec.to_builtins(p) for name, p in profiles.HOUSES.items()},
    }
    out.update(E.published_schemas())
    internal = msgspec.json.schema(E.AnyCommand)
    out["table-commands.internal.schema.json"] = internal
    out["table-commands.schema.json"] = public(internal)
    out["player-update.schema.json"] = msgspec.json.schema(V.AnyPlayerUpdate)
    out.update(W.published_schemas())
    out["standing.schema.json"] = msgspec.json.schema(board.Standing)
    out["standings-houses.json"] = house.published()
    out["directory-entry.schema.json"] = msgspec.json.schema(directory.TableEntry)
    out["directory-public-entry.schema.json"] = msgspec.json.schema(directory.PublicEntry)
    out["replay-step.schema.json"] = msgspec.json.schema(replay.ReplayStep)
    out["audit-record.schema.json"] = A.schema()
    out["snapshot.schema.json"] = msgspec.json.schema(snapshots.Record)
    out["matchmaking-request.schema.json"] = msgspec.json.schema(MM.AnyRequest)
    out["matchmaker-decision.schema.json"] = msgspec.json.schema(MM.AnyDecision)
    out["matchmaker-halls.json"] = {name: msgspec.to_builtins(r)
                                    for name, r in halls.HALL_RULES.items()}
    _with_codes(out["outcome.schema.json"], "Outcome", ["", *rejections])
    _with_codes(out["rejection.schema.json"], "Rejection", rejections)
    _with_codes(out["websocket-server.schema.json"], "CommandOutcome", ["", *rejections])
    _with_codes(out["websocket-server.schema.json"], "ErrorReply", sorted(codes.GATEWAY))
    for name, doc in out.items():
        if name.endswith(".schema.json"):
            v = V.VIEWS_VERSION if name in VIEWS_FILES else E.VERSION
            doc["$id"] = SCHEMA_ID.format(v=v, name=name)
            doc["x-contract-version"] = v
    out["codes.json"] = {"version": E.VERSION, "rejections": codes.REJECTIONS,
                         "gateway": codes.GATEWAY, "matchmaking": codes.MATCHMAKING,
                         "operator": codes.OPERATOR}
    _with_codes(out["matchmaker-decision.schema.json"], "Refused",
                sorted(codes.MATCHMAKING | codes.OPERATOR))
    found = examples()
    out["examples.json"] = found
    out["asyncapi.json"] = asyncapi(found)
    out.update(openapi_documents())
    return out


# ---------------------------------------------------------------- the AsyncAPI document
def _tag(cls: type) -> str:
    return str(cls.__struct_config__.tag)  # type: ignore[attr-defined]


def _draft07(node: Any) -> Any:
    """msgspec writes JSON Schema 2020-12 with OpenAPI's discriminator object; the AsyncAPI
    Schema format is draft 07, where a discriminator is the property's name and a tuple is
    `items: [...]` with `additionalItems: false`."""
    if isinstance(node, list):
        return [_draft07(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _draft07(v) for k, v in node.items()}
    if isinstance(out.get("discriminator"), dict):
        out["discriminator"] = out["discriminator"]["propertyName"]
    if "prefixItems" in out:
        out["items"] = out.pop("prefixItems")
        out["additionalItems"] = False
    return out


def asyncapi(found: dict[str, Any]) -> dict[str, Any]:
    """The topics and the WebSocket API as one AsyncAPI 3.0 document."""
    events = list(E.AnyEvent.__args__)  # type: ignore[attr-defined]
    commands = list(E.AnyCommand.__args__)  # type: ignore[attr-defined]
    client = list(W.AnyClientMessage.__args__)  # type: ignore[attr-defined]
    server = list(W.AnyServerMessage.__args__)  # type: ignore[attr-defined]
    audits = list(A.AnyRecord.__args__)  # type: ignore[attr-defined]
    requests = list(MM.AnyRequest.__args__)  # type: ignore[attr-defined]
    decisions = list(MM.AnyDecision.__args__)  # type: ignore[attr-defined]
    singles: list[Any] = [E.Outcome, V.PlayerUpdate, V.PlayerPatch, E.DeadLetter,
                          board.Standing, directory.TableEntry, snapshots.TableSnapshot,
                          snapshots.Cut]
    _, components = msgspec.json.schema_components(
        [*commands, *events, *singles, *client, *server, *audits, *requests, *decisions],
        ref_template="#/components/schemas/{name}")
    components = _draft07(public({"components": components}, "components",
                                 prune=False)["components"])
    components["Outcome"]["properties"]["code"]["enum"] = ["", *sorted(codes.REJECTIONS)]
    components["CommandOutcome"]["properties"]["code"]["enum"] = ["", *sorted(codes.REJECTIONS)]
    components["ErrorReply"]["properties"]["code"]["enum"] = sorted(codes.GATEWAY)
    components["Refused"]["properties"]["code"]["enum"] = sorted(codes.MATCHMAKING
                                                                 | codes.OPERATOR)

    messages: dict[str, Any] = {}

    def message(name: str, schema: str, example: str, summary: str, key: str | None) -> str:
        body: dict[str, Any] = {"name": name, "title": name, "summary": summary,
                                "contentType": "application/json",
                                "payload": {"$ref": f"#/components/schemas/{schema}"},
                                "examples": [{"name": example, "payload": found[example]}]}
        if key is not None:
            body["bindings"] = {"kafka": {"key": {"type": "string", "description": key},
                                          "bindingVersion": "0.5.0"}}
        messages[name] = body
        return name

    def kafka_channel(spec: topics.TopicSpec, names: list[str]) -> dict[str, Any]:
        retention = spec.retention_ms
        return {"address": spec.name(), "title": spec.suffix, "servers": [
            {"$ref": "#/servers/kafka"}],
            "description": f"Key: {spec.key}. Value: {spec.value}. Written by {spec.writers}; "
                           f"read by {spec.readers}.",
            "messages": {n: {"$ref": f"#/components/messages/{n}"} for n in names},
            "bindings": {"kafka": {"topic": spec.name(), "partitions": topics.PARTITIONS,
                                   "topicConfiguration": {
                                       "cleanup.policy": spec.cleanup.split(","),
                                       "retention.ms": retention},
                                   "bindingVersion": "0.5.0"}}}

    command_names = [message(f"command.{_tag(c)}", c.__name__, f"command.{_tag(c)}",
                             (c.__doc__ or f"the {_tag(c)} command").strip().splitlines()[0],
                             "table id") for c in commands]
    event_names = [message(f"event.{_tag(e)}", e.__name__, f"event.{_tag(e)}",
                           (e.__doc__ or f"the {_tag(e)} event").strip().splitlines()[0],
                           "table id") for e in events]
    outcome = [message("outcome", "Outcome", "outcome.rejected", "what became of one command",
                       "table id")]
    player_update = [message("player-update", "PlayerUpdate", "player-update",
                             "a seat's (a person's, a bot's, or the spectators') whole view, "
                             "versioned", "table id:seat"),
                     message("player-patch", "PlayerPatch", "player-patch",
                             "a seat's view as the changes to its previous version",
                             "table id:seat")]
    dead = [message("dead-letter", "DeadLetter", "dead-letter", "input that could not be "
                    "decoded", "original key")]
    standing = [message("standing", "Standing", "standing", "an account's standing in a "
                        "house after a change", "house/account")]
    entry = [message("directory-entry", "TableEntry", "directory-entry", "a table's "
                     "directory entry (the replays service)", "table id")]
    audit = [message(f"audit.{_tag(r)}", r.__name__, f"audit.{_tag(r)}",
                     (r.__doc__ or _tag(r)).strip().splitlines()[0], "table id")
             for r in audits]
    snapshot = [message("snapshot.table", "TableSnapshot", "snapshot.table", "the processor's "
                        "memory of one table", "table id"),
                message("snapshot.cut", "Cut", "snapshot.cut", "closes a snapshot: its "
                        "offsets, the finished window, the strays", "~cut:<partition>")]
    mm_in = [message(f"matchmaking.{_tag(r)}", r.__name__, f"matchmaking.{_tag(r)}",
                     (r.__doc__ or _tag(r)).strip().splitlines()[0], "house") for r in requests]
    mm_out = [message(f"matchmaker.{_tag(d)}", d.__name__, f"matchmaker.{_tag(d)}",
                      (d.__doc__ or _tag(d)).strip().splitlines()[0], "house") for d in decisions]
    unfinished = [message("tournaments.tournament_scheduled", "TournamentScheduled",
                          "matchmaker.tournament_scheduled", "a tournament not finished: its "
                          "schedule (a tombstone once it has ended or been cancelled)",
                          "tournament id")]
    ws_in = [message(f"ws.{_tag(c)}", c.__name__, f"ws.{_tag(c)}",
                     (c.__doc__ or _tag(c)).strip().splitlines()[0], None) for c in client]
    asked = {_tag(c) for c in client}  # a reply named as its question: `<tag>-reply`

    def out_name(c: type) -> str:
        return f"ws.{_tag(c)}-reply" if _tag(c) in asked else f"ws.{_tag(c)}"

    ws_out = [message(out_name(c), c.__name__, out_name(c),
                      (c.__doc__ or _tag(c)).strip().splitlines()[0], None) for c in server]
    channels = {
        "commands": kafka_channel(topics.COMMANDS, command_names),
        "events": kafka_channel(topics.EVENTS, event_names),
        "outcomes": kafka_channel(topics.OUTCOMES, outcome),
        "playerviews": kafka_channel(topics.PLAYER_VIEWS, player_update),
        "deadletters": kafka_channel(topics.DEAD_LETTERS, dead),
        "standings": kafka_channel(topics.STANDINGS, standing),
        "directory": kafka_channel(topics.DIRECTORY, entry),
        "audit": kafka_channel(topics.AUDIT, audit),
        "snapshots": kafka_channel(topics.SNAPSHOTS, snapshot),
        "matchmaking": kafka_channel(topics.MATCHMAKING, mm_in),
        "matchmaker": kafka_channel(topics.MATCHMAKER, mm_out),
        "tournaments": kafka_channel(topics.TOURNAMENTS, unfinished),
        "websocket": {
            "address": "/ws", "title": "the gateway's WebSocket",
            "servers": [{"$ref": "#/servers/gateway"}],
            "description": (W.__doc__ or "").strip(),
            "messages": {n: {"$ref": f"#/components/messages/{n}"} for n in ws_in + ws_out},
            "bindings": {"ws": {"method": "GET", "bindingVersion": "0.1.0"}}},
    }

    def operation(action: str, channel: str, names: list[str], summary: str) -> dict[str, Any]:
        return {"action": action, "summary": summary, "channel": {"$ref": f"#/channels/{channel}"},
                "messages": [{"$ref": f"#/channels/{channel}/messages/{n}"} for n in names]}

    operations = {
        "receiveCommands": operation("receive", "commands", command_names,
                                     "the processor consumes table commands"),
        "sendEvents": operation("send", "events", event_names, "the table's events, in order"),
        "sendOutcomes": operation("send", "outcomes", outcome, "one outcome per command id"),
        "sendPlayerViews": operation("send", "playerviews", player_update,
                                     "every seat's (bots' included) and the spectators' "
                                     "whole views, versioned (the views service)"),
        "sendDeadLetters": operation("send", "deadletters", dead, "what could not be decoded"),
        "sendStandings": operation("send", "standings", standing,
                                   "the leaderboards' standings, compacted"),
        "sendDirectory": operation("send", "directory", entry,
                                   "the replays service's table directory, compacted"),
        "sendAudit": operation("send", "audit", audit, "the auditor's verdicts on every "
                               "hand and its collusion flags"),
        "sendSnapshots": operation("send", "snapshots", snapshot,
                                   "the processor's snapshots, compacted"),
        "receiveMatchmaking": operation("receive", "matchmaking", mm_in,
                                        "the matchmaker consumes requests"),
        "sendMatchmaker": operation("send", "matchmaker", mm_out, "the matchmaker's "
                                    "decisions, with the table commands they call for"),
        "sendTournaments": operation("send", "tournaments", unfinished, "the unfinished "
                                     "tournaments, compacted (read whole by the gateways)"),
        "receiveClientFrames": operation("receive", "websocket", ws_in,
                                         "the gateway reads client frames"),
        "sendServerFrames": operation("send", "websocket", ws_out,
                                      "the gateway's frames to a client"),
    }
    doc = {
        "asyncapi": "3.0.0",
        "id": "urn:okey101",
        "info": {"title": "okey101", "version": f"{V.VIEWS_VERSION}.0.0",
                 "description": "101 Okey tables on Kafka, and the gateway's WebSocket API. "
                                "Every message carries `v`, its contract's major version: "
                                f"{V.VIEWS_VERSION} for the player views and the WebSocket "
                                f"(views sent as patches), {E.VERSION} for the rest; "
                                "compatible changes are listed in VERSIONING.md."},
        "defaultContentType": "application/json",
        "servers": {
            "kafka": {"host": "127.0.0.1:19092", "protocol": "kafka",
                      "description": "the local broker (tools/kafka/broker.sh)"},
            "gateway": {"host": "127.0.0.1:8100", "protocol": "ws",
                        "description": "python -m services.gateway"}},
        "channels": channels,
        "operations": operations,
        "components": {"messages": messages, "schemas": components},
    }
    _drop_unreferenced(doc, components)  # StackedDeal, once StartMatch lost its deals
    return doc


def render(doc: Any) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--check", action="store_true", help="fail if the folder is stale")
    args = parser.parse_args()
    files = {name: render(doc) for name, doc in schemas().items()}
    return sync(files, args.folder, args.check, "run `make proto` and commit", "from structs")


if __name__ == "__main__":
    raise SystemExit(main())
