"""The okey101 dashboards: one function per board, listed in `BOARDS`.

A new service's board is one small function: its own panels in `service_board(...)`, which
adds the health row every service shares (up, ready, broker reachable, consumer lag), and
one line in `BOARDS`. Job names are `okey101-<service>` (deploy/prometheus/prometheus.yml).
"""

from __future__ import annotations

from collections.abc import Callable

from tools.dashboards.grafana import RATE, Dashboard, Panel, Row, Target, panel


def job(service: str) -> str:
    return f"okey101-{service}"


def quantiles(metric: str, selector: str = "", by: str = "",
              levels: tuple[float, ...] = (0.5, 0.99)) -> tuple[Target, ...]:
    """histogram_quantile targets of a histogram, one per level."""
    group = f"{by}, le" if by else "le"
    prefix = f"{{{{{by}}}}} " if by else ""
    return tuple(Target(f"histogram_quantile({q}, sum by ({group}) "
                        f"(rate({metric}_bucket{selector}[{RATE}])))",
                        f"{prefix}p{round(q * 100)}") for q in levels)


def health_row(service: str, lag: tuple[Panel, ...] | None = None) -> Row:
    """Up, ready and broker reachable; then the service's lag: `okey_consumer_lag` unless
    the service gauges its own (`lag`; an empty tuple: it has none)."""
    sel = f'{{job="{job(service)}"}}'
    if lag is None:
        lag = (
            panel("Consumer lag", Target(f"max(okey_consumer_lag{sel})", "worst partition"),
                  kind="stat", width=8, description="A transactional topic leaves 1 (its "
                  "last commit marker)."),
            panel("Consumer lag by partition",
                  Target(f"sum by (partition) (okey_consumer_lag{sel})",
                         "partition {{partition}}"), width=24),
        )
    width = 8 if lag else 12
    return Row("Health", (
        panel("Instances up", Target(f"sum(up{sel})", "up"),
              Target(f"sum(okey_ready{sel})", "ready"), kind="stat", width=width,
              description="Instances answering /metrics, and those whose /readyz is 200."),
        panel("Broker reachable", Target(f"min(okey_broker_reachable{sel})", "reachable"),
              kind="stat", width=width, description="0 when any instance's last broker probe "
              "failed."),
        *lag,
    ))


def service_board(service: str, title: str, description: str, *rows: Row,
                  lag: tuple[Panel, ...] | None = None) -> Dashboard:
    return Dashboard(uid=f"okey101-{service}", title=f"okey101 / {title}",
                     description=description, rows=(health_row(service, lag), *rows))


# ---------------------------------------------------------------------------- boards
def overview() -> Dashboard:
    return Dashboard(
        uid="okey101-overview", title="okey101 / overview",
        description="The whole service at a glance: commands, latency, rejections, dead "
                    "letters, tables, lag, the services up, the SLOs.",
        rows=(
            Row("Services", (
                panel("Services up",
                      Target('sum by (job) (up{job=~"okey101-.*"})', "{{job}}"),
                      kind="stat", width=12,
                      description="Instances answering /metrics, by service."),
                panel("Services ready",
                      Target('sum by (job) (okey_ready{job=~"okey101-.*"})', "{{job}}"),
                      kind="stat", width=12,
                      description="Instances whose /readyz is 200, by service."),
            )),
            Row("Commands", (
                panel("Commands by result",
                      Target(f"sum by (result) (rate(okey_commands_total[{RATE}]))",
                             "{{result}}"), unit="ops", stack=True),
                panel("Command latency (produce to commit)",
                      *quantiles("okey_command_latency_seconds", levels=(0.5, 0.9, 0.99)),
                      unit="s"),
                panel("Rejections by code",
                      Target(f"sum by (code) (rate(okey_rejections_total[{RATE}]))", "{{code}}"),
                      unit="ops", stack=True),
                panel("Dead letters",
                      Target(f"sum(rate(okey_dead_letters_total[{RATE}]))", "dead letters"),
                      unit="ops",
                      description="Undecodable or misrouted records (okey.deadletters)."),
            )),
            Row("Tables and lag", (
                panel("Active tables", Target("sum(okey_active_tables)", "seating or playing")),
                panel("Consumer lag by service",
                      Target('sum by (job) (okey_consumer_lag{job=~"okey101-.*"})', "{{job}}"),
                      description="Records not yet consumed; a transactional topic leaves 1 "
                                  "per partition."),
                panel("Read models behind the events",
                      Target("max(okey_standings_lag_records)", "leaderboards (records)"),
                      Target("max(sum by (instance) (okey_directory_lag_events))",
                             "replays directory (events)"), width=24,
                      description="Committed events the leaderboards and the replays "
                                  "directory have not read yet."),
            )),
            Row("SLOs", (
                panel("Commands over 250 ms (SLO: 1%)",
                      Target("okey:command_latency_slow:ratio_rate5m", "5m"),
                      Target("okey:command_latency_slow:ratio_rate1h", "1h"),
                      unit="percentunit"),
                panel("Commands in aborted transactions (SLO: 0.1%)",
                      Target("okey:command_errors:ratio_rate5m", "5m"),
                      Target("okey:command_errors:ratio_rate1h", "1h"),
                      unit="percentunit"),
            )),
        ))


def processor() -> Dashboard:
    sel = '{job="okey101-processor"}'
    return service_board(
        "processor", "processor",
        "The rules processor: commands in, events, outcomes and views out, one Kafka "
        "transaction per batch.",
        Row("Commands", (
            panel("Commands by type",
                  Target(f"sum by (type) (rate(okey_commands_total{sel}[{RATE}]))", "{{type}}"),
                  unit="ops", stack=True),
            panel("Command latency by instance",
                  *quantiles("okey_command_latency_seconds", sel, by="instance"), unit="s"),
            panel("Rejections by code",
                  Target(f"sum by (code) (rate(okey_rejections_total{sel}[{RATE}]))",
                         "{{code}}"), unit="ops"),
            panel("Duplicates and dead letters",
                  Target(f"sum(rate(okey_duplicate_commands_total{sel}[{RATE}]))", "duplicates"),
                  Target(f"sum(rate(okey_dead_letters_total{sel}[{RATE}]))", "dead letters"),
                  unit="ops"),
        )),
        Row("Transactions", (
            panel("Batch: decide and commit",
                  *quantiles("okey_batch_processing_seconds", sel, levels=(0.5, 0.99)),
                  unit="s"),
            panel("Batches committed",
                  Target(f"sum by (instance) (rate(okey_batch_processing_seconds_count{sel}"
                         f"[{RATE}]))", "{{instance}}"), unit="ops"),
            panel("Aborted transactions and their commands",
                  Target(f"sum(rate(okey_transaction_failures_total{sel}[{RATE}]))",
                         "transactions"),
                  Target(f"sum(rate(okey_aborted_commands_total{sel}[{RATE}]))", "commands"),
                  unit="ops"),
            panel("Partition rebuilds",
                  Target(f"sum by (instance) (increase(okey_partition_rebuilds_total{sel}"
                         f"[{RATE}]))", "{{instance}}")),
        )),
        Row("Tables", (
            panel("Active tables by instance",
                  Target(f"sum by (instance) (okey_active_tables{sel})", "{{instance}}"),
                  stack=True),
            panel("Partitions owned by instance",
                  Target(f"sum by (instance) (okey_processor_partitions{sel})", "{{instance}}"),
                  stack=True),
        )),
        Row("Memory and recovery", (
            panel("Command ids kept",
                  Target(f"sum by (instance) (okey_kept_command_ids{sel})", "{{instance}}"),
                  stack=True,
                  description="For duplicate detection: live tables, the finished window, "
                  "the strays. Flat once tables finish (bounded memory)."),
            panel("Finished tables kept",
                  Target(f"sum by (instance) (okey_finished_tables_kept{sel})",
                         "{{instance}}"), stack=True),
            panel("Snapshots and rebuild skips",
                  Target(f"sum(rate(okey_snapshots_total{sel}[{RATE}]))", "snapshots"),
                  Target(f"sum(rate(okey_snapshot_fallbacks_total{sel}[{RATE}]))",
                         "fallbacks to the full log"),
                  Target(f"sum(rate(okey_rebuild_undecodable_total{sel}[{RATE}]))",
                         "undecodable at a rebuild"), unit="ops"),
        )),
    )


def timers() -> Dashboard:
    sel = '{job="okey101-timers"}'
    return service_board(
        "timers", "timers",
        "The turn timers: each table's turn deadline, and the house's timeout when it passes.",
        Row("Timeouts", (
            panel("Timeouts published",
                  Target(f"sum(rate(okey_timeouts_issued_total{sel}[{RATE}]))", "published"),
                  Target(f"sum(rate(okey_timeout_send_failures_total{sel}[{RATE}]))",
                         "failed sends"), unit="ops"),
            panel("Lateness after the deadline",
                  *quantiles("okey_timeout_lateness_seconds", sel), unit="s"),
        )),
        Row("The loop", (
            panel("Ticks", Target(f"sum by (instance) (rate(okey_timer_tick_seconds_count{sel}"
                                  f"[{RATE}]))", "{{instance}}"), unit="ops",
                  description="About 10/s per instance (--tick-ms 100); 0 is a stuck loop."),
            panel("Tick duration", *quantiles("okey_timer_tick_seconds", sel), unit="s"),
            panel("Tables tracked",
                  Target(f"sum by (instance) (okey_timer_tables_tracked{sel})", "{{instance}}"),
                  stack=True),
            panel("Partitions being re-read",
                  Target(f"sum by (instance) (okey_timer_partitions_catching_up{sel})",
                         "{{instance}}")),
            panel("Events not folded",
                  Target(f"sum(rate(okey_timer_events_ignored_total{sel}[{RATE}]))",
                         "ignored"), unit="ops", width=24,
                  description="Re-reads, finished matches, seq gaps."),
        )),
    )


def bots() -> Dashboard:
    sel = '{job="okey101-bots"}'
    return service_board(
        "bots", "bots",
        "The bots: they read the bot seats' player views only and play those seats.",
        Row("Moves", (
            panel("Commands by level",
                  Target(f"sum by (level) (rate(okey_bot_commands_total{sel}[{RATE}]))",
                         "level {{level}}"), unit="ops", stack=True),
            panel("Commands by type",
                  Target(f"sum by (type) (rate(okey_bot_commands_total{sel}[{RATE}]))",
                         "{{type}}"), unit="ops", stack=True),
            panel("Decision time", *quantiles("okey_bot_decision_seconds", sel), unit="s"),
            panel("Views read and seats filled",
                  Target(f"sum(rate(okey_bot_views_total{sel}[{RATE}]))", "views"),
                  Target(f"sum(rate(okey_bot_seats_filled_total{sel}[{RATE}]))",
                         "seats filled"), unit="ops"),
            panel("Bot moves rejected (counted by the processor)",
                  Target(f"sum by (code) (rate(okey_bot_rejections_total[{RATE}]))", "{{code}}"),
                  unit="ops", width=24,
                  description="A bot is never meant to be rejected: see the BotsRejected "
                              "runbook."),
        )),
    )


def leaderboards() -> Dashboard:
    sel = '{job="okey101-leaderboards"}'
    return service_board(
        "leaderboards", "leaderboards",
        "The leaderboards: every house's standings folded from the events topic (each "
        "instance a whole replica), written to the compacted standings topic.",
        Row("Standings", (
            panel("Matches applied by house",
                  Target(f"sum by (house) (rate(okey_standings_matches_applied_total{sel}"
                         f"[{RATE}]))", "{{house}}"), unit="ops", stack=True),
            panel("From match end to standing written",
                  *quantiles("okey_standings_delay_seconds", sel, levels=(0.5, 0.9, 0.99)),
                  unit="s", description="The goal: under 1 s."),
            panel("Standings written",
                  Target(f"sum(rate(okey_standings_changes_published_total{sel}[{RATE}]))",
                         "written"), unit="ops"),
            panel("Late matches put in place",
                  Target(f"sum(rate(okey_standings_rewinds_total{sel}[{RATE}]))", "rewinds"),
                  unit="ops", description="Matches undone and applied again to put a late "
                  "match in its canonical place."),
        )),
        Row("Input", (
            panel("Bad input by reason",
                  Target(f"sum by (reason) (rate(okey_standings_bad_input_total{sel}[{RATE}]))",
                         "{{reason}}"), unit="ops",
                  description="Logged with partition and offset: see the "
                  "LeaderboardsBadInput runbook."),
            panel("Duplicates skipped",
                  Target(f"sum by (kind) (rate(okey_standings_duplicates_skipped_total{sel}"
                         f"[{RATE}]))", "{{kind}}"), unit="ops"),
        )),
        lag=(
            panel("Rebuild at start", Target(f"min(okey_standings_rebuild_progress{sel})",
                                             "read"),
                  unit="percentunit", kind="stat", width=8,
                  description="Share of the events topic read before going live."),
            panel("Events not read yet",
                  Target(f"max by (instance) (okey_standings_lag_records{sel})",
                         "{{instance}}"), width=24,
                  description="Committed events behind the fold, all partitions summed."),
        ),
    )


def replays() -> Dashboard:
    sel = '{job="okey101-replays"}'
    return service_board(
        "replays", "replays",
        "The replays service: the table directory (one compacted entry per table) folded "
        "from the events topic, and replays served over HTTP.",
        Row("Directory", (
            panel("Tables in the directory",
                  Target(f"max(okey_directory_tables{sel})", "tables")),
            panel("From event to directory entry",
                  *quantiles("okey_directory_lag_seconds", sel, levels=(0.5, 0.9, 0.99)),
                  unit="s"),
            panel("Events folded and entries written",
                  Target(f"sum(rate(okey_directory_events_total{sel}[{RATE}]))", "events"),
                  Target(f"sum(rate(okey_directory_writes_total{sel}[{RATE}]))", "writes"),
                  unit="ops"),
            panel("Repairs and undecodable records",
                  Target(f"sum(rate(okey_directory_repairs_total{sel}[{RATE}]))", "repairs"),
                  Target(f"sum(rate(okey_directory_undecodable_total{sel}[{RATE}]))",
                         "undecodable"), unit="ops"),
        )),
        Row("HTTP", (
            panel("Requests by route and status",
                  Target(f"sum by (route, status) (rate(okey_replay_requests_total{sel}"
                         f"[{RATE}]))", "{{route}} {{status}}"), unit="ops", stack=True),
            panel("Replay time", *quantiles("okey_replay_seconds", sel), unit="s"),
        )),
        lag=(
            panel("Directory lag", Target(f"max(okey_directory_lag_events{sel})",
                                          "worst partition"), kind="stat", width=8,
                  description="Events not yet indexed."),
            panel("Directory lag by partition",
                  Target(f"sum by (partition) (okey_directory_lag_events{sel})",
                         "partition {{partition}}"), width=24),
        ),
    )


def gateway() -> Dashboard:
    sel = '{job="okey101-gateway"}'
    return service_board(
        "gateway", "gateway",
        "The gateway: WebSocket and HTTP for people; commands in, each seat's view and each "
        "command's outcome out.",
        Row("Clients", (
            panel("Open connections",
                  Target(f"sum by (instance) (okey_gateway_connections{sel})", "{{instance}}"),
                  stack=True),
            panel("Refusals by code",
                  Target(f"sum by (code) (rate(okey_gateway_refusals_total{sel}[{RATE}]))",
                         "{{code}}"), unit="ops", stack=True,
                  description="Frames and requests the gateway answered itself: bad "
                  "tokens, malformed frames, rate limits, too many connections."),
            panel("Clients dropped as too slow",
                  Target(f"sum(rate(okey_gateway_dropped_clients_total{sel}[{RATE}]))",
                         "dropped"), unit="ops"),
            panel("Frames out and views read",
                  Target(f"sum(rate(okey_gateway_frames_out_total{sel}[{RATE}]))", "frames"),
                  Target(f"sum(rate(okey_gateway_updates_total{sel}[{RATE}]))", "views"),
                  unit="ops"),
        )),
        Row("Commands", (
            panel("Commands by result",
                  Target(f"sum by (result) (rate(okey_gateway_commands_total{sel}[{RATE}]))",
                         "{{result}}"), unit="ops", stack=True),
            panel("From command to outcome",
                  *quantiles("okey_gateway_command_seconds", sel, levels=(0.5, 0.9, 0.99)),
                  unit="s"),
        )),
        lag=(),
    )


def auditor() -> Dashboard:
    sel = '{job="okey101-auditor"}'
    return service_board(
        "auditor", "auditor",
        "The fairness auditor: every hand's commitment, deal and public moves checked "
        "against each other, and collusion and abuse flags, from the events topic.",
        Row("Hands", (
            panel("Hands verified and failed",
                  Target(f"sum(rate(okey_audit_hands_verified_total{sel}[{RATE}]))",
                         "verified"),
                  Target(f"sum by (finding) (rate(okey_audit_hands_failed_total{sel}"
                         f"[{RATE}]))", "failed: {{finding}}"), unit="ops"),
            panel("Flags by kind",
                  Target(f"sum by (kind) (increase(okey_audit_flags_total{sel}[1h]))",
                         "{{kind}}"), stack=True,
                  description="Collusion and abuse flags raised in the last hour; each "
                  "names its matches and moves on the audit topic."),
            panel("Events folded and undecodable",
                  Target(f"sum(rate(okey_audit_events_total{sel}[{RATE}]))", "events"),
                  Target(f"sum(rate(okey_audit_events_undecodable_total{sel}[{RATE}]))",
                         "undecodable"), unit="ops"),
        )),
        lag=(
            panel("Behind the events", Target(f"max(okey_audit_lag_seconds{sel})", "lag"),
                  unit="s", kind="stat", width=8,
                  description="From the last folded event's record time to its folding."),
            panel("Partitions being re-read",
                  Target(f"sum by (instance) (okey_audit_partitions_catching_up{sel})",
                         "{{instance}}"), width=24,
                  description="Assigned events partitions still rebuilding the state."),
        ),
    )


def views() -> Dashboard:
    sel = '{job="okey101-views"}'
    return service_board(
        "views", "views",
        "The views service: the player views gateways serve, built from the committed "
        "events outside the processor's transactions.",
        Row("Player views", (
            panel("Delay from the event to its views",
                  *quantiles("okey_views_delay_seconds", sel), unit="s",
                  description="From a batch's first event's record time to the publishing "
                  "of its views (ViewsLate: p99 over 2 s for 10 minutes)."),
            panel("Events folded and updates published",
                  Target(f"sum(rate(okey_views_events_total{sel}[{RATE}]))", "events"),
                  Target(f"sum(rate(okey_views_updates_total{sel}[{RATE}]))", "updates"),
                  unit="ops"),
            panel("Tables held and events skipped",
                  Target(f"sum(okey_views_tables{sel})", "live tables"),
                  Target(f"sum by (reason) (increase(okey_views_events_skipped_total{sel}"
                         f"[1h]))", "skipped: {{reason}}"),
                  description="Finished matches leave memory; an event skipped is "
                  "undecodable or does not follow its table."),
        )),
    )


def matchmaker() -> Dashboard:
    sel = '{job="okey101-matchmaker"}'
    return service_board(
        "matchmaker", "matchmaker",
        "The matchmaker: halls, quick play and tournaments; its decisions and the table "
        "commands they call for go out in one transaction.",
        Row("Quick play", (
            panel("Players waiting",
                  Target(f"sum by (house, hall) (okey_matchmaker_waiting{sel})",
                         "{{house}} {{hall}}"), stack=True),
            panel("Longest wait", Target(f"max by (house) (okey_matchmaker_oldest_wait_seconds"
                                         f"{sel})", "{{house}}"), unit="s",
                  description="MatchmakerWaitLong: over 2 minutes for 5 minutes."),
            panel("Request to seat", *quantiles("okey_matchmaker_wait_seconds", sel), unit="s"),
            panel("Tables seated",
                  Target(f"sum by (kind) (rate(okey_matchmaker_tables_seated_total{sel}"
                         f"[{RATE}]))", "{{kind}}"),
                  Target(f"sum(rate(okey_matchmaker_bot_seats_total{sel}[{RATE}]))",
                         "bot seats"), unit="ops"),
            panel("Skill spread at a table", *quantiles("okey_matchmaker_table_spread", sel),
                  description="Highest minus lowest ordinal of the humans at a table."),
            panel("Requests refused",
                  Target(f"sum by (code) (rate(okey_matchmaker_refused_total{sel}[{RATE}]))",
                         "{{code}}"), unit="ops"),
        )),
        Row("Tournaments and the log", (
            panel("Tournaments",
                  Target(f"sum by (status) (okey_matchmaker_tournaments{sel})", "{{status}}")),
            panel("Tournament tables ended",
                  Target(f"sum(rate(okey_matchmaker_tournament_results_total{sel}[{RATE}]))",
                         "results"), unit="ops"),
            panel("Transactions",
                  Target(f"sum by (result) (rate(okey_matchmaker_transactions_total{sel}"
                         f"[{RATE}]))", "{{result}}"), unit="ops",
                  description="MatchmakerTransactionsAborted: any abort for 10 minutes."),
            panel("Transaction time", *quantiles("okey_matchmaker_transaction_seconds", sel),
                  unit="s"),
            panel("Undecodable records",
                  Target(f"sum by (topic) (rate(okey_matchmaker_bad_records_total{sel}"
                         f"[{RATE}]))", "{{topic}}"), unit="ops",
                  description="Dead-lettered and skipped: never stop the service."),
            panel("Table ends relayed",
                  Target(f"sum(rate(okey_matchmaker_relayed_total{sel}[{RATE}]))", "relayed"),
                  unit="ops"),
        )),
    )


BOARDS: tuple[Callable[[], Dashboard], ...] = (overview, processor, timers, bots, leaderboards,
                                               replays, gateway, auditor, views, matchmaker)

