"""Fixtures for tests that need a real Kafka broker.

Every test under tests/kafka/ is marked ``kafka`` (deselect with ``-m "not kafka"``).

The broker is the one from ``KAFKA_BOOTSTRAP`` when that is set; otherwise
``tools/kafka/broker.sh start`` starts the project's local KRaft broker (no Docker), or
finds it already running. The broker is deliberately LEFT RUNNING after the session so that
the next test run starts in well under a second; stop it with
``tools/kafka/broker.sh stop`` (or ``wipe`` to drop its data too).
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

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
def kafka_bootstrap() -> str:
    """The bootstrap address ("host:port") of a ready Kafka broker."""
    external = os.environ.get("KAFKA_BOOTSTRAP")
    if external:
        return external
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
