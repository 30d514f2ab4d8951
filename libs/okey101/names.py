"""Player ids made from names, and the names a table shows. Pure: entropy is an argument.

A guest's id is the name typed (Unicode letters kept: "Ayşe" stays "Ayşe"), cut to
`NAME_LENGTH`, and a hex suffix that makes it unique: ``Ayşe-a94d0c``. A bot's id has
the very same shape, a Turkish first name generated from the bot's entropy and a suffix
(``Elif-3c1a7b``), so that where the house hides bots (north-sultan) nothing in an id, a
view, an event or the lobby tells a bot seat from a person's. A table shows each id
without its suffix, and tells two equal names at one table apart by a number.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

NAME_LENGTH = 20  # characters of a display name
SUFFIX = re.compile(r"-[0-9a-f]{6}$")
LEGACY_BOT = re.compile(r"^[0-9a-f]{32}$")  # the uuid4 hex bots were once given
GUEST = "Misafir"

# Turkish first names, as people at the seed sites' tables are called
FIRST_NAMES = (
    "Ahmet", "Ali", "Ayşe", "Aysel", "Barış", "Berk", "Burak", "Can", "Cem", "Cemile",
    "Deniz", "Derya", "Ebru", "Ece", "Elif", "Emine", "Emre", "Esra", "Fatma", "Ferhat",
    "Gamze", "Gökhan", "Gül", "Gülşen", "Hakan", "Hande", "Hasan", "Hülya", "İbrahim",
    "İpek", "İrem", "Kaan", "Kemal", "Leyla", "Mehmet", "Melek", "Merve", "Murat", "Mustafa",
    "Nazlı", "Nermin", "Neslihan", "Oğuz", "Onur", "Orhan", "Özge", "Özlem", "Pınar",
    "Rabia", "Recep", "Selin", "Serkan", "Sevgi", "Sibel", "Şükrü", "Şule", "Tarık",
    "Tuğba", "Tülay", "Ufuk", "Ümit", "Volkan", "Yasemin", "Yusuf", "Zehra", "Zeynep",
)


def clean_name(typed: str) -> str:
    """What is kept of a typed name: letters and digits of any script, and ``_ . -`` inside
    it, NFC-normalised, at most `NAME_LENGTH` characters; "" when nothing is left."""
    text = unicodedata.normalize("NFC", typed)
    kept = "".join(c if c.isalnum() or c in "_.-" else "-" if c.isspace() else ""
                   for c in text)
    kept = re.sub(r"[-_.]{2,}", "-", kept).strip("-_.")
    return kept[:NAME_LENGTH].rstrip("-_.")


def account_id(typed: str, entropy: bytes) -> str:
    """A guest's player id: the cleaned name (or `GUEST`) and 6 hex digits of `entropy`."""
    if len(entropy) < 3:
        raise ValueError("account_id needs 3 bytes of entropy")
    return f"{clean_name(typed) or GUEST}-{entropy[:3].hex()}"


def bot_name(seed: bytes) -> str:
    """A human-looking first name for a bot, the same for the same seed."""
    digest = hashlib.sha256(b"okey101 bot name\0" + seed).digest()
    return FIRST_NAMES[int.from_bytes(digest[:4], "big") % len(FIRST_NAMES)]


def bot_id(entropy: bytes) -> str:
    """A new bot's player id, shaped like a guest's: a generated name and a suffix."""
    if len(entropy) < 6:
        raise ValueError("bot_id needs 6 bytes of entropy")
    return account_id(bot_name(entropy[3:]), entropy)


def display_name(player_id: str) -> str:
    """The name a table shows for `player_id`: without the suffix, at most `NAME_LENGTH`
    characters; a legacy hex bot id gets a generated name; "" for an empty seat."""
    if not player_id:
        return ""
    if LEGACY_BOT.match(player_id):
        return bot_name(bytes.fromhex(player_id))
    return SUFFIX.sub("", player_id)[:NAME_LENGTH] or player_id[:NAME_LENGTH]


def table_names(players: list[str]) -> list[str]:
    """Each seat's display name, unique at the table: a name a lower seat already shows
    gets " 2", " 3" after it."""
    out: list[str] = []
    for player in players:
        name = display_name(player)
        if name:
            base, n = name, 1
            while name.casefold() in (o.casefold() for o in out):
                n += 1
                name = f"{base} {n}"
        out.append(name)
    return out
