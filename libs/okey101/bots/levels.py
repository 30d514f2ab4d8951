"""The three bot levels, as pure policies: `PlayerView` -> one command for the seat to act.

- Level 1 (`level1`): legal, simple play, deliberately weak. Always draws from the deck,
  opens when the solver says the rack can (points, else pairs), then lays the new melds it
  finds; never lays off, never takes a discard or an okey. It discards the drawn tile when
  that tile is loose, else a loose tile picked by a deterministic hash of its view; never
  an okey or a penalised tile while another will do.
- Level 2 (`level2`): the solver's player. Keeps the best melds (`solver.arrange`); opens as
  soon as the rack reaches the threshold the view shows (points, else pairs; elden when
  the whole rack goes down); takes the discard when it lets it open at once, or (opened)
  when the tile lands in a new meld, pairs a single, or lays off; then lays new melds (and
  pairs where the table allows), takes an okey from the table when that lowers its rack,
  lays off what fits. It plays for pairs when its rack holds nearly enough pairs and few
  points. It discards to cut useless tiles: the highest loose tile, an isolated one (no
  partner in the rack) first before opening; never an okey, never a tile playable on the
  table (the 101 penalty) while another will do. Where the house charges the discarder
  when the next player opens with its discard (okeygg's 10x), it weighs that charge while
  the next player is unopened (`feed_charge`: public information only) and throws the
  cheaper tile unless keeping it costs more.
- Level 3 (`Level3`): level 2 plus inference from public information (`inference.py`).

Every level is deterministic: the same views give the same commands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from okey101 import tiles
from okey101.table import messages as E
from okey101.table.views import PlayerView
from okey101.terms import SEATS
from okey101.tiles import Tile

from . import plays
from .duz import duz_command
from .inference import Knowledge
from .seat import BLANK, Seat, keep_one, notation, played

Bot = Callable[[PlayerView], E.Command]

OPENS_GIVEN_FEED = 0.25  # how often an unopened next player who can meld a tile opens with it
PAIRS_OPEN_SHARE = 0.2  # how often a twin in its rack means it opens by pairs with the tile


# ---------------------------------------------------------------- shared reading
def partners(s: Seat, tile: Tile, rack: Sequence[Tile]) -> list[Tile]:
    """The other rack tiles that `tile` could share a run or group with (no okeys)."""
    if tile == s.okey:
        return []
    me = s.stands(tile)
    colour, number = tiles.colour_of(me), tiles.number_of(me)
    out = []
    seen_self = False
    for u in rack:
        if u == tile and not seen_self:
            seen_self = True
            continue
        if u == s.okey:
            continue
        other = s.stands(u)
        oc, on = tiles.colour_of(other), tiles.number_of(other)
        if oc == colour and on != number:
            gap = abs(on - number)
            if s.wraps:  # 12-13-1: a 1 also sits after 13
                gap = min(gap, abs((14 if on == 1 else on) - (14 if number == 1 else number)))
            if gap <= 2:
                out.append(u)
        elif on == number and oc != colour:
            out.append(u)
    return out


def safe_choice(s: Seat, pool: Sequence[Tile]) -> list[Tile]:
    """`pool` less okeys and penalised tiles, falling back when nothing else is left."""
    rack = s.rack
    base = [t for t in pool if t != s.okey] or [t for t in rack if t != s.okey] or list(rack)
    return [t for t in base if not s.penalised(t)] or base


def feeding_charged(s: Seat) -> bool:
    """Does this house charge the discarder when the next player opens with its discard
    (okeygg, penalties on; RULES.md section 6), and is the next player still unopened?"""
    if not (s.p.penalties and s.p.opened_with_discard_multiplier):
        return False
    return s.h.seats[(s.seat + 1) % SEATS].opened is None


def feed_charge(s: Seat, k: Knowledge, tile: Tile) -> float:
    """The expected charge, in this seat's points, of discarding `tile` to an unopened next
    player in a house that charges it: the charge (multiplier x the tile's value) times the
    chance the next player opens with it, from public information only: the chance it can
    meld the tile (`Knowledge.p_feeds`: live kinds, its rack size, what it threw away), or
    pair it where pairs may open, times how often such a player is at its threshold."""
    if tile == s.okey:
        return 0.0  # never discarded while another tile will do (the 101 penalty)
    p = k.p_feeds(tile)
    twin = k.p_holds((s.seat + 1) % SEATS, tile)
    p = 1 - (1 - p) * (1 - PAIRS_OPEN_SHARE * twin)
    return OPENS_GIVEN_FEED * p * s.p.opened_with_discard_multiplier * s.value(tile)


def pairs_mode(s: Seat) -> bool:
    """Level 2's choice: go for pairs when the rack holds nearly enough of them and its
    points are far from the threshold."""
    if s.opened is not None:
        return s.opened == "pairs"
    pairs = len(plays.pairs_in(s, s.rack))
    value = s.opening(s.rack).value
    return pairs >= s.me.pairs_needed - 1 and value < s.me.points_needed - s.in_count(30)


# ---------------------------------------------------------------- level 1
def level1(v: PlayerView) -> E.Command:
    s = Seat(v)
    if s.p.game == "duz":
        return duz_command(s, 1)
    if s.drawing:
        return E.Draw(**BLANK)
    if s.opened is None:
        command = plays.try_open(s)
        if command is not None:
            return command
    elif s.opened == "points":
        melds = keep_one(s.arrange(s.rack).melds, len(s.rack))
        if melds and len(s.rack) > 1:
            return E.Lay(**BLANK, melds=notation(melds, s.okey))
    elif s.opened == "pairs":
        pairs = keep_one(plays.pairs_in(s, s.rack), len(s.rack))
        if pairs and len(s.rack) > 1:
            return E.Lay(**BLANK, pairs=notation(pairs, s.okey))
    return E.Discard(**BLANK, tile=tiles.name(_level1_discard(s)))


def _level1_discard(s: Seat) -> Tile:
    if len(s.rack) == 1:
        return s.rack[0]
    loose = list(s.arrange(s.rack).leftover)
    pool = safe_choice(s, loose)
    drawn = s.rack[-1]
    if drawn in pool:
        return drawn
    spin = (s.v.turn * 7919 + sum((i + 1) * t for i, t in enumerate(s.rack))) % len(pool)
    return sorted(pool)[spin]


# ---------------------------------------------------------------- level 2
def level2(v: PlayerView) -> E.Command:
    s = Seat(v)
    if s.p.game == "duz":
        return duz_command(s, 2)
    return Level2Play(s).command()


class Level2Play:
    """Level 2's turn, one command at a time; level 3 overrides its choices."""

    def __init__(self, s: Seat) -> None:
        self.s = s

    def command(self) -> E.Command:
        s = self.s
        if s.may_show_indicator():
            return E.ShowIndicator(**BLANK)
        if s.drawing:
            if s.may_take() and s.top is not None and self.wants(s.top):
                return E.TakeDiscard(**BLANK)
            return E.Draw(**BLANK)
        if s.opened is None:
            command = self.open(s)
            if command is not None:
                return command
            if "put_back" in s.allowed:
                return E.PutBack(**BLANK)
        else:
            for move in (self.lay, plays.try_take_okey, self.lay_off):
                command = move(s)
                if command is not None:
                    return command
        return E.Discard(**BLANK, tile=tiles.name(self.discard()))

    # ------------------------------------------------------------ choices
    def open(self, s: Seat) -> E.Command | None:
        return plays.try_open(s)

    def lay(self, s: Seat) -> E.Command | None:
        return plays.try_lay(s)

    def lay_off(self, s: Seat) -> E.Command | None:
        return plays.try_lay_off(s)

    def wants(self, top: Tile) -> bool:
        """Take the previous discard instead of drawing?"""
        s = self.s
        if s.opened is None:
            return plays.can_open_with(s, top, pairs=s.pairs_open_to_me())
        if s.p.opened_take_must_use:
            return self.usable_now(top)
        if s.opened == "pairs":
            return top != s.okey and top in s.rack and len(s.rack) >= 2
        if top == s.okey:
            return True  # melded, or laid off
        rack = [*s.rack, top]
        if s.leftover(rack) < s.leftover(s.rack):
            return True
        return s.may_touch_table() and s.playable(top) and s.may_lay_off_more()

    def usable_now(self, top: Tile) -> bool:
        """okey-oyna: a discard taken after opening must be laid this turn."""
        s = self.s
        if len(s.rack) < 2:
            return False
        if s.opened == "pairs":
            return top != s.okey and top in s.rack
        rack = [*s.rack, top]
        melds = keep_one(s.arrange(rack).melds, len(rack), top)
        if top in played(melds):
            return True
        return s.may_touch_table() and s.may_lay_off_more() and s.playable(top)

    def discard(self) -> Tile:
        s = self.s
        if len(s.rack) == 1:
            return s.rack[0]
        if pairs_mode(s):
            found = plays.pairs_in(s, s.rack)
            paired = played(found)
            loose = list(s.rack)
            for t in paired:
                loose.remove(t)
        else:
            loose = list(s.arrange(s.rack).leftover)
        pool = safe_choice(s, loose)
        if feeding_charged(s):
            k = Knowledge(s)
            charge = {t: feed_charge(s, k, t) for t in pool}
            if s.opened is None:
                return max(pool, key=lambda t: (not partners(s, t, s.rack),
                                                -round(charge[t]), s.value(t), -t))
            return max(pool, key=lambda t: (round(s.value(t) - charge[t], 9), s.value(t), -t))
        if s.opened is None:
            return max(pool, key=lambda t: (not partners(s, t, s.rack), s.value(t), -t))
        return max(pool, key=lambda t: (s.value(t), -t))


__all__ = ["Bot", "Level2Play", "level1", "level2"]
