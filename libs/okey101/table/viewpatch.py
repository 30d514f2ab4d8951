"""A view's changes, applied: the reader's side of the views contract, version 2. Pure.

The views service publishes a seat's view whole (`table.views.PlayerUpdate`) and then as
patches (`PlayerPatch`: JSON Patch operations, RFC 6902) until the next whole one. A
reader keeps each seat's newest view as a `SeatChain`: the last whole view's bytes and the
patches since, applied when the view is needed (`view`), so that a reader which forwards
patches (a gateway) decodes nothing on the way. `ViewFollower` is that for a reader of
every seat's updates which plays from the views (the bots service, tests).
"""

from __future__ import annotations

from typing import Any

import msgspec

from okey101.table.views import (
    AnyPlayerUpdate,
    PatchOp,
    PlayerPatch,
    PlayerUpdate,
    PlayerView,
)


class PatchError(ValueError):
    """A patch that does not apply to the view it names (a path that is not there)."""


def apply(view: Any, ops: list[Any]) -> Any:
    """`ops` (`PatchOp`s, or their decoded JSON objects) applied in order to `view`, a
    decoded JSON object changed in place and returned. Raises `PatchError` naming the
    operation's index and path when one does not apply."""
    for i, op in enumerate(ops):
        kind, path, value = _fields(op)
        keys = path.split("/")
        if keys[0] != "" or len(keys) < 2:
            raise PatchError(f"op {i}: path {path!r} is not a JSON Pointer into the view")
        node = view
        try:
            for key in keys[1:-1]:
                node = node[int(key)] if isinstance(node, list) else node[key]
        except (KeyError, IndexError, ValueError, TypeError):
            raise PatchError(f"op {i}: path {path!r}: no such member") from None
        _set(node, keys[-1], kind, value, i, path)
    return view


def _fields(op: Any) -> tuple[str, str, Any]:
    if isinstance(op, PatchOp):
        return op.op, op.path, op.value
    try:
        return op["op"], op["path"], op["value"]
    except (KeyError, TypeError):
        raise PatchError(f"{op!r} is not a patch operation (op, path, value)") from None


def _set(node: Any, last: str, kind: str, value: Any, i: int, path: str) -> None:
    if isinstance(node, dict):
        if kind != "replace" or last not in node:
            raise PatchError(f"op {i}: {kind} {path!r}: a view's members are only replaced")
        node[last] = value
        return
    if not isinstance(node, list):
        raise PatchError(f"op {i}: path {path!r}: no such member")
    if kind == "add" and last == "-":
        node.append(value)
        return
    try:
        index = int(last)
    except ValueError:
        raise PatchError(f"op {i}: path {path!r}: not an array index") from None
    if kind == "replace" and 0 <= index < len(node):
        node[index] = value
    elif kind == "add" and 0 <= index <= len(node):
        node.insert(index, value)
    else:
        raise PatchError(f"op {i}: {kind} {path!r}: index out of range ({len(node)} items)")


_decode_json = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


def apply_bytes(view: bytes, patches: list[bytes]) -> bytes:
    """A whole view's JSON with `patches` (each an encoded array of operations) applied."""
    obj = _decode_json(view)
    for patch in patches:
        apply(obj, _decode_json(patch))
    return _encode(obj)


class SeatChain:
    """One seat's newest view: the bytes of the last whole view, the patches since (each an
    encoded array of operations) and the version they lead to."""

    __slots__ = ("base", "patches", "version")

    def __init__(self) -> None:
        self.version = -1
        self.base = b""
        self.patches: list[bytes] = []

    @property
    def is_known(self) -> bool:
        return self.version >= 0

    def reset(self, version: int, view: bytes) -> None:
        self.version, self.base, self.patches = version, view, []

    def follows(self, previous: int) -> bool:
        """Whether a patch from `previous` applies to the view held."""
        return self.is_known and previous == self.version

    def extend(self, version: int, patch: bytes) -> None:
        """A patch from the version held (`follows`) to `version`."""
        self.version = version
        self.patches.append(patch)

    def view(self) -> bytes:
        """The view's bytes: the patches applied once, then kept as the new base. Raises
        `PatchError` (and forgets the view) when one does not apply."""
        if self.patches:
            try:
                self.base = apply_bytes(self.base, self.patches)
            except (PatchError, msgspec.DecodeError) as exc:
                self.reset(-1, b"")
                raise PatchError(str(exc)) from exc
            self.patches = []
        return self.base


class _Head(msgspec.Struct):
    kind: str = "view"


_decode_head = msgspec.json.Decoder(_Head).decode
_decode_patch = msgspec.json.Decoder(PlayerPatch).decode
_decode_full = msgspec.json.Decoder(PlayerUpdate).decode


def decode_update(value: bytes) -> AnyPlayerUpdate:
    """A player-views record: a whole view or a patch (`kind`; a whole view when absent, as
    version 1 wrote them). Raises msgspec errors for anything else."""
    head = _decode_head(value)
    if head.kind == "patch":
        return _decode_patch(value)
    if head.kind != "view":
        raise msgspec.ValidationError(f"player update of unknown kind {head.kind!r}")
    return _decode_full(value)


_decode_view = msgspec.json.Decoder(PlayerView).decode


class ViewFollower:
    """Every seat's newest view, followed from the player-views records in order: `keep`
    takes a record (a whole view, or a patch applied only when the view is asked for) and
    `current` gives a seat's whole update, its view rebuilt from the patches. A record
    already held is ignored; one that follows a view this reader does not hold (a gap:
    `gaps` counts them) too, until the seat's next whole view heals it."""

    def __init__(self) -> None:
        self.seats: dict[tuple[str, int], tuple[SeatChain, AnyPlayerUpdate]] = {}
        self.gaps = 0

    def keep(self, update: AnyPlayerUpdate) -> bool:
        """Whether `update` moved its seat's view on."""
        key = (update.table_id, update.seat)
        held = self.seats.get(key)
        chain = held[0] if held is not None else SeatChain()
        if update.version <= chain.version:
            return False
        if isinstance(update, PlayerUpdate):
            chain.reset(update.version, _encode(update.view))
        elif chain.follows(update.previous):
            chain.extend(update.version, _encode(update.patch))
        else:
            self.gaps += 1
            return False
        self.seats[key] = (chain, update)
        return True

    def current(self, table_id: str, seat: int) -> PlayerUpdate | None:
        """The seat's newest update, whole (None: none held). Raises `PatchError` for a
        patch that does not apply (the seat's view is forgotten until a whole one)."""
        held = self.seats.get((table_id, seat))
        if held is None:
            return None
        chain, last = held
        if isinstance(last, PlayerUpdate):
            return last
        if not chain.is_known:
            return None
        view = _decode_view(chain.view())
        whole = PlayerUpdate(table_id=last.table_id, seat=last.seat, version=last.version,
                             previous=last.previous, events=last.events, view=view,
                             bot=last.bot, bot_level=last.bot_level)
        self.seats[(table_id, seat)] = (chain, whole)
        return whole

    def follow(self, update: AnyPlayerUpdate) -> PlayerUpdate | None:
        """`keep` then `current`: the seat's whole update, or None when `update` was not
        kept."""
        if not self.keep(update):
            return None
        return self.current(update.table_id, update.seat)

    def forget(self, table_id: str) -> None:
        for key in [k for k in self.seats if k[0] == table_id]:
            del self.seats[key]
