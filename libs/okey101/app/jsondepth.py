"""How deep a JSON text nests, found before it is decoded: a decoder recurses once per
level, so a text nested thousands deep exhausts the stack of whatever decodes it
(msgspec raises RecursionError, json.loads too, aiohttp's handler dies with them). Pure.
"""

from __future__ import annotations

import re

MAX_DEPTH = 32  # every message of the WebSocket API and of the HTTP APIs nests far less

# a JSON string token, escapes included (unrolled: no alternation per byte)
STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_ONE_KIND = bytes.maketrans(b"{}", b"[]")  # an object's braces nest as a list's brackets


def too_deep(data: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """Whether `data` (JSON text, valid or not) opens more than `limit` arrays or objects
    inside one another; brackets inside strings do not count."""
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False  # fewer brackets than the limit: no need to look (almost every frame)
    return nests_deeper(STRING.sub(b"", raw), limit)


def nests_deeper(bare: bytes, limit: int) -> bool:
    """Whether `bare` (JSON text with its strings taken out) opens more than `limit` arrays
    or objects inside one another."""
    every = brackets = bare.translate(_ONE_KIND, _NOT_BRACKETS)
    # Each round takes out the innermost pairs, so balanced brackets are gone after as
    # many rounds as they nest deep: a few passes in C instead of a loop over every byte.
    for _ in range(limit):
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"")
    if not brackets:
        return False
    depth = 0  # unbalanced or deep: count every bracket of the text
    for b in every:
        depth += 1 if b == 91 else -1  # 91: "["
        if depth > limit:
            return True
    return False
