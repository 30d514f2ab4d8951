"""The deal algorithm of proto/DEAL.md, pinned by its test vectors."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from okey101 import tiles
from okey101.table import deal as D

SEED = bytes(range(32))


def test_the_commitment_is_the_sha256_of_the_seed() -> None:
    assert D.commitment(SEED) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd")


def test_the_shuffle_of_the_published_vector() -> None:
    assert tiles.names(D.shuffled(SEED))[:12] == (
        ["B2", "B3", "B9", "K9", "K7", "R4", "R1", "R2", "R3", "R13", "B13", "B5"])


def test_the_deal_of_the_published_vector() -> None:
    dealt = D.deal(SEED, 0)
    assert tiles.name(dealt.indicator) == "R5"
    assert tiles.names(dealt.deck)[:5] == ["B9", "R3", "Y9", "K13", "B3"]
    assert len(dealt.deck) == 20


def test_a_hand_seed_derives_from_the_match_seed_hand_and_attempt() -> None:
    assert D.hand_seed(b"\x01" * 32, 1, 0).hex() == (
        "27dcd668811d58639bbdfaa5b7ef10138a7ce005cc9bb9362d956cc337e6645f")
    assert D.hand_seed(b"\x01" * 32, 1, 1) != D.hand_seed(b"\x01" * 32, 1, 0)


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(0, 3))
def test_every_deal_holds_all_106_tiles_22_for_the_starter_and_21_for_the_rest(
        seed: bytes, starter: int) -> None:
    dealt = D.deal(seed, starter)
    sizes = [len(r) for r in dealt.racks]
    assert sizes[starter] == 22 and sorted(sizes) == [21, 21, 21, 22]
    everything = [t for r in dealt.racks for t in r] + [dealt.indicator, *dealt.deck]
    assert Counter(everything) == Counter(tiles.full_set())
    assert dealt.indicator != tiles.FAKE


def test_every_hand_of_a_match_can_be_audited_from_its_public_events() -> None:
    from okey101.table import messages as E
    from okey101.table.simulate import play_match
    from okey101.table.views import public_event

    record = play_match({"base": "north-sultan", "options": {"hands_per_match": 3}}, "ab" * 32)
    public = [e for e in (public_event(e) for e in record.events) if e is not None]
    started = [e for e in public if isinstance(e, E.HandStarted)]
    ended = [e for e in public if isinstance(e, E.HandEnded)]
    dealt = [e for e in record.events if isinstance(e, E.HandDealt)]  # the server's truth
    assert len(started) == len(ended) == len(dealt) >= 3
    for start, end, truth in zip(started, ended, dealt, strict=True):
        seed = bytes.fromhex(end.seed)
        assert D.commitment(seed) == start.commitment
        again = D.deal(seed, start.starter)
        assert [tiles.names(r) for r in again.racks] == truth.racks
        assert tiles.name(again.indicator) == start.indicator
