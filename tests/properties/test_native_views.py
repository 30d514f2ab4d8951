"""The compiled core's views (`viewparts.NativeTableParts`, native/src/views.rs) publish
byte for byte the records of the Python specification (`viewparts.TableParts`): every
record of recorded matches in every house and partner mode, one command a batch and
batched at random, with bot seats, with players away mid-hand, with seeding windows, and
for one viewer as a replay asks. A mismatch names the house, the match and the record."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101 import native
from okey101.app.views.playerviews import PlayerViews
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import SeatHand, TableState
from okey101.table.viewparts import NativeTableParts, TableParts, table_parts
from tests.properties.support import HOUSES as BASES
from tests.properties.support import recorded, seeds
from tests.unit.test_viewparts import HOUSES, events_of

if native.TableChanges is None:
    pytest.skip("the compiled core is not built", allow_module_level=True)


def native_parts() -> TableParts:
    return NativeTableParts()


@dataclasses.dataclass
class Compared:
    records: int = 0
    patches: int = 0
    wholes: int = 0


def assert_same_records(stream: list[list[E.Event]], sizes: list[int], where: str,
                        counts: Compared | None = None) -> Compared:
    """Both projections over `stream` (each item one command's events), `sizes[k]`
    commands a batch (cycling): the same records, in the same order, byte for byte."""
    counts = Compared() if counts is None else counts
    python, compiled = PlayerViews(parts=TableParts), PlayerViews(parts=native_parts)
    at = k = 0
    while at < len(stream):
        batch = [e for step in stream[at:at + sizes[k % len(sizes)]] for e in step]
        at, k = at + sizes[k % len(sizes)], k + 1
        expected, skipped = python.publish(batch)
        got, skipped_too = compiled.publish(batch)
        assert skipped == skipped_too == [], where
        assert len(got) == len(expected), f"{where}, batch {k}"
        for n, (a, b) in enumerate(zip(got, expected, strict=True)):
            assert (a.key, a.version, a.value) == (b.key, b.version, b.value), \
                f"{where}, batch {k}, record {n} ({b.key!r} at {b.version})"
            kind = msgspec.json.decode(b.value)["kind"]
            counts.patches += kind == "patch"
            counts.wholes += kind == "view"
        counts.records += len(expected)
    return counts


HOUSE_IDS = [f"{h['base']}{'-partners' if h['options'].get('partners') else ''}"
             for h in HOUSES]


def test_the_service_builds_its_views_with_the_compiled_core() -> None:
    assert isinstance(table_parts(), NativeTableParts)
    assert isinstance(PlayerViews().new_parts(), NativeTableParts)


@pytest.mark.parametrize("house", range(len(HOUSES)), ids=HOUSE_IDS)
def test_every_record_is_the_pythons_one_command_at_a_time(house: int) -> None:
    counts = Compared()
    for match in range(3):
        assert_same_records(events_of(house, match), [1], f"{HOUSE_IDS[house]} {match}",
                            counts)
    # patches, and whole views past a seat's first (every KEYFRAME-th), both compared
    assert counts.patches > 500 and counts.wholes > 5 * 3 * 2, counts


BOT_HOUSES = [0, 1, 2, 5, 6, 7]  # classic has no bots


@pytest.mark.parametrize("house", BOT_HOUSES, ids=[HOUSE_IDS[h] for h in BOT_HOUSES])
def test_every_record_is_the_pythons_with_bots_seated(house: int) -> None:
    stream = events_of(house, 0, bots=(1, 3))
    sat = [e for step in stream for e in step if isinstance(e, E.PlayerSat)]
    assert any(s.bot_level == 3 for s in sat)  # the record's level, whatever the label
    assert_same_records(stream, [1], f"{HOUSE_IDS[house]} with bots")


@pytest.mark.parametrize("house", [3, 4], ids=["classic", "classic-partners"])
def test_every_record_is_the_pythons_with_players_away_mid_hand(house: int) -> None:
    assert_same_records(events_of(house, 0, away=True), [1], f"{HOUSE_IDS[house]} away")


@settings(max_examples=25, derandomize=True, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=8),
       st.sampled_from(range(len(HOUSES))), st.sampled_from(range(len(HOUSES))))
def test_every_record_is_the_pythons_whatever_the_batching(
        sizes: list[int], first: int, second: int) -> None:
    a, b = events_of(first, 0), events_of(second, 1)
    interleaved = [c for pair in zip(a, b, strict=False) for c in pair]
    interleaved += a[len(b):] + b[len(a):]
    assert_same_records(interleaved, sizes, f"{HOUSE_IDS[first]}+{HOUSE_IDS[second]} {sizes}")


@settings(max_examples=20, derandomize=True, deadline=None)
@given(st.sampled_from(BASES), seeds)
def test_every_record_is_the_pythons_in_random_matches_seeding_windows_included(
        house: str, seed: str) -> None:
    steps = recorded(house, seed).steps
    stream = [decision for _, _, decision, _ in steps if isinstance(decision, list)]
    assert_same_records(stream, [1], f"{house} seed {seed}")


@pytest.mark.parametrize("viewer", [-1, 0, 2])
def test_one_viewers_records_are_the_pythons_as_a_replay_asks(viewer: int) -> None:
    python, compiled = TableParts(), native_parts()
    state, compared = NEW_TABLE, 0
    for step in events_of(1, 0):
        previous = state.seq
        for event in step:
            state = evolve(state, event)
        expected = python.updates(state, previous, step, None, [viewer])
        got = compiled.updates(state, previous, step, None, [viewer])
        assert [p.value for p in got] == [p.value for p in expected], f"at {state.seq}"
        compared += 1
    assert compared > 100


def a_state_in_play() -> TableState:
    state = NEW_TABLE
    for step in events_of(0, 0)[:40]:
        for event in step:
            state = evolve(state, event)
    assert state.hand is not None and state.hand.seats[0].rack
    return state


def test_a_rack_holding_no_tile_is_refused_with_its_reason() -> None:
    state = a_state_in_play()
    hand = state.hand
    assert hand is not None
    seats = list(hand.seats)
    seats[2] = msgspec.structs.replace(seats[2], rack=(*seats[2].rack[:-1], 99))
    broken = msgspec.structs.replace(state, hand=msgspec.structs.replace(hand, seats=tuple(seats)))
    parts = native_parts()
    with pytest.raises(ValueError, match="rack: no tile has kind 99"):
        parts.updates(broken, 0, [], None, [2])


@pytest.mark.parametrize("seat", [4, -2, 100])
def test_a_seat_that_is_none_is_refused_with_its_reason(seat: int) -> None:
    with pytest.raises(ValueError, match=f"seats: {seat} is not -1..3"):
        native_parts().updates(a_state_in_play(), 0, [], None, [seat])


def test_a_player_that_is_not_a_string_is_refused_not_crashed() -> None:
    state = a_state_in_play()
    broken = msgspec.structs.replace(state, players=(state.players[0], 7, "", ""))
    with pytest.raises((ValueError, TypeError)):
        native_parts().updates(broken, 0, [], None, [-1])


def test_a_hand_of_five_seats_is_refused() -> None:
    state = a_state_in_play()
    hand = state.hand
    assert hand is not None
    broken = msgspec.structs.replace(state, hand=msgspec.structs.replace(
        hand, seats=(*hand.seats, SeatHand())))
    with pytest.raises(ValueError, match="hand: 5 seats"):
        native_parts().updates(broken, 0, [], None, [-1])
