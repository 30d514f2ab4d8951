"""The three kinds of failure, kept distinct.

- `MalformedInput`: the input cannot be understood (a bad token, a wrong count).
- `IllegalMove`: the input is understood but the rules forbid it; carries a stable code.
- `InfrastructureFault`: something outside the rules failed (a broker, a disk).
"""

from __future__ import annotations


class MalformedInput(ValueError):
    """Input that cannot be parsed or does not have the required shape."""


class IllegalMove(Exception):
    """A well-formed request the rules forbid. `code` is stable snake_case."""

    def __init__(self, message: str, code: str = "illegal_move") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class InfrastructureFault(RuntimeError):
    """A failure outside the rules: a broker, a network, a disk."""
