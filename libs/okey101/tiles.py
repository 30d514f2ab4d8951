"""Tiles, their notation, the 106-tile set, the indicator and the okey.

A tile kind is a small int: ``colour * 13 + (number - 1)`` for the 104 numbered
tiles (0..51), and ``FAKE`` (52) for the fake okey. Each kind appears twice in the set.
Notation: ``R7``, ``Y13``, ``B1``, ``K10``, ``F``; a joker inside a meld is written as the
okey tile with what it stands for, ``Y6=K9``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from okey101.errors import MalformedInput

COLOURS = "RYBK"
COLOUR_NAMES = ("red", "yellow", "blue", "black")
NUMBERS = range(1, 14)
FAKE = 52
KINDS = 53
COPIES = 2
SET_SIZE = 106

Tile = int


def make(colour: int, number: int) -> Tile:
    """The kind of the tile of `colour` (0..3) and `number` (1..13)."""
    return colour * 13 + number - 1


def colour_of(tile: Tile) -> int:
    return tile // 13


def number_of(tile: Tile) -> int:
    return tile % 13 + 1


def is_fake(tile: Tile) -> bool:
    return tile == FAKE


_NAMES = [f"{COLOURS[t // 13]}{t % 13 + 1}" for t in range(FAKE)] + ["F"]


def name(tile: Tile) -> str:
    """The notation of a tile kind: ``R7`` or ``F``."""
    if not 0 <= tile <= FAKE:
        raise MalformedInput(f"no tile has kind {tile}")
    return _NAMES[tile]


_NAME_OF: dict[Tile, str] = dict(enumerate(_NAMES))


def names(tiles: Iterable[Tile]) -> list[str]:
    if isinstance(tiles, (list, tuple)):
        try:
            return [_NAME_OF[t] for t in tiles]
        except (KeyError, TypeError):
            pass  # the kind is named below
    return [name(t) for t in tiles]


_BY_NAME: dict[str, Tile] = {name(t): t for t in range(FAKE)} | {"F": FAKE}
BY_NAME = _BY_NAME  # canonical name -> tile: what events carry, looked up at once


def parse(token: str) -> Tile:
    """Parse one tile token (``R7``, ``k10``, ``F``); the error names the token. The one
    tile parser: canonical names (what events carry) are looked up at once."""
    try:
        return _BY_NAME[token]
    except (KeyError, TypeError):
        pass
    tile = _BY_NAME.get(token.strip().upper()) if isinstance(token, str) else None
    if tile is None:
        raise MalformedInput(f"unknown tile {token!r}: expected R|Y|B|K with 1-13, or F")
    return tile


def parse_many(tokens: Iterable[str]) -> list[Tile]:
    if isinstance(tokens, (list, tuple)):
        try:  # canonical names, as events carry them
            return [_BY_NAME[t] for t in tokens]
        except (KeyError, TypeError):
            pass
    return [parse(t) for t in tokens]


def parse_at(tokens: Sequence[str], where: str, first: int = 0) -> list[Tile]:
    """`parse_many`, an error naming the place and the token's position in it (counted
    from `first`: 0 for a JSON list, 1 for words on a command line)."""
    if not isinstance(tokens, (list, tuple)):
        raise MalformedInput(f"{where}: expected a list of tiles, got {tokens!r}")
    out = []
    for i, token in enumerate(tokens):
        try:
            out.append(parse(token))
        except MalformedInput as exc:
            raise MalformedInput(f"{where}, tile {i + first}: {exc}") from None
    return out


def parse_meld_token(token: str) -> tuple[Tile, Tile | None]:
    """Parse a meld token: ``R7`` -> (R7, None); ``Y6=K9`` -> (Y6, K9), a joker standing for K9."""
    try:
        return _BY_NAME[token], None
    except (KeyError, TypeError):
        pass
    if not isinstance(token, str):
        raise MalformedInput(f"unknown tile {token!r}")
    if "=" not in token:
        return parse(token), None
    left, _, right = token.partition("=")
    played = parse(left)
    stands_for = parse(right)
    if stands_for == FAKE:
        raise MalformedInput(f"{token!r}: a joker cannot stand for a fake okey")
    return played, stands_for


def okey_for(indicator: Tile) -> Tile:
    """The okey: the indicator's colour, number + 1; 13 wraps to that colour's 1."""
    if indicator == FAKE:
        raise MalformedInput("a fake okey cannot be the indicator")
    colour, number = colour_of(indicator), number_of(indicator)
    return make(colour, 1 if number == 13 else number + 1)


def full_set() -> list[Tile]:
    """The 106 tiles in canonical order: R1 R1 R2 R2 ... K13 K13 F F."""
    return [t for t in range(KINDS) for _ in range(COPIES)]


def check_counts(tiles: Sequence[Tile], what: str = "tiles") -> None:
    """Refuse more copies of a kind than the set holds (two of each, two fake okeys)."""
    for tile, count in Counter(tiles).items():
        if count > COPIES:
            raise MalformedInput(
                f"{what}: {name(tile)} appears {count} times; the set holds only {COPIES}"
            )


def sort_key(tile: Tile) -> tuple[int, int]:
    return (colour_of(tile), number_of(tile)) if tile != FAKE else (4, 0)


def face_value(tile: Tile, okey: Tile) -> int:
    """A tile's face value in a rack sum; a fake okey counts as the okey's number."""
    return number_of(okey) if tile == FAKE else number_of(tile)
