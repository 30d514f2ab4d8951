"""The bot levels (RULES.md section 11): legal, in turn, blind to hidden tiles, and each
level playing as documented in `okey101.bots`.

Whole matches run through the real engine (`play_match`) with bots in every seat, for every
house and level: no command is ever rejected, every command is the acting seat's, and the
view each bot is given is exactly `player_view(state, seat)` (its own rack and the public
table, nothing else). Level 2 and 3 are also checked at every decision of those matches:
no okey or penalised discard while another tile would do; an open whenever the solver finds
the threshold. Exact cases on hand-built views pin each level's choices.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import pytest

from okey101 import melds as M
from okey101 import solver, tiles
from okey101.bots import Bot, Level3, level0, level1, level2
from okey101.bots.inference import Knowledge, Memory
from okey101.bots.level3 import Level3Play
from okey101.bots.seat import Seat, keep_one
from okey101.bots.standing import rival_weights
from okey101.profiles import house
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from okey101.table.state import HandState, SeatHand, TableMeld, TableState, TurnScratch
from okey101.table.viewrules import meld_of_view
from okey101.table.views import MeldView, PlayerView, player_view

HOUSES = ("north-sultan", "okeygg", "classic", "okey-oyna")
SHORT = {"north-sultan": 2, "okeygg": 7, "classic": 2, "okey-oyna": 2}  # okeygg: 7-21
MakeBot = Callable[[], Bot]
LEVELS: dict[str, MakeBot] = {"0": lambda: level0, "1": lambda: level1, "2": lambda: level2,
                             "3": Level3}


# ---------------------------------------------------------------- whole matches
class Watch:
    """Every bot call and every command the driver sends, checked as they happen."""

    def __init__(self, bots: Sequence[Bot], careful: Sequence[bool]) -> None:
        self.bots = bots
        self.careful = careful  # seats whose discards and openings are checked (2, 3)
        self.views: list[PlayerView] = []
        self.commands = 0
        self.faults: list[str] = []

    def player(self, seat: int) -> Bot:
        def play(view: PlayerView) -> E.Command:
            self.views.append(view)
            command = self.bots[seat](view)
            if self.careful[seat]:
                self.check_choice(view, command)
            return command
        return play

    def observe(self, before: TableState, command: E.Command,
                decision: E.Rejection | list[E.Event], after: TableState) -> None:
        if isinstance(decision, E.Rejection):
            self.faults.append(f"rejected {type(command).__name__}: {decision.code}")
        if before.status != "playing" or isinstance(command, E.TimeOut):
            return
        hand = before.hand
        assert hand is not None
        view = self.views[self.commands]
        self.commands += 1
        if command.seat != hand.to_act:
            self.faults.append(f"seat {command.seat} acted on seat {hand.to_act}'s turn")
        if view != player_view(before, command.seat):
            self.faults.append(f"seat {command.seat} was shown something else than its view")
        if view.rack != tiles.names(hand.seats[command.seat].rack):
            self.faults.append("the view's rack is not the seat's own")
        if isinstance(decision, list):
            for event in decision:
                if isinstance(event, E.OpeningRetracted) or (
                        isinstance(event, E.PenaltyImposed) and event.reason == "invalid_opening"):
                    self.faults.append(f"an invalid opening: {event}")

    def check_choice(self, v: PlayerView, command: E.Command) -> None:
        s = Seat(v)
        if isinstance(command, E.Discard):
            tile = tiles.parse(command.tile)
            if tile == s.okey and any(t != s.okey for t in s.rack):
                self.faults.append(f"discarded the okey from {v.rack}")
            if s.penalised(tile) and any(not s.penalised(t) and t != s.okey
                                         for t in s.rack):
                self.faults.append(f"discarded the playable {command.tile} from {v.rack}")
            if s.opened is None and s.taken is None:
                plan = keep_one(solver.opening(s.rack, s.okey, s.wraps).melds, len(s.rack))
                if sum(m.value() for m in plan) >= s.me.points_needed:
                    self.faults.append(f"did not open {v.rack} ({s.me.points_needed})")


def run_match(name: str, seed: str, makers: Sequence[MakeBot], careful: Sequence[bool]
              ) -> tuple[Watch, Any]:
    bots = [make() for make in makers]
    watch = Watch(bots, careful)
    record = play_match({"base": name, "options": {"hands_per_match": SHORT[name]}}, seed,
                        players=[watch.player(i) for i in range(4)], observer=watch.observe)
    return watch, record


@pytest.mark.parametrize("name", HOUSES)
@pytest.mark.parametrize("level", ["0", "1", "2", "3"])
def test_bots_play_whole_matches_legally_in_turn_from_their_own_view(
        name: str, level: str) -> None:
    for seed in match_seeds(101 + int(level), 2 if name != "okeygg" else 1):
        watch, record = run_match(name, seed, [LEVELS[level]] * 4, [level in ("2", "3")] * 4)
        assert record.rejections == 0, record.rejection_codes
        assert not record.capped
        assert isinstance(record.events[-1], E.MatchEnded)
        assert watch.faults == []
        assert watch.commands == len(watch.views) > 0


@pytest.mark.parametrize("name", HOUSES)
def test_the_three_levels_at_one_table(name: str) -> None:
    seed = match_seeds(7, 1)[0]
    makers = [LEVELS["1"], LEVELS["2"], LEVELS["3"], LEVELS["3"]]
    watch, record = run_match(name, seed, makers, [False, True, True, True])
    assert record.rejections == 0, record.rejection_codes
    assert watch.faults == []


def test_level3_is_deterministic_and_keeps_its_memory_per_seat() -> None:
    """The same views give the same commands; one instance may serve several seats."""
    seed = match_seeds(3, 1)[0]
    shared = Level3()
    first = play_match({"base": "north-sultan", "options": {"hands_per_match": 2}}, seed,
                       players=[shared] * 4)
    again = play_match({"base": "north-sultan", "options": {"hands_per_match": 2}}, seed,
                       players=[Level3() for _ in range(4)])
    assert first.commands == again.commands
    assert first.rejections == 0


# ---------------------------------------------------------------- hand-built views
def seat_hand(rack: Sequence[str] | int, **kw: Any) -> SeatHand:
    """A seat of a hand-built table: its rack (tiles, or a size: filler tiles nobody sees)."""
    tiles_ = tiles.parse_many(rack) if not isinstance(rack, int) else [tiles.parse("R1")] * rack
    fields: dict[str, Any] = {"rack": tuple(tiles_), "has_played": True}
    for key, value in kw.items():
        fields[key] = tuple(tiles.parse_many(value)) if key == "discards" else value
    return SeatHand(**fields)


def view(rack: str, *, indicator: str = "K12", name: str = "north-sultan",
         phase: str = "play", seat: int = 0, me: dict[str, Any] | None = None,
         others: dict[int, dict[str, Any]] | None = None,
         melds: Sequence[tuple[int, str, str, int]] = (), top: str | None = None,
         turn: int = 20, deck: int = 12, taken: str | None = None) -> PlayerView:
    """The engine's own view (`player_view`) for `seat` holding `rack` (tiles by space) at
    a hand-built table; `melds`: (owner, kind, tiles, start) on the table; `me`/`others`:
    SeatHand fields by seat; `top`: the previous seat's last discard."""
    face_up = tiles.parse(indicator)
    okey = tiles.okey_for(face_up)
    seats = []
    for i in range(4):
        kw = dict((others or {}).get(i, {}))
        if i == seat:
            seats.append(seat_hand(rack.split(), **(me or {})))
        else:
            seats.append(seat_hand(21, **kw))
    if top is not None:
        before = (seat - 1) % 4
        seats[before] = msgspec.structs.replace(
            seats[before], discards=(*seats[before].discards, tiles.parse(top)))
    table = tuple(TableMeld(M.Meld(k, tuple(M.parse_placed(t.split(), okey)), st), o, 1)  # type: ignore[arg-type]
                  for o, k, t, st in melds)
    taken_tile = tiles.parse(taken) if taken else None
    hand = HandState(
        number=1, attempt=0, starter=0, indicator=face_up, okey=okey,
        deck=tuple([tiles.parse("R1")] * deck), seats=tuple(seats), melds=table,
        to_act=seat, phase=phase,  # type: ignore[arg-type]
        scratch=TurnScratch(taken=taken_tile, taken_from=(seat - 1) % 4 if taken else -1))
    state = TableState(table_id="t", seq=1, profile=house(name), status="playing",
                       players=tuple(f"p{i}" for i in range(4)), bots=(True,) * 4,
                       hands_total=11, turn=turn, hand=hand)
    return player_view(state, seat)


# a rack worth 108 in three groups (indicator K12: the okey is K13)
OPENS = "R11 Y11 B11 R12 Y12 B12 R13 Y13 B13 R2 Y5 B8 K3 R6"
# a rack worth 36 in one group, with loose tiles around
SHORT_OF_IT = "R11 Y11 B11 R2 Y5 B8 K3 R6 Y9 B1"


def kind(command: E.Command) -> str:
    return type(command).__name__


@pytest.mark.parametrize("bot", [level1, level2, Level3()], ids=["1", "2", "3"])
def test_every_level_opens_when_the_solver_says_it_can(bot: Bot) -> None:
    command = bot(view(OPENS))
    assert isinstance(command, E.Open) and command.melds and not command.pairs
    s = Seat(view(OPENS))
    laid = [M.classify(M.parse_placed(m, s.okey), s.wraps) for m in command.melds]
    assert sum(m.value() for m in laid) >= 101
    assert not Counter(t for m in command.melds for t in m) - Counter(OPENS.split())


@pytest.mark.parametrize("bot", [level1, level2, Level3()], ids=["1", "2", "3"])
def test_no_level_discards_an_okey_while_another_tile_will_do(bot: Bot) -> None:
    # the okey K13 twice, drawn last: level 1 would discard the drawn tile if it could
    command = bot(view(f"{SHORT_OF_IT} K13 K13"))
    assert isinstance(command, E.Discard) and command.tile != "K13"


def test_level1_never_takes_a_discard_and_throws_the_drawn_tile_when_loose() -> None:
    rack = OPENS.replace("B13 ", "")  # 95 points: the top B13 would open it
    assert kind(level1(view(rack, phase="draw", top="B13"))) == "Draw"
    assert level1(view(SHORT_OF_IT + " K8")) == E.Discard(table_id="", command_id="",
                                                          tile="K8")


def test_level2_takes_the_discard_that_opens_and_draws_otherwise() -> None:
    rack = OPENS.replace("B13 ", "")
    assert kind(level2(view(rack, phase="draw", top="B13"))) == "TakeDiscard"
    assert kind(level2(view(rack, phase="draw", top="K5"))) == "Draw"
    # having taken it, it opens with it
    command = level2(view(OPENS, taken="B13"))
    assert isinstance(command, E.Open) and any("B13" in m for m in command.melds)


def test_level2_never_discards_a_tile_playable_on_the_table() -> None:
    # north-sultan penalises a playable discard even before opening: K10 would complete
    # the group of 10s, and is otherwise the highest isolated tile
    table = [(1, "run", "Y1 Y2 Y3", 1), (2, "group", "R10 Y10 B10", 0)]
    v = view("R2 Y5 B8 K3 R6 K10 Y9 B9", melds=table)
    command = level2(v)
    assert isinstance(command, E.Discard)
    assert command.tile not in {"K10"} and not Seat(v).penalised(tiles.parse(command.tile))
    assert command.tile == "R6"  # the next highest isolated tile


def test_level2_cuts_the_highest_isolated_tile_before_opening() -> None:
    # R12 is isolated and highest; B8 Y9 K10 have partners nearby
    command = level2(view("R2 R3 Y5 B8 B9 Y9 Y10 K10 K11 R12"))
    assert command == E.Discard(table_id="", command_id="", tile="R12")


def test_level2_lays_off_and_lays_new_melds_after_opening() -> None:
    opened = {"opened": "points", "opened_turn": 4, "opening_value": 108}
    table = [(0, "run", "B3 B4 B5", 3)]
    command = level2(view("R7 R8 R9 B6 K2", me=opened, melds=table))
    assert command == E.Lay(table_id="", command_id="", melds=[["R7", "R8", "R9"]])
    command = level2(view("B6 K2", me=opened, melds=table))
    assert command == E.LayOff(table_id="", command_id="", meld=0, tiles=["B6"], end="high")


def test_level2_takes_an_okey_from_the_table_when_it_holds_the_tile_it_stands_for() -> None:
    opened = {"opened": "points", "opened_turn": 4, "opening_value": 108}
    table = [(1, "run", "B3 K13=B4 B5", 3), (2, "run", "Y7 Y8 Y9", 7)]
    command = level2(view("B4 R9 K2 R1", me=opened, melds=table))
    assert command == E.TakeOkey(table_id="", command_id="", meld=0, tiles=["B4"])


def test_level3_discards_the_tile_whose_partners_are_dead() -> None:
    # R9 R10 and B9 B10 are alike, but both B8 and both B11 are in the discard piles:
    # level 2 cuts the higher pair (R10 first, red before blue), level 3 a dead blue one
    others = {1: {"discards": ["B8", "B11"]}, 2: {"discards": ["B8"]},
              3: {"discards": ["B11", "K1"]}}
    rack = "R1 R2 R3 Y5 Y6 Y7 R9 R10 B9 B10"
    assert level2(view(rack, others=others)) == E.Discard(table_id="", command_id="",
                                                          tile="R10")
    command = Level3()(view(rack, others=others))
    assert isinstance(command, E.Discard) and command.tile in {"B9", "B10"}


def test_level3_remembers_which_discard_the_next_player_took() -> None:
    memory = Memory(("t", 0, 1, 0))
    first = Seat(view("R2 Y5 B8 K3 R6", turn=20, me={"discards": ["K9"]}))
    memory.see(first)
    # four turns on: R6 left the rack and the pile did not grow: seat 1 took it
    later = Seat(view("R2 Y5 B8 K3 Y1", phase="draw", turn=24, me={"discards": ["K9"]}))
    memory.see(later)
    assert memory.fed == Counter({tiles.parse("R6"): 1})
    known = Knowledge(later, memory)
    assert known.live[tiles.parse("R6")] == 1  # one copy sits in seat 1's rack
    assert known.p_holds(1, tiles.parse("R6")) == 1.0
    # once seat 1 shows it in a meld of its own, it is no longer hidden: one copy is live
    shown = Seat(view("R2 Y5 B8 K3 Y1", phase="draw", turn=24, me={"discards": ["K9"]},
                      melds=[(1, "run", "R6 R7 R8", 6)]))
    known = Knowledge(shown, memory)
    assert known.live[tiles.parse("R6")] == 1 and not known.hidden[tiles.parse("R6")]
    # a discard left on the pile was not taken
    memory = Memory(("t", 0, 1, 0))
    memory.see(first)
    memory.see(Seat(view("R2 Y5 B8 K3 Y1", phase="draw", turn=24,
                         me={"discards": ["K9", "R6"]})))
    assert not memory.fed


def test_live_counts_leave_out_every_tile_the_seat_can_see() -> None:
    table = [(1, "run", "Y1 Y2 Y3", 1)]
    v = view("R2 R2 Y5", melds=table, others={2: {"discards": ["Y5", "B7"]}},
             indicator="K12")
    k = Knowledge(Seat(v))
    live = {tiles.name(t): n for t, n in enumerate(k.live)}
    assert live["R2"] == 0 and live["Y5"] == 0 and live["Y1"] == 1 and live["B7"] == 1
    assert live["K12"] == 1 and live["K4"] == 2  # the indicator is seen
    assert k.unseen == 106 - 3 - 3 - 2 - 1


def test_level3_goes_for_pairs_when_their_twins_are_live_and_points_are_far() -> None:
    # four pairs and scattered singles: points are far off, four twins of singles live
    rack = "R1 R1 Y4 Y4 B7 B7 K10 K10 R5 Y8 B12 K2 R13"
    play = Level3()
    command = play(view(rack))
    assert isinstance(command, E.Discard)
    paired = {"R1", "Y4", "B7", "K10"}
    assert command.tile not in paired  # keeps the pairs


def test_level3_in_points_play_keeps_its_pairs_while_the_pairs_plan_is_in_reach() -> None:
    # 87 points in melds and three pairs among the loose tiles: level 3 plays for points,
    # yet a discard before opening also weighs the pairs plan (two pairs short, twins
    # live): it throws the single K6 (or R8), not a tile of the pairs B2 R4 Y9, which
    # points alone would cut first (B2: the lowest tile with a partner)
    v = view("R11 Y11 B11 R12 Y12 B12 Y5 Y6 Y7 B2 B2 R4 R4 Y9 Y9 K6 R8")
    s = Seat(v)
    assert not Level3Play(s, Knowledge(s)).pairs_mode()
    command = Level3()(v)
    assert isinstance(command, E.Discard) and command.tile in {"K6", "R8"}


def test_level3_in_pairs_play_keeps_the_run_its_points_plan_needs() -> None:
    # four pairs: level 3 plays for pairs, but a single of the run Y5-Y6-Y7 still counts
    # toward its points plan (87 points with it): it throws the single R8 instead
    v = view("R11 Y11 B11 R12 Y12 B12 Y5 Y6 Y7 B2 B2 R4 R4 Y9 Y9 K6 K6 R8")
    s = Seat(v)
    assert Level3Play(s, Knowledge(s)).pairs_mode()
    command = Level3()(v)
    assert command == E.Discard(table_id="", command_id="", tile="R8")


# five pairs, and 96 points in melds (the 13s, the 12s, K6-K8) that many draws lift to 101
# (K5, K9, the okey K13, a third 2 or 4, ...): about four draws expected
HELD_PAIRS = "R13 Y13 B13 R12 Y12 B12 K6 K7 K8 R2 R2 Y2 Y2 R4 R4 Y4 Y4 B9 B9 K1 R7"


def test_level3_holds_a_pairs_opening_back_while_points_are_expected_in_the_draws_left(
) -> None:
    # a pairs opener's rack counts twice (RULES.md section 8): with five draws left
    # (deck 20) level 3 keeps the pairs and throws a single, where level 2 opens with them;
    # on its last draw (deck 3) it opens with the pairs too
    assert Level3()(view(HELD_PAIRS, deck=20)) == E.Discard(table_id="", command_id="",
                                                            tile="K1")
    assert kind(level2(view(HELD_PAIRS, deck=20))) == "Open"
    late = Level3()(view(HELD_PAIRS, deck=3))
    assert isinstance(late, E.Open) and late.pairs and not late.melds


def test_level3_does_not_take_a_discard_that_opens_by_pairs_only_while_it_holds_them(
) -> None:
    rack = HELD_PAIRS.replace(" B9 B9", " B9")  # the top B9 would make the fifth pair
    assert kind(Level3()(view(rack, phase="draw", top="B9", deck=20))) == "Draw"
    assert kind(level2(view(rack, phase="draw", top="B9", deck=20))) == "TakeDiscard"
    assert kind(Level3()(view(rack, phase="draw", top="B9", deck=3))) == "TakeDiscard"


def test_table_melds_read_from_the_view_match_the_engine_notation() -> None:
    okey = tiles.parse("K13")
    meld = meld_of_view(MeldView(index=0, owner=1, kind="run", tiles=["B3", "K13=B4", "B5"],
                               start=3, laid_turn=1), okey)
    assert meld.kind == "run" and meld.start == 3 and meld.value() == 12
    assert meld.tiles[1] == (okey, tiles.parse("B4"))


def test_the_view_carries_no_hidden_tile() -> None:
    """What a bot is given has no deck, no seed and no other rack: only sizes."""
    seed = match_seeds(5, 1)[0]
    seen: list[PlayerView] = []

    def spy(v: PlayerView) -> E.Command:
        seen.append(v)
        return level2(v)

    record = play_match({"base": "north-sultan", "options": {"hands_per_match": 1}}, seed,
                        players=[spy] * 4)
    dealt = next(e for e in record.events if isinstance(e, E.HandDealt))
    for v in seen[:40]:
        data = msgspec.json.encode(v).decode()
        assert dealt.seed not in data and "deck" not in msgspec.to_builtins(v)["hand"]
        assert set(msgspec.to_builtins(v)) == set(PlayerView.__struct_fields__)
        for s in msgspec.to_builtins(v)["hand"]["seats"]:
            assert "rack" not in s


@pytest.mark.parametrize("opened", [False, True], ids=["before-opening", "after-opening"])
def test_level2_avoids_discarding_a_tile_that_opens_the_next_seat_in_okeygg(
        opened: bool) -> None:
    # B13 and K4 are both loose. okeygg charges the discarder 10x the tile's value when the
    # next player opens with it (RULES.md section 6): to an unopened next seat level 2
    # throws the cheap K4, not the B13 that could cost 130; where nobody charges it (or
    # the next seat has opened already) it cuts the higher B13 as before.
    me = {"opened": "points", "opened_turn": 4, "opening_value": 108} if opened else None
    rack = "B13 K4" if opened else "R5 R6 R7 Y5 Y6 Y7 B13 K4"
    nxt_open = {1: {"opened": "points", "opened_turn": 5, "opening_value": 105}}
    discard = E.Discard(table_id="", command_id="", tile="K4")
    assert level2(view(rack, name="okeygg", me=me)) == discard
    assert level2(view(rack, name="okeygg", me=me, others=nxt_open)) == \
        E.Discard(table_id="", command_id="", tile="B13")
    assert level2(view(rack, name="north-sultan", me=me)) == \
        E.Discard(table_id="", command_id="", tile="B13")


def test_level3_keeps_an_okey_for_the_finishing_discard() -> None:
    # K13 is the okey (indicator K12). Y1-Y4 and K3-K5 go down without it, so level 3 lays
    # them and finishes by discarding the okey (-202, the others' racks doubled: RULES.md
    # section 8); level 2 spends the okey in a run and finishes with a plain tile
    opened = {"opened": "points", "opened_turn": 4, "opening_value": 108}
    rack = "Y1 Y2 Y3 Y4 K3 K4 K5 K13"
    command = Level3()(view(rack, me=opened))
    assert command == E.Lay(table_id="", command_id="",
                            melds=[["Y1", "Y2", "Y3", "Y4"], ["K3", "K4", "K5"]])
    assert Level3()(view("K13", me=opened)) == E.Discard(table_id="", command_id="",
                                                         tile="K13")
    level2_lay = level2(view(rack, me=opened))
    assert isinstance(level2_lay, E.Lay) and any("K13" in t for m in level2_lay.melds
                                                 for t in m)


def _last_hand(rack: str, totals: list[int], deck: int = 12) -> PlayerView:
    """An opened seat 0 holding `rack` on the match's last hand; the next seat has opened
    (feeding it costs little, so the discard turns on the rack alone)."""
    opened = {"opened": "points", "opened_turn": 4, "opening_value": 108}
    nxt = {1: {"opened": "points", "opened_turn": 5, "opening_value": 105}}
    return msgspec.structs.replace(view(rack, me=opened, others=nxt, deck=deck), totals=totals,
                                   hand_scores=[[0] * 4] * 10)


def test_level3_after_opening_counts_a_loose_tile_as_a_step_from_the_finish() -> None:
    # R11 R12 wait for R10, R13 or an okey (a 1-in-4 chance in five draws); K2 is dead.
    # By value alone R12 goes (12 x 3/4 at risk against 2); a loose tile also keeps the
    # seat from finishing (-101 against its rack), so level 3 throws the dead K2
    command = Level3()(_last_hand("R11 R12 K2", [0, 0, 0, 0], deck=20))
    assert command == E.Discard(table_id="", command_id="", tile="K2")


def test_level3_far_behind_on_the_last_hand_plays_for_the_finish() -> None:
    # two draws left: at an even standing R12 (a 1-in-9 chance to be used) goes before
    # the dead K1 (its value outweighs the finish);
    # 200 behind the leader on the last hand only a finish can win the match: K1 goes
    even = Level3()(_last_hand("R11 R12 K1", [0, 0, 0, 0], deck=8))
    assert even == E.Discard(table_id="", command_id="", tile="R12")
    behind = Level3()(_last_hand("R11 R12 K1", [300, 100, 150, 200], deck=8))
    assert behind == E.Discard(table_id="", command_id="", tile="K1")
    # not before the last hand, nor while it leads
    early = msgspec.structs.replace(_last_hand("R11 R12 K1", [300, 100, 150, 200], deck=8),
                                    hand_scores=[[0] * 4] * 9)
    assert Level3()(early) == even
    assert Level3()(_last_hand("R11 R12 K1", [0, 100, 150, 200], deck=8)) == even


def test_rival_weights_are_even_at_an_even_standing_and_follow_the_leader() -> None:
    assert rival_weights([0, 0, 0, 0], 0, 4) == pytest.approx([0, 1 / 3, 1 / 3, 1 / 3])
    # the last hand: seat 1 leads seat 0 by 100, seat 3 trails it by 400 (out of reach)
    weights = rival_weights([100, 0, 150, 500], 0, 1)
    assert weights[0] == 0 and sum(weights) == pytest.approx(1)
    assert weights[1] > weights[2] > 0.1 and weights[3] < 0.01


def test_level3_weighs_feeding_the_next_player_by_its_place_in_the_match() -> None:
    def feed_weight(totals: list[int]) -> float:
        v = msgspec.structs.replace(view(SHORT_OF_IT), totals=totals,
                                    hand_scores=[[0] * 4] * 10)  # the last hand
        s = Seat(v)
        return Level3Play(s, Knowledge(s)).feed_weight

    even = feed_weight([0, 0, 0, 0])
    assert even == pytest.approx(0.1)
    assert feed_weight([100, 0, 150, 150]) > 2 * even  # the next player (seat 1) leads
    assert feed_weight([0, 600, 50, 50]) < 0.01 * even  # it is out of reach


def test_the_neighbour_table_holds_exactly_the_tiles_that_could_share_a_run_or_group() -> None:
    from okey101.bots.inference import _near_uncached, _neighbour_table
    for okey in (tiles.parse("K13"), tiles.parse("R1"), tiles.parse("Y7")):
        for wraps in (False, True):
            table = _neighbour_table(okey, wraps)
            for a in range(tiles.KINDS):
                expected = {b for b in range(tiles.KINDS)
                            if b != a and _near_uncached(okey, wraps, a, b)}
                assert table[a] == expected, (tiles.name(a), okey, wraps)
    # R12 sits with R10 R11 R13 and the other 12s, R1 only where 13-1 wraps, and the okey
    table = _neighbour_table(tiles.parse("K13"), False)
    assert {tiles.name(t) for t in table[tiles.parse("R12")]} == \
        {"R10", "R11", "R13", "Y12", "B12", "K12", "K13"}
    assert tiles.parse("R1") in _neighbour_table(tiles.parse("K13"), True)[tiles.parse("R12")]
