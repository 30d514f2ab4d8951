#!/usr/bin/env bash
# Local single-node Apache Kafka broker for okey101 development, tests and CI.
# No Docker: the broker jars come from Maven Central (tools/kafka/pom.xml) and run on the
# local JDK (17+) in KRaft mode (one process that is both broker and controller).
#
# Usage: tools/kafka/broker.sh {start|stop|status|wipe|clean-topics [PREFIX...]|bootstrap}
#   start      fetch jars if missing, configure, format storage (first time), start the broker
#              in the background and wait until it answers a metadata request (a line every
#              10 s while it waits). No-op if it already runs and is ready.
#   stop       SIGTERM, wait up to KAFKA_STOP_TIMEOUT (20 s), then SIGKILL. Data is kept.
#   status     exit 0 if the broker answers a metadata request, 1 otherwise; says how many
#              topics and partitions it holds and how big its data folder is.
#   wipe       stop, then delete data, logs, config and cluster id (the jars stay cached).
#   clean-topics  delete every topic of the running broker but Kafka's own (__*), or only
#              those named PREFIX.* / PREFIX-* for each PREFIX given: what test, benchmark
#              and demo runs left. Do not run it while tests or a demo use the broker.
#   bootstrap  print the bootstrap address (host:port) on stdout.
#
#        tools/kafka/broker.sh cluster {start|stop|status|wipe|bootstrap|pid N|kill N|controller}
#   A local 3-node cluster from the same jars: nodes 1-3 on 127.0.0.1, each broker and
#   controller (a KRaft quorum of 3), internal topics replicated 3 with min ISR 2.
#   start starts the nodes that are not running (all three the first time, or one killed
#   node) and waits until every node answers and the metadata lists 3 brokers; stop stops
#   all three; pid N prints node N's pid; kill N kill -9s node N (failure drills);
#   controller prints the node id of the active controller (MetadataQuorumCommand).
#   KAFKA_CLUSTER_PORT (default 19192): client ports PORT..PORT+2, controller ports
#   PORT+3..PORT+5. KAFKA_CLUSTER_DIR (default <project>/.cache/kafka-cluster),
#   KAFKA_CLUSTER_HEAP_OPTS (default "-Xms256m -Xmx512m" per node). KAFKA_BOOTSTRAP is
#   ignored: it names the single-node broker.
#
#        tools/kafka/broker.sh secure {start|stop|status|wipe|bootstrap|credentials}
#   A single node whose clients must authenticate with SASL/SCRAM-SHA-512 and are
#   authorised by ACLs (StandardAuthorizer; User:admin is the super user; no ACL, no
#   access). Users admin, processor, timers, bots, gateway and views get random passwords when the
#   storage is formatted; `credentials` prints the file holding them
#   (KAFKA_SECURE_PASSWORD_<USER>=...); admin.properties beside it is a client config for
#   the Kafka tools (--command-config). The controller listener uses SASL/PLAIN.
#   KAFKA_SECURE_PORT (default KAFKA_PORT+4, so 19096; controller +1), KAFKA_SECURE_DIR (default
#   <project>/.cache/kafka-secure). KAFKA_BOOTSTRAP is ignored here too.
#
# Environment:
#   KAFKA_BOOTSTRAP          use this external broker instead: start only checks that it answers,
#                            status probes it, stop/wipe do nothing, bootstrap prints it.
#   KAFKA_PORT               client port (default 19092); KAFKA_CONTROLLER_PORT (default PORT+1).
#   KAFKA_CACHE_DIR          jars, config, data and logs (default <project>/.cache/kafka).
#   KAFKA_HEAP_OPTS          default "-Xms1g -Xmx1g"; JVM flags after the defaults (G1, 20 ms
#                            pause goal), so e.g. -XX:MaxGCPauseMillis=5 here overrides them.
#   KAFKA_START_TIMEOUT      seconds to wait for readiness (default 300: a broker holding a
#                            test run's 4,000 partitions took 71 s on a loaded two-core box).
#   KAFKA_AUTO_CREATE_TOPICS "true" to let the broker auto-create topics (default false: the
#                            services and tests create their topics explicitly, as in production,
#                            so a missing topic shows up as an error instead of a silent default).
#
# Layout of the cache dir: libs/ (jars + .pom.sha256 stamp), server.properties,
# log4j.properties, tools-log4j.properties, cluster.id, broker.pid, data/ (log.dirs and KRaft
# metadata), logs/ (server.log, controller.log, state-change.log, broker.out = JVM stdout/stderr).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
POM="$SCRIPT_DIR/pom.xml"
CACHE="${KAFKA_CACHE_DIR:-$ROOT/.cache/kafka}"
LIBS="$CACHE/libs"
DATA="$CACHE/data"
LOGS="$CACHE/logs"
CONF="$CACHE/server.properties"
LOG4J="$CACHE/log4j.properties"
TOOLS_LOG4J="$CACHE/tools-log4j.properties"
CLUSTER_ID_FILE="$CACHE/cluster.id"
PID_FILE="$CACHE/broker.pid"
LOCK_FILE="$CACHE/broker.lock"

PORT="${KAFKA_PORT:-19092}"
CPORT="${KAFKA_CONTROLLER_PORT:-$((PORT + 1))}"
HOST=127.0.0.1
LOCAL_BOOTSTRAP="$HOST:$PORT"
HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms1g -Xmx1g}"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-300}"
PROGRESS_EVERY=10
STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-20}"
AUTO_CREATE="${KAFKA_AUTO_CREATE_TOPICS:-false}"
MODE=""                    # "", "cluster" or "secure": which broker(s) the command is about
CONFIG_WRITER=write_config # writes $CONF (and the log4j files) for the broker being started
FORMAT_EXTRA=()            # more arguments for StorageTool format (SCRAM users)
LAUNCHED=""
VENV_PY="$ROOT/.venv/bin/python"

log() { printf 'kafka: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------- readiness probe
# Ready = a metadata request succeeds and lists at least one broker (an open port is not
# enough: a listener may accept connections before the node can serve requests).
# Uses aiokafka from the project venv when present, else the Kafka jar's BrokerApiVersionsCommand.
PY_PROBE='
import asyncio, logging, sys
logging.disable(logging.CRITICAL)
from aiokafka.client import AIOKafkaClient

async def main(bootstrap, least, user=None, password=None):
    sasl = dict(security_protocol="SASL_PLAINTEXT", sasl_mechanism="SCRAM-SHA-512",
                sasl_plain_username=user, sasl_plain_password=password) if user else {}
    client = AIOKafkaClient(bootstrap_servers=bootstrap, request_timeout_ms=5000,
                            retry_backoff_ms=100, metadata_max_age_ms=5000, **sasl)
    try:
        await asyncio.wait_for(client.bootstrap(), 8)
        md = await asyncio.wait_for(client.fetch_all_metadata(), 8)
        return 0 if len(md.brokers()) >= least else 1
    except Exception:
        return 1
    finally:
        await client.close()

sys.exit(asyncio.run(main(sys.argv[1], int(sys.argv[2]), *sys.argv[3:5])))
'

# What the broker holds, from its metadata: "TOPICS PARTITIONS" (Kafka's own __* left out).
PY_COUNT='
import asyncio, logging, sys
logging.disable(logging.CRITICAL)
from aiokafka.admin import AIOKafkaAdminClient

async def main(bootstrap):
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
    await admin.start()
    try:
        names = [t for t in await admin.list_topics() if not t.startswith("__")]
        partitions = 0
        for i in range(0, len(names), 500):
            partitions += sum(len(d["partitions"])
                              for d in await admin.describe_topics(names[i:i + 500]))
        print(len(names), partitions)
    finally:
        await admin.close()

asyncio.run(main(sys.argv[1]))
'

# Deletes the topics named on stdin (one a line), 200 at a time; prints how many it deleted.
PY_DELETE='
import asyncio, logging, sys
logging.disable(logging.CRITICAL)
from aiokafka.admin import AIOKafkaAdminClient

async def main(bootstrap, prefixes):
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=60000)
    await admin.start()
    try:
        names = [t for t in await admin.list_topics() if not t.startswith("__") and
                 (not prefixes or any(t.startswith((p + ".", p + "-")) for p in prefixes))]
        partitions, refused = 0, []
        for i in range(0, len(names), 200):
            batch = names[i:i + 200]
            partitions += sum(len(d["partitions"]) for d in await admin.describe_topics(batch))
            answer = await admin.delete_topics(batch, timeout_ms=60000)
            refused += [f"{topic} (error {code})" for topic, code, *_ in
                        answer.topic_error_codes if code]
        if refused:
            sys.exit(f"not deleted: {len(refused)} topics, " + "; ".join(refused[:5]))
        for _ in range(120):  # the metadata forgets them within a few seconds
            if not set(names) & set(await admin.list_topics()):
                break
            await asyncio.sleep(0.5)
        print(len(names), partitions)
    finally:
        await admin.close()

asyncio.run(main(sys.argv[1], sys.argv[2:]))
'

PY_PROBE_OK="" # cached answer of have_py_probe: "yes" / "no"
have_py_probe() {
    if [[ -z "$PY_PROBE_OK" ]]; then
        PY_PROBE_OK=no
        if [[ -x "$VENV_PY" ]] && "$VENV_PY" -c 'import aiokafka' >/dev/null 2>&1; then
            PY_PROBE_OK=yes
        fi
    fi
    [[ "$PY_PROBE_OK" == yes ]]
}

# The cluster and secure modes set these: how many brokers the metadata must list, and
# the SCRAM user (password, client config file) the probe authenticates as.
PROBE_BROKERS=1
PROBE_USER=""
PROBE_PASSWORD=""
PROBE_CONFIG=""

probe() { # probe BOOTSTRAP -> 0 if it answers a metadata request
    local bootstrap="$1"
    if have_py_probe; then
        timeout 20 "$VENV_PY" -c "$PY_PROBE" "$bootstrap" "$PROBE_BROKERS" \
            ${PROBE_USER:+"$PROBE_USER" "$PROBE_PASSWORD"} >/dev/null 2>&1
    elif [[ -f "$LIBS/.pom.sha256" ]]; then
        # Prints the ApiVersions of every broker in the metadata, one "(id: N" each.
        local seen
        seen="$(timeout 30 java -Xmx128m -Dlog4j.configuration="file:$TOOLS_LOG4J" \
            -cp "$LIBS/*" kafka.admin.BrokerApiVersionsCommand --bootstrap-server "$bootstrap" \
            ${PROBE_CONFIG:+--command-config "$PROBE_CONFIG"} 2>/dev/null | grep -c '(id:')" ||
            true
        ((${seen:-0} >= PROBE_BROKERS))
    else
        die "no readiness probe: neither $VENV_PY with aiokafka nor the Kafka jars are available"
    fi
}

# ---------------------------------------------------------------- process helpers
is_our_broker() { # PID -> 0 if it is a live kafka.Kafka running our server.properties
    local pid="$1" cmd
    [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
    cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
    [[ "$cmd" == *"kafka.Kafka $CONF"* ]]
}

broker_pid() { # prints the pid of our broker, if one runs
    local pid="" p
    [[ -f "$PID_FILE" ]] && pid="$(<"$PID_FILE")"
    if is_our_broker "$pid"; then
        echo "$pid"
        return 0
    fi
    # Pid file lost or stale: look for a java process running exactly our config file.
    for p in /proc/[0-9]*; do
        p="${p#/proc/}"
        if is_our_broker "$p"; then
            echo "$p" >"$PID_FILE"
            echo "$p"
            return 0
        fi
    done
    rm -f "$PID_FILE"
    return 1
}

alive() { # PID -> 0 if it runs (a zombie does not: start's own child stays one once it died)
    local state
    state="$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" || return 1
    [[ -n "$state" && "$state" != Z ]]
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

port_owner() { # PORT -> " (program NAME, pid N)" when ss can tell, else nothing
    local line
    command -v ss >/dev/null 2>&1 || return 0
    line="$(ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'users:(("[^"]*",pid=[0-9]*' | head -n 1)" ||
        true
    [[ -n "$line" ]] && printf ' (program %s, pid %s)' \
        "$(sed 's/.*(("\([^"]*\)".*/\1/' <<<"$line")" "${line##*pid=}"
    return 0
}

check_ports() { # the client and controller ports are free, or exit naming the one taken
    local var="${PORT_VAR:-KAFKA_PORT}"
    if port_open "$PORT"; then
        die "port $PORT on $HOST is taken by another program$(port_owner "$PORT"), not" \
            "this project's broker in $CACHE. Set $var to a free port (e.g. $var=$((PORT + 200))" \
            "make demo), or KAFKA_BOOTSTRAP=$HOST:$PORT if that program is a Kafka broker to use"
    fi
    if port_open "$CPORT"; then
        die "the controller port $CPORT on $HOST is taken by another" \
            "program$(port_owner "$CPORT"). Set ${PORT_VAR:-KAFKA_CONTROLLER_PORT} to another" \
            "port (the controller's is the client port + 1 unless KAFKA_CONTROLLER_PORT says)"
    fi
}

partition_dirs() { # [-delete]: how many partition directories the data folder holds
    # (Kafka's own too), or how many a deletion has yet to remove
    [[ -d "$DATA" ]] || { echo 0; return; }
    if [[ "${1:-}" == -delete ]]; then
        find "$DATA" -mindepth 1 -maxdepth 1 -type d -name '*-delete' 2>/dev/null | wc -l
    else
        find "$DATA" -mindepth 1 -maxdepth 1 -type d -name '*-[0-9]*' ! -name '*-delete' \
            ! -name '__cluster_metadata-*' 2>/dev/null | wc -l
    fi
}

data_summary() { # one line: the partition directories and the size of the data folder
    local size="0" going
    [[ -d "$DATA" ]] && size="$(du -sh "$DATA" 2>/dev/null | cut -f1)"
    going="$(partition_dirs -delete)"
    echo "data: $size in $DATA ($(partition_dirs) partition directories$( ((going == 0)) ||
        echo ", $going more being deleted"))"
}

held() { # BOOTSTRAP -> "N topics, M partitions" from the metadata (or nothing)
    local counts
    have_py_probe || return 0
    counts="$(timeout 120 "$VENV_PY" -c "$PY_COUNT" "$1" 2>/dev/null)" || return 0
    read -r topics partitions <<<"$counts"
    echo "holds $topics topics, $partitions partitions (Kafka's own __* not counted)"
}

with_lock() { # serialise start/stop/wipe (e.g. two pytest runs starting the broker at once)
    mkdir -p "$CACHE"
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$LOCK_FILE"
        flock -w 180 9 || die "could not lock $LOCK_FILE"
    fi
    "$@"
}

log_tail() {
    local f
    for f in "$LOGS/broker.out" "$LOGS/server.log"; do
        if [[ -s "$f" ]]; then
            log "---- last lines of $f ----"
            tail -n 40 "$f" >&2
        fi
    done
}

# ---------------------------------------------------------------- jars and config
fetch_jars() {
    local want have=""
    want="$(sha256sum "$POM" | cut -d' ' -f1)"
    [[ -f "$LIBS/.pom.sha256" ]] && have="$(<"$LIBS/.pom.sha256")"
    if [[ "$want" == "$have" ]] && compgen -G "$LIBS/kafka_2.13-*.jar" >/dev/null; then
        return 0
    fi
    command -v mvn >/dev/null 2>&1 || die "mvn not found (needed once to fetch the Kafka jars)"
    command -v java >/dev/null 2>&1 || die "java not found (JDK 17+ needed)"
    log "fetching Kafka jars with Maven into $LIBS (first run only) ..."
    local t0=$SECONDS tmp="$CACHE/libs.partial"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    # Maven's output goes to a file (even -q -B prints colour codes) and is shown on failure.
    if ! mvn -q -B -Dstyle.color=never -f "$POM" dependency:copy-dependencies \
        -DoutputDirectory="$tmp" >"$CACHE/mvn.log" 2>&1; then
        tail -n 40 "$CACHE/mvn.log" >&2
        rm -rf "$tmp"
        die "mvn dependency:copy-dependencies failed (full output in $CACHE/mvn.log)"
    fi
    echo "$want" >"$tmp/.pom.sha256"
    rm -rf "$LIBS"
    mv "$tmp" "$LIBS"
    log "fetched $(find "$LIBS" -name '*.jar' | wc -l) jars in $((SECONDS - t0)) s"
}

write_config() {
    mkdir -p "$DATA" "$LOGS"
    write_log4j
    cat >"$CONF" <<EOF
# Generated by tools/kafka/broker.sh on each start: edit the script, not this file.
# Single-node KRaft: this process is both broker and controller.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CPORT
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CPORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=$DATA

# One node: every replication factor and min ISR is 1.
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
# Internal topics with one partition: created in well under a second on first use,
# instead of 50 partitions each (the consumer-group and transaction coordinators then
# live on one partition, which is all a single node needs).
offsets.topic.num.partitions=1
transaction.state.log.num.partitions=1

# Tests start consumers and expect them to get partitions at once.
group.initial.rebalance.delay.ms=0
# Topics are created explicitly (KAFKA_AUTO_CREATE_TOPICS=true to change).
auto.create.topics.enable=$AUTO_CREATE
delete.topic.enable=true

num.network.threads=3
num.io.threads=4
log.retention.hours=168
log.segment.bytes=104857600
EOF
}

write_log4j() {
    cat >"$LOG4J" <<'EOF'
# Broker logging (reload4j). Files go to ${kafka.logs.dir}; JVM stdout/stderr go to broker.out.
log4j.rootLogger=INFO, kafkaAppender

log4j.appender.kafkaAppender=org.apache.log4j.RollingFileAppender
log4j.appender.kafkaAppender.File=${kafka.logs.dir}/server.log
log4j.appender.kafkaAppender.MaxFileSize=20MB
log4j.appender.kafkaAppender.MaxBackupIndex=3
log4j.appender.kafkaAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.kafkaAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.stateChangeAppender=org.apache.log4j.RollingFileAppender
log4j.appender.stateChangeAppender.File=${kafka.logs.dir}/state-change.log
log4j.appender.stateChangeAppender.MaxFileSize=10MB
log4j.appender.stateChangeAppender.MaxBackupIndex=2
log4j.appender.stateChangeAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.stateChangeAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.controllerAppender=org.apache.log4j.RollingFileAppender
log4j.appender.controllerAppender.File=${kafka.logs.dir}/controller.log
log4j.appender.controllerAppender.MaxFileSize=10MB
log4j.appender.controllerAppender.MaxBackupIndex=2
log4j.appender.controllerAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.controllerAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.kafka.authorizer.logger=WARN
log4j.logger.kafka.controller=INFO, controllerAppender
log4j.additivity.kafka.controller=false
log4j.logger.state.change.logger=INFO, stateChangeAppender
log4j.additivity.state.change.logger=false
EOF

    cat >"$TOOLS_LOG4J" <<'EOF'
# Logging of the command-line tools run by broker.sh (storage format, probe): warnings only.
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
}

kafka_tool() { # run a Kafka command-line class with the cached jars
    java -Xmx256m -Dlog4j.configuration="file:$TOOLS_LOG4J" -cp "$LIBS/*" "$@"
}

format_storage() {
    if [[ ! -s "$CLUSTER_ID_FILE" ]]; then
        kafka_tool kafka.tools.StorageTool random-uuid | tail -n 1 | tr -d '[:space:]' \
            >"$CLUSTER_ID_FILE.tmp"
        [[ -s "$CLUSTER_ID_FILE.tmp" ]] || die "StorageTool random-uuid printed nothing"
        mv "$CLUSTER_ID_FILE.tmp" "$CLUSTER_ID_FILE"
        log "new cluster id $(<"$CLUSTER_ID_FILE")"
    fi
    local cid
    cid="$(<"$CLUSTER_ID_FILE")"
    local users="${FORMAT_EXTRA[*]+${FORMAT_EXTRA[*]}}"
    if [[ -f "$DATA/meta.properties" && -n "$users" &&
        "$(cat "$DATA/.okey101-users" 2>/dev/null)" != "$users" ]]; then
        # SCRAM users exist only from the format: a user added since needs a new one
        log "the users changed since $DATA was formatted: formatting it again"
        rm -rf "$DATA"
        mkdir -p "$DATA"
    fi
    if [[ -f "$DATA/meta.properties" ]]; then
        grep -q "^cluster.id=$cid\$" "$DATA/meta.properties" ||
            die "$DATA was formatted for another cluster id; run '$0 ${MODE:+$MODE }wipe'"
        return 0 # already formatted: skip a JVM start
    fi
    log "formatting storage in $DATA"
    kafka_tool kafka.tools.StorageTool format -t "$cid" -c "$CONF" --ignore-formatted \
        ${FORMAT_EXTRA[@]+"${FORMAT_EXTRA[@]}"} >&2
    [[ -z "$users" ]] || (umask 077 && printf '%s' "$users" >"$DATA/.okey101-users")
}

# ---------------------------------------------------------------- subcommands
wait_ready() { # PID -> 0 ready, 1 the process died, 2 timed out (logs printed in both cases)
    local pid="$1" t0=$SECONDS deadline=$((SECONDS + START_TIMEOUT)) told=$SECONDS
    local dirs
    dirs="$(partition_dirs)"
    while ((SECONDS < deadline)); do
        if ! alive "$pid"; then
            log_tail
            log "error: broker process $pid exited during start-up (logs in $LOGS)"
            return 1
        fi
        if probe "$LOCAL_BOOTSTRAP"; then
            return 0
        fi
        if ((SECONDS - told >= PROGRESS_EVERY)); then
            told=$SECONDS
            log "waiting for the broker at $LOCAL_BOOTSTRAP (pid $pid) to answer:" \
                "$((SECONDS - t0)) s of ${START_TIMEOUT} s (KAFKA_START_TIMEOUT); it loads" \
                "$dirs partition directories"
        fi
        sleep 0.5
    done
    log_tail
    log "error: waited ${START_TIMEOUT} s (KAFKA_START_TIMEOUT) for the broker (pid $pid) to" \
        "answer a metadata request at $LOCAL_BOOTSTRAP; it loads $dirs partition directories" \
        "(logs in $LOGS; 'broker.sh clean-topics' or 'wipe' drops what old runs left)"
    return 2
}

do_start() {
    local t0=$SECONDS pid
    if pid="$(broker_pid)"; then
        if probe "$LOCAL_BOOTSTRAP"; then
            log "already running (pid $pid) at $LOCAL_BOOTSTRAP"
            return 0
        fi
        log "broker pid $pid is running but not ready yet; waiting"
        wait_ready "$pid" || exit 1
        log "ready at $LOCAL_BOOTSTRAP (pid $pid)"
        return 0
    fi
    check_ports
    command -v java >/dev/null 2>&1 || die "java not found (JDK 17+ needed)"
    fetch_jars
    "$CONFIG_WRITER"
    format_storage
    launch
    pid="$LAUNCHED"
    if ! wait_ready "$pid"; then
        # Do not leave a half-started 1 GB JVM behind: the next start begins afresh.
        kill_broker "$pid"
        exit 1
    fi
    log "ready at $LOCAL_BOOTSTRAP (pid $pid) in $((SECONDS - t0)) s"
}

launch() { # start the broker of the current globals in the background; its pid in LAUNCHED
    log "starting broker on $LOCAL_BOOTSTRAP (controller $HOST:$CPORT, heap: $HEAP_OPTS)"
    local -a heap
    read -r -a heap <<<"$HEAP_OPTS"
    # setsid: the broker outlives this script and is not hit by a Ctrl-C sent to the
    # terminal's process group (e.g. interrupting pytest, which started this script).
    # stdin/stdout/stderr are detached so that a caller capturing our output is not held open,
    # and fd 9 (the start/stop lock) is closed so that the broker does not hold the lock.
    # It runs in the cache dir so that nothing it might write lands in the caller's cwd.
    cd "$CACHE"
    setsid nohup java -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "${heap[@]}" \
        -XX:+ExitOnOutOfMemoryError -XX:ErrorFile="$LOGS/hs_err_pid%p.log" \
        -Djava.awt.headless=true \
        -Dkafka.logs.dir="$LOGS" -Dlog4j.configuration="file:$LOG4J" \
        -cp "$LIBS/*" kafka.Kafka "$CONF" </dev/null >>"$LOGS/broker.out" 2>&1 9>&- &
    LAUNCHED=$!
    echo "$LAUNCHED" >"$PID_FILE"
    cd "$OLDPWD"
}

kill_broker() { # PID: SIGTERM (controlled shutdown), SIGKILL after STOP_TIMEOUT
    local pid="$1" deadline=$((SECONDS + STOP_TIMEOUT))
    kill -TERM "$pid" 2>/dev/null || true
    while alive "$pid" && ((SECONDS < deadline)); do
        sleep 0.2
    done
    if alive "$pid"; then
        log "still running after ${STOP_TIMEOUT}s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        while alive "$pid"; do sleep 0.1; done
    fi
    rm -f "$PID_FILE"
}

do_stop() {
    local pid
    if ! pid="$(broker_pid)"; then
        log "not running"
        return 0
    fi
    log "stopping broker (pid $pid)"
    kill_broker "$pid"
    log "stopped"
}

do_status() {
    local pid="" what
    pid="$(broker_pid)" || true
    if probe "$LOCAL_BOOTSTRAP"; then
        if [[ -n "$pid" ]]; then
            log "ready at $LOCAL_BOOTSTRAP (pid $pid)"
        else
            log "a broker not started by this script answers at $LOCAL_BOOTSTRAP"
        fi
        what="$(held "$LOCAL_BOOTSTRAP")"
        [[ -z "$what" ]] || log "$what"
        [[ -z "$pid" ]] || log "$(data_summary)"
        return 0
    fi
    if [[ -n "$pid" ]]; then
        log "running (pid $pid) but not ready at $LOCAL_BOOTSTRAP"
    else
        log "not running"
    fi
    [[ ! -d "$DATA" ]] || log "$(data_summary)"
    return 1
}

do_clean_topics() { # [PREFIX...]: delete the topics old runs left on the running broker
    local out
    have_py_probe || die "clean-topics needs $VENV_PY with aiokafka (or use '$0 wipe')"
    probe "$LOCAL_BOOTSTRAP" || die "no broker answers at $LOCAL_BOOTSTRAP ('$0 start' first)"
    out="$(timeout 600 "$VENV_PY" -c "$PY_DELETE" "$LOCAL_BOOTSTRAP" "$@")" ||
        die "deleting the topics failed"
    read -r topics partitions <<<"$out"
    log "deleted $topics topics ($partitions partitions)${1:+ of the prefixes $*}; the" \
        "broker removes their files a minute later (file.delete.delay.ms)"
}

do_wipe() {
    do_stop
    rm -rf "$DATA" "$LOGS" "$CONF" "$LOG4J" "$TOOLS_LOG4J" "$CLUSTER_ID_FILE" "$PID_FILE" \
        "$CACHE/libs.partial"
    log "wiped data and logs in $CACHE (jars kept in $LIBS)"
}

# ---------------------------------------------------------------- the 3-node cluster
CLUSTER_DIR="${KAFKA_CLUSTER_DIR:-$ROOT/.cache/kafka-cluster}"
CLUSTER_PORT="${KAFKA_CLUSTER_PORT:-19192}"
NODES=(1 2 3)
NODE=""

use_cluster() { # the settings the nodes share
    MODE=cluster
    CACHE="$CLUSTER_DIR"
    LOCK_FILE="$CLUSTER_DIR/cluster.lock"
    CLUSTER_ID_FILE="$CLUSTER_DIR/cluster.id"
    TOOLS_LOG4J="$CLUSTER_DIR/tools-log4j.properties"
    HEAP_OPTS="${KAFKA_CLUSTER_HEAP_OPTS:--Xms256m -Xmx512m}"
    CONFIG_WRITER=write_node_config
    PROBE_BROKERS=${#NODES[@]}
}

use_node() { # N: point the per-broker globals at node N
    NODE="$1"
    CACHE="$CLUSTER_DIR/node$1"
    DATA="$CACHE/data"
    LOGS="$CACHE/logs"
    CONF="$CACHE/server.properties"
    LOG4J="$CACHE/log4j.properties"
    PID_FILE="$CACHE/broker.pid"
    PORT=$((CLUSTER_PORT + $1 - 1))
    CPORT=$((CLUSTER_PORT + ${#NODES[@]} + $1 - 1))
    LOCAL_BOOTSTRAP="$HOST:$PORT"
}

cluster_bootstrap() {
    local n out=""
    for n in "${NODES[@]}"; do out+="${out:+,}$HOST:$((CLUSTER_PORT + n - 1))"; done
    echo "$out"
}

cluster_voters() {
    local n out=""
    for n in "${NODES[@]}"; do
        out+="${out:+,}$n@$HOST:$((CLUSTER_PORT + ${#NODES[@]} + n - 1))"
    done
    echo "$out"
}

write_node_config() {
    mkdir -p "$DATA" "$LOGS"
    write_log4j
    cat >"$CONF" <<EOF
# Generated by tools/kafka/broker.sh on each start: edit the script, not this file.
# Node $NODE of a local 3-node KRaft cluster: every node is a broker and a controller.
process.roles=broker,controller
node.id=$NODE
controller.quorum.voters=$(cluster_voters)
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CPORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=$DATA

# What production runs (deploy/README.md): three replicas, two of them in sync to accept
# a write made with acks=all, internal topics alike; never an out-of-sync leader.
num.partitions=1
default.replication.factor=3
min.insync.replicas=2
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
unclean.leader.election.enable=false
# A few partitions each, so that the group and transaction coordinators spread over the
# nodes and losing a node moves some of them.
offsets.topic.num.partitions=3
transaction.state.log.num.partitions=3

group.initial.rebalance.delay.ms=0
auto.create.topics.enable=$AUTO_CREATE
delete.topic.enable=true

num.network.threads=2
num.io.threads=2
log.retention.hours=168
log.segment.bytes=104857600
EOF
}

cluster_node_arg() { # N -> exits 2 unless N names a node
    [[ "${1:-}" =~ ^[0-9]+$ ]] && ((1 <= $1 && $1 <= ${#NODES[@]})) ||
        { log "error: node must be 1-${#NODES[@]}, not '${1:-}'"; exit 2; }
}

do_cluster_start() {
    local t0=$SECONDS n pid
    local -a waiting=()
    command -v java >/dev/null 2>&1 || die "java not found (JDK 17+ needed)"
    fetch_jars
    for n in "${NODES[@]}"; do # every port first: start nothing when one is taken
        use_node "$n"
        if ! broker_pid >/dev/null && { port_open "$PORT" || port_open "$CPORT"; }; then
            die "port $PORT or $CPORT on $HOST is used by another process (not node $n in" \
                "$CACHE); set KAFKA_CLUSTER_PORT to another base port"
        fi
    done
    for n in "${NODES[@]}"; do
        use_node "$n"
        if pid="$(broker_pid)"; then
            waiting+=("$n:$pid")
            continue
        fi
        write_node_config
        format_storage
        launch
        waiting+=("$n:$LAUNCHED:new")
    done
    local item
    for item in "${waiting[@]}"; do
        IFS=: read -r n pid _ <<<"$item"
        use_node "$n"
        if ! wait_ready "$pid"; then
            for item in "${waiting[@]}"; do # the nodes this call started go again
                IFS=: read -r n pid new <<<"$item"
                use_node "$n"
                [[ -n "$new" ]] && kill_broker "$pid"
            done
            exit 1
        fi
    done
    log "cluster ready at $(cluster_bootstrap) in $((SECONDS - t0)) s"
}

do_cluster_stop() {
    local n pid
    local -a running=()
    for n in "${NODES[@]}"; do # all at once: each node's shutdown needs a quorum
        use_node "$n"
        if pid="$(broker_pid)"; then
            kill -TERM "$pid" 2>/dev/null || true
            running+=("$n:$pid")
        fi
    done
    if ((${#running[@]} == 0)); then
        log "cluster not running"
        return 0
    fi
    local item
    for item in "${running[@]}"; do
        IFS=: read -r n pid <<<"$item"
        use_node "$n"
        kill_broker "$pid"
        log "stopped node $n (pid $pid)"
    done
}

do_cluster_status() {
    local n pid status=0
    for n in "${NODES[@]}"; do
        use_node "$n"
        if ! pid="$(broker_pid)"; then
            log "node $n: not running"
            status=1
        elif probe "$LOCAL_BOOTSTRAP"; then
            log "node $n: ready at $LOCAL_BOOTSTRAP (pid $pid)"
        else
            log "node $n: running (pid $pid) but not ready at $LOCAL_BOOTSTRAP" \
                "(or the metadata lists fewer than ${#NODES[@]} brokers)"
            status=1
        fi
    done
    return $status
}

do_cluster_wipe() {
    do_cluster_stop
    local n
    for n in "${NODES[@]}"; do rm -rf "$CLUSTER_DIR/node$n"; done
    rm -f "$CLUSTER_ID_FILE" "$TOOLS_LOG4J"
    log "wiped the cluster's data and logs in $CLUSTER_DIR (jars kept in $LIBS)"
}

do_cluster_kill() { # N: kill -9, as a crash would
    local pid
    use_node "$1"
    pid="$(broker_pid)" || die "node $1 is not running"
    kill -KILL "$pid"
    while alive "$pid"; do sleep 0.05; done
    rm -f "$PID_FILE"
    log "killed node $1 (pid $pid) with SIGKILL"
}

do_cluster_controller() { # the node id of the active controller, from the quorum itself
    local out leader
    [[ -f "$LIBS/.pom.sha256" ]] || die "no Kafka jars yet: run '$0 cluster start'"
    [[ -f "$TOOLS_LOG4J" ]] || write_log4j
    out="$(timeout 60 java -Xmx256m -Dlog4j.configuration="file:$TOOLS_LOG4J" -cp "$LIBS/*" \
        org.apache.kafka.tools.MetadataQuorumCommand \
        --bootstrap-server "$(cluster_bootstrap)" describe --status)" ||
        die "MetadataQuorumCommand failed (is the cluster up? '$0 cluster status')"
    leader="$(awk '$1 == "LeaderId:" {print $2}' <<<"$out")"
    [[ "$leader" =~ ^[0-9]+$ ]] || die "no LeaderId in: $out"
    echo "$leader"
}

cluster_main() {
    use_cluster
    case "${1:-}" in
    start) with_lock do_cluster_start ;;
    stop) with_lock do_cluster_stop ;;
    status) do_cluster_status ;;
    wipe) with_lock do_cluster_wipe ;;
    bootstrap) cluster_bootstrap ;;
    pid)
        cluster_node_arg "${2:-}"
        use_node "$2"
        broker_pid || { log "node $2 is not running"; exit 1; }
        ;;
    kill)
        cluster_node_arg "${2:-}"
        with_lock do_cluster_kill "$2"
        ;;
    controller) do_cluster_controller ;;
    *) usage ;;
    esac
}

# ---------------------------------------------------------------- the SASL/ACL broker
SECURE_DIR="${KAFKA_SECURE_DIR:-$ROOT/.cache/kafka-secure}"
SECURE_USERS=(admin processor timers bots gateway views)

use_secure() {
    MODE=secure
    CACHE="$SECURE_DIR"
    DATA="$CACHE/data"
    LOGS="$CACHE/logs"
    CONF="$CACHE/server.properties"
    LOG4J="$CACHE/log4j.properties"
    TOOLS_LOG4J="$CACHE/tools-log4j.properties"
    CLUSTER_ID_FILE="$CACHE/cluster.id"
    PID_FILE="$CACHE/broker.pid"
    LOCK_FILE="$CACHE/broker.lock"
    PORT="${KAFKA_SECURE_PORT:-$((${KAFKA_PORT:-19092} + 4))}"
    CPORT=$((PORT + 1))
    LOCAL_BOOTSTRAP="$HOST:$PORT"
    HEAP_OPTS="${KAFKA_SECURE_HEAP_OPTS:--Xms256m -Xmx512m}"
    CONFIG_WRITER=write_secure_config
    PORT_VAR=KAFKA_SECURE_PORT
    CREDENTIALS="$CACHE/credentials.env"
    ADMIN_PROPS="$CACHE/admin.properties"
}

load_credentials() { # random passwords the first time; SCRAM users for the format
    local user
    mkdir -p "$CACHE"
    if [[ ! -s "$CREDENTIALS" ]]; then
        (
            umask 077
            for user in "${SECURE_USERS[@]}"; do
                echo "KAFKA_SECURE_PASSWORD_${user^^}=$(head -c 18 /dev/urandom | base64 |
                    tr '+/' 'xy')"
            done >"$CREDENTIALS.tmp"
        )
        mv "$CREDENTIALS.tmp" "$CREDENTIALS"
    fi
    # shellcheck disable=SC1090
    source "$CREDENTIALS"
    for user in "${SECURE_USERS[@]}"; do # a user added since the passwords were made
        local missing="KAFKA_SECURE_PASSWORD_${user^^}"
        if [[ -z "${!missing:-}" ]]; then
            echo "$missing=$(head -c 18 /dev/urandom | base64 | tr '+/' 'xy')" >>"$CREDENTIALS"
        fi
    done
    # shellcheck disable=SC1090
    source "$CREDENTIALS"
    ADMIN_PASSWORD="$KAFKA_SECURE_PASSWORD_ADMIN"
    FORMAT_EXTRA=()
    for user in "${SECURE_USERS[@]}"; do
        local var="KAFKA_SECURE_PASSWORD_${user^^}"
        FORMAT_EXTRA+=(--add-scram "SCRAM-SHA-512=[name=$user,password=${!var}]")
    done
    PROBE_USER=admin
    PROBE_PASSWORD="$ADMIN_PASSWORD"
    PROBE_CONFIG="$ADMIN_PROPS"
    (
        umask 077
        cat >"$ADMIN_PROPS" <<EOF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$ADMIN_PASSWORD";
EOF
    )
}

write_secure_config() {
    mkdir -p "$DATA" "$LOGS"
    write_log4j
    local scram="org.apache.kafka.common.security.scram.ScramLoginModule"
    local plain="org.apache.kafka.common.security.plain.PlainLoginModule"
    (
        umask 077
        cat >"$CONF" <<EOF
# Generated by tools/kafka/broker.sh on each start: edit the script, not this file.
# Single-node KRaft whose clients authenticate with SASL/SCRAM-SHA-512 and are authorised
# by ACLs. It holds passwords: mode 0600.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CPORT
listeners=SASL_PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CPORT
advertised.listeners=SASL_PLAINTEXT://$HOST:$PORT
listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
inter.broker.listener.name=SASL_PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=$DATA

# Clients and the broker itself: SCRAM (users live in the cluster metadata, added at
# format time). The controller listener cannot use SCRAM (the controller has no metadata
# yet when it authenticates), so PLAIN with a user fixed here.
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=$scram required username="admin" password="$ADMIN_PASSWORD";
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=$plain required username="admin" password="$ADMIN_PASSWORD" user_admin="$ADMIN_PASSWORD";

# No ACL, no access; admin (the broker itself, the operator's tools) may do anything.
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin
allow.everyone.if.no.acl.found=false

num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
offsets.topic.num.partitions=1
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
delete.topic.enable=true
num.network.threads=2
num.io.threads=2
log.segment.bytes=104857600
EOF
    )
}

do_secure_wipe() {
    do_stop
    rm -rf "$DATA" "$LOGS" "$CONF" "$LOG4J" "$TOOLS_LOG4J" "$CLUSTER_ID_FILE" "$PID_FILE" \
        "$CREDENTIALS" "$ADMIN_PROPS" "$CACHE/acls.applied"
    log "wiped data, logs and credentials in $CACHE"
}

secure_main() {
    use_secure
    case "${1:-}" in
    start)
        load_credentials
        with_lock do_start
        ;;
    stop) with_lock do_stop ;;
    status)
        load_credentials
        do_status
        ;;
    wipe) with_lock do_secure_wipe ;;
    bootstrap) echo "$LOCAL_BOOTSTRAP" ;;
    credentials)
        [[ -s "$CREDENTIALS" ]] || die "no credentials yet: run '$0 secure start'"
        echo "$CREDENTIALS"
        ;;
    *) usage ;;
    esac
}

usage() {
    echo "usage: $0 {start|stop|status|wipe|clean-topics [PREFIX...]|bootstrap}" >&2
    echo "       $0 cluster {start|stop|status|wipe|bootstrap|pid N|kill N|controller}" >&2
    echo "       $0 secure {start|stop|status|wipe|bootstrap|credentials}" >&2
    exit 2
}

case "${1:-}" in
cluster)
    shift
    cluster_main "$@"
    exit
    ;;
secure)
    shift
    secure_main "$@"
    exit
    ;;
esac

[[ $# -eq 1 || "${1:-}" == clean-topics ]] || usage
cmd="$1"
shift

if [[ -n "${KAFKA_BOOTSTRAP:-}" ]]; then
    # An external broker was given: never touch a local one.
    case "$cmd" in
    bootstrap) echo "$KAFKA_BOOTSTRAP" ;;
    start | status)
        if probe "$KAFKA_BOOTSTRAP"; then
            log "KAFKA_BOOTSTRAP=$KAFKA_BOOTSTRAP answers"
            if [[ "$cmd" == status ]]; then
                what="$(held "$KAFKA_BOOTSTRAP")"
                [[ -z "$what" ]] || log "$what"
            fi
        else
            log "KAFKA_BOOTSTRAP=$KAFKA_BOOTSTRAP does not answer a metadata request"
            exit 1
        fi
        ;;
    stop | wipe | clean-topics) log "KAFKA_BOOTSTRAP is set; leaving the local broker alone" ;;
    *) usage ;;
    esac
    exit 0
fi

case "$cmd" in
start) with_lock do_start ;;
stop) with_lock do_stop ;;
status) do_status ;;
wipe) with_lock do_wipe ;;
clean-topics) do_clean_topics "$@" ;;
bootstrap) echo "$LOCAL_BOOTSTRAP" ;;
*) usage ;;
esac
