"""The Kafka topics of okey101: names, keys, value types, partitions, retention.

Pure data; services provision them idempotently (`services/common/kafka.py`) and
proto/TOPICS.md documents them. Commands, events, outcomes and views share one partition
count: the processor writes a table's events and outcomes to the partition its commands
came from, and the views service its views to the events' partition, so one partition
holds everything about its tables. Retired topics (never provisioned again, and left to
operators to delete) are listed in proto/VERSIONING.md.
"""

from __future__ import annotations

import functools

import msgspec

from okey101.errors import MalformedInput

PARTITIONS = 8  # default for new topics; services read the real count from Kafka
REPLICAS = 3  # copies of each partition where the cluster has that many brokers


class Replication(msgspec.Struct, frozen=True):
    """How many brokers keep a copy of each partition (`factor`), and how many copies must
    have a write before an acks=all producer is told it succeeded (`min_insync`)."""

    factor: int
    min_insync: int


def replication(brokers: int, factor: int | None = None,
                min_insync: int | None = None) -> Replication:
    """The replication of new topics on a cluster of `brokers`: as given, else 3 copies
    with 2 in sync (one broker may fail without stopping writes) where there are 3 brokers
    or more, and as many copies as brokers below that, one fewer in sync (at least 1)."""
    if brokers < 1:
        raise MalformedInput(f"a cluster of {brokers} brokers: there must be at least one")
    factor = min(REPLICAS, brokers) if factor is None else factor
    if not 1 <= factor <= brokers:
        raise MalformedInput(f"replication factor {factor}: must be 1 to the cluster's "
                             f"{brokers} broker(s)")
    min_insync = max(1, factor - 1) if min_insync is None else min_insync
    if not 1 <= min_insync <= factor:
        raise MalformedInput(f"min.insync.replicas {min_insync}: must be 1 to the "
                             f"replication factor {factor}")
    return Replication(factor, min_insync)


class TopicSpec(msgspec.Struct, frozen=True):
    suffix: str
    key: str
    value: str
    retention_ms: int  # -1: kept forever
    writers: str
    readers: str
    cleanup: str = "delete"
    settings: tuple[tuple[str, str], ...] = ()  # more topic-level settings

    def name(self, prefix: str = "okey") -> str:
        return f"{prefix}.{self.suffix}"

    def configs(self, replication: Replication) -> dict[str, str]:
        """The topic-level settings the topic is created with (and checked against)."""
        return {"retention.ms": str(self.retention_ms), "cleanup.policy": self.cleanup,
                "min.insync.replicas": str(replication.min_insync), **dict(self.settings)}


COMMANDS = TopicSpec(
    "commands", "table id", "table command (proto/table-commands.schema.json)",
    7 * 24 * 3600 * 1000, "gateways, timers, bots", "processor")
EVENTS = TopicSpec(
    "events", "table id", "table event (proto/table-events.schema.json)", -1,
    "processor (transactional)", "replays, timers, leaderboards, fairness audit, processor "
    "recovery")
OUTCOMES = TopicSpec(
    "outcomes", "table id", "command outcome (proto/outcome.schema.json)", -1,
    "processor (transactional)", "gateways, bots, processor recovery (duplicate detection)")
STANDINGS = TopicSpec(
    "standings", "house/account", "an account's standing in a house after a change "
    "(proto/standing.schema.json)", -1, "leaderboards", "gateways, analysts",
    cleanup="compact")
PLAYER_VIEWS = TopicSpec(
    "playerviews", "table id:seat", "a seated seat's (a person's or a bot's) or the "
    "spectators' (seat -1) whole view with its version and the events since the previous one "
    "(proto/player-update.schema.json); the last per table and seat of each batch of events "
    "the views service projects. A bot seat's update says so beside the view, with its "
    "level (`bot`, `bot_level`: server-internal, never forwarded by a gateway)",
    24 * 3600 * 1000, "views service (at least once, versioned)",
    "gateways (views, resume, the lobby), bots service", "compact,delete")
DEAD_LETTERS = TopicSpec(
    "deadletters", "original key", "dead letter (proto/dead-letter.schema.json)",
    30 * 24 * 3600 * 1000, "processor", "operators")

DIRECTORY = TopicSpec(
    "directory", "table id", "a table's directory entry (proto/directory-entry.schema.json): "
    "house, players, times, status, its events partition and offsets, hands, results", -1,
    "replays service (idempotent upserts)", "replays service (its restart), okey101 replay, "
    "history and export", cleanup="compact")
AUDIT = TopicSpec(
    "audit", "table id", "audit record (proto/audit-record.schema.json): a hand verified or "
    "failed, a collusion flag (keyed by the latest match behind it)", -1, "auditor",
    "moderators, operators, okey101 audit")

SNAPSHOTS = TopicSpec(
    "snapshots", "table id (a partition's cut: ~cut:<partition>)", "the processor's memory "
    "of a table (state and the outcomes of its command ids), a tombstone once it has left, "
    "and the cut closing each snapshot with its events and outcomes offsets "
    "(okey101.app.processor.snapshots)", -1, "processor (transactional)", "processor recovery",
    cleanup="compact",
    # a recovery reads what compaction has not reached: roll a segment every 10 minutes
    # and clean it soon, so that this stays about 10 minutes of snapshots
    settings=(("segment.ms", str(10 * 60 * 1000)), ("min.cleanable.dirty.ratio", "0.1")))

MATCHMAKING = TopicSpec(
    "matchmaking", "house", "a request to the matchmaker (proto/matchmaking-request.schema.json):"
    " quick play, cancel, a tournament's schedule and its cancelling, registration, and the "
    "relay of a seated table's end", 7 * 24 * 3600 * 1000,
    "gateways, operators, matchmaker (the relay)", "matchmaker")
MATCHMAKER = TopicSpec(
    "matchmaker", "house", "the matchmaker's decisions (proto/matchmaker-decision.schema.json):"
    " waits, refusals, cancellations, seated tables, tournaments; its memory is their fold",
    -1, "matchmaker (transactional, with the table commands)",
    "matchmaker (its restart), gateways (wait state, tournaments)")

TOURNAMENTS = TopicSpec(
    "tournaments", "tournament id", "a tournament not finished: its `tournament_scheduled` "
    "decision (proto/matchmaker-decision.schema.json); a tombstone once it has ended or been "
    "cancelled", -1, "matchmaker (transactional, with the decisions)",
    "gateways (the tournaments they know after a restart)", cleanup="compact")

ALL = (COMMANDS, EVENTS, OUTCOMES, PLAYER_VIEWS, DEAD_LETTERS, STANDINGS, DIRECTORY, AUDIT,
       SNAPSHOTS, MATCHMAKING, MATCHMAKER, TOURNAMENTS)
# one partition count for these: a table's commands, events and views share a partition
TABLE_TOPICS = (COMMANDS, EVENTS, OUTCOMES, PLAYER_VIEWS, SNAPSHOTS)


@functools.lru_cache(maxsize=1 << 16)  # a table's key comes with each of its commands
def partition_for(key: bytes, partitions: int) -> int:
    """Kafka's default (murmur2) partitioner, as the Java client and aiokafka compute it."""
    return (_murmur2(key) & 0x7FFFFFFF) % partitions


def _murmur2(data: bytes) -> int:
    length = len(data)
    seed, m, r = 0x9747B28C, 0x5BD1E995, 24
    h = (seed ^ length) & 0xFFFFFFFF
    full = length - length % 4
    for i in range(0, full, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    extra = length % 4
    if extra >= 3:
        h ^= data[full + 2] << 16
    if extra >= 2:
        h ^= data[full + 1] << 8
    if extra >= 1:
        h ^= data[full]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    # Java's murmur2 returns a signed int
    return h - (1 << 32) if h & 0x80000000 else h
