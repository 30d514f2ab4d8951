"""Specs: RULES.md section 2 (seats, deal, turn) and the envelope (seq, seat, time-outs)."""

from __future__ import annotations

from okey101 import tiles
from tests.scenarios.builder import Sc, scenario

# seat 1 opens with these and R10 (R10-R13 46, B10-B13 46, K3-K5 12: 104)
NEEDS_R10 = ["R11", "R12", "R13", "B10", "B11", "B12", "B13", "K3", "K4", "K5"]
OPEN_WITH_R10 = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]


def highest(S: Sc, seat: int) -> str:
    """The time-out discard of a rack that melds nothing: its highest tile (lowest kind on
    a tie), never the okey."""
    okey = tiles.parse(S.okey)
    rack = [tiles.parse(t) for t in S.rack[seat] if tiles.parse(t) != okey]
    return tiles.name(max(rack, key=lambda t: (tiles.face_value(t, okey), -t)))


@scenario("okeygg", "starter_gets_22_and_discards_first_without_drawing",
          "RULES.md §2 (okeygg): the starter gets 22 tiles, the others 21; the starter "
          "discards first without drawing; play then passes seat by seat")
def _starter(S: Sc) -> None:
    S.deal("Y5", 0)
    S.draw(0, x="wrong_phase")
    S.draw(1, x="not_your_turn")
    S.discard(0)
    S.discard(0, x="not_your_turn")
    S.draw(2, x="not_your_turn")
    S.draw(1, x={"events": ["tile_drawn"]})
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.discard(0)
    S.expect(racks=S.racks(), turn=6, to_act=1, totals=[0, 0, 0, 0])


@scenario("north-sultan", "play_passes_right_and_you_take_from_the_left",
          "RULES.md §2 (north-sultan): you take the tile the previous (left) player just "
          "discarded; seat 1 takes seat 0's R10 and opens with it; seat 2 may take only "
          "seat 1's discard")
def _left(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R10"], r1=NEEDS_R10)
    S.discard(0, "R10")
    S.take(2, x="not_your_turn")
    S.take(1, x={"has": [{"type": "discard_taken", "seat": 1, "tile": "R10"}]})
    S.open(1, OPEN_WITH_R10, x={"has": [{"type": "hand_opened", "value": 104}]})
    tile = S.discard(1)
    S.take(2, x="cannot_open_with_discard")
    S.draw(2)
    S.discard(2)
    S.expect(opened=[None, "points", None, None], penalties=[0, 0, 0, 0])
    S.note(f"seat 2 cannot open with seat 1's {tile}")


for house in ("north-sultan", "okey-oyna"):
    @scenario(house, "unopened_take_you_cannot_open_with_is_rejected",
              f"RULES.md §2 ({house}): a player who has not opened may take the previous "
              "discard only if they open with it that turn; the server rejects the take")
    def _reject(S: Sc) -> None:
        S.deal("Y5", 0, r0=["R10"])
        S.discard(0, "R10")
        S.take(1, x="cannot_open_with_discard")
        S.draw(1)
        S.discard(1)
        S.expect(racks=S.racks(), penalties=[0, 0, 0, 0])

    @scenario(house, "unopened_take_must_open_with_the_taken_tile",
              f"RULES.md §2 ({house}): a player who takes the discard unopened must open "
              "that turn with the taken tile (or its twin) in the opening")
    def _must_open(S: Sc) -> None:
        S.deal("Y5", 0, r0=["R10"], r1=NEEDS_R10)
        S.discard(0, "R10")
        S.take(1)
        S.discard(1, x="must_open_with_taken_tile")
        S.open(1, [["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"], ["R11", "R12", "R13"]],
               x="must_open_with_taken_tile")
        S.open(1, OPEN_WITH_R10)
        S.discard(1)
        S.expect(opened=[None, "points", None, None], penalties=[0, 0, 0, 0])


for house in ("okeygg", "classic"):
    @scenario(house, "unopened_take_can_be_put_back",
              f"RULES.md §2 ({house}): a UI house lets an unopened player take the discard "
              "and put it back without penalty while nothing is laid; then they draw")
    def _put_back(S: Sc) -> None:
        S.deal("Y5", 0, r0=["R10"])
        S.discard(0, "R10")
        S.take(1, x={"events": ["discard_taken"]})
        S.discard(1, x="must_open_with_taken_tile")
        S.lay(1, [["R11", "R12", "R13"]], x="not_opened")
        S.put_back(1, x={"events": ["discard_put_back"]})
        S.take(1, x="put_back_must_draw")
        S.draw(1)
        S.discard(1)
        S.idle(2)
        S.expect(racks=S.racks(), penalties=[0, 0, 0, 0], totals=[0, 0, 0, 0])


@scenario("okeygg", "put_back_is_not_allowed_after_laying",
          "RULES.md §2 (okeygg): the taken discard may go back only while nothing is laid; "
          "opening with it is final (and §6: the discarder pays 10 x R10 = 100)")
def _no_put_back(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R10"], r1=NEEDS_R10)
    S.discard(0, "R10")
    S.take(1)
    S.open(1, OPEN_WITH_R10, x={"events": ["hand_opened", "penalty_imposed"], "has": [
        {"type": "penalty_imposed", "seat": 0, "points": 100,
         "reason": "opener_used_discard"}]})
    S.put_back(1, x="already_laid")
    S.discard(1)
    S.expect(penalties=[100, 0, 0, 0], opened=[None, "points", None, None])


@scenario("north-sultan", "put_back_is_not_a_north_sultan_move",
          "RULES.md §2 (north-sultan): the server rejects a take it cannot honour, so there "
          "is nothing to put back")
def _ns_put_back(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R10"], r1=NEEDS_R10)
    S.discard(0, "R10")
    S.take(1)
    S.put_back(1, x="put_back_not_allowed")
    S.open(1, OPEN_WITH_R10)
    S.discard(1)
    S.expect(opened=[None, "points", None, None])


@scenario("north-sultan", "opened_player_takes_the_discard_freely",
          "RULES.md §2 (north-sultan): once opened, taking the previous discard is free: "
          "the taken tile need not be used")
def _free_take(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R10", "B3"], r1=NEEDS_R10)
    S.discard(0, "R10")
    S.take(1)
    S.open(1, OPEN_WITH_R10)
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.discard(0, "B3")
    S.take(1, x={"has": [{"type": "discard_taken", "tile": "B3"}]})
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0], racks=S.racks())


@scenario("okey-oyna", "opened_take_must_be_used_the_same_turn",
          "RULES.md §2 (okey-oyna): after opening, a taken discard must still be laid down "
          "in that same turn; a tile that cannot be used cannot be taken")
def _must_use(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R10", "B3", "R9"], r1=NEEDS_R10)
    S.discard(0, "R10")
    S.take(1)
    S.open(1, OPEN_WITH_R10)
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.discard(0, "B3")
    S.take(1, x="cannot_use_discard")
    S.draw(1)
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.discard(0, "R9", x={"has": [  # playable on seat 1's R10-R13: 101, opened or not (§6)
        {"type": "penalty_imposed", "seat": 0, "points": 101, "reason": "playable_discard"}]})
    S.take(1)
    S.discard(1, x="taken_tile_not_used")
    S.lay_off(1, 0, ["R9"], x={"has": [{"type": "tiles_laid_off", "end": "low"}]})
    S.discard(1)
    S.expect(penalties=[101, 0, 0, 0], racks=S.racks())


@scenario("classic", "declared_pairs_still_cannot_take_without_opening",
          "RULES.md §2 (classic): a player who declared pairs (çifte gidiyorum) still may "
          "not take a discard unless they open in that turn")
def _declared(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R10"], r1=["K2", "K2", "B4", "B4", "Y9", "Y9", "R12", "R12"])
    S.discard(0, "R10")
    S.declare(1, x={"events": ["pairs_declared"]})
    S.take(1)
    S.discard(1, x="must_open_with_taken_tile")
    S.open(1, pairs=[["K2", "K2"], ["B4", "B4"], ["Y9", "Y9"], ["R12", "R12"]],
           x="must_open_with_taken_tile")
    S.put_back(1)
    S.draw(1)
    S.discard(1)
    S.expect(opened=[None, None, None, None], penalties=[0, 0, 0, 0])


@scenario("classic", "declared_pairs_take_the_discard_and_open_pairs_with_it",
          "RULES.md §2, §4 (classic): a pairs-declarer takes the discard that makes their "
          "fifth pair and opens with it")
def _declared_ok(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R10"],
           r1=["K2", "K2", "B4", "B4", "Y9", "Y9", "R12", "R12", "R10"])
    S.discard(0, "R10")
    S.declare(1)
    S.take(1)
    S.open(1, pairs=[["K2", "K2"], ["B4", "B4"], ["Y9", "Y9"], ["R12", "R12"], ["R10", "R10"]],
           x={"has": [{"type": "hand_opened", "kind": "pairs", "value": 5}]})
    S.discard(1)
    S.expect(opened=[None, "pairs", None, None], penalties=[0, 0, 0, 0])


@scenario("north-sultan", "a_discarded_okey_may_be_taken",
          "RULES.md §2, §6 (north-sultan): the next player may take a discarded okey; the "
          "discarder is still penalised 101")
def _okey_taken(S: Sc) -> None:
    S.deal("Y5", 0, r0=["Y6"], r1=NEEDS_R10)
    S.discard(0, "Y6", x={"events": ["tile_discarded", "penalty_imposed"], "has": [
        {"type": "penalty_imposed", "seat": 0, "points": 101, "reason": "okey_discarded"}]})
    S.take(1)
    S.open(1, [["Y6=R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"],
               ["K3", "K4", "K5"]], x={"has": [{"type": "hand_opened", "value": 104}]})
    S.discard(1)
    S.expect(penalties=[101, 0, 0, 0], totals=[101, 0, 0, 0])


@scenario("okeygg", "a_discarded_okey_can_never_be_taken",
          "RULES.md §2, §6 (okeygg): a discarded okey can never be taken (a rule, not a "
          "penalty); the discarder pays 101")
def _okey_never(S: Sc) -> None:
    S.deal("Y5", 0, r0=["Y6"], r1=NEEDS_R10)
    S.discard(0, "Y6", x={"has": [{"type": "penalty_imposed", "seat": 0, "points": 101}]})
    S.take(1, x="okey_discard_untakeable")
    S.draw(1)
    S.discard(1)
    S.expect(penalties=[101, 0, 0, 0])


@scenario("okeygg", "a_discarded_okey_cannot_be_taken_with_penalties_off",
          "RULES.md §2, §6 (okeygg, cezalı off): no penalty for the okey discard, and it "
          "still cannot be taken: a rule, not a penalty",
          options={"penalties": False})
def _okey_never_off(S: Sc) -> None:
    S.deal("Y5", 0, r0=["Y6"], r1=NEEDS_R10)
    S.discard(0, "Y6", x={"events": ["tile_discarded"]})
    S.take(1, x="okey_discard_untakeable")
    S.draw(1)
    S.discard(1)
    S.expect(penalties=[0, 0, 0, 0])


# ---------------------------------------------------------------- the envelope
@scenario("north-sultan", "stale_seq_wrong_player_and_wrong_turn_are_rejected",
          "RULES.md §2 (north-sultan), the command envelope: a command decided against an "
          "old table seq, a player who does not sit at the seat, and a seat acting out of "
          "turn are rejected and change nothing")
def _envelope(S: Sc) -> None:
    S.deal("Y5", 0)
    S.raw(0, "discard", x="stale_seq", tile=S.rack[0][0] if S.rack[0] else "R1", seq=3)
    S.raw(1, "draw", x="not_your_seat", player_id="p2")
    S.draw(1, x="not_your_turn")
    S.discard(0)
    S.raw(1, "draw", x="not_your_seat", player_id="p0")
    S.draw(1)
    S.discard(1)
    S.expect(racks=S.racks(), turn=3, to_act=2)


@scenario("north-sultan", "a_timeout_draws_and_discards_for_the_player",
          "RULES.md §2 (north-sultan): on time-out the server plays for the player: the "
          "starter (no draw) discards its highest loose tile; seat 1 times out before "
          "drawing, so the server draws for it and discards its highest loose tile")
def _timeout(S: Sc) -> None:
    S.deal("Y5", 0)
    S.timeout(0, draws=False, x={"events": ["turn_timed_out", "tile_discarded"]})
    S.timeout(1, x={"events": ["turn_timed_out", "tile_drawn", "tile_discarded"]})
    S.draw(2)
    S.timeout(2, draws=False, x={"events": ["turn_timed_out", "tile_discarded"]})
    S.expect(turn=4, to_act=3, penalties=[0, 0, 0, 0], racks=S.racks())


@scenario("okeygg", "a_stale_timeout_is_rejected",
          "RULES.md §2 (okeygg): a time-out names the turn it is for; one that arrives after "
          "the player moved is stale and rejected")
def _stale_timeout(S: Sc) -> None:
    S.deal("Y5", 0)
    S.discard(0)
    S.timeout(1, turn=1, x="stale_timeout")
    S.timeout(2, x="not_your_turn")
    S.draw(1)
    S.discard(1)
    S.timeout(2, turn=2, x="stale_timeout")
    S.timeout(2)
    S.expect(turn=4, to_act=3, racks=S.racks())


@scenario("okeygg", "a_timeout_puts_back_an_unused_discard",
          "RULES.md §2 (okeygg): a player who took the discard unopened and timed out "
          "without laying anything: the server puts the tile back, draws and discards")
def _timeout_put_back(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R10"])
    S.discard(0, "R10")
    S.take(1)
    S.timeout(1, put_back=True, x={"events": ["turn_timed_out", "discard_put_back",
                                              "tile_drawn", "tile_discarded"]})
    S.expect(penalties=[0, 0, 0, 0], racks=S.racks())


@scenario("north-sultan", "a_bot_replaces_a_seat",
          "RULES.md §2, §11 (north-sultan): a seat left by a player may be handed to a bot, "
          "which then plays that seat by the same rules; it sits like any player (no bot "
          "label, an id of the sender's choosing) and its level is the server record's")
def _bot(S: Sc) -> None:
    S.deal("Y5", 0)
    S.discard(0)
    S.raw(1, "leave", x={"events": ["player_left"]})
    S.draw(1, x="not_your_seat")
    S.raw(1, "replace_with_bot", x={"events": ["player_sat"], "has": [
        {"type": "player_sat", "seat": 1, "player_id": "u5c1e", "bot": False,
         "bot_level": 3}]}, bot_id="u5c1e", bot_level=3)
    S.draw(1)
    S.discard(1)
    S.raw(2, "replace_with_bot", x="seat_taken", bot_id="u90b2", player_id="p0")
    S.raw(2, "replace_with_bot", x={"events": ["player_left", "player_sat"]}, bot_id="u90b2")
    S.draw(2)
    S.discard(2)
    S.expect(turn=4, to_act=3, racks=S.racks())


@scenario("okey-oyna", "bots_are_labelled_at_the_table",
          "RULES.md §11 (okey-oyna): where the house labels bots, a bot taking a left seat "
          "sits as a bot for everyone to see")
def _bot_labelled(S: Sc) -> None:
    S.deal("Y5", 0)
    S.discard(0)
    S.raw(1, "leave", x={"events": ["player_left"]})
    S.raw(1, "replace_with_bot", x={"has": [
        {"type": "player_sat", "seat": 1, "player_id": "bot-1", "bot": True,
         "bot_level": 2}]}, bot_id="bot-1")
    S.draw(1)
    S.discard(1)
    S.expect(turn=3, to_act=2, racks=S.racks())


@scenario("classic", "classic_has_no_bots",
          "RULES.md §9, §11 (classic): classic has no bots; a seat cannot be handed to one")
def _no_bot(S: Sc) -> None:
    S.deal("Y5", 0)
    S.discard(0)
    S.raw(1, "replace_with_bot", x="no_bots", bot_id="bot-1")
    S.draw(1)
    S.discard(1)


@scenario("okey-oyna", "an_opened_take_may_be_used_in_a_new_meld_or_pair",
          "RULES.md §2, §4 (okey-oyna): an opened player takes K9 to lay K7 K8 K9; a "
          "pairs-opener takes B3 to lay a new pair B3 B3")
def _use_new(S: Sc) -> None:
    pairs = [["R2", "R2"], ["B4", "B4"], ["K1", "K1"], ["Y11", "Y11"], ["Y3", "Y3"]]
    S.deal("Y5", 0, r0=["K9"], r1=[*NEEDS_R10, "R10", "K7", "K8", "B3"],
           r2=[*[t for g in pairs for t in g], "B3"])
    S.discard(0)
    S.draw(1)
    S.open(1, OPEN_WITH_R10)
    S.discard(1)
    S.draw(2)
    S.open(2, pairs=pairs)
    S.discard(2)
    S.idle(3)
    S.draw(0)
    S.discard(0, "K9")
    S.take(1)
    S.lay(1, [["K7", "K8", "K9"]])
    S.discard(1, "B3")
    S.take(2)
    S.lay(2, pairs=[["B3", "B3"]])
    S.discard(2)
    S.expect(penalties=[0, 0, 0, 0], racks=S.racks())


@scenario("okey-oyna", "a_timeout_discards_a_taken_tile_left_unused",
          "RULES.md §2 (okey-oyna): an opened player took R9 (it must be laid), laid "
          "something else and timed out: the server discards the unused R9, which is "
          "playable, so the 101 for a playable discard applies (to seat 0 too, who threw "
          "it unopened: §6)")
def _timeout_unused(S: Sc) -> None:
    S.deal("Y5", 0, r0=["R9"], r1=[*NEEDS_R10, "R10", "K7", "K8", "K9"])
    S.discard(0)
    S.draw(1)
    S.open(1, OPEN_WITH_R10)
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.draw(0)
    S.discard(0, "R9")
    S.take(1)
    S.lay(1, [["K7", "K8", "K9"]])
    S.timeout(1, "R9", draws=False, x={
        "events": ["turn_timed_out", "tile_discarded", "penalty_imposed"]})
    S.expect(penalties=[101, 101, 0, 0], racks=S.racks())
