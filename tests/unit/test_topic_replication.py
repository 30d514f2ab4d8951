"""Replication as configuration: the default from the broker count, explicit settings
checked against the cluster, and the drift between declared and existing topics."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from okey101.app import topics
from okey101.app.topic_drift import TopicState, drift
from okey101.app.topics import Replication, replication
from okey101.errors import MalformedInput


def test_three_brokers_or_more_keep_three_copies_two_in_sync() -> None:
    assert replication(3) == Replication(3, 2)
    assert replication(7) == Replication(3, 2)


def test_a_single_node_keeps_one_copy() -> None:
    assert replication(1) == Replication(1, 1)


def test_two_brokers_keep_two_copies_and_one_may_fail() -> None:
    assert replication(2) == Replication(2, 1)


def test_explicit_settings_win_over_the_broker_count() -> None:
    assert replication(5, factor=5, min_insync=3) == Replication(5, 3)
    assert replication(3, min_insync=3) == Replication(3, 3)
    assert replication(3, factor=1) == Replication(1, 1)


@pytest.mark.parametrize(("brokers", "factor", "min_insync", "named"), [
    (1, 3, None, "replication factor 3: must be 1 to the cluster's 1 broker(s)"),
    (3, 0, None, "replication factor 0"),
    (3, 3, 4, "min.insync.replicas 4: must be 1 to the replication factor 3"),
    (3, None, 0, "min.insync.replicas 0"),
    (0, None, None, "a cluster of 0 brokers"),
])
def test_impossible_replication_is_refused_naming_the_setting(
        brokers: int, factor: int | None, min_insync: int | None, named: str) -> None:
    with pytest.raises(MalformedInput, match=named.replace("(", r"\(").replace(")", r"\)")):
        replication(brokers, factor, min_insync)


@given(st.integers(1, 50), st.one_of(st.none(), st.integers(1, 50)))
def test_the_replication_chosen_is_always_possible_on_the_cluster(
        brokers: int, factor: int | None) -> None:
    if factor is not None and factor > brokers:
        return
    chosen = replication(brokers, factor)
    assert 1 <= chosen.min_insync <= chosen.factor <= brokers


def test_every_topic_is_created_with_its_retention_cleanup_and_min_insync() -> None:
    assert topics.EVENTS.configs(Replication(3, 2)) == {
        "retention.ms": "-1", "cleanup.policy": "delete", "min.insync.replicas": "2"}


def _as_declared(prefix: str, partitions: int, r: Replication) -> dict[str, TopicState | None]:
    return {spec.name(prefix): TopicState((r.factor,) * partitions, spec.configs(r))
            for spec in topics.ALL}


def test_topics_as_declared_show_no_drift() -> None:
    r = Replication(3, 2)
    assert drift("okey", 8, r, _as_declared("okey", 8, r)) == []


def test_each_drift_names_the_topic_and_the_setting() -> None:
    r = Replication(3, 2)
    found = _as_declared("okey", 8, r)
    found["okey.events"] = TopicState((3,) * 8, {"retention.ms": "604800000",
                                                 "cleanup.policy": "compact",
                                                 "min.insync.replicas": "2"})
    found["okey.playerviews"] = TopicState((1,) * 4,
                                           topics.PLAYER_VIEWS.configs(Replication(1, 1)))
    found["okey.outcomes"] = TopicState((3, 3, 1, 3, 3, 3, 3, 3), topics.OUTCOMES.configs(r))
    del found["okey.deadletters"]
    assert drift("okey", 8, r, found) == [
        "okey.events: retention.ms 604800000, declared -1",
        "okey.events: cleanup.policy compact, declared delete",
        "okey.outcomes: replication factor 1-3, declared 3",
        "okey.playerviews: partitions 4, declared 8",
        "okey.playerviews: replication factor 1, declared 3",
        "okey.playerviews: min.insync.replicas 1, declared 2",
        "okey.deadletters: missing",
    ]


def test_a_setting_the_cluster_does_not_report_is_a_drift() -> None:
    r = Replication(1, 1)
    found = _as_declared("p", 8, r)
    found["p.commands"] = TopicState((1,) * 8, {"retention.ms": "604800000"})
    assert drift("p", 8, r, found) == [
        "p.commands: cleanup.policy unknown, declared delete",
        "p.commands: min.insync.replicas unknown, declared 1"]
