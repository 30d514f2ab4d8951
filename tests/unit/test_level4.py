"""Level 4, the searching bot (`okey101.bots.level4`): its worlds are consistent with the
seat's view, its move depends on that view (and its seed) alone, and it plays whole
matches legally in every house, partner modes and düz included."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from okey101 import tiles
from okey101.bots import Level3, Level4, level0
from okey101.bots.level4 import hidden_tiles, playout, utility, world
from okey101.bots.seat import Seat
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.state import TableState
from okey101.table.views import PlayerView, player_view
from okey101.tiles import COPIES, KINDS

HOUSES: dict[str, dict[str, Any]] = {
    "north-sultan": {"base": "north-sultan", "options": {"hands_per_match": 2}},
    "okeygg": {"base": "okeygg", "options": {"hands_per_match": 7}},
    "okeygg-partners": {"base": "okeygg", "options": {"hands_per_match": 7, "partners": True}},
    "classic": {"base": "classic", "options": {"hands_per_match": 2, "bots_allowed": True}},
    "classic-partners": {"base": "classic", "options": {
        "hands_per_match": 2, "bots_allowed": True, "partners": True}},
    "okey-oyna": {"base": "okey-oyna", "options": {"hands_per_match": 2}},
    "okey-oyna-duz": {"base": "okey-oyna-duz", "options": {"hands_per_match": 2}},
}


def states_of(house: str, seed: str) -> list[TableState]:
    """Every state of a level-0 match at which a seat is to act in a hand."""
    out: list[TableState] = []

    def watch(before: TableState, command: E.Command, decision: object,
              after: TableState) -> None:
        if before.status == "playing" and before.hand is not None and \
                before.seeding is None and before.hand.phase != "over":
            out.append(before)

    play_match(HOUSES[house], seed, players=[level0] * 4, observer=watch)
    return out


@pytest.mark.parametrize("house", sorted(HOUSES))
def test_a_world_is_a_table_whose_view_for_the_seat_is_its_view(house: str) -> None:
    """The hidden tiles dealt again: 106 tiles, the other racks at their sizes, and the
    seat's view of the world (rack, table, rules) the view it was built from."""
    rng = random.Random(1)
    states = states_of(house, match_seeds(21, 1)[0])
    assert len(states) > 40
    for state in states[::3]:
        assert state.hand is not None
        seat = state.hand.to_act
        v = player_view(state, seat)
        w = world(v, Seat(v), rng)
        assert w is not None and w.hand is not None
        seen = player_view(w, seat)
        assert (seen.hand, seen.rack, seen.rules) == (v.hand, v.rack, v.rules)
        every: Counter[int] = Counter(w.hand.deck)
        for i, h in enumerate(w.hand.seats):
            every.update(h.rack)
            every.update(h.discards)
            assert len(h.rack) == len(state.hand.seats[i].rack)
        for m in w.hand.melds:
            every.update(t for t, _ in m.meld.tiles)
        every[w.hand.indicator] += 1
        assert every == Counter({t: COPIES for t in range(KINDS)})


def test_a_world_pins_the_tiles_the_next_player_is_known_to_hold() -> None:
    states = states_of("north-sultan", match_seeds(22, 1)[0])
    state = states[30]
    assert state.hand is not None
    seat = state.hand.to_act
    v = player_view(state, seat)
    s = Seat(v)
    unseen = hidden_tiles(s)
    assert unseen is not None
    kind = min(unseen)
    w = world(v, s, random.Random(2), Counter({kind: 1}))
    assert w is not None and w.hand is not None
    assert kind in w.hand.seats[(seat + 1) % 4].rack


def test_a_playout_counts_the_hand_and_its_penalties_as_the_engine_scores_them() -> None:
    states = states_of("okeygg", match_seeds(23, 1)[0])
    state = next(s for s in states if s.hand is not None and s.hand.phase == "draw")
    assert state.hand is not None
    change = playout(state, E.Draw(table_id="", command_id=""))
    assert change is not None and len(change) == 4 and any(change)
    refused = playout(state, E.Discard(table_id="", command_id="", tile="R1"))
    assert refused is None  # a discard in the draw phase: not a move


def test_utility_weighs_rivals_and_counts_teams_together() -> None:
    assert utility([10, 40, 40, 40], 0, [0, 1 / 3, 1 / 3, 1 / 3], False) == pytest.approx(-30)
    assert utility([10, 40, 10, 40], 0, [0, 1 / 3, 1 / 3, 1 / 3], True) == -60


def decisions(house: str, seed: str, limit: int) -> list[PlayerView]:
    """Views at which seat 0 (level 3 at the table) had a real choice to make."""
    views: list[PlayerView] = []
    probe = Level4(playouts=2)

    def spy(v: PlayerView) -> E.Command:
        if len(views) < limit and len(probe.candidates(Seat(v), level0(v))) > 1:
            views.append(v)
        return level0(v)

    play_match(HOUSES[house], seed, players=[spy, level0, level0, level0])
    return views


@pytest.mark.parametrize("house", ["north-sultan", "okeygg", "okey-oyna-duz"])
def test_level4_gives_the_same_move_for_the_same_view_and_seed(house: str) -> None:
    views = decisions(house, match_seeds(24, 1)[0], 6)
    assert len(views) >= 4
    for v in views:
        first = [Level4(playouts=6, seed=5)(v) for _ in range(2)]
        assert first[0] == first[1]


def test_level4_plays_the_same_match_twice_from_the_same_seeds() -> None:
    spec = {"base": "north-sultan", "options": {"hands_per_match": 1}}
    bots = [Level4(playouts=4, seed=1) for _ in range(2)]
    runs = [play_match(spec, match_seeds(25, 1)[0], players=[b, Level3(), Level3(), Level3()])
            for b in bots]
    assert runs[0].commands == runs[1].commands
    assert bots[0].searched == bots[1].searched > 0


@pytest.mark.parametrize("house", ["north-sultan", "okeygg-partners"])
def test_level4_moves_depend_on_the_seats_view_only_not_on_the_hidden_tiles(
        house: str) -> None:
    """No leak: tables that differ only in what the seat cannot see (the other racks, the
    deck) give it the same view, and level 4 the same move at each."""
    rng = random.Random(3)
    states = states_of(house, match_seeds(26, 1)[0])
    checked = 0
    for state in states[::8]:
        assert state.hand is not None
        seat = state.hand.to_act
        v = player_view(state, seat)
        twin = world(v, Seat(v), rng)
        assert twin is not None
        twin_view = player_view(twin, seat)
        assert (twin_view.hand, twin_view.rack, twin_view.rules) == (v.hand, v.rack, v.rules)
        twin_view = v.__class__(**{f: getattr(twin_view, f) if f in ("hand", "rack", "rules")
                                   else getattr(v, f) for f in v.__struct_fields__})
        assert twin_view == v
        assert Level4(playouts=4)(twin_view) == Level4(playouts=4)(v)
        assert twin.hand is not None
        if twin.hand.seats != state.hand.seats or twin.hand.deck != state.hand.deck:
            checked += 1
    assert checked > 5


@pytest.mark.parametrize("house", sorted(HOUSES))
def test_level4_plays_whole_matches_against_level3_in_every_house(house: str) -> None:
    bot = Level4(playouts=4)
    for k, seed in enumerate(match_seeds(27, 1)):
        players: list[Any] = [Level3() for _ in range(4)]
        players[k % 4] = bot
        record = play_match(HOUSES[house], seed, players=players)
        assert record.rejections == 0, record.rejection_codes
        assert not record.capped
        assert isinstance(record.events[-1], E.MatchEnded)
    assert bot.searched > 0  # düz too (level 3's düz discards best first)


def test_a_clock_stops_the_search_and_level3s_move_stands() -> None:
    """Anytime: a budget already spent lets no playout start; the move is level 3's."""
    views = decisions("north-sultan", match_seeds(24, 1)[0], 4)
    ticks = iter(range(10**6))
    stopped = Level4(playouts=50, clock=lambda: float(next(ticks)), budget=0.5)
    reference = Level3()
    for v in views:
        assert stopped(v) == reference(v)
    assert stopped.overruled == 0 and stopped.searched == len(views)


class FakeClock:
    """Seconds that pass only where a test says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def playouts_take(monkeypatch: pytest.MonkeyPatch, seconds: float) -> FakeClock:
    """A clock on which each of level 4's playouts takes `seconds` (and nothing else
    takes any time)."""
    from okey101.bots import level4

    clock = FakeClock()
    real = level4.playout

    def timed(state: TableState, first: E.Command, cap: int = level4.PLAYOUT_CAP
              ) -> list[int] | None:
        clock.now += seconds
        return real(state, first, cap)

    monkeypatch.setattr(level4, "playout", timed)
    return clock


def test_a_decision_never_starts_a_playout_past_its_ceiling(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A playout is started only if it can end within the budget, taking as long as the
    longest yet: with every playout as long as the first (here 10 ms of a 35 ms budget),
    no decision ends past its budget, and the search runs as many as fit (three)."""
    clock = playouts_take(monkeypatch, 0.010)
    bot = Level4(playouts=200, clock=clock, budget=0.035)
    views = decisions("north-sultan", match_seeds(24, 1)[0], 6)
    ran = []
    for v in views:
        start, before = clock.now, bot.playouts_run
        bot(v)
        assert clock.now - start <= bot.budget
        ran.append(bot.playouts_run - before)
    assert bot.searched > 0 and max(ran) == 3


def test_level3s_own_move_counts_against_the_decisions_ceiling(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget runs from the decision's start: where level 3's own move took 30 ms of a
    35 ms budget, a 10 ms playout would end past it, so none is started; and a decision
    that ran no playout keeps what the playouts of late took (it learnt nothing of their
    length: halving it let the very next such decision start one and end past its budget)."""
    clock = playouts_take(monkeypatch, 0.010)
    bot = Level4(playouts=200, clock=clock, budget=0.035)

    class SlowLevel3(Level3):
        def __call__(self, v: PlayerView) -> E.Command:
            clock.now += 0.030
            return super().__call__(v)

    bot.level3 = SlowLevel3()
    bot.longest = 0.010  # the playouts of late took 10 ms
    for v in decisions("north-sultan", match_seeds(24, 1)[0], 4):
        start = clock.now
        bot(v)
        assert clock.now - start <= bot.budget
    assert bot.playouts_run == 0
    assert bot.longest == 0.010


def test_the_solve_cache_gives_the_cyclic_collector_nothing_to_walk() -> None:
    """A solution is acyclic and untracked (`gc=False`), its melds' tuple untracked after
    a collection: the 32,768 the solve cache keeps are not walked by every full
    collection (they were most of a 60-95 ms pause inside level 4's slowest decisions)."""
    import gc

    from okey101 import solver

    rng = random.Random(7)
    deck = [t for t in range(KINDS) for _ in range(COPIES)]
    solutions = [solver.arrange(rng.sample(deck, 14), 5) for _ in range(50)]
    gc.collect()
    assert not any(gc.is_tracked(x) for x in solutions)
    assert not any(gc.is_tracked(x.melds) or gc.is_tracked(x.leftover) for x in solutions)


def test_level4_weighs_level3s_own_next_best_discards() -> None:
    """A discard's candidates are level 3's move, then its next best (`ranking`, best
    first: its first is the tile level 3 throws), never a tile the engine penalises."""
    from okey101.bots import level4

    l3 = Level3()
    probe = Level4(playouts=0)
    seen = 0

    def spy(v: PlayerView) -> E.Command:
        nonlocal seen
        command = l3(v)
        if isinstance(command, E.Discard) and l3.last is not None and l3.last.ranking:
            s = Seat(v)
            ranking = l3.last.ranking
            assert tiles.name(ranking[0]) == command.tile
            found = probe.candidates(s, command, ranking)
            assert found[0] == command
            alternatives = [tiles.parse(c.tile) for c in found[1:] if isinstance(c, E.Discard)]
            assert alternatives == [t for t in ranking[1:] if not s.penalised(t)
                                    and t != s.owed][:level4.CANDIDATES - 1]
            seen += len(alternatives) > 0
        return command

    play_match(HOUSES["north-sultan"], match_seeds(28, 1)[0],
               players=[spy, Level3(), Level3(), Level3()])
    assert seen > 5


def test_level4_weighs_level3s_next_best_duz_discards() -> None:
    """In düz the candidates are level 3's discard, then its next best (`duz_ranking`:
    the loose tiles by the live draws they leave, then the rest of the rack)."""
    from okey101.bots import level4

    l3 = Level3()
    probe = Level4(playouts=0)
    seen = 0

    def spy(v: PlayerView) -> E.Command:
        nonlocal seen
        command = l3(v)
        if isinstance(command, E.Discard):
            ranking = l3.duz_ranking
            assert tiles.name(ranking[0]) == command.tile
            assert len(set(ranking)) == len(ranking)
            found = probe.candidates(Seat(v), command, ranking)
            assert [tiles.parse(c.tile) for c in found if isinstance(c, E.Discard)] == \
                ranking[:level4.CANDIDATES]
            seen += len(found) > 1
        return command

    play_match(HOUSES["okey-oyna-duz"], match_seeds(28, 1)[0],
               players=[spy, Level3(), Level3(), Level3()])
    assert seen > 5
