"""Level 2's policy in the compiled core (`okey101_native.level2`), from a packed view.

`pack(view)` flattens what `bots.levels.level2` reads of a `PlayerView` (the seat's rack in
order, the okey and indicator, the table's melds, each seat's public part, the phase, the
top discard, the turn so far, the `SeatRules` and the house's options) into one list of
ints; the core computes the rules' detail itself (lay-offs, okey takes, penalised
discards). `level2(view)` answers the same command as the Python level 2, which stays the
specification (tests/properties/test_native_policy.py). The core raises
NotImplementedError for what it has not ported (the "34" count's opening)."""

from __future__ import annotations

from typing import Any

from okey101 import melds as M
from okey101 import tiles
from okey101.table import messages as E
from okey101.table.viewrules import meld_of_view
from okey101.table.views import PlayerView

try:
    import okey101_native as core  # type: ignore[import-untyped]
except ImportError:
    core = None

VERSION = 1
ALLOWED = ("draw", "take_discard", "put_back", "declare_pairs", "show_indicator", "open",
           "lay", "lay_off", "take_okey", "discard", "finish", "commit_seed", "reveal_seed")
ENDS = ("low", "high", "group")
OPENED = {None: 0, "points": 1, "pairs": 2}
KINDS = {"run": 0, "group": 1, "pair": 2}
PHASES = {"draw": 0, "play": 1}
BLANK: dict[str, Any] = {"table_id": "", "command_id": ""}


def _maybe(token: str | None) -> int:
    return tiles.parse(token) if token is not None else -1


def pack(v: PlayerView) -> list[int]:
    """The packed view `okey101_native.level2` reads. Raises ValueError for a view with no
    hand or profile."""
    p, h, r = v.profile, v.hand, v.rules
    if p is None or h is None:
        raise ValueError("a packed view needs a hand being played")
    okey = tiles.parse(h.okey)
    out = [VERSION, int(p.game == "duz"), int(p.penalties), p.opened_with_discard_multiplier,
           p.okey_in_rack_value, int(p.run_wraps_13_to_1), int(p.meld_value == "third"),
           int(p.opened_take_must_use), p.playable_discard_penalty, p.okey_discard_penalty,
           -1 if p.run_end_lay_off_limit is None else p.run_end_lay_off_limit,
           int(p.take_okey_from_groups == "complete_all_colours"), p.multiplier_cap,
           v.seat, h.to_act, v.turn, okey, tiles.parse(h.indicator), PHASES.get(h.phase, 2),
           _maybe(h.available_discard), _maybe(h.current.taken), _maybe(r.owed_tile),
           sum(1 << i for i, name in enumerate(ALLOWED) if name in r.allowed),
           int(r.may_lay_off), -1 if r.lay_off_room is None else r.lay_off_room,
           int(r.is_elden_open), int(r.may_open_pairs)]
    rack = tiles.parse_many(v.rack)
    laid = tiles.parse_many(h.current.laid)
    out += [len(rack), *rack, len(laid), *laid, len(h.current.end_counts)]
    for m, e, n in h.current.end_counts:
        out += [m, ENDS.index(e), n]
    out.append(len(r.full_run_ends))
    for m, e in r.full_run_ends:
        out += [m, ENDS.index(e)]
    for s in h.seats:
        discards = tiles.parse_many(s.discards)
        out += [OPENED[s.opened], s.rack_size, int(s.shown_indicator), s.points_needed,
                s.pairs_needed, len(discards), *discards]
    out.append(len(h.melds))
    for mv in h.melds:
        meld = meld_of_view(mv, okey)
        out += [KINDS[meld.kind], meld.start, mv.owner, len(meld.tiles)]
        for played, stands in meld.tiles:
            out += [played, stands]
    return out


def command_of(answer: tuple[str, list[int], list[list[tuple[int, int]]]], okey: int
               ) -> E.Command:
    """The core's answer as the command the Python level 2 builds."""
    kind, args, melds = answer
    shown = [[M.placed_name(pl, okey) for pl in m] for m in melds]
    if kind == "show_indicator":
        return E.ShowIndicator(**BLANK)
    if kind == "draw":
        return E.Draw(**BLANK)
    if kind == "take_discard":
        return E.TakeDiscard(**BLANK)
    if kind == "put_back":
        return E.PutBack(**BLANK)
    if kind == "declare_pairs":
        return E.DeclarePairs(**BLANK)
    if kind in ("open", "lay"):
        build = E.Open if kind == "open" else E.Lay
        return build(**BLANK, pairs=shown) if args[0] else build(**BLANK, melds=shown)
    if kind == "lay_off":
        end = ENDS[args[2]]
        return E.LayOff(**BLANK, meld=args[0], tiles=[tiles.name(args[1])],
                        end=None if end == "group" else end)  # type: ignore[arg-type]
    if kind == "take_okey":
        return E.TakeOkey(**BLANK, meld=args[0], tiles=tiles.names(args[1:]))
    if kind == "discard":
        return E.Discard(**BLANK, tile=tiles.name(args[0]))
    if kind == "finish":
        tile = tiles.name(args[0])
        return E.Finish(**BLANK, tile=tile, pairs=shown) if args[1] else \
            E.Finish(**BLANK, tile=tile, melds=shown)
    raise ValueError(f"the core answered an unknown command {kind!r}")


def level2(v: PlayerView) -> E.Command:
    """Level 2's command for `v`, from the compiled core. Raises NotImplementedError for
    what the core has not ported, RuntimeError when the core is not built."""
    if core is None:
        raise RuntimeError("okey101_native is not built")
    h = v.hand
    assert h is not None
    return command_of(core.level2(pack(v)), tiles.parse(h.okey))


__all__ = ["command_of", "level2", "pack"]
