"""The fairness auditor's pure logic: every honest hand verifies (deal versions 1 and 2,
from the server record or from the public events alone, here and with the standard-library
verifier); a tampered deal and a forged public event fail, naming the event's position;
the collusion features on small constructed cases."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from okey101.app.replays.replay import PUBLIC, events_as
from okey101.audit import collusion as C
from okey101.audit.auditor import audit_events
from okey101.audit.records import (
    CollusionFlag,
    Evidence,
    HandFailed,
    HandVerified,
    encode,
    record_decoder,
)
from okey101.audit.verify import verify_hand
from okey101.bots import bot
from okey101.simulate import match_seeds, play_match
from okey101.table import messages as E
from tools import verify_hand as stdlib_verifier

V2 = {"base": "okeygg", "options": {"seeding_seconds": 15, "hands_per_match": 7}}
V1 = {"base": "okeygg", "options": {"hands_per_match": 7}}


@functools.cache
def _match(spec: str, seed: int = 1) -> tuple[E.Event, ...]:
    profile: Any = {"v1": V1, "v2": V2}.get(spec, spec)
    return tuple(play_match(profile, match_seeds(seed, 1)[0], [bot(2)] * 4).events)


def _hands(events: tuple[E.Event, ...]) -> list[list[E.Event]]:
    """Each hand's events, seeding first (version 2)."""
    out: list[list[E.Event]] = []
    current: list[E.Event] = []
    for e in events:
        seeding = bool(current) and isinstance(current[0], E.SeedingOpened) and not any(
            isinstance(x, E.HandStarted) for x in current)
        if isinstance(e, E.SeedingOpened) or (isinstance(e, E.HandStarted) and not seeding):
            current = [e]
        elif current:
            current.append(e)
            if isinstance(e, E.HandEnded):
                out.append(current)
                current = []
    return out


def _replace_first(events: list[E.Event], kind: type[E.Event],
                   change: Callable[[Any], E.Event | None]) -> tuple[list[E.Event], int]:
    """`events` with the first event of `kind` that `change` alters replaced; its seq."""
    for i, e in enumerate(events):
        if isinstance(e, kind):
            new = change(e)
            if new is not None:
                return [*events[:i], new, *events[i + 1:]], e.seq
    raise AssertionError(f"no {kind.__name__} to change")


def _failed(events: list[E.Event]) -> HandFailed:
    verdict = verify_hand(events)
    assert isinstance(verdict, HandFailed), verdict
    return verdict


# ---------------------------------------------------------------- honest hands
@pytest.mark.parametrize("spec", ["v1", "v2", "north-sultan", "okey-oyna-duz", "classic"])
def test_every_honest_hand_verifies_from_the_server_record(spec: str) -> None:
    records = audit_events(list(_match(spec)), collusion=False)
    assert records and all(isinstance(r, HandVerified) for r in records), records
    ended = [e for e in _match(spec) if isinstance(e, E.HandEnded)]
    assert len(records) == len(ended)
    version = 2 if spec == "v2" else 1
    assert {r.deal_version for r in records if isinstance(r, HandVerified)} == {version}


@pytest.mark.parametrize("spec", ["v1", "v2", "okey-oyna-duz"])
def test_every_honest_hand_verifies_from_the_public_events_alone(spec: str) -> None:
    public = events_as(list(_match(spec)), PUBLIC)
    assert not any(isinstance(e, (E.HandDealt, E.RackDealt, E.MatchSeeded)) for e in public)
    records = audit_events(public, collusion=False)
    assert records and all(isinstance(r, HandVerified) for r in records), records


def test_a_verified_hand_counts_the_moves_it_replayed() -> None:
    hand = _hands(_match("v1"))[0]
    verdict = verify_hand(hand)
    assert isinstance(verdict, HandVerified)
    moves = sum(isinstance(e, (E.TileDrawn, E.TileDiscarded, E.DiscardTaken)) for e in hand)
    assert verdict.moves >= moves


# ---------------------------------------------------------------- a tampered deal
def test_a_revealed_seed_that_is_not_the_committed_one_fails_at_hand_ended() -> None:
    hand = _hands(_match("v1"))[0]
    forged, seq = _replace_first(hand, E.HandEnded, lambda e: msgspec.structs.replace(
        e, seed="ab" * 32))
    verdict = _failed(forged)
    assert (verdict.finding, verdict.seq, verdict.event) == ("commitment_mismatch", seq,
                                                             "hand_ended")


def test_a_server_record_deal_other_than_the_seeds_fails_at_hand_dealt() -> None:
    hand = _hands(_match("v1"))[0]

    def swap(e: E.HandDealt) -> E.HandDealt:
        racks = [list(r) for r in e.racks]
        deck = list(e.deck)
        racks[1][0], deck[0] = deck[0], racks[1][0]
        return msgspec.structs.replace(e, racks=racks, deck=deck)
    forged, seq = _replace_first(hand, E.HandDealt, swap)
    verdict = _failed(forged)
    assert (verdict.finding, verdict.seq) == ("deal_mismatch", seq)


def test_an_indicator_other_than_the_seeds_fails_at_hand_started() -> None:
    hand = _hands(_match("v1"))[0]
    forged, seq = _replace_first(hand, E.HandStarted, lambda e: msgspec.structs.replace(
        e, indicator="R1" if e.indicator != "R1" else "R2"))
    verdict = _failed(forged)
    assert (verdict.finding, verdict.seq) == ("indicator_mismatch", seq)


def test_a_drawn_tile_other_than_the_decks_top_fails_at_the_draw() -> None:
    hand = _hands(_match("v1"))[0]
    forged, seq = _replace_first(hand, E.TileDrawn, lambda e: msgspec.structs.replace(
        e, tile="F" if e.tile != "F" else "R1"))
    verdict = _failed(forged)
    assert (verdict.finding, verdict.seq, verdict.event) == ("draw_mismatch", seq,
                                                             "tile_drawn")


# ---------------------------------------------------------------- version 2 seeding
def test_v2_a_server_share_that_is_not_the_committed_one_fails() -> None:
    hand = _hands(_match("v2"))[0]
    forged, seq = _replace_first(hand, E.HandEnded, lambda e: msgspec.structs.replace(
        e, server_share="cd" * 32))
    assert (_failed(forged).finding, _failed(forged).seq) == ("server_share_mismatch", seq)


def test_v2_a_revealed_client_seed_that_does_not_match_its_commitment_fails() -> None:
    hand = _hands(_match("v2"))[0]
    assert any(isinstance(e, E.SeedRevealed) for e in hand)
    forged, seq = _replace_first(hand, E.SeedRevealed, lambda e: msgspec.structs.replace(
        e, client_seed="00" * 32))
    verdict = _failed(forged)
    assert (verdict.finding, verdict.seq, verdict.event) == ("client_seed_mismatch", seq,
                                                             "seed_revealed")


def test_v2_client_seeds_left_out_of_the_derivation_fail_at_seeding_closed() -> None:
    hand = _hands(_match("v2"))[0]
    forged, seq = _replace_first(hand, E.SeedingClosed, lambda e: msgspec.structs.replace(
        e, client_seeds=["", *e.client_seeds[1:]]) if e.client_seeds[0] else None)
    assert (_failed(forged).finding, _failed(forged).seq) == ("client_seeds_mismatch", seq)


def test_v2_a_hand_seed_the_shares_do_not_derive_fails_even_with_its_commitment() -> None:
    """A server that deals from a seed of its choosing, committing to it honestly, is
    caught: the seed must be the one the shares derive."""
    hand = _hands(_match("v2"))[0]
    chosen = bytes(range(32))
    import hashlib
    forged = [msgspec.structs.replace(e, commitment=hashlib.sha256(chosen).hexdigest())
              if isinstance(e, E.HandStarted) else
              msgspec.structs.replace(e, seed=chosen.hex()) if isinstance(e, E.HandEnded)
              else e for e in hand]
    verdict = _failed(forged)
    assert verdict.finding == "seed_mismatch"


# ---------------------------------------------------------------- forged public events
def test_a_discard_of_a_tile_the_seat_never_held_fails_at_that_discard() -> None:
    hand = _hands(_match("v1"))[0]
    racks: dict[int, set[str]] = {}
    dealt = next(e for e in hand if isinstance(e, E.HandDealt))
    for seat, rack in enumerate(dealt.racks):
        racks[seat] = set(rack)

    def forge(e: E.TileDiscarded) -> E.TileDiscarded | None:
        absent = next(t for t in ("R1", "Y1", "B1", "K1", "R2", "Y2", "B2", "K2")
                      if t not in racks[e.seat])
        return msgspec.structs.replace(e, tile=absent)
    forged, seq = _replace_first(hand, E.TileDiscarded, forge)
    verdict = _failed(forged)
    assert (verdict.finding, verdict.seq, verdict.event) == ("tile_not_in_rack", seq,
                                                             "tile_discarded")
    assert f"seat {next(e for e in forged if e.seq == seq).seat}" in verdict.message  # type: ignore[attr-defined]


def test_a_revealed_final_rack_other_than_what_the_seat_held_fails() -> None:
    hand = _hands(_match("v1"))[0]

    def forge(e: E.HandEnded) -> E.HandEnded:
        seat = next(s for s in range(4) if e.racks[s])
        racks = [list(r) for r in e.racks]
        racks[seat][0] = "F" if racks[seat][0] != "F" else "R1"
        return msgspec.structs.replace(e, racks=racks)
    forged, seq = _replace_first(hand, E.HandEnded, forge)
    assert (_failed(forged).finding, _failed(forged).seq) == ("rack_mismatch", seq)


def test_a_taken_discard_that_was_not_on_the_pile_fails_at_the_take() -> None:
    events = list(_match("v1"))
    hand = next(h for h in _hands(tuple(events)) if any(isinstance(e, E.DiscardTaken)
                                                         for e in h))
    forged, seq = _replace_first(hand, E.DiscardTaken, lambda e: msgspec.structs.replace(
        e, tile="F" if e.tile != "F" else "R1"))
    assert (_failed(forged).finding, _failed(forged).seq) == ("discard_not_on_pile", seq)


def test_an_event_naming_a_seat_that_does_not_exist_is_malformed_at_its_position() -> None:
    hand = _hands(_match("v1"))[0]
    forged, seq = _replace_first(hand, E.TileDiscarded, lambda e: msgspec.structs.replace(
        e, seat=7))
    assert (_failed(forged).finding, _failed(forged).seq) == ("malformed", seq)


def test_a_hand_without_a_commitment_is_not_verified() -> None:
    hand = _hands(_match("v1"))[0]
    forged, seq = _replace_first(hand, E.HandStarted, lambda e: msgspec.structs.replace(
        e, commitment=""))
    assert (_failed(forged).finding, _failed(forged).seq) == ("uncommitted", seq)


def test_records_round_trip_through_their_json() -> None:
    records = audit_events(list(_match("v1")), collusion=False)
    for r in records[:2]:
        assert record_decoder.decode(encode(r)) == r


# ---------------------------------------------------------------- the stdlib verifier
def _write(tmp_path: Path, events: list[E.Event]) -> str:
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(E.encode(e).decode() for e in events))
    return str(path)


@pytest.mark.parametrize("spec", ["v1", "v2", "okey-oyna-duz"])
def test_the_stdlib_verifier_verifies_every_honest_hand_from_public_events(
        spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    public = events_as(list(_match(spec)), PUBLIC)
    assert stdlib_verifier.main([_write(tmp_path, public)]) == 0
    lines = capsys.readouterr().out.splitlines()
    ended = sum(isinstance(e, E.HandEnded) for e in public)
    assert len(lines) == ended and all("verified" in line for line in lines)


def test_the_stdlib_verifier_reads_views_records_and_checks_the_own_rack(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seen = events_as(list(_match("v1")), 2)
    path = tmp_path / "views.jsonl"
    path.write_text("\n".join(json.dumps({"table_id": e.table_id, "seat": 2,
                                          "event": msgspec.to_builtins(e)}) for e in seen))
    assert stdlib_verifier.main([str(path), "--hand", "1"]) == 0
    assert "hand 1 (attempt 0, deal version 1): verified" in capsys.readouterr().out


@pytest.mark.parametrize("spec", ["v1", "v2"])
def test_the_stdlib_verifier_fails_a_forged_discard_and_a_tampered_seed(
        spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = _hands(_match(spec))[0]
    dealt = next(e for e in server if isinstance(e, E.HandDealt))
    hand = events_as(server, PUBLIC)

    def forge(e: E.TileDiscarded) -> E.TileDiscarded:  # the starter's first: no draw yet
        absent = next(t for t in ("R1", "Y1", "B1", "K1", "R2", "Y2", "B2", "K2")
                      if t not in dealt.racks[e.seat])
        return msgspec.structs.replace(e, tile=absent)
    forged, seq = _replace_first(hand, E.TileDiscarded, forge)
    assert stdlib_verifier.main([_write(tmp_path, forged)]) == 1
    assert f"FAILED at seq {seq} (tile_discarded)" in capsys.readouterr().out
    tampered, seq = _replace_first(hand, E.HandEnded, lambda e: msgspec.structs.replace(
        e, seed="ab" * 32))
    assert stdlib_verifier.main([_write(tmp_path, tampered)]) == 1
    assert f"FAILED at seq {seq} (hand_ended)" in capsys.readouterr().out


# ---------------------------------------------------------------- collusion features
def test_a_tile_fits_a_rack_with_two_tiles_that_make_a_run_or_a_group() -> None:
    from okey101 import tiles as T
    rack = T.parse_many(["R5", "R6", "K9", "B9", "Y1"])
    okey = T.parse("Y13")
    assert C._fits(rack, T.parse("R7"), okey)  # R5 R6 R7
    assert C._fits(rack, T.parse("R4"), okey)  # R4 R5 R6
    assert C._fits(rack, T.parse("Y9"), okey)  # K9 B9 Y9
    assert not C._fits(rack, T.parse("R10"), okey)
    assert not C._fits(rack, T.parse("K9"), okey)  # a second K9 makes no group
    assert not C._fits(rack, okey, okey)


def _pairs(c: C.Collusion, a: str, b: str, matches: int) -> C._Pair:
    pair = c.pairs[(a, b)]
    pair.matches = [f"t{i}" for i in range(matches)]
    return pair


def test_feeding_is_flagged_far_above_the_population_rate_with_its_moves() -> None:
    c = C.Collusion()
    c.population["feed"] = C._Rate(n=100_000, k=7_000)  # 7 %
    pair = _pairs(c, "a", "b", 10)
    pair.feed = C._Rate(n=400, k=80)  # 20 %
    pair.feed_moves = [Evidence(table_id="t1", hand=2, seq=40, seat=1, what="a fed b")]
    flags = c._judge_pair("a", "b", "t9", "okeygg")
    assert [f.kind for f in flags] == ["feeding"]
    assert flags[0].players == ["a", "b"] and flags[0].evidence[0].seq == 40
    assert flags[0].matches == pair.matches and flags[0].score >= C.Z_FLAG


def test_feeding_at_the_population_rate_is_not_flagged() -> None:
    c = C.Collusion()
    c.population["feed"] = C._Rate(n=100_000, k=7_000)
    _pairs(c, "a", "b", 10).feed = C._Rate(n=400, k=36)
    assert c._judge_pair("a", "b", "t9", "okeygg") == []


def test_a_pair_is_judged_only_after_enough_shared_matches() -> None:
    c = C.Collusion()
    _pairs(c, "a", "b", C.MIN_MATCHES - 1).feed = C._Rate(n=400, k=200)
    assert c._judge_pair("a", "b", "t9", "okeygg") == []


def test_passing_on_a_few_fitting_discards_alone_raises_no_soft_play_flag() -> None:
    """The "fits" reading is the auditor's guess at a rack's use, noisy on few chances:
    evidence for a moderator, never a flag by itself."""
    c = C.Collusion()
    c.population["soft"] = C._Rate(n=10_000, k=6_000)
    _pairs(c, "a", "b", 10).soft = C._Rate(n=16, k=2)
    assert c._judge_pair("a", "b", "t9", "okeygg") == []


def test_soft_play_never_taking_the_partners_discards_is_flagged() -> None:
    """The other way of reading feeding: b's discards that a (sitting after b) took and laid
    far below the population's rate."""
    c = C.Collusion()
    c.population["feed"] = C._Rate(n=100_000, k=7_400)
    _pairs(c, "a", "b", 30)
    _pairs(c, "b", "a", 30).feed = C._Rate(n=370, k=0)
    assert [f.kind for f in c._judge_pair("a", "b", "t9", "okeygg")] == ["soft_play"]
    _pairs(c, "c", "d", 30)
    _pairs(c, "d", "c", 30).feed = C._Rate(n=370, k=24)
    assert c._judge_pair("c", "d", "t9", "okeygg") == []


def test_win_trading_is_flagged_from_matches_one_never_opened_in_both_directions() -> None:
    c = C.Collusion()
    _pairs(c, "a", "b", 10).trades = [Evidence(table_id=f"t{i}", what="a never opened")
                                      for i in (1, 3)]
    _pairs(c, "b", "a", 10).trades = [Evidence(table_id="t2", what="b never opened")]
    flags = c._judge_pair("a", "b", "t9", "okeygg")
    assert [f.kind for f in flags] == ["win_trading"] and len(flags[0].evidence) == 3
    assert c._judge_pair("a", "b", "t9", "okeygg") == []  # raised once
    _pairs(c, "c", "h", 10).trades = [Evidence(table_id=f"t{i}", what="c never opened")
                                      for i in (1, 2, 3, 4)]
    assert c._judge_pair("c", "h", "t9", "okeygg") == []  # one way: deliberate losing


def test_north_sultan_repeated_pairs_over_the_cap_within_24_hours_are_flagged() -> None:
    c = C.Collusion()
    pair = _pairs(c, "a", "b", 5)
    hour = 3600 * 1000
    pair.starts = [(1 + i * 5 * hour, f"t{i}") for i in range(5)]  # 5 in 20 h
    flags = c._judge_pair("a", "b", "t4", "north-sultan")
    assert [f.kind for f in flags] == ["repeated_pair"] and flags[0].observed == 5
    other = _pairs(c, "c", "d", 5)
    other.starts = [(1 + i * 7 * hour, f"t{i}") for i in range(5)]  # at most 4 in 24 h
    assert [f.observed for f in c._judge_pair("c", "d", "t4", "north-sultan")] == [4]
    spread = _pairs(c, "e", "f", 5)
    spread.starts = [(1 + i * 13 * hour, f"t{i}") for i in range(5)]  # 2 in any 24 h
    assert c._judge_pair("e", "f", "t4", "north-sultan") == []
    assert c._judge_pair("a", "b", "t4", "okeygg") == []  # other houses have no cap


def test_deliberate_losing_and_bot_timing_are_flagged_per_account() -> None:
    c = C.Collusion()
    c.population["kept"] = C._Rate(n=10_000, k=100)
    acct = c.accounts["a"]
    acct.matches = ["t1", "t2", "t3"]
    acct.kept = C._Rate(n=60, k=12)
    acct.thinks = [1000 + (i % 5) * 10 for i in range(80)]
    assert sorted(f.kind for f in c._judge_account("a", "t3")) == ["bot_timing",
                                                                   "deliberate_losing"]
    person = c.accounts["p"]
    person.matches = ["t1", "t2", "t3"]
    person.kept = C._Rate(n=60, k=1)
    person.thinks = [400 + (i * 7919) % 6000 for i in range(80)]
    assert c._judge_account("p", "t3") == []


def test_honest_bots_raise_no_flag_over_a_few_matches() -> None:
    events: list[E.Event] = []
    for i, seed in enumerate(match_seeds(5, 4)):
        for e in play_match("okeygg", seed, [bot(2)] * 4).events:
            events.append(msgspec.structs.replace(e, table_id=f"m{i}"))
    records = audit_events(events)
    assert not [r for r in records if isinstance(r, CollusionFlag)]
    assert sum(isinstance(r, HandVerified) for r in records) == sum(
        isinstance(e, E.HandEnded) for e in events)


def test_bots_by_the_server_record_are_never_an_account_of_a_pair() -> None:
    c = C.Collusion()
    events = [msgspec.structs.replace(e, table_id="b1") for e in play_match(
        "north-sultan", match_seeds(6, 1)[0], [bot(2)] * 4).events]
    events = [msgspec.structs.replace(e, bot_level=2) if isinstance(e, E.PlayerSat)
              and e.seat in (1, 2) else e for e in events]
    for e in events:
        c.fold(e)
    assert c.matches == 1
    assert set(c.accounts) == {"p0", "p3"}
    assert set(c.pairs) == {("p0", "p3"), ("p3", "p0")}


def test_pairs_and_accounts_beyond_the_limits_leave_memory_least_recently_met_first(
        ) -> None:
    c = C.Collusion(max_pairs=12, max_accounts=4)  # one match of four people
    played = play_match("north-sultan", match_seeds(8, 1)[0], [bot(1)] * 4).events
    for i in range(3):  # the same match by three different tables of people
        for e in played:
            e = msgspec.structs.replace(e, table_id=f"m{i}")
            if isinstance(e, E.PlayerSat):
                e = msgspec.structs.replace(e, player_id=f"m{i}-{e.player_id}")
            c.fold(e)
    assert c.matches == 3
    assert set(c.accounts) == {f"m2-p{i}" for i in range(4)}
    assert set(c.pairs) == {(f"m2-p{a}", f"m2-p{b}") for a in range(4) for b in range(4)
                            if a != b}
    assert c.forgotten == 2 * (12 + 4)


# ---------------------------------------------------------------- okey101 audit --file
def test_okey101_audit_reads_a_file_of_events_and_fails_a_forged_hand(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from services.cli.main import main

    events = list(_match("v2"))
    path = _write(tmp_path, events)
    assert main(["audit", "sim", "--file", path]) == 0
    out = capsys.readouterr().out
    assert out.count("deal version 2): verified") == sum(isinstance(e, E.HandEnded)
                                                         for e in events)
    forged, seq = _replace_first(events, E.HandEnded, lambda e: msgspec.structs.replace(
        e, seed="ab" * 32))
    assert main(["audit", "sim", "--file", _write(tmp_path, forged), "--json"]) == 1
    failed = [record_decoder.decode(line) for line in capsys.readouterr().out.splitlines()
              if '"hand_failed"' in line]
    assert [(r.finding, r.seq) for r in failed] == [("seed_mismatch", seq)]  # type: ignore[union-attr]


def test_okey101_audit_names_a_file_it_cannot_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from services.cli.main import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "nonsense"}\n')
    assert main(["audit", "t", "--file", str(bad)]) == 2
    assert f"{bad}, line 1: not a table event" in capsys.readouterr().err
    assert main(["audit", "t", "--file", str(tmp_path / "missing.jsonl")]) == 2
