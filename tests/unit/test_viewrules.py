"""The rules' detail a client asks for is answered from its seat's view alone
(`table.viewrules.view_detail`), and is the engine's own answer on the authoritative state:
at every state of played matches in every house and the partner modes."""

from __future__ import annotations

import functools
from collections import Counter

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.table.viewrules import (
    NO_DETAIL,
    UnanswerableView,
    detail,
    state_of_view,
    view_detail,
)
from okey101.table.views import PlayerView, player_view, seat_rules
from tests.unit.test_viewparts import HOUSES, events_of


@functools.cache
def states_of(house: int, match: int) -> list[TableState]:
    """Every state of a played match, after each command's events."""
    state, out = NEW_TABLE, []
    for events in events_of(house, match):
        for event in events:
            state = evolve(state, event)
        out.append(state)
    return out


def wire(view: PlayerView) -> PlayerView:
    """The view as a reader holds it: encoded and decoded."""
    return msgspec.json.decode(msgspec.json.encode(view), type=PlayerView)


def compare(states: list[TableState], seen: Counter[str]) -> None:
    for state in states:
        hand = state.hand
        if hand is None or state.status != "playing":
            continue
        for seat in range(4):
            view = wire(player_view(state, seat))
            got, want = view_detail(view), detail(state, seat)
            assert got == want, (state.table_id, state.seq, seat)
            if got.lay_offs:
                seen["lay_offs"] += 1
            if got.okey_takes:
                seen["okey_takes"] += 1
            if got.penalised_discards:
                seen["penalised_discards"] += 1
            seen["compared"] += 1


@pytest.mark.parametrize("house", range(len(HOUSES)))
def test_the_detail_from_a_view_is_the_engines_on_the_state(house: int) -> None:
    seen: Counter[str] = Counter()
    for match in range(2):
        compare(states_of(house, match), seen)
    assert seen["compared"] > 100
    if HOUSES[house]["base"] != "okey-oyna-duz":  # düz lays nothing and charges nothing
        assert seen["lay_offs"] and seen["penalised_discards"], seen


def test_every_kind_of_detail_is_compared_somewhere() -> None:
    seen: Counter[str] = Counter()
    for house in range(len(HOUSES)):
        compare(states_of(house, 0), seen)
    assert seen["lay_offs"] and seen["okey_takes"] and seen["penalised_discards"], seen


@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.sampled_from(range(len(HOUSES))), st.integers(0, 10_000))
def test_any_dealt_match_answers_the_same_from_its_views(house: int, n: int) -> None:
    commands = play_match(HOUSES[house], match_seeds(n, 1)[0]).commands
    state, states = NEW_TABLE, []
    from okey101.app.processor.processing import PartitionTables
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    for i, c in enumerate(commands):
        for event in tables.handle(b"t", E.encode(msgspec.structs.replace(
                c, table_id="t", command_id=f"c{i}")), "c", i, lambda: "00" * 32).events:
            state = evolve(state, event)
        states.append(state)
    compare(states, Counter())


def test_only_the_seat_to_act_in_its_play_phase_has_detail() -> None:
    for state in states_of(0, 0):
        hand = state.hand
        if hand is None or state.status != "playing":
            continue
        for seat in range(4):
            if hand.to_act != seat or hand.phase != "play":
                assert detail(state, seat) == NO_DETAIL


def test_a_rebuilt_state_holds_no_other_seats_tiles_and_the_same_gates() -> None:
    for state in states_of(1, 0)[::7]:
        if state.hand is None or state.status != "playing":
            continue
        seat = state.hand.to_act
        rebuilt = state_of_view(wire(player_view(state, seat)))
        assert rebuilt.hand is not None
        assert all(not h.rack for i, h in enumerate(rebuilt.hand.seats) if i != seat)
        assert rebuilt.hand.seats[seat].rack == state.hand.seats[seat].rack
        assert rebuilt.hand.deck_left == state.hand.deck_left
        assert R.allowed_commands(rebuilt, seat) == seat_rules(state, seat).allowed


def test_a_spectators_view_is_refused_with_its_reason() -> None:
    state = states_of(0, 0)[10]
    with pytest.raises(UnanswerableView, match="seated player"):
        view_detail(wire(player_view(state, -1)))


def test_a_view_with_a_tile_that_is_not_one_is_refused_naming_it() -> None:
    state = next(s for s in states_of(0, 0) if s.hand is not None and s.hand.phase == "play")
    view = wire(player_view(state, state.hand.to_act))  # type: ignore[union-attr]
    bad = msgspec.structs.replace(view, rack=["Q99", *view.rack[1:]])
    with pytest.raises(UnanswerableView, match="Q99"):
        view_detail(msgspec.structs.replace(bad, rules=msgspec.structs.replace(
            bad.rules, may_lay_off=True)))
