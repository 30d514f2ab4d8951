"""Benchmark: level 2's decision in the compiled core (`okey101_native.level2`) against
the Python level 2 (`okey101.bots.levels.level2`), on the same views, in one run.

Views: the seat to act at every decision of short matches of each house, played by
level 2. Timed over the same views: the Python level 2 (the solver's cache cleared first,
so that each pass solves what a playout would meet fresh), the core on views packed
beforehand (what a native playout would pay), and `native_policy.level2` (packing and
the command's build included). Printed: CPU per decision each way and the ratios.

Run: .venv/bin/python -m tools.bench.policy [--matches N]
"""

from __future__ import annotations

import argparse
import time

from okey101 import native_policy, solver
from okey101.bots import level2
from okey101.simulate import match_seeds, play_match
from okey101.table.state import TableState
from okey101.table.views import PlayerView, player_view

HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna", "okey-oyna-duz")


def views(matches: int) -> list[PlayerView]:
    out: list[PlayerView] = []

    def observe(before: TableState, *_: object) -> None:
        hand = before.hand
        if before.status == "playing" and hand is not None and hand.phase != "over" \
                and before.seeding is None:
            view = player_view(before, hand.to_act)
            if view.rules.allowed:
                out.append(view)

    for house in HOUSES:
        hands = 7 if house == "okeygg" else 2
        for seed in match_seeds(2026, matches):
            play_match({"base": house, "options": {"hands_per_match": hands}}, seed,
                       [level2] * 4, observer=observe)  # type: ignore[arg-type]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=2)
    args = parser.parse_args()
    found = views(args.matches)
    packed = [native_policy.pack(v) for v in found]
    core = native_policy.core
    solver._solve_sorted.cache_clear()  # type: ignore[attr-defined]
    start = time.process_time()
    for v in found:
        level2(v)
    python = (time.process_time() - start) / len(found)
    start = time.process_time()
    for p in packed:
        core.level2(p)
    native = (time.process_time() - start) / len(found)
    start = time.process_time()
    for v in found:
        native_policy.level2(v)
    wrapped = (time.process_time() - start) / len(found)
    print(f"{len(found)} decisions: python level 2 {python * 1e6:.0f} us, core on packed "
          f"views {native * 1e6:.1f} us ({python / native:.0f}x), packing and building "
          f"included {wrapped * 1e6:.1f} us ({python / wrapped:.1f}x)")


if __name__ == "__main__":
    main()
