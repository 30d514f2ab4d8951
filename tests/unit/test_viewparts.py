"""The views service's projection rebuilds only what a change touched (okey101.app.
playerviews.TableParts) and publishes, at every step, the bytes the plain full rebuild
(`table.views.player_updates`, encoded) would: in every house and the partner modes,
whatever the batching."""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101.app.processor.processing import PartitionTables
from okey101.app.views.playerviews import PlayerViews
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.rules import is_new_turn
from okey101.table.state import TableState
from okey101.table.viewpatch import apply
from okey101.table.views import PlayerUpdate, player_updates

HOUSES = [
    {"base": "north-sultan", "options": {"hands_per_match": 2}},
    {"base": "okeygg", "options": {"hands_per_match": 7}},
    {"base": "okeygg", "options": {"hands_per_match": 7, "partners": True}},
    {"base": "classic", "options": {"hands_per_match": 2}},
    {"base": "classic", "options": {"hands_per_match": 2, "partners": True}},
    {"base": "okey-oyna", "options": {"hands_per_match": 2}},
    {"base": "okey-oyna-duz", "options": {}},
    {"base": "okey-oyna-duz", "options": {"partners": True}},
]


@functools.cache
def events_of(house: int, match: int, away: bool = False, bots: tuple[int, ...] = ()
              ) -> list[list[E.Event]]:
    """The events of each command of a played match in `HOUSES[house]`, as the processor
    wrote them. `away`: with a player's connection lost mid-hand and found again every 23
    commands (the gateway's reports), so that the table's own fields (who is away, until
    when) move while the hand goes on. `bots`: the seats a bot sits at (its level its seat's
    number), where the house has bots."""
    seed = match_seeds(house * 10 + 3, match + 1)[match]
    commands = play_match(HOUSES[house], seed).commands
    table = f"t{house}-{match}"
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    out = []
    for i, c in enumerate(commands):
        state = tables.tables.get(table, NEW_TABLE)
        if isinstance(c, E.Sit) and c.seat in bots:
            c = msgspec.structs.replace(c, bot=True, bot_level=c.seat)
        now = [msgspec.structs.replace(c, table_id=table, command_id=f"{table}-{i}")]
        if away and i % 23 == 0 and state.hand is not None and state.status == "playing":
            now.insert(0, connection_report(state, f"{table}-{i}-away"))
        for command in now:
            out.append(tables.handle(table.encode(), E.encode(command), "commands", len(out),
                                     lambda: "00" * 32, at=1_000 + 50 * len(out)).events)
    return out


def connection_report(state: TableState, command_id: str) -> E.Command:
    """The next seat to act lost its connection, or found it again."""
    assert state.hand is not None
    seat = (state.hand.to_act + 1) % 4
    report = E.ReportDisconnect if state.disconnected[seat] is None else E.ReportReconnect
    return report(table_id=state.table_id, command_id=command_id,
                  player_id=state.players[seat], seat=seat, seq=state.seq)


def full_rebuild(tables: dict[str, TableState], batch: list[E.Event],
                 started: dict[str, int]) -> list[bytes]:
    """The updates of `batch`, every seat's whole view built from the state, encoded; a
    turn starts at the time of the event that moved the table's turn on."""
    changed: dict[str, tuple[int, list[E.Event]]] = {}
    for event in batch:
        state = tables.get(event.table_id, NEW_TABLE)
        changed.setdefault(event.table_id, (state.seq, []))[1].append(event)
        tables[event.table_id] = evolve(state, event)
        if is_new_turn(state, tables[event.table_id]):
            started[event.table_id] = event.at
    return [E.encode(u) for t, (previous, events) in changed.items()
            for u in player_updates(tables[t], previous, events, started.get(t))]


def assert_same_bytes(streams: list[list[list[E.Event]]], sizes: list[int],
                      patched: Counter[str] | None = None) -> int:
    """Project the commands' events of `streams` interleaved, `sizes[k]` commands a batch
    (cycling), both ways; the number of updates compared."""
    commands = [c for step in zip(*streams, strict=False) for c in step]
    rest = [c for s in streams for c in s[min(len(x) for x in streams):]]
    commands += rest
    views, tables, started = PlayerViews(), {}, dict[str, int]()
    held: dict[tuple[str, int], Any] = {}
    patched = Counter() if patched is None else patched
    at, k, compared = 0, 0, 0
    while at < len(commands):
        size = sizes[k % len(sizes)]
        batch = [e for c in commands[at:at + size] for e in c]
        at, k = at + size, k + 1
        published, skipped = views.publish(batch)
        assert skipped == []
        expected = full_rebuild(tables, batch, started)
        assert len(published) == len(expected)
        for p, whole in zip(published, expected, strict=True):
            assert_is_the_view(held, p.value, whole, patched)
        assert [p.key for p in published] == \
            [f"{u['table_id']}:{u['seat']}".encode() for u in map(msgspec.json.decode, expected)]
        compared += len(expected)
    assert views.tables.keys() == {t for t, s in tables.items() if s.status != "over"}
    return compared


def assert_is_the_view(held: dict[tuple[str, int], Any], value: bytes, whole: bytes,
                       patched: Counter[str]) -> None:
    """`value`, a published record, is the whole update `whole` or a patch that, applied to
    the view held for its seat, gives `whole`'s view byte for byte (its events and the
    rest of its envelope the same); `held` follows. `patched` counts the event kinds seen
    in patches."""
    record, expected = msgspec.json.decode(value), msgspec.json.decode(whole)
    key = (expected["table_id"], expected["seat"])
    if record["kind"] == "view":
        assert value == whole
        held[key] = expected["view"]
        return
    assert record.pop("patch") is not None and expected.pop("view") is not None
    assert {**record, "kind": "view"} == expected
    view = apply(held[key], msgspec.json.decode(value)["patch"])
    assert msgspec.json.encode(view) == msgspec.json.encode(
        msgspec.json.decode(whole)["view"])  # byte for byte, in the builder's key order
    assert msgspec.json.encode(view) == E.encode(
        msgspec.json.decode(whole, type=PlayerUpdate).view)
    patched.update(e["type"] for e in record["events"])


@pytest.mark.parametrize("house", range(len(HOUSES)),
                         ids=[f"{h['base']}{'-partners' if h['options'].get('partners') else ''}"
                              for h in HOUSES])
def test_every_update_is_the_full_rebuilds_bytes_one_command_at_a_time(house: int) -> None:
    patched: Counter[str] = Counter()
    kinds: set[str] = set()
    for match in range(3):
        assert assert_same_bytes([events_of(house, match)], [1], patched) > 100
        kinds |= {type(e).__struct_config__.tag for c in events_of(house, match) for e in c
                  if E.visibility(e) != "server"}  # type: ignore[misc]
    # every kind of event the matches wrote came as a patch at least once, but the
    # match's first (a seat's first update is whole) and its last (the table is over)
    assert kinds - set(patched) <= {"table_created", "match_ended"}, kinds - set(patched)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=8),
       st.sampled_from(range(len(HOUSES))), st.sampled_from(range(len(HOUSES))))
def test_every_update_is_the_full_rebuilds_bytes_whatever_the_batching(
        sizes: list[int], first: int, second: int) -> None:
    assert_same_bytes([events_of(first, 0), events_of(second, 1)], sizes)


@pytest.mark.parametrize("house", [3, 4], ids=["classic", "classic-partners"])  # a reconnect window
def test_a_patch_carries_the_tables_own_fields_that_move_mid_hand(house: int) -> None:
    stream = events_of(house, 0, away=True)
    reports = [e for step in stream for e in step
               if isinstance(e, E.PlayerDisconnected | E.PlayerReconnected)]
    assert len(reports) >= 4  # lost and found again, more than once
    patched: Counter[str] = Counter()
    assert assert_same_bytes([stream], [1], patched) > 100
    assert patched["player_disconnected"] and patched["player_reconnected"]
