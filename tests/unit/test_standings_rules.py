"""The rules of standing (RULES.md §9, §11; seeds/000, 002, 003), without Kafka."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from okey101.errors import MalformedInput
from okey101.profiles import house, with_overrides
from okey101.standings import HOUSE_RULES, Board, Ledger
from okey101.standings.house import level_for, room_for, rooms_open, rules_for
from okey101.standings.synthetic import Seating, encoded, match_events
from okey101.standings.week import week_of, week_start_ms

HOUR = 3600 * 1000
T0 = int(datetime(2026, 11, 24, 12, 0, tzinfo=UTC).timestamp() * 1000)  # a Tuesday
NS = HOUSE_RULES["north-sultan"]


def play(ledger: Ledger, table: str, profile: str, accounts: list[str], totals: list[int],
         at: int = T0, hands: int = 11, bots: frozenset[str] = frozenset(),
         leaves: dict[int, str] | None = None, options: dict[str, object] | None = None
         ) -> None:
    seating = Seating(accounts=accounts, bots=bots, leaves=leaves or {})
    for offset, value in enumerate(encoded(match_events(table, profile, seating, totals, at,
                                                        hands, options))):
        ledger.read(value, 0, offset)


def points(ledger: Ledger, house_id: str, account: str) -> int:
    s = ledger.board.standing(house_id, account)
    assert s is not None, account
    return s.points


# ---------------------------------------------------------------- classic rating
def test_classic_rating_after_an_11_hand_match_is_plus_11_plus_5_minus_5_minus_11() -> None:
    ledger = Ledger()
    play(ledger, "t1", "classic", ["a", "b", "c", "d"], [10, 50, 90, 300])
    assert [points(ledger, "classic", x) for x in "abcd"] == [1511, 1505, 1495, 1489]


def test_classic_leaver_loses_2n_and_the_substitute_cannot_lose() -> None:
    ledger = Ledger()
    # seat 3 (d) leaves after hand 1; e sits in and finishes last: +1, not -11
    play(ledger, "t1", "classic", ["a", "b", "c", "d"], [10, 50, 90, 300], leaves={3: "e"})
    assert points(ledger, "classic", "d") == 1500 - 22
    assert points(ledger, "classic", "e") == 1501
    assert points(ledger, "classic", "a") == 1511
    d = ledger.board.standing("classic", "d")
    e = ledger.board.standing("classic", "e")
    assert d is not None and (d.left, d.played) == (1, 0)
    assert e is not None and (e.substituted, e.played) == (1, 1)


def test_classic_substitute_who_wins_gains_the_winners_points() -> None:
    ledger = Ledger()
    play(ledger, "t1", "classic", ["a", "b", "c", "d"], [300, 50, 90, 10], leaves={3: "e"})
    assert points(ledger, "classic", "e") == 1511


def test_classic_partners_each_of_the_lower_team_gains_n() -> None:
    ledger = Ledger()
    play(ledger, "t1", "classic", ["a", "b", "c", "d"], [10, 200, 20, 100],
         options={"partners": True})
    assert [points(ledger, "classic", x) for x in "abcd"] == [1511, 1489, 1511, 1489]


def test_classic_table_with_a_bot_is_unrated_but_counted_where_bots_are_a_ranked_choice(
        ) -> None:
    # classic seats no bots: a table that allows them changed an option and is unranked
    # (RULES.md §9); a house whose ranked tables may seat bots counts played and won
    lenient = msgspec.structs.replace(HOUSE_RULES["classic"], ranked_choices=(
        *HOUSE_RULES["classic"].ranked_choices, "bots_allowed"))
    for rules, counted in ((HOUSE_RULES, False), ({**HOUSE_RULES, "classic": lenient}, True)):
        ledger = Ledger(rules)
        play(ledger, "t1", "classic", ["a", "b", "c", "bot1"], [10, 50, 90, 300],
             bots=frozenset({"bot1"}), options={"bots_allowed": True})
        a = ledger.board.standing("classic", "a")
        if counted:
            assert a is not None and (a.points, a.played, a.won) == (1500, 1, 1)
        else:
            assert a is None and ledger.counts["unranked"] == 1


def test_the_rating_in_a_ledger_matches_the_processors_seat_rating_changes() -> None:
    from okey101 import scoring
    ledger = Ledger()
    totals = [120, 120, 40, 400]
    play(ledger, "t1", "classic", ["a", "b", "c", "d"], totals)
    expected = scoring.classic_rating_changes(totals, 11)
    assert [points(ledger, "classic", x) - 1500 for x in "abcd"] == expected


# ---------------------------------------------------------------- SP, league, XP
def test_north_sultan_sp_league_and_xp_by_place() -> None:
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300])
    got = [ledger.board.standing("north-sultan", x) for x in "abcd"]
    assert [s.points for s in got if s] == [1024, 1008, 992, 976]
    week = week_of(T0)
    assert [s.league[week] for s in got if s] == [12, 6, 3, 1]
    assert [s.xp for s in got if s] == [70, 60, 50, 40]


def test_tied_places_split_the_awards_of_the_positions_they_hold() -> None:
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b", "c", "d"], [10, 10, 90, 300])
    a = ledger.board.standing("north-sultan", "a")
    assert a is not None and (a.points, a.league[week_of(T0)], a.xp) == (1016, 9, 65)


def test_north_sultan_leaver_loses_sp_and_gets_no_league_points_or_xp() -> None:
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300],
         leaves={0: "bot:bot-t1-0"})
    a = ledger.board.standing("north-sultan", "a")
    assert a is not None and (a.points, a.league, a.xp, a.left) == (952, {}, 0, 1)


def test_bots_never_get_points_and_north_sultan_keeps_them_off_its_board() -> None:
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b1", "b2", "b3"], [300, 10, 50, 90],
         bots=frozenset({"b1", "b2", "b3"}))
    b1 = ledger.board.standing("north-sultan", "b1")
    assert b1 is not None and (b1.points, b1.xp, b1.league, b1.bot) == (1000, 0, {}, True)
    assert [r.account for r in ledger.board.top("north-sultan")] == ["a"]
    assert ledger.board.excluded_bots("north-sultan") == 3
    a = ledger.board.standing("north-sultan", "a")
    assert a is not None and a.points == 976  # a human's result against bots counts here


def test_okeygg_lists_bots_flagged_and_orders_by_skill() -> None:
    ledger = Ledger()
    play(ledger, "t1", "okeygg", ["a", "b1", "b2", "b3"], [10, 50, 90, 300],
         bots=frozenset({"b1", "b2", "b3"}))
    rows = ledger.board.top("okeygg")
    assert [r.account for r in rows] == ["a", "b1", "b2", "b3"]
    assert [r.bot for r in rows] == [False, True, True, True]


def test_levels_and_rooms_acemi_1_kalfa_3_usta_6_sultan_10() -> None:
    assert [level_for(NS, xp) for xp in (0, 99, 100, 300, 1500, 4500)] == [1, 1, 2, 3, 6, 10]
    assert [room_for(NS, lv) for lv in (1, 2, 3, 5, 6, 9, 10, 30)] == \
        ["Acemi", "Acemi", "Kalfa", "Kalfa", "Usta", "Usta", "Sultan", "Sultan"]
    assert rooms_open(NS, 6) == ["Acemi", "Kalfa", "Usta"]
    assert room_for(HOUSE_RULES["classic"], 1) == ""


# ---------------------------------------------------------------- the repeated-pair rule
def test_the_fourth_match_of_the_same_two_accounts_within_24h_counts_for_neither() -> None:
    ledger = Ledger()
    for i in range(4):
        play(ledger, f"t{i}", "north-sultan", ["a", "b", f"c{i}", f"d{i}"],
             [10, 50, 90, 300], at=T0 + i * HOUR)
    a = ledger.board.standing("north-sultan", "a")
    b = ledger.board.standing("north-sultan", "b")
    c3 = ledger.board.standing("north-sultan", "c3")
    assert a is not None and (a.points, a.not_counted, a.played) == (1000 + 3 * 24, 1, 4)
    assert b is not None and b.points == 1000 + 3 * 8
    assert a.xp == 4 * 70  # XP still moves
    assert c3 is not None and c3.points == 992  # a third account meeting them counts


def test_a_pair_counts_again_once_24h_have_passed() -> None:
    ledger = Ledger()
    for i, hours in enumerate((0, 1, 2, 25)):
        play(ledger, f"t{i}", "north-sultan", ["a", "b", f"c{i}", f"d{i}"],
             [10, 50, 90, 300], at=T0 + hours * HOUR)
    a = ledger.board.standing("north-sultan", "a")
    assert a is not None and (a.points, a.not_counted) == (1000 + 4 * 24, 0)


def test_classic_has_no_repeated_pair_rule() -> None:
    ledger = Ledger()
    for i in range(5):
        play(ledger, f"t{i}", "classic", ["a", "b", "c", "d"], [10, 50, 90, 300],
             at=T0 + i * HOUR)
    assert points(ledger, "classic", "a") == 1500 + 5 * 11


# ---------------------------------------------------------------- weeks
def test_league_weeks_start_monday_0000_istanbul() -> None:
    sunday_2059_utc = int(datetime(2026, 11, 29, 20, 59, tzinfo=UTC).timestamp() * 1000)
    assert week_of(sunday_2059_utc) == "2026-W48"
    assert week_of(sunday_2059_utc + 60_000) == "2026-W49"  # 21:00 UTC = Monday 00:00 +03
    assert week_start_ms("2026-W49") == sunday_2059_utc + 60_000


def test_a_week_that_does_not_exist_is_malformed_input_naming_it() -> None:
    with pytest.raises(MalformedInput, match="2026-W60"):
        week_start_ms("2026-W60")
    with pytest.raises(MalformedInput, match="next"):
        week_start_ms("next")


def test_the_weekly_board_holds_only_that_weeks_league_points() -> None:
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300])
    play(ledger, "t2", "north-sultan", ["a", "b", "c", "d"], [300, 50, 90, 10],
         at=T0 + 7 * 24 * HOUR)
    this_week = ledger.board.top("north-sultan", week=week_of(T0 + 7 * 24 * HOUR))
    assert [(r.account, r.league) for r in this_week][:2] == [("d", 12), ("b", 6)]


def test_a_place_is_the_accounts_row_on_the_board_top_reads_and_none_off_it() -> None:
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b1", "c", "d"], [10, 50, 90, 300],
         bots=frozenset({"b1"}))
    play(ledger, "t2", "north-sultan", ["a", "b", "c", "d"], [300, 50, 90, 10],
         at=T0 + 7 * 24 * HOUR)
    board = ledger.board
    week = week_of(T0 + 7 * 24 * HOUR)
    for when in (None, week):
        rows = board.top("north-sultan", 100, week=when)
        assert [board.place("north-sultan", r.account, when) for r in rows] == \
            list(range(1, len(rows) + 1))
    assert board.place("north-sultan", "b1") is None  # a bot the house keeps off its board
    assert board.place("north-sultan", "nobody") is None
    assert board.place("north-sultan", "a", week_of(T0 + 14 * 24 * HOUR)) is None  # no points


# ---------------------------------------------------------------- the house data
def test_a_profile_overriding_its_houses_rating_is_not_ranked() -> None:
    assert rules_for(house("classic")) is HOUSE_RULES["classic"]
    assert rules_for(with_overrides(house("classic"), {"rating": "none"})) is None


def test_the_page_shows_history_by_match_level_and_room() -> None:
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b", "c", "d"], [10, 50, 90, 300])
    play(ledger, "t2", "north-sultan", ["a", "b", "c", "d"], [300, 50, 90, 10], at=T0 + HOUR)
    page = ledger.board.page("north-sultan", "a")
    assert page is not None
    assert [(h["table_id"], h["change"], h["points"]) for h in page["history"]] == \
        [("t1", 24, 1024), ("t2", -24, 1000)]  # type: ignore[index, union-attr]
    assert page["room"] == "Acemi" and page["rooms_open"] == ["Acemi"]


def test_a_board_of_an_unknown_house_is_refused() -> None:
    with pytest.raises(KeyError):
        Board().top("nowhere")


def test_the_standings_command_names_a_bad_week_and_exits_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    from services.cli.main import main
    assert main(["standings", "--house", "classic", "--week", "2026-48"]) == 2
    assert "2026-48" in capsys.readouterr().err


def test_the_printed_board_says_which_bots_the_house_leaves_off() -> None:
    from services.cli.standings import render
    ledger = Ledger()
    play(ledger, "t1", "north-sultan", ["a", "b1", "b2", "b3"], [300, 10, 50, 90],
         bots=frozenset({"b1", "b2", "b3"}))
    text = render(NS, ledger.board.top("north-sultan"), None,
                  ledger.board.excluded_bots("north-sultan"))
    assert "1  a " in text and "b1" not in text
    assert "3 bot account(s) not ranked" in text
