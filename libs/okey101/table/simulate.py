"""Whole matches in process, played by simple built-in players, through decide/evolve.

The simple player is NOT a bot of any house: it is a plain, deterministic rule-follower
used to drive the engine (properties, benchmarks, `okey101 simulate`). It reads only its
`player_view` and answers with one command at a time:

- draw; or take the previous discard when it lets the player open at once (or, once
  opened, when it lands in a new meld or pair this turn);
- open by points when `solver.opening` of the rack reaches the threshold (the solver's
  melds), else by pairs when it holds enough (declaring first where the house needs it);
- once opened, lay the new melds `solver.arrange` finds (a pairs-opener: new pairs), then
  lay off single tiles that fit the table's runs and groups where the house allows it;
- discard the highest loose tile, avoiding okeys and tiles that could be laid off.

The driver (`play_match`) is the only place with randomness: `simulate` derives every match
seed from its own `random.Random(seed)`; the engine stays pure. A command the engine rejects
is replaced by the `timeout` command for that turn (and counted), so every match ends; a cap
on commands per match guards against any loop the player might fall into.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from okey101 import melds as M
from okey101 import scoring, solver, tiles
from okey101.profiles import _LOCKED, Profile, house
from okey101.table import messages as E
from okey101.table.decide import decide_and_fold
from okey101.table.evolve import NEW_TABLE
from okey101.table.state import TableState
from okey101.table.views import PlayerView, SeatView, player_view
from okey101.tiles import FAKE, Tile

TABLE = "sim"
COMMAND_CAP = 20_000  # per match; a normal 11-hand match takes about 2,000
ProfileSpec = str | Mapping[str, Any] | Profile
Player = Callable[[PlayerView], E.Command]
# (state before, command, decision, state after) for every command the driver sends
Observer = Callable[[TableState, E.Command, E.Rejection | list[E.Event], TableState], None]

_BLANK: dict[str, Any] = {"table_id": "", "command_id": ""}  # the driver fills the envelope


# ---------------------------------------------------------------- the simple player
class _Seen:
    """What the player works out from its view, once per command."""

    def __init__(self, v: PlayerView) -> None:
        assert v.profile is not None and v.hand is not None
        self.v, self.p, self.h = v, v.profile, v.hand
        self.me: SeatView = v.hand.seats[v.seat]
        self.okey = tiles.parse(v.hand.okey)
        self.indicator = tiles.parse(v.hand.indicator)
        self.wraps = v.profile.run_wraps_13_to_1
        self.rack = tiles.parse_many(v.rack)
        self.table = [_meld(m.kind, m.tiles, m.start, self.okey) for m in v.hand.melds]


def _meld(kind: str, tokens: Sequence[str], start: int, okey: Tile) -> M.Meld:
    placed = tuple(M.parse_placed(list(tokens), okey))
    return M.Meld("run" if kind == "run" else "group" if kind == "group" else "pair",
                  placed, start)


def simple_player(v: PlayerView) -> E.Command:
    """One legal-looking command for the seat to act, from its view only."""
    s = _Seen(v)
    if _may_show_indicator(s):
        return E.ShowIndicator(**_BLANK)
    if s.h.phase == "draw":
        top = s.h.available_discard
        if top is not None and _wants_discard(s, tiles.parse(top)):
            return E.TakeDiscard(**_BLANK)
        return E.Draw(**_BLANK)
    if s.me.opened is None:
        opening = _try_open(s)
        if opening is not None:
            return opening
        if s.h.current.taken is not None and s.p.put_back_allowed and not s.h.current.laid:
            return E.PutBack(**_BLANK)
    else:
        laying = _try_lay(s)
        if laying is not None:
            return laying
    return E.Discard(**_BLANK, tile=tiles.name(_discard_choice(s)))


def _may_show_indicator(s: _Seen) -> bool:
    return (s.p.indicator_pair and not s.me.shown_indicator and not s.me.has_played
            and s.h.current.taken is None and (s.v.seat == s.h.starter or s.h.phase == "draw")
            and s.indicator in s.rack)


def _played(melds: Sequence[M.Meld]) -> list[Tile]:
    return [played for m in melds for played, _ in m.tiles]


def _keep_one(melds: list[M.Meld], rack_size: int) -> list[M.Meld]:
    """`melds`, trimmed so that one tile stays in the rack for the discard."""
    if sum(len(m.tiles) for m in melds) < rack_size:
        return melds
    for i, m in enumerate(melds):
        if m.kind == "run" and len(m.tiles) >= 4:
            return [*melds[:i], M.Meld("run", m.tiles[:-1], m.start), *melds[i + 1:]]
        if m.kind == "group" and len(m.tiles) == 4:
            return [*melds[:i], M.Meld("group", m.tiles[:-1]), *melds[i + 1:]]
    if not melds:
        return melds
    lowest = min(range(len(melds)), key=lambda i: melds[i].value())
    return [m for i, m in enumerate(melds) if i != lowest]


def _elden_possible(s: _Seen) -> bool:
    return not (s.p.elden_only_while_nobody_opened and
                any(h.opened is not None for h in s.h.seats if h.seat != s.v.seat))


def _points_plan(s: _Seen, rack: list[Tile], must: Tile | None) -> list[M.Meld] | None:
    best = solver.opening(rack, s.okey, s.wraps)
    plan = _keep_one(list(best.melds), len(rack))
    if not plan or (must is not None and must not in _played(plan)):
        return None
    value = sum(m.value() for m in plan)
    laid = sum(len(m.tiles) for m in plan)
    if value >= s.me.points_needed or (laid == len(rack) - 1 and _elden_possible(s)):
        return plan
    return None


def _pairs(rack: Sequence[Tile], okey: Tile, wild: Tile | None) -> list[M.Meld]:
    """Pairs from `rack`; `wild` (okeygg's shown indicator twin) pairs like an okey."""
    if wild is None or wild not in rack:
        return solver.pairs_of(rack, okey)
    rest = list(rack)
    rest.remove(wild)
    found = solver.pairs_of(rest, okey)
    used = Counter(_played(found))
    left = Counter(rest) - used
    single = max((t for t in left if t != okey), default=None,
                 key=lambda t: tiles.face_value(t, okey))
    if single is not None:
        stands = okey if single == FAKE else single
        found.append(M.Meld("pair", ((single, stands), (wild, stands))))
    return found


def _pairs_plan(s: _Seen, rack: list[Tile], must: Tile | None) -> list[M.Meld] | None:
    wild = s.indicator if s.me.shown_indicator else None
    plan = _keep_one(_pairs(rack, s.okey, wild), len(rack))
    if len(plan) < s.me.pairs_needed or (must is not None and must not in _played(plan)):
        return None
    return plan


def _notation(melds: Sequence[M.Meld], okey: Tile) -> list[list[str]]:
    return [m.notation(okey) for m in melds]


def _wants_discard(s: _Seen, top: Tile) -> bool:
    if top == s.okey and not s.p.discarded_okey_takeable:
        return False
    rack = [*s.rack, top]
    if s.me.opened is None:
        if _points_plan(s, rack, top) is not None:
            return True
        pairs_ok = not s.p.pairs_need_declaration or s.me.declared_pairs
        return pairs_ok and _pairs_plan(s, rack, top) is not None
    if s.me.opened == "pairs":  # a new pair with its twin, a tile kept to discard
        return top != s.okey and top in s.rack and len(s.rack) >= 2
    arranged = _keep_one(list(solver.arrange(rack, s.okey, s.wraps,
                                             s.p.okey_in_rack_value).melds), len(rack))
    return top in _played(arranged)


def _try_open(s: _Seen) -> E.Command | None:
    taken = tiles.parse(s.h.current.taken) if s.h.current.taken is not None else None
    plan = _points_plan(s, s.rack, taken)
    if plan is not None:
        return E.Open(**_BLANK, melds=_notation(plan, s.okey))
    pairs = _pairs_plan(s, s.rack, taken)
    if pairs is None:
        return None
    if s.p.pairs_need_declaration and not s.me.declared_pairs:
        return E.DeclarePairs(**_BLANK)
    return E.Open(**_BLANK, pairs=_notation(pairs, s.okey))


def _may_touch_table(s: _Seen) -> bool:
    opened_turn, turn = s.me.opened_turn, s.v.turn
    if opened_turn == turn:
        return s.p.lay_off_in_opening_turn
    return turn - opened_turn >= 4 * s.p.lay_off_wait_rounds


def _try_lay(s: _Seen) -> E.Command | None:
    if s.me.opened == "points":
        melds = _keep_one(list(solver.arrange(s.rack, s.okey, s.wraps,
                                              s.p.okey_in_rack_value).melds), len(s.rack))
        if melds:
            return E.Lay(**_BLANK, melds=_notation(melds, s.okey))
    else:
        wild = s.indicator if s.me.shown_indicator else None
        pairs = _keep_one(_pairs(s.rack, s.okey, wild), len(s.rack))
        if pairs:
            return E.Lay(**_BLANK, pairs=_notation(pairs, s.okey))
    if len(s.rack) > 1 and _may_touch_table(s):
        return _try_lay_off(s)
    return None


def _try_lay_off(s: _Seen) -> E.Command | None:
    cur = s.h.current
    if s.me.opened == "pairs" and s.p.pairs_opener_lay_off_limit is not None and \
            cur.lay_offs >= s.p.pairs_opener_lay_off_limit:
        return None
    used = {(m, e): n for m, e, n in cur.end_counts}
    order = sorted(set(s.rack), key=lambda t: -tiles.face_value(t, s.okey))
    for tile in order:
        if tile == s.okey:
            continue
        stands = s.okey if tile == FAKE else tile
        for i, meld in enumerate(s.table):
            if meld.kind == "pair":
                continue
            for pos in M.lay_off_targets(stands, meld, s.wraps):
                if meld.kind == "group":
                    return E.LayOff(**_BLANK, meld=i, tiles=[tiles.name(tile)])
                end: E.End = "low" if pos == meld.start - 1 else "high"
                limit = s.p.run_end_lay_off_limit
                if limit is not None and used.get((i, end), 0) >= limit:
                    continue
                return E.LayOff(**_BLANK, meld=i, tiles=[tiles.name(tile)], end=end)
    return None


def _discard_choice(s: _Seen) -> Tile:
    if len(s.rack) == 1:
        return s.rack[0]
    loose = solver.arrange(s.rack, s.okey, s.wraps, s.p.okey_in_rack_value).leftover
    pool = [t for t in loose if t != s.okey] or [t for t in s.rack if t != s.okey] or s.rack
    taken = s.h.current.taken
    if taken is not None and s.p.opened_take_must_use:
        pool = [t for t in pool if tiles.name(t) != taken] or pool
    safe = [t for t in pool if not M.is_playable(t, s.table, s.okey, s.wraps)]
    return max(safe or pool, key=lambda t: (tiles.face_value(t, s.okey), -t))


# ---------------------------------------------------------------- the driver
class MatchRecord(msgspec.Struct, kw_only=True):
    """One whole match: every command sent (rejected ones too) and every event."""

    seed: str
    commands: list[E.Command]
    events: list[E.Event]
    final: TableState
    rejections: int
    rejection_codes: dict[str, int]
    capped: bool  # stopped by the command cap before the match ended


def profile_command(spec: ProfileSpec) -> tuple[str, dict[str, Any]]:
    """(house, options) for `create_table` from a house name, a spec dict or a Profile."""
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Profile):
        base = house(spec.id)
        options = {f: getattr(spec, f) for f in Profile.__struct_fields__
                   if f not in _LOCKED and getattr(spec, f) != getattr(base, f)}
        return spec.id, msgspec.to_builtins(options)
    return str(spec.get("base", "")), dict(spec.get("options") or {})


def play_match(profile: ProfileSpec, seed: str, players: Sequence[Player] | None = None,
               cap: int = COMMAND_CAP, observer: Observer | None = None) -> MatchRecord:
    """One match from `seed` (hex, 32 bytes) with `players` by seat (simple by default)."""
    seats = list(players) if players is not None else [simple_player] * 4
    base, options = profile_command(profile)
    commands: list[E.Command] = []
    events: list[E.Event] = []
    codes: Counter[str] = Counter()
    state = NEW_TABLE

    def send(command: E.Command) -> E.Rejection | list[E.Event]:
        nonlocal state
        before = state
        state, decision = decide_and_fold(state, command)
        commands.append(command)
        if isinstance(decision, list):
            events.extend(decision)
        if observer is not None:
            observer(before, command, decision, state)
        return decision

    setup: list[E.Command] = [E.CreateTable(table_id=TABLE, command_id="create",
                                            profile=base, options=options)]
    setup += [E.Sit(table_id=TABLE, command_id=f"sit-{i}", player_id=f"p{i}", seat=i)
              for i in range(4)]
    setup.append(E.StartMatch(table_id=TABLE, command_id="start", player_id="p0", seat=0,
                              seed=seed))
    for command in setup:
        decision = send(msgspec.structs.replace(command, seq=state.seq))
        if isinstance(decision, E.Rejection):
            raise ValueError(f"simulation setup ({type(command).__name__}): "
                             f"{decision.code}: {decision.message}")
    rejections = 0
    while state.status == "playing" and len(commands) < cap:
        hand = state.hand
        assert hand is not None
        seat = hand.to_act
        intent = seats[seat](player_view(state, seat))
        command = msgspec.structs.replace(
            intent, table_id=TABLE, command_id=f"c{len(commands)}",
            player_id=state.players[seat], seat=seat, seq=state.seq)
        decision = send(command)
        if isinstance(decision, E.Rejection):
            rejections += 1
            codes[decision.code] += 1
            fallback = E.TimeOut(table_id=TABLE, command_id=f"c{len(commands)}",
                                 seat=seat, seq=state.seq, turn=state.turn)
            decision = send(fallback)
            if isinstance(decision, E.Rejection):
                raise RuntimeError(f"the engine rejected a timeout: {decision.code}: "
                                   f"{decision.message}")
    return MatchRecord(seed=seed, commands=commands, events=events, final=state,
                       rejections=rejections, rejection_codes=dict(codes),
                       capped=state.status == "playing")


# ---------------------------------------------------------------- standings
class MatchSummary(msgspec.Struct, frozen=True, kw_only=True):
    seed: str
    hands: int  # hands scored (replayed deals not counted)
    totals: list[int]
    places: list[int]
    finishes: dict[str, int]
    commands: int
    events: int
    rejections: int
    capped: bool


class Standings(msgspec.Struct, frozen=True, kw_only=True):
    profile: str
    matches: int
    seed: int
    results: list[MatchSummary]
    mean_score: list[float]  # per seat: the mean match total
    wins: list[float]  # per seat: first places (a shared first counts 1/n each)
    hands: int
    finishes: dict[str, int]  # hands ended, by finish kind (replayed deals included)
    rejections: int
    rejection_codes: dict[str, int]
    commands: int
    events: int
    capped: int


def summarize(record: MatchRecord) -> MatchSummary:
    ended = [e for e in record.events if isinstance(e, E.HandEnded)]
    last = record.events[-1] if record.events else None
    if isinstance(last, E.MatchEnded):
        totals, places = list(last.totals), list(last.places)
    else:
        totals = record.final.totals()
        places = scoring.places(totals)
    return MatchSummary(
        seed=record.seed, hands=len(record.final.hand_scores), totals=totals, places=places,
        finishes=dict(Counter(e.finish for e in ended)), commands=len(record.commands),
        events=len(record.events), rejections=record.rejections, capped=record.capped)


def match_seeds(seed: int, matches: int) -> list[str]:
    rng = random.Random(seed)
    return [rng.randbytes(32).hex() for _ in range(matches)]


def simulate(profile: ProfileSpec, matches: int, seed: int,
             players: Sequence[Player] | None = None, cap: int = COMMAND_CAP) -> Standings:
    """`matches` whole matches; each match seed derived from `seed`, so reproducible."""
    results: list[MatchSummary] = []
    finishes: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    for match_seed in match_seeds(seed, matches):
        record = play_match(profile, match_seed, players, cap)
        summary = summarize(record)
        results.append(summary)
        finishes.update(summary.finishes)
        codes.update(record.rejection_codes)
    wins = [0.0] * 4
    for r in results:
        firsts = [i for i in range(4) if r.places[i] == 1]
        for i in firsts:
            wins[i] += 1 / len(firsts)
    mean = [statistics.fmean(r.totals[i] for r in results) if results else 0.0
            for i in range(4)]
    return Standings(
        profile=profile_command(profile)[0], matches=matches, seed=seed, results=results,
        mean_score=mean, wins=wins, hands=sum(r.hands for r in results),
        finishes=dict(sorted(finishes.items())), rejections=sum(r.rejections for r in results),
        rejection_codes=dict(sorted(codes.items())),
        commands=sum(r.commands for r in results), events=sum(r.events for r in results),
        capped=sum(1 for r in results if r.capped))


def render(st: Standings) -> str:
    """The standings as a plain-text table."""
    lines = [f"simulate {st.profile}: {st.matches} matches, seed {st.seed}", ""]
    head = (f"{'match':>5}  {'seed':<10}  {'hands':>5}  "
            + "  ".join(f"{'seat ' + str(i):>7}" for i in range(4))
            + f"  {'places':<9}  {'cmds':>6}  {'events':>6}  {'rej':>4}")
    lines += [head, "-" * len(head)]
    for n, r in enumerate(st.results, start=1):
        lines.append(
            f"{n:>5}  {r.seed[:8] + '..':<10}  {r.hands:>5}  "
            + "  ".join(f"{t:>7}" for t in r.totals)
            + f"  {' '.join(map(str, r.places)):<9}  {r.commands:>6}  {r.events:>6}  "
            f"{r.rejections:>4}" + ("  CAPPED" if r.capped else ""))
    lines.append("-" * len(head))
    lines.append(f"{'mean':>5}  {'':<10}  {'':>5}  "
                 + "  ".join(f"{m:>7.1f}" for m in st.mean_score))
    lines.append(f"{'wins':>5}  {'':<10}  {'':>5}  "
                 + "  ".join(f"{w:>7.2f}" for w in st.wins))
    lines.append("")
    finishes = ", ".join(f"{k} {v}" for k, v in st.finishes.items()) or "none"
    lines.append(f"hands scored: {st.hands}; hands ended by finish: {finishes}")
    codes = ", ".join(f"{k} {v}" for k, v in st.rejection_codes.items())
    lines.append(f"rejected commands: {st.rejections}" + (f" ({codes})" if codes else ""))
    lines.append(f"commands: {st.commands}, events: {st.events}, capped matches: {st.capped}")
    return "\n".join(lines)


__all__ = [
    "COMMAND_CAP", "MatchRecord", "MatchSummary", "Standings", "match_seeds",
    "play_match", "profile_command", "render", "simple_player", "simulate", "summarize",
]
