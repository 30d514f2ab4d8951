"""The bots service's Kafka shell around the pure policies in `okey101.bots`.

It reads the player-views topic, as the gateways do: each message is one seat's
`PlayerView` (the seat's own rack and the public table), so a bot cannot see the deck or
another rack by construction. Of each poll it keeps the newest update of each (table, seat)
and skips any version it already holds (`ActedOn`); it follows only the bot seats' views
and the spectators' (a person's seat is skipped on its head), each whole view then its
patches (`table.viewpatch.ViewFollower`), and rebuilds a seat's view from its patches once
a poll, for the newest.
When a bot seat is to act it publishes the policy's command to the commands topic, keyed by
table, with the view's seq and a command id made of (table, seat, seq): a restarted service
that acts again on the same view gets the original outcome back (duplicate detection).
A spectators' view (seat -1) with an empty seat, where the view says a bot may sit
(`bots_may_sit`: the house has bots and, in a private room of north-sultan, the owner asked
for them), gets a `replace_with_bot` for that seat.

Which seats are bots, and at which level, is the server's record: the views service
publishes it beside a bot seat's view (`PlayerUpdate.bot` and `bot_level`), never in it,
and a gateway forwards only the view and the events, so no person is sent it.
A bot's player id is minted like any account's (`mint_id`), so nothing a player sees tells
it from a person where the house does not label bots (RULES.md section 11). `--level` is
the level of the seats this service fills, and of bot seats recorded without one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import secrets
import time
from collections.abc import Callable
from typing import Any

import msgspec
import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import KafkaError

from okey101 import bots, names
from okey101.app import topics
from okey101.bots.memory import ActedOn
from okey101.table import messages as E
from okey101.table.viewpatch import ViewFollower, decode_update
from okey101.table.views import PlayerUpdate, PlayerView
from services.bots import metrics
from services.bots.settings import BotsSettings
from services.common.deadletters import DeadLetters
from services.common.kafka import client_security, provision, record_lag
from services.common.lifecycle import Lifecycle

log = structlog.get_logger("bots")


def mint_id() -> str:
    """A new bot's player id: random, shaped like a guest's id (a first name and a suffix,
    `okey101.names`), saying nothing of a bot."""
    return names.bot_id(secrets.token_bytes(8))


class Bots(Lifecycle):
    def __init__(self, bootstrap: str, prefix: str = "okey", group: str = "okey-bots",
                 level: int = 2, think: float = 0.0, fill_seats: bool = True,
                 new_id: Callable[[], str] = mint_id, level4_budget: float = 0.035,
                 level4_playouts: int = 200) -> None:
        self.bootstrap = bootstrap
        self.prefix = prefix
        self.group = group
        self.level = level
        self.think = think
        self.fill_seats = fill_seats
        self.new_id = new_id
        self.level3 = bots.Level3()
        # the search's budget is this process's CPU time: the shell's clock (the pure code
        # reads none), capped at 200 ms by the settings, far inside any turn's time
        self.level4 = bots.Level4(playouts=level4_playouts, clock=time.process_time,
                                  budget=level4_budget)
        self.policies: dict[int, Callable[[PlayerView], E.Command]] = {
            0: bots.level0, 1: bots.level1, 2: bots.level2, 3: self.level3, 4: self.level4}
        self.acted = ActedOn()  # per live table: the seq each seat acted on
        self.follower = ViewFollower()  # the bot seats' and the spectators' views
        self.dead = DeadLetters("bots", prefix)
        self.consumer: AIOKafkaConsumer | None = None
        self.producer: AIOKafkaProducer | None = None
        super().__init__()

    @classmethod
    def from_settings(cls, settings: BotsSettings) -> Bots:
        return cls(settings.bootstrap, prefix=settings.prefix, group=settings.group,
                   level=settings.level, think=settings.think_ms / 1000,
                   fill_seats=settings.fill_seats,
                   level4_budget=settings.level4_budget_ms / 1000,
                   level4_playouts=settings.level4_playouts)

    def not_ready(self) -> str | None:
        assert self.consumer is not None
        return None if self.consumer.assignment() else "no player-views partition assigned"

    async def connect(self) -> None:
        """The topics provisioned, the consumer and the producer started (closed again on
        failure)."""
        await provision(self.bootstrap, self.prefix)
        consumer = AIOKafkaConsumer(
            topics.PLAYER_VIEWS.name(self.prefix), bootstrap_servers=self.bootstrap,
            group_id=self.group, isolation_level="read_committed",
            auto_offset_reset="earliest", fetch_max_wait_ms=20, **client_security())
        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, enable_idempotence=True,
                                    acks="all", linger_ms=1, **client_security())
        try:
            await consumer.start()
            await producer.start()
        except BaseException:
            await _close_quietly(consumer, producer)
            raise
        self.consumer, self.producer = consumer, producer
        self.dead.producer = producer
        log.info("bots_started", group=self.group, prefix=self.prefix, bot_level=self.level)

    async def run(self) -> None:
        if self.consumer is None:
            await self.connect()
        consumer, producer = self.consumer, self.producer
        assert consumer is not None and producer is not None
        views = topics.PLAYER_VIEWS.name(self.prefix)
        try:
            while not self.is_stopping:
                self.beat()
                batches = await consumer.getmany(timeout_ms=200, max_records=500)
                await record_lag(consumer, views)
                moved: dict[tuple[str, int], Any] = {}  # each seat's newest record
                for records in batches.values():
                    for record in records:
                        key = self.dead.apply(record, self._keep)
                        if key is not None:
                            moved[key] = record
                wanted: list[tuple[PlayerUpdate, Any]] = []
                for key, record in moved.items():  # the newest view of each seat counts
                    update = self.dead.apply(record, functools.partial(self._current, key))
                    if update is not None and self.wants(_envelope(update)):
                        wanted.append((update, record))
                metrics.VIEWS.inc(len(wanted))
                for update, record in wanted:
                    command = self.dead.apply(record, functools.partial(self._respond, update))
                    if command is not None:
                        if self.think:
                            await asyncio.sleep(self.think)
                        await producer.send(topics.COMMANDS.name(self.prefix),
                                            E.encode(command), key=command.table_id.encode())
                await self.dead.flush()
        finally:
            await _close_quietly(consumer, producer)
            log.info("bots_stopped", level4_searched=self.level4.searched,
                     level4_overruled=self.level4.overruled)

    def wants(self, head: Envelope) -> bool:
        """Whether an update may call for a command: a bot seat's while it is to act, or
        the spectators' of a table with an empty seat (to fill it), of a version not acted
        on yet; and any update showing a finished match (its table leaves memory)."""
        if head.status == "over":
            return not self.acted.is_finished(head.table_id)
        if head.seat < 0:
            return self.fill_seats and "" in head.players and \
                not self.acted.holds(head.table_id, head.seat, head.version)
        return head.bot and head.to_act == head.seat and \
            not self.acted.holds(head.table_id, head.seat, head.version)

    def _keep(self, record: Any) -> tuple[str, int] | None:
        """A record followed (`ViewFollower`) when it may call for a command: a bot seat's
        or the spectators' (people's seats are never played here, and skipped undecoded
        but for their head); its seat, or None when it moved no view on."""
        head = _decode_head(record.value)
        if head.seat >= 0 and not head.bot:
            return None
        update = decode_update(record.value)
        return (update.table_id, update.seat) if self.follower.keep(update) else None

    def _current(self, key: tuple[str, int], record: Any) -> PlayerUpdate | None:
        return self.follower.current(*key)

    def _respond(self, update: PlayerUpdate, record: Any) -> E.Command | None:
        return self.respond(update)

    def respond(self, update: PlayerUpdate) -> E.Command | None:
        """The command a view calls for, if any (pure apart from the acted-on memory)."""
        view = update.view
        if view.status == "over":  # the table leaves memory (issue 13)
            self.follower.forget(view.table_id)
            if self.acted.finish(view.table_id):
                self.level3.forget(view.table_id)
                self.level4.forget(view.table_id)
            return None
        if update.seat < 0:
            return self._fill(view) if self.fill_seats else None
        if not update.bot:  # a person's seat
            return None
        hand = view.hand
        if view.status != "playing" or hand is None or hand.phase == "over" or \
                hand.to_act != update.seat:
            return None
        if not self.acted.first(view.table_id, update.seat, view.seq):
            return None
        level = update.bot_level if update.bot_level in self.policies else self.level
        started = time.perf_counter()
        intent = self.policies[level](view)
        metrics.DECISION.observe(time.perf_counter() - started)
        command = msgspec.structs.replace(
            intent, table_id=view.table_id, seat=update.seat, seq=view.seq,
            player_id=view.players[update.seat],
            command_id=f"bot-{view.table_id}-{update.seat}-{view.seq}")  # server-side only
        metrics.COMMANDS.labels(str(level), type(command).__struct_config__.tag).inc()
        return command

    def _fill(self, view: PlayerView) -> E.Command | None:
        if not view.bots_may_sit:
            return None
        empty = [seat for seat, player in enumerate(view.players) if not player]
        if not empty:
            return None
        seat = empty[0]
        if not self.acted.first(view.table_id, -1, view.seq):
            return None
        metrics.SEATS_FILLED.inc()
        return E.ReplaceWithBot(table_id=view.table_id, seq=view.seq, seat=seat,
                                command_id=f"fill-{view.table_id}-{seat}-{view.seq}",
                                bot_id=self.new_id(), bot_level=self.level)


async def _close_quietly(consumer: AIOKafkaConsumer, producer: AIOKafkaProducer) -> None:
    for client in (producer, consumer):
        with contextlib.suppress(KafkaError, OSError, TimeoutError):
            await asyncio.wait_for(client.stop(), 10)


class _Head(msgspec.Struct, frozen=True):
    seat: int
    bot: bool = False


_decode_head = msgspec.json.Decoder(_Head).decode


class Envelope(msgspec.Struct, frozen=True):
    """What the bots service reads of an update to decide whether it calls for a command."""

    table_id: str
    seat: int
    version: int
    status: str
    players: list[str]
    bot: bool = False
    to_act: int = -1  # the seat to act in a hand being played; -1: none


def _envelope(update: PlayerUpdate) -> Envelope:
    view, hand = update.view, update.view.hand
    playing = view.status == "playing" and hand is not None and hand.phase != "over"
    return Envelope(update.table_id, update.seat, update.version, view.status,
                    view.players, update.bot,
                    hand.to_act if playing and hand is not None else -1)
