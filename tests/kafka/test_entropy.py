"""Players contribute entropy (proto/DEAL.md, deal version 2) end to end on a real broker,
with the real processor and timers services: people commit and reveal through the commands
topic, a seat that never reveals forfeits when the timers close the window, and the deal is
re-derived from the published values alone."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable

import msgspec

from okey101 import tiles
from okey101.app import topics
from okey101.table import deal as D
from okey101.table import messages as E
from okey101.table.decide import decide
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.table.views import event_for, public_event
from services.common.kafka import provision
from tests.kafka.support import ProcessorProcess, fresh_tag, publish
from tests.kafka.test_timers import Played, TimersProcess, played, read_log

SEEDING_SECONDS = 3
OPTIONS = {"seeding_seconds": SEEDING_SECONDS, "turn_seconds": None, "hands_per_match": 1}


class Gateway:
    """The commands a gateway would send for one table, each with the seq it expects: the
    engine decided in process with a stand-in match seed (the processor supplies the real
    one; the seeding's events are the same in number, so the seqs are too)."""

    def __init__(self, table: str, bots: tuple[bool, ...]) -> None:
        self.table = table
        self.seeds = [secrets.token_bytes(32) for _ in range(4)]  # each client's own
        self.state: TableState = NEW_TABLE
        self.commands: list[E.Command] = []
        self.send(E.CreateTable(table_id=table, command_id="create", profile="okey-oyna",
                                options=OPTIONS))
        for seat in range(4):
            self.send(E.Sit(table_id=table, command_id=f"sit{seat}", seat=seat,
                            player_id=f"{table}-p{seat}", bot=bots[seat]))
        start = E.StartMatch(table_id=table, command_id="start", seat=0,
                             player_id=f"{table}-p0")
        self.send(msgspec.structs.replace(start, seed="00" * 32), wire=start)

    def send(self, command: E.Command, wire: E.Command | None = None) -> None:
        command = msgspec.structs.replace(command, seq=self.state.seq)
        decision = decide(self.state, command)
        assert isinstance(decision, list), decision
        for event in decision:
            self.state = evolve(self.state, event)
        self.commands.append(msgspec.structs.replace(wire or command, seq=command.seq))

    def commit(self, seat: int) -> None:
        self.send(E.CommitSeed(table_id=self.table, command_id=f"commit{seat}", seat=seat,
                               player_id=f"{self.table}-p{seat}",
                               commitment=D.commitment(self.seeds[seat])))

    def reveal(self, seat: int) -> None:
        self.send(E.RevealSeed(table_id=self.table, command_id=f"reveal{seat}", seat=seat,
                               player_id=f"{self.table}-p{seat}",
                               client_seed=self.seeds[seat].hex()))


def timeouts_to_the_end(state: TableState) -> list[E.Command]:
    """The rest of the hand, every turn timed out, as decided in process from `state`."""
    out: list[E.Command] = []
    while state.status == "playing" and state.seeding is None:
        hand = state.hand
        assert hand is not None and hand.phase != "over"
        command = E.TimeOut(table_id=state.table_id, command_id=f"t{state.turn}-{state.seq}",
                            seat=hand.to_act, turn=state.turn, seq=state.seq)
        decision = decide(state, command)
        assert isinstance(decision, list), decision
        for event in decision:
            state = evolve(state, event)
        out.append(command)
    return out


async def until(bootstrap: str, prefix: str, table: str, condition: Callable[[Played], bool],
                seconds: float, *watched: ProcessorProcess) -> Played:
    deadline = time.monotonic() + seconds
    while not condition(got := await played(bootstrap, prefix, table)):
        if time.monotonic() > deadline:
            tails = "\n".join(f"--- {p.name}\n{p.tail()}" for p in watched)
            kinds = [type(e).__name__ for e in got.events]
            raise AssertionError(f"{table}: not within {seconds}s; events {kinds}\n{tails}")
        await asyncio.sleep(0.2)
    return got


def has(kind: type[E.Event]) -> Callable[[Played], bool]:
    return lambda got: any(isinstance(e, kind) for e in got.events)


def one(events: list[E.Event], kind: type[E.Event]) -> E.Event:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, (kind.__name__, found)
    return found[0]


async def test_people_commit_and_reveal_through_kafka_and_the_deal_re_derives(
        kafka_bootstrap: str) -> None:
    """okey-oyna with 3 s seeding windows. Table `v2`: three people and a bot; the people
    commit (the window closes at once: bots send nothing), seats 0 and 1 reveal, seat 2
    never does: the timers close the reveal window, seat 2 forfeits, and the hand is dealt
    from the processor's share and two client seeds. Table `quiet`: nobody commits; the
    timers close the commit window and the hand is dealt from the server's share alone.
    Table `bots`: four bots, dealt at once by version 1."""
    tag = fresh_tag()
    prefix = f"en{tag}"
    assert await provision(kafka_bootstrap, prefix) == topics.PARTITIONS
    v2 = Gateway(f"{prefix}-v2", (False, False, False, True))
    for seat in (0, 1, 2):
        v2.commit(seat)
    for seat in (0, 1):
        v2.reveal(seat)
    quiet = Gateway(f"{prefix}-quiet", (False,) * 4)
    bots = Gateway(f"{prefix}-bots", (True,) * 4)
    proc = ProcessorProcess(kafka_bootstrap, prefix, f"proc-{tag}")
    timers = TimersProcess(kafka_bootstrap, prefix, f"timers-{tag}")
    watched = (proc, timers)
    proc.start()
    timers.start()
    try:
        await publish(kafka_bootstrap, prefix, [*v2.commands, *quiet.commands, *bots.commands])
        got = await until(kafka_bootstrap, prefix, v2.table, has(E.HandStarted), 60, *watched)
        await publish(kafka_bootstrap, prefix, timeouts_to_the_end(got.state))
        got = await until(kafka_bootstrap, prefix, v2.table, has(E.HandEnded), 60, *watched)
        calm = await until(kafka_bootstrap, prefix, quiet.table, has(E.HandStarted), 60,
                           *watched)
        only_bots = await until(kafka_bootstrap, prefix, bots.table, has(E.HandStarted), 30,
                                *watched)
    finally:
        timers.terminate()
        proc.terminate()

    # --- table v2: the protocol as the record has it
    kinds = [type(e) for e in got.events]
    first = kinds.index(E.SeedingOpened)
    assert kinds[first:first + 10] == [
        E.SeedingOpened, E.SeedCommitted, E.SeedCommitted, E.SeedCommitted,
        E.SeedCommitsClosed, E.SeedRevealed, E.SeedRevealed, E.SeedForfeited,
        E.SeedingClosed, E.HandStarted]
    closes = one(got.events, E.SeedCommitsClosed)
    forfeit = one(got.events, E.SeedForfeited)
    assert isinstance(closes, E.SeedCommitsClosed) and isinstance(forfeit, E.SeedForfeited)
    assert (forfeit.seat, forfeit.reason) == (2, "not_revealed")
    assert forfeit.at >= closes.reveal_by, "the reveal window was closed early"
    outcomes = [E.outcome_decoder.decode(v)
                for _, v in await read_log(kafka_bootstrap, topics.OUTCOMES.name(prefix))]
    by_timers = [o for o in outcomes if o.command_id.startswith(f"seeding-{v2.table}-")]
    assert [o.accepted for o in by_timers if not o.duplicate] == [True], by_timers
    mine = [o for o in outcomes if o.command_id.startswith(("commit", "reveal"))]
    assert mine and all(o.accepted for o in mine), mine

    # --- re-derived from what was published (the spectators' events) and nothing else
    public = [e for e in (public_event(e) for e in got.events) if e is not None]
    opened = one(public, E.SeedingOpened)
    closed = one(public, E.SeedingClosed)
    started = one(public, E.HandStarted)
    ended = one(public, E.HandEnded)
    assert isinstance(opened, E.SeedingOpened) and isinstance(closed, E.SeedingClosed)
    assert isinstance(started, E.HandStarted) and isinstance(ended, E.HandEnded)
    commitments = {e.seat: e.commitment for e in public if isinstance(e, E.SeedCommitted)}
    for event in public:
        if isinstance(event, E.SeedRevealed):
            assert D.commitment(bytes.fromhex(event.client_seed)) == commitments[event.seat]
    assert closed.client_seeds == [v2.seeds[0].hex(), v2.seeds[1].hex(), "", ""]
    share = bytes.fromhex(ended.server_share)
    assert D.commitment(share) == opened.server_commitment
    seed = D.derived_seed(2, share, [bytes.fromhex(c) if c else None
                                     for c in closed.client_seeds])
    assert started.deal_version == 2 and D.commitment(seed) == started.commitment
    assert seed.hex() == ended.seed
    dealt = D.deal(seed, started.starter, D.Sizes(22, 21))
    assert tiles.name(dealt.indicator) == started.indicator
    # ... equal to what the server dealt, and to the rack each seat was sent
    truth = one(got.events, E.HandDealt)
    assert isinstance(truth, E.HandDealt)
    assert [tiles.names(r) for r in dealt.racks] == truth.racks
    # the rack each seat is sent: its own RackDealt, as that seat may see it (the views
    # service sends each seat the events through `event_for`)
    sent = {}
    for event in got.events:
        if isinstance(event, E.RackDealt):
            shown = event_for(event, event.seat)
            assert shown is not None and event_for(event, (event.seat + 1) % 4) is None
            sent[event.seat] = shown.tiles
    assert sent == {seat: tiles.names(dealt.racks[seat]) for seat in range(4)}
    # the share is the processor's: from its match seed, not the stand-in of the gateway
    seeded = one(got.events, E.MatchSeeded)
    assert isinstance(seeded, E.MatchSeeded) and seeded.seed != "00" * 32
    assert share == D.server_share(bytes.fromhex(seeded.seed), 1, 0)

    # --- table quiet: nobody committed; the timers closed the commit window
    assert not any(isinstance(e, E.SeedCommitted) for e in calm.events)
    quiet_closed = one(calm.events, E.SeedingClosed)
    quiet_opened = one(calm.events, E.SeedingOpened)
    assert isinstance(quiet_closed, E.SeedingClosed) and isinstance(quiet_opened, E.SeedingOpened)
    assert quiet_closed.client_seeds == [""] * 4 and quiet_closed.at >= quiet_opened.commit_by
    quiet_started = one(calm.events, E.HandStarted)
    assert isinstance(quiet_started, E.HandStarted) and quiet_started.deal_version == 2

    # --- table bots: no seeding at all
    assert not any(isinstance(e, E.SeedingOpened) for e in only_bots.events)
    bots_started = one(only_bots.events, E.HandStarted)
    assert isinstance(bots_started, E.HandStarted) and bots_started.deal_version == 1
