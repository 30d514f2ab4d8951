"""What a gateway remembers of the player-views topic: each seat's newest view, the recent
events for resuming, and the lobby's directory of tables. Pure (no I/O, no clock).

The views service publishes a seat's view whole (`PlayerUpdate`) and then as patches
(`PlayerPatch`) with a version; the cache never folds an engine event. It keeps each seat's
view as a `SeatChain` (the last whole view and the patches since) and forwards each record
to the clients as it came, a whole view as an `update` frame and a patch as a `patch`
frame; the patches are applied only when a client needs the whole view (a `watch`, a
resume, a client that saw a gap). Views, patches and events stay encoded
(`msgspec.Raw`): a frame is built once per record by splicing them, however many
connections receive it. A `rules` frame is answered from the seat's newest view
(`table.viewrules.view_detail`), once a version however often it is asked.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Literal

import msgspec

from okey101.app.gateway import websocket as W
from okey101.table.viewpatch import PatchError, SeatChain
from okey101.table.viewrules import RulesDetail, UnanswerableView, view_detail
from okey101.table.views import SPECTATOR, PlayerView

RESUME_DEPTH = 64  # updates kept per seat for a client that reconnects with a version


class RawPlayerUpdate(msgspec.Struct, frozen=True, kw_only=True):
    """A `PlayerUpdate` or a `PlayerPatch` with its events and its view or patch left
    encoded (`kind`: "view", or "patch"; a record without it is a whole view)."""

    kind: str = "view"
    table_id: str
    seat: int
    version: int
    previous: int
    events: msgspec.Raw
    view: msgspec.Raw = msgspec.Raw(b"null")
    patch: msgspec.Raw = msgspec.Raw(b"null")

    @property
    def is_patch(self) -> bool:
        return self.kind == "patch"


class RawPatch(W.ServerMessage, tag="patch", frozen=True, kw_only=True):
    """`websocket.Patch` with the views service's bytes spliced in."""

    table_id: str
    seat: int
    version: int
    previous: int
    events: msgspec.Raw
    patch: msgspec.Raw


class RawUpdate(W.ServerMessage, tag="update", frozen=True, kw_only=True):
    """`websocket.Update` with the processor's bytes spliced in."""

    table_id: str
    seat: int
    version: int
    previous: int
    reset: bool = False
    events: msgspec.Raw
    view: msgspec.Raw


class _HouseRules(msgspec.Struct, frozen=True):
    id: str
    bots_allowed: bool = True
    turn_seconds: int | None = None


class _PublicView(msgspec.Struct, frozen=True):
    """The part of the spectators' view the directory keeps."""

    seq: int
    status: str
    profile: _HouseRules | None
    players: list[str]
    hands_total: int
    ranked: bool = False


class _PatchOp(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The shape of a patch's operation (`table.views.PatchOp`), its value left encoded:
    checked before a patch is kept or forwarded, so that a client is never sent one it
    cannot apply for its form."""

    op: Literal["add", "replace"]
    path: str
    value: msgspec.Raw


_TABLE_FIELDS: dict[str, Any] = {"/status": str, "/players": list[str], "/hands_total": int,
                 "/ranked": bool, "/profile": _HouseRules | None}


def _patch_table(info: TableInfo, update: RawPlayerUpdate, ops: list[_PatchOp]) -> None:
    """The directory's entry of a table moved on by the spectators' patch `update`, whose
    operations are `ops`."""
    info.version = update.version
    for op in ops:
        kind = _TABLE_FIELDS.get(op.path)
        if kind is None:
            continue
        value: Any = msgspec.json.decode(op.value, type=kind)
        if op.path == "/profile":
            info.house = value.id if value else ""
            info.bots_allowed = value.bots_allowed if value else False
            info.turn_seconds = value.turn_seconds if value else None
        else:
            setattr(info, op.path[1:], value)


class TableInfo(msgspec.Struct):
    table_id: str
    version: int
    status: str
    house: str
    players: list[str]
    hands_total: int
    bots_allowed: bool
    turn_seconds: int | None
    ranked: bool = False

    def seat_of(self, player_id: str) -> int:
        return self.players.index(player_id) if player_id in self.players else SPECTATOR

    def summary(self) -> W.TableSummary:
        return W.TableSummary(
            table_id=self.table_id, house=self.house, status=self.status,
            version=self.version, players=list(self.players),
            free_seats=[i for i, p in enumerate(self.players) if not p],
            hands_total=self.hands_total, bots_allowed=self.bots_allowed,
            turn_seconds=self.turn_seconds, ranked=self.ranked)


class RulesRefused(Exception):
    """A `rules` frame the gateway cannot answer: `code` (`okey101.codes.GATEWAY`) and why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class SeatLog:
    """One (table, seat): the newest view (`SeatChain`) and the events of its last updates.
    `version` is the newest version received; `chain.version` the one whose view is held
    (behind it after a gap, until the next whole view)."""

    __slots__ = ("chain", "detail", "recent", "version")

    def __init__(self, depth: int) -> None:
        self.version = -1
        self.detail: tuple[int, RulesDetail] | None = None  # the last answered, by version
        self.chain = SeatChain()
        self.recent: deque[tuple[int, int, bytes]] = deque(maxlen=depth)

    def add(self, update: RawPlayerUpdate) -> bool:
        """Keep `update`: whether it follows the view held (a whole view always does)."""
        self.version = update.version
        if update.is_patch:
            if not self.chain.follows(update.previous):
                self.recent.clear()  # a gap: nothing to resume from until a whole view
                return False
            self.chain.extend(update.version, bytes(update.patch))
        else:
            self.chain.reset(update.version, bytes(update.view))
        self.recent.append((update.previous, update.version, bytes(update.events)))
        return True

    def view(self) -> msgspec.Raw | None:
        """The newest whole view, or None while a gap lasts (or a patch did not apply)."""
        if self.chain.version != self.version:
            return None
        try:
            return msgspec.Raw(self.chain.view())
        except PatchError:
            return None

    def since(self, version: int) -> msgspec.Raw | None:
        """Every event after `version`, in order, or None when they are no longer kept."""
        parts: list[bytes] = []
        for previous, _, events in reversed(self.recent):
            parts.append(events)
            if previous == version:
                return _concat(reversed(parts))
        return None


def _checked_ops(update: RawPlayerUpdate) -> list[_PatchOp]:
    """A patch's operations (none for a whole view). Raises msgspec errors for a patch
    whose operations are not operations, or an update without its view or patch."""
    if update.is_patch:
        return _decode_patch_ops(update.patch)
    if bytes(update.view) == b"null":
        raise msgspec.ValidationError("a whole view without its `view`")
    return []


def _concat(arrays: object) -> msgspec.Raw:
    inner = [a[1:-1] for a in arrays if len(a) > 2]  # type: ignore[attr-defined]
    return msgspec.Raw(b"[" + b",".join(inner) + b"]")


class _Seq(msgspec.Struct):
    seq: int


def _after(update: RawPlayerUpdate, held: int) -> RawPlayerUpdate:
    """`update` without the events up to version `held`, following on from it."""
    events = [e for e in _decode_events(update.events) if _decode_seq(e).seq > held]
    return msgspec.structs.replace(update, previous=held,
                                   events=msgspec.Raw(_encoder.encode(events)))


_decode_events = msgspec.json.Decoder(list[msgspec.Raw]).decode
_decode_seq = msgspec.json.Decoder(_Seq).decode
_decode_update = msgspec.json.Decoder(RawPlayerUpdate).decode
_decode_public = msgspec.json.Decoder(_PublicView).decode
_decode_patch_ops = msgspec.json.Decoder(list[_PatchOp]).decode
_decode_view = msgspec.json.Decoder(PlayerView).decode
_encoder = msgspec.json.Encoder()


class ViewCache:
    def __init__(self, depth: int = RESUME_DEPTH) -> None:
        self.depth = depth
        self.seats: dict[str, dict[int, SeatLog]] = {}  # table -> seat -> its log
        self.tables: dict[str, TableInfo] = {}

    def ingest(self, value: bytes) -> tuple[RawPlayerUpdate, bytes | None]:
        """Keep one record of the player-views topic; the update and its client frame, or
        None for the frame when the seat already has this version or a newer one (the
        views service publishes at least once) or when a patch does not follow the view
        held (a gap, until the seat's next whole view). Raises msgspec errors for a record
        that is not a `PlayerUpdate` or a `PlayerPatch`."""
        update = _decode_update(value)
        if update.kind not in ("view", "patch"):
            raise msgspec.ValidationError(f"player update of unknown kind {update.kind!r}")
        ops = _checked_ops(update)
        seats = self.seats.setdefault(update.table_id, {})
        log = seats.get(update.seat)
        if log is None:
            log = seats[update.seat] = SeatLog(self.depth)
        if update.version <= log.version:
            return update, None
        if not update.is_patch and 0 <= update.previous < log.version:
            # batched differently after a restart of the views service: keep the chain
            update = _after(update, log.version)
        if update.seat == SPECTATOR:
            self._note_table(update, ops)
        if not log.add(update):
            return update, None
        if update.is_patch:
            frame = _encoder.encode(RawPatch(
                table_id=update.table_id, seat=update.seat, version=update.version,
                previous=update.previous, events=update.events, patch=update.patch))
        else:
            frame = _encoder.encode(RawUpdate(
                table_id=update.table_id, seat=update.seat, version=update.version,
                previous=update.previous, events=update.events, view=update.view))
        return update, frame

    def _note_table(self, update: RawPlayerUpdate, ops: list[_PatchOp]) -> None:
        info = self.tables.get(update.table_id)
        if info is not None and info.version >= update.version:
            return
        if update.is_patch:
            if info is not None:
                _patch_table(info, update, ops)
            return
        view = _decode_public(update.view)
        profile = view.profile
        self.tables[update.table_id] = TableInfo(
            table_id=update.table_id, version=view.seq, status=view.status,
            house=profile.id if profile else "", players=view.players,
            hands_total=view.hands_total,
            bots_allowed=profile.bots_allowed if profile else False,
            turn_seconds=profile.turn_seconds if profile else None, ranked=view.ranked)

    def resume(self, table_id: str, seat: int, version: int | None) -> bytes | None:
        """The frame for a client starting to watch `seat` of a table, holding `version`:
        `synced` when it is the newest, the events since it with the view, or the whole view
        flagged `reset` when the events are no longer kept. None: no view of that seat yet
        (or none while a gap lasts), or the client holds a version this gateway has not
        reached (`is_ahead`): never an older view than the client's."""
        log = self.seats.get(table_id, {}).get(seat)
        if log is None:
            return None
        view = log.view()
        if view is None or (version is not None and version > log.version):
            return None
        if version == log.version:
            return _encoder.encode(W.Synced(table_id=table_id, seat=seat, version=version))
        events = log.since(version) if version is not None else None
        return _encoder.encode(RawUpdate(
            table_id=table_id, seat=seat, version=log.version,
            previous=version if events is not None and version is not None else -1,
            reset=events is None, events=events or msgspec.Raw(b"[]"), view=view))

    def is_ahead(self, table_id: str, seat: int, version: int | None) -> bool:
        """Does a client holding `version` of `seat`'s view hold one this gateway has not
        reached yet (it read another gateway's newer record, or this one's log lags)?"""
        if version is None:
            return False
        log = self.seats.get(table_id, {}).get(seat)
        return log is None or log.view() is None or version > log.version

    def rules(self, table_id: str, seat: int, version: int) -> RulesDetail:
        """The rules' detail of `seat`'s newest view, which must be at `version` (the one
        the asker holds). Raises `RulesRefused` with a gateway code."""
        log = self.seats.get(table_id, {}).get(seat)
        if log is not None and log.detail is not None and log.detail[0] == version and \
                log.version == version:
            return log.detail[1]  # asked again: the view is not rebuilt
        view = log.view() if log is not None else None
        if log is None or view is None or log.version != version:
            newest = log.version if log is not None and view is not None else None
            raise RulesRefused("stale_version", f"table {table_id!r} seat {seat}: asked at "
                               f"version {version}, the gateway holds "
                               f"{newest if newest is not None else 'no whole view'}")
        try:
            detail = view_detail(_decode_view(view))
        except (msgspec.ValidationError, UnanswerableView) as exc:
            raise RulesRefused("rules_unavailable", f"table {table_id!r} seat {seat} at "
                               f"{version}: {exc}") from None
        log.detail = (version, detail)
        return detail

    def lobby(self, house: str | None = None) -> list[W.TableSummary]:
        """The tables still seating players (optionally of one house), then those playing."""
        rank = {"seating": 0, "playing": 1}
        found = [t for t in self.tables.values() if t.status in rank
                 and (house is None or t.house == house)]
        found.sort(key=lambda t: (rank[t.status], t.table_id))
        return [t.summary() for t in found]

    def forget(self, table_id: str) -> None:
        """Drop a finished table (nobody watches it any more)."""
        self.tables.pop(table_id, None)
        self.seats.pop(table_id, None)
