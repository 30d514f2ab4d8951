"""Replays on the real broker: the directory (through a kill -9 of the replays service
mid-load), `okey101 replay|history|export`, the HTTP API, bad input, and event times.

One load for the module: matches of every house are played by the processor (every turn a
time-out) while the replays service indexes them; it is killed with SIGKILL halfway and
started again. An undecodable record is put into the events log under one table's key.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import duckdb
import msgspec
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from okey101.app import topics
from okey101.app.replays.directory import TableEntry, fold, offset_for, skip
from okey101.app.replays.replay import PUBLIC, events_as, replay_step
from okey101.app.replays.replay import fold as fold_events
from okey101.table import messages as E
from okey101.table import viewpatch
from okey101.table.state import TableState
from okey101.table.viewpatch import decode_update
from okey101.table.views import PlayerPatch, PlayerUpdate
from services.common.kafka import provision
from services.common.ports import free_port
from services.replays.app import Replays
from services.replays.exporting import export
from services.replays.reading import (
    consumer,
    directory_lag,
    load_directory,
    partitions_of,
    read_table,
)
from tests.kafka.support import (
    ROOT,
    ProcessorProcess,
    fresh_tag,
    interleave,
    publish,
    read_all,
    record_timeout_match,
)

# classic deals a hand again when the deck runs out with nobody opened: a match played by
# time-outs alone never ends there
HOUSES = (("north-sultan", 2), ("okey-oyna", 2), ("okeygg", 7))
COPIES = 4  # tables per house, each a copy of one recorded match under its own id
TABLES = COPIES * len(HOUSES)
RATE = 100.0  # commands per second: the load lasts about 15 s


class ReplaysProcess(ProcessorProcess):
    """`python -m services.replays` in a subprocess."""

    def __init__(self, bootstrap: str, prefix: str, port: int) -> None:
        super().__init__(bootstrap, prefix, f"{prefix}-replays", "replays")
        self.args = [sys.executable, "-m", "services.replays", "--bootstrap", bootstrap,
                     "--prefix", prefix, "--group", f"{prefix}-replays", "--metrics-port", "0",
                     "--http-port", str(port),
                     "--instance-id", "replays"]


class Load(msgspec.Struct, kw_only=True):
    bootstrap: str
    prefix: str
    url: str
    recorded: dict[str, tuple[list[E.Command], TableState]]
    garbage: tuple[str, int, int]  # table, partition, offset
    log: Path


async def _garbage(bootstrap: str, prefix: str, table_id: str) -> tuple[int, int]:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        partition = topics.partition_for(table_id.encode(), topics.PARTITIONS)
        meta = await producer.send_and_wait(topics.EVENTS.name(prefix), b'{"type": "oops"',
                                            key=table_id.encode(), partition=partition)
        return meta.partition, meta.offset
    finally:
        await producer.stop()


async def _written(bootstrap: str, prefix: str, timeout: float = 60) -> None:
    """Until the replays service has written directory entries."""
    reader = consumer(bootstrap)
    await reader.start()
    try:
        topic = topics.DIRECTORY.name(prefix)
        tps = [TopicPartition(topic, p) for p in await partitions_of(reader, topic)]
        deadline = time.monotonic() + timeout
        while sum((await reader.end_offsets(tps)).values()) < 3:
            assert time.monotonic() < deadline, "no directory entry written"
            await asyncio.sleep(0.2)
    finally:
        await reader.stop()


async def _caught_up(bootstrap: str, prefix: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lag = await directory_lag(bootstrap, prefix, f"{prefix}-replays", range(topics.PARTITIONS))
        if not any(x.events for x in lag):
            return
        await asyncio.sleep(0.5)
    raise AssertionError(f"the directory still lags: {lag}")


async def _run_load(bootstrap: str, prefix: str, replays: ReplaysProcess,
                    recorded: dict[str, tuple[list[E.Command], TableState]]
                    ) -> tuple[int, int]:
    stream = interleave([commands for commands, _ in recorded.values()])
    sending = asyncio.create_task(publish(bootstrap, prefix, stream, rate=RATE))
    await replays.wait_for('"partitions_assigned"', timeout=60)
    await _written(bootstrap, prefix)
    assert not sending.done(), "the load was over before the kill"
    replays.kill()  # mid-load, no warning
    garbage = await _garbage(bootstrap, prefix, next(iter(recorded)))
    replays.start()
    await sending
    outcomes = await read_all(bootstrap, topics.OUTCOMES.name(prefix), until=len(stream),
                              timeout=180)
    assert len(outcomes) >= len(stream)
    await _caught_up(bootstrap, prefix)
    return garbage


@pytest.fixture(scope="module")
def load(kafka_bootstrap: str) -> Iterator[Load]:
    prefix = f"rp{fresh_tag()}"
    asyncio.run(provision(kafka_bootstrap, prefix))
    recorded = {}
    for i, (house, hands) in enumerate(HOUSES):
        commands, final = record_timeout_match("recorded", 1000 + i, house, hands)
        for copy in range(COPIES):
            table_id = f"{prefix}-{house}-{copy}"
            recorded[table_id] = (
                [msgspec.structs.replace(c, table_id=table_id,
                                         command_id=f"{table_id}-{c.command_id}")
                 for c in commands], msgspec.structs.replace(final, table_id=table_id))
    processor = ProcessorProcess(kafka_bootstrap, prefix, f"{prefix}-processor")
    port = free_port()
    replays = ReplaysProcess(kafka_bootstrap, prefix, port)
    processor.start()
    replays.start()
    try:
        partition, offset = asyncio.run(_run_load(kafka_bootstrap, prefix, replays, recorded))
        yield Load(bootstrap=kafka_bootstrap, prefix=prefix, url=f"http://127.0.0.1:{port}",
                   recorded=recorded, garbage=(next(iter(recorded)), partition, offset),
                   log=replays.log)
    finally:
        replays.terminate()
        processor.terminate()


async def _events_with_offsets(bootstrap: str, prefix: str
                               ) -> dict[int, list[tuple[int, bytes | None, bytes | None]]]:
    reader = consumer(bootstrap)
    await reader.start()
    try:
        topic = topics.EVENTS.name(prefix)
        tps = [TopicPartition(topic, p) for p in range(topics.PARTITIONS)]
        reader.assign(tps)
        await reader.seek_to_beginning(*tps)
        ends = await reader.end_offsets(tps)
        out: dict[int, list[tuple[int, bytes | None, bytes | None]]] = {
            p: [] for p in range(topics.PARTITIONS)}
        pending = {tp for tp in tps if ends[tp]}
        while pending:
            for tp, records in (await reader.getmany(*pending, timeout_ms=500)).items():
                out[tp.partition] += [(r.offset, r.key, r.value) for r in records]
            pending = {tp for tp in pending if await reader.position(tp) < ends[tp]}
        return out
    finally:
        await reader.stop()


def rebuild(log: dict[int, list[tuple[int, bytes | None, bytes | None]]]
            ) -> dict[str, TableEntry]:
    """The directory folded from the whole events log, from scratch."""
    entries: dict[str, TableEntry] = {}
    for partition, records in log.items():
        for offset, key, value in records:
            table = (key or b"").decode()
            try:
                event = E.event_decoder.decode(value or b"")
            except (msgspec.DecodeError, msgspec.ValidationError):
                entries[table] = skip(entries.get(table), table, partition, offset)
                continue
            entries[table] = fold(entries.get(table), event, partition, offset)
    return entries


def okey101(*args: str, bootstrap: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, KAFKA_BOOTSTRAP=bootstrap)
    return subprocess.run([sys.executable, "-m", "services.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------- the directory
async def test_the_directory_after_a_kill_9_mid_load_equals_one_rebuilt_from_the_log(
        load: Load) -> None:
    directory = await load_directory(load.bootstrap, topics.DIRECTORY.name(load.prefix))
    rebuilt = rebuild(await _events_with_offsets(load.bootstrap, load.prefix))
    assert set(directory) == set(rebuilt) == set(load.recorded)
    for table_id, entry in rebuilt.items():
        assert directory[table_id] == entry, table_id
    assert all(e.status == "over" for e in directory.values())
    # the restarted service loaded the compacted topic rather than folding from offset 0
    loaded = [json.loads(line) for line in load.log.read_text().splitlines()
              if '"directory_loaded"' in line]
    assert len(loaded) == 2 and loaded[1]["tables"] > 0


async def test_every_table_replays_to_the_state_the_engine_decided(load: Load) -> None:
    directory = await load_directory(load.bootstrap, topics.DIRECTORY.name(load.prefix))
    reader = consumer(load.bootstrap)
    await reader.start()
    try:
        for table_id, (_, final) in load.recorded.items():
            entry = directory[table_id]
            log = await read_table(reader, topics.EVENTS.name(load.prefix), entry)
            assert fold_events(log.events).state == final, table_id
            # only the table's own offset range was read, never the topic
            assert log.records <= entry.last_offset - entry.first_offset + 1
    finally:
        await reader.stop()


async def test_an_undecodable_event_is_skipped_and_named_by_its_offset(load: Load) -> None:
    table_id, partition, offset = load.garbage
    directory = await load_directory(load.bootstrap, topics.DIRECTORY.name(load.prefix))
    assert offset in directory[table_id].skipped
    warned = [json.loads(line) for line in load.log.read_text().splitlines()
              if '"record_dead_lettered"' in line]  # logged once, as its dead letter
    assert any(w["offset"] == offset and w["partition"] == partition
               and w["service"] == "replays" for w in warned)
    done = await asyncio.to_thread(okey101, "replay", table_id, "--prefix", load.prefix,
                                   bootstrap=load.bootstrap)
    assert done.returncode == 0, done.stderr
    assert f"partition {partition} offset {offset}: undecodable event" in done.stderr
    assert "status over" in done.stdout


# ---------------------------------------------------------------- the commands
async def test_replay_shows_a_seat_exactly_what_it_saw_at_the_end_of_a_hand(
        load: Load) -> None:
    table_id = next(t for t in load.recorded if "north-sultan" in t)
    done = await asyncio.to_thread(okey101, "replay", table_id, "--prefix", load.prefix,
                                   "--hand", "1", "--as", "seat", "2", "--json",
                                   bootstrap=load.bootstrap)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    directory = await load_directory(load.bootstrap, topics.DIRECTORY.name(load.prefix))
    reader = consumer(load.bootstrap)
    await reader.start()
    try:
        log = await read_table(reader, topics.EVENTS.name(load.prefix), directory[table_id])
    finally:
        await reader.stop()
    upto = offset_for(directory[table_id], hand=1)
    assert upto is not None
    expected = replay_step(table_id, log.events, 2, hand=1,
                           skipped=[s for s in log.skipped if s.offset <= upto])
    assert shown == json.loads(msgspec.json.encode(expected))
    assert shown["viewer"] == "seat 2" and shown["server"] is None
    told = await asyncio.to_thread(okey101, "history", table_id, "--prefix", load.prefix,
                                   "--as", "seat", "1", bootstrap=load.bootstrap)
    assert told.returncode == 0, told.stderr
    assert "seat 1 holds " in told.stdout and "seat 0 holds " not in told.stdout
    assert "*** Match over" in told.stdout


@pytest.mark.parametrize(("args", "message"), [
    (("replay", "no-such-table"), "table 'no-such-table' is not in the directory"),
    (("replay", "{table}", "--at", "99999"), "seq 99999 is past the end of table"),
    (("replay", "{table}", "--hand", "40"), "has no hand 40"),
    (("history", "{table}", "--as", "seat", "7"), "--as seat 7: write --as seat N"),
])
async def test_bad_input_gets_one_clear_line_and_exit_status_2(
        load: Load, args: tuple[str, ...], message: str) -> None:
    table_id = next(iter(load.recorded))
    argv = [a.format(table=table_id) for a in args]
    done = await asyncio.to_thread(okey101, *argv, "--prefix", load.prefix,
                                   bootstrap=load.bootstrap)
    assert done.returncode == 2, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert message in last and "Traceback" not in done.stderr


async def test_a_lagging_directory_is_said_with_its_lag(load: Load) -> None:
    busy = topics.partition_for(next(iter(load.recorded)).encode(), topics.PARTITIONS)
    missing = next(name for i in range(1000) if topics.partition_for(
        (name := f"not-indexed-{i}").encode(), topics.PARTITIONS) == busy)
    done = await asyncio.to_thread(okey101, "replay", missing, "--prefix",
                                   load.prefix, "--group", f"nobody-{uuid.uuid4().hex[:6]}",
                                   bootstrap=load.bootstrap)
    assert done.returncode == 2
    assert "note: the directory lags partition" in done.stderr and " events (" in done.stderr


async def test_the_export_reads_back_in_duckdb(load: Load, tmp_path: Path) -> None:
    done = await export(load.bootstrap, load.prefix, tmp_path, 0, 2**63 - 1)
    assert done.tables == len(load.recorded)
    total = sum(e.events for e in (await load_directory(
        load.bootstrap, topics.DIRECTORY.name(load.prefix))).values())
    db = duckdb.connect()
    source = f"read_parquet('{tmp_path}/**/*.parquet', hive_partitioning = true)"
    assert db.execute(f"select count(*) from {source}").fetchall() == [(total,)]
    houses = db.execute(f"select house, count(distinct table_id) from {source} group by all "
                        "order by house").fetchall()
    assert houses == sorted((h, TABLES // len(HOUSES)) for h, _ in HOUSES)
    ended = db.execute(f"select count(*) from {source} where type = 'match_ended'").fetchall()
    assert ended == [(len(load.recorded),)]


# ---------------------------------------------------------------- HTTP
async def _get(session: aiohttp.ClientSession, url: str, **params: str
               ) -> tuple[int, str, Any]:
    async with session.get(url, params=params) as resp:
        return resp.status, await resp.text(), resp.headers


async def test_the_http_api_lists_replays_and_refuses_server_visibility(load: Load) -> None:
    table_id = next(t for t in load.recorded if "okey-oyna" in t)
    async with aiohttp.ClientSession() as s:
        status, text, _ = await _get(s, f"{load.url}/tables", house="okey-oyna")
        assert status == 200
        listed = json.loads(text)
        assert {t["table_id"] for t in listed["tables"]} == \
            {t for t in load.recorded if "okey-oyna" in t}
        assert all("first_offset" not in t for t in listed["tables"])
        player = load.recorded[table_id][1].players[3]  # the copies share their players
        status, text, _ = await _get(s, f"{load.url}/tables", player=player, status="over",
                                     house="okey-oyna", limit="2")
        doc = json.loads(text)
        assert doc["count"] == COPIES and len(doc["tables"]) == 2
        status, text, _ = await _get(s, f"{load.url}/tables", player="nobody")
        assert json.loads(text) == {"tables": [], "count": 0}
        status, text, _ = await _get(s, f"{load.url}/tables/{table_id}/events", **{"as": "1"})
        assert status == 200
        got = [E.event_decoder.decode(line) for line in text.splitlines()]
        reader = consumer(load.bootstrap)
        await reader.start()
        try:
            directory = await load_directory(load.bootstrap,
                                             topics.DIRECTORY.name(load.prefix))
            log = await read_table(reader, topics.EVENTS.name(load.prefix),
                                   directory[table_id])
        finally:
            await reader.stop()
        assert got == events_as(log.events, 1)
        status, text, _ = await _get(s, f"{load.url}/tables/{table_id}/state", at="30")
        assert status == 200
        assert json.loads(text) == json.loads(msgspec.json.encode(
            replay_step(table_id, log.events, PUBLIC, at=30)))
        status, text, _ = await _get(s, f"{load.url}/tables/{table_id}/state",
                                     **{"as": "server"})
        assert status == 403 and "auditor" in json.loads(text)["error"]
        status, text, _ = await _get(s, f"{load.url}/tables/{table_id}/state", at="99999")
        assert status == 400 and "past the end" in json.loads(text)["error"]
        status, text, _ = await _get(s, f"{load.url}/tables/nope/state")
        assert status == 404
        status, text, _ = await _get(s, f"{load.url}/tables/{table_id}/state",
                                     **{"as": "seat9"})
        assert status == 400
        status, text, _ = await _get(s, f"{load.url}/tables/{table_id}/history", **{"as": "2"})
        assert status == 200 and "seat 2 holds" in text


async def test_a_seats_views_step_by_step_come_whole_then_as_patches(load: Load) -> None:
    """GET /tables/T/views: the views contract's records for one viewer, the first step
    whole and a patch a step, which applied give the replay's view at every step."""
    table_id = next(t for t in load.recorded if "okey-oyna" in t)
    async with aiohttp.ClientSession() as s:
        status, text, headers = await _get(s, f"{load.url}/tables/{table_id}/views",
                                           **{"as": "2", "from": "20", "to": "80"})
        assert status == 200 and headers["Steps"] == "20-80"
        held: Any = None
        versions = []
        for line in text.splitlines():
            record = json.loads(line)  # as a client reads it
            assert isinstance(decode_update(line.encode()), PlayerUpdate | PlayerPatch)
            if record["kind"] == "view":
                held = record["view"]
            else:
                held = viewpatch.apply(held, record["patch"])
            versions.append(record["version"])
        assert versions == list(range(20, 81))
        status, state, _ = await _get(s, f"{load.url}/tables/{table_id}/state",
                                      **{"as": "2", "at": "80"})
        assert held == json.loads(state)["view"]
        status, text, _ = await _get(s, f"{load.url}/tables/{table_id}/views",
                                     **{"from": "9", "to": "3"})
        assert status == 400 and "after" in json.loads(text)["error"]
        status, text, _ = await _get(s, f"{load.url}/tables/{table_id}/views",
                                     **{"as": "server"})
        assert status == 403


async def test_an_auditor_service_shows_the_deal(load: Load) -> None:
    service = Replays(load.bootstrap, load.prefix, group=f"auditor-{uuid.uuid4().hex[:6]}",
                      port=0, auditor=True)
    task = asyncio.create_task(service.run())
    try:
        await asyncio.wait_for(service.ready.wait(), 60)
        table_id = next(iter(load.recorded))
        url = f"http://127.0.0.1:{service.bound_port}"
        async with aiohttp.ClientSession() as s:
            status, text, _ = await _get(s, f"{url}/tables/{table_id}/state", hand="1",
                                         **{"as": "server"})
            assert status == 200, text
            doc = json.loads(text)
            assert len(doc["server"]["racks"]) == 4 and doc["server"]["hand_seed"]
            status, text, _ = await _get(s, f"{url}/tables", **{"as": "server"})
            assert status == 200 and "first_offset" in text
    finally:
        service.stop()
        await asyncio.wait_for(task, 30)


# ---------------------------------------------------------------- item 1: event times
async def test_every_event_carries_its_commands_record_time(load: Load) -> None:
    stamps: dict[str, int] = {}
    reader = AIOKafkaConsumer(topics.COMMANDS.name(load.prefix), bootstrap_servers=load.bootstrap,
                              group_id=None, auto_offset_reset="earliest",
                              enable_auto_commit=False)
    await reader.start()
    try:
        idle = 0
        while idle < 3:
            batch = await reader.getmany(timeout_ms=500, max_records=10000)
            records = [r for rs in batch.values() for r in rs]
            idle = 0 if records else idle + 1
            for r in records:
                command = E.command_decoder.decode(r.value)
                stamps.setdefault(command.command_id, r.timestamp)
    finally:
        await reader.stop()
    times: dict[tuple[str, int], int] = {}
    for value in await read_all(load.bootstrap, topics.EVENTS.name(load.prefix)):
        try:
            event = E.event_decoder.decode(value)
        except msgspec.DecodeError:
            continue  # the garbage record
        times[(event.table_id, event.seq)] = event.at
    checked = 0
    for value in await read_all(load.bootstrap, topics.OUTCOMES.name(load.prefix)):
        outcome = E.outcome_decoder.decode(value)
        if outcome.accepted and not outcome.duplicate and outcome.command_id in stamps:
            for seq in outcome.seqs:
                assert times[(outcome.table_id, seq)] == stamps[outcome.command_id]
                checked += 1
    assert checked == len(times)
