"""Benchmark: does the auditor find planted collusion, and only that?

    python -m tools.bench.audit [--pairs 4] [--shared 50] [--honest-matches 300] [--seed 1]

Accounts play whole okeygg matches in process (`okey101.simulate.play_match`), every
seat the level-2 bot. Planted among honest accounts, by kind, `--pairs` pairs (or accounts)
each, every pair sharing `--shared` matches with two honest accounts, seats drawn at random:
- feeders: the feeder, when the receiver sits next after it, discards a tile that makes a
  run or a group with two of the receiver's tiles (it sees the receiver's rack: collusion);
- soft players: the soft one never takes the partner's discard (draws instead);
- win traders: in alternate shared matches one of the pair never opens (keeps its opening,
  discarding instead), so that the other may win; each trader is also a deliberate loser;
- colluding teams: both feed each other (whichever sits before the other);
- bot-like timing: an account whose decisions take 1200 +- 60 ms (people: log-normal
  around 2.5 s, sigma 0.6); times are synthesised (the simulation has no clock).
The bias is a wrapper around the bot's command (`Biased`), never a fork of the bot code.
`--honest-matches` matches of four honest accounts add honest pairs with many shared
matches. Every event goes through `okey101.audit.auditor.Auditor` (hands verified too).

Recall: planted pairs (accounts) flagged with their kind, within their shared matches
(and how many shared matches each took). False positives: of the pairs not planted as any
kind (an honest account with a colluder is such a pair), or the accounts that colluded in
no way, with at least `collusion.MIN_MATCHES` shared matches, the share flagged with that
kind. Planted pairs (accounts) flagged with another kind than planted are counted apart (a
trader who never opens also never takes its partner's discards: soft play). A feeding flag
counts for a colluding team. Goal: recall >= 90% at <= 1% false positives.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import msgspec

from okey101 import tiles
from okey101.audit import collusion as C
from okey101.audit.auditor import Auditor
from okey101.audit.records import CollusionFlag, HandFailed, HandVerified
from okey101.bots import bot
from okey101.simulate import play_match
from okey101.table import messages as E
from okey101.table.state import TableState
from okey101.table.views import PlayerView
from okey101.terms import SEATS

PROFILE = {"base": "okeygg", "options": {"hands_per_match": 7}}
KINDS = ("feeding", "soft_play", "win_trading", "team", "deliberate_losing", "bot_timing")
HUMAN_MS = (math.log(2500), 0.6)  # log-normal think time of a person
MACHINE_MS = (1200.0, 60.0)  # normal think time of a bot-like account
PAUSE_MS = 40  # between an action's events and the next action of the same turn


# ---------------------------------------------------------------- biased players
class Table:
    """The latest full state, kept by the driver's observer: what colluders share."""

    def __init__(self) -> None:
        self.state: TableState | None = None

    def observe(self, before: TableState, command: E.Command, decision: object,
                after: TableState) -> None:
        self.state = after


@dataclass
class Biased:
    """The level-2 bot at `seat`, with a scripted bias (never a fork of the bot's code)."""

    seat: int
    table: Table
    feeds: int | None = None  # the seat it feeds when that seat sits next after it
    soft_to: int | None = None  # the seat whose discards it never takes
    never_open: bool = False  # keeps its openings (a deliberate loss)
    base: Callable[[PlayerView], E.Command] = field(default_factory=lambda: bot(2))

    def __call__(self, view: PlayerView) -> E.Command:
        command = self.base(view)
        if isinstance(command, E.TakeDiscard) and self.soft_to == (self.seat - 1) % SEATS:
            return E.Draw(table_id=view.table_id, command_id="")
        if self.never_open and isinstance(command, (E.Open, E.Lay)):
            return E.Discard(table_id=view.table_id, command_id="", tile=self._loose(view))
        if isinstance(command, E.Discard) and self.feeds == (self.seat + 1) % SEATS:
            fed = self._feed(view)
            if fed is not None:
                return E.Discard(table_id=view.table_id, command_id="", tile=fed)
        return command

    def _loose(self, view: PlayerView) -> str:
        hand = view.hand
        assert hand is not None
        okey = hand.okey
        rack = [t for t in view.rack if t != okey] or list(view.rack)
        return max(rack, key=lambda t: (t != "F", int(t[1:]) if t != "F" else 0))

    def _feed(self, view: PlayerView) -> str | None:
        state = self.table.state
        if state is None or state.hand is None:
            return None
        hand = state.hand
        receiver = hand.seats[(self.seat + 1) % SEATS].rack
        mine = hand.seats[self.seat].rack
        for t in mine:
            if t != hand.okey and C._fits(receiver, t, hand.okey):
                return tiles.name(t)
        return None


# ---------------------------------------------------------------- one match
@dataclass(frozen=True)
class Plan:
    table_id: str
    seed: str
    accounts: tuple[str, ...]  # by seat
    feeds: tuple[tuple[str, str], ...] = ()  # (feeder, receiver)
    soft: tuple[tuple[str, str], ...] = ()  # (soft one, partner)
    loser: str = ""  # never opens this match
    machines: tuple[str, ...] = ()
    start_ms: int = 0


def play(plan: Plan) -> bytes:
    """The match's events, accounts and synthesised times in place, as JSON lines."""
    table = Table()
    seat_of = {a: i for i, a in enumerate(plan.accounts)}
    players = []
    for seat, account in enumerate(plan.accounts):
        feeds = next((seat_of[r] for f, r in plan.feeds if f == account and r in seat_of), None)
        soft = next((seat_of[p] for s, p in plan.soft if s == account and p in seat_of), None)
        players.append(Biased(seat, table, feeds=feeds, soft_to=soft,
                              never_open=account == plan.loser))
    record = play_match(PROFILE, plan.seed, players, observer=table.observe)
    rng = random.Random(plan.seed)
    names = {f"p{i}": a for i, a in enumerate(plan.accounts)}
    out: list[E.Event] = []
    now, to_act = plan.start_ms, -1
    for e in record.events:
        seat = getattr(e, "seat", -1)
        if isinstance(e, (E.TileDrawn, E.DiscardTaken)) and seat != to_act:
            who = plan.accounts[seat]
            if who in plan.machines:
                now += max(200, int(rng.gauss(*MACHINE_MS)))
            else:
                now += int(rng.lognormvariate(*HUMAN_MS))
            to_act = seat
        elif isinstance(e, E.TileDiscarded):
            to_act = -1
            now += PAUSE_MS
        else:
            now += 1
        e = msgspec.structs.replace(e, table_id=plan.table_id, at=now)
        if isinstance(e, E.PlayerSat):
            e = msgspec.structs.replace(e, player_id=names[e.player_id])
        elif isinstance(e, E.MatchStarted):
            e = msgspec.structs.replace(e, players=[names[p] for p in e.players])
        elif isinstance(e, E.MatchEnded):
            e = msgspec.structs.replace(e, results=[msgspec.structs.replace(
                r, player_id=names.get(r.player_id, r.player_id)) for r in e.results])
        out.append(e)
    return b"\n".join(E.encode(e) for e in out)


# ---------------------------------------------------------------- the population
@dataclass
class Planted:
    kind: str
    players: tuple[str, ...]  # the flag's players: (actor, other), or one account


def plans(pairs: int, shared: int, honest_matches: int, seed: int
          ) -> tuple[list[Plan], list[Planted]]:
    rng = random.Random(seed)
    honest = [f"h{i:02d}" for i in range(16)]
    out: list[Plan] = []
    planted: list[Planted] = []
    day = 24 * 3600 * 1000
    clock = [1_790_000_000_000]

    def seated(pair: tuple[str, str], n: int, **kw: object) -> Plan:
        accounts = [*pair, *rng.sample(honest, 2)]
        rng.shuffle(accounts)
        clock[0] += day  # one match a day: no repeated-pair rule in play
        return Plan(table_id=f"m{clock[0] // day:06d}", seed=rng.randbytes(32).hex(),
                    accounts=tuple(accounts), start_ms=clock[0], **kw)  # type: ignore[arg-type]

    for k in range(pairs):
        f, r = f"feeder{k}", f"fed{k}"
        planted.append(Planted("feeding", (f, r)))
        out += [seated((f, r), n, feeds=((f, r),)) for n in range(shared)]
        s, p = f"soft{k}", f"spared{k}"
        planted.append(Planted("soft_play", (s, p)))
        out += [seated((s, p), n, soft=((s, p),)) for n in range(shared)]
        a, b = f"trader{k}a", f"trader{k}b"
        planted.append(Planted("win_trading", tuple(sorted((a, b)))))
        planted += [Planted("deliberate_losing", (a,)), Planted("deliberate_losing", (b,))]
        out += [seated((a, b), n, loser=a if n % 2 == 0 else b) for n in range(shared)]
        x, y = f"team{k}a", f"team{k}b"
        planted.append(Planted("team", tuple(sorted((x, y)))))
        out += [seated((x, y), n, feeds=((x, y), (y, x))) for n in range(shared)]
        m = f"machine{k}"
        planted.append(Planted("bot_timing", (m,)))
        out += [seated((m, rng.choice(honest)), n, machines=(m,))
                for n in range(max(4, shared // 5))]
    pool = honest[:8]
    for _ in range(honest_matches):
        clock[0] += day
        accounts = rng.sample(pool, 4)
        out.append(Plan(table_id=f"m{clock[0] // day:06d}", seed=rng.randbytes(32).hex(),
                        accounts=tuple(accounts), start_ms=clock[0]))
    return out, planted


# ---------------------------------------------------------------- scoring
def flagged_as(flag: CollusionFlag) -> list[tuple[str, tuple[str, ...]]]:
    """(kind, players) the flag counts for: a feeding flag counts for a team too."""
    players = tuple(flag.players)
    if flag.kind == "feeding":
        return [("feeding", players), ("team", tuple(sorted(players)))]
    if flag.kind == "win_trading":
        return [("win_trading", tuple(sorted(players)))]
    return [(flag.kind, players)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=4, help="planted pairs (accounts) per kind")
    p.add_argument("--shared", type=int, default=50, help="shared matches per planted pair")
    p.add_argument("--honest-matches", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    started = time.perf_counter()
    todo, planted = plans(args.pairs, args.shared, args.honest_matches, args.seed)
    assert len({p.table_id for p in todo}) == len(todo)
    auditor = Auditor()
    flags: list[CollusionFlag] = []
    verified = failed = events = 0
    with ProcessPoolExecutor(args.workers) as pool:
        for blob in pool.map(play, todo, chunksize=4):
            for line in blob.split(b"\n"):
                events += 1
                for r in auditor.fold(E.event_decoder.decode(line)):
                    if isinstance(r, CollusionFlag):
                        flags.append(r)
                    elif isinstance(r, HandVerified):
                        verified += 1
                    elif isinstance(r, HandFailed):
                        failed += 1
    seconds = time.perf_counter() - started
    collusion = auditor.collusion
    assert collusion is not None
    raised = {key for f in flags for key in flagged_as(f)}
    print(f"audit benchmark: {len(todo)} okeygg matches ({args.pairs} planted pairs or "
          f"accounts per kind, {args.shared} shared matches each, {args.honest_matches} "
          f"all-honest matches), seed {args.seed}, {seconds:.0f} s")
    print(f"hands verified {verified}, failed {failed}; events {events}; flags {len(flags)}")
    pop = collusion.population
    print("honest-play rates measured (population): "
          f"feeding {pop['feed'].k}/{pop['feed'].n} = {pop['feed'].k / max(1, pop['feed'].n):.2%}, "
          f"fitting discards taken {pop['soft'].k}/{pop['soft'].n} = "
          f"{pop['soft'].k / max(1, pop['soft'].n):.2%}, kept openings "
          f"{pop['kept'].k}/{pop['kept'].n} = {pop['kept'].k / max(1, pop['kept'].n):.2%}")
    planted_keys = {(pl.kind, pl.players) for pl in planted}
    pairs = {frozenset(pl.players) for pl in planted if len(pl.players) == 2}
    colluders = {a for pl in planted for a in pl.players}
    print(f"\n{'kind':<18} {'recall':>12} {'false positives (honest)':>26} "
          f"{'matches to flag':>16}  planted otherwise, flagged as it")
    for kind in KINDS:
        positives = [pl.players for pl in planted if pl.kind == kind]
        hit = [pl for pl in positives if (kind, pl) in raised]
        needed = sorted(len(f.matches) for f in flags for k, pl in flagged_as(f)
                        if k == kind and (k, pl) in planted_keys)
        negatives = _negatives(collusion, kind, planted_keys)
        honest = [n for n in negatives if frozenset(n) not in pairs] if len(positives[0]) == 2 \
            else [n for n in negatives if n[0] not in colluders]
        fp = [n for n in honest if (kind, n) in raised]
        others = [n for n in negatives if n not in honest and (kind, n) in raised]
        recall = len(hit) / len(positives) if positives else float("nan")
        rate = len(fp) / len(honest) if honest else 0.0
        span = f"{needed[0]}-{needed[-1]}" if needed else "-"
        print(f"{kind:<18} {len(hit):>3}/{len(positives):<3} {recall:>5.0%} "
              f"{len(fp):>8}/{len(honest):<6} {rate:>7.2%} {span:>16}  {len(others)}")
    wrong = [f for f in flags if not any(k in planted_keys for k in flagged_as(f))]
    for f in wrong[:10]:
        print(f"  not as planted: {f.kind} {f.players}: {f.summary}")
    return 0


def _negatives(c: C.Collusion, kind: str, planted: set[tuple[str, tuple[str, ...]]]
               ) -> list[tuple[str, ...]]:
    """The pairs (accounts) that could be flagged with `kind` and were not planted as it:
    those with enough shared matches. A feeding pair planted as a team is neither."""
    out: list[tuple[str, ...]] = []
    if kind in ("deliberate_losing", "bot_timing"):
        for a, acct in c.accounts.items():
            if len(acct.matches) >= C.MIN_MATCHES and (kind, (a,)) not in planted:
                out.append((a,))
        return out
    for (a, b), pair in c.pairs.items():
        if len(pair.matches) < C.MIN_MATCHES:
            continue
        key: tuple[str, ...] = (a, b) if kind in ("feeding", "soft_play") else tuple(sorted((a, b)))
        if kind in ("win_trading", "team") and a > b:
            continue
        team = ("team", tuple(sorted((a, b))))
        if (kind, key) in planted or (kind == "feeding" and team in planted):
            continue
        out.append(key)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
