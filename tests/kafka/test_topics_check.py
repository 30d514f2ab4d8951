"""`okey101 topics check` against the real broker: topics as declared match; a topic
created by hand with the wrong retention or cleanup policy, or missing, is named with the
setting; a broker that cannot be reached is one line and exit status 2."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from okey101.app import topics
from services.cli.main import main
from services.common.kafka import provision
from tests.kafka.support import fresh_tag


async def _create_by_hand(bootstrap: str, prefix: str) -> None:
    """The topics as declared, except events kept 7 days and outcomes compacted."""
    wrong = {topics.EVENTS.suffix: {"retention.ms": "604800000"},
             topics.OUTCOMES.suffix: {"retention.ms": "-1", "cleanup.policy": "compact"}}
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    made = [spec.name(prefix) for spec in topics.ALL if spec is not topics.PLAYER_VIEWS]
    try:
        response = await admin.create_topics([
            NewTopic(spec.name(prefix), topics.PARTITIONS, 1, topic_configs={
                **spec.configs(topics.Replication(1, 1)), **wrong.get(spec.suffix, {})})
            for spec in topics.ALL if spec is not topics.PLAYER_VIEWS])
        assert all(code == 0 for _, code, *_ in response.topic_errors), response
        while not set(made) <= set(await admin.list_topics()):
            await asyncio.sleep(0.05)
    finally:
        await admin.close()


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    status = main(["topics", "check", *args])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def test_topics_created_by_the_services_match_what_the_code_declares(
        kafka_bootstrap: str, capsys: pytest.CaptureFixture[str]) -> None:
    prefix = f"chk{fresh_tag()}"
    asyncio.run(provision(kafka_bootstrap, prefix))
    status, out, _ = _check(capsys, "--prefix", prefix, "--bootstrap", kafka_bootstrap)
    assert status == 0, out
    assert out == [f"{len(topics.ALL)} topics {prefix}.* match: 8 partitions, replication "
                   "factor 1, min.insync.replicas 1"]


def test_a_topic_with_the_wrong_retention_or_cleanup_or_missing_is_named(
        kafka_bootstrap: str, capsys: pytest.CaptureFixture[str]) -> None:
    prefix = f"chk{fresh_tag()}"
    asyncio.run(_create_by_hand(kafka_bootstrap, prefix))
    status, out, _ = _check(capsys, "--prefix", prefix, "--bootstrap", kafka_bootstrap)
    assert status == 1
    assert out == [f"{prefix}.events: retention.ms 604800000, declared -1",
                   f"{prefix}.outcomes: cleanup.policy compact, declared delete",
                   f"{prefix}.playerviews: missing"]


def test_more_replicas_asked_than_the_topics_have_is_a_drift_of_each(
        kafka_bootstrap: str, capsys: pytest.CaptureFixture[str]) -> None:
    prefix = f"chk{fresh_tag()}"
    asyncio.run(provision(kafka_bootstrap, prefix))
    # the single node cannot hold 2 copies: the setting itself is refused
    status, _, err = _check(capsys, "--prefix", prefix, "--bootstrap", kafka_bootstrap,
                            "--replication-factor", "2")
    assert (status, err) == (2, "okey101 topics: replication factor 2: must be 1 to the "
                                "cluster's 1 broker(s)\n")
    status, out, _ = _check(capsys, "--prefix", prefix, "--bootstrap", kafka_bootstrap,
                            "--partitions", "4")
    assert status == 1
    assert out == [f"{spec.name(prefix)}: partitions 8, declared 4" for spec in topics.ALL]


def test_an_unreachable_broker_is_one_line_and_exit_status_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _check(capsys, "--bootstrap", "127.0.0.1:9")
    assert status == 2 and out == []
    assert err.count("\n") == 1
    assert err.startswith("okey101 topics: Kafka at 127.0.0.1:9: KafkaConnectionError: "
                          "Unable to bootstrap")
