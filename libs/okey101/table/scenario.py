"""Scenarios: a whole table scripted as JSON, played through decide/evolve.

The contract (README, "Scenarios"): a profile, one deal or several, and commands by seat;
the result is one line per command and a final summary. Pure: a dict in, dicts out.
"""

from __future__ import annotations

from typing import Any

import msgspec

from okey101 import tiles
from okey101.errors import MalformedInput
from okey101.table import messages as E
from okey101.table.decide import decide
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.terms import SEATS

TABLE = "scenario"
_COMMAND_TAGS = {cls.__struct_config__.tag: cls for cls in E.AnyCommand.__args__}
_SETUP = {"create_table", "start_match"}  # a substitute may "sit" mid-match


def apply(state: TableState, command: E.Command) -> tuple[TableState, E.Rejection | list[E.Event]]:
    decision = decide(state, command)
    if isinstance(decision, list):
        for event in decision:
            state = evolve(state, event)
    return state, decision


def setup(doc: dict[str, Any]) -> tuple[TableState, list[E.Event]]:
    profile = doc.get("profile", "okeygg")
    base: Any
    options: Any
    if isinstance(profile, str):
        base, options = profile, {}
    elif isinstance(profile, dict):
        base, options = profile.get("base"), profile.get("options") or {}
    else:
        raise MalformedInput("profile: a house name or {\"base\": ..., \"options\": {...}}")
    if "deals" in doc:
        raw_deals = doc["deals"]
    elif "deal" in doc:
        raw_deals = [doc["deal"]]
    else:
        raise MalformedInput("scenario needs \"deal\" or \"deals\"")
    if not isinstance(raw_deals, list) or not raw_deals:
        raise MalformedInput("deals must be a non-empty list")
    for n, d in enumerate(raw_deals):
        where = "deal" if "deal" in doc else f"deals[{n}]"
        if not isinstance(d, dict):
            raise MalformedInput(f"{where}: not an object")
        _refuse_unknown(d, _DEAL_KEYS, where)
    try:
        deals = [msgspec.convert(d, E.StackedDeal) for d in raw_deals]
    except msgspec.ValidationError as exc:
        raise MalformedInput(f"deal: {_plain(exc)}") from None
    state = NEW_TABLE
    events: list[E.Event] = []
    setup_commands: list[E.Command] = [
        E.CreateTable(table_id=TABLE, command_id="setup-create", profile=base or "",
                      options=options)]
    for seat in range(SEATS):
        setup_commands.append(E.Sit(table_id=TABLE, command_id=f"setup-sit-{seat}",
                                    player_id=f"p{seat}", seat=seat))
    setup_commands.append(E.StartMatch(table_id=TABLE, command_id="setup-start",
                                       player_id="p0", seat=0, deals=deals))
    for command in setup_commands:
        command = msgspec.structs.replace(command, seq=state.seq)
        state, decision = apply(state, command)
        if isinstance(decision, E.Rejection):
            raise MalformedInput(f"setup ({type(command).__name__}): {decision.message}")
        events += decision
    return state, events


_ENVELOPE = {"table_id", "command_id", "type"}  # filled here; `at` may be given (windows)
_DOC_KEYS = {"profile", "deal", "deals", "commands", "rule", "notes", "expect"}  # for people
_DEAL_KEYS = set(E.StackedDeal.__struct_fields__)


def _refuse_unknown(given: dict[str, Any], known: set[str], where: str) -> None:
    for key in given:
        if key not in known:
            raise MalformedInput(f"{where}: unknown key {key!r} (known: "
                                 f"{', '.join(sorted(known))})")


def to_command(state: TableState, raw: Any, i: int) -> E.Command:
    if not isinstance(raw, dict):
        raise MalformedInput(f"commands[{i}]: not an object")
    fields = dict(raw)
    name = fields.pop("cmd", None)
    if not isinstance(name, str) or name not in _COMMAND_TAGS or name in _SETUP:
        raise MalformedInput(f"commands[{i}]: unknown command {name!r}")
    known = set(_COMMAND_TAGS[name].__struct_fields__) - _ENVELOPE
    _refuse_unknown(fields, known | {"cmd"}, f"commands[{i}] ({name})")
    seat = fields.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < SEATS:
        raise MalformedInput(f"commands[{i}]: seat must be 0-{SEATS - 1}, got {seat!r}")
    fields.setdefault("player_id", state.players[seat])
    if name == "timeout":
        fields.setdefault("turn", state.turn)
    fields.setdefault("seq", state.seq)  # a given seq tests the stale-command check
    fields |= {"type": name, "table_id": TABLE, "command_id": f"cmd-{i}"}
    try:
        command: E.Command = msgspec.convert(fields, E.AnyCommand)
    except msgspec.ValidationError as exc:
        raise MalformedInput(f"commands[{i}] ({name}): {_plain(exc)}") from None
    for group in _tile_groups(command):
        for token in group:
            try:
                tiles.parse_meld_token(token)
            except MalformedInput as exc:
                raise MalformedInput(f"commands[{i}]: {exc}") from None
    return command


def _plain(exc: msgspec.ValidationError) -> str:
    """msgspec's message in words: "missing field `tile`", "`seat`: expected int"."""
    text = str(exc).replace("Object missing required field", "missing field")
    return text.replace(" - at `$.", " - at `")


def _tile_groups(command: E.Command) -> list[list[str]]:
    groups: list[list[str]] = []
    if isinstance(command, E.Discard):
        groups.append([command.tile])
    if isinstance(command, (E.LayOff, E.TakeOkey)):
        groups.append(command.tiles)
    if isinstance(command, (E.Open, E.Lay)):
        groups += command.melds + command.pairs
    return groups


def run(doc: Any) -> list[dict[str, Any]]:
    """Play a scenario; MalformedInput (naming the place) for a malformed document."""
    if not isinstance(doc, dict):
        raise MalformedInput("a scenario is a JSON object")
    _refuse_unknown(doc, _DOC_KEYS, "scenario")
    state, _ = setup(doc)
    commands = doc.get("commands", [])
    if not isinstance(commands, list):
        raise MalformedInput("commands must be a list")
    parsed_first = [to_command(state, raw, i) for i, raw in enumerate(commands)]
    del parsed_first  # every command is checked for shape before any is played
    lines: list[dict[str, Any]] = []
    for i, raw in enumerate(commands):
        state, decision = apply(state, to_command(state, raw, i))
        if isinstance(decision, E.Rejection) and decision.code == "malformed":
            raise MalformedInput(f"commands[{i}]: {decision.message}")
        if isinstance(decision, E.Rejection):
            lines.append({"i": i, "ok": False, "code": decision.code,
                          "message": decision.message})
        else:
            lines.append({"i": i, "ok": True, "events": msgspec.to_builtins(decision)})
    lines.append({"final": summary(state)})
    return lines


def summary(state: TableState) -> dict[str, Any]:
    hand = state.hand
    return {
        "hand_scores": [list(s) for s in state.hand_scores],
        "totals": state.totals(),
        "penalties": list(state.penalties),
        "opened": [h.opened for h in hand.seats] if hand else [None] * SEATS,
        "finished_by": hand.finished_by if hand else None,
        "finish": hand.finish if hand else None,
        "racks": [tiles.names(sorted(h.rack, key=tiles.sort_key)) for h in hand.seats]
        if hand else [[] for _ in range(SEATS)],
        "turn": state.turn,
        "to_act": hand.to_act if hand else None,
        "status": state.status,
    }
