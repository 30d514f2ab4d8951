"""The turn's gates: who acts, draws, takes the discard, opens, lays, lays off, finishes. Pure."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from okey101 import scoring, solver, tiles
from okey101.profiles import Profile
from okey101.table.notation import without
from okey101.table.rules.common import _check_101, _passes, _profile, fail, playing_hand
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
    'finish', and düz opens, lays and lays off nothing (`_check_101`). Each gate refuses
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
    hand = playing_hand(s)
    if hand.phase == "over":
        raise fail("hand_over", "the hand is over")
    if hand.to_act != seat:
        raise fail("not_your_turn", f"seat {seat} acted on seat {hand.to_act}'s turn")
    if phase is not None and hand.phase != phase:
        wanted = "draw or take the discard first" if hand.phase == "draw" else "discard"
        raise fail("wrong_phase", f"seat {seat}: {action} now; {wanted}")
    return hand


def available_discard(hand: HandState) -> Tile | None:
    """The previous seat's last discard, while the seat to act has not drawn."""
    pile = hand.seats[(hand.to_act - 1) % SEATS].discards
    return pile[-1] if hand.phase == "draw" and pile else None


def check_draw(s: TableState, seat: int) -> HandState:
    return check_turn(s, seat, "draw", "Draw")


def check_take_discard(s: TableState, seat: int) -> Tile:
    """The discard `seat` may take now (section 2), or why not."""
    hand = check_turn(s, seat, "draw", "TakeDiscard")
    tile = available_discard(hand)
    if tile is None:
        raise fail("no_discard", f"seat {seat}: there is no discard to take")
    if hand.scratch.put_back:
        raise fail("put_back_must_draw", f"seat {seat} put {tiles.name(tile)} back this "
                                         "turn and draws from the deck")
    p = _profile(s)
    if tile == hand.okey and not p.discarded_okey_takeable:
        raise fail("okey_discard_untakeable", f"{tiles.name(tile)} is the okey: "
                                              f"{p.id} never lets a discarded okey be taken")
    if p.game == "duz":
        return tile  # §12: a taken discard need not be used
    me = hand.seats[seat]
    if me.opened is None and not p.put_back_allowed and not can_open_with(s, seat, tile):
        raise fail("cannot_open_with_discard",
                   f"seat {seat} has not opened and cannot open with {tiles.name(tile)} "
                   "this turn, so may not take it")
    if me.opened is not None and p.opened_take_must_use and not can_use(s, seat, tile):
        raise fail("cannot_use_discard", f"{tiles.name(tile)} cannot be laid this turn; "
                                         f"{p.id} requires a taken discard to be used")
    return tile


def check_put_back(s: TableState, seat: int) -> Tile:
    hand = check_turn(s, seat, "play", "PutBack")
    p = _profile(s)
    if not is_in_house(p, "put_back"):
        raise fail("put_back_not_allowed", f"{p.id} does not let a discard go back")
    taken = hand.scratch.taken
    if taken is None:
        raise fail("nothing_to_put_back", f"seat {seat} took no discard this turn")
    if hand.scratch.laid:
        raise fail("already_laid", "tiles were laid this turn: the discard cannot go back")
    return taken


def check_declare_pairs(s: TableState, seat: int) -> None:
    hand = check_turn(s, seat)
    p = _profile(s)
    if not is_in_house(p, "declare_pairs"):
        raise fail("not_applicable", f"{p.id} has no pairs declaration")
    me = hand.seats[seat]
    if me.opened is not None or me.declared_pairs:
        raise fail("already_declared", f"seat {seat} has already declared or opened")


def check_show_indicator(s: TableState, seat: int) -> Tile:
    hand = check_turn(s, seat)
    p = _profile(s)
    if not is_in_house(p, "show_indicator"):
        raise fail("not_applicable", f"{p.id} has no indicator to show")
    me = hand.seats[seat]
    if me.has_played or hand.scratch.taken is not None or \
            (seat != hand.starter and hand.phase != "draw"):
        raise fail("too_late", "the indicator's twin is shown before the seat first draws")
    if me.shown_indicator:
        raise fail("already_shown", f"seat {seat} has already shown the indicator")
    if hand.indicator not in me.rack:
        raise fail("tile_not_in_rack", f"seat {seat} does not hold the indicator's twin "
                                       f"{tiles.name(hand.indicator)}")
    return hand.indicator


def check_open(s: TableState, seat: int) -> SeatHand:
    hand = check_turn(s, seat, "play", "Open")
    _check_101(s, seat, "opening")
    me = hand.seats[seat]
    if me.opened is not None:
        raise fail("already_opened", f"seat {seat} has already opened")
    return me


def check_lay(s: TableState, seat: int) -> SeatHand:
    hand = check_turn(s, seat, "play", "Lay")
    _check_101(s, seat, "laying of melds")
    me = hand.seats[seat]
    if me.opened is None:
        raise fail("not_opened", f"seat {seat} must open before laying melds")
    return me


def may_lay_pairs(hand: HandState, seat: int) -> bool:
    """New pairs: a pairs-opener, or a points-opener once somebody opened with pairs."""
    me = hand.seats[seat]
    return me.opened == "pairs" or (me.opened == "points" and
                                    any(h.opened == "pairs" for h in hand.seats))


def check_table_access(s: TableState, seat: int, action: str) -> SeatHand:
    """May `seat` lay off or take an okey this turn: opened, not in an opening turn where
    the house forbids it, its wait served (section 4-5)."""
    hand = playing_hand(s)
    p, me = _profile(s), hand.seats[seat]
    _check_101(s, seat, "table to " + action + " on")
    if me.opened is None:
        raise fail("not_opened", f"seat {seat} must open before it can {action}")
    if me.opened_turn == s.turn and not p.lay_off_in_opening_turn:
        raise fail("must_wait_a_round", f"{p.id}: no {action} in the opening turn")
    if me.elden_opening and me.opened_turn == s.turn and not p.elden_lay_off_allowed:
        raise fail("elden_turn", f"{p.id}: an elden opening below the threshold finishes "
                                 f"as it is: no {action} in that turn")
    if s.turn - me.opened_turn < SEATS * p.lay_off_wait_rounds and me.opened_turn != s.turn:
        raise fail("must_wait_a_round", f"{p.id}: wait one full round after opening "
                                        f"before you {action}")
    return me


def check_touch_table(s: TableState, seat: int, action: str, command: str) -> SeatHand:
    """Lay-off and okey-taking: the seat's turn, in play, with table access. `action` says
    what the seat tried in words; `command` names the command."""
    check_turn(s, seat, "play", command)
    return check_table_access(s, seat, action)


def may_touch_table(s: TableState, seat: int) -> bool:
    return _passes(lambda st, i: check_table_access(st, i, "lay off"), s, seat)


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
    return check_owed_take(s, seat, check_turn(s, seat, "play", "Discard"))


def check_owed_take(s: TableState, seat: int, hand: HandState) -> SeatHand:
    """`check_discard` for the seat to act in play (`check_turn` passed: `hand`)."""
    me, owed = hand.seats[seat], owed_take(s, seat)
    if owed is not None:
        if me.opened is None:
            raise fail("must_open_with_taken_tile", f"seat {seat} took {tiles.name(owed)} "
                                                    "and must open with it (or put it back)")
        raise fail("taken_tile_not_used", f"the taken {tiles.name(owed)} must be laid "
                                          f"this turn ({_profile(s).id})")
    return me


def check_finish(s: TableState, seat: int) -> SeatHand:
    """Düz: the seat to act, in play, may win by discarding one tile and showing the rest."""
    hand = check_turn(s, seat, "play", "Finish")
    p = _profile(s)
    if not is_in_house(p, "finish"):
        raise fail("not_applicable", f"{p.id}: a 101 hand is won by discarding the last "
                                     "tile, not with 'finish'")
    return hand.seats[seat]


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
