"""Kafka security against a real broker that authenticates every client with
SASL/SCRAM-SHA-512 and authorises it by ACLs (`tools/kafka/broker.sh secure`, the ACLs of
`deploy/kafka/acls.sh`): the processor plays a whole hand as principal `processor`; each
principal may do its part only; an unauthenticated client, a wrong password or the wrong
principal is refused, and a service so refused stops with one line saying why."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import (
    KafkaConnectionError,
    TopicAuthorizationFailedError,
    TransactionalIdAuthorizationFailed,
)

from okey101.app import topics
from services.common.kafka import client_security, provision
from services.demo.__main__ import house_options, setup_commands
from tests.kafka.support import (
    ROOT,
    BotsProcess,
    ProcessorProcess,
    ViewsProcess,
    check_log,
    publish,
    read_all,
    scenario_commands,
)
from tests.kafka.test_timers import TimersProcess

BROKER_SH = ROOT / "tools" / "kafka" / "broker.sh"
ACLS_SH = ROOT / "deploy" / "kafka" / "acls.sh"
PREFIX = "okeysec"  # the ACLs name the topics: one prefix for every run
GROUPS = {"OKEY_PROCESSOR_GROUP": f"{PREFIX}-processor", "OKEY_TIMERS_GROUP": f"{PREFIX}-timers",
          "OKEY_BOTS_GROUP": f"{PREFIX}-bots", "OKEY_GATEWAY_GROUP": f"{PREFIX}-gateway",
          "OKEY_VIEWS_GROUP": f"{PREFIX}-views"}


@dataclass
class Secure:
    bootstrap: str
    passwords: dict[str, str]

    def env(self, user: str, password: str | None = None) -> dict[str, str]:
        """The settings a service runs with as `user`."""
        return {"OKEY_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
                "OKEY_KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "OKEY_KAFKA_USERNAME": user,
                "OKEY_KAFKA_PASSWORD": password or self.passwords[user]}

    def security(self, user: str) -> dict[str, Any]:
        return client_security(self.env(user))


def _script(*args: str) -> str:
    done = subprocess.run(["bash", str(BROKER_SH), "secure", *args], capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)
    if done.returncode:
        pytest.fail(f"broker.sh secure {' '.join(args)}:\n{done.stderr}", pytrace=False)
    return done.stdout.strip()


def _apply_acls(bootstrap: str, cache: Path) -> None:
    """deploy/kafka/acls.sh with the project's jars, once per broker and script version:
    the ACLs live in the broker's metadata, and a run of kafka-acls costs a JVM each."""
    stamp = cache / "acls.applied"
    users = cache / "data" / ".okey101-users"  # a new set of users: storage formatted anew
    version = " ".join([(cache / "cluster.id").read_text().strip(), PREFIX,
                        hashlib.sha256(ACLS_SH.read_bytes()).hexdigest(),
                        users.read_text() if users.exists() else ""])
    if stamp.exists() and stamp.read_text() == version:
        return
    libs = ROOT / ".cache" / "kafka" / "libs"
    env = dict(os.environ, **GROUPS, KAFKA_BOOTSTRAP=bootstrap, OKEY_PREFIX=PREFIX,
               KAFKA_COMMAND_CONFIG=str(cache / "admin.properties"),
               KAFKA_ACLS=f"java -Xmx128m -Dlog4j.configuration=file:{cache}/tools-log4j."
                          f"properties -cp {libs}/* kafka.admin.AclCommand")
    done = subprocess.run(["bash", str(ACLS_SH)], env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    stamp.write_text(version)


@pytest.fixture(scope="module")
def secure() -> Iterator[Secure]:
    """The secure broker, stopped again after the module when this fixture started it (a
    second 512 MB JVM would otherwise stay beside the test broker)."""
    was_running = subprocess.run(["bash", str(BROKER_SH), "secure", "status"],
                                 capture_output=True, timeout=60,
                                 stdin=subprocess.DEVNULL).returncode == 0
    _script("start")
    try:
        yield _secure_broker()
    finally:
        if not was_running:
            _script("stop")


def _secure_broker() -> Secure:
    credentials = Path(_script("credentials"))
    passwords = {}
    for line in credentials.read_text().splitlines():
        name, _, value = line.partition("=")
        passwords[name.removeprefix("KAFKA_SECURE_PASSWORD_").lower()] = value
    broker = Secure(_script("bootstrap"), passwords)
    _apply_acls(broker.bootstrap, credentials.parent)
    with mock.patch.dict(os.environ, broker.env("admin")):  # topics are the operator's
        asyncio.run(provision(broker.bootstrap, PREFIX))
    return broker


@pytest.fixture
def client_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level("ERROR", logger="aiokafka"):
        yield caplog


async def _write(secure: Secure, user: str, topic: str, **options: Any) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=secure.bootstrap, acks="all",
                                enable_idempotence=True, request_timeout_ms=10000,
                                **options, **secure.security(user))
    try:
        await producer.start()
        await producer.send_and_wait(topic, b"acl-check", key=b"acl-check")
    finally:
        await producer.stop()


async def _read(secure: Secure, user: str, topic: str) -> None:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=secure.bootstrap, group_id=None,
                                auto_offset_reset="latest", **secure.security(user))
    try:
        await consumer.start()
        await consumer.getmany(timeout_ms=500)
    finally:
        await consumer.stop()


async def _table_log(secure: Secure, topic: str, table_id: str, until: int = 0
                     ) -> list[bytes]:
    """The committed values of `topic` for one table (read as admin), waiting for `until`:
    the topics keep earlier runs' tables."""
    for _ in range(60):
        values = [v for v in await read_all(secure.bootstrap, topic, timeout=30,
                                            security=secure.security("admin"))
                  if json.loads(v)["table_id"] == table_id]
        if len(values) >= until:
            return values
    raise AssertionError(f"{topic}: {len(values)} of {until} values for {table_id}")


async def test_the_processor_plays_a_whole_hand_as_principal_processor_while_a_gateway_cannot_write_events(  # noqa: E501
        secure: Secure) -> None:
    tag = uuid.uuid4().hex[:8]
    doc = json.loads((ROOT / "tests" / "kafka" / "whole_hand.json").read_text())
    commands, final = scenario_commands(doc, f"{PREFIX}-hand-{tag}")
    table_id = commands[0].table_id
    proc = ProcessorProcess(secure.bootstrap, PREFIX, GROUPS["OKEY_PROCESSOR_GROUP"],
                            name=f"sec-{tag}", env=secure.env("processor"))
    proc.start()
    try:
        await publish(secure.bootstrap, PREFIX, commands, security=secure.security("gateway"))
        outcomes = await _table_log(secure, topics.OUTCOMES.name(PREFIX), table_id,
                                    until=len(commands))
        events = await _table_log(secure, topics.EVENTS.name(PREFIX), table_id)
        with pytest.raises(TopicAuthorizationFailedError, match=topics.EVENTS.name(PREFIX)):
            await _write(secure, "gateway", topics.EVENTS.name(PREFIX))
    finally:
        proc.terminate()
    check_log(outcomes, events, {table_id: (commands, final)})
    assert "service_failed" not in proc.tail(200), proc.tail()


async def test_processor_timers_and_bots_play_a_bot_match_each_as_its_own_principal(
        secure: Secure) -> None:
    table_id = f"{PREFIX}-bots-{uuid.uuid4().hex[:8]}"
    setup, _ = setup_commands(table_id, "north-sultan", house_options("north-sultan", 1))
    services = [
        ProcessorProcess(secure.bootstrap, PREFIX, GROUPS["OKEY_PROCESSOR_GROUP"],
                         name=f"sec-{table_id}", env=secure.env("processor")),
        TimersProcess(secure.bootstrap, PREFIX, GROUPS["OKEY_TIMERS_GROUP"],
                      name=f"sec-timers-{table_id}"),
        BotsProcess(secure.bootstrap, PREFIX, GROUPS["OKEY_BOTS_GROUP"],
                    name=f"sec-bots-{table_id}", env=secure.env("bots")),
        ViewsProcess(secure.bootstrap, PREFIX, GROUPS["OKEY_VIEWS_GROUP"],
                     name=f"sec-views-{table_id}", env=secure.env("views"))]
    services[1].env = secure.env("timers")
    for service in services:
        service.start()
    try:
        await services[1].wait_for("timers_ready", timeout=120)
        await publish(secure.bootstrap, PREFIX, setup, security=secure.security("gateway"))
        for _ in range(60):
            events = await _table_log(secure, topics.EVENTS.name(PREFIX), table_id)
            if any(b'"match_ended"' in v for v in events):
                break
        else:
            raise AssertionError(f"{table_id}: no match_ended\n{services[2].tail()}")
    finally:
        for service in services:
            service.terminate()
    for service in services:
        assert "service_failed" not in service.tail(500), service.tail()


@pytest.mark.parametrize(("user", "suffix"), [
    ("gateway", "commands"), ("bots", "commands"), ("timers", "commands"),
    ("views", "playerviews"), ("bots", "deadletters"), ("timers", "deadletters"),
    ("gateway", "deadletters"), ("views", "deadletters")])
async def test_gateways_bots_and_timers_may_write_commands_and_views_the_player_views(
        secure: Secure, user: str, suffix: str) -> None:
    await _write(secure, user, f"{PREFIX}.{suffix}")


@pytest.mark.parametrize(("user", "suffix"), [
    ("gateway", "events"), ("gateway", "outcomes"), ("bots", "events"),
    ("bots", "playerviews"), ("timers", "events"), ("timers", "outcomes"),
    ("gateway", "playerviews"), ("processor", "playerviews"),
    ("views", "events")])
async def test_only_their_writers_write_events_outcomes_and_views(
        secure: Secure, user: str, suffix: str) -> None:
    with pytest.raises(TopicAuthorizationFailedError, match=f"{PREFIX}.{suffix}"):
        await _write(secure, user, f"{PREFIX}.{suffix}")


@pytest.mark.parametrize(("user", "suffix"), [
    ("bots", "playerviews"), ("timers", "events"), ("gateway", "outcomes"),
    ("processor", "commands"), ("processor", "events"), ("views", "events"),
    ("gateway", "playerviews")])
async def test_each_reader_may_read_its_topics(secure: Secure, user: str, suffix: str) -> None:
    await _read(secure, user, f"{PREFIX}.{suffix}")


@pytest.mark.parametrize(("user", "suffix"), [
    ("bots", "events"), ("bots", "commands"), ("timers", "commands"),
    ("timers", "playerviews"), ("gateway", "events"), ("views", "commands")])
async def test_no_one_reads_what_is_not_theirs(secure: Secure, user: str, suffix: str) -> None:
    with pytest.raises(TopicAuthorizationFailedError, match=f"{PREFIX}.{suffix}"):
        await _read(secure, user, f"{PREFIX}.{suffix}")


async def test_only_the_processor_may_use_its_transactional_ids(secure: Secure) -> None:
    with pytest.raises(TransactionalIdAuthorizationFailed):
        await _write(secure, "gateway", f"{PREFIX}.commands",
                     transactional_id=f"{GROUPS['OKEY_PROCESSOR_GROUP']}-0")


async def test_an_unauthenticated_client_is_refused(secure: Secure) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=secure.bootstrap, request_timeout_ms=5000)
    with pytest.raises(KafkaConnectionError, match="Unable to bootstrap"):
        await producer.start()
    await producer.stop()


async def test_a_wrong_password_is_refused_and_the_client_says_so(
        secure: Secure, client_log: pytest.LogCaptureFixture) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=secure.bootstrap, request_timeout_ms=5000,
                                **client_security(secure.env("processor", "not-it")))
    with pytest.raises(KafkaConnectionError, match="Unable to bootstrap"):
        await producer.start()
    await producer.stop()
    assert "SaslAuthenticationFailed" in client_log.text


def _run_service(secure: Secure, service: str, env: dict[str, str]) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", f"services.{service}", "--bootstrap",
                           secure.bootstrap, "--prefix", PREFIX, "--metrics-port", "0",
                           "--group", GROUPS["OKEY_PROCESSOR_GROUP"]],
                          cwd=ROOT, env=dict(os.environ, **env), capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout.strip().splitlines()[-1] if done.stdout else ""


@pytest.mark.parametrize(("user", "password", "cause"), [
    ("processor", "not-it", "SaslAuthenticationFailed"),
    ("timers", None, "AuthorizationFailed"),
])
def test_a_service_refused_by_the_broker_stops_with_one_line_saying_why(
        secure: Secure, user: str, password: str | None, cause: str) -> None:
    status, last = _run_service(secure, "processor", secure.env(user, password))
    line = json.loads(last)
    print(last)  # what an operator sees (pytest -s)
    assert status == 1
    assert line["event"] == "service_failed" and line["kafka_user"] == user
    assert cause in f"{line['error']} {line.get('cause')}", last
