"""Benchmark: the compiled hand simulator (okey101_native.HandSim) against the Python
engine on the same commands, in one run.

The simulator's first slice plays the turn's draw, take_discard, put_back and discard
(issue 39; no native playout policy yet, so no whole playout): short matches of each
house are played by level 0 and recorded, and every run of consecutive commands the
simulator takes (from a state it accepts to the first command it refuses or does not
play) is a segment. Timed, over the same segments: the Python engine deciding and folding
each command (`decide_and_fold`, as `level4.playout` does), and the simulator packing the
segment's first state (`native_table.pack_hand`, once a segment) and playing its commands.
Printed: CPU per command each way, the packing's share, and the ratio.

Run: .venv/bin/python -m tools.bench.playout [--matches N] [--repeat R]
"""

from __future__ import annotations

import argparse
import importlib
import time
from typing import Any

from okey101 import tiles
from okey101.bots.level0 import level0
from okey101.native_table import pack_hand
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.decide import decide_and_fold
from okey101.table.state import TableState

HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna", "okey-oyna-duz")
HANDS = {"okeygg": 7}  # the fewest hands a match of the house may have; 2 elsewhere
PLAYED = (E.Draw, E.TakeDiscard, E.PutBack, E.Discard)
Native = tuple[str, int, int]  # (method, seat, tile)
Step = tuple[TableState, E.Command, Any, TableState]
Segment = tuple[TableState, list[E.Command], list[Native]]


def as_native(c: E.Command) -> Native:
    match c:
        case E.Discard():
            return ("discard", c.seat, tiles.parse(c.tile))
        case E.Draw():
            return ("draw", c.seat, -1)
        case E.TakeDiscard():
            return ("take_discard", c.seat, -1)
    return ("put_back", c.seat, -1)


def play(sim: Any, move: Native) -> object:
    method, seat, tile = move
    if method == "discard":
        return sim.discard(seat, tile)
    return getattr(sim, method)(seat)


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


def segments_of(core: Any, steps: list[Step]) -> list[Segment]:
    out: list[Segment] = []
    sim: Any = None
    start: TableState | None = None
    commands: list[E.Command] = []
    for before, command, _, _ in steps:
        if sim is None and before.hand is not None and isinstance(command, PLAYED):
            try:
                sim, start, commands = core.HandSim(*pack_hand(before)), before, []
            except NotImplementedError:
                continue
        if sim is None:
            continue
        try:
            if not isinstance(command, PLAYED):
                raise NotImplementedError(type(command).__name__)
            play(sim, as_native(command))
            commands.append(command)
        except NotImplementedError:
            if commands and start is not None:
                out.append((start, commands, [as_native(c) for c in commands]))
            sim = None
    if sim is not None and commands and start is not None:
        out.append((start, commands, [as_native(c) for c in commands]))
    return out


def time_python(segs: list[Segment]) -> float:
    t0 = time.process_time()
    for start, commands, _ in segs:
        state = start
        for c in commands:
            state, _ = decide_and_fold(state, c)
    return time.process_time() - t0


def time_native(core: Any, segs: list[Segment], with_packing: bool) -> float:
    packed = [pack_hand(start) for start, _, _ in segs]
    t0 = time.process_time()
    for (start, _, moves), args in zip(segs, packed, strict=True):
        sim = core.HandSim(*(pack_hand(start) if with_packing else args))
        for move in moves:
            play(sim, move)
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=39)
    a = ap.parse_args()
    core = importlib.import_module("okey101_native")
    segs = segments(core, a.matches, a.seed)
    n = sum(len(c) for _, c, _ in segs)
    py = min(time_python(segs) for _ in range(a.repeat))
    bare = min(time_native(core, segs, False) for _ in range(a.repeat))
    full = min(time_native(core, segs, True) for _ in range(a.repeat))
    print(f"{a.matches} matches, {len(segs)} segments, {n} commands "
          f"(draw, take_discard, put_back, discard), best of {a.repeat}")
    print(f"python decide_and_fold   {py / n * 1e6:8.2f} us each")
    print(f"native with pack_hand    {full / n * 1e6:8.2f} us each")
    print(f"native, packed before    {bare / n * 1e6:8.2f} us each")
    print(f"ratio python/native      {py / full:8.1f}x with packing, "
          f"{py / bare:.1f}x without")


if __name__ == "__main__":
    main()
