"""The bots service's Kafka shell around the pure policies in `okey101.bots`.

It reads ONLY the seat-views topic: each message is one seat's `PlayerView` (the seat's own
rack and the public table), so a bot cannot see the deck or another rack by construction.
When a bot seat is to act it publishes the policy's command to the commands topic, keyed by
table, with the view's seq and a command id made of (table, seat, seq): a restarted service
that acts again on the same view gets the original outcome back (duplicate detection).
A spectators' view (seat -1) with an empty seat, at a table whose house allows bots, gets a
`replace_with_bot` for that seat.

A bot's level is in its player id (``bot-l3-...``); `--level` is the default for the seats
this service fills.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable

import msgspec
import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from okey101 import bots
from okey101.app import topics
from okey101.table import messages as E
from okey101.table.views import PlayerView, ViewUpdate, view_update_decoder
from services.bots import metrics
from services.common.kafka import client_security, provision

log = structlog.get_logger("bots")
_LEVEL = re.compile(r"^bot-l([123])-")


def bot_id(level: int, table_id: str, seat: int) -> str:
    return f"bot-l{level}-{table_id}-{seat}"


def level_of(player_id: str, default: int) -> int:
    match = _LEVEL.match(player_id)
    return int(match.group(1)) if match else default


class Bots:
    def __init__(self, bootstrap: str, prefix: str = "okey", group: str = "okey-bots",
                 level: int = 2, think: float = 0.0, fill_seats: bool = True) -> None:
        self.bootstrap = bootstrap
        self.prefix = prefix
        self.group = group
        self.level = level
        self.think = think
        self.fill_seats = fill_seats
        self.policies: dict[int, Callable[[PlayerView], E.Command]] = {
            1: bots.level1, 2: bots.level2, 3: bots.Level3()}
        self.acted: dict[tuple[str, int], int] = {}  # (table, seat) -> the seq acted on
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        await provision(self.bootstrap, self.prefix)
        consumer = AIOKafkaConsumer(
            topics.SEAT_VIEWS.name(self.prefix), bootstrap_servers=self.bootstrap,
            group_id=self.group, isolation_level="read_committed",
            auto_offset_reset="earliest", fetch_max_wait_ms=20, **client_security())
        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, enable_idempotence=True,
                                    acks="all", linger_ms=1, **client_security())
        await consumer.start()
        await producer.start()
        log.info("bots_started", group=self.group, prefix=self.prefix, level=self.level)
        try:
            while not self._stopping.is_set():
                batches = await consumer.getmany(timeout_ms=200, max_records=500)
                latest: dict[tuple[str, int], ViewUpdate] = {}
                for records in batches.values():
                    for record in records:
                        try:
                            update = view_update_decoder.decode(record.value)
                        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                            log.warning("bad_view", error=str(exc))
                            continue
                        latest[(update.table_id, update.seat)] = update
                for update in latest.values():  # only the newest view of each seat counts
                    command = self.respond(update)
                    if command is not None:
                        if self.think:
                            await asyncio.sleep(self.think)
                        await producer.send(topics.COMMANDS.name(self.prefix),
                                            E.encode(command), key=command.table_id.encode())
        finally:
            await producer.stop()
            await consumer.stop()

    def respond(self, update: ViewUpdate) -> E.Command | None:
        """The command a view calls for, if any (pure apart from the acted-on memory)."""
        view = update.view
        if update.seat < 0:
            return self._fill(view) if self.fill_seats else None
        hand = view.hand
        if view.status != "playing" or hand is None or hand.phase == "over" or \
                hand.to_act != update.seat:
            return None
        key = (view.table_id, update.seat)
        if self.acted.get(key, -1) >= view.seq:
            return None
        self.acted[key] = view.seq
        level = level_of(view.players[update.seat], self.level)
        started = time.perf_counter()
        intent = self.policies[level](view)
        metrics.DECISION.observe(time.perf_counter() - started)
        command = msgspec.structs.replace(
            intent, table_id=view.table_id, seat=update.seat, seq=view.seq,
            player_id=view.players[update.seat],
            command_id=f"bot-{view.table_id}-{update.seat}-{view.seq}")
        metrics.COMMANDS.labels(str(level), type(command).__struct_config__.tag).inc()
        return command

    def _fill(self, view: PlayerView) -> E.Command | None:
        if view.profile is None or not view.profile.bots_allowed:
            return None
        empty = [seat for seat, player in enumerate(view.players) if not player]
        if not empty:
            return None
        seat = empty[0]
        key = (view.table_id, -1)
        if self.acted.get(key, -1) >= view.seq:
            return None
        self.acted[key] = view.seq
        metrics.SEATS_FILLED.inc()
        return E.ReplaceWithBot(table_id=view.table_id, seq=view.seq, seat=seat,
                                command_id=f"fill-{view.table_id}-{seat}-{view.seq}",
                                bot_id=bot_id(self.level, view.table_id, seat))
