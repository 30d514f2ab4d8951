"""What differs between the topics the code declares (`okey101.app.topics`) and the ones a
cluster has: partitions, replication factor and the topic-level settings."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from okey101.app import topics


class TopicState(msgspec.Struct, frozen=True):
    """A topic as the cluster describes it."""

    replicas: tuple[int, ...]  # each partition's replica count, by partition
    configs: dict[str, str]  # the settings that apply to it (its own or the broker's)


def drift(prefix: str, partitions: int, replication: topics.Replication,
          found: Mapping[str, TopicState | None]) -> list[str]:
    """One line per difference, naming the topic and the setting; empty when all match.
    `found` maps each declared topic's name to its state, None when it does not exist."""
    out: list[str] = []
    for spec in topics.ALL:
        name = spec.name(prefix)
        state = found.get(name)
        if state is None:
            out.append(f"{name}: missing")
            continue
        if len(state.replicas) != partitions:
            out.append(f"{name}: partitions {len(state.replicas)}, declared {partitions}")
        factors = sorted(set(state.replicas))
        if factors != [replication.factor]:
            shown = f"{factors[0]}-{factors[-1]}" if len(factors) > 1 else \
                str(factors[0]) if factors else "none"
            out.append(f"{name}: replication factor {shown}, declared {replication.factor}")
        for key, wanted in spec.configs(replication).items():
            have = state.configs.get(key)
            if have != wanted:
                out.append(f"{name}: {key} {have if have is not None else 'unknown'}, "
                           f"declared {wanted}")
    return out
