"""The leaderboards service on the real broker: rebuild equals live, kill -9 included; bad
input counted and logged with its offset, never a crash, never a double count."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from typing import Any

import msgspec

from okey101.app import topics
from okey101.standings import Ledger
from services.cli.standings import fold_events
from services.common.kafka import provision
from services.common.ports import free_port
from services.leaderboards.reading import read_records
from tests.kafka.support import ProcessorProcess, fresh_tag
from tools.standings_feed import interleave, population, publish


class LeaderboardsProcess(ProcessorProcess):
    """`python -m services.leaderboards` in a subprocess, as production runs it (the
    shared starter), its HTTP reads on a free port."""

    SERVICE = "leaderboards"

    def __init__(self, bootstrap: str, prefix: str, name: str) -> None:
        self.port_http = free_port()
        super().__init__(bootstrap, prefix, f"{prefix}-{name}", name)

    def arguments(self, name: str) -> list[str]:
        return ["--http-port", str(self.port_http)]

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port_http}{path}", timeout=5) as r:
            return json.loads(r.read())

    async def until(self, matches: int, timeout: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        health: dict[str, Any] = {}
        while time.monotonic() < deadline:
            assert self.proc is not None and self.proc.poll() is None, self.tail()
            try:
                health = await asyncio.to_thread(self.get, "/healthz")
                if health["ready"] and health["matches"] >= matches:
                    return health
            except OSError:
                pass
            await asyncio.sleep(0.2)
        raise AssertionError(f"not {matches} matches in {timeout}s: {health}\n{self.tail()}")

    def tail(self, lines: int = 20) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def boards_over_http(service: LeaderboardsProcess, ledger: Ledger) -> tuple[Any, Any]:
    """(every house's whole board and every page, from the service; the same from the fold)."""
    served, folded = {}, {}
    for house in ledger.board.rules:
        served[house] = service.get(f"/houses/{house}/board?top=1000&bots=1")["rows"]
        folded[house] = msgspec.to_builtins(ledger.board.top(house, 1000, with_bots=True))
    for house, account in sorted(ledger.board.standings):
        served[f"{house}/{account}"] = service.get(f"/houses/{house}/accounts/{account}")
        page = ledger.board.page(house, account)
        week = served[f"{house}/{account}"]["week"]  # the service's clock's week
        folded[f"{house}/{account}"] = json.loads(msgspec.json.encode(
            {"house": house, "account": account, **(page or {}),
             "place": ledger.board.place(house, account), "week": week,
             "league_place": ledger.board.place(house, account, week)}))
    return served, folded


async def published(bootstrap: str, prefix: str) -> dict[bytes, list[bytes]]:
    topic = topics.STANDINGS.name(prefix)
    read = await read_records(bootstrap, [(topic, p) for p in range(topics.PARTITIONS)])
    out: dict[bytes, list[bytes]] = {}
    for records in read.values():
        for r in records:
            out.setdefault(r.key, []).append(r.value)
    return out


async def test_rebuild_equals_live_after_kill_9_of_the_live_instance_mid_load(
        kafka_bootstrap: str) -> None:
    prefix = f"lb{fresh_tag()}"
    await provision(kafka_bootstrap, prefix)
    tables = population(seed=5, matches=400, accounts=30)
    records = interleave(tables)
    live = LeaderboardsProcess(kafka_bootstrap, prefix, "live")
    live.start()
    try:
        await live.until(0)
        load = asyncio.create_task(publish(kafka_bootstrap, topics.EVENTS.name(prefix),
                                           records, rate=600, aborted_every=4))
        await live.until(60)
        live.kill()  # mid-load: the publisher keeps going
        assert not load.done()
        live.start()
        await load
        health = await live.until(400)
        assert health["matches"] == 400  # never a phantom (aborted) match, never one twice
        assert health["bad_input"] == {}
        ledger = await fold_events(kafka_bootstrap, prefix)  # a fresh rebuild, in process
        assert ledger.counts["matches"] == 400
        served, folded = await asyncio.to_thread(boards_over_http, live, ledger)
        assert served == folded
        topic = await published(kafka_bootstrap, prefix)
        last = {key: values[-1] for key, values in topic.items()}
        assert last == {f"{h}/{a}".encode(): msgspec.json.encode(s)
                        for (h, a), s in ledger.board.standings.items()}
    finally:
        live.stop()
    restarted = LeaderboardsProcess(kafka_bootstrap, prefix, "again")
    restarted.start()
    try:
        await restarted.until(400)
        again = await published(kafka_bootstrap, prefix)
        assert again == topic  # a restart with nothing new writes nothing
    finally:
        restarted.stop()


async def test_bad_input_is_counted_and_logged_with_its_offset_never_a_crash(
        kafka_bootstrap: str) -> None:
    prefix = f"lb{fresh_tag()}"
    partitions = await provision(kafka_bootstrap, prefix)
    events = topics.EVENTS.name(prefix)
    good = population(seed=9, matches=8, accounts=6)
    replayed = good[0]  # the whole table once more, later
    unknown_house = population(seed=10, matches=1, prefix="u")[0]
    created = msgspec.json.decode(unknown_house[0])
    created["profile"]["id"] = "elsewhere"
    unknown_house[0] = msgspec.json.encode(created)
    empty_account = population(seed=11, matches=1, prefix="e")[0]
    sat = msgspec.json.decode(empty_account[1])
    sat["player_id"] = ""
    empty_account[1] = msgspec.json.encode(sat)
    records = [*interleave(good), *interleave([replayed]), *interleave([unknown_house]),
               *interleave([empty_account]), ("garbage", b"{not json"),
               ("nobody", b'{"type":"match_ended","table_id":"nobody","seq":9,"totals":[],'
                          b'"places":[]}')]
    service = LeaderboardsProcess(kafka_bootstrap, prefix, "bad")
    service.start()
    try:
        await publish(kafka_bootstrap, events, records)
        await service.until(9)  # 8 good and the one with an empty account
        await asyncio.sleep(0.5)  # the last records (garbage, an unknown table) too
        health = await asyncio.to_thread(service.get, "/healthz")
        assert health["matches"] == 9
        assert health["bad_input"] == {"unknown_house": 1, "bad_account": 1, "undecodable": 1,
                                       "unknown_table": 1}
        assert health["duplicates"]["duplicate_match"] == 1
        ledger = await fold_events(kafka_bootstrap, prefix)
        served, folded = await asyncio.to_thread(boards_over_http, service, ledger)
        assert served == folded
        first = [msgspec.json.decode(v) for v in replayed]
        house = first[0]["profile"]["id"]
        for sat in (e for e in first if e["type"] == "player_sat"):
            page = await asyncio.to_thread(
                service.get, f"/houses/{house}/accounts/{sat['player_id']}")
            assert [h["table_id"] for h in page["history"]].count("t0") == 1
        logged = [entry for entry in map(json.loads, service.log.read_text().splitlines())
                  if entry.get("event") == "bad_input"]
        garbage = [entry for entry in logged if entry["kind"] == "undecodable"]
        assert len(garbage) == 1 and 0 <= garbage[0]["partition"] < partitions
        assert garbage[0]["offset"] >= 0
        assert service.proc is not None and service.proc.poll() is None
    finally:
        service.stop()
