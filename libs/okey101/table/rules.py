"""What the rules allow a seat now: the one place where legality is written. Pure.

`decide` asks these queries before it emits anything; `views` publishes their answers in
each seat's `PlayerView` (`SeatRules`: the commands allowed now, the lay-offs and okey
takes open to it, the discards that would be penalised), so bots and gateways choose
among what the engine enumerates and never re-implement a rule.

Gates (`check_*`) raise `IllegalMove` with a stable code and a message naming the seat and
the tile; predicates (`is_*`, `can_*`, `may_*`) answer yes or no; the rest compute a value
(a threshold, a penalty, a finish kind, the house's time-out move).

Düz (classic) Okey (RULES.md §12, `Profile.game` "duz") is a game of the same engine: its
seats draw (or take the discard, free to keep it) and discard, and win with `finish`,
showing the whole rack; nothing else touches the table, so the opening's gates refuse it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from okey101 import melds as M
from okey101 import scoring, solver, tiles
from okey101.errors import IllegalMove, MalformedInput
from okey101.profiles import Profile
from okey101.table.notation import without
from okey101.table.state import Disconnection, HandState, SeatHand, Seeding, TableState
from okey101.terms import (
    BOT_LEVELS,
    SEATS,
    FinishKind,
    LayOffEnd,
    MeldCount,
    OpeningKind,
    PenaltyReason,
    SeedingStage,
)
from okey101.tiles import Tile


def fail(code: str, message: str) -> IllegalMove:
    return IllegalMove(message, code)


def _profile(s: TableState) -> Profile:
    assert s.profile is not None
    return s.profile


def is_duz(s: TableState) -> bool:
    """Is this table playing düz (classic) Okey (RULES.md §12)?"""
    return _profile(s).game == "duz"


def _check_101(s: TableState, seat: int, what: str) -> None:
    """Düz has no opening and lays nothing before the finish."""
    if is_duz(s):
        raise fail("not_in_duz", f"seat {seat}: düz okey has no {what}; win with 'finish', "
                                 "showing the whole rack")


def playing_hand(s: TableState) -> HandState:
    """The hand being played, or `no_hand`."""
    if s.hand is None or s.status != "playing":
        raise fail("no_hand", "no hand is being played at this table")
    return s.hand


# ---------------------------------------------------------------- who sits at the table
def has_left(s: TableState, player_id: str) -> bool:
    """Has `player_id` left this running match (section 9)? Then it may not sit again."""
    return any(x.left and x.player_id == player_id for seat in s.sitters for x in seat)


def check_sit(s: TableState, seat: int, player_id: str) -> None:
    """`player_id` may sit at `seat` now: before the match, or as a substitute in a seat
    somebody left (section 9)."""
    if s.status == "over":
        raise fail("match_over", "the match is over")
    if s.players[seat]:
        raise fail("seat_taken", f"seat {seat} is taken by {s.players[seat]!r}")
    if player_id in s.players:
        raise fail("already_seated", f"player {player_id!r} already sits at this table")
    if has_left(s, player_id):
        raise fail("left_this_match", f"player {player_id!r} left this match and may not "
                                      "sit in it again")


def check_bot_may_sit(s: TableState) -> None:
    """A bot may sit at this table now (section 11): the house has bots, and a private
    room of a house that asks for it has its owner's request."""
    p = _profile(s)
    if not p.bots_allowed:
        raise fail("no_bots", f"{p.id} tables have no bots")
    if s.private and p.private_room_bots_on_request and not s.bots_requested:
        raise fail("bots_not_requested", f"{p.id}: bots sit in private room "
                                         f"{s.table_id!r} only when its owner asks")


def check_bot_level(level: object, where: str) -> int:
    """A bot level the bots can play (`okey101.bots`), or malformed input."""
    if not isinstance(level, int) or isinstance(level, bool) or level not in BOT_LEVELS:
        raise MalformedInput(f"{where}: bot_level {level!r} is not one of "
                             f"{', '.join(map(str, BOT_LEVELS))}")
    return level


def may_seat_bot(s: TableState) -> bool:
    """May a bot take an empty seat now (published in every view: `bots_may_sit`)?"""
    return s.status in ("seating", "playing") and \
        _passes(lambda st, _: check_bot_may_sit(st), s, -1)


def check_request_bots(s: TableState, player_id: str) -> None:
    """The owner of a private room may ask for bots in its empty seats, once."""
    if s.status == "over":
        raise fail("match_over", "the match is over")
    if not s.private:
        raise fail("not_private", f"table {s.table_id!r} is not a private room")
    if player_id != s.owner:
        raise fail("not_owner", f"player {player_id!r} does not own private room "
                                f"{s.table_id!r}")
    if s.bots_requested:
        raise fail("bots_already_requested", f"bots were already asked for at {s.table_id!r}")


def check_report_disconnect(s: TableState, seat: int) -> int:
    """The player at `seat` may be reported disconnected: the window it gets, in ms."""
    p = _profile(s)
    if p.reconnect_seconds is None:
        raise fail("no_reconnect_window", f"{p.id} has no reconnect window: a "
                                          "disconnected player's turns time out")
    if s.status == "over":
        raise fail("match_over", "the match is over")
    if s.disconnected[seat] is not None:
        raise fail("already_disconnected", f"seat {seat} is already reported disconnected")
    return p.reconnect_seconds * 1000


def check_report_reconnect(s: TableState, seat: int) -> None:
    if s.disconnected[seat] is None:
        raise fail("not_disconnected", f"seat {seat} is not reported disconnected")


def check_reconnect_window_passed(s: TableState, seat: int, player_id: str, since: int,
                                  at: int) -> Disconnection:
    """The window opened at seq `since` for `player_id` at `seat` is still open on the
    record, and the command's time `at` (ms) is past it."""
    away = s.disconnected[seat]
    if away is None or away.since != since or away.player_id != player_id:
        raise fail("no_such_window", f"no reconnect window opened at seq {since} for "
                                     f"{player_id!r} at seat {seat}")
    if at < away.reconnect_by:
        raise fail("reconnect_window_open", f"seat {seat}: {player_id!r} has until "
                                            f"{away.reconnect_by} ms to come back; it is {at}")
    return away


# ---------------------------------------------------------------- seeding (DEAL.md v2)
def may_contribute(s: TableState, seat: int) -> bool:
    """May the player at `seat` send a client seed: a person (a bot's share is the
    server's), who has not forfeited a share this match?"""
    player = s.players[seat]
    return bool(player) and not s.bots[seat] and player not in s.seeding_barred


def opens_seeding(s: TableState) -> bool:
    """Does the next deal wait for client seeds: the table has seeding windows
    (`seeding_seconds`), its deals are not stacked, and somebody at it may contribute?
    A table of bots deals at once (version 1)."""
    return _profile(s).seeding_seconds is not None and s.deals is None and \
        any(may_contribute(s, seat) for seat in range(SEATS))


def seeding_window_ms(s: TableState) -> int:
    """How long each seeding window stays open, in ms."""
    seconds = _profile(s).seeding_seconds
    assert seconds is not None
    return seconds * 1000


def is_awaited_commit(s: TableState, seat: int) -> bool:
    """Does the commit window wait for `seat` before it closes early: a seat that may
    contribute, and where the house does not label bots a bot's seat as well (closing as
    soon as the people have committed would tell which seat is a bot)."""
    return may_contribute(s, seat) or (s.bots[seat] and not _profile(s).bots_labelled)


def are_commits_complete(s: TableState) -> bool:
    """Has every awaited seat committed? Then the commit window closes at once."""
    g = s.seeding
    assert g is not None
    return all(g.commitments[seat] or not is_awaited_commit(s, seat) for seat in range(SEATS))


def are_reveals_complete(s: TableState) -> bool:
    """Has every seat that committed revealed (or forfeited)? Then the deal is dealt."""
    g = s.seeding
    assert g is not None
    return all(not g.commitments[seat] or g.client_seeds[seat] or g.forfeited[seat]
               for seat in range(SEATS))


def _open_seeding(s: TableState, stage: SeedingStage, seat: int, at: int | None) -> Seeding:
    """The seeding window open now in `stage` (`at`, ms, before its deadline, when given)."""
    g = s.seeding
    if s.status != "playing" or g is None:
        raise fail("no_seeding", f"seat {seat}: no seeding window is open at this table")
    if g.stage != stage:
        raise fail("wrong_stage", f"seat {seat}: the seeding of hand {g.hand} is in its "
                                  f"{g.stage} window")
    if at is not None and at >= g.deadline:
        raise fail("window_closed", f"seat {seat}: the {stage} window of hand {g.hand} "
                                    f"closed at {g.deadline} ms; it is {at}")
    return g


def check_commit_seed(s: TableState, seat: int, at: int | None = None) -> Seeding:
    """`seat` may commit to a client seed now: the commit window is open, the seat's
    player may contribute, and has not committed yet."""
    g = _open_seeding(s, "commit", seat, at)
    if not s.players[seat]:
        raise fail("seat_empty", f"seat {seat} is empty")
    if s.bots[seat]:
        raise fail("bot_seat", f"seat {seat}: a bot sends no seed; its share is the server's")
    if not may_contribute(s, seat):
        raise fail("share_forfeited", f"seat {seat}: {s.players[seat]!r} forfeited a share "
                                      "this match and contributes no more")
    if g.commitments[seat]:
        raise fail("already_committed", f"seat {seat} has already committed for hand "
                                        f"{g.hand}")
    return g


def check_reveal_seed(s: TableState, seat: int, at: int | None = None) -> Seeding:
    """`seat` may reveal its client seed now: the reveal window is open, its player
    committed this hand, and has neither revealed nor forfeited."""
    g = _open_seeding(s, "reveal", seat, at)
    if not g.commitments[seat]:
        raise fail("not_committed", f"seat {seat} committed to no seed for hand {g.hand}")
    if g.committers[seat] != s.players[seat]:
        raise fail("not_committer", f"seat {seat}: {g.committers[seat]!r} committed, not "
                                    f"{s.players[seat]!r}")
    if g.client_seeds[seat] or g.forfeited[seat]:
        raise fail("already_revealed", f"seat {seat} has already revealed (or forfeited) "
                                       f"for hand {g.hand}")
    return g


def check_close_seeding(s: TableState, hand: int, attempt: int, stage: SeedingStage,
                        at: int) -> Seeding:
    """The `stage` window of hand `hand` (re-deal `attempt`) is open on the record, and
    the command's time `at` (ms) is past its deadline."""
    g = s.seeding
    if s.status != "playing" or g is None:
        raise fail("no_seeding", "no seeding window is open at this table")
    if (g.hand, g.attempt, g.stage) != (hand, attempt, stage):
        raise fail("no_such_window", f"no {stage} window of hand {hand} attempt {attempt} "
                                     f"is open (hand {g.hand} attempt {g.attempt} is in its "
                                     f"{g.stage} window)")
    if at < g.deadline:
        raise fail("seeding_window_open", f"the {stage} window of hand {hand} is open until "
                                          f"{g.deadline} ms; it is {at}")
    return g


# ---------------------------------------------------------------- thresholds and elden
def threshold(s: TableState, seat: int, kind: OpeningKind) -> int:
    """What an opening of `kind` needs now (escalation and team escalation included)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if p.game == "duz":
        return 0  # no opening
    base = p.opening_points if kind == "points" else p.opening_pairs
    if not p.escalating_openings:
        return base
    seats = hand.seats
    rivals = range(SEATS)
    if p.partners and p.team_escalation:
        if seats[(seat + 2) % SEATS].opened is not None:
            return base
        rivals = range((seat + 1) % 2, SEATS, 2)  # the other team
    best = [seats[r].opening_value for r in rivals if seats[r].opened == kind]
    return max(base, max(best) + 1) if best else base


def is_elden_open(s: TableState, seat: int) -> bool:
    """May `seat` still finish elden (section 7): not where the house allows it only while
    nobody else has opened and somebody has."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if p.game == "duz":
        return False
    return not (p.elden_only_while_nobody_opened and
                any(h.opened is not None for i, h in enumerate(hand.seats) if i != seat))


def is_elden_opening(s: TableState, seat: int, laid: int) -> bool:
    """An opening of `laid` tiles below the threshold is elden when it lays the whole rack
    bar the last discard, where elden is still open."""
    hand = s.hand
    assert hand is not None
    return laid == len(hand.seats[seat].rack) - 1 and is_elden_open(s, seat)


# ---------------------------------------------------------------- the turn
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
    if not p.put_back_allowed:
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
    if not p.pairs_need_declaration:
        raise fail("not_applicable", f"{p.id} has no pairs declaration")
    me = hand.seats[seat]
    if me.opened is not None or me.declared_pairs:
        raise fail("already_declared", f"seat {seat} has already declared or opened")


def check_show_indicator(s: TableState, seat: int) -> Tile:
    hand = check_turn(s, seat)
    p = _profile(s)
    if not p.indicator_pair and not p.indicator_show_cost:
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
    if p.game != "duz":
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


# ---------------------------------------------------------------- discards
def discard_penalty(s: TableState, seat: int, tile: Tile) -> tuple[int, PenaltyReason] | None:
    """Section 6: an okey, or a tile that could be laid off onto a run or group on the
    table, costs 101 in every house, opened or not. The finishing discard never costs."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if not _charges_discards(p, hand.seats[seat].rack):
        return None
    return _penalty(p, hand, [m.meld for m in hand.melds], tile)


def _charges_discards(p: Profile, rack: Sequence[Tile]) -> bool:
    """Whether the house charges discards at all, and this one is not the finishing one."""
    return p.penalties and len(rack) != 1


def _penalty(p: Profile, hand: HandState, table: list[M.Meld], tile: Tile
             ) -> tuple[int, PenaltyReason] | None:
    if tile == hand.okey:
        return (p.okey_discard_penalty, "okey_discarded") if p.okey_discard_penalty else None
    if p.playable_discard_penalty and M.is_playable(tile, table, hand.okey,
                                                    p.run_wraps_13_to_1):
        return (p.playable_discard_penalty, "playable_discard")
    return None


def finish_kind(s: TableState, seat: int, last: Tile) -> FinishKind:
    """How `seat` finishes by discarding `last`, its last tile (sections 7-8)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    me = hand.seats[seat]
    okey = last == hand.okey
    elden = me.opened_turn == s.turn and is_elden_open(s, seat) and \
        (p.elden_lay_off_allowed or not hand.scratch.laid_off)
    if elden:
        return "elden_okey" if okey else "elden"
    if me.opened == "pairs":
        return "pairs_okey" if okey else "pairs"
    return "okey" if okey else "normal"


def timeout_discard(s: TableState, seat: int) -> Tile:
    """The house's move for a stalled seat: the highest loose tile, never an okey or a
    playable tile when another will do."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    rack = hand.seats[seat].rack
    loose = solver.arrange(rack, hand.okey, p.run_wraps_13_to_1).leftover
    pool = [t for t in loose if t != hand.okey] or [t for t in rack if t != hand.okey] or \
        list(rack)
    table = [m.meld for m in hand.melds]
    safe = [t for t in pool if not M.is_playable(t, table, hand.okey, p.run_wraps_13_to_1)]
    return max(safe or pool, key=lambda t: (tiles.face_value(t, hand.okey), -t))


# ---------------------------------------------------------------- feasibility of a take
def can_open_with(s: TableState, seat: int, tile: Tile) -> bool:
    """Could `seat` open this turn with `tile` (or its twin) in the opening?"""
    hand = s.hand
    assert hand is not None
    rack = [*hand.seats[seat].rack, tile]
    if can_open_pairs_with(s, seat, rack, tile):
        return True
    if tile != hand.okey and not solver.holds(rack, tile, hand.okey,
                                              _profile(s).run_wraps_13_to_1):
        return False  # no meld holds `tile`: neither an opening nor an elden one can
    return can_open_points_with(s, seat, rack, tile)


def can_open_pairs_with(s: TableState, seat: int, rack: list[Tile], tile: Tile) -> bool:
    """Could `rack` (holding the taken `tile`) open with pairs, `tile` among them?"""
    p, hand = _profile(s), s.hand
    assert hand is not None
    me = hand.seats[seat]
    if p.pairs_need_declaration and not me.declared_pairs:
        return False
    # a shown indicator twin is a pairs joker, not a natural tile as well
    extra = 1 if me.shown_indicator and hand.indicator in me.rack else 0
    pool = list(without(tuple(rack), [hand.indicator])) if extra else rack
    twin = rack.count(tile) >= 2 or hand.okey in me.rack or \
        (extra == 1 and tile != hand.indicator)
    return twin and solver.most_pairs(pool, hand.okey, extra) >= threshold(s, seat, "pairs")


def can_open_points_with(s: TableState, seat: int, rack: list[Tile], tile: Tile) -> bool:
    """Could `rack` (holding the taken `tile`) open with points, or elden, `tile` laid?"""
    p, hand = _profile(s), s.hand
    assert hand is not None
    need = threshold(s, seat, "points")
    wraps, count = p.run_wraps_13_to_1, p.meld_value
    held, ceiling = solver.meldable(rack, hand.okey, wraps)
    best = opening_within(rack, hand.okey, wraps, count, need, ceiling)
    if best is not None and best.value >= need:
        if any(pl[0] == tile for m in best.melds for pl in m.tiles):
            return True
        for m in M.melds_with(rack, tile, hand.okey, wraps):
            rest = without(tuple(rack), [pl[0] for pl in m.tiles])
            value = M.counted_value(m, count)
            found = opening_within(rest, hand.okey, wraps, count, need - value)
            if found is not None and value + found.value >= need:
                return True
    most = best.value if best is not None and count == "face" else ceiling
    return _can_go_elden_with(s, seat, rack, tile, held, most)


def opening_within(rack: Sequence[Tile], okey: Tile, wraps: bool, count: MeldCount,
                   need: int, ceiling: int | None = None) -> solver.Solution | None:
    """The best opening of `rack` in the house's count, or None when it cannot reach
    `need`: found without a solve when even every meldable tile's value (`ceiling`, the
    second of `solver.meldable`, when the caller has it) cannot, and in the "34" count
    without the exact search when the face optimum's third cannot."""
    if ceiling is None:
        ceiling = solver.meldable(rack, okey, wraps)[1]
    if (ceiling if count == "face" else ceiling // 3) < need:
        return None
    face = solver.opening(rack, okey, wraps)
    if count == "face":
        return face
    if face.value // 3 < need:
        return None
    return solver.opening(rack, okey, wraps, count, face)


def _can_go_elden_with(s: TableState, seat: int, rack: list[Tile], tile: Tile,
                       held: int, most: int) -> bool:
    """Could `rack` (holding the taken `tile`) be laid whole bar one discard, `tile` laid?
    An elden opening is an opening, with no threshold (section 7). `held`: how many of
    `rack`'s tiles some meld could hold (`solver.meldable`); `most`: a bound on the face
    value of any melds of `rack` (its best opening's, or `solver.meldable`'s ceiling)."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if not is_elden_open(s, seat):
        return False
    wraps = p.run_wraps_13_to_1
    if held < len(rack) - 1:
        return False  # more than one tile no meld could hold
    naturals = [tiles.face_value(t, hand.okey) for t in rack if t != hand.okey]
    if naturals and most < sum(naturals) - max(naturals):
        return False  # melds holding every natural tile but one would be worth more
    first = solver.arrange(rack, hand.okey, wraps)
    if len(first.leftover) == 1 and (first.leftover[0] != tile or rack.count(tile) > 1):
        return True
    # a rack laid whole bar `u` is an arrangement leaving `u` alone, so `u` is worth at
    # least the least any arrangement leaves: only such tiles need a solve
    least = solver.leftover_value(first.leftover, hand.okey)
    for u in sorted(set(rack)):
        if (u == tile and rack.count(tile) < 2) or \
                solver.leftover_value([u], hand.okey) < least:
            continue
        if not solver.arrange(without(tuple(rack), [u]), hand.okey, wraps).leftover:
            return True
    return False


def can_use(s: TableState, seat: int, tile: Tile) -> bool:
    """Could an opened `seat` lay `tile` this turn (on the table or in a new meld)?"""
    p, hand = _profile(s), s.hand
    assert hand is not None
    if M.is_playable(tile, [m.meld for m in hand.melds], hand.okey, p.run_wraps_13_to_1):
        return True
    me = hand.seats[seat]
    # a new pair with it, keeping a tile for the discard
    if (me.opened == "pairs" or any(h.opened == "pairs" for h in hand.seats)) and \
            len(me.rack) >= 2 and (tile in me.rack or hand.okey in me.rack or tile == hand.okey):
        return True
    if me.opened == "pairs":  # a pairs-opener lays no runs or groups
        return False
    rack = [*me.rack, tile]
    return any(len(m.tiles) <= len(me.rack)
               for m in M.melds_with(rack, tile, hand.okey, p.run_wraps_13_to_1))


# ---------------------------------------------------------------- the table's options
def lay_off_options(s: TableState, seat: int) -> list[tuple[Tile, int, LayOffEnd]]:
    """Every single tile `seat` may lay off now: (tile, meld, end), a tile kept to discard."""
    try:
        me = check_touch_table(s, seat, "lay off", "LayOff")
    except IllegalMove:
        return []
    room = lay_off_room(s, seat)
    if len(me.rack) < 2 or room == 0:
        return []
    hand = s.hand
    assert hand is not None
    wraps, okey = _profile(s).run_wraps_13_to_1, hand.okey
    fits = [M.fitting_stands(tm.meld, wraps) for tm in hand.melds]
    out: list[tuple[Tile, int, LayOffEnd]] = []
    for tile in sorted(set(me.rack)):
        stands = okey if tile == tiles.FAKE else tile
        for i, tm in enumerate(hand.melds):
            if tile != okey and stands not in fits[i]:
                continue  # the common case, without building the meld's ends
            for end in M.lay_off_ends(tile, tm.meld, okey, wraps):
                if run_end_room(s, i, end) != 0:
                    out.append((tile, i, end))
    return out


def okey_take_options(s: TableState, seat: int) -> list[tuple[int, list[Tile]]]:
    """(meld, the real tiles to put in the okey's place) for every okey `seat` may take."""
    try:
        me = check_touch_table(s, seat, "take an okey", "TakeOkey")
    except IllegalMove:
        return []
    hand = s.hand
    assert hand is not None
    have = Counter(me.rack)
    out: list[tuple[int, list[Tile]]] = []
    p = _profile(s)
    for i, tm in enumerate(hand.melds):
        if not tm.meld.jokers(hand.okey):
            continue  # most melds: no okey to take, without building the refusal
        try:
            put = okey_take_tiles(p, tm.meld, hand.okey, i)
        except IllegalMove:
            continue
        if all(have[t] >= n for t, n in Counter(put).items()):
            out.append((i, put))
    return out


def okey_take_tiles(p: Profile, meld: M.Meld, okey: Tile, index: int) -> list[Tile]:
    """What must be put to take the okey from `meld` (section 5), or why it cannot be."""
    jokers = [stands for played, stands in meld.tiles if played == okey]
    if not jokers:
        raise fail("no_okey_there", f"meld #{index} {meld.describe(okey)} holds no okey")
    if meld.kind == "group" and len(meld.tiles) == 3:
        if p.take_okey_from_groups == "four_only":
            raise fail("ambiguous_okey", f"{p.id}: the okey in a 3-tile group cannot be taken")
        need = [*M.missing_colours(meld), tiles.colour_of(jokers[0])]
        return sorted(tiles.make(col, meld.number) for col in need)
    return [jokers[0]]


def penalised_discards(s: TableState, seat: int) -> list[tuple[Tile, int, PenaltyReason]]:
    """The rack's tiles that would cost a penalty if discarded now."""
    p, hand = _profile(s), s.hand
    assert hand is not None
    rack = hand.seats[seat].rack
    if not _charges_discards(p, rack):
        return []
    table = [m.meld for m in hand.melds]
    out = []
    for tile in sorted(set(rack)):
        penalty = _penalty(p, hand, table, tile)
        if penalty is not None:
            out.append((tile, *penalty))
    return out


def _passes(gate: Callable[[TableState, int], object], s: TableState, seat: int) -> bool:
    try:
        gate(s, seat)
    except IllegalMove:
        return False
    return True


# each in-hand command's gate, with the phase its gate's `check_turn` asks (None: any), so
# that `allowed_commands` asks only the gates of the hand's phase (the others would refuse
# with wrong_phase)
_GATES: tuple[tuple[str, str | None, Callable[[TableState, int], object]], ...] = (
    ("draw", "draw", check_draw),
    ("take_discard", "draw", check_take_discard),
    ("put_back", "play", check_put_back),
    ("declare_pairs", None, check_declare_pairs),
    ("show_indicator", None, check_show_indicator),
    ("open", "play", check_open),
    ("lay", "play", check_lay),
    ("lay_off", "play", lambda s, seat: check_touch_table(s, seat, "lay off", "LayOff")),
    ("take_okey", "play",
     lambda s, seat: check_touch_table(s, seat, "take an okey", "TakeOkey")),
    ("discard", "play", check_discard),
    ("finish", "play", check_finish),
)


_SEEDING_GATES: tuple[tuple[str, Callable[[TableState, int], object]], ...] = (
    ("commit_seed", check_commit_seed),
    ("reveal_seed", check_reveal_seed),
)


def allowed_commands(s: TableState, seat: int) -> list[str]:
    """The in-hand commands (their wire `type`) `seat` may send now, or, while the next
    hand's seeding is open, its seeding commands; the engine still checks each one's
    arguments (the tiles, the melds, the seed) and its time against the window's deadline."""
    if s.seeding is not None:
        return [name for name, gate in _SEEDING_GATES if _passes(gate, s, seat)]
    if s.hand is None or s.status != "playing" or s.hand.to_act != seat:
        return []
    phase = s.hand.phase
    return [name for name, needs, gate in _GATES
            if (needs is None or needs == phase) and _passes(gate, s, seat)]


def tokens_in_rack(rack: Sequence[Tile], need: Counter[Tile], seat: int) -> None:
    """The rack holds every tile needed, and keeps one to discard."""
    count = rack.count
    for tile, n in need.items():
        if count(tile) < n:
            raise fail("tile_not_in_rack", f"seat {seat} does not hold {n} x {tiles.name(tile)}")
    if sum(need.values()) >= len(rack):
        raise fail("must_keep_a_discard", f"seat {seat} must keep a tile to discard")


def turn_seconds(state: TableState) -> int | None:
    """The turn time that applies to `state` now, or None: no clock."""
    p = state.profile
    if p is None or p.turn_seconds is None:
        return None
    if p.untimed_when_only_bots and all(state.bots):
        return None
    return p.turn_seconds
