"""The deal algorithm of proto/DEAL.md, pinned by its test vectors."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okey101 import tiles
from okey101.errors import MalformedInput
from okey101.table import deal as D
from tools import verify_hand as stdlib_verifier

SEED = bytes(range(32))


def test_the_commitment_is_the_sha256_of_the_seed() -> None:
    assert D.commitment(SEED) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd")


def test_the_shuffle_of_the_published_vector() -> None:
    assert tiles.names(D.shuffled(SEED))[:12] == (
        ["B2", "B3", "B9", "K9", "K7", "R4", "R1", "R2", "R3", "R13", "B13", "B5"])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=100))
def test_the_shuffle_is_the_standalone_verifiers_for_any_seed(seed: bytes) -> None:
    """The engine's shuffle (HMAC pads made once, the first blocks read at once) is the
    plain algorithm of DEAL.md, as the stdlib-only verifier writes it; keys past 64 bytes
    are hashed first, as HMAC does."""
    assert tiles.names(D.shuffled(seed)) == stdlib_verifier.shuffled(seed)


def test_the_shuffle_rejects_a_biased_word_and_reads_the_next() -> None:
    """u >= 2**32 - (2**32 mod (i + 1)) is rejected (no modulo bias): the swap takes the
    next word."""
    stream = D._stream(SEED)
    words = [next(stream) for _ in range(120)]
    biased = [2**32 - 1, *words]
    assert 2**32 - 1 >= 2**32 - (2**32 % 106)  # the first swap (bound 106) rejects it
    assert D._shuffle(iter(biased)) == D._shuffle(iter(words)) == D.shuffled(SEED)


def test_the_deal_of_the_published_vector() -> None:
    dealt = D.deal(SEED, 0)
    assert tiles.name(dealt.indicator) == "R5"
    assert tiles.names(dealt.deck)[:5] == ["B9", "R3", "Y9", "K13", "B3"]
    assert len(dealt.deck) == 20


def test_a_hand_seed_derives_from_the_match_seed_hand_and_attempt() -> None:
    assert D.hand_seed(b"\x01" * 32, 1, 0).hex() == (
        "27dcd668811d58639bbdfaa5b7ef10138a7ce005cc9bb9362d956cc337e6645f")
    assert D.hand_seed(b"\x01" * 32, 1, 1) != D.hand_seed(b"\x01" * 32, 1, 0)


# ---------------------------------------------------------------- version 2
MATCH = b"\x01" * 32
SHARE = bytes.fromhex("a96f0011d87ce6ddf6d32ced38bed784e3cb371c22c093da592cfaec205dbf4e")
SEEDS = [b"\x11" * 32, None, b"\x22" * 32, None]


def test_v2_the_servers_share_derives_from_the_match_seed_hand_and_attempt() -> None:
    assert D.server_share(MATCH, 1, 0) == SHARE
    assert D.commitment(SHARE) == (
        "a1c99066a973c73182352edf82bec98480190a0224a3493c0d159a82a5218a49")
    assert D.server_share(MATCH, 1, 1) != SHARE != D.server_share(MATCH, 2, 0)
    assert D.hand_seed(MATCH, 1, 0) != SHARE, "the share is not the version 1 hand seed"


def test_v2_a_client_commits_to_the_sha256_of_its_seed() -> None:
    assert D.commitment(b"\x11" * 32) == (
        "02d449a31fbb267c8f352e9968a79e3e5fc95c1bbeaa502fd6454ebde5a4bedc")
    assert D.commitment(b"\x22" * 32) == (
        "9f72ea0cf49536e3c66c787f705186df9a4378083753ae9536d65b3ad7fcddc4")


def test_v2_the_hand_seed_of_the_published_vector() -> None:
    assert D.v2_message(SEEDS) == (b"okey101-deal-v2" + b"\x01" + b"\x11" * 32 + b"\x00"
                                   + b"\x01" + b"\x22" * 32 + b"\x00")
    seed = D.hand_seed_v2(SHARE, SEEDS)
    assert seed.hex() == "fe4e9425116dbd5cfba521370b65bc3e57cbeb9e66931c7dbdcb6a65210feee6"
    assert D.commitment(seed) == (
        "78323c35afb2343a1706beb3f8d004812b52b948ae4c8e201a0c167b214c67b0")
    assert tiles.names(D.shuffled(seed))[:12] == (
        ["Y6", "K13", "Y10", "Y7", "Y4", "R10", "K3", "B10", "K13", "B4", "B6", "R7"])
    dealt = D.deal(seed, 1)
    assert tiles.name(dealt.indicator) == "R13"
    assert tiles.names(dealt.deck)[:5] == ["R7", "K2", "Y8", "Y1", "R6"]


def test_v2_with_no_client_seeds_the_seed_still_derives_from_the_share() -> None:
    assert D.hand_seed_v2(SHARE, [None] * 4).hex() == (
        "5e10618ff20803f3f8c7e755de11b9274168e4d3bc5455898081b398dcc50282")


def test_v2_a_changed_client_seed_changes_the_seed_and_the_deal() -> None:
    changed = D.hand_seed_v2(SHARE, [b"\x11" * 32, None, b"\x23" * 32, None])
    assert changed.hex() == "13d83bc67b62e72703d92bc81f174c1944476d24e83cb29eaa4b33d0c6b3578a"
    assert D.deal(changed, 1).racks != D.deal(D.hand_seed_v2(SHARE, SEEDS), 1).racks


def test_v2_the_same_seed_at_another_seat_is_another_deal() -> None:
    moved = D.hand_seed_v2(SHARE, [None, b"\x11" * 32, b"\x22" * 32, None])
    assert moved.hex() == "37dc76b215b54dd0cb2b1f34696f2af4e651f64c181b80aba73179bd1a131aec"


def test_v2_a_copied_seed_adds_to_the_deal_instead_of_cancelling() -> None:
    """XOR of the shares would let a seat cancel another's seed by copying it."""
    alone = D.hand_seed_v2(SHARE, [b"\x11" * 32, None, None, None])
    copied = D.hand_seed_v2(SHARE, [b"\x11" * 32, b"\x11" * 32, None, None])
    nobody = D.hand_seed_v2(SHARE, [None] * 4)
    assert len({alone, copied, nobody}) == 3


def test_the_derived_seed_is_keyed_by_the_deal_version() -> None:
    assert D.derived_seed(1, SEED) == SEED
    assert D.derived_seed(2, SHARE, SEEDS) == D.hand_seed_v2(SHARE, SEEDS)
    assert D.derived_seed(2, SHARE) == D.hand_seed_v2(SHARE, [None] * 4)


@pytest.mark.parametrize(("call", "named"), [
    (lambda: D.derived_seed(3, SHARE), "deal version 3"),
    (lambda: D.derived_seed(1, SEED, SEEDS), "version 1 takes no client seeds"),
    (lambda: D.hand_seed_v2(SHARE, SEEDS[:3]), "3 given"),
    (lambda: D.hand_seed_v2(SHARE, [b"\x11" * 31, None, None, None]), "seat 0: 31 bytes"),
    (lambda: D.hand_seed_v2(SHARE[:16], SEEDS), "server share: 16 bytes"),
])
def test_bad_derivation_input_is_malformed_and_named(call: Callable[[], object],
                                                     named: str) -> None:
    with pytest.raises(MalformedInput, match=named):
        call()


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
    from okey101.simulate import play_match
    from okey101.table import messages as E
    from okey101.table.views import public_event

    record = play_match({"base": "north-sultan", "options": {"hands_per_match": 3}}, "ab" * 32)
    public = [e for e in (public_event(e) for e in record.events) if e is not None]
    started = [e for e in public if isinstance(e, E.HandStarted)]
    ended = [e for e in public if isinstance(e, E.HandEnded)]
    dealt = [e for e in record.events if isinstance(e, E.HandDealt)]  # the server's truth
    assert len(started) == len(ended) == len(dealt) >= 3
    for start, end, truth in zip(started, ended, dealt, strict=True):
        assert start.deal_version == 1 and end.server_share == ""
        seed = D.derived_seed(start.deal_version, bytes.fromhex(end.seed))
        assert D.commitment(seed) == start.commitment
        again = D.deal(seed, start.starter)
        assert [tiles.names(r) for r in again.racks] == truth.racks
        assert tiles.name(again.indicator) == start.indicator
