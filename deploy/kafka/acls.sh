#!/usr/bin/env bash
# The ACLs of okey101's principals, for a cluster with an authorizer (deploy/README.md,
# "Securing the cluster"). Adding an ACL that exists changes nothing: run it again after
# any change. Needs a super user's client config (the operator's).
#
#   principal        may
#   User:processor   read commands, events, outcomes, snapshots; write events, outcomes,
#                    snapshots, deadletters; its consumer group; the
#                    transactional ids <group>-* (two per commands partition)
#   User:views       read events; write playerviews; its consumer group; describe <prefix>.*
#   User:timers      read events; write commands; its consumer group
#   User:bots        read playerviews; write commands; its consumer group
#   User:gateway     write commands; read outcomes and playerviews; groups
#                    <gateway group>*
#   User:auditor     read events; write audit; its consumer group; describe <prefix>.*
#   User:leaderboards read events and standings; write standings; describe <prefix>.*
#   User:replays     read events and directory; write directory; its consumer group;
#                    describe <prefix>.*
#   User:matchmaker  read matchmaking, matchmaker, standings, events; write matchmaker,
#                    tournaments, commands, matchmaking (the relay), deadletters; its
#                    groups <group>*;
#                    the transactional ids <group>-* (one per matchmaking partition);
#                    describe <prefix>.*
#   (gateways also write matchmaking and read matchmaker and tournaments: quick play, its
#   wait state and the tournaments)
#   (every service that reads a topic also writes deadletters: what it cannot take, and why)
#   (processor, timers, bots and gateways may also describe the <prefix>.* topics: they
#   check the topics' partition counts at start-up; no data is readable that way)
#
# Usage: deploy/kafka/acls.sh [--dry-run]     (--dry-run prints the commands)
# Environment:
#   KAFKA_BOOTSTRAP       the brokers (required)
#   KAFKA_COMMAND_CONFIG  client properties of a super user (SASL/TLS settings); optional
#   KAFKA_ACLS            the kafka-acls command (default kafka-acls.sh, from the Kafka
#                         distribution; with the project's jars:
#                         "java -cp .cache/kafka/libs/* kafka.admin.AclCommand")
#   OKEY_PREFIX           topic prefix (default okey)
#   OKEY_PROCESSOR_GROUP, OKEY_TIMERS_GROUP, OKEY_BOTS_GROUP: the services' --group
#                         (default okey-processor, okey-timers, okey-bots)
#   OKEY_GATEWAY_GROUP    prefix of the gateways' consumer groups (default okey-gateway)
#   OKEY_PROCESSOR_USER, OKEY_TIMERS_USER, OKEY_BOTS_USER, OKEY_GATEWAY_USER: the SASL
#                         user names (default processor, timers, bots, gateway)
#   OKEY_AUDITOR_USER, OKEY_AUDITOR_GROUP: the auditor's (default auditor, okey-auditor)
#   OKEY_VIEWS_USER, OKEY_VIEWS_GROUP: the views service's (default views, okey-views)
#   OKEY_LEADERBOARDS_USER (default leaderboards; it reads without a consumer group)
#   OKEY_REPLAYS_USER, OKEY_REPLAYS_GROUP: the replays service's (default replays,
#                         okey-replays)
#   OKEY_MATCHMAKER_USER, OKEY_MATCHMAKER_GROUP: the matchmaker's (default matchmaker,
#                         okey-matchmaker)
set -euo pipefail

dry_run=false
case "${1:-}" in
"") ;;
--dry-run) dry_run=true ;;
*)
    echo "usage: $0 [--dry-run]" >&2
    exit 2
    ;;
esac
[[ -n "${KAFKA_BOOTSTRAP:-}" ]] || {
    echo "$0: KAFKA_BOOTSTRAP is not set" >&2
    exit 2
}

P="${OKEY_PREFIX:-okey}"
processor="User:${OKEY_PROCESSOR_USER:-processor}"
timers="User:${OKEY_TIMERS_USER:-timers}"
bots="User:${OKEY_BOTS_USER:-bots}"
gateway="User:${OKEY_GATEWAY_USER:-gateway}"
auditor="User:${OKEY_AUDITOR_USER:-auditor}"
views="User:${OKEY_VIEWS_USER:-views}"
leaderboards="User:${OKEY_LEADERBOARDS_USER:-leaderboards}"
replays="User:${OKEY_REPLAYS_USER:-replays}"
matchmaker="User:${OKEY_MATCHMAKER_USER:-matchmaker}"
read -r -a acls <<<"${KAFKA_ACLS:-kafka-acls.sh}"
base=("${acls[@]}" --bootstrap-server "$KAFKA_BOOTSTRAP")
[[ -n "${KAFKA_COMMAND_CONFIG:-}" ]] && base+=(--command-config "$KAFKA_COMMAND_CONFIG")

allow() { # allow PRINCIPAL... -- kafka-acls arguments
    local -a who=()
    while [[ "$1" != -- ]]; do
        who+=(--allow-principal "$1")
        shift
    done
    shift
    if $dry_run; then
        printf '%q ' "${base[@]}" --add "${who[@]}" "$@"
        echo
    else
        "${base[@]}" --add --force "${who[@]}" "$@" >/dev/null
    fi
}

# Commands come from the gateways, the timers and the bots.
allow "$gateway" "$timers" "$bots" -- --operation Write --topic "$P.commands"
allow "$processor" "$timers" "$bots" "$gateway" -- --operation Describe \
    --resource-pattern-type prefixed --topic "$P."

# The processor: reads commands (and its own log, to recover), writes everything else,
# in transactions whose ids start with its group.
allow "$processor" -- --operation Read --topic "$P.commands" --topic "$P.events" \
    --topic "$P.outcomes" --topic "$P.snapshots"
allow "$processor" -- --operation Write --topic "$P.events" --topic "$P.outcomes" \
    --topic "$P.snapshots" --topic "$P.deadletters"
allow "$processor" -- --operation Read --group "${OKEY_PROCESSOR_GROUP:-okey-processor}"
allow "$processor" -- --operation Write --operation Describe \
    --resource-pattern-type prefixed --transactional-id "${OKEY_PROCESSOR_GROUP:-okey-processor}-"

# The timers follow the events.
allow "$timers" -- --operation Read --topic "$P.events"
allow "$timers" -- --operation Read --group "${OKEY_TIMERS_GROUP:-okey-timers}"

# The bots read the views gateways read (they play only their seats: a bot seat's update
# says so beside its view).
allow "$bots" -- --operation Read --topic "$P.playerviews"
allow "$bots" -- --operation Read --group "${OKEY_BOTS_GROUP:-okey-bots}"

# The gateways tell players what became of their commands and what happened at the table.
allow "$gateway" -- --operation Read --topic "$P.outcomes" --topic "$P.playerviews"
allow "$gateway" -- --operation Read --resource-pattern-type prefixed \
    --group "${OKEY_GATEWAY_GROUP:-okey-gateway}"

# The views service projects the events into every view: the gateways' and the bots'.
allow "$views" -- --operation Read --topic "$P.events"
allow "$views" -- --operation Write --topic "$P.playerviews"
allow "$views" -- --operation Read --group "${OKEY_VIEWS_GROUP:-okey-views}"
allow "$views" -- --operation Describe --resource-pattern-type prefixed --topic "$P."

# The auditor follows the events and writes its verdicts and flags.
allow "$auditor" -- --operation Read --topic "$P.events"
allow "$auditor" -- --operation Write --topic "$P.audit"
allow "$auditor" -- --operation Read --group "${OKEY_AUDITOR_GROUP:-okey-auditor}"
allow "$auditor" -- --operation Describe --resource-pattern-type prefixed --topic "$P."

# The leaderboards read their own standings back at start, then fold the events.
allow "$leaderboards" -- --operation Read --topic "$P.events" --topic "$P.standings"
allow "$leaderboards" -- --operation Write --topic "$P.standings"

# The replays service folds the events into the table directory, in its consumer group.
allow "$replays" -- --operation Read --topic "$P.events" --topic "$P.directory"
allow "$replays" -- --operation Write --topic "$P.directory"
allow "$replays" -- --operation Read --group "${OKEY_REPLAYS_GROUP:-okey-replays}"
allow "$leaderboards" "$replays" -- --operation Describe --resource-pattern-type prefixed \
    --topic "$P."

# The matchmaker: its requests and its own decisions (read back at a restart), the
# standings (levels and skill), the events (the relay of its tables' ends); writes its
# decisions, the unfinished tournaments and the table commands in transactions whose ids
# start with its group.
mm_group="${OKEY_MATCHMAKER_GROUP:-okey-matchmaker}"
allow "$matchmaker" -- --operation Read --topic "$P.matchmaking" --topic "$P.matchmaker" \
    --topic "$P.standings" --topic "$P.events"
allow "$matchmaker" -- --operation Write --topic "$P.matchmaker" --topic "$P.tournaments" \
    --topic "$P.commands" \
    --topic "$P.matchmaking" --topic "$P.deadletters"
allow "$matchmaker" -- --operation Read --resource-pattern-type prefixed --group "$mm_group"
allow "$matchmaker" -- --operation Write --operation Describe \
    --resource-pattern-type prefixed --transactional-id "$mm_group-"
allow "$matchmaker" -- --operation Describe --resource-pattern-type prefixed --topic "$P."
allow "$gateway" -- --operation Write --topic "$P.matchmaking"
allow "$gateway" -- --operation Read --topic "$P.matchmaker" --topic "$P.tournaments"

# Every service that reads a topic dead-letters what it cannot take (with its reason) and
# goes on: without this, one hostile record would stop it at the write of its dead letter.
allow "$timers" "$bots" "$gateway" "$views" "$auditor" "$leaderboards" "$replays" -- \
    --operation Write --topic "$P.deadletters"

$dry_run || echo "ACLs for $P.* in place for $processor, $timers, $bots, $gateway, $views, $auditor," \
    "$leaderboards, $replays, $matchmaker" >&2
