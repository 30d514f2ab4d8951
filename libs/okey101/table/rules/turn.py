"""The turn's gates: who acts, draws, takes the discard, opens, lays, lays off, finishes. Pure."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from okey101 import scoring, solver, tiles
from okey101.profiles import Profile
from okey101.table.notation import without
from okey101.table.rules.common import (
    Refusal,
    _duz_refusal,
    _profile,
    fail,
    hand_refusal,
    playing_hand,
    refused,
)
from okey101.table.rules.takes import can_open_with, can_use
from okey101.table.state import HandState, SeatHand, TableState
from okey101.terms import (
    SEATS,
    FinishKind,
    LayOffEnd,
)
from okey101.tiles import Tile


def is_in_house(p: Profile, command: str) -> bool:
    """Has the house `command` (a wire `type`) at all? A discard goes back, pairs are
    declared and the indicator's twin shown only where it says; only düz finishes with
    'finish', and düz opens, lays and lays off nothing (`_duz_refusal`). Each gate refuses
    a command its house lacks, and `options.allowed_commands` asks no such gate."""
    match command:
        case "put_back":
            return p.put_back_allowed
        case "declare_pairs":
            return p.pairs_need_declaration
        case "show_indicator":
            return p.indicator_pair or p.indicator_show_cost > 0
        case "finish":
            return p.game == "duz"
        case "open" | "lay" | "lay_off" | "take_okey":
            return p.game != "duz"
    return True


def check_turn(s: TableState, seat: int, phase: str | None = None, action: str = "act"
               ) -> HandState:
    """`seat` is to act (in `phase`, when given)."""
    refusal = turn_refusal(s, seat, phase, action)  # not `refused`: a call less for `decide`
    if refusal is not None:
        raise refusal.error()
    assert s.hand is not None
    return s.hand


def turn_refusal(s: TableState, seat: int, phase: str | None = None, action: str = "act"
                 ) -> Refusal | None:
    """Why `seat` is not to act (in `phase`, when given), or None (`check_turn`)."""
    refusal = hand_refusal(s)
    if refusal is not None:
        return refusal
    hand = s.hand
    assert hand is not None
    if hand.phase == "over":
        return Refusal("hand_over", lambda: "the hand is over")
    if hand.to_act != seat:
        return Refusal("not_your_turn", lambda: f"seat {seat} acted on seat {hand.to_act}'s turn")
    if phase is not None and hand.phase != phase:
        return Refusal("wrong_phase", lambda: f"seat {seat}: {action} now; " + (
            "draw or take the discard first" if hand.phase == "draw" else "discard"))
    return None


def available_discard(hand: HandState) -> Tile | None:
    """The previous seat's last discard, while the seat to act has not drawn."""
    pile = hand.seats[(hand.to_act - 1) % SEATS].discards
    return pile[-1] if hand.phase == "draw" and pile else None


# Each in-hand command's gate is the turn's (`turn_refusal`, in the command's phase) then,
# where the command asks more, its own (`*_refusal_in_turn`, asked of the seat to act in
# that phase): `options.allowed_commands` asks the turn's once for every command.


def check_draw(s: TableState, seat: int) -> HandState:
    return check_turn(s, seat, "draw", "Draw")


def check_take_discard(s: TableState, seat: int) -> Tile:
    """The discard `seat` may take now (section 2), or why not."""
    refused(take_discard_refusal(s, seat))
    assert s.hand is not None
    tile = available_discard(s.hand)
    assert tile is not None
    return tile


def take_discard_refusal(s: TableState, seat: int) -> Refusal | None:
    """Why `seat` may not take the discard now, or None (`check_take_discard`)."""
    return turn_refusal(s, seat, "draw", "TakeDiscard") or \
        take_discard_refusal_in_turn(s, seat)


def take_discard_refusal_in_turn(s: TableState, seat: int) -> Refusal | None:
    hand = s.hand
    assert hand is not None
    tile = available_discard(hand)
    if tile is None:
        return Refusal("no_discard", lambda: f"seat {seat}: there is no discard to take")
    if hand.scratch.put_back:
        return Refusal("put_back_must_draw", lambda: f"seat {seat} put {tiles.name(tile)} "
                                                     "back this turn and draws from the deck")
    p = _profile(s)
    if tile == hand.okey and not p.discarded_okey_takeable:
        return Refusal("okey_discard_untakeable", lambda: f"{tiles.name(tile)} is the okey: "
                       f"{p.id} never lets a discarded okey be taken")
    if p.game == "duz":
        return None  # §12: a taken discard need not be used
    me = hand.seats[seat]
    if me.opened is None and not p.put_back_allowed and not can_open_with(s, seat, tile):
        return Refusal("cannot_open_with_discard", lambda: f"seat {seat} has not opened and "
                       f"cannot open with {tiles.name(tile)} this turn, so may not take it")
    if me.opened is not None and p.opened_take_must_use and not can_use(s, seat, tile):
        return Refusal("cannot_use_discard", lambda: f"{tiles.name(tile)} cannot be laid "
                       f"this turn; {p.id} requires a taken discard to be used")
    return None


def check_put_back(s: TableState, seat: int) -> Tile:
    refused(put_back_refusal(s, seat))
    assert s.hand is not None and s.hand.scratch.taken is not None
    return s.hand.scratch.taken


def put_back_refusal(s: TableState, seat: int) -> Refusal | None:
    return turn_refusal(s, seat, "play", "PutBack") or put_back_refusal_in_turn(s, seat)


def put_back_refusal_in_turn(s: TableState, seat: int) -> Refusal | None:
    hand = s.hand
    assert hand is not None
    p = _profile(s)
    if not is_in_house(p, "put_back"):
        return Refusal("put_back_not_allowed", lambda: f"{p.id} does not let a discard go back")
    if hand.scratch.taken is None:
        return Refusal("nothing_to_put_back", lambda: f"seat {seat} took no discard this turn")
    if hand.scratch.laid:
        return Refusal("already_laid",
                       lambda: "tiles were laid this turn: the discard cannot go back")
    return None


def check_declare_pairs(s: TableState, seat: int) -> None:
    refused(declare_pairs_refusal(s, seat))


def declare_pairs_refusal(s: TableState, seat: int) -> Refusal | None:
    return turn_refusal(s, seat) or declare_pairs_refusal_in_turn(s, seat)


def declare_pairs_refusal_in_turn(s: TableState, seat: int) -> Refusal | None:
    hand = s.hand
    assert hand is not None
    p = _profile(s)
    if not is_in_house(p, "declare_pairs"):
        return Refusal("not_applicable", lambda: f"{p.id} has no pairs declaration")
    me = hand.seats[seat]
    if me.opened is not None or me.declared_pairs:
        return Refusal("already_declared",
                       lambda: f"seat {seat} has already declared or opened")
    return None


def check_show_indicator(s: TableState, seat: int) -> Tile:
    refused(show_indicator_refusal(s, seat))
    assert s.hand is not None
    return s.hand.indicator


def show_indicator_refusal(s: TableState, seat: int) -> Refusal | None:
    return turn_refusal(s, seat) or show_indicator_refusal_in_turn(s, seat)


def show_indicator_refusal_in_turn(s: TableState, seat: int) -> Refusal | None:
    hand = s.hand
    assert hand is not None
    p = _profile(s)
    if not is_in_house(p, "show_indicator"):
        return Refusal("not_applicable", lambda: f"{p.id} has no indicator to show")
    me = hand.seats[seat]
    if me.has_played or hand.scratch.taken is not None or \
            (seat != hand.starter and hand.phase != "draw"):
        return Refusal("too_late", lambda: "the indicator's twin is shown before the seat "
                                           "first draws")
    if me.shown_indicator:
        return Refusal("already_shown",
                       lambda: f"seat {seat} has already shown the indicator")
    if hand.indicator not in me.rack:
        return Refusal("tile_not_in_rack", lambda: f"seat {seat} does not hold the "
                       f"indicator's twin {tiles.name(hand.indicator)}")
    return None


def check_open(s: TableState, seat: int) -> SeatHand:
    refused(open_refusal(s, seat))
    assert s.hand is not None
    return s.hand.seats[seat]


def open_refusal(s: TableState, seat: int) -> Refusal | None:
    return turn_refusal(s, seat, "play", "Open") or open_refusal_in_turn(s, seat)


def open_refusal_in_turn(s: TableState, seat: int) -> Refusal | None:
    refusal = _duz_refusal(s, seat, "opening")
    if refusal is not None:
        return refusal
    assert s.hand is not None
    if s.hand.seats[seat].opened is not None:
        return Refusal("already_opened", lambda: f"seat {seat} has already opened")
    return None


def check_lay(s: TableState, seat: int) -> SeatHand:
    refused(lay_refusal(s, seat))
    assert s.hand is not None
    return s.hand.seats[seat]


def lay_refusal(s: TableState, seat: int) -> Refusal | None:
    return turn_refusal(s, seat, "play", "Lay") or lay_refusal_in_turn(s, seat)


def lay_refusal_in_turn(s: TableState, seat: int) -> Refusal | None:
    refusal = _duz_refusal(s, seat, "laying of melds")
    if refusal is not None:
        return refusal
    assert s.hand is not None
    if s.hand.seats[seat].opened is None:
        return Refusal("not_opened", lambda: f"seat {seat} must open before laying melds")
    return None


def may_lay_pairs(hand: HandState, seat: int) -> bool:
    """New pairs: a pairs-opener, or a points-opener once somebody opened with pairs."""
    me = hand.seats[seat]
    return me.opened == "pairs" or (me.opened == "points" and
                                    any(h.opened == "pairs" for h in hand.seats))


def check_table_access(s: TableState, seat: int, action: str) -> SeatHand:
    """May `seat` lay off or take an okey this turn: opened, not in an opening turn where
    the house forbids it, its wait served (section 4-5)."""
    refused(table_access_refusal(s, seat, action))
    assert s.hand is not None
    return s.hand.seats[seat]


def table_access_refusal(s: TableState, seat: int, action: str) -> Refusal | None:
    """Why `seat` may not lay off or take an okey this turn, or None (`check_table_access`)."""
    refusal = hand_refusal(s) or _duz_refusal(s, seat, "table to " + action + " on")
    if refusal is not None:
        return refusal
    hand = s.hand
    assert hand is not None
    p, me = _profile(s), hand.seats[seat]
    if me.opened is None:
        return Refusal("not_opened", lambda: f"seat {seat} must open before it can {action}")
    if me.opened_turn == s.turn and not p.lay_off_in_opening_turn:
        return Refusal("must_wait_a_round",
                       lambda: f"{p.id}: no {action} in the opening turn")
    if me.elden_opening and me.opened_turn == s.turn and not p.elden_lay_off_allowed:
        return Refusal("elden_turn", lambda: f"{p.id}: an elden opening below the threshold "
                       f"finishes as it is: no {action} in that turn")
    if s.turn - me.opened_turn < SEATS * p.lay_off_wait_rounds and me.opened_turn != s.turn:
        return Refusal("must_wait_a_round", lambda: f"{p.id}: wait one full round after "
                       f"opening before you {action}")
    return None


def check_touch_table(s: TableState, seat: int, action: str, command: str) -> SeatHand:
    """Lay-off and okey-taking: the seat's turn, in play, with table access. `action` says
    what the seat tried in words; `command` names the command."""
    refused(touch_table_refusal(s, seat, action, command))
    assert s.hand is not None
    return s.hand.seats[seat]


def touch_table_refusal(s: TableState, seat: int, action: str, command: str
                        ) -> Refusal | None:
    """Why `seat` may not lay off or take an okey now, or None (`check_touch_table`)."""
    return turn_refusal(s, seat, "play", command) or table_access_refusal(s, seat, action)


def may_touch_table(s: TableState, seat: int) -> bool:
    return table_access_refusal(s, seat, "lay off") is None


def may_open_with_pairs(s: TableState, seat: int) -> bool:
    """An unopened seat may open with pairs (having declared them where the house asks)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    me = hand.seats[seat]
    return p.game != "duz" and me.opened is None and (
        not p.pairs_need_declaration or me.declared_pairs)


def owed_take(s: TableState, seat: int) -> Tile | None:
    """The discard `seat` took this turn and still owes a use of before it may discard:
    the opening (unopened), or a lay (where the house wants a taken tile used)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    taken = hand.scratch.taken
    if taken is None or hand.to_act != seat or p.game == "duz":
        return None
    if hand.seats[seat].opened is None:
        return taken
    return taken if p.opened_take_must_use and taken not in hand.scratch.laid else None


def lay_off_room(s: TableState, seat: int) -> int | None:
    """How many more tiles a pairs-opener may lay off this turn (None: no limit)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if hand.seats[seat].opened != "pairs" or p.pairs_opener_lay_off_limit is None:
        return None
    return max(0, p.pairs_opener_lay_off_limit - hand.scratch.lay_offs)


def run_end_room(s: TableState, meld: int, end: LayOffEnd) -> int | None:
    """How many more tiles may go on this end of run `meld` this turn (None: no limit)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if p.run_end_lay_off_limit is None or end == "group":
        return None
    before = next((n for m, e, n in hand.scratch.end_counts if (m, e) == (meld, end)), 0)
    return max(0, p.run_end_lay_off_limit - before)


def check_discard(s: TableState, seat: int) -> SeatHand:
    """A seat may discard unless a taken discard is still owed (section 2)."""
    refused(discard_refusal(s, seat))
    assert s.hand is not None
    return s.hand.seats[seat]


def discard_refusal(s: TableState, seat: int) -> Refusal | None:
    """Why `seat` may not discard now, or None (`check_discard`)."""
    return turn_refusal(s, seat, "play", "Discard") or owed_take_refusal(s, seat)


def check_owed_take(s: TableState, seat: int, hand: HandState) -> SeatHand:
    """`check_discard` for the seat to act in play (`check_turn` passed: `hand`)."""
    refused(owed_take_refusal(s, seat))
    return hand.seats[seat]


def owed_take_refusal(s: TableState, seat: int) -> Refusal | None:
    """`discard_refusal` in turn: why the seat to act in play may not discard yet (a
    taken discard owed), or None."""
    owed = owed_take(s, seat)
    if owed is not None:
        assert s.hand is not None
        if s.hand.seats[seat].opened is None:
            return Refusal("must_open_with_taken_tile", lambda: f"seat {seat} took "
                           f"{tiles.name(owed)} and must open with it (or put it back)")
        return Refusal("taken_tile_not_used", lambda: f"the taken {tiles.name(owed)} must "
                       f"be laid this turn ({_profile(s).id})")
    return None


def check_finish(s: TableState, seat: int) -> SeatHand:
    """Düz: the seat to act, in play, may win by discarding one tile and showing the rest."""
    refused(finish_refusal(s, seat))
    assert s.hand is not None
    return s.hand.seats[seat]


def finish_refusal(s: TableState, seat: int) -> Refusal | None:
    return turn_refusal(s, seat, "play", "Finish") or finish_refusal_in_turn(s, seat)


def finish_refusal_in_turn(s: TableState, seat: int) -> Refusal | None:
    p = _profile(s)
    if not is_in_house(p, "finish"):
        return Refusal("not_applicable", lambda: f"{p.id}: a 101 hand is won by discarding "
                       "the last tile, not with 'finish'")
    return None


def check_shows_whole_rack(me: SeatHand, seat: int, discard: Tile, shown: Sequence[Tile]
                           ) -> None:
    """Düz (§12): the finishing discard is held, and the melds or pairs shown hold exactly
    every other tile of the rack."""
    if discard not in me.rack:
        raise fail("tile_not_in_rack", f"seat {seat} does not hold {tiles.name(discard)}")
    rest = Counter(without(me.rack, [discard]))
    have = Counter(shown)
    if have != rest:
        extra, missing = have - rest, rest - have
        if extra:
            raise fail("tile_not_in_rack", f"seat {seat} shows "
                                           f"{' '.join(tiles.names(sorted(extra.elements())))}"
                                           " it does not hold (besides the discard)")
        raise fail("must_show_whole_rack", f"seat {seat} leaves "
                                           f"{' '.join(tiles.names(sorted(missing.elements())))}"
                                           f" out: every tile but the discard must be shown")


def shown_finish_kind(pairs: bool, okey_last: bool) -> FinishKind:
    """Düz: how a shown rack wins: seven pairs doubles, an okey discarded last doubles."""
    if pairs:
        return "pairs_okey" if okey_last else "pairs"
    return "okey" if okey_last else "normal"


def best_finish(p: Profile, rack: Sequence[Tile], okey: Tile) -> solver.Finishing | None:
    """Düz: the way `rack` wins that costs the others most (seven pairs and an okey
    discarded last each double it), or None when it cannot win now."""
    options = solver.finishes(rack, okey, p.run_wraps_13_to_1)
    if not options:
        return None
    return max(options, key=lambda f: scoring.finish_multipliers(
        p, shown_finish_kind(f.pairs, f.discard == okey))[1])


def full_run_ends(s: TableState) -> list[tuple[int, LayOffEnd]]:
    """The run ends that take no more tiles this turn (okeygg: 2 a turn at each end)."""
    hand = s.hand
    assert hand is not None
    return [(m, e) for m, e, _ in hand.scratch.end_counts
            if e != "group" and run_end_room(s, m, e) == 0]


def check_timeout(s: TableState, seat: int, turn: int) -> HandState:
    """A time-out names the current turn and the seat to act."""
    hand = playing_hand(s)
    if turn != s.turn or hand.phase == "over":
        raise fail("stale_timeout", f"timeout for turn {turn}; the table is at turn {s.turn}")
    if seat != hand.to_act:
        raise fail("not_your_turn", f"timeout names seat {seat}; seat {hand.to_act} acts")
    return hand
