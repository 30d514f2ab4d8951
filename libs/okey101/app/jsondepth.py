"""How deep a JSON text nests, found before it is decoded: a decoder recurses once per
level, so a text nested thousands deep exhausts the stack of whatever decodes it
(msgspec raises RecursionError, json.loads too, aiohttp's handler dies with them). Pure.
"""

from __future__ import annotations

import re

MAX_DEPTH = 32  # every message of the WebSocket API and of the HTTP APIs nests far less

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def too_deep(data: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """Whether `data` (JSON text, valid or not) opens more than `limit` arrays or objects
    inside one another; brackets inside strings do not count."""
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False  # fewer brackets than the limit: no need to look (almost every frame)
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    depth = 0
    for b in brackets:
        if b in b"[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False
