"""The gateway against the real broker and processor: identity, commands and their outcomes,
resuming a view, and bad input and attacks (each gets a clear code, nothing that should
not reaches Kafka, and the other players are unaffected)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlparse

import aiohttp
import jwt
import msgspec
import pytest

from okey101.app import topics
from okey101.app.gateway import identity
from okey101.table import messages as E
from okey101.table.viewrules import view_detail
from okey101.table.views import PlayerView
from tests.kafka.stack import SECRET, Stack
from tests.kafka.support import publish, read_all, record_timeout_match
from tests.kafka.wsclient import Client, connect, token


@pytest.fixture
async def stack(kafka_bootstrap: str) -> AsyncIterator[Stack]:
    # stacked deals: the frozen-socket test replays a recorded match (a seeded start)
    running = Stack(kafka_bootstrap, ("--queued-messages", "8", "--commands-per-second", "5",
                                      "--command-burst", "5", "--connections-per-account", "3",
                                      "--send-buffer", "4096", "--flood-strikes", "50"),
                    ("--allow-stacked-deals",))
    try:
        await running.start(bots=False, timers=False)
        yield running
    finally:
        running.stop()


async def seated_table(client: Client) -> str:
    """A table where the client sits at seat 0 (three seats still empty)."""
    created = await client.command("new", {"type": "create_table", "profile": "okeygg",
                                           "options": {"hands_per_match": 7}})
    assert created["accepted"], created
    table = created["table_id"]
    assert (await client.command("sit", {"type": "sit", "seat": 0}, table))["accepted"]
    return str(table)


async def commands_in_kafka(stack: Stack) -> list[E.Command]:
    return [E.command_decoder.decode(v) for v in
            await read_all(stack.bootstrap, topics.COMMANDS.name(stack.prefix), timeout=5)]


# ---------------------------------------------------------------- identity
@pytest.mark.parametrize("hello,code", [
    ({"type": "hello", "v": 2, "token": identity.mint("f" * 40, "ayse", int(time.time()))},
     "bad_token"),
    ({"type": "hello", "v": 2,
      "token": identity.mint(SECRET, "ayse", int(time.time()) - 7200, 60)}, "token_expired"),
    ({"type": "tables"}, "unauthenticated"),
    ({"type": "hello", "v": 2}, "malformed"),
    ({"type": "hello", "v": 2, "token": jwt.encode(
        {"sub": "ayse", "iat": int(time.time()), "exp": int(time.time()) + 10 * 365 * 86400},
        SECRET, algorithm="HS256")}, "token_lifetime"),
    ({"type": "hello", "v": 2, "token": "x", "deep": json.loads("[" * 900 + "]" * 900)},
     "malformed"),
    # version 1's client (whole views): refused, never served patches it cannot read
    ({"type": "hello", "token": token("ayse")}, "unsupported_version"),
    ({"type": "hello", "v": 1, "token": token("ayse")}, "unsupported_version"),
])
async def test_a_forged_expired_or_missing_token_gets_its_code_and_the_socket_closes(
        stack: Stack, hello: dict[str, Any], code: str) -> None:
    async with aiohttp.ClientSession() as session, session.ws_connect(f"{stack.url}ws") as ws:
        await ws.send_str(json.dumps(hello))
        reply = json.loads((await ws.receive(timeout=10)).data)
        assert reply["type"] == "error" and reply["code"] == code
        closing = await ws.receive(timeout=10)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert ws.close_code == 4001


async def test_the_player_is_stamped_from_the_token_and_a_retry_gets_the_same_outcome(
        stack: Stack) -> None:
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        table = await seated_table(ayse)
        first = await ayse.command("again", {"type": "replace_with_bot", "seat": 1}, table)
        retry = await ayse.command("again", {"type": "replace_with_bot", "seat": 1}, table)
        assert first["accepted"] and retry["accepted"] and retry["duplicate"]
        assert retry["seqs"] == first["seqs"]
    sent = [c for c in await commands_in_kafka(stack) if c.table_id == table]
    assert {c.player_id for c in sent} == {"ayse"}
    events = [E.event_decoder.decode(v) for v in
              await read_all(stack.bootstrap, topics.EVENTS.name(stack.prefix), timeout=5)]
    # an empty seat given to a bot before the match: the bot sits (section 11), once
    bots = [e for e in events if e.table_id == table and isinstance(e, E.PlayerSat)
            and e.seat == 1]
    assert len(bots) == 1 and bots[0].is_bot


async def test_a_command_for_a_seat_the_player_does_not_hold_never_reaches_kafka(
        stack: Stack) -> None:
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        table = await seated_table(ayse)
        mehmet = await connect(session, stack.url, "mehmet")
        await mehmet.send(type="command", id="steal", table_id=table,
                          command={"type": "discard", "tile": "R5"})
        refused = await mehmet.next("error", id="steal")
        assert refused["code"] == "not_your_seat"
        await mehmet.send(type="command", id="steal2", table_id=table,
                          command={"type": "discard", "tile": "R5", "player_id": "ayse"})
        assert (await mehmet.next("error", id="steal2"))["code"] == "malformed"  # its id
    assert not [c for c in await commands_in_kafka(stack) if c.player_id == "mehmet"]


async def test_an_accepted_outcome_arrives_after_the_update_that_shows_it(stack: Stack) -> None:
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        created = await ayse.command("new", {"type": "create_table", "profile": "okeygg"})
        table = created["table_id"]
        await ayse.send(type="watch", table_id=table)
        await ayse.next("update", table_id=table)
        outcome = await ayse.command("sit", {"type": "sit", "seat": 2}, table)
        updates = [f for f in ayse.seen if f["type"] == "update"]
        assert updates[-1]["version"] >= outcome["seqs"][-1]
        assert updates[-1]["seat"] == 2 and updates[-1]["view"]["players"][2] == "ayse"


# ---------------------------------------------------------------- resuming
async def _watching(session: aiohttp.ClientSession, stack: Stack) -> tuple[Client, str, int]:
    """ayse seated at a new table and watching it: her connection, the table, the version
    of the view she holds."""
    ayse = await connect(session, stack.url, "ayse")
    table = await seated_table(ayse)
    await ayse.send(type="watch", table_id=table)
    return ayse, table, (await ayse.next("update", table_id=table))["version"]


async def _two_bots_sit(session: aiohttp.ClientSession, stack: Stack, table: str) -> None:
    """mehmet hands the empty seats 1 and 2 to bots: two changes of the table."""
    mehmet = await connect(session, stack.url, "mehmet")
    for seat in (1, 2):
        await mehmet.command(f"s{seat}", {"type": "replace_with_bot", "seat": seat}, table)


async def test_a_client_that_reconnects_with_its_version_gets_only_what_it_missed(
        stack: Stack) -> None:
    async with aiohttp.ClientSession() as session:
        ayse, table, held = await _watching(session, stack)
        await ayse.ws.close()
        await _two_bots_sit(session, stack, table)
        back = await connect(session, stack.url, "ayse")
        await back.send(type="watch", table_id=table, version=held)
        missed = await back.next("update", table_id=table)
        assert not missed["reset"] and missed["previous"] == held
        assert [(e["type"], e["seat"]) for e in missed["events"]] == [("player_sat", 1),
                                                                      ("player_sat", 2)]
        assert missed["view"]["seq"] == missed["version"] == held + 2
        again = await connect(session, stack.url, "ayse")
        await again.send(type="watch", table_id=table, version=missed["version"])
        assert (await again.next("synced"))["version"] == missed["version"]


async def test_a_client_ahead_of_the_gateway_is_answered_when_it_gets_there_not_before(
        stack: Stack) -> None:
    async with aiohttp.ClientSession() as session:
        _, table, held = await _watching(session, stack)
        ahead = await connect(session, stack.url, "ayse")  # it read a gateway further on
        await ahead.send(type="watch", table_id=table, version=held + 2)
        await _two_bots_sit(session, stack, table)
        assert (await ahead.next("synced"))["version"] == held + 2
        assert not [f for f in ahead.seen if f["type"] == "update"]  # no older view, ever


# ---------------------------------------------------------------- bad input and floods
async def test_a_malformed_frame_gets_a_code_and_the_connection_goes_on(stack: Stack) -> None:
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        for junk in ("{", "[]", '{"type":"command","id":"x"}', '{"type":"dance"}'):
            await ayse.ws.send_str(junk)
            assert (await ayse.next("error"))["code"] == "malformed"
        await ayse.send(type="tables")
        await ayse.next("tables")


async def test_every_refusal_of_a_command_names_its_id_and_any_depth_is_malformed(
        stack: Stack) -> None:
    deep = "[" * 7_000 + "]" * 7_000
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        table = await seated_table(ayse)
        frames = {
            "type": {"type": "command", "id": "k1", "table_id": table,
                     "command": {"type": "dance"}},
            "field": {"type": "command", "id": "k2", "table_id": table,
                      "command": {"type": "sit", "seat": 1, "chair": 2}},
            "envelope": {"type": "command", "id": "k3", "tabel_id": table,
                         "command": {"type": "draw"}},
            "wrong type": {"type": "command", "id": "k4", "table_id": table,
                           "command": {"type": "sit", "seat": "one"}},
            "bad id": {"type": "command", "id": "k/5", "table_id": table,
                       "command": {"type": "draw"}},
        }
        for n, frame in enumerate(frames.values()):
            await asyncio.sleep(0.25)  # within this stack's 5 frames a second: every frame
            await ayse.send(**frame)  # counts, a malformed one too
            error = await ayse.next("error")
            assert (error["code"], error["id"]) == ("malformed", frame["id"]), (n, error)
        for n, depth in enumerate((977, 3_000, 7_000)):
            await asyncio.sleep(0.25)
            options = '{"x":' + "[" * depth + "]" * depth + "}"
            await ayse.ws.send_str(f'{{"type":"command","id":"d{n}","command":{{"type":'
                                   f'"create_table","options":{options}}}}}')
            error = await ayse.next("error")
            assert (error["code"], error["id"]) == ("malformed", f"d{n}"), error
            assert "nests deeper" in error["message"]
        await ayse.ws.send_str('{"type":"tables","house":' + deep + "}")
        assert (await ayse.next("error"))["code"] == "malformed"
        await ayse.send(type="tables")
        await ayse.next("tables")  # the connection goes on
    created = [c for c in await commands_in_kafka(stack) if isinstance(c, E.CreateTable)]
    assert len(created) == 1  # only seated_table's


async def test_a_command_id_reused_for_another_command_is_refused_as_id_reused(
        stack: Stack) -> None:
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        table = await seated_table(ayse)
        first = await ayse.command("bot", {"type": "replace_with_bot", "seat": 1}, table)
        assert first["accepted"]
        await ayse.send(type="command", id="bot", table_id=table,
                        command={"type": "replace_with_bot", "seat": 2})
        error = await ayse.next("error", id="bot")
        assert error["code"] == "id_reused"
        retry = await ayse.command("bot", {"type": "replace_with_bot", "seat": 1}, table)
        assert retry["duplicate"] and retry["seqs"] == first["seqs"]
        # a create_table retried (after a reconnect too) is the first table, not a second
        again = await connect(session, stack.url, "ayse")
        created = await again.command("new", {"type": "create_table", "profile": "okeygg",
                                              "options": {"hands_per_match": 7}})
        assert created["table_id"] == table and created["duplicate"]
        await again.send(type="command", id="new", command={
            "type": "create_table", "profile": "okeygg", "options": {"hands_per_match": 9}})
        assert (await again.next("error", id="new"))["code"] == "id_reused"
    sent = [c for c in await commands_in_kafka(stack) if c.command_id == "ayse/bot"]
    assert [c.seat for c in sent] == [1, 1]  # the reused id never reached Kafka
    creates = [c for c in await commands_in_kafka(stack) if isinstance(c, E.CreateTable)]
    assert len(creates) == 2 and {c.table_id for c in creates} == {table}  # a retry


async def test_a_command_id_reused_through_a_second_gateway_is_refused_by_the_processor(
        stack: Stack) -> None:
    """The id's truth is the processor's (issue 41 item 8): a gateway that never saw the id
    (another one, or one restarted) publishes it, and the processor refuses it `id_reused`
    against the first command's digest; the first command retried there is a duplicate."""
    second = stack.launch("gateway", "--port", "0", *stack.gateway_args, port=0,
                          name="gateway2", group=f"{stack.prefix}-gateway2")
    url = await second.listening(120)
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        table = await seated_table(ayse)
        first = await ayse.command("bot", {"type": "replace_with_bot", "seat": 1}, table)
        assert first["accepted"]
        elsewhere = await connect(session, url, "ayse")
        await elsewhere.watch_when_known(table)
        reused = await elsewhere.command("bot", {"type": "replace_with_bot", "seat": 2},
                                         table)
        assert (reused["accepted"], reused["code"]) == (False, "id_reused"), reused
        # the same frame as the first (no seq: the digest is of what the client sent)
        retry = await elsewhere.command("bot", {"type": "replace_with_bot", "seat": 1}, table)
        assert retry["accepted"] and retry["duplicate"] and retry["seqs"] == first["seqs"]
    sent = [c for c in await commands_in_kafka(stack) if c.command_id == "ayse/bot"]
    assert [c.seat for c in sent] == [1, 2, 1]  # the second gateway published the reuse
    assert len({c.digest for c in sent}) == 2 and all(c.digest for c in sent)
    events = [E.event_decoder.decode(v) for v in
              await read_all(stack.bootstrap, topics.EVENTS.name(stack.prefix), timeout=5)]
    seated = [e for e in events if e.table_id == table and isinstance(e, E.PlayerSat)]
    assert sorted(e.seat for e in seated) == [0, 1]  # seat 2 was never given


@pytest.mark.parametrize("frame", [
    {"type": "command", "command": {"type": "draw"}},
    {"type": "tables"},  # the lobby: every table's entry, built for each frame
    {"type": "dance"},  # malformed: refused, and counted all the same
], ids=["commands", "lobby-lists", "malformed-frames"])
async def test_a_connection_that_keeps_flooding_is_closed_after_bounded_refusals(
        stack: Stack, frame: dict[str, Any]) -> None:
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        table = await seated_table(ayse)
        refused = 0

        async def read() -> aiohttp.WSMessage:
            nonlocal refused
            while True:
                msg = await ayse.ws.receive(timeout=30)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return msg
                refused += json.loads(msg.data).get("code") == "rate_limited"

        reader = asyncio.create_task(read())
        for i in range(3_000):
            if reader.done():
                break
            with contextlib.suppress(ConnectionError, RuntimeError):
                more = {"id": f"f{i}", "table_id": table} if frame["type"] == "command" else {}
                await ayse.send(**frame, **more)
            await asyncio.sleep(0.001)  # about 1,000 a second: a token comes now and then
        msg = await reader
        assert (msg.type, msg.data, msg.extra) == (aiohttp.WSMsgType.CLOSE, 1008,
                                                   "rate_limited")
        assert 40 <= refused <= 50  # --flood-strikes; the last may go unsent


async def test_an_oversized_frame_closes_the_socket_with_message_too_big(stack: Stack) -> None:
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        await ayse.ws.send_str(json.dumps({"type": "tables", "house": "x" * 100_000}))
        while (await ayse.ws.receive(timeout=10)).type == aiohttp.WSMsgType.TEXT:
            pass
        assert ayse.ws.close_code == 1009


async def test_a_flood_is_refused_beyond_the_rate_and_never_published(stack: Stack) -> None:
    """40 commands at once against a rate of 5 a second and a burst of 5: each is answered
    once, by `rate_limited` or by its outcome; up to each answer, no more passed than the
    burst and what the rate refilled since the first was sent (the gateway decided them,
    in order, within that window: under load it is longer and the bucket refills, so the
    count of passes is not fixed); the ones refused never reach Kafka and the ones passed
    all do. The guard's verdicts at a held clock: tests/unit/test_gateway_flood.py."""
    rate, burst, frames = 5.0, 5, 40
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        table = await seated_table(ayse)
        started = time.monotonic()
        for i in range(frames):
            await ayse.send(type="command", id=f"f{i}", table_id=table,
                            command={"type": "draw"})
        answers: dict[str, tuple[dict[str, Any], float]] = {}
        while len(answers) < frames:
            msg = await ayse.ws.receive(timeout=30)
            assert msg.type == aiohttp.WSMsgType.TEXT, msg
            frame = json.loads(msg.data)
            ayse.seen.append(frame)
            if frame["type"] in ("error", "outcome") and str(frame.get("id")).startswith("f"):
                assert frame["id"] not in answers, frame  # one answer each
                answers[frame["id"]] = (frame, time.monotonic() - started)
    refused = {i for i, (f, _) in answers.items() if f.get("code") == "rate_limited"}
    passed = set(answers) - refused
    assert all(answers[i][0]["type"] == "outcome" for i in passed), answers
    for k in range(frames):
        allowed = burst + rate * answers[f"f{k}"][1]
        through = sum(f"f{j}" in passed for j in range(k + 1))
        assert through <= allowed, (k, through, allowed, sorted(passed))
    flood = {c.command_id.removeprefix("ayse/") for c in await commands_in_kafka(stack)
             if c.command_id.startswith("ayse/f")}
    assert flood == passed


async def test_an_account_holds_a_bounded_number_of_connections(stack: Stack) -> None:
    async with aiohttp.ClientSession() as session:
        held = [await connect(session, stack.url, "ayse") for _ in range(3)]
        async with session.ws_connect(f"{stack.url}ws") as extra:
            await extra.send_str(json.dumps({"type": "hello", "v": 2, "token": token("ayse")}))
            reply = json.loads((await extra.receive(timeout=10)).data)
            assert reply["code"] == "too_many_connections"
        await held[0].send(type="tables")
        await held[0].next("tables")


async def test_a_socket_that_never_reads_is_dropped_and_the_others_are_not_slowed(
        stack: Stack) -> None:
    table = "frozen-table"
    commands, final = record_timeout_match(table, seed=11, profile="north-sultan", hands=11)
    await publish(stack.bootstrap, stack.prefix, commands[:1])  # the table exists
    async with asyncio.timeout(240), aiohttp.ClientSession() as session:
        watcher = await connect(session, stack.url, "watcher")
        await watcher.watch_when_known(table)
        frozen = await _frozen_socket(stack.url, table)
        started = time.monotonic()
        # one at a time, so that each is its own transaction and its own update; the
        # watcher reads meanwhile (a client that reads only afterwards is a slow one too)
        publishing = asyncio.create_task(
            publish(stack.bootstrap, stack.prefix, commands[1:], rate=60))
        last = await watcher.next("update", timeout=120, version=final.seq)
        await publishing
        took = time.monotonic() - started
        assert last["view"]["status"] == "over"
    metrics_dropped = "client_dropped" in stack.log("gateway")
    frozen.close()
    assert metrics_dropped, "the frozen client was never dropped"
    assert took < 60


async def _frozen_socket(url: str, table: str) -> socket.socket:
    """A WebSocket that says hello, watches `table`, then never reads again."""
    parsed = urlparse(url)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((parsed.hostname, parsed.port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {parsed.netloc}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    for message in ({"type": "hello", "v": 2, "token": token("frozen")},
                    {"type": "watch", "table_id": table}):
        sock.sendall(_masked(json.dumps(message).encode()))
    return sock


def _masked(payload: bytes) -> bytes:
    mask = os.urandom(4)
    head = bytes([0x81])
    n = len(payload)
    head += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


# ---------------------------------------------------------------- entropy (deal version 2)
async def test_a_person_adds_a_client_seed_to_the_deal_through_the_gateway(
        stack: Stack) -> None:
    """okey-oyna with a seeding window: the person commits to a client seed and reveals it
    through the WebSocket (no seq: the gateway's newest version); the hand's seed takes it
    (proto/DEAL.md), and the bots' shares are the server's."""
    seed = secrets.token_bytes(32)
    async with aiohttp.ClientSession() as session:
        ayse = await connect(session, stack.url, "ayse")
        created = await ayse.command("new", {"type": "create_table", "profile": "okey-oyna",
                                             "options": {"seeding_seconds": 60,
                                                         "hands_per_match": 1}})
        table = created["table_id"]
        assert (await ayse.command("sit", {"type": "sit", "seat": 0}, table))["accepted"]
        for seat in (1, 2, 3):
            await asyncio.sleep(0.25)  # this stack's gateway allows 5 commands a second
            bot = await ayse.command(f"b{seat}", {"type": "replace_with_bot", "seat": seat},
                                     table)
            assert bot["accepted"], bot
        await asyncio.sleep(0.25)
        assert (await ayse.command("go", {"type": "start_match"}, table))["accepted"]
        await asyncio.sleep(0.25)
        commit = await ayse.command("commit", {"type": "commit_seed", "commitment":
                                               hashlib.sha256(seed).hexdigest()}, table)
        assert commit["accepted"], commit
        await asyncio.sleep(0.25)
        reveal = await ayse.command("reveal", {"type": "reveal_seed",
                                               "client_seed": seed.hex()}, table)
        assert reveal["accepted"], reveal
    events = [E.event_decoder.decode(v) for v in
              await read_all(stack.bootstrap, topics.EVENTS.name(stack.prefix), timeout=5)]
    closed = [e for e in events if e.table_id == table and isinstance(e, E.SeedingClosed)]
    assert [c.client_seeds for c in closed] == [[seed.hex(), "", "", ""]]


# ---------------------------------------------------------------- the rules' detail
async def test_the_seat_to_act_asks_its_rules_detail_and_every_bad_ask_is_refused_by_id(
        stack: Stack) -> None:
    """Views carry the next move's gates; the detail (lay-offs, okey takes, penalised
    discards) is a `rules` frame for the seat's own view at the version it holds,
    answered from that view (`table.viewrules`). Another seat's, a version not the
    newest, a table not watched or a frame with an unknown field are refused under the
    frame's id, and nothing reaches Kafka."""
    names = ["ayse", "mehmet", "zeynep", "ali"]
    async with aiohttp.ClientSession() as session:
        people = [await connect(session, stack.url, n) for n in names]
        created = await people[0].command("new", {"type": "create_table",
                                                  "profile": "okeygg"})
        table = created["table_id"]
        for seat, person in enumerate(people):
            assert (await person.command("sit", {"type": "sit", "seat": seat}, table))[
                "accepted"]
            await person.watch_when_known(table)
        assert (await people[0].command("go", {"type": "start_match"}, table))["accepted"]
        held = people[0].held[table]  # the outcome follows the update that shows it
        while held["view"]["hand"] is None or held["view"]["hand"]["phase"] != "play":
            held = await people[0].next("update", table_id=table)
        starter = held["view"]["hand"]["to_act"]
        asker = people[starter]
        view = await _newest_view(asker, table, held["version"])
        before = len(await commands_in_kafka(stack))

        await asker.send(type="rules", id="r1", table_id=table, seat=starter,
                         version=view["version"])
        answer = await asker.next("rules", id="r1")
        want = view_detail(msgspec.convert(view["view"], PlayerView))
        assert answer["rules"] == msgspec.to_builtins(want)
        assert answer["seat"] == starter and answer["version"] == view["version"]
        assert answer["rules"]["penalised_discards"] or answer["rules"]["lay_offs"] == []

        other = (starter + 1) % 4
        for frame, code in [
            ({"seat": other, "version": view["version"]}, "not_your_seat"),
            ({"seat": starter, "version": view["version"] - 1}, "stale_version"),
            ({"seat": starter, "version": view["version"] + 5}, "stale_version"),
            ({"seat": starter, "version": view["version"], "table_id": "t-none"},
             "unknown_table"),
            ({"seat": starter, "version": view["version"], "extra": 1}, "malformed"),
        ]:
            await asyncio.sleep(0.25)  # this stack's gateway allows 5 frames a second
            await asker.send(**{"type": "rules", "id": f"bad-{code}", "table_id": table,
                                **frame})
            refused = await asker.next("error", id=f"bad-{code}")
            assert refused["code"] == code, refused
        for frame, code in [({"table_id": "t-none"}, "unknown_table"),
                            ({"table_id": table, "version": -3}, "malformed"),
                            ({"table_id": table, "version": "x"}, "malformed")]:
            await asyncio.sleep(0.25)  # a patch request (watch) refused by its id too
            await asker.send(type="watch", id=f"w-{code}", **frame)
            assert (await asker.next("error", id=f"w-{code}"))["code"] == code
        outsider = await connect(session, stack.url, "deniz")
        await outsider.send(type="rules", id="r2", table_id=table, seat=0, version=1)
        assert (await outsider.next("error", id="r2"))["code"] == "not_watching"
    assert len(await commands_in_kafka(stack)) == before


async def _newest_view(client: Client, table: str, version: int) -> dict[str, Any]:
    """The newest whole view `client` holds of `table` once no frame came for a moment."""
    with contextlib.suppress(asyncio.TimeoutError, AssertionError):
        while True:
            await client.receive(1.0)
    held = client.held[table]
    assert held["version"] >= version
    return held
