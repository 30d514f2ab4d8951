"""Collusion and abuse, found in shared matches and explained. Pure.

`Collusion.fold(event)` follows every table's server record (the events topic), folding it
with the engine's own `evolve`, and measures per match:

- **feeding** (A -> B, B the next seat): A's discards, and those B took and laid in the same
  turn (an opening, a meld, a lay-off or the finish);
- **soft play** (A toward B, A the next seat after B): B's discards A took and laid (the
  feeding figure, read the other way: far too few), and B's discards that fit A's rack once
  A has opened (a run or a group of three with two tiles A holds), and those A took;
- **kept openings**: hands a seat ended without opening while its rack could open (the
  solver on its last rack, against what the view said an opening needed);
- **win trades**: matches where one account never opened (in a match of `TANK_HANDS` hands
  or more where somebody did) and the other placed above it, in both directions (one
  account losing to everybody is deliberate losing, flagged per account);
  the **repeated pair** (north-sultan): the two accounts' matches within the house's window
  (24 h) beyond its cap (`okey101.standings.house`, `repeat_limit`);
- **decision times** (the `at` of a seat's first move in its turn less the `at` of the move
  before it).

When a match ends its figures are added to each pair of the people who sat in it (bots,
by the server record's `PlayerSat.is_bot`, never by name, are left out) and tested against
the population (every pair's figures so far, with a prior from honest play): a one-sided
binomial z-score at or above `Z_FLAG`, over enough chances, raises a flag naming the
matches and up to `EVIDENCE` moves. A flag is raised once per kind and accounts.
"""

from __future__ import annotations

import math
import statistics
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from okey101 import tiles
from okey101.audit.records import CollusionFlag, Evidence, FlagKind
from okey101.standings.house import HOUSE_RULES
from okey101.table import messages as E
from okey101.table import rules as R
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.notation import played_tiles
from okey101.table.state import TableState
from okey101.terms import SEATS
from okey101.tiles import FAKE, Tile

Z_FLAG = 3.5  # one-sided z-score a feature must reach
MIN_MATCHES = 3  # shared matches before a pair is flagged
EVIDENCE = 20  # moves named per flag, at most
TANK_HANDS = 5  # a match of at least this many hands in which an account never opened
MIN_TRADES = 3
MIN_CHANCES = 100  # discards of the pair before feeding or soft play is judged
TIMING_MIN = 60  # decisions before timing is judged
TIMING_CV = 0.15  # a coefficient of variation below this is a machine's
# priors: what honest play gives (measured with tools/bench/audit.py), worth PRIOR_N chances
PRIOR_N = 2000.0
PRIOR_FEED = 0.074  # of discards, taken by the next seat and laid at once
PRIOR_TAKE = 0.55  # of discards that fit an opened next seat's rack, taken
PRIOR_KEPT = 0.02  # of hands, ended holding an opening never laid
PRIOR_TRADE = 0.01  # of a pair's shared matches, one never opened and the other beat it
MAX_PAIRS = 1_000_000  # ordered pairs of accounts kept, the least recently met leaving
MAX_ACCOUNTS = 1_000_000  # accounts kept, the least recently seen leaving

K = TypeVar("K")
V = TypeVar("V")


class _Recent(OrderedDict[K, V]):
    """A dict that makes a missing value (as `defaultdict` does) and, on `trim`, forgets
    the least recently touched keys beyond `limit`: memory bounded whatever the number of
    accounts that ever played."""

    def __init__(self, make: Callable[[], V], limit: int) -> None:
        super().__init__()
        self.make = make
        self.limit = limit

    def __missing__(self, key: K) -> V:
        value = self[key] = self.make()
        return value

    def touch(self, key: K) -> V:
        value = self[key]
        self.move_to_end(key)
        return value

    def trim(self) -> int:
        gone = 0
        while len(self) > self.limit:
            self.popitem(last=False)
            gone += 1
        return gone


def _z_over(k: int, n: int, p: float) -> float:
    """How far `k` of `n` lies above a rate `p` (binomial, normal approximation)."""
    if n <= 0 or not 0 < p < 1:
        return 0.0
    return (k - n * p) / math.sqrt(n * p * (1 - p))


@dataclass
class _Rate:
    n: int = 0
    k: int = 0

    def add(self, other: _Rate) -> None:
        self.n += other.n
        self.k += other.k


@dataclass
class _Pair:
    """Directed figures of (A, B) over their shared matches."""

    matches: list[str] = field(default_factory=list)
    partners: int = 0  # matches where they were partners (partner modes)
    feed: _Rate = field(default_factory=_Rate)
    feed_moves: list[Evidence] = field(default_factory=list)
    soft: _Rate = field(default_factory=_Rate)
    soft_moves: list[Evidence] = field(default_factory=list)
    trades: list[Evidence] = field(default_factory=list)  # A kept openings, B won
    starts: list[tuple[int, str]] = field(default_factory=list)  # (match start, table)


@dataclass
class _Account:
    matches: list[str] = field(default_factory=list)
    kept: _Rate = field(default_factory=_Rate)
    kept_moves: list[Evidence] = field(default_factory=list)
    thinks: list[int] = field(default_factory=list)  # ms, the last 500


@dataclass
class _Match:
    """One running match's figures, by account."""

    state: TableState = NEW_TABLE
    started_at: int = 0
    pairs: dict[tuple[str, str], _Pair] = field(default_factory=lambda: defaultdict(_Pair))
    accounts: dict[str, _Account] = field(default_factory=lambda: defaultdict(_Account))
    people: set[str] = field(default_factory=set)
    last_at: int = 0
    turn_open: bool = True  # the next draw or take starts a seat's turn
    pending_take: tuple[int, Tile, str, int] | None = None  # (seat, tile, feeder, seq)
    pending_chance: tuple[int, Tile, str, int] | None = None  # (seat, tile, discarder, seq)
    kept_in_match: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    opened: set[tuple[int, str]] = field(default_factory=set)  # (hand, account) opened
    hands: int = 0  # hands ended


def _fits(rack: Sequence[Tile], tile: Tile, okey: Tile) -> bool:
    """Whether `tile` makes a run or a group of three with two natural tiles of `rack`."""
    if tile in (FAKE, okey):
        return False
    natural = {t for t in rack if t not in (FAKE, okey)}
    colour, number = tiles.colour_of(tile), tiles.number_of(tile)
    same = {tiles.colour_of(t) for t in natural if tiles.number_of(t) == number} - {colour}
    if len(same) >= 2:
        return True

    def has(n: int) -> bool:
        return 1 <= n <= 13 and tiles.make(colour, n) in natural
    return any(has(number + a) and has(number + b) for a, b in ((-2, -1), (-1, 1), (1, 2)))


class Collusion:
    """The figures of every pair of accounts (and every account) met in the last
    `max_pairs` (`max_accounts`) ones a match ended for: one that has not played since
    leaves memory with its figures (`forgotten` counts them), so a pair must collude again
    within that span to be judged on it."""

    def __init__(self, max_pairs: int = MAX_PAIRS, max_accounts: int = MAX_ACCOUNTS) -> None:
        if max_pairs < 1 or max_accounts < 1:
            raise ValueError(f"max_pairs {max_pairs} and max_accounts {max_accounts} must "
                             "be >= 1")
        self.live: dict[str, _Match] = {}
        self.pairs: _Recent[tuple[str, str], _Pair] = _Recent(_Pair, max_pairs)
        self.accounts: _Recent[str, _Account] = _Recent(_Account, max_accounts)
        self.forgotten = 0  # pairs and accounts that left memory
        self.population = {"feed": _Rate(), "soft": _Rate(), "kept": _Rate(),
                           "trade": _Rate()}
        self.raised: set[tuple[str, tuple[str, ...]]] = set()
        self.matches = 0

    # ------------------------------------------------------------ following tables
    def fold(self, event: E.Event) -> list[CollusionFlag]:
        m = self.live.get(event.table_id)
        if m is None:
            if not isinstance(event, E.TableCreated):
                return []
            m = self.live[event.table_id] = _Match()
        if event.seq != m.state.seq + 1:
            return []  # read again (a restart), or a gap: not this table's next event
        try:
            self._observe(m, event)
            m.state = evolve(m.state, event)
        except Exception:  # a log the engine cannot fold (the hand audit says why)
            del self.live[event.table_id]
            return []
        if isinstance(event, E.MatchEnded):
            del self.live[event.table_id]
            return self._close(event.table_id, m, event)
        return []

    def _person(self, m: _Match, seat: int) -> str:
        s = m.state
        if not 0 <= seat < SEATS or s.bots[seat] or not s.players[seat]:
            return ""
        return s.players[seat]

    def _observe(self, m: _Match, e: E.Event) -> None:
        s, hand = m.state, m.state.hand
        if isinstance(e, E.MatchStarted):
            m.started_at = e.at
        if isinstance(e, E.PlayerSat) and not e.is_bot and s.status == "playing":
            m.people.add(e.player_id)
        if isinstance(e, E.MatchStarted):
            m.people |= {self._person(m, i) for i in range(SEATS)} - {""}
        if hand is None:
            m.last_at = e.at or m.last_at
            return
        match e:
            case E.TileDrawn() | E.DiscardTaken():
                who = self._person(m, e.seat)
                if who and m.turn_open and e.at and m.last_at:
                    thinks = m.accounts[who].thinks
                    thinks.append(e.at - m.last_at)
                m.turn_open = False
                chance = m.pending_chance
                if chance is not None and chance[0] == e.seat:
                    rate = m.pairs[(who, chance[2])].soft if who and chance[2] else None
                    if rate is not None:
                        rate.n += 1
                        if isinstance(e, E.DiscardTaken):
                            rate.k += 1
                        else:
                            self._note(m.pairs[(who, chance[2])].soft_moves, Evidence(
                                table_id=e.table_id, hand=hand.number, seq=chance[3],
                                seat=e.seat, what=f"{who} passed on {chance[2]}'s discard "
                                f"{tiles.name(chance[1])} (seq {chance[3]}), which fitted "
                                f"its rack, and drew (seq {e.seq})"))
                m.pending_chance = None
                feeder = self._person(m, (e.seat - 1) % SEATS)
                if isinstance(e, E.DiscardTaken) and who and feeder:
                    m.pending_take = (e.seat, tiles.parse(e.tile), feeder, e.seq)
            case E.HandOpened() | E.MeldsLaid() | E.TilesLaidOff() | E.RackShown():
                if isinstance(e, E.HandOpened):
                    m.opened.add((hand.number, self._person(m, e.seat)))
                take = m.pending_take
                if take is not None and take[0] == e.seat:
                    groups = e.melds if not isinstance(e, E.TilesLaidOff) else [e.tiles]
                    laid = [t for g in groups for t in played_tiles(g)]
                    if take[1] in laid:
                        who = self._person(m, e.seat)
                        pair = m.pairs[(take[2], who)]
                        pair.feed.k += 1
                        self._note(pair.feed_moves, Evidence(
                            table_id=e.table_id, hand=hand.number, seq=e.seq, seat=e.seat,
                            what=f"{take[2]} discarded {tiles.name(take[1])}; {who} took it "
                            f"(seq {take[3]}) and laid it at once ({_tag(e)}, seq {e.seq})"))
                        m.pending_take = None
                if isinstance(e, E.RackShown):
                    self._discard(m, e.seat, tiles.parse(e.tile), e)
            case E.TileDiscarded():
                m.pending_take = None
                self._discard(m, e.seat, tiles.parse(e.tile), e)
                m.turn_open = True
            case E.HandEnded():
                m.hands += 1
                self._hand_end(m, e)
                m.turn_open = True
                m.pending_take = m.pending_chance = None
            case _:
                pass
        m.last_at = e.at or m.last_at

    def _discard(self, m: _Match, seat: int, tile: Tile, e: E.Event) -> None:
        hand = m.state.hand
        assert hand is not None
        who, nxt = self._person(m, seat), (seat + 1) % SEATS
        other = self._person(m, nxt)
        if not who or not other:
            return
        m.pairs[(who, other)].feed.n += 1
        seat_hand = hand.seats[nxt]
        if seat_hand.opened is not None and _fits(seat_hand.rack, tile, hand.okey):
            m.pending_chance = (nxt, tile, who, e.seq)

    def _hand_end(self, m: _Match, e: E.HandEnded) -> None:
        hand = m.state.hand
        assert hand is not None
        if hand.deck_pos < 4 * 2:  # a hand over before every seat had a turn: no test
            return
        for seat in range(SEATS):
            who = self._person(m, seat)
            if not who or hand.seats[seat].opened is not None or e.finished_by == seat:
                continue
            acct = m.accounts[who]
            acct.kept.n += 1
            try:
                kept = R.can_open_now(m.state, seat)
            except (ValueError, AssertionError):
                kept = False
            if kept:
                acct.kept.k += 1
                m.kept_in_match[who] += 1
                self._note(acct.kept_moves, Evidence(
                    table_id=e.table_id, hand=e.hand, seq=e.seq, seat=seat,
                    what=f"{who} ended hand {e.hand} unopened holding an opening: "
                    f"{' '.join(e.racks[seat])}"))

    @staticmethod
    def _note(moves: list[Evidence], ev: Evidence) -> None:
        if len(moves) < EVIDENCE:
            moves.append(ev)

    # ------------------------------------------------------------ a match ends
    def _close(self, table: str, m: _Match, end: E.MatchEnded) -> list[CollusionFlag]:
        self.matches += 1
        s = m.state
        people = sorted(m.people)
        house = s.profile.id if s.profile is not None else ""
        partners = s.profile is not None and s.profile.partners
        places = {s.players[i]: end.places[i] for i in range(SEATS)
                  if i < len(end.places) and self._person(m, i)}
        for who in people:
            acct = self.accounts.touch(who)
            own = m.accounts.get(who, _Account())
            acct.matches.append(table)
            acct.kept.add(own.kept)
            self.population["kept"].add(own.kept)
            for ev in own.kept_moves:
                self._note(acct.kept_moves, ev)
            acct.thinks = (acct.thinks + own.thinks)[-500:]
        for a in people:
            for b in people:
                if a == b:
                    continue
                pair, mine = self.pairs.touch((a, b)), m.pairs.get((a, b), _Pair())
                pair.matches.append(table)
                pair.starts.append((m.started_at, table))
                seats = [i for i in range(SEATS) if s.players[i] in (a, b)]
                if partners and len(seats) == 2 and (seats[1] - seats[0]) == 2:
                    pair.partners += 1
                for name in ("feed", "soft"):
                    rate: _Rate = getattr(mine, name)
                    getattr(pair, name).add(rate)
                    self.population[name].add(rate)
                for ev in mine.feed_moves:
                    self._note(pair.feed_moves, ev)
                for ev in mine.soft_moves:
                    self._note(pair.soft_moves, ev)
                traded = self._tanked(m, a) and places.get(b, 9) < places.get(a, 0)
                if traded:
                    pair.trades.append(Evidence(
                        table_id=table, what=f"{a} opened in none of the {m.hands} hands and "
                        f"placed {places.get(a)} (keeping {m.kept_in_match.get(a, 0)} "
                        f"opening(s) it could lay); {b} placed {places.get(b)}"))
                if a < b:  # per pair and match: one never opened and the other beat it
                    self.population["trade"].n += 1
                    back = self._tanked(m, b) and places.get(a, 9) < places.get(b, 0)
                    self.population["trade"].k += int(traded or back)
        flags: list[CollusionFlag] = []
        for a in people:
            flags += self._judge_account(a, table)
            for b in people:
                if a != b:
                    flags += self._judge_pair(a, b, table, house)
        self.forgotten += self.pairs.trim() + self.accounts.trim()
        return flags

    @staticmethod
    def _tanked(m: _Match, who: str) -> bool:
        """`who` never opened in a match of enough hands where somebody did (düz has no
        opening: nobody does)."""
        return m.hands >= TANK_HANDS and bool(m.opened) and not any(
            w == who for _, w in m.opened)

    def _rate(self, name: str, prior: float) -> float:
        pop = self.population[name]
        return (pop.k + prior * PRIOR_N) / (pop.n + PRIOR_N)

    def _raise(self, flag: CollusionFlag) -> list[CollusionFlag]:
        key = (flag.kind, tuple(flag.players))
        if key in self.raised:
            return []
        self.raised.add(key)
        return [flag]

    def _flag(self, kind: FlagKind, players: list[str], table: str, matches: list[str],
              observed: float, expected: float, score: float, summary: str,
              evidence: Iterable[Evidence], team: bool = False) -> list[CollusionFlag]:
        return self._raise(CollusionFlag(
            table_id=table, kind=kind, players=players, team=team, matches=list(matches),
            observed=round(observed, 4), expected=round(expected, 4), score=round(score, 2),
            summary=summary, evidence=list(evidence)[:EVIDENCE]))

    def _judge_pair(self, a: str, b: str, table: str, house: str) -> list[CollusionFlag]:
        pair = self.pairs[(a, b)]
        shared = len(pair.matches)
        team = pair.partners * 2 > shared
        out: list[CollusionFlag] = []
        if shared < MIN_MATCHES:
            return out
        p = self._rate("feed", PRIOR_FEED)
        z = _z_over(pair.feed.k, pair.feed.n, p)
        if z >= Z_FLAG and pair.feed.k >= 5 and pair.feed.n >= MIN_CHANCES:
            out += self._flag(
                "feeding", [a, b], table, pair.matches, pair.feed.k / pair.feed.n, p, z,
                f"{b} took and laid at once {pair.feed.k} of {pair.feed.n} discards of {a} "
                f"({pair.feed.k / pair.feed.n:.1%}; honest play {p:.1%}) over {shared} shared "
                "matches", pair.feed_moves, team)
        # soft play of a toward b (a sits after b): b's discards a took and laid, far below
        # the population's rate (with, as evidence, b's discards that fitted a's opened
        # rack and that a passed on)
        taken = self.pairs[(b, a)].feed
        z = _z_over(taken.n - taken.k, taken.n, 1 - p)
        q = self._rate("soft", PRIOR_TAKE)
        if z >= Z_FLAG and taken.n >= MIN_CHANCES:
            out += self._flag(
                "soft_play", [a, b], table, pair.matches, taken.k / taken.n, p, z,
                f"{a} took and laid {taken.k} of {taken.n} discards of {b} "
                f"({taken.k / taken.n:.1%}; honest play {p:.1%}), and {pair.soft.k} of "
                f"{pair.soft.n} that fitted its opened rack (honest play {q:.1%}), over "
                f"{shared} shared matches", pair.soft_moves, team)
        back = self.pairs[(b, a)].trades
        trades = len({e.table_id for e in (*pair.trades, *back)})
        t = self._rate("trade", PRIOR_TRADE)
        z = _z_over(trades, shared, t)
        # trading goes both ways; one account losing to everybody is deliberate losing
        if a < b and pair.trades and back and trades >= MIN_TRADES and z >= Z_FLAG:
            out += self._flag(
                "win_trading", [a, b], table, pair.matches, trades / shared, t, z,
                f"in {trades} of {shared} shared matches ({trades / shared:.0%}; honest play "
                f"{t:.1%}) one of {a} and {b} never opened and the other placed above it "
                f"({len(pair.trades)} for {b}, {len(back)} for {a})",
                [*pair.trades, *back], team)
        rules = HOUSE_RULES.get(house)
        if rules is not None and rules.repeat_limit is not None and a < b:
            out += self._repeated(a, b, table, pair, house, rules.repeat_limit,
                                  rules.repeat_window_ms)
        return out

    def _repeated(self, a: str, b: str, table: str, pair: _Pair, house: str, cap: int,
                  window: int) -> list[CollusionFlag]:
        """The house's repeated-pair rule (north-sultan: 3 matches of two accounts in 24 h
        count; okey101.standings.house): the most matches of the pair in one window."""
        starts = sorted(t for t in pair.starts if t[0] > 0)
        best: list[tuple[int, str]] = []
        lo = 0
        for hi in range(len(starts)):
            while starts[hi][0] - starts[lo][0] >= window:
                lo += 1
            if hi - lo + 1 > len(best):
                best = starts[lo:hi + 1]
        if len(best) <= cap:
            return []
        return self._flag(
            "repeated_pair", [a, b], table, [t for _, t in best], len(best), cap,
            len(best) - cap, f"{a} and {b} met in {len(best)} matches within "
            f"{window / 3_600_000:g} h; {house} counts {cap}",
            [Evidence(table_id=t, what=f"match started at {at} ms") for at, t in best])

    def _judge_account(self, a: str, table: str) -> list[CollusionFlag]:
        acct = self.accounts[a]
        out: list[CollusionFlag] = []
        p = self._rate("kept", PRIOR_KEPT)
        z = _z_over(acct.kept.k, acct.kept.n, p)
        if z >= Z_FLAG and acct.kept.k >= 5 and len(acct.matches) >= MIN_MATCHES:
            out += self._flag(
                "deliberate_losing", [a], table, acct.matches, acct.kept.k / acct.kept.n, p,
                z, f"{a} ended {acct.kept.k} of {acct.kept.n} unopened hands holding an "
                f"opening it could lay ({acct.kept.k / acct.kept.n:.1%}; honest play "
                f"{p:.1%})", acct.kept_moves)
        thinks = [t for t in acct.thinks if t > 0]
        if len(thinks) >= TIMING_MIN:
            mean = statistics.fmean(thinks)
            cv = statistics.pstdev(thinks) / mean if mean > 0 else 0.0
            if cv < TIMING_CV:
                out += self._flag(
                    "bot_timing", [a], table, acct.matches[-10:], cv, TIMING_CV,
                    (TIMING_CV - cv) / TIMING_CV,
                    f"{a}'s last {len(thinks)} decisions took {mean:.0f} ms on average with a "
                    f"coefficient of variation of {cv:.3f} (a person's is above "
                    f"{TIMING_CV})", [Evidence(table_id=t, what="a match of these decisions")
                                      for t in acct.matches[-10:]])
        return out


def _tag(event: E.Event) -> str:
    return str(event.__struct_config__.tag)
