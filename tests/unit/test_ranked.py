"""Ranked means ranked (RULES.md §9, issue 26 item 5): a house's standings count only
matches played at a public table under the house's own options with at least its usual
number of hands; any other table is unranked, its view and lobby entry say so, and the
leaderboards' fold skips its match."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from okey101.app.gateway.viewcache import ViewCache
from okey101.app.processor.processing import PartitionTables
from okey101.app.views.playerviews import PlayerViews
from okey101.profiles import HOUSES, house, resolve
from okey101.simulate import play_match
from okey101.standings import HOUSE_RULES, Ledger
from okey101.standings.house import unranked_reason
from okey101.standings.synthetic import Seating, encoded, match_events
from okey101.table import messages as E
from okey101.table.views import player_view

T0 = 1_780_000_000_000
PEOPLE = Seating(accounts=["a", "b", "c", "d"])


def feed(ledger: Ledger, values: list[bytes]) -> None:
    for offset, value in enumerate(values):
        assert ledger.read(value, 0, offset).notices == ()


def synthetic(house_id: str, options: dict[str, object] | None = None,
              private: bool = False) -> list[bytes]:
    values = encoded(match_events("t1", house_id, PEOPLE, [10, 50, 90, 300], T0,
                                  options=options))
    if private:
        created = msgspec.json.decode(values[0])
        created.update(private=True, owner="a")
        values[0] = msgspec.json.encode(created)
    return values


# ---------------------------------------------------------------- the rule
@pytest.mark.parametrize("house_id", sorted(HOUSE_RULES))
def test_a_public_table_of_the_house_s_own_options_is_ranked(house_id: str) -> None:
    assert unranked_reason(house(house_id), private=False) == ""


def test_a_private_room_is_unranked() -> None:
    assert unranked_reason(house("north-sultan"), private=True) == "a private room"


@pytest.mark.parametrize("spec,reason", [
    ({"base": "north-sultan", "options": {"hands_per_match": 10}}, "10 hands"),
    ({"base": "classic", "options": {"hands_per_match": 1}}, "1 hand:"),
    ({"base": "okey-oyna-duz", "options": {"hands_per_match": 98}}, "98 hands"),
    ({"base": "north-sultan", "options": {"opening_points": 1}}, "opening_points"),
    ({"base": "okeygg", "options": {"turn_seconds": 60}}, "turn_seconds"),
    ({"base": "classic", "options": {"bots_allowed": True}}, "bots_allowed"),
    ({"base": "classic", "options": {"rating": "none"}}, "rating"),
    ({"base": "okeygg", "options": {"penalties": False}}, "penalties"),
    ({"base": "okey-oyna", "options": {"meld_value": "third"}}, "meld_value, opening_points"),
])
def test_fewer_hands_or_a_changed_option_is_unranked_and_says_which(
        spec: dict[str, Any], reason: str) -> None:
    assert reason in unranked_reason(resolve(spec), private=False)


@pytest.mark.parametrize("spec", [
    {"base": "north-sultan", "options": {"hands_per_match": 21}},
    {"base": "okeygg", "options": {"hands_per_match": 7, "partners": True}},
    {"base": "okeygg", "options": {"hands_per_match": 11}},  # its default, named
    {"base": "classic", "options": {"seeding_seconds": 15}},
    {"base": "okey-oyna-duz", "options": {"countdown_from": 40}},
])
def test_what_a_house_lets_its_ranked_tables_choose_stays_ranked(spec: dict[str, Any]) -> None:
    assert unranked_reason(resolve(spec), private=False) == ""


def test_every_option_of_a_house_but_its_choices_is_one_a_ranked_table_keeps() -> None:
    free = {"id", "hands_per_match"}  # another id is another house
    for house_id, rules in HOUSE_RULES.items():
        own = HOUSES[house_id]
        for name, value in msgspec.structs.asdict(own).items():
            if name in free or name in rules.ranked_choices:
                continue
            changed = msgspec.structs.replace(own, **{name: _other(value)})
            assert name in unranked_reason(changed, private=False), (house_id, name)


def _other(value: object) -> object:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if value is None:
        return 1
    if isinstance(value, tuple):
        return (*value, 0)
    return f"{value}-other"


# ---------------------------------------------------------------- the standings
def test_a_north_sultan_table_of_opening_points_1_and_one_hand_moves_no_sp() -> None:
    record = play_match({"base": "north-sultan",
                         "options": {"opening_points": 1, "hands_per_match": 1}}, "ab" * 32)
    assert isinstance(record.events[-1], E.MatchEnded)
    ledger = Ledger()
    feed(ledger, [E.encode(e) for e in record.events])
    assert ledger.board.standings == {}
    assert (ledger.counts["unranked"], ledger.counts["matches"]) == (1, 0)


def test_a_ranked_match_from_the_engine_moves_sp_and_an_unranked_one_beside_it_does_not(
        ) -> None:
    ranked = play_match("north-sultan", "cd" * 32)
    ledger = Ledger()
    feed(ledger, [E.encode(e) for e in ranked.events])
    assert len(ledger.board.standings) == 4 and ledger.counts["matches"] == 1
    before = dict(ledger.board.standings)
    private = encoded(match_events("t2", "north-sultan", Seating(
        accounts=["p0", "p1", "p2", "p3"]), [0, 100, 200, 300], T0 + 3_600_000))
    created = msgspec.json.decode(private[0])
    created.update(private=True, owner="p0")
    feed(ledger, [msgspec.json.encode(created), *private[1:]])  # their private room next
    assert ledger.board.standings == before
    assert ledger.counts["unranked"] == 1


@pytest.mark.parametrize("options,private", [
    ({"hands_per_match": 3}, False), ({"opening_points": 1}, False), (None, True)])
def test_the_leaderboards_skip_an_unranked_match_and_count_it(
        options: dict[str, object] | None, private: bool) -> None:
    ledger = Ledger()
    values = synthetic("north-sultan", options, private)
    feed(ledger, values + values)  # delivered twice: counted once
    assert ledger.board.standings == {}
    assert ledger.counts["unranked"] == 1


def test_a_ranked_synthetic_match_still_counts() -> None:
    ledger = Ledger()
    feed(ledger, synthetic("north-sultan"))
    assert ledger.counts["matches"] == 1 and len(ledger.board.standings) == 4


# ---------------------------------------------------------------- the table and the lobby
def _created(**fields: Any) -> tuple[PartitionTables, list[bytes]]:
    tables = PartitionTables(0, 1)
    command = E.CreateTable(table_id="t", command_id="c", player_id="a", **fields)
    out = tables.handle(b"t", E.encode(command), "c", 0, lambda: "00" * 32, at=T0)
    updates, _ = PlayerViews().apply(out.events)
    return tables, [msgspec.json.encode(u) for u in updates]


@pytest.mark.parametrize("fields,ranked", [
    ({"profile": "north-sultan"}, True),
    ({"profile": "north-sultan", "options": {"opening_points": 1, "hands_per_match": 1}},
     False),
    ({"profile": "north-sultan", "private": True}, False),
])
def test_the_table_s_view_and_its_lobby_entry_say_whether_it_is_ranked(
        fields: dict[str, Any], ranked: bool) -> None:
    tables, updates = _created(**fields)
    view = player_view(tables.tables["t"], -1)
    assert view.ranked is ranked and bool(view.unranked_reason) is not ranked
    cache = ViewCache()
    for update in updates:
        cache.ingest(update)
    if not fields.get("private"):
        assert [t.ranked for t in cache.lobby()] == [ranked]
