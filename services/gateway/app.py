"""The gateway: WebSocket and HTTP (aiohttp) in front of Kafka.

Reads the player-views topic (every table's human seats and spectators, whole views with
versions) into a `ViewCache` and the outcomes topic; writes client commands to the commands
topic. Each connection has its own bounded queue and writer task: fan-out only ever puts a
frame in a queue, and a client whose queue is full is dropped, so a slow or frozen client
never slows the others. An accepted command's outcome is sent after the update that shows
it. Serves the browser table (static/) and the solver helpers.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import structlog
from aiohttp import WSCloseCode, WSMsgType, web
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import KafkaError

from okey101 import codes, names, profiles, tiles
from okey101.app import bounds, solve, topics
from okey101.app import http_api as H
from okey101.app.gateway import identity, sheet
from okey101.app.gateway import websocket as W
from okey101.app.gateway.bookkeeping import Bookkeeping
from okey101.app.gateway.ratelimit import FloodGuard, TokenBucket
from okey101.app.gateway.tournaments import Index, TournamentBoard
from okey101.app.gateway.viewcache import RulesRefused, ViewCache
from okey101.app.matchmaker import records as MR
from okey101.errors import IllegalMove, MalformedInput
from okey101.table import messages as E
from okey101.table.views import SPECTATOR
from services.common.deadletters import DeadLetters
from services.common.http import json_body, json_errors
from services.common.kafka import client_security, provision, read_partition_records
from services.common.lifecycle import Lifecycle
from services.gateway import metrics, standing
from services.gateway.settings import GatewaySettings, Settings

log = structlog.get_logger("gateway")
STATIC = Path(__file__).resolve().parent / "static"
CLIENT_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
CLOSE_AUTH, CLOSE_TOO_MANY, CLOSE_TOO_SLOW = 4001, 4003, 4008


class Record(NamedTuple):
    """A record read back by `read_partition_records`, as a dead letter needs it."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None


class Connection:
    """One authenticated WebSocket: its queue, its writer, what it watches."""

    def __init__(self, gateway: Gateway, ws: web.WebSocketResponse, request: web.Request,
                 player_id: str) -> None:
        self.gateway = gateway
        self.ws = ws
        self.request = request
        self.player_id = player_id
        s = gateway.settings
        self.queue: asyncio.Queue[bytes] = asyncio.Queue(s.queued_messages)
        self.flood = FloodGuard(s.commands_per_second, s.command_burst, s.flood_strikes,
                                gateway.clock())
        self.closed = False
        self.writer = asyncio.create_task(self._write())

    def push(self, frame: bytes) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(frame)
        except asyncio.QueueFull:
            metrics.DROPPED.inc()
            log.info("client_dropped", player_id=self.player_id, reason="queue full")
            self.gateway.drop(self, CLOSE_TOO_SLOW, "too_slow")
            return
        metrics.FRAMES_OUT.inc()

    def send(self, message: msgspec.Struct) -> None:
        self.push(W.encode(message))

    async def _write(self) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            while True:
                frame = await self.queue.get()
                await self.ws.send_frame(frame, WSMsgType.TEXT)


class Gateway(Lifecycle):
    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.settings = settings
        self.clock = clock  # what the rate guards read (a test freezes it: their verdicts)
        self.cache = ViewCache()
        # connections, watchers, commands waiting, acks held, ids used: `id_reused` before
        # Kafka for an id this gateway saw (any table); the processor decides it for the rest
        self.books: Bookkeeping[Connection] = Bookkeeping(settings.command_ids_kept)
        self.solve_buckets: dict[str, TokenBucket] = {}
        self.producer: AIOKafkaProducer | None = None
        self.dead = DeadLetters("gateway", settings.prefix)
        self.consumer: AIOKafkaConsumer | None = None
        self.partitions = topics.PARTITIONS
        self.commands = topics.COMMANDS.name(settings.prefix)
        self.player_views = topics.PLAYER_VIEWS.name(settings.prefix)
        self.outcomes = topics.OUTCOMES.name(settings.prefix)
        # quick play (services/matchmaker): requests out, decisions in
        self.matchmaking = topics.MATCHMAKING.name(settings.prefix)
        self.decisions = topics.MATCHMAKER.name(settings.prefix)
        self.tournaments_topic = topics.TOURNAMENTS.name(settings.prefix)
        self.roles: dict[str, list[str]] = {}  # player -> the roles their token carried
        self.quick: dict[tuple[str, str], W.QuickPlayState] = {}  # (player, house) waiting
        self.tournaments = TournamentBoard()
        self.port = settings.port
        super().__init__()
        self.ready = asyncio.Event()

    @classmethod
    def from_settings(cls, settings: GatewaySettings) -> Gateway:
        return cls(settings.gateway())

    # ------------------------------------------------------------ lifecycle
    def not_ready(self) -> str | None:
        """Ready once every seat's newest view is read and the endpoint listens."""
        return None if self.ready.is_set() else "reading the player views"

    async def connect(self) -> None:
        """The topics provisioned and the clients started; a broker fault is raised with
        what was opened closed again (the runtime logs it and retries)."""
        s = self.settings
        self.partitions = await provision(s.bootstrap, s.prefix)
        producer = AIOKafkaProducer(bootstrap_servers=s.bootstrap, linger_ms=1,
                                    enable_idempotence=True, **client_security())
        consumer = AIOKafkaConsumer(bootstrap_servers=s.bootstrap, group_id=None,
                                    isolation_level="read_committed",
                                    enable_auto_commit=False, fetch_max_wait_ms=10,
                                    max_partition_fetch_bytes=4 * 1024 * 1024,
                                    **client_security())
        try:
            await producer.start()
            await consumer.start()
        except BaseException:
            for client in (consumer, producer):
                with contextlib.suppress(KafkaError, OSError, TimeoutError):
                    await asyncio.wait_for(client.stop(), 10)
            raise
        self.producer, self.consumer = producer, consumer
        self.dead.producer = producer

    async def run(self) -> None:
        s = self.settings
        if self.consumer is None:
            await self.connect()
        assert self.consumer is not None and self.producer is not None
        consumer, partitions = self.consumer, self.partitions
        runner = web.AppRunner(self.web_app(), access_log=None)
        try:
            views = [TopicPartition(self.player_views, p) for p in range(partitions)]
            outcomes = [TopicPartition(self.outcomes, p) for p in range(partitions)]
            decided = [TopicPartition(self.decisions, p) for p in range(partitions)]
            consumer.assign(views + outcomes + decided)
            await consumer.seek_to_beginning(*views)
            await consumer.seek_to_end(*outcomes)
            since = await self._unfinished_tournaments(partitions)
            await self._recent_decisions(consumer, decided, since)
            await self._catch_up(consumer, views)
            await runner.setup()
            site = web.TCPSite(runner, s.host, s.port)
            await site.start()
            sockets = getattr(site._server, "sockets", None)
            if sockets:
                self.port = sockets[0].getsockname()[1]
            self.ready.set()
            log.info("gateway_started", url=f"http://{s.host}:{self.port}/", prefix=s.prefix,
                     tables=len(self.cache.tables))
            print(f"gateway listening on http://{s.host}:{self.port}/", flush=True)
            reader = asyncio.create_task(self._consume(consumer))
            stopping = asyncio.create_task(self.until_stopped())
            await asyncio.wait([reader, stopping], return_when=asyncio.FIRST_COMPLETED)
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader  # a reader that failed raises here: the service stops with it
        finally:
            for conn in self.books.everyone():
                self.drop(conn, WSCloseCode.GOING_AWAY, "shutting_down")
            await runner.cleanup()
            await consumer.stop()
            await self.producer.stop()
            log.info("gateway_stopped")

    async def _catch_up(self, consumer: AIOKafkaConsumer, views: list[TopicPartition]) -> None:
        """Every seat's newest view before the first client is served."""
        ends = await consumer.end_offsets(views)
        async def behind() -> bool:
            return any([await consumer.position(tp) < ends[tp] for tp in views])

        while await behind():
            batch = await consumer.getmany(*views, timeout_ms=500, max_records=5000)
            for records in batch.values():
                for record in records:
                    try:  # a re-read: dead-lettered when first read live
                        if record.value is not None:
                            bounds.check(record.value, bounds.DERIVED)
                        self._ingest(record.value, fan_out=False)
                    except Exception as exc:  # any record: the reader goes on
                        log.warning("bad_player_update", offset=record.offset,
                                    error=str(exc)[:300])

    async def _consume(self, consumer: AIOKafkaConsumer) -> None:
        last_sweep = time.monotonic()
        while True:
            self.beat()
            batch = await consumer.getmany(timeout_ms=200, max_records=5000)
            for tp, records in batch.items():
                for record in records:
                    if tp.topic == self.player_views:
                        self.dead.apply(record, self._ingest_live)
                    elif tp.topic == self.decisions:
                        self.dead.apply(record, self._decision_record)
                    else:
                        self.dead.apply(record, self._outcome_record)
            await self.dead.flush()
            now = time.monotonic()
            if now - last_sweep > 30:
                self._sweep(now)
                last_sweep = now

    # ------------------------------------------------------------ views in
    def _ingest_live(self, record: Any) -> None:
        self._ingest(record.value, fan_out=True)

    def _ingest(self, value: bytes | None, fan_out: bool) -> None:
        """One player update kept (and pushed, `fan_out`); raises for one that is not."""
        if value is None:
            return
        update, frame = self.cache.ingest(value)
        metrics.UPDATES.inc()
        table = self.cache.tables.get(update.table_id)
        if table is not None and table.status == "over":
            self.books.seen_over(update.table_id, time.monotonic())
        if not fan_out or table is None or frame is None:
            return
        for conn in self.books.watchers_of(update.table_id):  # a push may drop one
            if table.seat_of(conn.player_id) == update.seat:
                conn.push(frame)
        for conn, held in self.books.due(update.table_id, update.seat, update.version):
            answer = self.cache.resume(update.table_id, update.seat, held)
            if answer is None:  # no whole view yet (a gap): still awaited
                self.books.await_version(conn, update.table_id, update.seat, held)
            else:
                conn.push(answer)

        def seat_of(conn: Connection) -> int:
            watching = self.books.is_watching(conn, update.table_id)
            return table.seat_of(conn.player_id) if watching else SPECTATOR
        for conn, ack in self.books.release(update.table_id, update.version, update.seat,
                                            seat_of):
            conn.push(ack)

    def _sweep(self, now: float) -> None:
        for table_id in self.books.sweep(now, lambda conn: conn.closed):
            self.cache.forget(table_id)

    # ------------------------------------------------------------ outcomes in
    def _outcome_record(self, record: Any) -> None:
        self._outcome(record.value)

    def _outcome(self, value: bytes | None) -> None:
        """One outcome answered to the connections waiting for it; raises for a record
        that is not an outcome."""
        if value is None:
            return
        outcome = E.outcome_decoder.decode(value)
        waiting = self.books.answered(outcome.table_id, outcome.command_id)
        if waiting is None:
            return
        metrics.COMMANDS.labels(waiting.kind, "accepted" if outcome.accepted
                                else "rejected").inc()
        metrics.OUTCOME_LATENCY.observe(time.monotonic() - waiting.started)
        for conn, client_id in waiting.conns:
            if outcome.code == "id_reused":  # the processor holds another command for it
                self.books.forget(conn.player_id, client_id)
            ack = W.encode(W.CommandOutcome(
                id=client_id, table_id=outcome.table_id, accepted=outcome.accepted,
                seqs=outcome.seqs, code=outcome.code, message=outcome.message,
                duplicate=outcome.duplicate))
            last = max(outcome.seqs, default=0)
            if not outcome.accepted or self._shown(conn, outcome.table_id, last):
                conn.push(ack)
            else:
                self.books.hold(outcome.table_id, conn, last, ack)

    def _shown(self, conn: Connection, table_id: str, version: int) -> bool:
        """Has `conn` been sent the update at `version` (or later) of the table?"""
        table = self.cache.tables.get(table_id)
        if table is None:
            return False
        if not self.books.is_watching(conn, table_id):
            return table.version >= version
        log_ = self.cache.seats.get(table_id, {}).get(table.seat_of(conn.player_id))
        return log_ is not None and log_.version >= version

    # ------------------------------------------------------------ connections
    def drop(self, conn: Connection, code: int, reason: str) -> None:
        if conn.closed:
            return
        conn.closed = True
        conn.writer.cancel()
        self._forget_connection(conn)

        async def close() -> None:
            with contextlib.suppress(TimeoutError, ConnectionError, RuntimeError):
                await asyncio.wait_for(conn.ws.close(code=code, message=reason.encode()), 1)
            transport = conn.request.transport
            if transport is not None and not conn.ws.closed:
                transport.abort()  # it does not read: do not wait for its close frame
        asyncio.get_running_loop().create_task(close())

    def _forget_connection(self, conn: Connection) -> None:
        if self.books.disconnected(conn.player_id, conn):
            metrics.CONNECTIONS.dec()

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        s = self.settings
        ws = web.WebSocketResponse(max_msg_size=s.frame_bytes, heartbeat=30, compress=False,
                                   writer_limit=64 * 1024)
        await ws.prepare(request)
        raw = request.transport.get_extra_info("socket") if request.transport else None
        if raw is not None:  # else the kernel grows it to megabytes for a client that never reads
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, s.send_buffer)
        player_id = await self._hello(ws)
        if player_id is None:
            return ws
        conn = Connection(self, ws, request, player_id)
        self.books.connected(player_id, conn)
        metrics.CONNECTIONS.inc()
        conn.send(W.Welcome(player_id=player_id, limits=s.limits()))
        for (player, _), state in self.quick.items():
            if player == player_id:
                conn.send(state)  # the wait state: still waiting for a seat
        try:
            async for msg in ws:
                if conn.closed:
                    break
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    self._receive(conn, msg.data)
                    await asyncio.sleep(0)  # let the writer send the reply before the next
                else:
                    break
        finally:
            if not conn.closed:
                conn.closed = True
                conn.writer.cancel()
                self._forget_connection(conn)
        return ws

    async def _hello(self, ws: web.WebSocketResponse) -> str | None:
        """The player a connection's first frame proves, or None (the socket is closed)."""
        s = self.settings
        try:
            msg = await ws.receive(timeout=s.hello_timeout)
        except TimeoutError:
            await self._refuse_and_close(ws, "unauthenticated", "no hello within "
                                         f"{s.hello_timeout:.0f} s")
            return None
        if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
            return None  # closed, or a frame too large (aiohttp closed it with 1009)
        try:
            hello = W.decode_client(msg.data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            await self._refuse_and_close(ws, "malformed", f"first frame: {exc}",
                                         W.id_of(msg.data))
            return None
        if not isinstance(hello, W.Hello):
            await self._refuse_and_close(ws, "unauthenticated", "the first frame must be "
                                         "hello with a token",
                                         hello.id if isinstance(hello, W.SendCommand) else None)
            return None
        if hello.v != W.VERSION:
            await self._refuse_and_close(ws, "unsupported_version", f"hello v={hello.v}: this "
                                         f"gateway speaks v={W.VERSION}, which sends views "
                                         "as patches (proto/VERSIONING.md)")
            return None
        try:
            player_id, roles = identity.verify_roles(s.secret, hello.token, int(time.time()),
                                                     s.token_max_seconds)
        except identity.TokenRefused as exc:
            await self._refuse_and_close(ws, exc.code, exc.message)
            return None
        if self.books.connections(player_id) >= s.connections_per_account:
            metrics.REFUSED.labels("too_many_connections").inc()
            await ws.send_str(W.encode(W.refuse(
                "too_many_connections", f"{player_id} already holds "
                f"{s.connections_per_account} connections")).decode())
            await ws.close(code=CLOSE_TOO_MANY, message=b"too_many_connections")
            return None
        self.roles[player_id] = roles
        return player_id

    async def _refuse_and_close(self, ws: web.WebSocketResponse, code: str, message: str,
                                id: str | None = None) -> None:
        metrics.REFUSED.labels(code).inc()
        with contextlib.suppress(ConnectionError, RuntimeError):
            await ws.send_str(W.encode(W.refuse(code, message, id)).decode())
            await ws.close(code=CLOSE_AUTH, message=code.encode())

    def _refuse(self, conn: Connection, code: str, message: str, id: str | None = None
                ) -> None:
        metrics.REFUSED.labels(code).inc()
        conn.send(W.refuse(code, message, id))

    # ------------------------------------------------------------ frames in
    def _flooded(self, conn: Connection, id: str | None) -> bool:
        """A frame past the connection's rate, whatever it asks: refused (`rate_limited`),
        and the connection closed at the `flood_strikes`-th refusal; True when refused."""
        verdict = conn.flood.take(self.clock())
        if verdict == "pass":
            return False
        self._refuse(conn, "rate_limited", f"at most {self.settings.commands_per_second:g}"
                     f" frames a second (burst {self.settings.command_burst})", id)
        if verdict == "close":
            log.info("client_dropped", player_id=conn.player_id, reason="flood")
            self.drop(conn, WSCloseCode.POLICY_VIOLATION, "rate_limited")
        return True

    def _receive(self, conn: Connection, data: str | bytes) -> None:
        try:
            message = W.decode_client(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            if not self._flooded(conn, W.id_of(data)):
                self._refuse(conn, "malformed", str(exc), W.id_of(data))
            return
        if not isinstance(message, W.SendCommand) and self._flooded(
                conn, getattr(message, "id", None)):  # a command counts in `_command`
            return
        if message.v != W.VERSION:
            self._refuse(conn, "unsupported_version", f"v={message.v}: this gateway speaks "
                         f"v={W.VERSION} (proto/VERSIONING.md)",
                         message.id if isinstance(message, W.SendCommand) else None)
            return
        match message:
            case W.SendCommand():
                self._command(conn, message)
            case W.Watch():
                self._watch(conn, message)
            case W.Unwatch():
                self.books.unwatch(conn, message.table_id)
            case W.AskRules():
                self._rules(conn, message)
            case W.ListTables():
                conn.send(W.Tables(tables=self.cache.lobby(message.house)))
            case W.AskQuickPlay() | W.WithdrawQuickPlay():
                self._quick_play(conn, message)
            case W.ListTournaments():
                conn.send(W.Tournaments(
                    tournaments=self.tournaments.summaries(conn.player_id, message.house)))
            case W.ShowTournament():
                self._show_tournament(conn, message)
            case W.RegisterForTournament() | W.WithdrawFromTournament():
                self._register(conn, message)
            case W.Hello():
                self._refuse(conn, "malformed", "hello: this connection is already "
                             f"authenticated as {conn.player_id}")

    def _watch(self, conn: Connection, message: W.Watch) -> None:
        table = self.cache.tables.get(message.table_id)
        if table is None:
            self._refuse(conn, "unknown_table", f"no table {message.table_id!r}", message.id)
            return
        if message.version is not None and message.version < 0:
            self._refuse(conn, "malformed", f"watch {message.table_id!r}: version "
                         f"{message.version} (versions start at 0)", message.id)
            return
        self.books.watch(conn, message.table_id)
        seat = table.seat_of(conn.player_id)
        if self.cache.is_ahead(message.table_id, seat, message.version):
            assert message.version is not None
            self.books.await_version(conn, message.table_id, seat, message.version)
            return  # answered when this gateway's log gets there, never with an older view
        frame = self.cache.resume(message.table_id, seat, message.version)
        if frame is not None:
            conn.push(frame)

    def _rules(self, conn: Connection, message: W.AskRules) -> None:
        table = self.cache.tables.get(message.table_id)
        if table is None:
            self._refuse(conn, "unknown_table", f"no table {message.table_id!r}", message.id)
            return
        if not self.books.is_watching(conn, message.table_id):
            self._refuse(conn, "not_watching", f"rules: watch {message.table_id!r} first",
                         message.id)
            return
        seat = table.seat_of(conn.player_id)
        if seat == SPECTATOR or seat != message.seat:
            self._refuse(conn, "not_your_seat", f"rules of seat {message.seat}: "
                         f"{conn.player_id} sits at {seat if seat >= 0 else 'no seat'}",
                         message.id)
            return
        try:
            detail = self.cache.rules(message.table_id, seat, message.version)
        except RulesRefused as refused:
            self._refuse(conn, refused.code, str(refused), message.id)
            return
        conn.send(W.Rules(id=message.id, table_id=message.table_id, seat=seat,
                          version=message.version, rules=detail))

    def _command(self, conn: Connection, message: W.SendCommand) -> None:
        move, client_id = message.command, message.id
        kind = type(move).__struct_config__.tag
        if self._flooded(conn, client_id):
            metrics.COMMANDS.labels(str(kind), "refused").inc()
            return
        if not CLIENT_ID.match(client_id):
            self._refuse(conn, "malformed", f"command id {client_id!r}: 1-64 of "
                         "A-Z a-z 0-9 _ . : -", client_id)
            return
        digest = W.command_digest(message)
        if self.books.is_reused(conn.player_id, client_id, digest):
            metrics.COMMANDS.labels(str(kind), "refused").inc()
            self._refuse(conn, "id_reused", f"command id {client_id!r} was used for another "
                         "command (table, seq or move): send a new command under a new id",
                         client_id)
            return
        sent = self.books.sent_before(conn.player_id, client_id)
        built = self._build(conn, message, digest, sent.table_id if sent is not None else "")
        if isinstance(built, W.ErrorReply):
            metrics.COMMANDS.labels(str(kind), "refused").inc()
            metrics.REFUSED.labels(built.code).inc()
            conn.send(built)
            return
        self.books.remember(conn.player_id, client_id, digest, built.table_id)
        if self.books.publishing(built.table_id, built.command_id, conn, client_id, str(kind),
                                 time.monotonic()):  # else in flight: one answer each
            asyncio.get_running_loop().create_task(self._publish(conn, built, client_id))

    def _build(self, conn: Connection, message: W.SendCommand, digest: bytes,
               created: str = "") -> E.Command | W.ErrorReply:
        """The command to publish, with its `digest` (the processor refuses the id reused
        for another); `created`: the table a create_table of this id named before (a retry
        names it again, and so gets the first answer)."""
        move, client_id = message.command, message.id
        command_id = f"{conn.player_id}/{client_id}"
        if isinstance(move, W.CreateTableMove):
            table_id, seat, seq = created or f"t{secrets.token_hex(6)}", SPECTATOR, 0
        else:
            table = self.cache.tables.get(message.table_id)
            if table is None:
                return W.refuse("unknown_table", f"no table {message.table_id!r}", client_id)
            table_id, seq = table.table_id, table.version
            seat = move.seat if isinstance(move, W.SEATED_ANYWHERE) \
                else table.seat_of(conn.player_id)
            if seat == SPECTATOR and not isinstance(move, W.BY_OWNER):
                return W.refuse("not_your_seat", f"{conn.player_id} does not sit at "
                                f"{table_id}", client_id)
            if message.seq is not None:
                seq = message.seq
        try:
            return W.to_command(move, table_id=table_id, command_id=command_id,
                                player_id=conn.player_id, seat=seat, seq=seq,
                                bot_id=names.bot_id(secrets.token_bytes(8)), digest=digest)
        except msgspec.ValidationError as exc:
            return W.refuse("malformed", str(exc), client_id)

    async def _publish(self, conn: Connection, command: E.Command, client_id: str) -> None:
        assert self.producer is not None
        try:
            await self.producer.send(self.commands, E.encode(command),
                                     key=command.table_id.encode())
        except Exception as exc:  # any producer failure: the client must hear of it
            self.books.not_published(command.table_id, command.command_id, conn.player_id,
                                     client_id)  # never published: the id is free again
            log.warning("publish_failed", error=repr(exc))
            self._refuse(conn, "unavailable", f"command not published: {exc}", client_id)

    # ------------------------------------------------------------ quick play
    def _request_id(self, conn: Connection, client_id: str) -> str | None:
        """The matchmaker request's id, the player's and the client's (a retry carries the
        same); None, and the frame refused, for a client id that is not one."""
        if not CLIENT_ID.match(client_id):
            self._refuse(conn, "malformed", f"id {client_id!r}: 1-64 of A-Z a-z 0-9 _ . : -",
                         client_id)
            return None
        return f"{conn.player_id}/{client_id}"

    def _quick_play(self, conn: Connection, message: W.AskQuickPlay | W.WithdrawQuickPlay) -> None:
        """A request to the matchmaker (okey.matchmaking, keyed by the house), its id the
        player's and the client's: the decisions it calls for come back as
        `quick_play_state` frames."""
        request_id = self._request_id(conn, message.id)
        if request_id is None:
            return
        now = int(time.time() * 1000)
        request: MR.AnyRequest = MR.QuickPlay(
            request_id=request_id, house=message.house, player_id=conn.player_id,
            hall=message.hall, roles=self.roles.get(conn.player_id, []), at=now) \
            if isinstance(message, W.AskQuickPlay) else MR.CancelQuickPlay(
                request_id=request_id, house=message.house, player_id=conn.player_id, at=now)
        asyncio.get_running_loop().create_task(self._publish_request(conn, request, message.id))

    # ------------------------------------------------------------ tournaments
    def _show_tournament(self, conn: Connection, message: W.ShowTournament) -> None:
        state = self.tournaments.state(message.tournament_id, conn.player_id, message.id)
        if state is None:
            self._refuse(conn, "unknown_tournament",
                         f"tournament {message.tournament_id!r}: "
                         f"{codes.MATCHMAKING['unknown_tournament']}", message.id)
        else:
            conn.send(state)

    def _register(self, conn: Connection,
                  message: W.RegisterForTournament | W.WithdrawFromTournament) -> None:
        """A registration (or its withdrawal) to the matchmaker; its decision comes back as
        a `tournament` frame, or its refusal as `error`, under the client's id."""
        request_id = self._request_id(conn, message.id)
        if request_id is None:
            return
        now = int(time.time() * 1000)
        kind = MR.Register if isinstance(message, W.RegisterForTournament) else MR.Unregister
        request = kind(request_id=request_id, house=message.house, player_id=conn.player_id,
                       tournament_id=message.tournament_id, at=now)
        self.tournaments.sent(request_id, message.tournament_id)
        asyncio.get_running_loop().create_task(self._publish_request(conn, request, message.id))

    def _tournament_decision(self, d: MR.AnyDecision, fan_out: bool) -> None:
        entry = self.tournaments.apply(d)
        if entry is None or not fan_out:
            return
        player, request_id = getattr(d, "player_id", ""), getattr(d, "request_id", "")
        for account in self.tournaments.watchers(entry) | ({player} - {""}):
            state = entry.state(account, self._client_id(account, request_id)
                                if account == player else None)
            for conn in list(self.books.accounts.get(account, ())):
                conn.send(state)

    def _tournament_refused(self, d: MR.Refused, fan_out: bool) -> bool:
        """A refused registration answered as an `error` under the client's id."""
        if self.tournaments.refused(d) is None:
            return False
        if fan_out:
            reply = W.refuse(d.code, d.message, self._client_id(d.player_id, d.request_id))
            for conn in list(self.books.accounts.get(d.player_id, ())):
                conn.send(reply)
        return True

    async def _publish_request(self, conn: Connection, request: MR.AnyRequest,
                               client_id: str) -> None:
        assert self.producer is not None
        try:
            await self.producer.send(self.matchmaking, MR.encode(request),
                                     key=request.house.encode())
        except Exception as exc:  # any producer failure: the client must hear of it
            log.warning("publish_failed", error=repr(exc))
            self._refuse(conn, "unavailable", f"request not published: {exc}", client_id)

    async def _unfinished_tournaments(self, partitions: int) -> int | None:
        """Every tournament not finished, from the tournaments topic read whole (each one
        listed); the time (ms) the decisions must be re-read from to fold them, or None."""
        index = Index()
        found = await read_partition_records(
            self.settings.bootstrap, {(self.tournaments_topic, p): 0 for p in range(partitions)})
        for (topic, partition), records in found.items():
            for offset, key, value in records:
                if value is None and key:  # a tombstone: the tournament has finished
                    index.apply(key, None)
                else:
                    self.dead.apply(Record(topic, partition, offset, key, value),
                                    lambda r: index.apply(r.key, r.value))
        await self.dead.flush()
        for d in index.schedules.values():
            self.tournaments.apply(d)
        log.info("tournaments_read", unfinished=len(index.schedules))
        return index.reread_from()

    async def _recent_decisions(self, consumer: AIOKafkaConsumer,
                                decided: list[TopicPartition], since: int | None) -> None:
        """The waits still open, from the last `recent_decisions` decisions of each
        partition (a wait older than those is not shown after a gateway restart), and
        every unfinished tournament's, from `since` (ms) on."""
        ends = await consumer.end_offsets(decided)
        starts = {tp: max(0, ends[tp] - self.settings.recent_decisions) for tp in decided}
        if since is not None:
            at = await consumer.offsets_for_times(dict.fromkeys(decided, since))
            for tp, found in at.items():
                starts[tp] = min(starts[tp], ends[tp] if found is None else found.offset)
        for tp in decided:
            consumer.seek(tp, starts[tp])
        pending = {tp for tp in decided if ends[tp] > starts[tp]}
        while pending:
            batch = await consumer.getmany(*pending, timeout_ms=500, max_records=5000)
            for records in batch.values():
                for record in records:
                    with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                        self._decision(record.value, fan_out=False)
            for tp in list(pending):
                if await consumer.position(tp) >= ends[tp]:
                    pending.discard(tp)

    def _decision_record(self, record: Any) -> None:
        self._decision(record.value, fan_out=True)

    def _decision(self, value: bytes | None, fan_out: bool) -> None:
        """A matchmaker decision about a player: their wait state kept, and sent to their
        connections; raises for a record that is no decision."""
        if value is None:
            return
        d = MR.decision_decoder.decode(value)
        if isinstance(d, MR.Refused) and self._tournament_refused(d, fan_out):
            return
        self._tournament_decision(d, fan_out)
        states: list[tuple[str, W.QuickPlayState]] = []
        match d:
            case MR.Waiting():
                states.append((d.player_id, W.QuickPlayState(
                    id=self._client_id(d.player_id, d.request_id), house=d.house,
                    hall=d.hall, status="waiting", since=d.at)))
            case MR.Cancelled():
                states.append((d.player_id, W.QuickPlayState(
                    id=self._client_id(d.player_id, d.request_id), house=d.house,
                    hall=d.hall, status="cancelled", since=d.at)))
            case MR.Refused() if d.player_id:
                states.append((d.player_id, W.QuickPlayState(
                    id=self._client_id(d.player_id, d.request_id), house=d.house,
                    status="refused", code=d.code, message=d.message, since=d.at)))
            case MR.Seated():
                states += [(seat.player_id, W.QuickPlayState(
                    id=self._client_id(seat.player_id, seat.request_id), house=d.house,
                    hall=d.hall, status="seated", table_id=d.table_id, seat=n, since=d.at))
                    for n, seat in enumerate(d.seats) if not seat.bot]
        for player, state in states:
            key = (player, state.house)
            if state.status == "waiting":
                self.quick[key] = state
            elif state.status != "refused":
                self.quick.pop(key, None)
            if fan_out:
                for conn in list(self.books.accounts.get(player, ())):
                    conn.send(state)

    @staticmethod
    def _client_id(player: str, request_id: str) -> str | None:
        head = f"{player}/"
        return request_id[len(head):] if request_id.startswith(head) else None

    # ------------------------------------------------------------ HTTP
    def web_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024, middlewares=[json_errors])
        app.router.add_get("/", self.index)
        app.router.add_get("/ws", self.websocket)
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/api/tables", self.tables)
        app.router.add_get("/api/houses", self.houses)
        app.router.add_post("/api/solve", self.solve)
        app.router.add_post("/api/guest", self.guest)
        app.router.add_get("/api/me/standing", self.my_standing)
        app.router.add_get("/api/me/match", self.my_match)
        app.router.add_post("/api/score", self.score)
        app.router.add_static("/static/", STATIC)
        return app

    async def index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html")

    async def healthz(self, request: web.Request) -> web.Response:
        return web.json_response({"ready": self.ready.is_set(),
                                  "connections": len(self.books.everyone()),
                                  "tables": len(self.cache.tables)})

    async def tables(self, request: web.Request) -> web.Response:
        house = request.query.get("house") or None
        return web.Response(body=W.encode(W.Tables(tables=self.cache.lobby(house))),
                            content_type="application/json")

    async def houses(self, request: web.Request) -> web.Response:
        """Every house's rules as defaults for the lobby's form (proto/houses.json)."""
        return web.Response(body=msgspec.json.encode(profiles.HOUSES),
                            content_type="application/json")

    async def guest(self, request: web.Request) -> web.Response:
        """A token for a guest name: only where the operator allows it (the demo)."""
        if not self.settings.guest_login:
            raise web.HTTPNotFound()
        body = await json_body(request)
        name = body.get("name", "")
        if not isinstance(name, str):
            raise MalformedInput("name must be a string")
        player_id = names.account_id(name, secrets.token_bytes(3))
        ttl = min(identity.MAX_LIFETIME, self.settings.token_max_seconds)
        token = identity.mint(self.settings.secret, player_id, int(time.time()), ttl, ttl)
        return web.json_response({"player_id": player_id, "token": token})

    async def my_standing(self, request: web.Request) -> web.Response:
        """The token's account in a house: read from the leaderboards (services/gateway/
        standing.py)."""
        return await standing.answer(request, self.settings.secret,
                                     self.settings.token_max_seconds,
                                     self.settings.leaderboards_url)

    async def my_match(self, request: web.Request) -> web.Response:
        """What a finished match moved for the token's account (the end-of-match sheet)."""
        return await standing.match_moved(request, self.settings.secret,
                                          self.settings.token_max_seconds,
                                          self.settings.leaderboards_url)

    async def score(self, request: web.Request) -> web.Response:
        """The end-of-hand sheet's breakdown: rack, multiplier, okey surcharge by seat."""
        try:
            answer = sheet.score(await json_body(request))
        except MalformedInput as exc:
            return _problem(400, "malformed", str(exc))
        except IllegalMove as exc:
            return _problem(400, exc.code, exc.message)
        return web.Response(body=msgspec.json.encode(answer), content_type="application/json")

    async def solve(self, request: web.Request) -> web.Response:
        """The rack helpers: `arrange` (sırala), `opening` (Otomatik Seri Aç), `pairs`
        (Otomatik Çift Aç). The token comes in the Authorization header."""
        header = request.headers.get("Authorization", "")
        try:
            player_id = identity.verify(self.settings.secret,
                                        header.removeprefix("Bearer ").strip(), int(time.time()),
                                        self.settings.token_max_seconds)
        except identity.TokenRefused as exc:
            return _problem(401, exc.code, exc.message)
        bucket = self.solve_buckets.setdefault(player_id, TokenBucket(5, 10, self.clock()))
        if not bucket.take(self.clock()):
            return _problem(429, "rate_limited", "at most 5 solves a second")
        try:
            answer = _solve(await json_body(request))
        except MalformedInput as exc:  # counted among the gateway's refusals
            return _problem(400, "malformed", str(exc))
        return web.json_response(answer)


def _solve(body: dict[str, Any]) -> dict[str, Any]:
    try:
        asked = msgspec.convert(body, H.SolveRequest)
    except msgspec.ValidationError as exc:
        raise MalformedInput(f"solve: {exc}") from exc
    profile = profiles.resolve({"base": asked.house, "options": asked.options})
    rack = solve.rack_of(profile, asked.rack)
    okey = tiles.parse_at([asked.okey], "okey")[0]
    answer: dict[str, Any] = msgspec.to_builtins(solve.helped(asked.kind, profile, rack, okey))
    return answer


def _problem(status: int, code: str, message: str) -> web.Response:
    metrics.REFUSED.labels(code).inc()
    return web.json_response({"code": code, "message": message, "error": message},
                             status=status)
