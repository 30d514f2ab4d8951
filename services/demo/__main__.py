"""`make demo`: what okey101 can do so far, under each house."""

from __future__ import annotations

import argparse
import random

from okey101 import profiles, solver, tiles


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--racks", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for profile in profiles.HOUSES.values():
        print(f"== {profile.id}: 12-13-1 {'valid' if profile.run_wraps_13_to_1 else 'invalid'}")
        for _ in range(args.racks):
            deck = tiles.full_set()
            rng.shuffle(deck)
            indicator = next(t for t in deck if t != tiles.FAKE)
            deck.remove(indicator)
            rack, okey = sorted(deck[:22], key=tiles.sort_key), tiles.okey_for(indicator)
            best = solver.opening(rack, okey, profile.run_wraps_13_to_1)
            can_open = "opens" if best.value >= profile.opening_points else "cannot open"
            print(f"  indicator {tiles.name(indicator)} okey {tiles.name(okey)}:"
                  f" {' '.join(tiles.names(rack))}")
            melds = "  ".join(" ".join(m.notation(okey)) for m in best.melds) or "-"
            print(f"    best melds {best.value} points ({can_open} with points): {melds}")
            print(f"    pairs: {solver.most_pairs(rack, okey)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
