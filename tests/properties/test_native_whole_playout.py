"""The compiled whole playout (`okey101_native.HandSim.play_out`: level 2 in every seat,
each from its own view, on the native simulator) against the Python one it replaces
(`okey101.bots.level4.playout`'s loop: `level2(player_view(state, seat))` through
`decide_and_fold` until the hand ends), from states taken at random points of seeded
matches in every house and mode. Both must play the same number of commands and end the
same way (finished, how and by whom) with the same change of every seat's total (the
hand's scores and the penalties imposed). The view the core builds from its own state is
compared with `native_policy.pack(player_view(...))` at every state sampled besides. What
either piece refuses (NotImplementedError: the "34" count's opening, a time-out) is
counted apart; floors keep the test from passing by refusing."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

import msgspec
import pytest

from okey101 import native_policy
from okey101.bots import Bot, Level3, level0, level2
from okey101.bots.level4 import PLAYOUT_CAP
from okey101.native_table import pack_hand
from okey101.simulate import play_match
from okey101.table import messages as E
from okey101.table.decide import decide_and_fold
from okey101.table.state import TableState
from okey101.table.views import player_view

core = pytest.importorskip("okey101_native")

SPECS = [("north-sultan", {}), ("okeygg", {}), ("okeygg", {"partners": True}),
         ("classic", {}), ("classic", {"partners": True}), ("classic", {"meld_value": "third"}),
         ("okey-oyna", {}), ("okey-oyna-duz", {})]
SEEDS = 6
SAMPLE = 0.08  # the states played out: about 1 in 12 of a match's decisions
VIEW_FLOOR, PLAYOUT_FLOOR, COMMAND_FLOOR = 7000, 500, 15000


def _seed(house: str, i: int) -> str:
    return hashlib.sha256(f"whole-playout-{house}-{i}".encode()).hexdigest()


def python_playout(state: TableState, cap: int) -> tuple[bool, int, list[int], Any]:
    """level4.playout's loop from `state` (no first command): (finished, commands,
    each seat's change of total, the HandEnded event or None)."""
    before = state.totals()
    commands, end = 0, None
    for _ in range(cap):
        if end is not None or state.status != "playing" or state.hand is None:
            break
        seat = state.hand.to_act
        intent = level2(player_view(state, seat))
        commands += 1
        envelope = msgspec.structs.replace(intent, table_id=state.table_id, command_id="w",
                                           seat=seat, player_id=state.players[seat],
                                           seq=state.seq)
        state, decision = decide_and_fold(state, envelope)
        if isinstance(decision, E.Rejection):
            raise NotImplementedError(f"python: rejected {decision.code}: a time-out")
        end = next((e for e in decision if isinstance(e, E.HandEnded)), None)
    after = state.totals()
    return end is not None, commands, [a - b for a, b in zip(after, before, strict=True)], end


def native_playout(state: TableState, cap: int) -> tuple[bool, int, list[int], Any]:
    sim = core.HandSim(*pack_hand(state))
    before = list(state.penalties)
    finished, commands, penalties = sim.play_out(cap)
    change = [p - b for p, b in zip(penalties, before, strict=True)]
    ended = sim.scores()
    if ended is not None:
        finish, by, scores, replay = ended
        if not replay:  # a replayed hand's scores are not kept (evolve._hand_ended)
            change = [c + s for c, s in zip(change, scores, strict=True)]
        ended = (finish, by)
    return finished, commands, change, ended


def _match(house: str, options: dict[str, object], seed: str, players: list[Bot],
           tally: Counter[str], mismatches: list[str]) -> None:
    rng = random.Random(seed)

    def observe(before: TableState, command: object, decision: object,
                after: TableState) -> None:
        hand = before.hand
        if before.status != "playing" or hand is None or hand.phase == "over" \
                or before.seeding is not None or len(mismatches) >= 3:
            return
        view = player_view(before, hand.to_act)
        if not view.rules.allowed:
            return
        where = f"seed={seed} house={house} {options} hand={hand.number} turn={before.turn}" \
                f" seq={before.seq}"
        try:
            sim = core.HandSim(*pack_hand(before))
        except NotImplementedError:
            tally["state refused"] += 1
            return
        got, expected = sim.packed_view_of_to_act(), native_policy.pack(view)
        tally["views"] += 1
        if got != expected:
            at = next(i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b) \
                if len(got) == len(expected) else -1
            mismatches.append(f"{where}: packed view differs at {at}: native {got} "
                              f"python {expected}")
            return
        if rng.random() >= SAMPLE:
            return
        try:
            py = python_playout(before, PLAYOUT_CAP)
        except NotImplementedError as why:
            tally[f"python refused: {why}"] += 1
            py = None
        try:
            nat = native_playout(before, PLAYOUT_CAP)
        except NotImplementedError as why:
            if py is not None and "not ported" not in str(why):
                mismatches.append(f"{where}: the core refused ({why}) where the Python "
                                  f"played {py[:3]}")
            tally[f"native refused: {str(why)[:60]}"] += 1
            return
        if py is None:
            mismatches.append(f"{where}: the Python timed out, the core played {nat}")
            return
        py_end = (py[3].finish, py[3].finished_by) if py[3] is not None else None
        if (py[0], py[1], py[2], py_end) != nat:
            mismatches.append(f"{where}: native (finished, commands, change, end) {nat} "
                              f"python {(py[0], py[1], py[2], py_end)}")
            return
        tally["playouts"] += 1
        tally["commands"] += py[1]

    hands = 7 if house == "okeygg" else 2
    profile = {"base": house, "options": {"hands_per_match": hands, **options}}
    play_match(profile, seed, players, observer=observe)  # type: ignore[arg-type]


def test_native_playout_equals_python() -> None:
    tally: Counter[str] = Counter()
    mismatches: list[str] = []
    for house, options in SPECS:
        for i in range(SEEDS):
            players: list[Bot] = [level2] * 4 if i % 3 else [level2, level0, Level3(), level2]
            _match(house, options, _seed(house, i), players, tally, mismatches)
            assert not mismatches, "\n".join(mismatches)
    print("tally", dict(tally))
    assert tally["views"] >= VIEW_FLOOR, tally
    assert tally["playouts"] >= PLAYOUT_FLOOR, tally
    assert tally["commands"] >= COMMAND_FLOOR, tally
    refused = sum(n for k, n in tally.items() if "refused" in k)
    assert refused < tally["playouts"] // 3, tally
