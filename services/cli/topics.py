"""`okey101 topics check|create`: the Kafka topics as `okey101.app.topics` declares them
against the ones the cluster has.

check   one line per difference (a missing topic; partitions, replication factor,
        min.insync.replicas, retention.ms, cleanup.policy) naming the topic and the
        setting: exit 1 on any, 0 when all match, 2 on bad input or a broker that cannot
        be reached or refuses (one line).
create  creates the missing topics (as the services do at start-up), then checks.

The replication expected is --replication-factor / --min-insync-replicas, else
OKEY_REPLICATION_FACTOR / OKEY_MIN_INSYNC_REPLICAS, else what the cluster's broker count
gives (3 and 2 from 3 brokers up, 1 on one). Credentials: OKEY_KAFKA_* as the services.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from typing import Any

from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import KafkaError, for_code

from okey101.app import topics
from okey101.app.topic_drift import TopicState, drift
from okey101.errors import InfrastructureFault, MalformedInput
from services.common.kafka import (
    KafkaClientLog,
    admin_client,
    bootstrap_servers,
    cluster_replication,
    fault_text,
    provision,
)

UNKNOWN_TOPIC = 3  # UNKNOWN_TOPIC_OR_PARTITION


def register(commands: Any) -> None:
    parser = commands.add_parser("topics", help="check (or create) the Kafka topics against "
                                 "what the code declares")
    actions = parser.add_subparsers(dest="action", required=True)
    for name, run, text in (("check", _check, "report every drift; exit 1 if any"),
                            ("create", _create, "create the missing topics, then check")):
        action = actions.add_parser(name, help=text, description=__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        action.add_argument("--prefix", default="okey", help="topic name prefix")
        action.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
        action.add_argument("--partitions", type=int, default=topics.PARTITIONS,
                            help="partitions of every topic")
        action.add_argument("--replication-factor", type=int)
        action.add_argument("--min-insync-replicas", type=int)
        action.set_defaults(run=run)


def _check(args: argparse.Namespace) -> int:
    return asyncio.run(_guarded(args, create=False))


def _create(args: argparse.Namespace) -> int:
    return asyncio.run(_guarded(args, create=True))


async def _guarded(args: argparse.Namespace, create: bool) -> int:
    if args.partitions < 1:
        raise MalformedInput(f"--partitions {args.partitions}: must be at least 1")
    bootstrap = bootstrap_servers(args.bootstrap)
    client_log = KafkaClientLog()  # keeps the client's own complaint, prints nothing
    logger = logging.getLogger("aiokafka")
    logger.addHandler(client_log)
    logger.propagate = False
    try:
        return await _run(args, bootstrap, create)
    except (KafkaError, OSError) as exc:
        cause = f" ({client_log.last_error})" if client_log.last_error else ""
        raise InfrastructureFault(f"Kafka at {bootstrap}: {fault_text(exc)}{cause}") from None
    finally:
        logger.removeHandler(client_log)


async def _run(args: argparse.Namespace, bootstrap: str, create: bool) -> int:
    if create:
        await provision(bootstrap, args.prefix, args.partitions, args.replication_factor,
                        args.min_insync_replicas)
    admin = admin_client(bootstrap, request_timeout_ms=10000)
    await admin.start()
    try:
        replication = await cluster_replication(admin, args.replication_factor,
                                                args.min_insync_replicas)
        found = await _describe(admin, [spec.name(args.prefix) for spec in topics.ALL])
    finally:
        await admin.close()
    differences = drift(args.prefix, args.partitions, replication, found)
    for line in differences:
        print(line)
    if differences:
        return 1
    print(f"{len(found)} topics {args.prefix}.* match: {args.partitions} partitions, "
          f"replication factor {replication.factor}, min.insync.replicas "
          f"{replication.min_insync}")
    return 0


async def _describe(admin: AIOKafkaAdminClient, names: list[str]
                    ) -> dict[str, TopicState | None]:
    found: dict[str, TopicState | None] = {}
    replicas: dict[str, tuple[int, ...]] = {}
    for topic in await admin.describe_topics(names):
        name, code = topic["topic"], topic["error_code"]
        if code == UNKNOWN_TOPIC:
            found[name] = None
        elif code:
            raise InfrastructureFault(f"{name}: {for_code(code).__name__}")
        else:
            by_partition = sorted(topic["partitions"], key=lambda p: p["partition"])
            replicas[name] = tuple(len(p["replicas"]) for p in by_partition)
    keys = {key: None for spec in topics.ALL for key in spec.configs(topics.Replication(1, 1))}
    if replicas:
        for response in await admin.describe_configs(
                [ConfigResource(ConfigResourceType.TOPIC, name, keys) for name in replicas]):
            for resource in response.to_object()["resources"]:
                name = resource["resource_name"]
                if resource["error_code"]:
                    raise InfrastructureFault(
                        f"{name}: {for_code(resource['error_code']).__name__}")
                found[name] = TopicState(replicas[name], {
                    e["config_names"]: e["config_value"] for e in resource["config_entries"]})
    return found
