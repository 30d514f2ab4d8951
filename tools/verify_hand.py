#!/usr/bin/env python3
"""Verify hands of 101 Okey from their public events, with nothing but Python's standard
library and proto/DEAL.md (deal versions 1 and 2).

    python3 tools/verify_hand.py EVENTS.jsonl [--table ID] [--hand N] [--starter-tiles 22
                                 --other-tiles 21]

EVENTS: JSON lines (or one JSON array) of table events: as kcat prints the events or views
topic (a views record's `event` is unwrapped), or `okey101 history`'s replay export. For
each hand: the commitment against the revealed seed (version 2: the server's share against
its commitment, every client seed against its seat's commitment, the hand seed derived from
them), the deal of that seed against hand_started (indicator, okey, deck count), then every
public move replayed against the deal: each tile a seat laid, discarded, put back or
showed must be in its rack by the deal, its draws (the deck's top) and its takes; each
taken discard the top of the previous seat's pile; each rack revealed by hand_ended what
the seat holds. A rack_dealt or a drawn tile you saw (your own) is checked too.

Prints one line per hand; exit status 0 when every hand verified, 1 otherwise, 2 for
unreadable input.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

COLOURS = "RYBK"
SEATS = 4
LABEL_V2 = b"okey101-deal-v2"


# ---------------------------------------------------------------- the deal (DEAL.md)
def canonical() -> list[str]:
    order = [f"{c}{n}" for c in COLOURS for n in range(1, 14) for _ in range(2)]
    return [*order, "F", "F"]


def words(seed: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hmac.new(seed, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i:i + 4], "big")
        counter += 1


def shuffled(seed: bytes) -> list[str]:
    order = canonical()
    stream = words(seed)
    for i in range(len(order) - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        u = next(stream)
        while u >= limit:
            u = next(stream)
        j = u % bound
        order[i], order[j] = order[j], order[i]
    return order


def deal(seed: bytes, starter: int, first: int = 22, other: int = 21
         ) -> tuple[list[list[str]], str, list[str]]:
    order = shuffled(seed)
    racks: list[list[str]] = [[] for _ in range(SEATS)]
    at = 0
    for k in range(SEATS):
        seat = (starter + k) % SEATS
        size = first if k == 0 else other
        racks[seat] = order[at:at + size]
        at += size
    rest = order[at:]
    pick = next(i for i, t in enumerate(rest) if t != "F")
    indicator = rest.pop(pick)
    return racks, indicator, rest


def okey_of(indicator: str) -> str:
    number = int(indicator[1:])
    return f"{indicator[0]}{1 if number == 13 else number + 1}"


def sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def seed_v2(share: bytes, client_seeds: list[str]) -> bytes:
    message = LABEL_V2
    for value in client_seeds:
        message += b"\x00" if not value else b"\x01" + bytes.fromhex(value)
    return hmac.new(share, message, hashlib.sha256).digest()


# ---------------------------------------------------------------- checking a hand
class Failed(Exception):
    def __init__(self, event: dict[str, Any], message: str) -> None:
        super().__init__(message)
        self.seq = event.get("seq", 0)
        self.kind = event.get("type", "")


def played(token: str) -> str:
    """A meld token's tile: Y6=K9 puts down Y6."""
    return token.split("=", 1)[0]


def take_out(rack: Counter[str], seat: int, laid: list[str], event: dict[str, Any],
             what: str) -> None:
    need = Counter(laid)
    short = sorted(t for t, n in need.items() if rack[t] < n)
    if short:
        raise Failed(event, f"seat {seat} {what} {' '.join(laid)}, but {' '.join(short)} "
                            "was not in its rack")
    rack.subtract(need)


def seed_of(hand: list[dict[str, Any]], started: dict[str, Any], ended: dict[str, Any]
            ) -> bytes:
    seed = bytes.fromhex(ended["seed"])
    if started.get("deal_version", 1) != 2:
        return seed
    opened = next((e for e in hand if e["type"] == "seeding_opened"), None)
    closed = next((e for e in hand if e["type"] == "seeding_closed"), None)
    if opened is None or closed is None:
        raise Failed(ended, "deal version 2 without seeding_opened and seeding_closed")
    share = bytes.fromhex(ended.get("server_share", ""))
    if sha(share) != opened["server_commitment"]:
        raise Failed(ended, "SHA-256 of the server share is not seeding_opened's "
                            "server_commitment")
    committed: dict[int, str] = {}
    revealed = [""] * SEATS
    for e in hand:
        if e["type"] == "seed_committed":
            committed[e["seat"]] = e["commitment"]
        elif e["type"] == "seed_revealed":
            if sha(bytes.fromhex(e["client_seed"])) != committed.get(e["seat"]):
                raise Failed(e, f"seat {e['seat']}'s client seed does not hash to its "
                                "commitment")
            revealed[e["seat"]] = e["client_seed"]
    if list(closed["client_seeds"]) != revealed:
        raise Failed(closed, "seeding_closed.client_seeds are not the seeds revealed")
    derived = seed_v2(share, revealed)
    if derived != seed:
        raise Failed(ended, f"the share and client seeds derive {derived.hex()}, not the "
                            f"revealed seed {ended['seed']}")
    return seed


def verify(hand: list[dict[str, Any]], first: int, other: int) -> str:
    started = next(e for e in hand if e["type"] == "hand_started")
    ended = next(e for e in hand if e["type"] == "hand_ended")
    seed = seed_of(hand, started, ended)
    if sha(seed) != started["commitment"]:
        raise Failed(ended, "SHA-256 of the revealed seed is not hand_started's commitment")
    racks, indicator, deck = deal(seed, started["starter"], first, other)
    if (indicator, okey_of(indicator), len(deck)) != (started["indicator"], started["okey"],
                                                        started["deck_count"]):
        raise Failed(started, f"the seed deals indicator {indicator}, {len(deck)} deck tiles")
    okey = okey_of(indicator)
    held = [Counter(r) for r in racks]
    piles: list[list[str]] = [[] for _ in range(SEATS)]
    melds: list[list[str]] = []
    drawn, taken_from, moves = 0, -1, 0
    for e in hand[hand.index(started) + 1:]:
        kind, seat = e["type"], e.get("seat", -1)
        if kind == "rack_dealt" and Counter(e["tiles"]) != Counter(racks[seat]):
            raise Failed(e, f"seat {seat}'s rack is not the seed's deal")
        elif kind == "tile_drawn":
            if drawn >= len(deck):
                raise Failed(e, "a draw from an empty deck")
            if e.get("tile") and e["tile"] != deck[drawn]:
                raise Failed(e, f"drew {e['tile']}; the deck's top is {deck[drawn]}")
            held[seat][deck[drawn]] += 1
            drawn += 1
        elif kind == "tile_discarded":
            take_out(held[seat], seat, [e["tile"]], e, "discarded")
            piles[seat].append(e["tile"])
        elif kind == "discard_taken":
            source = (seat - 1) % SEATS
            if not piles[source] or piles[source][-1] != e["tile"]:
                raise Failed(e, f"took {e['tile']}, not the top of seat {source}'s pile")
            piles[source].pop()
            held[seat][e["tile"]] += 1
            taken_from = source
        elif kind == "discard_put_back":
            take_out(held[seat], seat, [e["tile"]], e, "put back")
            piles[taken_from if taken_from >= 0 else (seat - 1) % SEATS].append(e["tile"])
        elif kind == "indicator_shown":
            if held[seat][e["tile"]] < 1:
                raise Failed(e, f"showed {e['tile']}, not in its rack")
        elif kind in ("hand_opened", "melds_laid"):
            for group in e["melds"]:
                laid = [played(t) for t in group]
                take_out(held[seat], seat, laid, e, "laid")
                melds.append(laid)
        elif kind == "tiles_laid_off":
            laid = [played(t) for t in e["tiles"]]
            take_out(held[seat], seat, laid, e, "laid off")
            melds[e["meld"]].extend(laid)
        elif kind == "okey_taken":
            if okey not in melds[e["meld"]]:
                raise Failed(e, f"took the okey from meld {e['meld']}, which holds none")
            take_out(held[seat], seat, list(e["tiles"]), e, "put down for the okey")
            melds[e["meld"]].remove(okey)
            melds[e["meld"]].extend(e["tiles"])
            held[seat][okey] += 1
        elif kind == "rack_shown":
            shown = [e["tile"]] + [played(t) for g in e["melds"] for t in g]
            take_out(held[seat], seat, shown, e, "showed")
        elif kind == "hand_ended":
            for s in range(SEATS):
                if Counter(e["racks"][s]) != +held[s]:
                    raise Failed(e, f"seat {s}'s revealed rack is not what it held")
            break
        else:
            continue
        moves += 1
    return (f"hand {started['hand']} (attempt {started['attempt']}, deal version "
            f"{started.get('deal_version', 1)}): verified, {moves} moves")


def hands(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    for e in events:
        kind = e.get("type")
        if kind == "seeding_opened":
            current = [e]
        elif kind == "hand_started":
            if not (current and current[0]["type"] == "seeding_opened"
                    and all(x["type"] != "hand_started" for x in current)):
                current = []
            current.append(e)
        elif current:
            current.append(e)
            if kind == "hand_ended":
                out.append(current)
                current = []
    return out


def load(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    stripped = text.lstrip()
    docs = json.loads(text) if stripped.startswith("[") else \
        [json.loads(line) for line in text.splitlines() if line.strip()]
    return [d["event"] if "event" in d and isinstance(d["event"], dict) else d for d in docs]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("events", help="JSON lines (or a JSON array) of table events")
    p.add_argument("--table", help="only this table")
    p.add_argument("--hand", type=int, help="only this hand")
    p.add_argument("--starter-tiles", type=int, help="tiles the starter is dealt (22; düz 15)")
    p.add_argument("--other-tiles", type=int, help="tiles every other seat is dealt (21; 14)")
    args = p.parse_args(argv)
    try:
        events = load(args.events)
    except (OSError, ValueError) as exc:
        print(f"verify_hand: {args.events}: {exc}", file=sys.stderr)
        return 2
    if args.table:
        events = [e for e in events if e.get("table_id") == args.table]
    events.sort(key=lambda e: (e.get("table_id", ""), e.get("seq", 0)))
    first, other = 22, 21
    created = next((e for e in events if e.get("type") == "table_created"), None)
    if created is not None:
        first = created["profile"].get("starter_tiles", first)
        other = created["profile"].get("other_tiles", other)
    first, other = args.starter_tiles or first, args.other_tiles or other
    found = [h for h in hands(events)
             if args.hand is None or any(e["type"] == "hand_started" and e["hand"] == args.hand
                                         for e in h)]
    if not found:
        print("verify_hand: no whole hand (hand_started to hand_ended) in the input",
              file=sys.stderr)
        return 2
    bad = 0
    for hand in found:
        try:
            print(verify(hand, first, other))
        except Failed as f:
            bad += 1
            started = next(e for e in hand if e["type"] == "hand_started")
            print(f"hand {started['hand']} (attempt {started['attempt']}): FAILED at seq "
                  f"{f.seq} ({f.kind}): {f}")
        except (KeyError, ValueError, IndexError, TypeError) as exc:
            bad += 1
            print(f"hand in {hand[0].get('table_id')} from seq {hand[0].get('seq')}: "
                  f"FAILED: unreadable event: {exc!r}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
