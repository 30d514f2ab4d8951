"""`okey101 tournament schedule|list|cancel`: an operator's tournaments, through the
matchmaker's topics.

schedule  checks the schedule (okey101.app.tournament_operator: the house's rules, a start
          in the future, an id the house has not scheduled, against the decisions of the
          house's partition of `okey.matchmaker`), writes a `schedule_tournament` request to
          `okey.matchmaking` keyed by the house, and waits (--wait s) for the matchmaker's
          answer: exit 0 scheduled, 1 refused or no answer.
list      every tournament the decisions topic tells of (read from its start, folded with
          the gateway's board), open ones first; --json: one object a line.
cancel    checks that the tournament is open or running, writes `cancel_tournament`, waits
          for the answer as schedule does.

Bad arguments (or a broker that cannot be reached) get one line on stderr and exit 2, and
nothing is written. Credentials: OKEY_KAFKA_* as the services.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

import msgspec
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import KafkaError

from okey101.app import topics
from okey101.app import tournament_operator as operator
from okey101.app.gateway.tournaments import TournamentBoard
from okey101.app.matchmaker import records as R
from okey101.errors import InfrastructureFault
from services.common.kafka import (
    KafkaClientLog,
    admin_client,
    bootstrap_servers,
    client_security,
    fault_text,
    read_partition_records,
)


class _OneLine(argparse.ArgumentParser):
    """An argument argparse cannot parse (`--size abc`) gets one line too, not the usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def register(commands: Any) -> None:
    parser = commands.add_parser("tournament", help="schedule, list or cancel tournaments",
                                 description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", required=True, parser_class=_OneLine)
    schedule = actions.add_parser("schedule", help="schedule a tournament")
    schedule.add_argument("--house", required=True)
    schedule.add_argument("--id", required=True, dest="tournament_id")
    schedule.add_argument("--name", default="", help="(default: the id)")
    schedule.add_argument("--starts-at", required=True,
                          help="ms since the epoch, or ISO 8601 with a zone "
                               "(2026-12-11T20:00:00+03:00)")
    schedule.add_argument("--size", type=int, default=64, help="at most this many entrants")
    schedule.add_argument("--hands", type=int, default=0,
                          help="hands a match (default 0: the house's own)")
    schedule.add_argument("--fill-with-bots", action="store_true",
                          help="bots take the seats no entrant took, at the start")
    schedule.add_argument("--bot-level", type=int, default=1, help="0-3")
    schedule.set_defaults(run=_schedule)
    listing = actions.add_parser("list", help="the tournaments and their status")
    listing.add_argument("--house")
    listing.add_argument("--json", action="store_true", help="one JSON object a line")
    listing.set_defaults(run=_list)
    cancel = actions.add_parser("cancel", help="cancel an open or running tournament")
    cancel.add_argument("tournament_id", metavar="ID")
    cancel.add_argument("--house", required=True)
    cancel.add_argument("--reason", default="", help="(default: cancelled by an operator)")
    cancel.set_defaults(run=_cancel)
    for action in (schedule, listing, cancel):
        action.add_argument("--bootstrap", help="Kafka bootstrap servers (or KAFKA_BOOTSTRAP)")
        action.add_argument("--prefix", default="okey", help="topic name prefix")
    for action in (schedule, cancel):
        action.add_argument("--wait", type=float, default=30.0,
                            help="seconds to wait for the matchmaker's answer (0: do not)")


def now_ms() -> int:
    return int(time.time() * 1000)


def _request_id() -> str:
    return f"ops/{uuid.uuid4().hex[:16]}"


def _schedule(args: argparse.Namespace) -> int:
    now = now_ms()
    q = R.ScheduleTournament(
        request_id=_request_id(), house=args.house, at=now, tournament_id=args.tournament_id,
        name=args.name, starts_at=operator.parse_start(args.starts_at), size=args.size,
        hands=args.hands, fill_with_bots=args.fill_with_bots, bot_level=args.bot_level)
    operator.schedule(q, TournamentBoard(), now)  # the arguments, before Kafka is asked

    async def run(bootstrap: str) -> int:
        board, end = await _house_board(bootstrap, args.prefix, q.house)
        return await _send(bootstrap, args.prefix, operator.schedule(q, board, now_ms()),
                           end, args.wait)
    return _guarded(args, run)


def _cancel(args: argparse.Namespace) -> int:
    q = R.CancelTournament(request_id=_request_id(), house=args.house, at=now_ms(),
                           tournament_id=args.tournament_id, reason=args.reason)
    operator.check_house(q.house)  # before Kafka is asked

    async def run(bootstrap: str) -> int:
        board, end = await _house_board(bootstrap, args.prefix, q.house)
        return await _send(bootstrap, args.prefix, operator.cancel(q, board), end, args.wait)
    return _guarded(args, run)


def _list(args: argparse.Namespace) -> int:
    if args.house is not None:
        operator.check_house(args.house)  # before Kafka is asked

    async def run(bootstrap: str) -> int:
        name = topics.MATCHMAKER.name(args.prefix)
        partitions = await _partitions(bootstrap, name)
        board = await _board(bootstrap, {(name, p): 0 for p in partitions})
        found = operator.rows(board, args.house)
        if args.json:
            for row in found:
                print(msgspec.json.encode(row).decode())
        else:
            print(operator.render(found))
        return 0
    return _guarded(args, run)


def _guarded(args: argparse.Namespace, run: Callable[[str], Coroutine[Any, Any, int]]) -> int:
    bootstrap = bootstrap_servers(args.bootstrap)
    client_log = KafkaClientLog()  # keeps the client's own complaint, prints nothing
    logger = logging.getLogger("aiokafka")
    logger.addHandler(client_log)
    logger.propagate = False
    try:
        return asyncio.run(run(bootstrap))
    except (KafkaError, OSError) as exc:
        cause = f" ({client_log.last_error})" if client_log.last_error else ""
        raise InfrastructureFault(f"Kafka at {bootstrap}: {fault_text(exc)}{cause}") from None
    finally:
        logger.removeHandler(client_log)


async def _partitions(bootstrap: str, name: str) -> list[int]:
    admin = admin_client(bootstrap, request_timeout_ms=10000)
    await admin.start()
    try:
        described = await admin.describe_topics([name])
    finally:
        await admin.close()
    found = sorted(p["partition"] for d in described if not d["error_code"]
                   for p in d["partitions"])
    if not found:
        raise InfrastructureFault(f"topic {name!r} does not exist on {bootstrap} (the "
                                  "matchmaker creates it; or `okey101 topics create`)")
    return found


async def _board(bootstrap: str, starts: dict[tuple[str, int], int]) -> TournamentBoard:
    board = TournamentBoard()
    read = await read_partition_records(bootstrap, starts)
    for (name, partition), records in sorted(read.items()):
        for offset, _, value in records:
            if value is None:
                continue
            try:
                board.apply(R.decision_decoder.decode(value))
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                print(f"okey101 tournament: skipped {name}[{partition}]@{offset}: "
                      f"{str(exc)[:120]}", file=sys.stderr)
    return board


async def _house_board(bootstrap: str, prefix: str, house: str
                       ) -> tuple[TournamentBoard, tuple[str, int, int]]:
    """The house's tournaments, from its partition of the decisions topic, and where that
    partition ends now. The matchmaker writes a request's decisions to the partition of
    the same number as the request's (keyed by the house)."""
    name = topics.MATCHMAKER.name(prefix)
    await _partitions(bootstrap, name)
    requests = await _partitions(bootstrap, topics.MATCHMAKING.name(prefix))
    partition = topics.partition_for(house.encode(), len(requests))
    read = await read_partition_records(bootstrap, {(name, partition): 0})
    board = TournamentBoard()
    end = 0
    for offset, _, value in read[(name, partition)]:
        end = offset + 1
        if value is not None:
            try:
                board.apply(R.decision_decoder.decode(value))
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue
    return board, (name, partition, end)


async def _send(bootstrap: str, prefix: str, q: R.ScheduleTournament | R.CancelTournament,
                end: tuple[str, int, int], wait_s: float) -> int:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True,
                                acks="all", **client_security())
    await producer.start()
    try:
        await producer.send_and_wait(topics.MATCHMAKING.name(prefix), R.encode(q),
                                     key=q.house.encode())
    finally:
        await producer.stop()
    what = f"{type(q).__struct_config__.tag} {q.tournament_id} ({q.request_id})"
    if wait_s <= 0:
        print(f"sent {what}")
        return 0
    answer = await _answer(bootstrap, end, q.request_id, wait_s)
    if answer is None:
        print(f"sent {what}; the matchmaker has not answered within {wait_s:g} s "
              "(is it running?)", file=sys.stderr)
        return 1
    accepted, line = operator.answer(answer)
    print(line, file=sys.stdout if accepted else sys.stderr)
    return 0 if accepted else 1


async def _answer(bootstrap: str, end: tuple[str, int, int], request_id: str,
                  wait_s: float) -> R.AnyDecision | None:
    """The decision answering `request_id`, read from the house's partition past `end`."""
    name, partition, offset = end
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                isolation_level="read_committed", group_id=None,
                                **client_security())
    await consumer.start()
    try:
        tp = TopicPartition(name, partition)
        consumer.assign([tp])
        consumer.seek(tp, offset)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            batch = await consumer.getmany(tp, timeout_ms=500)
            for record in batch.get(tp, []):
                if record.value is None or request_id.encode() not in record.value:
                    continue
                try:
                    d = R.decision_decoder.decode(record.value)
                except (msgspec.DecodeError, msgspec.ValidationError):
                    continue
                if getattr(d, "request_id", "") == request_id:
                    return d
        return None
    finally:
        await consumer.stop()
