"""Who sits at the table (RULES.md sections 9 and 11): bots that are not labelled where the
house says so, private rooms whose owner asks for bots, the bots service's part in it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from okey101 import names
from okey101.app.gateway import viewcache
from okey101.table import messages as E
from okey101.table.decide import decide
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.table.views import (
    PlayerView,
    event_for,
    player_updates,
    player_view,
    public_event,
    public_view,
)
from services.bots.app import Bots, mint_id

TABLE = "t"


class Table:
    def __init__(self) -> None:
        self.state: TableState = NEW_TABLE
        self.events: list[E.Event] = []

    def send(self, command: E.Command) -> list[E.Event] | E.Rejection:
        command = msgspec.structs.replace(command, table_id=TABLE, seq=self.state.seq)
        decision = decide(self.state, command)
        if isinstance(decision, list):
            for event in decision:
                self.state = evolve(self.state, event)
            self.events += decision
        return decision

    def ok(self, command: E.Command) -> list[E.Event]:
        decision = self.send(command)
        assert isinstance(decision, list), decision
        return decision

    def refused(self, command: E.Command) -> str:
        decision = self.send(command)
        assert isinstance(decision, E.Rejection), decision
        return decision.code


def new_table(house: str, private: bool = False, owner: str = "") -> Table:
    t = Table()
    t.ok(E.CreateTable(table_id=TABLE, command_id="c", profile=house, private=private,
                       player_id=owner))
    return t


def sit(seat: int, player: str, **bot: Any) -> E.Sit:
    return E.Sit(table_id=TABLE, command_id=f"sit-{player}", seat=seat, player_id=player, **bot)


def start() -> E.StartMatch:
    return E.StartMatch(table_id=TABLE, command_id="start", seat=0, player_id="p0",
                        seed="ab" * 32)


# ---------------------------------------------------------------- §11 bots not labelled
def test_north_sultan_does_not_label_bots_in_events_or_views() -> None:
    t = new_table("north-sultan")
    [sat] = t.ok(sit(0, "p0"))
    [bot_sat] = t.ok(sit(1, "a81c", bot=True, bot_level=3))
    assert (bot_sat.bot, bot_sat.bot_level) == (False, 3)  # type: ignore[attr-defined]
    public = event_for(bot_sat, 0)
    assert public == msgspec.structs.replace(bot_sat, bot_level=None)
    assert public_event(bot_sat) == public
    assert msgspec.structs.replace(public, seat=0, player_id="p0", seq=2) == sat
    t.ok(sit(2, "p2"))
    t.ok(sit(3, "p3"))
    t.ok(start())
    assert t.state.bots == (False, True, False, False)  # the server record knows
    for seat in (0, 1, 2, 3, -1):
        view = player_view(t.state, seat)
        assert view.bots == [False] * 4
        assert view.hand is not None and [s.bot for s in view.hand.seats] == [False] * 4
        assert "bot_level" not in msgspec.json.encode(view).decode()


def test_okey_oyna_labels_its_bots() -> None:
    t = new_table("okey-oyna")
    [bot_sat] = t.ok(sit(1, "bot-1", bot=True))
    assert event_for(bot_sat, 0) == msgspec.structs.replace(bot_sat, bot_level=None)
    assert bot_sat.bot is True  # type: ignore[attr-defined]
    assert public_view(t.state).bots == [False, True, False, False]


def test_a_bots_level_rides_beside_its_view_never_in_it() -> None:
    t = new_table("north-sultan")
    for seat in range(4):
        t.ok(sit(seat, f"p{seat}", bot=seat == 2, bot_level=1))
    t.ok(start())
    updates = player_updates(t.state, 0, [])
    assert [(u.seat, u.bot, u.bot_level) for u in updates] == [
        (-1, False, None), (0, False, None), (1, False, None), (2, True, 1), (3, False, None)]
    [update] = [u for u in updates if u.seat == 2]
    assert update.view == player_view(t.state, 2)
    raw = msgspec.json.encode(update)
    assert b'"bot_level":1' in raw and b"bot_level" not in msgspec.json.encode(update.view)
    # a gateway keeps only the view and the events of an update: the record is gone
    frame = viewcache.ViewCache().ingest(raw)[1]
    assert frame is not None and b"\"bot_level\":1" not in frame and b"\"bot\":true" not in frame


def test_the_engine_never_invents_a_bot_id() -> None:
    """No `bot-<table>-<seat>`: the sender names the bot, and an empty name is refused."""
    t = new_table("north-sultan")
    decision = t.send(E.ReplaceWithBot(table_id=TABLE, command_id="r", seat=0))
    assert isinstance(decision, E.Rejection) and decision.code == "malformed"
    assert "bot_id is empty" in decision.message
    assert t.state.players == ("", "", "", "")


@pytest.mark.parametrize("level", [-1, 5, 99])
def test_a_bot_level_the_bots_cannot_play_is_malformed(level: int) -> None:
    t = new_table("okey-oyna")
    decision = t.send(sit(0, "b", bot=True, bot_level=level))
    assert isinstance(decision, E.Rejection) and decision.code == "malformed"
    decision = t.send(E.ReplaceWithBot(table_id=TABLE, command_id="r", seat=0, bot_id="b",
                                       bot_level=level))
    assert isinstance(decision, E.Rejection) and decision.code == "malformed"


def test_a_player_handing_the_seat_to_a_bot_leaves_it() -> None:
    t = new_table("north-sultan")
    for seat in range(4):
        t.ok(sit(seat, f"p{seat}"))
    t.ok(start())
    left, sat = t.ok(E.ReplaceWithBot(table_id=TABLE, command_id="r", seat=3, player_id="p3",
                                      bot_id="f00d"))
    assert isinstance(left, E.PlayerLeft) and (left.player_id, left.reason) == ("p3", "left")
    assert isinstance(sat, E.PlayerSat) and sat.player_id == "f00d" and not sat.bot
    assert [x.player_id for x in t.state.sitters[3]] == ["p3", "f00d"]


# ---------------------------------------------------------------- §11 private rooms
def test_north_sultan_private_room_seats_no_bot_until_its_owner_asks() -> None:
    t = new_table("north-sultan", private=True, owner="host")
    t.ok(sit(0, "host"))
    assert not public_view(t.state).bots_may_sit
    assert t.refused(sit(1, "b1", bot=True)) == "bots_not_requested"
    assert t.refused(E.ReplaceWithBot(table_id=TABLE, command_id="r", seat=1,
                                      bot_id="b1")) == "bots_not_requested"
    t.ok(sit(1, "friend"))  # people need no request
    assert t.refused(E.RequestBots(table_id=TABLE, command_id="q",
                                   player_id="friend")) == "not_owner"
    [asked] = t.ok(E.RequestBots(table_id=TABLE, command_id="q", player_id="host"))
    assert isinstance(asked, E.BotsRequested) and asked.player_id == "host"
    view = public_view(t.state)
    assert view.private and view.owner == "host" and view.bots_requested and view.bots_may_sit
    assert t.refused(E.RequestBots(table_id=TABLE, command_id="q2",
                                   player_id="host")) == "bots_already_requested"
    t.ok(sit(2, "b2", bot=True))
    t.ok(E.ReplaceWithBot(table_id=TABLE, command_id="r2", seat=3, bot_id="b3"))


def test_okey_oyna_private_room_takes_bots_without_asking() -> None:
    t = new_table("okey-oyna", private=True, owner="host")
    assert public_view(t.state).bots_may_sit
    t.ok(sit(0, "b0", bot=True))


def test_a_public_table_has_no_owner_to_ask_for_bots() -> None:
    t = new_table("north-sultan")
    assert public_view(t.state).bots_may_sit
    assert t.refused(E.RequestBots(table_id=TABLE, command_id="q",
                                   player_id="p0")) == "not_private"


def test_a_private_room_needs_its_owner() -> None:
    decision = decide(NEW_TABLE, E.CreateTable(table_id=TABLE, command_id="c",
                                               profile="north-sultan", private=True))
    assert isinstance(decision, E.Rejection) and decision.code == "malformed"


def test_classic_has_no_bots_even_on_request() -> None:
    t = new_table("classic", private=True, owner="host")
    t.ok(E.RequestBots(table_id=TABLE, command_id="q", player_id="host"))
    assert not public_view(t.state).bots_may_sit
    assert t.refused(sit(0, "b0", bot=True)) == "no_bots"


# ---------------------------------------------------------------- the bots service
def _spectators(t: Table) -> Any:
    [update] = [u for u in player_updates(t.state, 0, []) if u.seat == -1]
    return update


def test_the_bots_service_fills_a_private_room_only_once_its_owner_asked() -> None:
    t = new_table("north-sultan", private=True, owner="host")
    t.ok(sit(0, "host"))
    service = Bots("unused:0", level=3, new_id=lambda: "c0ffee")
    assert service.respond(_spectators(t)) is None
    t.ok(E.RequestBots(table_id=TABLE, command_id="q", player_id="host"))
    command = service.respond(_spectators(t))
    assert isinstance(command, E.ReplaceWithBot)
    assert (command.seat, command.bot_id, command.bot_level) == (1, "c0ffee", 3)
    t.ok(command)  # the engine takes it as sent
    assert public_view(t.state).players[1] == "c0ffee"


def test_the_bots_service_mints_ids_that_say_nothing_of_a_bot() -> None:
    ids = {mint_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(names.SUFFIX.search(i) and names.display_name(i) in names.FIRST_NAMES
               and "bot" not in i.lower() for i in ids)  # shaped like a guest's id


def test_the_bots_service_plays_a_seat_at_its_recorded_level() -> None:
    t = new_table("north-sultan")
    for seat in range(4):
        t.ok(sit(seat, f"p{seat}", bot=True, bot_level=0 if seat == 0 else 2))
    t.ok(start())
    played: list[int] = []

    def policy(level: int) -> Callable[[PlayerView], E.Command]:
        def play(view: PlayerView) -> E.Command:
            played.append(level)
            return E.Discard(table_id="", command_id="", tile=view.rack[0])
        return play

    service = Bots("unused:0", level=2)
    service.policies = {level: policy(level) for level in (0, 1, 2, 3)}
    [update] = [u for u in player_updates(t.state, 0, []) if u.seat == 0]
    command = service.respond(update)
    assert played == [0] and isinstance(command, E.Discard)


class _Record:
    def __init__(self, value: bytes) -> None:
        self.value = value


def test_the_bots_service_reads_only_its_seats_of_the_player_views() -> None:
    """Of the updates every seat gets, the bots service wants a bot seat's not yet acted on,
    and the spectators' while a seat is empty; a person's seat never (skipped on its head,
    before any view is followed)."""
    from services.bots.app import _envelope
    t = new_table("north-sultan")
    t.ok(sit(0, "p0"))
    service = Bots("unused:0", level=2)
    [spectators, person] = player_updates(t.state, 0, [])
    assert service._keep(_Record(msgspec.json.encode(spectators))) == (TABLE, -1)
    assert service._keep(_Record(msgspec.json.encode(person))) is None  # not even followed
    assert service.wants(_envelope(spectators))
    assert not service.wants(_envelope(person))
    for seat in (1, 2, 3):
        t.ok(sit(seat, f"p{seat}", bot=seat == 3, bot_level=1))
    t.ok(start())
    heads = {u.seat: (u, _envelope(u)) for u in player_updates(t.state, 0, [])}
    to_act = heads[3][1].to_act
    assert t.state.hand is not None and to_act == t.state.hand.to_act
    # no seat empty: only the bot seat, and only while it is to act
    assert [s for s, (_, h) in heads.items() if service.wants(h)] == \
        ([3] if to_act == 3 else [])
    assert heads[3][1].bot and not heads[0][1].bot
    bot_to_act = msgspec.structs.replace(heads[3][1], to_act=3)
    assert service.wants(bot_to_act)
    assert service.acted.first(TABLE, 3, bot_to_act.version)  # as `respond` records
    assert not service.wants(bot_to_act)  # acted on that version: skipped
    assert service.respond(heads[0][0]) is None  # a person's seat is never played
