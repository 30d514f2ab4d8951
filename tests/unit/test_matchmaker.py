"""Halls, quick play and tournaments: the matchmaker's pure core (okey101.app.matchmaker)."""

from __future__ import annotations

import msgspec

from okey101 import codes
from okey101.app.matchmaker import core, halls
from okey101.app.matchmaker import records as R
from okey101.table import messages as E
from okey101.table.decide import decide
from okey101.table.evolve import NEW_TABLE, evolve

NS = "north-sultan"


def accounts(levels: dict[str, int] | None = None, ordinals: dict[str, float] | None = None
             ) -> core.Accounts:
    def look(house: str, player: str) -> core.Account:
        return core.Account((levels or {}).get(player, 1), (ordinals or {}).get(player, 0.0))
    return look


def ask(m: core.Matchmaker, player: str, at: int = 0, house: str = NS, hall: str = "",
        roles: list[str] | None = None, look: core.Accounts | None = None
        ) -> list[R.AnyDecision]:
    return m.handle(R.QuickPlay(request_id=f"q-{player}-{at}", house=house, player_id=player,
                                hall=hall, roles=roles or [], at=at), look or accounts(), at)


def refused(out: list[R.AnyDecision]) -> str:
    assert len(out) == 1 and isinstance(out[0], R.Refused), out
    return out[0].code


def rebuilt(m: core.Matchmaker, log: list[R.AnyDecision]) -> core.Matchmaker:
    again = core.Matchmaker(m.policy)
    for d in log:
        again.apply(R.decision_decoder.decode(R.encode(d)))
    return again


def test_a_player_is_placed_in_the_hall_of_their_level() -> None:
    m = core.Matchmaker()
    look = accounts({"a": 1, "b": 3, "c": 6, "d": 10, "e": 30})
    got = {p: ask(m, p, look=look)[0] for p in "abcde"}
    assert {p: d.hall for p, d in got.items() if isinstance(d, R.Waiting)} == {
        "a": "Acemi", "b": "Kalfa", "c": "Usta", "d": "Sultan", "e": "Sultan"}


def test_a_hall_above_the_level_is_refused_and_a_lower_one_is_open() -> None:
    m = core.Matchmaker()
    look = accounts({"a": 5})
    assert refused(ask(m, "a", hall="Usta", look=look)) == "hall_above_level"
    assert isinstance(ask(m, "a", at=1, hall="Acemi", look=look)[0], R.Waiting)


def test_bad_requests_are_refused_each_with_its_registered_code() -> None:
    m = core.Matchmaker()
    assert refused(ask(m, "a", at=1, house="nowhere")) == "unknown_house"
    assert refused(ask(m, "a", at=2, hall="Salon")) == "unknown_hall"
    assert refused(ask(m, "a", at=3, hall="Has Oda")) == "role_missing"
    ask(m, "a", at=4)
    assert refused(ask(m, "a", at=5)) == "already_waiting"
    assert refused(m.handle(R.CancelQuickPlay(request_id="c", house=NS, player_id="b"),
                            accounts(), 2)) == "nothing_waiting"
    assert all(code in codes.MATCHMAKING for code in (
        "unknown_house", "unknown_hall", "role_missing", "already_waiting", "nothing_waiting"))
    assert len(m.houses[NS].waiting) == 1  # nothing queued twice


def test_has_oda_takes_a_vip_of_any_level_and_its_table_is_an_ordinary_public_one() -> None:
    m = core.Matchmaker(core.Policy(bot_wait_ms=0))
    out = ask(m, "v", hall="Has Oda", roles=["vip"])
    assert isinstance(out[0], R.Waiting) and out[0].hall == "Has Oda"
    seated = m.tick(1)
    assert len(seated) == 1 and isinstance(seated[0], R.Seated)
    create = core.commands(seated[0])[0]
    assert isinstance(create, E.CreateTable)
    assert (create.profile, create.options, create.private) == (NS, {}, False)


def test_four_players_of_close_skill_are_seated_and_a_distant_one_waits() -> None:
    m = core.Matchmaker(core.Policy(window_base=2.0, window_per_s=0.0, bot_wait_ms=10**9))
    look = accounts(ordinals={"a": 10, "b": 11, "c": 9, "d": 10.5, "far": 30})
    for n, p in enumerate(["a", "far", "b", "c", "d"]):
        ask(m, p, at=n, look=look)
    out = m.tick(10)
    assert len(out) == 1 and isinstance(out[0], R.Seated)
    assert sorted(s.player_id for s in out[0].seats) == ["a", "b", "c", "d"]
    assert list(m.houses[NS].waiting) == ["far"]


def test_the_window_widens_with_the_time_waited() -> None:
    m = core.Matchmaker(core.Policy(window_base=1.0, window_per_s=1.0, bot_wait_ms=10**9))
    look = accounts(ordinals={"a": 0, "b": 5, "c": 5, "d": 5})
    for p in "abcd":
        ask(m, p, at=0, look=look)
    assert m.tick(3000) == []  # a's window is 4
    out = m.tick(4000)
    assert len(out) == 1 and isinstance(out[0], R.Seated) and out[0].window == 5.0


def test_seats_empty_past_the_wait_go_to_bots_of_a_level_near_the_players() -> None:
    m = core.Matchmaker(core.Policy(bot_wait_ms=5000))
    ask(m, "a", at=0, look=accounts(ordinals={"a": 20}))
    assert m.tick(4999) == []
    out = m.tick(5000)
    assert len(out) == 1 and isinstance(out[0], R.Seated)
    assert [(s.bot, s.bot_level) for s in out[0].seats] == [(False, 0)] + [(True, 3)] * 3


def test_a_house_without_bots_keeps_the_player_waiting() -> None:
    m = core.Matchmaker(core.Policy(bot_wait_ms=0))
    assert not halls.bots_allowed("classic")
    ask(m, "a", house="classic")
    assert m.tick(10**9) == []


def test_a_retried_request_is_decided_once() -> None:
    m = core.Matchmaker()
    q = R.QuickPlay(request_id="same", house=NS, player_id="a")
    assert len(m.handle(q, accounts(), 0)) == 1
    assert m.handle(q, accounts(), 1) == []


def test_a_cancelled_player_is_not_seated() -> None:
    m = core.Matchmaker(core.Policy(bot_wait_ms=0))
    ask(m, "a")
    out = m.handle(R.CancelQuickPlay(request_id="c", house=NS, player_id="a"), accounts(), 1)
    assert isinstance(out[0], R.Cancelled)
    assert m.tick(10) == []


def test_the_table_commands_seat_the_four_in_order_and_start_with_the_seatings_ids() -> None:
    m = core.Matchmaker(core.Policy(bot_wait_ms=0))
    ask(m, "a")
    (seated,) = m.tick(1)
    assert isinstance(seated, R.Seated)
    cmds = core.commands(seated)
    assert [type(c).__name__ for c in cmds] == ["CreateTable", "Sit", "Sit", "Sit", "Sit",
                                                 "StartMatch"]
    assert [c.seq for c in cmds] == [0, 1, 2, 3, 4, 5]
    assert len({c.command_id for c in cmds}) == 6
    assert core.commands(seated) == cmds  # derived again: the same ids


def test_the_table_engine_accepts_every_command_a_seating_writes() -> None:
    """create, four sits (players and bots), start: each accepted by the table's own
    decide (a start from seat -1 was refused as not_your_seat on the real broker)."""
    for humans in (4, 2, 1):
        m = core.Matchmaker(core.Policy(bot_wait_ms=0, window_base=100))
        for p in "abcd"[:humans]:
            ask(m, p)
        (seated,) = m.tick(1)
        assert isinstance(seated, R.Seated)
        state = NEW_TABLE
        kinds = []
        for command in core.commands(seated):
            if isinstance(command, E.StartMatch):  # as the processor does (its entropy)
                assert not command.seed
                command = msgspec.structs.replace(command, seed="ab" * 16)
            decision = decide(state, command)
            assert isinstance(decision, list), (command, decision)
            for event in decision:
                state = evolve(state, event)
                kinds.append(type(event).__struct_config__.tag)
        assert kinds[:6] == ["table_created", *["player_sat"] * 4, "match_started"], kinds
        assert [s.bot for s in seated.seats].count(True) == 4 - humans


def test_a_rebuilt_matchmaker_holds_the_same_waits_as_the_live_one() -> None:
    m = core.Matchmaker(core.Policy(bot_wait_ms=10**9))
    log: list[R.AnyDecision] = []
    look = accounts(ordinals={p: float(n * 7) for n, p in enumerate("abcdefg")})
    for n, p in enumerate("abcdefg"):
        log += ask(m, p, at=n, look=look)
    log += m.tick(100_000)
    again = rebuilt(m, log)
    assert again.houses[NS].waiting == m.houses[NS].waiting
    assert again.tick(200_000) == m.tick(200_000)


# ---------------------------------------------------------------- tournaments
def schedule(m: core.Matchmaker, size: int = 16, starts_at: int = 100, fill: bool = False,
             tid: str = "cup") -> list[R.AnyDecision]:
    return m.handle(R.ScheduleTournament(request_id=f"s-{tid}", house=NS, tournament_id=tid,
                                         starts_at=starts_at, size=size, hands=1,
                                         fill_with_bots=fill), accounts(), 0)


def register(m: core.Matchmaker, player: str, tid: str = "cup", at: int = 1
             ) -> list[R.AnyDecision]:
    return m.handle(R.Register(request_id=f"r-{player}-{at}", house=NS, player_id=player,
                               tournament_id=tid), accounts(), at)


def play_out(m: core.Matchmaker, log: list[R.AnyDecision], now: int,
             places: dict[str, int] | None = None) -> R.TournamentEnded:
    """Every tournament table ends; seat 0 wins unless `places` says otherwise."""
    pending = [d for d in log if isinstance(d, R.Seated)]
    while pending:
        table = pending.pop(0)
        players = [s.player_id for s in table.seats]
        got = [places.get(p, 4) if places else 1 + n for n, p in enumerate(players)]
        now += 1
        out = m.handle(R.TableEnded(request_id=f"end-{table.table_id}", house=NS,
                                    table_id=table.table_id, players=players, places=got,
                                    totals=[0] * 4), accounts(), now)
        log += out
        pending += [d for d in out if isinstance(d, R.Seated)]
        for d in out:
            if isinstance(d, R.TournamentEnded):
                return d
    raise AssertionError("the tournament did not end")


def test_a_64_entrant_tournament_plays_three_rounds_to_a_final_table() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=64, fill=True)
    log += m.tick(100)
    ended = play_out(m, log, 100)
    assert ended.matches == 16 + 4 + 1
    assert [p.place for p in ended.standings[:5]] == [1, 2, 3, 4, 5]
    assert {p.place for p in ended.standings[4:16]} == {5}
    assert {p.place for p in ended.standings[16:]} == {17}
    assert all(p.bot and not p.title and not p.league_points for p in ended.standings)


def test_humans_get_titles_and_league_points_by_place_and_bots_get_none() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16, fill=True)
    for p in ["h1", "h2"]:
        log += register(m, p)
    log += m.tick(100)
    ended = play_out(m, log, 100, places={"h1": 1, "h2": 1})
    by = {p.player_id: p for p in ended.standings}
    assert by["h1"].place == 1 and by["h1"].title == "Turnuva Sultanı"
    # h1 and h2 tie first at their table and both go on: 5 entrants, two tables, a final
    assert by["h1"].league_points == 60 and by["h1"].reached == 3
    assert by["h1"].tournament_points == 3 * 3
    bots = [p for p in ended.standings if p.bot]
    assert bots and not any(p.title or p.league_points or p.tournament_points for p in bots)


def test_tied_entrants_at_a_table_advance_together() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16, fill=True)
    log += m.tick(100)
    first = next(d for d in log if isinstance(d, R.Seated))
    players = [s.player_id for s in first.seats]
    out = m.handle(R.TableEnded(request_id="e", house=NS, table_id=first.table_id,
                                players=players, places=[1, 1, 3, 4], totals=[0] * 4),
                   accounts(), 101)
    assert isinstance(out[0], R.TableResult) and out[0].advancing == players[:2]


def test_registration_after_the_start_or_past_the_size_is_refused() -> None:
    m = core.Matchmaker()
    schedule(m, size=16)
    for n in range(16):
        register(m, f"p{n}")
    assert refused(register(m, "late")) == "tournament_full"
    assert refused(register(m, "p0", at=2)) == "already_registered"
    assert refused(m.handle(R.Unregister(request_id="u", house=NS, player_id="x",
                                         tournament_id="cup"), accounts(), 3)) \
        == "not_registered"
    m.tick(100)
    assert refused(register(m, "later", at=101)) == "registration_closed"
    assert refused(register(m, "x", tid="nope")) == "unknown_tournament"
    assert refused(m.handle(R.ScheduleTournament(request_id="s2", house="okeygg",
                                                 tournament_id="t", starts_at=1),
                            accounts(), 0)) == "no_tournaments"


def test_the_repeated_pair_rule_stops_tournament_points_for_the_fourth_meeting() -> None:
    m = core.Matchmaker(core.Policy(bot_wait_ms=0, window_base=100))
    for round_ in range(3):  # three quick-play tables together within the day
        for p in "ab":
            ask(m, p, at=round_ * 10)
        m.tick(round_ * 10 + 1)
    log = schedule(m, size=16, fill=True, starts_at=100)
    log += register(m, "a") + register(m, "b")
    log += m.tick(100)
    table = next(d for d in log if isinstance(d, R.Seated)
                 and {"a", "b"} <= {s.player_id for s in d.seats})
    players = [s.player_id for s in table.seats]
    (result, *_) = m.handle(R.TableEnded(request_id="e", house=NS, table_id=table.table_id,
                                         players=players, places=[1, 2, 3, 4],
                                         totals=[0] * 4), accounts(), 101)
    assert isinstance(result, R.TableResult)
    assert sorted(result.not_counted) == ["a", "b"]
    assert result.points["a"] == result.points["b"] == 0


def test_a_rebuilt_tournament_equals_the_live_one() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=64, fill=True)
    log += register(m, "h1")
    log += m.tick(100)
    live = play_out(m, log, 100)
    again = rebuilt(m, log)
    t = again.houses[NS].tournaments["cup"]
    assert t.ended is not None and msgspec.json.encode(t.ended) == msgspec.json.encode(live)


def cancel(m: core.Matchmaker, tid: str = "cup", at: int = 50, reason: str = "",
           request_id: str | None = None) -> list[R.AnyDecision]:
    return m.handle(R.CancelTournament(request_id=request_id or f"c-{tid}-{at}", house=NS,
                                       tournament_id=tid, reason=reason), accounts(), at)


def test_an_open_tournament_cancelled_by_an_operator_never_starts() -> None:
    m = core.Matchmaker()
    schedule(m, size=16, fill=True)
    register(m, "h1")
    (cancelled,) = cancel(m, reason="the hall is closed tonight", request_id="ops/c1")
    assert isinstance(cancelled, R.TournamentCancelled)
    assert (cancelled.tournament_id, cancelled.reason, cancelled.request_id) == \
        ("cup", "the hall is closed tonight", "ops/c1")
    assert m.houses[NS].tournaments["cup"].status == "cancelled"
    assert m.tick(100) == []  # past its start: nothing seated
    assert refused(register(m, "h2", at=60)) == "registration_closed"


def test_a_running_tournament_cancelled_plays_its_tables_out_but_seats_no_next_round() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16, fill=True)
    log += register(m, "h1")
    log += m.tick(100)
    tables = [d for d in log if isinstance(d, R.Seated)]
    assert len(tables) == 4
    (cancelled,) = cancel(m, at=101)
    assert isinstance(cancelled, R.TournamentCancelled)
    assert cancelled.reason == "cancelled by an operator"
    later: list[R.AnyDecision] = []
    for n, table in enumerate(tables):
        players = [s.player_id for s in table.seats]
        later += m.handle(R.TableEnded(request_id=f"end-{table.table_id}", house=NS,
                                       table_id=table.table_id, players=players,
                                       places=[1, 2, 3, 4], totals=[0] * 4), accounts(), 102 + n)
    assert [type(d) for d in later] == [R.TableResult] * 4  # no round 2, no standings
    assert m.houses[NS].tables == {}
    assert not m.houses[NS].tournaments["cup"].plays("h1")  # free to quick play again
    assert isinstance(ask(m, "h1", at=200)[0], R.Waiting)


def test_cancelling_an_unknown_ended_or_cancelled_tournament_is_refused() -> None:
    m = core.Matchmaker()
    assert refused(cancel(m, tid="nope")) == "unknown_tournament"
    schedule(m, size=16, fill=True, tid="cup")
    cancel(m, tid="cup", at=1)
    assert refused(cancel(m, tid="cup", at=2)) == "tournament_over"
    log = schedule(m, size=16, fill=True, tid="done")
    log += m.tick(100)
    play_out(m, log, 100)
    assert m.houses[NS].tournaments["done"].status == "ended"
    out = cancel(m, tid="done", at=500)
    assert refused(out) == "tournament_over"
    assert isinstance(out[0], R.Refused) and "ended" in out[0].message
    assert m.houses[NS].tournaments["done"].status == "ended"
    assert "tournament_over" in codes.OPERATOR


def test_a_retried_cancel_is_decided_once_and_a_rebuilt_matchmaker_knows_it() -> None:
    m = core.Matchmaker()
    log = schedule(m, size=16)
    log += cancel(m, request_id="ops/c1")
    assert cancel(m, at=60, request_id="ops/c1") == []
    again = rebuilt(m, log)
    assert again.houses[NS].tournaments["cup"].status == "cancelled"
    assert again.tick(100) == []
