"""`okey101 deal`: re-derive a hand's deal from what the hand revealed (proto/DEAL.md).

Version 1: the hand seed (`hand_ended.seed`), or the match seed with `--hand`/`--attempt`.
Version 2: the server's share (`hand_ended.server_share`) and the revealed client seeds
(`seeding_closed.client_seeds`), one `--client-seed SEAT=HEX` each.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from okey101 import profiles, tiles
from okey101.errors import MalformedInput
from okey101.table import deal as D
from okey101.terms import SEATS


def _bytes32(text: str, flag: str) -> bytes:
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise MalformedInput(f"{flag} {text!r} is not hex") from None
    if len(raw) != D.SEED_BYTES:
        raise MalformedInput(f"{flag} is {len(raw)} bytes; it must be exactly {D.SEED_BYTES} "
                             f"bytes ({2 * D.SEED_BYTES} hex digits)")
    return raw


def _client_seeds(given: list[str]) -> list[bytes | None]:
    """`SEAT=HEX` arguments as the seat-ordered seeds (None where a seat gave none)."""
    seeds: list[bytes | None] = [None] * SEATS
    for i, item in enumerate(given):
        flag = f"--client-seed #{i + 1}"
        seat_text, sep, hex_text = item.partition("=")
        if not sep or not seat_text.strip().isdigit():
            raise MalformedInput(f"{flag} {item[:80]!r}: write SEAT=HEX, e.g. 2=ab12...")
        seat = int(seat_text)
        if not 0 <= seat < SEATS:
            raise MalformedInput(f"{flag}: seat {seat} does not exist (0-{SEATS - 1})")
        if seeds[seat] is not None:
            raise MalformedInput(f"{flag}: seat {seat} is given twice")
        seeds[seat] = _bytes32(hex_text.strip(), flag)
    return seeds


def _run(args: argparse.Namespace) -> int:
    extra: dict[str, Any] = {}
    if args.server_share is not None:
        if args.hand is not None:
            raise MalformedInput("--hand derives a version 1 seed from a match seed: give "
                                 "--seed, not --server-share")
        share = _bytes32(args.server_share, "--server-share")
        client = _client_seeds(args.client_seed)
        seed, version = D.derived_seed(2, share, client), 2
        extra = {"server_share": share.hex(), "server_commitment": D.commitment(share),
                 "client_seeds": [c.hex() if c else "" for c in client],
                 "client_commitments": [D.commitment(c) if c else "" for c in client]}
    else:
        if args.client_seed:
            raise MalformedInput("--client-seed needs --server-share (deal version 2)")
        seed, version = _bytes32(args.seed, "--seed"), 1
        if args.hand is not None:
            if args.hand < 1:
                raise MalformedInput(f"--hand {args.hand}: hands count from 1")
            if args.attempt < 0:
                raise MalformedInput(f"--attempt {args.attempt}: attempts count from 0")
            seed = D.hand_seed(seed, args.hand, args.attempt)
    profile = profiles.house(args.profile)
    dealt = D.deal(seed, args.starter, D.Sizes(profile.starter_tiles, profile.other_tiles))
    print(json.dumps({
        "deal_version": version, **extra, "seed": seed.hex(), "commitment": D.commitment(seed),
        "starter": dealt.starter, "indicator": tiles.name(dealt.indicator),
        "okey": tiles.name(tiles.okey_for(dealt.indicator)),
        "racks": [tiles.names(r) for r in dealt.racks], "deck": tiles.names(dealt.deck)}))
    return 0


def register(commands: Any) -> None:
    deal = commands.add_parser(
        "deal", help="re-derive a deal from what its hand revealed (proto/DEAL.md)")
    source = deal.add_mutually_exclusive_group(required=True)
    source.add_argument("--seed", help="version 1: the hand seed (hex), as hand_ended reveals"
                        " it; with --hand, the match seed")
    source.add_argument("--server-share", help="version 2: the server's share (hex), as "
                        "hand_ended reveals it (server_share)")
    deal.add_argument("--client-seed", action="append", default=[], metavar="SEAT=HEX",
                      help="version 2: a seat's revealed client seed (seeding_closed); one "
                      "per contributing seat")
    deal.add_argument("--starter", type=int, default=0, choices=range(SEATS))
    deal.add_argument("--profile", default="okeygg", choices=sorted(profiles.HOUSES),
                      help="the house, for its deal sizes (okey-oyna-duz: 15 and 14)")
    deal.add_argument("--hand", type=int, help="version 1: derive the hand seed from a "
                      "match seed")
    deal.add_argument("--attempt", type=int, default=0)
    deal.set_defaults(run=_run)
