"""Benchmark: the compiled hand simulator (okey101_native.HandSim) against the Python
engine on the same commands, in one run.

The simulator plays a hand's commands (draw, take_discard, put_back, discard, open, lay,
lay_off, take_okey, düz's finish) to the hand's end and scores it (issue 39; no native
playout policy yet): short matches of each house are played by level 0 and recorded, and
every run of consecutive commands the simulator takes (from a state it accepts to the
hand's end, or to the first command it refuses or does not play) is a segment; a segment
from the hand's first command to its end is a whole hand. Timed, over the same segments:
the Python engine deciding and folding each command (`decide_and_fold`, as
`level4.playout` does; a hand's last command there also deals the next hand or ends the
match), and the simulator packing the segment's first state (`native_table.pack_hand`,
once a segment) and playing its commands (converted to the simulator's ints beforehand,
as a native playout would hold them). Printed: CPU per command each way, the packing's
share, the ratio, and the same for whole hands.

With --whole, the whole playouts of issue 39 besides: states taken at random points of
level-2 matches of each house, each played out to the hand's end by level 2 in every
seat, in Python as `level4.playout` does (`level2(player_view(...))` and
`decide_and_fold` a command) and natively (`HandSim(*pack_hand(state)).play_out(cap)`,
the packing included: one crossing a playout); both are checked to play the same number
of commands, and the ratio is printed.

Run: .venv/bin/python -m tools.bench.playout [--matches N] [--repeat R] [--whole N]
"""

from __future__ import annotations

import argparse
import importlib
import random
import time
from collections import Counter
from typing import Any

import msgspec

from okey101.bots.level0 import level0
from okey101.bots.level4 import PLAYOUT_CAP
from okey101.bots.levels import level2
from okey101.native_table import Call, native_call, pack_hand
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.decide import decide_and_fold
from okey101.table.state import TableState
from okey101.table.views import player_view

HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna", "okey-oyna-duz")
HANDS = {"okeygg": 7}  # the fewest hands a match of the house may have; 2 elsewhere
Step = tuple[TableState, E.Command, Any, TableState]
Segment = tuple[TableState, list[E.Command], list[Call], bool]  # ..., a whole hand


def segments(core: Any, matches: int, seed: int) -> list[Segment]:
    out: list[Segment] = []
    for i, match_seed in enumerate(match_seeds(seed, matches)):
        out += segments_of(core, recorded(HOUSES[i % len(HOUSES)], match_seed))
    return out


def recorded(house: str, seed: str) -> list[Step]:
    steps: list[Step] = []
    play_match({"base": house, "options": {"hands_per_match": HANDS.get(house, 2)}}, seed,
               players=[level0] * 4, observer=lambda *step: steps.append(step))
    return steps


def first_command(state: TableState) -> bool:
    """Is this the hand's first command (nobody has played, nothing is on the table)?"""
    hand = state.hand
    return hand is not None and not hand.melds and not any(h.has_played for h in hand.seats)


def segments_of(core: Any, steps: list[Step]) -> list[Segment]:
    out: list[Segment] = []
    sim: Any = None
    start: TableState | None = None
    commands: list[E.Command] = []
    calls: list[Call] = []
    for before, command, _, _ in steps:
        if sim is None and before.hand is not None and before.status == "playing":
            try:
                sim, start, commands, calls = core.HandSim(*pack_hand(before)), before, [], []
            except NotImplementedError:
                continue
        if sim is None:
            continue
        try:
            call = native_call(command)
            getattr(sim, call[0])(*call[1])
        except NotImplementedError:
            if commands and start is not None:
                out.append((start, commands, calls, False))
            sim = None
            continue
        commands.append(command)
        calls.append(call)
        if sim.scores() is not None:  # the hand's end
            assert start is not None
            out.append((start, commands, calls, first_command(start)))
            sim = None
    return out


def time_python(segs: list[Segment]) -> float:
    t0 = time.process_time()
    for start, commands, _, _ in segs:
        state = start
        for c in commands:
            state, _ = decide_and_fold(state, c)
    return time.process_time() - t0


def time_native(core: Any, segs: list[Segment], with_packing: bool) -> float:
    packed = [pack_hand(start) for start, _, _, _ in segs]
    t0 = time.process_time()
    for (start, _, calls, _), args in zip(segs, packed, strict=True):
        sim = core.HandSim(*(pack_hand(start) if with_packing else args))
        for method, call_args in calls:
            getattr(sim, method)(*call_args)
    return time.process_time() - t0


def report(core: Any, what: str, segs: list[Segment], repeat: int) -> None:
    n = sum(len(c) for _, c, _, _ in segs)
    kinds = Counter(type(c).__name__ for _, cs, _, _ in segs for c in cs)
    py = min(time_python(segs) for _ in range(repeat))
    bare = min(time_native(core, segs, False) for _ in range(repeat))
    full = min(time_native(core, segs, True) for _ in range(repeat))
    print(f"{what}: {len(segs)} segments, {n} commands "
          f"({', '.join(f'{k} {v}' for k, v in kinds.most_common())})")
    print(f"  python decide_and_fold   {py / n * 1e6:8.2f} us a command, "
          f"{py / len(segs) * 1e3:7.3f} ms a segment")
    print(f"  native with pack_hand    {full / n * 1e6:8.2f} us a command, "
          f"{full / len(segs) * 1e3:7.3f} ms a segment")
    print(f"  native, packed before    {bare / n * 1e6:8.2f} us a command, "
          f"{bare / len(segs) * 1e3:7.3f} ms a segment")
    print(f"  ratio python/native      {py / full:8.1f}x with packing, "
          f"{py / bare:.1f}x without")


def playout_states(matches: int, seed: int, share: float = 0.05) -> list[TableState]:
    """States at random points of level-2 matches of each house (the seat to act has a
    command to send), about `share` of the decisions."""
    rng = random.Random(seed)
    out: list[TableState] = []

    def observe(before: TableState, *_: object) -> None:
        hand = before.hand
        if before.status == "playing" and hand is not None and hand.phase != "over" \
                and before.seeding is None and rng.random() < share:
            out.append(before)

    for i, match_seed in enumerate(match_seeds(seed, matches)):
        house = HOUSES[i % len(HOUSES)]
        play_match({"base": house, "options": {"hands_per_match": HANDS.get(house, 2)}},
                   match_seed, players=[level2] * 4, observer=observe)
    return out


def python_playout(state: TableState, cap: int = PLAYOUT_CAP) -> int | None:
    """level4.playout's loop from `state`: the commands played, None on a rejection."""
    for n in range(cap):
        hand = state.hand
        if state.status != "playing" or hand is None or hand.phase == "over":
            return n
        seat = hand.to_act
        intent = msgspec.structs.replace(
            level2(player_view(state, seat)), table_id=state.table_id, command_id="w",
            seat=seat, player_id=state.players[seat], seq=state.seq)
        state, decision = decide_and_fold(state, intent)
        if isinstance(decision, E.Rejection):
            return None
        if any(isinstance(e, E.HandEnded) for e in decision):
            return n + 1
    return cap


def native_playout(core: Any, state: TableState, cap: int = PLAYOUT_CAP) -> int | None:
    try:
        _, n, _ = core.HandSim(*pack_hand(state)).play_out(cap)
    except NotImplementedError:
        return None
    return int(n)


def report_whole(core: Any, matches: int, seed: int, repeat: int) -> None:
    states = playout_states(matches, seed)
    played = [(s, native_playout(core, s)) for s in states]
    states = [s for s, n in played if n is not None]  # what the core refuses, the Python plays
    counts = [python_playout(s) for s in states]
    natives = [native_playout(core, s) for s in states]
    assert counts == natives, "the two playouts played different numbers of commands"
    n = sum(c for c in counts if c is not None)

    def run_python() -> float:
        t0 = time.process_time()
        for s in states:
            python_playout(s)
        return time.process_time() - t0

    def run_native() -> float:
        t0 = time.process_time()
        for s in states:
            native_playout(core, s)
        return time.process_time() - t0

    py = min(run_python() for _ in range(repeat))
    nat = min(run_native() for _ in range(repeat))
    print(f"whole playouts: {len(states)} states of {matches} level-2 matches "
          f"({len(played) - len(states)} refused by the core), {n} commands, best of {repeat}")
    print(f"  python (level2 + views + engine)  {py / len(states) * 1e3:8.3f} ms a playout, "
          f"{py / n * 1e6:7.1f} us a command")
    print(f"  native HandSim.play_out           {nat / len(states) * 1e3:8.3f} ms a playout, "
          f"{nat / n * 1e6:7.1f} us a command (pack_hand included)")
    print(f"  ratio python/native               {py / nat:8.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--whole", type=int, default=0,
                    help="also time whole playouts from states of N level-2 matches")
    a = ap.parse_args()
    core = importlib.import_module("okey101_native")
    if a.whole:
        report_whole(core, a.whole, a.seed, a.repeat)
        return
    segs = segments(core, a.matches, a.seed)
    print(f"{a.matches} level-0 matches of {', '.join(HOUSES)}, best of {a.repeat}")
    report(core, "every segment", segs, a.repeat)
    whole = [s for s in segs if s[3]]
    if whole:
        report(core, "whole hands (deal to HandEnded)", whole, a.repeat)


if __name__ == "__main__":
    main()
