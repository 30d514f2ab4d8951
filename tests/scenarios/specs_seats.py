"""Specs: who sits at the table. RULES.md section 9 (leaving, substitutes, the reconnect
window) and section 11 (bots taking seats)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.scenarios.builder import Sc, scenario

OPEN1 = [["R10", "R11", "R12", "R13"], ["B10", "B11", "B12", "B13"], ["K3", "K4", "K5"]]
LAY2 = [["Y1", "Y2", "Y3", "Y4"], ["Y7", "Y8", "Y9"], ["K8", "K9", "K10"]]
# the seqs of a scenario table: create 1, four sits 2-5, match started 6, seeded 7, hand
# started 8, dealt 9, four racks 10-13; then seat 0 discards (14), seat 1 draws (15), opens
# (16) and discards (17)
SEAT1_OPENED_SEQ = 17


def _tiles(groups: list[list[str]]) -> list[str]:
    return [t.split("=")[0] for g in groups for t in g]


def _result(player: str, seat: int, place: int, change: int | None, left: bool = False,
            substitute: bool = False) -> dict[str, Any]:
    return {"player_id": player, "seat": seat, "place": place, "change": change,
            "left": left, "substitute": substitute}


def _seat1_opens(S: Sc, between: Callable[[Sc], None] | None = None) -> None:
    """Seat 1 opens 104 on its first turn (nobody else opens); `between(S)` runs then;
    seats 2, 3 and 0 play a turn each. Seat 1 holds LAY2 and finishes with it."""
    S.deal("Y5", 0, r1=[*_tiles(OPEN1), *_tiles(LAY2)])
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, OPEN1)
    S.discard(1, d1)
    if between is not None:
        between(S)
    for seat in (2, 3, 0):
        S.idle(seat)


# ---------------------------------------------------------------- §9 leaving, substitutes
@scenario("classic", "leaving_a_running_match_costs_2n_and_a_substitute_cannot_lose",
          "RULES.md §9 (classic): p2 leaves the running 1-hand match: -2N (-2) whatever the "
          "totals, and may not sit in it again; s2 sits in the left seat, completes the "
          "match in a shared last place (0) and cannot lose: +1 for finishing it")
def _leaving(S: Sc) -> None:
    def leave_and_substitute(S: Sc) -> None:
        S.raw(2, "leave", x={"events": ["player_left"], "has": [
            {"type": "player_left", "seat": 2, "player_id": "p2", "reason": "left"}]})
        S.raw(2, "sit", player_id="p2", x="left_this_match")
        S.raw(2, "sit", player_id="s2", x={"events": ["player_sat"]})
    _seat1_opens(S, leave_and_substitute)
    d2 = S.draw(1)
    S.lay(1, LAY2)
    S.discard(1, d2, x={"events": ["tile_discarded", "hand_ended", "match_ended"], "has": [
        {"type": "match_ended", "places": [2, 1, 2, 2], "rating_changes": [0, 1, 1, 0],
         "results": [_result("p0", 0, 2, 0), _result("p1", 1, 1, 1),
                     _result("p2", 2, 2, -2, left=True),
                     _result("s2", 2, 2, 1, substitute=True), _result("p3", 3, 2, 0)]}]})
    S.expect(status="over", totals=[202, -101, 202, 202])


@scenario("classic", "a_substitute_who_wins_gains",
          "RULES.md §9 (classic): a 2-hand match; p1 wins hand 1, then leaves (-2N = -4); "
          "s1 takes the seat, wins hand 2 and so the match: a substitute who wins gains "
          "(+N = +2), not just the +1 for finishing")
def _substitute_wins(S: Sc) -> None:
    _seat1_opens(S)
    d2 = S.draw(1)
    S.lay(1, LAY2)
    S.discard(1, d2, x={"has": [{"type": "hand_ended", "finished_by": 1}]})
    S.deal("Y5", 1, r1=[*_tiles(OPEN1), *_tiles(LAY2)])
    S.raw(1, "leave", x={"events": ["player_left"]})
    S.raw(1, "sit", player_id="s1", x={"events": ["player_sat"]})
    S.open(1, OPEN1)
    S.discard(1)
    S.idle(2)
    S.idle(3)
    S.idle(0)
    d2 = S.draw(1)
    S.lay(1, LAY2)
    S.discard(1, d2, x={"has": [
        {"type": "match_ended", "places": [2, 1, 2, 2], "rating_changes": [0, 2, 0, 0],
         "results": [_result("p0", 0, 2, 0), _result("p1", 1, 1, -4, left=True),
                     _result("s1", 1, 1, 2, substitute=True), _result("p2", 2, 2, 0),
                     _result("p3", 3, 2, 0)]}]})
    S.expect(status="over", totals=[404, -202, 404, 404])


@scenario("classic", "a_substitute_on_the_losing_team_cannot_lose",
          "RULES.md §9, §10 (classic, partners): seat 1 finishes, so seats 1 and 3 win and "
          "seats 0 and 2 lose N (-1); p2 left (-2N, -2) and its substitute s2, on the losing "
          "team, gets +1 for finishing the match instead of -1",
          options={"partners": True})
def _substitute_partners(S: Sc) -> None:
    def leave_and_substitute(S: Sc) -> None:
        S.raw(2, "leave", x={"events": ["player_left"]})
        S.raw(2, "sit", player_id="s2", x={"events": ["player_sat"]})
    _seat1_opens(S, leave_and_substitute)
    d2 = S.draw(1)
    S.lay(1, LAY2)
    S.discard(1, d2, x={"has": [
        {"type": "match_ended", "team_totals": [404, -101], "rating_changes": [-1, 1, 1, 1],
         "results": [_result("p0", 0, 3, -1), _result("p1", 1, 1, 1),
                     _result("p2", 2, 3, -2, left=True),
                     _result("s2", 2, 3, 1, substitute=True), _result("p3", 3, 2, 1)]}]})
    S.expect(status="over", totals=[202, -101, 202, 0])


@scenario("north-sultan", "match_results_name_every_account_of_a_seat",
          "RULES.md §9, §11 (north-sultan): p2 leaves and a bot takes the seat; the match "
          "result lists every account that sat in each seat, who left and who substituted "
          "(north-sultan's standings are the leaderboards': no change in the engine)")
def _results_ns(S: Sc) -> None:
    def leave_and_bot(S: Sc) -> None:
        S.raw(2, "leave", x={"events": ["player_left"]})
        S.raw(2, "replace_with_bot", bot_id="u2a7f", x={"events": ["player_sat"]})
    _seat1_opens(S, leave_and_bot)
    d2 = S.draw(1)
    S.lay(1, LAY2)
    S.discard(1, d2, x={"has": [
        {"type": "match_ended", "rating_changes": None,
         "results": [_result("p0", 0, 2, None), _result("p1", 1, 1, None),
                     _result("p2", 2, 2, None, left=True),
                     _result("u2a7f", 2, 2, None, substitute=True),
                     _result("p3", 3, 2, None)]}]})
    S.expect(status="over")


# ---------------------------------------------------------------- §9 the reconnect window
@scenario("classic", "a_disconnected_player_has_7_minutes_to_come_back",
          "RULES.md §9 (classic): the gateway reports p2 disconnected at t=1 s: back by "
          "t=421 s; p2 is reported back in time and the window closes; disconnected again at "
          "t=10 s, its turn times out as usual; the window's expiry is refused before "
          "t=430 s and at 430 s the seat is left (-2N, -2 here); p2 may not sit again, "
          "s2 substitutes and gets +1 for finishing")
def _reconnect(S: Sc) -> None:
    first, second = SEAT1_OPENED_SEQ + 1, SEAT1_OPENED_SEQ + 3  # the reconnect between

    def drop_out(S: Sc) -> None:
        S.raw(2, "report_disconnect", at=1_000, x={"events": ["player_disconnected"], "has": [
            {"type": "player_disconnected", "seat": 2, "player_id": "p2",
             "reconnect_by": 421_000}]})
        S.raw(2, "report_disconnect", at=2_000, x="already_disconnected")
        S.raw(2, "report_reconnect", at=5_000, x={"events": ["player_reconnected"]})
        S.raw(2, "expire_reconnect_window", since=first, at=500_000, x="no_such_window")
        S.raw(2, "report_disconnect", at=10_000, x={"has": [
            {"type": "player_disconnected", "reconnect_by": 430_000, "seq": second}]})
        S.timeout(2)
        S.raw(2, "expire_reconnect_window", since=second, player_id="p2", at=429_999,
              x="reconnect_window_open")
        S.raw(2, "expire_reconnect_window", since=second, player_id="p2", at=430_000,
              x={"events": ["player_left"], "has": [
                  {"type": "player_left", "seat": 2, "player_id": "p2",
                   "reason": "disconnected"}]})
        S.raw(2, "report_reconnect", player_id="p2", at=431_000, x="not_your_seat")
        S.raw(2, "sit", player_id="p2", x="left_this_match")
        S.raw(2, "sit", player_id="s2", x={"events": ["player_sat"]})
    S.deal("Y5", 0, r1=[*_tiles(OPEN1), *_tiles(LAY2)])
    S.discard(0)
    d1 = S.draw(1, safe=True)
    S.open(1, OPEN1)
    S.discard(1, d1)
    drop_out(S)  # seat 2's turn is timed out in there
    S.idle(3)
    S.idle(0)
    d2 = S.draw(1)
    S.lay(1, LAY2)
    S.discard(1, d2, x={"has": [
        {"type": "match_ended", "results": [
            _result("p0", 0, 2, 0), _result("p1", 1, 1, 1), _result("p2", 2, 2, -2, left=True),
            _result("s2", 2, 2, 1, substitute=True), _result("p3", 3, 2, 0)]}]})
    S.expect(status="over")


for _house in ("north-sultan", "okeygg", "okey-oyna"):
    @scenario(_house, "a_disconnect_opens_no_reconnect_window",
              f"RULES.md §9 ({_house}): only classic gives a disconnected player a window to "
              "come back; here the report is refused and the seat's turns time out as usual")
    def _no_window(S: Sc) -> None:
        S.deal("Y5", 0)
        S.discard(0)
        S.raw(1, "report_disconnect", at=1_000, x="no_reconnect_window")
        S.timeout(1)
        S.expect(turn=3, to_act=2)
