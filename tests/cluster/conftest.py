"""Fixtures for the tests on the local 3-node KRaft cluster (`tools/kafka/broker.sh
cluster`): they kill brokers, so they never run against anything else.

Every test under tests/cluster/ is marked ``cluster`` (and ``kafka``) and is skipped unless
OKEY_CLUSTER_TESTS=1 (``make test-cluster``): three brokers and a minute or two of load
cost more than the default run should. The cluster is left running after the session, as
the single broker is; ``tools/kafka/broker.sh cluster stop`` stops it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest
from aiokafka.admin import AIOKafkaAdminClient

from services.common.kafka import drop_topics

HERE = Path(__file__).resolve().parent
BROKER_SH = HERE.parents[1] / "tools" / "kafka" / "broker.sh"
ENABLED = os.environ.get("OKEY_CLUSTER_TESTS") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="a 3-broker cluster test: set OKEY_CLUSTER_TESTS=1 "
                            "(make test-cluster)")
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.cluster)
            item.add_marker(pytest.mark.kafka)
            if not ENABLED:
                item.add_marker(skip)


class Cluster:
    """The local cluster: its bootstrap list, and its nodes to kill and bring back."""

    def __init__(self) -> None:
        self.bootstrap = self._script("bootstrap")

    def _script(self, *args: str) -> str:
        try:
            done = subprocess.run(["bash", str(BROKER_SH), "cluster", *args], check=True,
                                  capture_output=True, text=True, timeout=300,
                                  stdin=subprocess.DEVNULL)
        except subprocess.CalledProcessError as exc:
            raise AssertionError(f"broker.sh cluster {' '.join(args)}: {exc.stderr}") from None
        return done.stdout.strip()

    def start(self) -> None:
        """Every node that is not running, until all three answer."""
        self._script("start")

    def kill(self, node: int) -> None:
        self._script("kill", str(node))

    def controller(self) -> int:
        """The node id of the active controller, as the KRaft quorum tells it."""
        return int(self._script("controller"))

    async def fully_replicated(self, topics: list[str], timeout: float = 120) -> None:
        """Until every partition of `topics` has all its replicas in sync."""
        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
        await admin.start()
        lagging: list[tuple[str, int]] = []
        try:
            deadline = asyncio.get_running_loop().time() + timeout
            while asyncio.get_running_loop().time() < deadline:
                lagging = [(t["topic"], p["partition"])
                           for t in await admin.describe_topics(topics)
                           for p in t["partitions"] if len(p["isr"]) < len(p["replicas"])]
                if not lagging:
                    return
                await asyncio.sleep(0.5)
        finally:
            await admin.close()
        raise AssertionError(f"not in sync after {timeout}s: {lagging[:5]}")

    async def delete_topics(self, prefix: str) -> None:
        """The topics of `prefix`: a restarted node loads every log before it serves, so
        leftovers from earlier runs would slow each restart down."""
        await drop_topics(self.bootstrap, prefix)


@pytest.fixture(scope="session")
def cluster() -> Cluster:
    if not ENABLED:
        pytest.skip("OKEY_CLUSTER_TESTS is not 1")
    cluster = Cluster()
    cluster.start()
    return cluster
