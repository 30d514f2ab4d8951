"""The reproducible, verifiable deal (proto/DEAL.md is the contract).

A hand's seed is 32 bytes. The byte stream is HMAC-SHA256(key=seed, msg=counter), the
counter an 8-byte big-endian integer from 0, blocks concatenated. Fisher-Yates runs over the
canonical 106-tile order (R1 R1 R2 R2 ... K13 K13 F F): for i from 105 down to 1, read 4
bytes as a big-endian u32 `u`; reject `u` while u >= 2**32 - (2**32 mod (i + 1)) (no modulo
bias); swap positions i and u mod (i + 1). The shuffled order is then dealt: the starter
takes the first 22 tiles, each next seat to the right 21 (düz: 15 and 14, `Sizes`); the
indicator is the first tile of what is left that is not a fake okey (a fake okey goes
back); the rest, in order, is the deck, top first. The commitment published when the
hand starts is SHA-256(seed) in hex.

Version 1: a match seed derives each hand's seed: HMAC-SHA256(match_seed, "hand:<n>:<attempt>").
Version 2 (players contribute entropy): the server's share of a hand is
HMAC-SHA256(match_seed, "server-share:<n>:<attempt>"), committed to (SHA-256) before any
client commits; the hand's seed is HMAC-SHA256(server_share, "okey101-deal-v2" || for seat
0..3: 0x00 when the seat contributed nothing, or 0x01 || its 32-byte revealed client seed).
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import NamedTuple

import msgspec

from okey101 import tiles
from okey101.errors import MalformedInput
from okey101.terms import DEAL_VERSIONS, SEATS
from okey101.tiles import FAKE, Tile

SEED_BYTES = 32  # a hand's seed, and a match's
STARTER_TILES = 22
OTHER_TILES = 21


class Sizes(NamedTuple):
    """How many tiles the starter and every other seat are dealt (the profile's game)."""

    starter: int = STARTER_TILES
    other: int = OTHER_TILES


SIZES_101 = Sizes()


class Dealt(msgspec.Struct, frozen=True):
    starter: int
    indicator: Tile
    racks: tuple[tuple[Tile, ...], ...]  # by seat
    deck: tuple[Tile, ...]  # top first


_WORDS = struct.Struct(">8I").unpack  # one HMAC block: eight big-endian u32 words


def _stream(seed: bytes, counter: int = 0) -> Iterator[int]:
    while True:
        yield from _WORDS(hmac.digest(seed, counter.to_bytes(8, "big"), "sha256"))
        counter += 1


_FULL_SET = tuple(tiles.full_set())
_BOUNDS = tuple(range(len(_FULL_SET), 1, -1))  # i + 1 for i from 105 down to 1
_LIMITS = tuple(2**32 - (2**32 % bound) for bound in _BOUNDS)
_BLOCKS = (len(_BOUNDS) + 7) // 8  # what a shuffle reads when no word is rejected
_FIRST_WORDS = struct.Struct(f">{8 * _BLOCKS}I").unpack
_COUNTERS = tuple(counter.to_bytes(8, "big") for counter in range(_BLOCKS))
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


def _first_blocks(seed: bytes) -> bytes:
    """The stream's first `_BLOCKS` blocks: HMAC-SHA256 (RFC 2104) with the key's padded
    inner and outer hashes made once, not once a block."""
    key = (seed if len(seed) <= 64 else hashlib.sha256(seed).digest()).ljust(64, b"\0")
    inner, outer = hashlib.sha256(key.translate(_IPAD)), hashlib.sha256(key.translate(_OPAD))
    out = []
    for counter in _COUNTERS:
        h = inner.copy()
        h.update(counter)
        o = outer.copy()
        o.update(h.digest())
        out.append(o.digest())
    return b"".join(out)


def shuffled(seed: bytes) -> list[Tile]:
    words = _FIRST_WORDS(_first_blocks(seed))
    if not all(map(int.__lt__, words, _LIMITS)):  # a word rejected: rarer than 1 in 10**6
        return _shuffle(chain(words, _stream(seed, _BLOCKS)))
    order = list(_FULL_SET)
    for bound, u in zip(_BOUNDS, words, strict=False):  # a word a swap; 7 spare
        i, j = bound - 1, u % bound
        order[i], order[j] = order[j], order[i]
    return order


def _shuffle(words: Iterator[int]) -> list[Tile]:
    """Fisher-Yates over the canonical order reading `words`, rejecting biased ones."""
    order = list(_FULL_SET)
    for i in range(len(order) - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        u = next(words)
        while u >= limit:
            u = next(words)
        j = u % bound
        order[i], order[j] = order[j], order[i]
    return order


def deal_from_order(order: list[Tile], starter: int, sizes: Sizes = SIZES_101) -> Dealt:
    racks: list[tuple[Tile, ...]] = [()] * 4
    at = 0
    for k in range(SEATS):
        seat = (starter + k) % SEATS
        size = sizes.starter if k == 0 else sizes.other
        racks[seat] = tuple(order[at:at + size])
        at += size
    rest = order[at:]
    pick = next(i for i, t in enumerate(rest) if t != FAKE)
    indicator = rest.pop(pick)
    return Dealt(starter, indicator, tuple(racks), tuple(rest))


def deal(seed: bytes, starter: int, sizes: Sizes = SIZES_101) -> Dealt:
    return deal_from_order(shuffled(seed), starter, sizes)


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def hand_seed(match_seed: bytes, hand: int, attempt: int) -> bytes:
    return hmac.new(match_seed, f"hand:{hand}:{attempt}".encode(), hashlib.sha256).digest()


def server_share(match_seed: bytes, hand: int, attempt: int) -> bytes:
    """Version 2: the server's share of hand `hand` (from 1), re-deal `attempt` (from 0)."""
    return hmac.new(match_seed, f"server-share:{hand}:{attempt}".encode(),
                    hashlib.sha256).digest()


V2_LABEL = b"okey101-deal-v2"


def v2_message(client_seeds: Sequence[bytes | None]) -> bytes:
    """What the server's share keys in version 2: the label, then each seat in order, 0x00
    for no share or 0x01 and its 32-byte seed. Fixed widths: no two inputs give one message,
    and a seed copied from another seat adds to the deal rather than cancelling (as XOR would)."""
    if len(client_seeds) != SEATS:
        raise MalformedInput(f"client seeds: {len(client_seeds)} given; one per seat "
                             f"({SEATS}), none for a seat that gave none")
    parts = [V2_LABEL]
    for seat, seed in enumerate(client_seeds):
        if seed is None:
            parts.append(b"\x00")
        elif len(seed) != SEED_BYTES:
            raise MalformedInput(f"client seed of seat {seat}: {len(seed)} bytes; a seed is "
                                 f"exactly {SEED_BYTES}")
        else:
            parts.append(b"\x01" + seed)
    return b"".join(parts)


def hand_seed_v2(share: bytes, client_seeds: Sequence[bytes | None]) -> bytes:
    """Version 2: the hand seed from the server's share and the seat-ordered client seeds."""
    if len(share) != SEED_BYTES:
        raise MalformedInput(f"server share: {len(share)} bytes; a share is exactly "
                             f"{SEED_BYTES}")
    return hmac.new(share, v2_message(client_seeds), hashlib.sha256).digest()


def derived_seed(version: int, share: bytes,
                 client_seeds: Sequence[bytes | None] = ()) -> bytes:
    """The hand seed a deal `version` derives from what the hand reveals: version 1 reveals
    the seed itself (the server's whole share); version 2 derives it (`hand_seed_v2`)."""
    if version not in DEAL_VERSIONS:
        raise MalformedInput(f"deal version {version}: known versions are "
                             f"{', '.join(map(str, DEAL_VERSIONS))}")
    if version == 1:
        if any(seed is not None for seed in client_seeds):
            raise MalformedInput("deal version 1 takes no client seeds")
        return share
    return hand_seed_v2(share, client_seeds or (None,) * SEATS)


def stacked_deal(racks: list[list[str]], indicator: str, deck: list[str], starter: int,
                 where: str, sizes: Sizes = SIZES_101) -> Dealt:
    """A given deal (tests, scenarios), checked: 22 tiles for the starter, 21 for the
    others (düz: 15, 14), the deck topped up with the tiles named nowhere, in canonical
    order."""
    if not 0 <= starter < SEATS:
        raise MalformedInput(f"{where}: starter {starter} is not a seat (0-3)")
    if len(racks) != SEATS:
        raise MalformedInput(f"{where}: {len(racks)} racks given; {SEATS} needed")
    parsed = []
    for seat, rack in enumerate(racks):
        want = sizes.starter if seat == starter else sizes.other
        if len(rack) != want:
            raise MalformedInput(f"{where}: rack {seat} has {len(rack)} tiles; {want} needed")
        parsed.append(tuple(tiles.parse_at(rack, f"{where} rack {seat}")))
    face_up = tiles.parse_at([indicator], f"{where} indicator")[0]
    if face_up == FAKE:
        raise MalformedInput(f"{where}: a fake okey cannot be the indicator")
    top = tiles.parse_at(deck, f"{where} deck")
    named = [t for r in parsed for t in r] + [face_up] + top
    tiles.check_counts(named, where)
    rest = Counter(tiles.full_set())
    rest.subtract(named)
    for t in tiles.full_set():
        if rest[t] > 0:
            rest[t] -= 1
            top.append(t)
    return Dealt(starter, face_up, tuple(parsed), tuple(top))
