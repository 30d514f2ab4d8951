"""Players contribute entropy (proto/DEAL.md, deal version 2): the seeding before each hand,
rule by rule, through the engine; the timers' close of its windows; `okey101 deal` for a
version 2 hand."""

from __future__ import annotations

import json
from collections.abc import Sequence

import msgspec
import pytest

from okey101 import tiles
from okey101.app.timers.deadlines import TurnClock, seeding_command_id
from okey101.table import deal as D
from okey101.table import messages as E
from okey101.table.decide import decide
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.table.views import player_view, public_view
from services.cli.main import main

T0 = 1_000_000  # ms: the time of every command unless given
WINDOW = 10_000  # ms: seeding_seconds 10
MATCH_SEED = "01" * 32
BOTH = (False, False, False, False)


def client(seat: int, hand: int = 1) -> bytes:
    return bytes([16 * hand + seat]) * 32


def share(hand: int = 1, attempt: int = 0) -> bytes:
    return D.server_share(bytes.fromhex(MATCH_SEED), hand, attempt)


class Table:
    """A table driven through decide/evolve; every command stamped with its time `at`."""

    def __init__(self, profile: str = "okey-oyna", bots: Sequence[bool] = BOTH,
                 seeding: int | None = 10, hands: int = 2, **options: object) -> None:
        self.state: TableState = NEW_TABLE
        self.events: list[E.Event] = []
        self.n = 0
        opts = {"hands_per_match": hands, **options}
        if seeding is not None:
            opts["seeding_seconds"] = seeding
        self.send(E.CreateTable(table_id="", command_id="", profile=profile, options=opts))
        for seat in range(4):
            self.send(E.Sit(table_id="", command_id="", seat=seat, player_id=f"p{seat}",
                            bot=bots[seat]))
        self.send(E.StartMatch(table_id="", command_id="", seat=0, player_id="p0",
                               seed=MATCH_SEED))

    def decide(self, command: E.Command, at: int = T0) -> list[E.Event] | E.Rejection:
        self.n += 1
        seat = command.seat
        player = self.state.players[seat] if 0 <= seat < 4 and not command.player_id and \
            not isinstance(command, E.Sit) else command.player_id
        command = msgspec.structs.replace(command, table_id="t", command_id=f"c{self.n}",
                                          seq=self.state.seq, at=at, player_id=player)
        return decide(self.state, command)

    def send(self, command: E.Command, at: int = T0) -> list[E.Event]:
        decision = self.decide(command, at)
        assert isinstance(decision, list), f"{command} rejected: {decision}"
        for event in decision:
            self.state = evolve(self.state, event)
        self.events += decision
        return decision

    def reject(self, command: E.Command, at: int = T0) -> E.Rejection:
        before = self.state
        decision = self.decide(command, at)
        assert isinstance(decision, E.Rejection), f"{command} accepted: {decision}"
        assert self.state is before
        return decision

    def commit(self, seat: int, seed: bytes, at: int = T0) -> list[E.Event]:
        return self.send(commit(seat, seed), at)

    def reveal(self, seat: int, seed: bytes, at: int = T0) -> list[E.Event]:
        return self.send(reveal(seat, seed), at)

    def close(self, stage: str, at: int, hand: int = 1) -> list[E.Event]:
        return self.send(close(stage, hand), at)

    def play_out_the_hand(self) -> list[E.Event]:
        """Every turn timed out (the house's move) until the hand is over."""
        out: list[E.Event] = []
        while self.state.seeding is None and self.state.status == "playing":
            hand = self.state.hand
            assert hand is not None
            if hand.phase == "over":
                break
            out += self.send(E.TimeOut(table_id="", command_id="", seat=hand.to_act,
                                       turn=self.state.turn))
        return out

    def of(self, kind: type[E.Event]) -> list[E.Event]:
        return [e for e in self.events if isinstance(e, kind)]


def commit(seat: int, seed: bytes) -> E.CommitSeed:
    return E.CommitSeed(table_id="", command_id="", seat=seat, commitment=D.commitment(seed))


def reveal(seat: int, seed: bytes) -> E.RevealSeed:
    return E.RevealSeed(table_id="", command_id="", seat=seat, client_seed=seed.hex())


def close(stage: str, hand: int = 1, attempt: int = 0) -> E.CloseSeeding:
    return E.CloseSeeding(table_id="", command_id="", hand=hand, attempt=attempt,
                          stage=stage)  # type: ignore[arg-type]


def dealt_racks(t: Table) -> list[list[str]]:
    dealt = t.of(E.HandDealt)[-1]
    assert isinstance(dealt, E.HandDealt)
    return dealt.racks


def expected_racks(seeds: Sequence[bytes | None], starter: int = 0, hand: int = 1,
                   profile_sizes: D.Sizes = D.SIZES_101) -> list[list[str]]:
    seed = D.hand_seed_v2(share(hand), seeds)
    return [tiles.names(r) for r in D.deal(seed, starter, profile_sizes).racks]


# ---------------------------------------------------------------- when a seeding opens
def test_without_seeding_windows_the_hand_is_dealt_at_once_by_version_1() -> None:
    t = Table(seeding=None)
    [started] = t.of(E.HandStarted)
    assert isinstance(started, E.HandStarted)
    assert started.deal_version == 1 and not t.of(E.SeedingOpened)
    assert started.commitment == D.commitment(D.hand_seed(bytes.fromhex(MATCH_SEED), 1, 0))


def test_a_table_of_bots_deals_at_once_even_with_seeding_windows() -> None:
    t = Table(bots=(True,) * 4)
    [started] = t.of(E.HandStarted)
    assert isinstance(started, E.HandStarted) and started.deal_version == 1
    assert t.state.seeding is None and not t.of(E.SeedingOpened)


def test_stacked_deals_never_wait_for_client_seeds() -> None:
    dealt = D.deal(b"\x05" * 32, 0)
    stacked = E.StackedDeal(indicator=tiles.name(dealt.indicator),
                            racks=[tiles.names(r) for r in dealt.racks])
    state = NEW_TABLE
    for command in [
            E.CreateTable(table_id="s", command_id="c", profile="okey-oyna",
                          options={"seeding_seconds": 10}),
            *[E.Sit(table_id="s", command_id=f"s{i}", seat=i, player_id=f"p{i}")
              for i in range(4)],
            E.StartMatch(table_id="s", command_id="go", seat=0, player_id="p0",
                         deals=[stacked])]:
        decision = decide(state, msgspec.structs.replace(command, seq=state.seq))
        assert isinstance(decision, list), decision
        for event in decision:
            state = evolve(state, event)
    assert state.seeding is None and state.hand is not None
    assert state.hand.deal_version == 1


def test_the_server_commits_to_its_share_before_any_seat_may_commit() -> None:
    t = Table(bots=(False, False, False, True))
    opened = t.events[-1]
    assert isinstance(opened, E.SeedingOpened)
    assert (opened.hand, opened.attempt, opened.starter) == (1, 0, 0)
    assert opened.server_commitment == D.commitment(share())
    assert opened.commit_by == T0 + WINDOW
    assert t.state.hand is None and not t.of(E.HandStarted)
    assert [player_view(t.state, s).rules.allowed for s in range(4)] == \
        [["commit_seed"]] * 3 + [[]]


# ---------------------------------------------------------------- commit
def test_a_bot_sends_no_seed_its_share_is_the_servers() -> None:
    t = Table(bots=(False, False, False, True))
    assert t.reject(commit(3, client(3))).code == "bot_seat"


def test_a_seat_commits_once() -> None:
    t = Table()
    t.commit(0, client(0))
    assert t.reject(commit(0, client(9))).code == "already_committed"


@pytest.mark.parametrize("commitment", ["zz" * 32, "ab" * 31, "ab" * 33, ""])
def test_a_commitment_is_32_bytes_in_hex(commitment: str) -> None:
    t = Table()
    rejection = t.reject(E.CommitSeed(table_id="", command_id="", seat=1,
                                      commitment=commitment))
    assert rejection.code == "malformed" and "commitment" in rejection.message


def test_a_commitment_at_or_after_the_deadline_is_rejected() -> None:
    t = Table()
    assert t.reject(commit(0, client(0)), at=T0 + WINDOW).code == "window_closed"
    t.commit(0, client(0), at=T0 + WINDOW - 1)


def test_only_the_seated_player_commits_for_its_seat() -> None:
    t = Table()
    command = msgspec.structs.replace(commit(2, client(2)), player_id="p1")
    assert t.reject(command).code == "not_your_seat"


def test_the_commit_window_closes_once_every_person_has_committed() -> None:
    t = Table(bots=(False, False, False, True))  # okey-oyna labels its bots
    t.commit(0, client(0))
    t.commit(2, client(2))
    assert t.state.seeding is not None and t.state.seeding.stage == "commit"
    events = t.commit(1, client(1), at=T0 + 500)
    assert [type(e) for e in events] == [E.SeedCommitted, E.SeedCommitsClosed]
    closed = events[-1]
    assert isinstance(closed, E.SeedCommitsClosed)
    assert closed.committed == [0, 1, 2] and closed.reveal_by == T0 + 500 + WINDOW


def test_where_bots_are_unlabelled_the_commit_window_waits_for_their_seats_too() -> None:
    """North Sultan does not label bots (RULES.md §11): closing as soon as the people have
    committed would tell the bot's seat. The window runs to its deadline instead."""
    t = Table(profile="north-sultan", bots=(False, False, False, True))
    for seat in range(3):
        t.commit(seat, client(seat))
    assert t.state.seeding is not None and t.state.seeding.stage == "commit"
    assert t.reject(commit(3, client(3))).code == "bot_seat"
    [closed] = [e for e in t.close("commit", T0 + WINDOW) if isinstance(e, E.SeedCommitsClosed)]
    assert isinstance(closed, E.SeedCommitsClosed) and closed.committed == [0, 1, 2]


def test_close_seeding_is_refused_before_the_deadline_and_for_another_window() -> None:
    t = Table()
    assert t.reject(close("commit"), at=T0 + WINDOW - 1).code == "seeding_window_open"
    assert t.reject(close("reveal"), at=T0 + WINDOW).code == "no_such_window"
    assert t.reject(close("commit", hand=2), at=T0 + WINDOW).code == "no_such_window"
    assert t.reject(close("commit", hand=1, attempt=1), at=T0 + WINDOW).code == \
        "no_such_window"


def test_nobody_committing_deals_version_2_from_the_servers_share_alone() -> None:
    t = Table()
    events = t.close("commit", T0 + WINDOW)
    assert [type(e) for e in events[:3]] == [E.SeedingClosed, E.HandStarted, E.HandDealt]
    closed, started = events[0], events[1]
    assert isinstance(closed, E.SeedingClosed) and closed.client_seeds == [""] * 4
    assert isinstance(started, E.HandStarted) and started.deal_version == 2
    assert started.commitment == D.commitment(D.hand_seed_v2(share(), [None] * 4))
    assert dealt_racks(t) == expected_racks([None] * 4)


# ---------------------------------------------------------------- reveal
def committed_table(seats: Sequence[int] = (0, 1, 2), **kw: object) -> Table:
    t = Table(bots=(False, False, False, True), **kw)  # type: ignore[arg-type]
    for seat in seats:
        t.commit(seat, client(seat))
    if t.state.seeding is not None and t.state.seeding.stage == "commit":
        t.close("commit", T0 + WINDOW)
    return t


def test_every_committed_seat_revealing_deals_the_hand_at_once() -> None:
    t = committed_table()
    t.reveal(2, client(2))
    t.reveal(0, client(0))
    events = t.reveal(1, client(1))
    assert [type(e) for e in events[:4]] == [E.SeedRevealed, E.SeedingClosed, E.HandStarted,
                                             E.HandDealt]
    closed = events[1]
    assert isinstance(closed, E.SeedingClosed)
    assert closed.client_seeds == [client(0).hex(), client(1).hex(), client(2).hex(), ""]
    assert dealt_racks(t) == expected_racks([client(0), client(1), client(2), None])
    assert [e.tiles for e in events if isinstance(e, E.RackDealt)] == dealt_racks(t)


def test_a_changed_client_seed_changes_the_deal() -> None:
    first, second = committed_table((0, 1, 2)), committed_table((0, 1))
    second.state = evolve(second.state, E.SeedCommitted(
        table_id="t", seq=second.state.seq + 1, seat=2, commitment=D.commitment(b"\x99" * 32)))
    for seat in (0, 1):
        first.reveal(seat, client(seat))
        second.reveal(seat, client(seat))
    first.reveal(2, client(2))
    second.reveal(2, b"\x99" * 32)
    assert dealt_racks(first) != dealt_racks(second)
    assert dealt_racks(second) == expected_racks([client(0), client(1), b"\x99" * 32, None])


def test_a_reveal_that_does_not_match_its_commitment_forfeits_the_share() -> None:
    t = committed_table((0, 1))
    wrong = b"\x77" * 32
    [forfeit] = t.reveal(1, wrong)
    assert isinstance(forfeit, E.SeedForfeited)
    assert (forfeit.seat, forfeit.player_id, forfeit.reason) == (1, "p1", "mismatch")
    assert wrong.hex() not in E.encode(forfeit).decode(), "the wrong value is published"
    t.reveal(0, client(0))  # the last: the deal, without seat 1's share
    assert dealt_racks(t) == expected_racks([client(0), None, None, None])


def test_a_seat_that_never_reveals_forfeits_when_the_window_closes() -> None:
    t = committed_table((0, 1, 2))
    t.reveal(0, client(0))
    t.reveal(2, client(2))
    reveal_by = T0 + WINDOW + WINDOW
    assert t.reject(reveal(1, client(1)), at=reveal_by).code == "window_closed"
    events = t.close("reveal", reveal_by)
    forfeit, closed = events[0], events[1]
    assert isinstance(forfeit, E.SeedForfeited) and forfeit.seat == 1
    assert forfeit.reason == "not_revealed"
    assert isinstance(closed, E.SeedingClosed)
    assert closed.client_seeds == [client(0).hex(), "", client(2).hex(), ""]
    assert dealt_racks(t) == expected_racks([client(0), None, client(2), None])


def test_a_forfeiting_player_contributes_no_more_this_match() -> None:
    t = committed_table((0, 1))
    t.reveal(0, client(0))
    t.close("reveal", T0 + 2 * WINDOW)  # seat 1 never revealed
    assert t.state.seeding_barred == ("p1",)
    t.play_out_the_hand()
    assert t.state.seeding is not None and t.state.seeding.hand == 2
    assert [player_view(t.state, s).rules.allowed for s in range(4)] == \
        [["commit_seed"], [], ["commit_seed"], []]
    assert t.reject(commit(1, client(1, 2))).code == "share_forfeited"


def test_only_a_seat_that_committed_reveals() -> None:
    t = committed_table((0, 1))
    assert t.reject(reveal(2, client(2))).code == "not_committed"
    assert t.reject(commit(2, client(2))).code == "wrong_stage"


def test_a_seat_reveals_once() -> None:
    t = committed_table((0, 1))
    t.reveal(0, client(0))
    assert t.reject(reveal(0, client(0))).code == "already_revealed"


def test_a_substitute_cannot_reveal_the_seed_its_predecessor_committed() -> None:
    t = committed_table((0, 1))
    t.reveal(0, client(0))
    t.send(E.Leave(table_id="", command_id="", seat=1, player_id="p1"))
    t.send(E.Sit(table_id="", command_id="", seat=1, player_id="sub"))
    assert t.reject(reveal(1, client(1))).code == "not_committer"
    events = t.close("reveal", T0 + 2 * WINDOW)
    [forfeit] = [e for e in events if isinstance(e, E.SeedForfeited)]
    assert isinstance(forfeit, E.SeedForfeited) and forfeit.player_id == "p1"


def test_seat_rules_list_commit_seed_then_reveal_seed() -> None:
    t = Table(bots=(False, False, False, True))
    t.commit(0, client(0))
    assert player_view(t.state, 0).rules.allowed == []
    assert player_view(t.state, 1).rules.allowed == ["commit_seed"]
    t.commit(1, client(1))
    t.close("commit", T0 + WINDOW)
    assert [player_view(t.state, s).rules.allowed for s in range(4)] == \
        [["reveal_seed"], ["reveal_seed"], [], []]
    assert public_view(t.state).rules.allowed == []


def test_hand_ended_reveals_the_servers_share_and_the_seed_that_re_derives_the_deal() -> None:
    t = committed_table((0, 2))
    opened = t.of(E.SeedingOpened)[0]
    t.reveal(0, client(0))
    t.reveal(2, client(2))
    started = t.of(E.HandStarted)[0]
    t.play_out_the_hand()
    ended = t.of(E.HandEnded)[0]
    assert isinstance(opened, E.SeedingOpened) and isinstance(started, E.HandStarted)
    assert isinstance(ended, E.HandEnded)
    revealed = bytes.fromhex(ended.server_share)
    assert revealed == share() and D.commitment(revealed) == opened.server_commitment
    seed = D.derived_seed(2, revealed, [client(0), None, client(2), None])
    assert seed.hex() == ended.seed and D.commitment(seed) == started.commitment


def test_no_view_shows_the_servers_share_before_the_hand_ends() -> None:
    t = committed_table((0, 1))
    secret = share().hex()
    t.reveal(0, client(0))
    t.reveal(1, client(1))
    while t.state.status == "playing" and not t.of(E.HandEnded):
        for seat in (0, 1, 2, 3, -1):
            view = player_view(t.state, seat) if seat >= 0 else public_view(t.state)
            assert secret not in E.encode(view).decode()
        hand = t.state.hand
        assert hand is not None
        t.send(E.TimeOut(table_id="", command_id="", seat=hand.to_act, turn=t.state.turn))
    assert any(isinstance(e, E.HandEnded) and e.server_share == secret for e in t.events)


# ---------------------------------------------------------------- old logs
def test_an_old_hand_started_without_deal_version_is_version_1() -> None:
    old = json.dumps({"type": "hand_started", "table_id": "t", "seq": 7, "hand": 1,
                      "attempt": 0, "starter": 0, "indicator": "R5", "okey": "R6",
                      "commitment": "00" * 32, "deck_count": 20})
    event = E.event_decoder.decode(old)
    assert isinstance(event, E.HandStarted) and event.deal_version == 1
    ended = E.event_decoder.decode(json.dumps({
        "type": "hand_ended", "table_id": "t", "seq": 9, "hand": 1, "finish": "normal",
        "finished_by": 0, "scores": [0, 0, 0, 0], "racks": [[], [], [], []],
        "seed": "00" * 32}))
    assert isinstance(ended, E.HandEnded) and ended.server_share == ""


# ---------------------------------------------------------------- the timers close windows
def test_the_turn_clock_closes_a_seeding_window_at_its_deadline_once_per_seq() -> None:
    t = Table(bots=(False, False, False, True))
    clock = TurnClock()
    for event in t.events:
        clock.fold(event, T0 / 1000)
    deadline = (T0 + WINDOW) / 1000
    assert clock.due(deadline - 0.001) == []
    [first] = clock.due(deadline)
    assert isinstance(first, E.CloseSeeding)
    assert (first.hand, first.attempt, first.stage, first.seq) == (1, 0, "commit", t.state.seq)
    assert first.command_id == seeding_command_id("t", 1, 0, "commit", t.state.seq)
    assert clock.due(deadline + 5) == [], "issued twice for one seq"
    assert clock.when(first) == deadline
    clock.release(first)  # a failed send: issued again
    assert clock.due(deadline + 5) == [first]
    # a commit lands first (just in time): the seq moves on, a new close for the new seq
    for event in t.commit(0, client(0), at=T0 + WINDOW - 1):
        clock.fold(event, deadline)
    [again] = clock.due(deadline + 5)
    assert isinstance(again, E.CloseSeeding) and again.seq == t.state.seq
    for event in t.send(again, at=T0 + WINDOW + 5):  # the reveal window opens
        clock.fold(event, deadline + 5)
    [reveal_close] = clock.due((T0 + WINDOW + 5 + WINDOW) / 1000)
    assert isinstance(reveal_close, E.CloseSeeding) and reveal_close.stage == "reveal"
    for event in t.send(reveal_close, at=T0 + 2 * WINDOW + 5):
        clock.fold(event, (T0 + 2 * WINDOW + 5) / 1000)
    assert t.state.seeding is None and t.state.hand is not None
    assert clock.seeding("t") is None


# ---------------------------------------------------------------- okey101 deal
def test_okey101_deal_re_derives_a_version_2_hand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", "--server-share", share().hex(), "--client-seed",
                 f"2={'22' * 32}", "--client-seed", f"0={'11' * 32}", "--starter", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deal_version"] == 2
    assert out["seed"] == "fe4e9425116dbd5cfba521370b65bc3e57cbeb9e66931c7dbdcb6a65210feee6"
    assert out["server_commitment"] == D.commitment(share())
    assert out["client_seeds"] == ["11" * 32, "", "22" * 32, ""]
    assert out["indicator"] == "R13" and out["deck"][:5] == ["R7", "K2", "Y8", "Y1", "R6"]


@pytest.mark.parametrize(("args", "named"), [
    (["--server-share", "ab" * 32, "--client-seed", f"4={'11' * 32}"], "seat 4"),
    (["--server-share", "ab" * 32, "--client-seed", f"1={'11' * 32}", "--client-seed",
      f"1={'22' * 32}"], "seat 1 is given twice"),
    (["--server-share", "ab" * 32, "--client-seed", "1=zz"], "--client-seed #1 'zz'"),
    (["--server-share", "ab" * 32, "--client-seed", "11" * 32], "SEAT=HEX"),
    (["--server-share", "ab" * 31], "--server-share is 31 bytes"),
    (["--seed", "ab" * 32, "--client-seed", f"1={'11' * 32}"], "needs --server-share"),
    (["--server-share", "ab" * 32, "--hand", "1"], "give --seed"),
])
def test_okey101_deal_refuses_bad_version_2_input_in_one_line(
        capsys: pytest.CaptureFixture[str], args: list[str], named: str) -> None:
    assert main(["deal", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and named in err
