"""The gateway's pure parts: tokens, the rate limit, the view cache (resume and the lobby),
commands stamped from moves, and the processor's player views (one per seat per batch)."""

from __future__ import annotations

import json
from typing import Any

import jwt
import msgspec
import pytest

from okey101.app.gateway import identity
from okey101.app.gateway import websocket as W
from okey101.app.gateway.ratelimit import TokenBucket
from okey101.app.gateway.viewcache import RulesRefused, ViewCache
from okey101.app.processor.processing import PartitionTables
from okey101.app.views.playerviews import PlayerViews
from okey101.table import messages as E
from okey101.table.viewpatch import apply, decode_update
from okey101.table.viewrules import view_detail
from okey101.table.views import (
    PlayerPatch,
    PlayerUpdate,
    PlayerView,
    player_update_decoder,
)
from tests.kafka.support import record_timeout_match

SECRET = "k" * 40
NOW = 1_767_225_600


# ---------------------------------------------------------------- tokens
def test_a_token_names_the_player_it_was_minted_for() -> None:
    assert identity.verify(SECRET, identity.mint(SECRET, "ayse", NOW), NOW + 10) == "ayse"


def test_a_token_signed_with_another_key_is_refused_as_bad() -> None:
    forged = identity.mint("x" * 40, "ayse", NOW)
    with pytest.raises(identity.TokenRefused) as refused:
        identity.verify(SECRET, forged, NOW)
    assert refused.value.code == "bad_token"


def test_an_altered_token_is_refused_as_bad() -> None:
    head, _body, sig = identity.mint(SECRET, "ayse", NOW).split(".")
    other = identity.mint(SECRET, "mehmet", NOW).split(".")[1]
    with pytest.raises(identity.TokenRefused, match="token refused") as refused:
        identity.verify(SECRET, f"{head}.{other}.{sig}", NOW)
    assert refused.value.code == "bad_token"


@pytest.mark.parametrize("garbage", ["", "abc", "a.b.c", "null"])
def test_garbage_is_refused_as_a_bad_token(garbage: str) -> None:
    with pytest.raises(identity.TokenRefused):
        identity.verify(SECRET, garbage, NOW)


def test_an_expired_token_is_refused_as_expired() -> None:
    token = identity.mint(SECRET, "ayse", NOW, ttl=60)
    with pytest.raises(identity.TokenRefused) as refused:
        identity.verify(SECRET, token, NOW + 61)
    assert refused.value.code == "token_expired"


def test_a_player_id_must_be_plain() -> None:
    with pytest.raises(ValueError):
        identity.mint(SECRET, "a/b", NOW)


# ---------------------------------------------------------------- the rate limit
def test_a_burst_is_allowed_then_the_rate() -> None:
    bucket = TokenBucket(rate=10, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.1) and not bucket.take(0.1)


# ---------------------------------------------------------------- moves to commands
def test_the_gateway_stamps_the_envelope_and_a_payload_never_names_the_player() -> None:
    message = W.client_decoder.decode(b'{"type":"command","id":"c1","table_id":"t",'
                                      b'"command":{"type":"discard","tile":"R5"}}')
    assert isinstance(message, W.SendCommand)
    command = W.to_command(message.command, table_id="t", command_id="ayse/c1",
                           player_id="ayse", seat=2, seq=9)
    assert command == E.Discard(table_id="t", command_id="ayse/c1", player_id="ayse", seat=2,
                                seq=9, tile="R5")
    with pytest.raises(msgspec.ValidationError, match="player_id"):
        W.client_decoder.decode(b'{"type":"command","id":"c1","table_id":"t","command":'
                                b'{"type":"discard","tile":"R5","player_id":"mehmet"}}')


@pytest.mark.parametrize(("move", "expected"), [
    (b'{"type":"commit_seed","commitment":"ab"}', (E.CommitSeed, {"commitment": "ab"})),
    (b'{"type":"reveal_seed","client_seed":"cd"}', (E.RevealSeed, {"client_seed": "cd"})),
    (b'{"type":"request_bots"}', (E.RequestBots, {})),
    (b'{"type":"finish","tile":"R5","pairs":[["K1","K1"]]}',
     (E.Finish, {"tile": "R5", "pairs": [["K1", "K1"]]})),
    (b'{"type":"create_table","profile":"classic","private":true}',
     (E.CreateTable, {"profile": "classic", "private": True})),
])
def test_a_person_may_send_every_command_a_seat_or_owner_sends(
        move: bytes, expected: tuple[type[E.Command], dict[str, Any]]) -> None:
    """Client seeds (deal version 2), the owner's bots, the düz finish, private rooms: the
    gateway relays them all, stamped like any move."""
    message = W.client_decoder.decode(b'{"type":"command","id":"c1","table_id":"t",'
                                      b'"command":' + move + b'}')
    assert isinstance(message, W.SendCommand)
    command = W.to_command(message.command, table_id="t", command_id="ayse/c1",
                           player_id="ayse", seat=1, seq=4)
    kind, fields = expected
    assert command == kind(table_id="t", command_id="ayse/c1", player_id="ayse", seat=1,
                           seq=4, **fields)


def test_a_person_seating_a_bot_chooses_its_level_up_to_the_searching_level_4() -> None:
    message = W.client_decoder.decode(b'{"type":"command","id":"c1","table_id":"t","command":'
                                      b'{"type":"replace_with_bot","seat":3,"bot_level":4}}')
    assert isinstance(message, W.SendCommand)
    command = W.to_command(message.command, table_id="t", command_id="ayse/c1",
                           player_id="ayse", seat=3, seq=4, bot_id="b1")
    assert isinstance(command, E.ReplaceWithBot) and command.bot_level == 4
    for level in (b"0", b"5"):  # level 0 drives simulations, it is no house's bot
        with pytest.raises(msgspec.ValidationError, match="bot_level"):
            W.client_decoder.decode(b'{"type":"command","id":"c1","table_id":"t","command":'
                                    b'{"type":"replace_with_bot","seat":3,"bot_level":'
                                    + level + b'}}')


@pytest.mark.parametrize("frame", [b'{"type":"command","id":"x","command":{"type":"timeout",'
                                   b'"turn":3}}',
                                   b'{"type":"command","id":"x","command":{"type":"sit",'
                                   b'"seat":0,"bot":true}}',
                                   b'{"type":"nope"}', b"[1,2]", b"{"])
def test_a_client_cannot_send_server_commands_or_garbage(frame: bytes) -> None:
    with pytest.raises((msgspec.DecodeError, msgspec.ValidationError)):
        W.client_decoder.decode(frame)


# ---------------------------------------------------------------- the player views
def _tables_after(commands: list[E.Command]) -> tuple[PartitionTables, list[PlayerUpdate]]:
    """The processor's tables after `commands`, and the player views of all their events
    projected as one batch."""
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    events: list[E.Event] = []
    for i, command in enumerate(commands):
        out = tables.handle(command.table_id.encode(), E.encode(command), "c", i,
                            lambda: "00" * 32, at=NOW * 1000)
        events += out.events
    updates, skipped = PlayerViews().apply(events)
    assert skipped == []
    return tables, updates


def test_one_batch_publishes_one_view_per_human_seat_and_the_spectators() -> None:
    commands, _ = record_timeout_match("t1", seed=7)
    tables, updates = _tables_after(commands[:20])
    assert [u.seat for u in updates] == [-1, 0, 1, 2, 3]  # the spectators' first
    assert {u.version for u in updates} == {tables.tables["t1"].seq}
    assert all(u.previous == 0 for u in updates)
    assert next(u for u in updates if u.seat == -1).view.rack == []


def test_a_seat_sees_only_its_own_rack_in_its_update_events() -> None:
    commands, _ = record_timeout_match("t1", seed=7)
    _, updates = _tables_after(commands[:7])
    for update in updates:
        racks = [e for e in update.events if isinstance(e, E.RackDealt)]
        assert [r.seat for r in racks] == ([update.seat] if update.seat >= 0 else [])
        assert not any(isinstance(e, (E.HandDealt, E.MatchSeeded)) for e in update.events)


def test_the_rules_are_computed_only_for_the_seat_to_act() -> None:
    commands, _ = record_timeout_match("t1", seed=7)
    _, updates = _tables_after(commands[:9])
    acting = [u for u in updates if u.view.rules.allowed]
    assert len(acting) == 1 and acting[0].seat == acting[0].view.hand.to_act  # type: ignore[union-attr]


def test_a_bot_seat_gets_its_update_flagged_beside_the_view_and_never_forwarded() -> None:
    sit = [E.CreateTable(table_id="t", command_id="c", profile="okeygg"),
           E.Sit(table_id="t", command_id="s0", player_id="ayse", seat=0, seq=1),
           E.Sit(table_id="t", command_id="s1", player_id="b1", seat=1, seq=2, bot=True,
                 bot_level=3)]
    _, updates = _tables_after(sit)
    assert sorted((u.seat, u.bot, u.bot_level) for u in updates) == [
        (-1, False, None), (0, False, None), (1, True, 3)]
    cache = ViewCache()
    for u in updates:
        frame = cache.ingest(msgspec.json.encode(u))[1]
        assert frame is not None and b"\"bot_level\":3" not in frame  # events: null


# ---------------------------------------------------------------- the view cache
def _feed(cache: ViewCache, updates: list[PlayerUpdate] | list[bytes]) -> None:
    for u in updates:
        cache.ingest(u if isinstance(u, bytes) else msgspec.json.encode(u))


def _play(n: int) -> list[list[bytes]]:
    """The player-views records of a timeout match as the views service publishes them
    (a seat's first view whole, then patches), one batch per command."""
    commands, _ = record_timeout_match("t1", seed=7)
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    views = PlayerViews()
    batches = []
    for i, command in enumerate(commands[:n]):
        out = tables.handle(b"t1", E.encode(command), "c", i, lambda: "00" * 32)
        batches.append([p.value for p in views.publish(out.events)[0]])
    return batches


def _of(batch: list[bytes], seat: int) -> bytes:
    return next(r for r in batch if decode_update(r).seat == seat)


def test_an_update_published_again_is_kept_once_and_not_sent_to_clients_again() -> None:
    cache = ViewCache()
    batches = _play(10)
    for batch in batches:
        _feed(cache, batch)
    newest = cache.seats["t1"][0].version
    again = _of(batches[8], 0)  # the views service's at-least-once
    update, frame = cache.ingest(again)
    assert update.version == decode_update(again).version and frame is None
    assert cache.seats["t1"][0].version == newest


def test_a_patch_is_forwarded_as_a_patch_frame_that_gives_the_whole_view() -> None:
    cache = ViewCache()
    batches = _play(12)
    for batch in batches[:-1]:
        _feed(cache, batch)
    held = json.loads(cache.resume("t1", 1, None) or b"")["view"]
    _, frame = cache.ingest(_of(batches[-1], 1))
    assert frame is not None
    patch = json.loads(frame)
    assert patch["type"] == "patch" and patch["previous"] == held["seq"]
    assert "bot" not in patch and "bot_level" not in patch  # the server's record stays
    apply(held, patch["patch"])
    assert held == json.loads(cache.resume("t1", 1, None) or b"")["view"]
    assert held["seq"] == patch["version"]


def test_a_patch_after_a_gap_is_not_forwarded_and_the_next_whole_view_heals_it() -> None:
    cache = ViewCache()
    batches = _play(14)
    for batch in batches[:10]:
        _feed(cache, batch)
    _, frame = cache.ingest(_of(batches[11], 2))  # the one of batch 10 never arrived
    assert frame is None
    assert cache.resume("t1", 2, None) is None  # no view to serve while the gap lasts
    whole = PlayerViews()
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    commands, _ = record_timeout_match("t1", seed=7)
    for i, command in enumerate(commands[:13]):
        for event in tables.handle(b"t1", E.encode(command), "c", i, lambda: "00" * 32).events:
            whole.fold(event)
    out = tables.handle(b"t1", E.encode(commands[13]), "c", 13, lambda: "00" * 32)
    healed = next(p for p in whole.publish(out.events)[0] if p.seat == 2)  # a restart's
    _, frame = cache.ingest(healed.value)
    assert frame is not None and json.loads(frame)["type"] == "update"
    assert json.loads(cache.resume("t1", 2, None) or b"")["view"]["seq"] == healed.version


@pytest.mark.parametrize("body", [
    {"patch": None}, {"patch": "x"}, {"patch": [{"op": "remove", "path": "/seq"}]},
    {"patch": [{"op": "replace", "path": 3, "value": 1}]},
    {"patch": [{"op": "replace", "path": "/seq"}]},
    {"patch": [{"op": "replace", "path": "/seq", "value": 1, "from": "/x"}]},
    {"kind": "view", "patch": None},  # a whole view without its view
])
def test_a_patch_whose_operations_are_not_operations_is_refused_and_not_kept(
        body: dict[str, Any]) -> None:
    cache = ViewCache()
    batches = _play(12)
    for batch in batches[:-1]:
        _feed(cache, batch)
    held = cache.seats["t1"][1].version
    record = json.loads(_of(batches[-1], 1))
    record |= body
    with pytest.raises(msgspec.ValidationError):
        cache.ingest(json.dumps(record).encode())
    assert cache.seats["t1"][1].version == held  # the next good patch still follows


def test_the_spectators_patches_move_the_lobby_on() -> None:
    cache = ViewCache()
    views = PlayerViews()
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    sits = [E.CreateTable(table_id="t", command_id="c", profile="okeygg"),
            E.Sit(table_id="t", command_id="s0", player_id="ayse", seat=0, seq=1),
            E.Sit(table_id="t", command_id="s1", player_id="can", seat=1, seq=2)]
    for i, command in enumerate(sits):
        out = tables.handle(b"t", E.encode(command), "c", i, lambda: "00" * 32)
        records = [p.value for p in views.publish(out.events)[0]]
        for record in records:
            cache.ingest(record)
    assert isinstance(decode_update(records[0]), PlayerPatch)  # the spectators': a patch
    [summary] = cache.lobby("okeygg")
    assert summary.players == ["ayse", "can", "", ""] and summary.free_seats == [2, 3]
    assert summary.version == 3


def test_an_update_overlapping_the_held_version_is_trimmed_to_follow_it() -> None:
    commands, _ = record_timeout_match("t1", seed=7)
    tables = PartitionTables(0, 1, allow_stacked_deals=True)
    events: list[E.Event] = []
    for i, command in enumerate(commands[:12]):
        events += tables.handle(b"t1", E.encode(command), "c", i, lambda: "00" * 32).events
    first = PlayerViews()  # the views service before a crash: two batches
    cache = ViewCache()
    _feed(cache, first.apply(events[:9])[0])
    held = cache.seats["t1"][0].version
    again = PlayerViews()  # after it: the same events batched otherwise
    for event in events[:5]:
        again.fold(event)
    overlapping = next(u for u in again.apply(events[5:])[0] if u.seat == 0)
    assert overlapping.previous < held < overlapping.version
    update, frame = cache.ingest(msgspec.json.encode(overlapping))
    assert update.previous == held and frame is not None
    got = json.loads(frame)
    assert got["previous"] == held
    assert [e["seq"] for e in got["events"]] == \
        [e.seq for e in overlapping.events if e.seq > held]
    assert json.loads(cache.resume("t1", 0, held) or b"")["events"] == got["events"]


def _in_play() -> tuple[ViewCache, dict[str, Any]]:
    """A cache holding a timeout match where seat 0 has drawn (its play phase), and the
    seat's newest view."""
    cache = ViewCache()
    for batch in _play(6):
        _feed(cache, batch)
    view = json.loads(cache.resume("t1", 0, None) or b"")["view"]
    assert view["hand"]["to_act"] == 0 and view["hand"]["phase"] == "play"
    return cache, view


def test_the_rules_detail_is_answered_only_at_the_gateways_newest_version() -> None:
    cache, view = _in_play()
    detail = cache.rules("t1", 0, view["seq"])
    assert detail == view_detail(msgspec.json.decode(json.dumps(view), type=PlayerView))
    assert detail.penalised_discards  # an okey in seed 7's rack: its discard is penalised
    for version in (view["seq"] - 1, view["seq"] + 1):
        with pytest.raises(RulesRefused) as refused:
            cache.rules("t1", 0, version)
        assert refused.value.code == "stale_version"


def test_a_view_the_gateway_cannot_rebuild_is_refused_as_unavailable_not_stale() -> None:
    cache, view = _in_play()
    view["rack"][0] = "Q99"  # a view no table could show: the server's fault, not the frame's
    forged = {"kind": "view", "table_id": "t1", "seat": 0, "version": view["seq"] + 1,
              "previous": view["seq"], "events": [], "view": view | {"seq": view["seq"] + 1}}
    cache.ingest(json.dumps(forged).encode())
    with pytest.raises(RulesRefused) as refused:
        cache.rules("t1", 0, view["seq"] + 1)
    assert refused.value.code == "rules_unavailable" and "Q99" in str(refused.value)


def test_a_client_ahead_of_the_gateway_is_never_sent_an_older_view() -> None:
    cache = ViewCache()
    batches = _play(12)
    for batch in batches[:8]:
        _feed(cache, batch)
    ahead = decode_update(_of(batches[10], 0)).version  # read from a gateway further on
    assert cache.is_ahead("t1", 0, ahead) and cache.resume("t1", 0, ahead) is None
    assert not cache.is_ahead("t1", 0, None) and not cache.is_ahead("t1", 0, 3)
    for batch in batches[8:11]:
        _feed(cache, batch)
    assert not cache.is_ahead("t1", 0, ahead)
    assert json.loads(cache.resume("t1", 0, ahead) or b"")["type"] == "synced"


def test_a_client_holding_the_newest_version_is_told_it_is_synced() -> None:
    cache = ViewCache()
    for batch in _play(10):
        _feed(cache, batch)
    version = cache.tables["t1"].version
    assert json.loads(cache.resume("t1", 0, version) or b"") == \
        {"type": "synced", "v": 2, "table_id": "t1", "seat": 0, "version": version}


def test_a_client_that_missed_updates_gets_only_the_events_since_its_version() -> None:
    cache = ViewCache()
    batches = _play(12)
    for batch in batches:
        _feed(cache, batch)
    held = decode_update(_of(batches[8], 1)).version
    frame = json.loads(cache.resume("t1", 1, held) or b"")
    assert frame["type"] == "update" and not frame["reset"] and frame["previous"] == held
    assert [e["seq"] for e in frame["events"]] == \
        [s for s in range(held + 1, frame["version"] + 1)
         if any(e["seq"] == s for e in frame["events"])]
    assert frame["events"][0]["seq"] == held + 1
    assert frame["view"]["seq"] == frame["version"]


def test_a_client_too_far_behind_gets_the_whole_view_flagged_reset() -> None:
    cache = ViewCache(depth=4)
    batches = _play(20)
    for batch in batches:
        _feed(cache, batch)
    frame = json.loads(cache.resume("t1", 2, 3) or b"")
    assert frame["reset"] and frame["events"] == [] and frame["previous"] == -1
    assert frame["view"]["seat"] == 2


def test_the_lobby_lists_seating_tables_by_house() -> None:
    cache = ViewCache()
    _, updates = _tables_after([E.CreateTable(table_id="t", command_id="c", profile="okeygg")])
    _feed(cache, updates)
    assert [t.table_id for t in cache.lobby("okeygg")] == ["t"]
    assert cache.lobby("classic") == []
    summary = cache.lobby()[0]
    assert summary.free_seats == [0, 1, 2, 3] and summary.status == "seating"


def test_a_player_update_round_trips_through_its_decoder() -> None:
    _, updates = _tables_after([E.CreateTable(table_id="t", command_id="c", profile="okeygg")])
    assert player_update_decoder.decode(msgspec.json.encode(updates[0])) == updates[0]


def test_the_processor_dead_letters_a_command_of_a_contract_version_it_does_not_speak() -> None:
    tables = PartitionTables(0, 1)
    future = b'{"type":"create_table","v":2,"table_id":"t","command_id":"c"}'
    out = tables.handle(b"t", future, "c", 0, lambda: "00" * 32)
    assert out.dead_letter is not None and "v=2" in out.dead_letter.reason
    assert out.outcome is None and tables.tables == {}


def test_a_token_carries_its_roles_and_a_malformed_roles_claim_is_refused() -> None:
    """Has Oda is open to the `vip` role the token carries (okey101.app.matchmaker.halls)."""
    vip = identity.mint(SECRET, "ayse", NOW, roles=("vip", "vip"))
    assert identity.verify_roles(SECRET, vip, NOW + 1) == ("ayse", ["vip"])
    assert identity.verify_roles(SECRET, identity.mint(SECRET, "ayse", NOW), NOW) == ("ayse", [])
    forged = jwt.encode({"sub": "ayse", "iat": NOW, "exp": NOW + 60, "roles": "vip"}, SECRET,
                        algorithm=identity.ALGORITHM)
    with pytest.raises(identity.TokenRefused) as refused:
        identity.verify_roles(SECRET, forged, NOW)
    assert refused.value.code == "bad_token"
