"""Whole matches in process, through decide/evolve, between players that see only their
own `player_view`: the level-0 bot (`okey101.bots.level0`, a plain rule-follower) unless
others are given.

The driver (`play_match`) is the only place with randomness: `simulate` derives every match
seed from its own `random.Random(seed)`; the engine stays pure. A command the engine rejects
is replaced by the `timeout` command for that turn (and counted), so every match ends; a cap
on commands per match guards against any loop the player might fall into.

Where the table has seeding windows (`seeding_seconds`, proto/DEAL.md version 2), every
person at it is a client that contributes as its `Contribution` says: commits to a seed the
driver derives from the match seed and reveals it ("honest"), sends nothing ("silent"),
commits and never reveals ("withholds"), or reveals a seed that does not match
("mismatches"). When no client has anything left to send, the driver closes the window at
its deadline as the timers service would (`close_seeding`).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import msgspec

from okey101 import scoring
from okey101.bots.level0 import level0
from okey101.profiles import _LOCKED, Profile, house
from okey101.table import deal as D
from okey101.table import messages as E
from okey101.table.decide import decide_and_fold
from okey101.table.evolve import NEW_TABLE
from okey101.table.state import TableState
from okey101.table.views import PlayerView, player_view
from okey101.terms import SEATS

TABLE = "sim"
COMMAND_CAP = 20_000  # per match; a normal 11-hand match takes about 2,000
ProfileSpec = str | Mapping[str, Any] | Profile
Player = Callable[[PlayerView], E.Command]
# (state before, command, decision, state after) for every command the driver sends
Observer = Callable[[TableState, E.Command, E.Rejection | list[E.Event], TableState], None]
Contribution = Literal["honest", "silent", "withholds", "mismatches"]
CONTRIBUTIONS: tuple[Contribution, ...] = ("honest", "silent", "withholds", "mismatches")


def client_seed(match_seed: str, seat: int, hand: int, attempt: int) -> bytes:
    """The seed the driver's client at `seat` contributes to a hand: from the match seed,
    so a match replays exactly."""
    return hmac.new(bytes.fromhex(match_seed), f"client:{seat}:{hand}:{attempt}".encode(),
                    hashlib.sha256).digest()


def seeding_intent(view: PlayerView, contribution: Contribution, match_seed: str
                   ) -> E.Command | None:
    """What the client at `view.seat` sends in the open seeding window, if anything."""
    g, allowed = view.seeding, view.rules.allowed
    if g is None:
        return None
    seed = client_seed(match_seed, view.seat, g.hand, g.attempt)
    if "commit_seed" in allowed and contribution != "silent":
        return E.CommitSeed(table_id=view.table_id, command_id="", commitment=D.commitment(seed))
    if "reveal_seed" in allowed and contribution in ("honest", "mismatches"):
        shown = seed if contribution == "honest" else hashlib.sha256(seed).digest()
        return E.RevealSeed(table_id=view.table_id, command_id="", client_seed=shown.hex())
    return None



# ---------------------------------------------------------------- the driver
class MatchRecord(msgspec.Struct, kw_only=True):
    """One whole match: every command sent (rejected ones too) and every event."""

    seed: str
    commands: list[E.Command]
    events: list[E.Event]
    final: TableState
    rejections: int
    rejection_codes: dict[str, int]
    capped: bool  # stopped by the command cap before the match ended


def profile_command(spec: ProfileSpec) -> tuple[str, dict[str, Any]]:
    """(house, options) for `create_table` from a house name, a spec dict or a Profile."""
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Profile):
        base = house(spec.id)
        options = {f: getattr(spec, f) for f in Profile.__struct_fields__
                   if f not in _LOCKED and getattr(spec, f) != getattr(base, f)}
        return spec.id, msgspec.to_builtins(options)
    return str(spec.get("base", "")), dict(spec.get("options") or {})


def play_match(profile: ProfileSpec, seed: str, players: Sequence[Player] | None = None,
               cap: int = COMMAND_CAP, observer: Observer | None = None,
               contributions: Sequence[Contribution] | None = None) -> MatchRecord:
    """One match from `seed` (hex, 32 bytes) with `players` by seat (simple by default);
    where the table has seeding windows, each seat's client as `contributions` says (all
    honest by default)."""
    seats = list(players) if players is not None else [level0] * SEATS
    clients: list[Contribution] = list(contributions) if contributions is not None else \
        ["honest"] * SEATS
    base, options = profile_command(profile)
    commands: list[E.Command] = []
    events: list[E.Event] = []
    codes: Counter[str] = Counter()
    state = NEW_TABLE

    def send(command: E.Command) -> E.Rejection | list[E.Event]:
        nonlocal state
        before = state
        state, decision = decide_and_fold(state, command)
        commands.append(command)
        if isinstance(decision, list):
            events.extend(decision)
        if observer is not None:
            observer(before, command, decision, state)
        return decision

    setup: list[E.Command] = [E.CreateTable(table_id=TABLE, command_id="create",
                                            profile=base, options=options)]
    setup += [E.Sit(table_id=TABLE, command_id=f"sit-{i}", player_id=f"p{i}", seat=i)
              for i in range(SEATS)]
    setup.append(E.StartMatch(table_id=TABLE, command_id="start", player_id="p0", seat=0,
                              seed=seed))
    for command in setup:
        decision = send(msgspec.structs.replace(command, seq=state.seq))
        if isinstance(decision, E.Rejection):
            raise ValueError(f"simulation setup ({type(command).__name__}): "
                             f"{decision.code}: {decision.message}")
    def seeding_step() -> None:
        g = state.seeding
        assert g is not None
        command: E.Command | None = None
        for seat in range(SEATS):
            intent = seeding_intent(player_view(state, seat), clients[seat], seed)
            if intent is not None:
                command = msgspec.structs.replace(
                    intent, command_id=f"c{len(commands)}", player_id=state.players[seat],
                    seat=seat, seq=state.seq)
                break
        if command is None:  # nothing left to send: the window closes at its deadline
            command = E.CloseSeeding(table_id=TABLE, command_id=f"c{len(commands)}",
                                     seq=state.seq, hand=g.hand, attempt=g.attempt,
                                     stage=g.stage, at=g.deadline)
        decision = send(command)
        if isinstance(decision, E.Rejection):
            raise RuntimeError(f"the engine rejected {type(command).__name__}: "
                               f"{decision.code}: {decision.message}")

    rejections = 0
    while state.status == "playing" and len(commands) < cap:
        if state.seeding is not None:
            seeding_step()
            continue
        hand = state.hand
        assert hand is not None
        seat = hand.to_act
        intent = seats[seat](player_view(state, seat))
        command = msgspec.structs.replace(
            intent, table_id=TABLE, command_id=f"c{len(commands)}",
            player_id=state.players[seat], seat=seat, seq=state.seq)
        decision = send(command)
        if isinstance(decision, E.Rejection):
            rejections += 1
            codes[decision.code] += 1
            fallback = E.TimeOut(table_id=TABLE, command_id=f"c{len(commands)}",
                                 seat=seat, seq=state.seq, turn=state.turn)
            decision = send(fallback)
            if isinstance(decision, E.Rejection):
                raise RuntimeError(f"the engine rejected a timeout: {decision.code}: "
                                   f"{decision.message}")
    return MatchRecord(seed=seed, commands=commands, events=events, final=state,
                       rejections=rejections, rejection_codes=dict(codes),
                       capped=state.status == "playing")


# ---------------------------------------------------------------- standings
class MatchSummary(msgspec.Struct, frozen=True, kw_only=True):
    seed: str
    hands: int  # hands scored (replayed deals not counted)
    totals: list[int]
    places: list[int]
    finishes: dict[str, int]
    commands: int
    events: int
    rejections: int
    capped: bool


class Standings(msgspec.Struct, frozen=True, kw_only=True):
    profile: str
    matches: int
    seed: int
    results: list[MatchSummary]
    mean_score: list[float]  # per seat: the mean match total
    wins: list[float]  # per seat: first places (a shared first counts 1/n each)
    hands: int
    finishes: dict[str, int]  # hands ended, by finish kind (replayed deals included)
    rejections: int
    rejection_codes: dict[str, int]
    commands: int
    events: int
    capped: int


def summarize(record: MatchRecord) -> MatchSummary:
    ended = [e for e in record.events if isinstance(e, E.HandEnded)]
    last = record.events[-1] if record.events else None
    if isinstance(last, E.MatchEnded):
        totals, places = list(last.totals), list(last.places)
    else:
        totals = record.final.totals()
        places = scoring.places(totals)
    return MatchSummary(
        seed=record.seed, hands=len(record.final.hand_scores), totals=totals, places=places,
        finishes=dict(Counter(e.finish for e in ended)), commands=len(record.commands),
        events=len(record.events), rejections=record.rejections, capped=record.capped)


def match_seeds(seed: int, matches: int) -> list[str]:
    """`matches` match seeds derived from `seed`; a negative seed is its own stream
    (`random.Random` alone would treat -1 as 1)."""
    rng = random.Random(seed if seed >= 0 else f"negative:{seed}")
    return [rng.randbytes(32).hex() for _ in range(matches)]


def simulate(profile: ProfileSpec, matches: int, seed: int,
             players: Sequence[Player] | None = None, cap: int = COMMAND_CAP) -> Standings:
    """`matches` whole matches; each match seed derived from `seed`, so reproducible."""
    results: list[MatchSummary] = []
    finishes: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    for match_seed in match_seeds(seed, matches):
        record = play_match(profile, match_seed, players, cap)
        summary = summarize(record)
        results.append(summary)
        finishes.update(summary.finishes)
        codes.update(record.rejection_codes)
    wins = [0.0] * SEATS
    for r in results:
        firsts = [i for i in range(SEATS) if r.places[i] == 1]
        for i in firsts:
            wins[i] += 1 / len(firsts)
    mean = [statistics.fmean(r.totals[i] for r in results) if results else 0.0
            for i in range(SEATS)]
    return Standings(
        profile=profile_command(profile)[0], matches=matches, seed=seed, results=results,
        mean_score=mean, wins=wins, hands=sum(r.hands for r in results),
        finishes=dict(sorted(finishes.items())), rejections=sum(r.rejections for r in results),
        rejection_codes=dict(sorted(codes.items())),
        commands=sum(r.commands for r in results), events=sum(r.events for r in results),
        capped=sum(1 for r in results if r.capped))


def render(st: Standings) -> str:
    """The standings as a plain-text table."""
    lines = [f"simulate {st.profile}: {st.matches} matches, seed {st.seed}", ""]
    head = (f"{'match':>5}  {'seed':<10}  {'hands':>5}  "
            + "  ".join(f"{'seat ' + str(i):>7}" for i in range(SEATS))
            + f"  {'places':<9}  {'cmds':>6}  {'events':>6}  {'rej':>4}")
    lines += [head, "-" * len(head)]
    for n, r in enumerate(st.results, start=1):
        lines.append(
            f"{n:>5}  {r.seed[:8] + '..':<10}  {r.hands:>5}  "
            + "  ".join(f"{t:>7}" for t in r.totals)
            + f"  {' '.join(map(str, r.places)):<9}  {r.commands:>6}  {r.events:>6}  "
            f"{r.rejections:>4}" + ("  CAPPED" if r.capped else ""))
    lines.append("-" * len(head))
    lines.append(f"{'mean':>5}  {'':<10}  {'':>5}  "
                 + "  ".join(f"{m:>7.1f}" for m in st.mean_score))
    lines.append(f"{'wins':>5}  {'':<10}  {'':>5}  "
                 + "  ".join(f"{w:>7.2f}" for w in st.wins))
    lines.append("")
    finishes = ", ".join(f"{k} {v}" for k, v in st.finishes.items()) or "none"
    lines.append(f"hands scored: {st.hands}; hands ended by finish: {finishes}")
    codes = ", ".join(f"{k} {v}" for k, v in st.rejection_codes.items())
    lines.append(f"rejected commands: {st.rejections}" + (f" ({codes})" if codes else ""))
    lines.append(f"commands: {st.commands}, events: {st.events}, capped matches: {st.capped}")
    return "\n".join(lines)


__all__ = [
    "COMMAND_CAP",
    "CONTRIBUTIONS",
    "Contribution",
    "MatchRecord",
    "MatchSummary",
    "Standings",
    "client_seed",
    "match_seeds",
    "play_match",
    "profile_command",
    "render",
    "seeding_intent",
    "simulate",
    "summarize",
]
