"""Bounds a consumed record must keep before any decoder touches it (issue 26).

A record is read by a decoder that recurses once per nesting level (msgspec raises
`RecursionError` near 1,000) and that builds whatever size the bytes ask for. `check`
refuses, on the raw bytes and without recursion: a record larger than the topic allows,
bytes that are not UTF-8,
nesting deeper than any message of ours has, a string longer than any field of ours holds,
and an integer beyond what a JavaScript client holds exactly (2**53). What passes is then
decoded by the typed decoders, which refuse wrong types; `kind_of` names any exception a
consumer met as the reason kind its dead letter and metric carry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import msgspec

from okey101.app import jsondepth

# an integer part of 17 digits or more (not the digits after a point): past 2**53, the
# integers a JavaScript client holds exactly
_LONG_INTEGER = re.compile(rb"(?<![.\d])\d{17,}")
_ALL_DIGITS_ZERO = bytes.maketrans(b"123456789", b"000000000")
MAX_INT = 2**53


@dataclass(frozen=True, slots=True)
class Limits:
    max_bytes: int
    max_depth: int
    max_string: int  # bytes of one string token, quotes and escapes included


# A command: a lay with every tile of a rack nests 4 deep, options 3; ids are short.
COMMANDS = Limits(max_bytes=64 * 1024, max_depth=12, max_string=512)
# What the processor and the services derive (events, views, outcomes, directory,
# standings): a player view or a hand's end nests about 6 deep and holds the profile.
DERIVED = Limits(max_bytes=1024 * 1024, max_depth=32, max_string=64 * 1024)
MAX_OPTIONS = 64  # options of one create_table (a profile has fewer fields)
KINDS = ("too_large", "too_deep", "too_long", "number_range", "undecodable", "invalid",
         "empty", "wrong_key", "failed", "poison")


class HostileRecord(ValueError):
    """A record outside the bounds; `kind` is one of `KINDS`."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


def check(raw: bytes, limits: Limits) -> None:
    """Raise `HostileRecord` when `raw` is outside `limits`; linear in its size."""
    if len(raw) > limits.max_bytes:
        raise HostileRecord("too_large", f"record of {len(raw)} bytes: at most "
                            f"{limits.max_bytes} are read")
    try:
        raw.decode("utf-8")  # a part a reader keeps raw (a view) is passed on as text
    except UnicodeDecodeError as exc:
        raise HostileRecord("undecodable", f"invalid UTF-8 at byte {exc.start}") from None
    bare, longest = _without_strings(raw, len(raw) > limits.max_string)
    if longest > limits.max_string:
        raise HostileRecord("too_long", f"a string of {longest} bytes: at most "
                            f"{limits.max_string}")
    if bare.count(b"[") + bare.count(b"{") > limits.max_depth and \
            jsondepth.nests_deeper(bare, limits.max_depth):
        raise HostileRecord("too_deep", f"nested more than {limits.max_depth} deep")
    if b"0" * 17 in bare.translate(_ALL_DIGITS_ZERO) and _LONG_INTEGER.search(bare):
        raise HostileRecord("number_range", "an integer of 17 digits or more: every "
                            f"integer is within +-{MAX_INT} (2**53)")


def _without_strings(raw: bytes, measure: bool) -> tuple[bytes, int]:
    """`raw` with each string token emptied to `""`, and (when `measure`) the longest
    token's bytes, quotes included. Without a backslash every quote opens or closes a
    string, so splitting at quotes finds them, in C; the regex is for escapes and for an
    unclosed quote (which it leaves, with what follows it)."""
    if b"\\" not in raw:
        parts = raw.split(b'"')
        if len(parts) % 2:
            longest = max(map(len, parts[1::2]), default=-2) + 2 if measure else 0
            return b'""'.join(parts[::2]), longest
    longest = max(map(len, jsondepth.STRING.findall(raw)), default=0) if measure else 0
    return jsondepth.STRING.sub(b'""', raw), longest


def check_integers(message: object) -> None:
    """Raise `HostileRecord` when a top-level integer field of a decoded struct is outside
    +-2**53 (the bytes' check lets through 16-digit ones)."""
    for name in getattr(message, "__struct_fields__", ()):
        value = getattr(message, name)
        if type(value) is int and not -MAX_INT <= value <= MAX_INT:
            raise HostileRecord("number_range", f"{name}={value} is outside +-2**53")


def kind_of(exc: BaseException) -> str:
    """The reason kind of an exception met while reading or applying a record."""
    if isinstance(exc, HostileRecord):
        return exc.kind
    if isinstance(exc, RecursionError):
        return "too_deep"
    if isinstance(exc, msgspec.ValidationError):
        return "invalid"
    if isinstance(exc, (msgspec.DecodeError, UnicodeDecodeError)):
        return "undecodable"
    return "failed"


def describe(exc: BaseException) -> str:
    """An exception as the reason in words a dead letter carries (bounded)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 500 else text[:497] + "..."
