"""A refused request (its code is in okey101.codes.MATCHMAKING), and derived ids."""

from __future__ import annotations

import hashlib


class Refusal(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def refuse(code: str, message: str) -> Refusal:
    return Refusal(code, message)


def digest(*parts: str) -> str:
    """A stable id from its parts: the core mints no random ids."""
    return hashlib.sha256("/".join(parts).encode()).hexdigest()
