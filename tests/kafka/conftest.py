"""Fixtures for tests that need a real Kafka broker.

Every test under tests/kafka/ is marked ``kafka`` (deselect with ``-m "not kafka"``).

The broker is the one from ``KAFKA_BOOTSTRAP`` when that is set; otherwise
``tools/kafka/broker.sh start`` starts the project's local KRaft broker (no Docker), or
finds it already running. The broker is deliberately LEFT RUNNING after the session so that
the next test run starts in well under a second; stop it with
``tools/kafka/broker.sh stop`` (or ``wipe`` to drop its data too).

The topics the session made are deleted when it ends: those of `make_topic`, and every
topic whose name holds a tag taken with ``support.fresh_tag()`` (how each test names its
prefix); ``OKEY_KEEP_TEST_TOPICS=1`` keeps them for a look. ``broker.sh status`` says
what the broker holds, ``broker.sh clean-topics`` deletes what older runs left.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError

from services.common.kafka import fault_text
from tests.kafka import support
from tests.kafka.stack import Stack, running

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BROKER_SH = ROOT / "tools" / "kafka" / "broker.sh"

# Generous: the first start downloads the broker jars from Maven Central.
START_TIMEOUT_S = 600

MakeTopic = Callable[..., Awaitable[str]]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # This hook sees the items of the whole session: mark only the ones in this folder.
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.kafka)


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    """The bootstrap address ("host:port") of a ready Kafka broker; the session's topics
    are deleted from it at the end."""
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP") or _local_broker()
    yield bootstrap
    if support.TAGS and os.environ.get("OKEY_KEEP_TEST_TOPICS") != "1":
        try:
            asyncio.run(support.drop_tagged(bootstrap, support.TAGS))
        except (KafkaError, OSError) as exc:  # the tests' verdicts stand
            print(f"could not delete this session's topics: {fault_text(exc)}")
        support.TAGS.clear()


def _local_broker() -> str:
    try:
        subprocess.run(
            ["bash", str(BROKER_SH), "start"],
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=START_TIMEOUT_S,
        )
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"{BROKER_SH} start failed:\n{exc.stderr}", pytrace=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{BROKER_SH} start did not finish in {START_TIMEOUT_S}s", pytrace=False)
    # Left running on purpose (see the module docstring).
    out = subprocess.run(
        ["bash", str(BROKER_SH), "bootstrap"], check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


@pytest.fixture
async def kafka_admin(kafka_bootstrap: str) -> AsyncIterator[AIOKafkaAdminClient]:
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap, request_timeout_ms=15000)
    await admin.start()
    try:
        yield admin
    finally:
        await admin.close()


@pytest.fixture
async def make_topic(kafka_admin: AIOKafkaAdminClient) -> AsyncIterator[MakeTopic]:
    """Factory: ``await make_topic("name", partitions=1)`` creates a uniquely named topic
    (the given name plus a uuid) and returns its name; the topics are deleted afterwards."""
    created: list[str] = []

    async def make(prefix: str = "test", partitions: int = 1) -> str:
        name = f"{prefix}-{uuid.uuid4().hex}"
        resp = await kafka_admin.create_topics(
            [NewTopic(name, num_partitions=partitions, replication_factor=1)],
            timeout_ms=15000,
        )
        errors = [(t, code, *rest) for t, code, *rest in resp.topic_errors if code != 0]
        assert not errors, f"create_topics failed: {errors}"
        created.append(name)
        return name

    yield make
    if created:
        try:
            await kafka_admin.delete_topics(created, timeout_ms=15000)
        except Exception as exc:  # best effort: a leftover topic harms no other test
            print(f"could not delete test topics {created}: {exc!r}")


@pytest.fixture
async def guest_stack(kafka_bootstrap: str) -> AsyncIterator[Stack]:
    """The stack a person plays through (tests/kafka/stack.py), with guest logins and the
    leaderboards the lobby reads, for one test."""
    async with running(kafka_bootstrap, "--guest-login", leaderboards=True) as stack:
        yield stack
