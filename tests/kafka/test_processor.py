"""The rules processor against a real broker: whole matches, crashes, rebalances, broker
restarts, and a client that is not Python (kcat)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.errors import ProducerFenced

from okey101.app import topics
from okey101.table import messages as E
from services.common.kafka import provision
from services.processor.app import Processor
from tests.kafka.support import (
    ROOT,
    ProcessorProcess,
    check_log,
    fresh_tag,
    interleave,
    publish,
    read_all,
    record_timeout_match,
    scenario_commands,
)


def _names() -> tuple[str, str]:
    tag = fresh_tag()
    return f"t{tag}", f"proc-{tag}"


async def _load(bootstrap: str, prefix: str, tables: int, seed: int, hands: int = 1
                ) -> dict[str, tuple[list[E.Command], object]]:
    await provision(bootstrap, prefix)
    return {f"{prefix}-table{i}": record_timeout_match(f"{prefix}-table{i}", seed * 1000 + i,
                                                      hands=hands)
            for i in range(tables)}


async def _verify(bootstrap: str, prefix: str, recorded: dict, processes: list) -> None:
    total = sum(len(c) for c, _ in recorded.values())
    outcomes = await read_all(bootstrap, topics.OUTCOMES.name(prefix), until=total, timeout=180)
    events = await read_all(bootstrap, topics.EVENTS.name(prefix))
    try:
        check_log(outcomes, events, recorded)  # type: ignore[arg-type]
    except AssertionError:
        for p in processes:
            print(f"--- {p.name} log tail\n{p.tail()}")
        raise


async def test_a_whole_hand_played_through_kafka_gives_the_events_decided_in_process(
        kafka_bootstrap: str) -> None:
    prefix, group = _names()
    await provision(kafka_bootstrap, prefix)
    doc = json.loads((ROOT / "tests" / "kafka" / "whole_hand.json").read_text())
    commands, final = scenario_commands(doc, f"{prefix}-hand")
    proc = ProcessorProcess(kafka_bootstrap, prefix, group)
    proc.start()
    try:
        await publish(kafka_bootstrap, prefix, commands)
        outcomes = await read_all(kafka_bootstrap, topics.OUTCOMES.name(prefix),
                                  until=len(commands), timeout=60)
        events = await read_all(kafka_bootstrap, topics.EVENTS.name(prefix))
    finally:
        proc.terminate()
    decoded = [E.outcome_decoder.decode(v) for v in outcomes]
    assert [o.command_id for o in decoded] == [c.command_id for c in commands], proc.tail()
    assert all(o.accepted for o in decoded)
    played = [E.event_decoder.decode(v) for v in events]
    ended = [e for e in played if isinstance(e, E.HandEnded)]
    assert [(e.finish, e.scores) for e in ended] == [("elden", [-202, 404, 404, 404])]
    assert isinstance(played[-1], E.MatchEnded)
    check_log(outcomes, events, {f"{prefix}-hand": (commands, final)})


async def test_a_short_match_played_by_time_outs_through_kafka_ends_with_standings(
        kafka_bootstrap: str) -> None:
    prefix, group = _names()
    recorded = await _load(kafka_bootstrap, prefix, tables=2, seed=9, hands=2)
    commands = interleave([c for c, _ in recorded.values()])
    proc = ProcessorProcess(kafka_bootstrap, prefix, group)
    proc.start()
    try:
        await publish(kafka_bootstrap, prefix, commands)
        await _verify(kafka_bootstrap, prefix, recorded, [proc])
    finally:
        proc.terminate()
    for _, final in recorded.values():
        assert final.status == "over" and len(final.hand_scores) == 2


@pytest.mark.parametrize("snapshot_every", [0, 10], ids=["full-log", "snapshots"])
async def test_a_short_match_survives_repeated_kill_9_of_the_processor(
        kafka_bootstrap: str, snapshot_every: int) -> None:
    prefix, group = _names()
    recorded = await _load(kafka_bootstrap, prefix, tables=160, seed=1)
    commands = interleave([c for c, _ in recorded.values()])
    proc = ProcessorProcess(kafka_bootstrap, prefix, group)
    proc.args += ["--snapshot-every", str(snapshot_every)]
    proc.start()
    rng = random.Random(7)
    # about 4,300 commands over 48 s; each kill lands at a random moment while the
    # processor owns the partitions and commands keep coming
    sender = asyncio.create_task(publish(kafka_bootstrap, prefix, commands, rate=90))
    try:
        for kill in range(5):
            await proc.wait_for("partitions_taken", times=kill + 1)
            await asyncio.sleep(rng.uniform(0.1, 1.5))
            assert not sender.done(), "the load ended before the kill: make it longer"
            proc.kill()
            proc.start()
        await sender
        await _verify(kafka_bootstrap, prefix, recorded, [proc])
        if snapshot_every:  # the later restarts rebuilt from a snapshot and the tail
            assert '"snapshot": true' in proc.log.read_text(), proc.tail()
    finally:
        sender.cancel()
        proc.terminate()


async def test_two_processors_share_partitions_and_survive_one_stopping_mid_load(
        kafka_bootstrap: str) -> None:
    prefix, group = _names()
    recorded = await _load(kafka_bootstrap, prefix, tables=160, seed=2)
    commands = interleave([c for c, _ in recorded.values()])
    first = ProcessorProcess(kafka_bootstrap, prefix, group, "a")
    second = ProcessorProcess(kafka_bootstrap, prefix, group, "b")
    first.start()
    second.start()
    sender = asyncio.create_task(publish(kafka_bootstrap, prefix, commands, rate=150))
    try:
        for proc in (first, second):  # until both own partitions
            await proc.wait_for("partition_rebuilt", timeout=30)
        await asyncio.sleep(2)
        assert not sender.done(), "the load ended before the stop: make it longer"
        first.kill()  # its partitions move to the second after the session times out
        await sender
        await _verify(kafka_bootstrap, prefix, recorded, [first, second])
    finally:
        sender.cancel()
        first.terminate()
        second.terminate()


@pytest.mark.skipif(bool(os.environ.get("KAFKA_BOOTSTRAP")),
                    reason="restarts the project's own broker; KAFKA_BOOTSTRAP is external")
async def test_the_processor_recovers_by_itself_when_the_broker_restarts(
        kafka_bootstrap: str) -> None:
    prefix, group = _names()
    recorded = await _load(kafka_bootstrap, prefix, tables=20, seed=3)
    commands = interleave([c for c, _ in recorded.values()])
    half = len(commands) // 2
    proc = ProcessorProcess(kafka_bootstrap, prefix, group)
    proc.start()
    broker = str(ROOT / "tools" / "kafka" / "broker.sh")
    try:
        # running before the broker goes (a slow start would meet no broker and exit)
        await proc.wait_for("partitions_taken")
        await publish(kafka_bootstrap, prefix, commands[:half], rate=400)
        await asyncio.to_thread(subprocess.run, ["bash", broker, "stop"], check=True)
        await asyncio.sleep(3)
        await asyncio.to_thread(subprocess.run, ["bash", broker, "start"], check=True)
        await publish(kafka_bootstrap, prefix, commands[half:], rate=400)
        await _verify(kafka_bootstrap, prefix, recorded, [proc])
    finally:
        proc.terminate()


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed")
async def test_kcat_sends_a_json_command_and_reads_the_event_it_caused(
        kafka_bootstrap: str) -> None:
    prefix, group = _names()
    await provision(kafka_bootstrap, prefix)
    proc = ProcessorProcess(kafka_bootstrap, prefix, group)
    proc.start()
    table = f"{prefix}-kcat"
    command = json.dumps({"type": "create_table", "table_id": table, "command_id": "k1",
                          "seq": 0, "profile": "classic"})
    try:
        # murmur2 is Kafka's default partitioner (Java, aiokafka); kcat must be told
        await asyncio.to_thread(
            subprocess.run,
            ["kcat", "-P", "-b", kafka_bootstrap, "-t", topics.COMMANDS.name(prefix),
             "-K", "\t", "-X", "partitioner=murmur2_random"],
            input=f"{table}\t{command}\n".encode(), check=True)
        for _ in range(60):
            out = await asyncio.to_thread(
                subprocess.run,
                ["kcat", "-C", "-b", kafka_bootstrap, "-t", topics.EVENTS.name(prefix),
                 "-o", "beginning", "-e", "-q", "-X", "isolation.level=read_committed"],
                capture_output=True, check=True)
            lines = [json.loads(x) for x in out.stdout.decode().splitlines() if x.strip()]
            created = [x for x in lines if x.get("table_id") == table]
            if created:
                break
            await asyncio.sleep(0.5)
        else:
            pytest.fail(f"no event for {table}:\n{proc.tail()}")
    finally:
        proc.terminate()
    assert created[0]["type"] == "table_created"
    assert created[0]["seq"] == 1
    assert created[0]["profile"]["id"] == "classic"


async def test_undecodable_bytes_go_to_the_dead_letter_topic_and_processing_goes_on(
        kafka_bootstrap: str) -> None:
    prefix, group = _names()
    recorded = await _load(kafka_bootstrap, prefix, tables=1, seed=4)
    (table, (commands, _)), = recorded.items()
    from aiokafka import AIOKafkaProducer
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    await producer.start()
    try:
        await producer.send_and_wait(topics.COMMANDS.name(prefix), b"{not json",
                                     key=table.encode())
    finally:
        await producer.stop()
    proc = ProcessorProcess(kafka_bootstrap, prefix, group)
    proc.start()
    try:
        await publish(kafka_bootstrap, prefix, commands)
        await _verify(kafka_bootstrap, prefix, recorded, [proc])
        dead = await read_all(kafka_bootstrap, topics.DEAD_LETTERS.name(prefix), until=1)
    finally:
        proc.terminate()
    letter = E.dead_letter_decoder.decode(dead[0])
    assert "undecodable" in letter.reason and letter.value == "{not json"


async def test_a_new_owner_fences_both_transactional_producers_of_the_old_one(
        kafka_bootstrap: str) -> None:
    """A partition's worker commits with two producers in turn (the second id is the first
    + "-b"): whoever takes the partition over must fence both, or a paused old owner could
    still commit through the one it was not using."""
    prefix, group = _names()
    await provision(kafka_bootstrap, prefix)
    old = Processor(kafka_bootstrap, prefix=prefix, group=group)
    new = Processor(kafka_bootstrap, prefix=prefix, group=group)
    stale = await old._producers(0)
    fresh: tuple[AIOKafkaProducer, ...] = ()
    try:
        fresh = await new._producers(0)
        assert [p._txn_manager.transactional_id for p in fresh] == [f"{group}-0",
                                                                      f"{group}-0-b"]
        for producer in stale:
            with pytest.raises(ProducerFenced):
                async with producer.transaction():
                    await producer.send_and_wait(topics.EVENTS.name(prefix), b"{}",
                                                 key=b"x", partition=0)
        for producer in fresh:  # the new owner's commit goes through
            async with producer.transaction():
                await producer.send_and_wait(topics.EVENTS.name(prefix), b"{}", key=b"x",
                                             partition=0)
    finally:
        for producer in (*stale, *fresh):
            await producer.stop()
