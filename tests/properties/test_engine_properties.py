"""Engine invariants over random whole matches of every house (simple players, random seeds).

Each test is named after the invariant it checks. Matches are short (`hands_per_match`
at the house's low end) so the suite stays well under a minute.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import event as tally
from hypothesis import strategies as st

from okey101 import simulate, solver, tiles
from okey101.bots import level0
from okey101.profiles import Profile
from okey101.table import deal as D
from okey101.table import messages as E
from okey101.table.decide import decide, decide_and_fold
from okey101.table.evolve import NEW_TABLE, evolve, replay
from okey101.table.scenario import apply
from okey101.table.state import TableState
from okey101.table.views import event_for, player_view, public_event, public_view

from .support import (
    FULL_SET,
    HOUSES,
    contributions,
    fingerprint,
    houses,
    is_seeded,
    ledger,
    recorded,
    seeds,
)

MATCHES = settings(max_examples=12, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])
COMMANDS = settings(max_examples=400, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- (a) the tile ledger
@MATCHES
@given(house=houses, seed=seeds)
def test_all_106_tiles_accounted_for_after_every_event(house: str, seed: str) -> None:
    state = NEW_TABLE
    checked = 0
    for event in recorded(house, seed).record.events:
        state = evolve(state, event)
        where = ledger(state)
        if where is None:
            continue
        assert where == FULL_SET, (
            f"{house} seq {state.seq} ({type(event).__name__}): "
            f"extra {dict(where - FULL_SET)}, missing {dict(FULL_SET - where)}")
        checked += 1
    assert checked > 0


# ---------------------------------------------------------------- (b) replay
@MATCHES
@given(house=houses, seed=seeds)
def test_replaying_the_event_log_gives_the_live_state(house: str, seed: str) -> None:
    rec = recorded(house, seed)
    state = NEW_TABLE
    for before, command, decision, after in rec.steps:
        assert fingerprint(state) == fingerprint(before), f"before {command.command_id}"
        if isinstance(decision, list):
            state = replay(decision, state)
        assert state == after, f"{house}: folding the events of {command.command_id} " \
                               "differs from the live state"
    assert replay(rec.record.events) == rec.record.final
    assert [e.seq for e in rec.record.events] == list(range(1, len(rec.record.events) + 1))


# ---------------------------------------------------------------- pools of states
@lru_cache(maxsize=1)
def state_pool() -> tuple[TableState, ...]:
    """States from one short match of each house, every setup step and every 4th command
    after it, plus a finished match."""
    out: list[TableState] = []
    for house in HOUSES:
        # every seeding state of a seeded match (deal version 2: each seat's client honest,
        # silent, withholding or mismatching), and its first hand's turns
        seeded = recorded(house, SEEDED_POOL_SEED)
        out += [before for before, *_ in seeded.steps if before.seeding is not None]
        out += [before for before, *_ in seeded.steps[6:60:6]]
        rec = recorded(house, "5e" * 32)
        out += [before for before, *_ in rec.steps[:6]]
        for before, *_ in rec.steps[6::4]:
            out.append(before)
            hand = before.hand
            if hand is not None and hand.phase == "draw":  # and the same turn after a draw
                seat = hand.to_act
                after, decision = apply(before, E.Draw(
                    table_id=before.table_id, command_id="d", seat=seat,
                    player_id=before.players[seat], seq=before.seq))
                if isinstance(decision, list):
                    out.append(after)
        out.append(rec.record.final)
    return tuple(out)


SEEDED_POOL_SEED = "05" * 32  # seeded; its clients: honest, silent, withholds, mismatches
TAGS = sorted(cls.__struct_config__.tag for cls in E.AnyCommand.__args__)  # type: ignore[attr-defined]
TOKENS = [*tiles.names(range(tiles.KINDS)), "R6=K9", "F=R1", "Y6=F", "R7=R7", "r7", " B3 ",
          "", "Z1", "R14", "R0", "F"]
token = st.sampled_from(TOKENS) | st.text(max_size=5)
int_value = st.integers(-3, 8) | st.integers(-(2**63), 2**63 - 1)
json_value = st.recursive(
    st.none() | st.booleans() | int_value | st.text(max_size=6) | token,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=3),
    max_leaves=8)
FIELDS: dict[str, Any] = {
    "table_id": st.sampled_from(["sim", "", "other"]) | st.text(max_size=4),
    "command_id": st.text(max_size=4),
    "player_id": st.sampled_from(["p0", "p1", "p2", "p3", "", "x"]),
    "seat": int_value,
    "seq": int_value,
    "tile": token,
    "tiles": st.lists(token, max_size=5),
    "melds": st.lists(st.lists(token, max_size=6), max_size=4),
    "pairs": st.lists(st.lists(token, max_size=3), max_size=6),
    "meld": int_value,
    "end": st.sampled_from(["low", "high", "group", "middle"]),
    "turn": int_value,
    "seed": st.sampled_from(["", "00" * 32, "zz", "ab" * 8]) | st.text(max_size=8),
    "profile": st.sampled_from([*HOUSES, "nope"]),
    "options": st.dictionaries(
        st.sampled_from([*Profile.__struct_fields__[:12], "hands_per_match", "bogus"]),
        json_value, max_size=3),
    "bot": st.booleans(),
    "bot_id": st.text(max_size=4),
    "bot_level": int_value,
    "private": st.booleans(),
    "since": int_value,
    "at": int_value,
    "commitment": st.sampled_from(["", "zz", "ab" * 32, "ab" * 31]) | st.text(max_size=8),
    "client_seed": st.sampled_from(["", "zz", "00" * 32, "ab" * 33]) | st.text(max_size=8),
    "hand": int_value,
    "attempt": int_value,
    "stage": st.sampled_from(["commit", "reveal", "closed", ""]),
    "deals": st.none() | st.lists(st.fixed_dictionaries(
        {"indicator": token, "starter": int_value,
         "racks": st.lists(st.lists(token, max_size=22), max_size=5),
         "deck": st.lists(token, max_size=4)}), max_size=2),
}


@st.composite
def garbage_command(draw: st.DrawFn, state: TableState) -> E.Command | None:
    """A random dict converted to a command (None when it does not convert): any type,
    any fields, the envelope now right (so deep checks run), now wrong."""
    raw: dict[str, Any] = {"type": draw(st.sampled_from([*TAGS, "nope"]))}
    for name in draw(st.lists(st.sampled_from(sorted(FIELDS)), max_size=6, unique=True)):
        raw[name] = draw(FIELDS[name])
    hand = state.hand
    if draw(st.booleans()):  # a right envelope: the seat to act, its player, this seq
        seat = hand.to_act if hand is not None else draw(st.integers(0, 3))
        raw |= {"table_id": state.table_id or "sim", "seq": state.seq, "seat": seat,
                "player_id": state.players[seat], "turn": state.turn}
        raw.setdefault("command_id", "g")
    raw.setdefault("table_id", "sim")
    raw.setdefault("command_id", "g")
    try:
        return msgspec.convert(raw, E.AnyCommand)  # type: ignore[arg-type]
    except msgspec.ValidationError:
        return None


@st.composite
def typed_command(draw: st.DrawFn, state: TableState) -> E.Command:
    """A well-typed command for the seat to act, its tiles drawn from its rack (with a few
    strangers and joker tokens), so the rules themselves are exercised."""
    hand = state.hand
    seat = hand.to_act if hand is not None else 0
    rack = tiles.names(hand.seats[seat].rack) if hand is not None else []
    okey = tiles.name(hand.okey) if hand is not None else "R1"
    own = st.sampled_from(rack) if rack else st.sampled_from(TOKENS)
    joker = st.builds(lambda t: f"{okey}={t}", st.sampled_from(tiles.names(range(52))))
    tile = st.one_of(own, own, own, st.sampled_from(TOKENS[:53]), joker)
    random_melds = st.lists(st.lists(tile, min_size=2, max_size=5), min_size=1, max_size=4)
    # distinct rack tiles cut into groups: always held, rarely melds
    cut = st.lists(st.integers(0, max(len(rack) - 1, 0)), unique=True, min_size=2,
                   max_size=len(rack)).map(lambda ix: [[rack[i] for i in ix[k:k + 3]]
                                                       for k in range(0, len(ix), 3)])
    solved: list[list[str]] = []
    if hand is not None and state.profile is not None:
        rack_tiles = hand.seats[seat].rack
        wraps = state.profile.run_wraps_13_to_1
        solved = [m.notation(hand.okey)
                  for m in solver.opening(rack_tiles, hand.okey, wraps).melds]
    right = st.just(solved) if solved else cut
    # düz: the whole rack bar one tile, as the solver arranges it (now and then a finish)
    shown: list[list[str]] = []
    if hand is not None and state.profile is not None and rack:
        rest = list(hand.seats[seat].rack[1:])
        wraps = state.profile.run_wraps_13_to_1
        shown = [m.notation(hand.okey) for m in solver.fewest_left(rest, hand.okey, wraps).melds]
    finishing = st.one_of(random_melds, cut, st.just(shown)) if shown else random_melds
    melds = st.one_of(random_melds, cut, cut, right, right) if rack else random_melds
    n_melds = len(hand.melds) if hand is not None else 0
    envelope = {"table_id": state.table_id or "sim", "command_id": "t", "seat": seat,
                "player_id": state.players[seat], "seq": state.seq}
    playing = ["put_back", "declare", "show", "open_m", "open_p", "lay_m", "lay_p",
               "lay_off", "take_okey", "discard", "finish_m", "finish_p"]
    anytime = ["draw", "take", "timeout", "leave", "bot", "sit", "start", "request_bots",
               "away", "back", "expire"]
    seeding = ["commit", "reveal", "close"]
    in_play = hand is not None and hand.phase == "play"
    kinds = playing * 3 + anytime if in_play else playing + anytime
    kind = draw(st.sampled_from(seeding * 6 + anytime if state.seeding is not None else
                                kinds + seeding))
    # seeding commands come from any seat; a seat's walk seed is bytes([seat]) * 32, so
    # that a commitment made in a walk can be matched by a later reveal
    g = state.seeding
    committed = [i for i in range(4) if g is not None and g.commitments[i]]
    any_seat = draw(st.sampled_from(committed) | st.integers(0, 3) if committed
                    else st.integers(0, 3))
    mine = {"table_id": state.table_id or "sim", "command_id": "t", "seat": any_seat,
            "player_id": state.players[any_seat], "seq": state.seq}
    walk_seed = bytes([any_seat]) * 32
    window = (g.hand, g.attempt, g.stage, g.deadline) if g is not None else (1, 0, "commit", 0)
    reveals = [walk_seed.hex(), "77" * 32, "zz", ""]
    if g is not None and state.match_seed:  # the seed the driver's client committed to
        reveals += [simulate.client_seed(state.match_seed, any_seat, g.hand, g.attempt).hex()] * 3
    meld_index = st.integers(-1, n_melds)
    built: dict[str, Any] = {
        "draw": st.just(E.Draw(**envelope)),
        "take": st.just(E.TakeDiscard(**envelope)),
        "put_back": st.just(E.PutBack(**envelope)),
        "declare": st.just(E.DeclarePairs(**envelope)),
        "show": st.just(E.ShowIndicator(**envelope)),
        "open_m": st.builds(lambda m: E.Open(**envelope, melds=m), melds),
        "open_p": st.builds(lambda m: E.Open(**envelope, pairs=m), melds),
        "lay_m": st.builds(lambda m: E.Lay(**envelope, melds=m), melds),
        "lay_p": st.builds(lambda m: E.Lay(**envelope, pairs=m), melds),
        "lay_off": st.builds(lambda i, t, e: E.LayOff(**envelope, meld=i, tiles=t, end=e),
                             meld_index, st.lists(tile, min_size=1, max_size=3),
                             st.sampled_from([None, "low", "high"])),
        "take_okey": st.builds(lambda i, t: E.TakeOkey(**envelope, meld=i, tiles=t),
                               meld_index, st.lists(tile, min_size=1, max_size=2)),
        "discard": st.builds(lambda t: E.Discard(**envelope, tile=t), tile),
        "finish_m": st.builds(lambda t, m: E.Finish(**envelope, tile=t, melds=m), tile,
                              finishing),
        "finish_p": st.builds(lambda t, m: E.Finish(**envelope, tile=t, pairs=m), tile,
                              finishing),
        "timeout": st.builds(lambda d: E.TimeOut(**envelope, turn=state.turn + d),
                             st.sampled_from([0, 0, 0, -1, 1])),
        "leave": st.just(E.Leave(**envelope)),
        "bot": st.builds(lambda b, lv: E.ReplaceWithBot(**envelope, bot_id=b, bot_level=lv),
                         st.sampled_from(["u7", "", "p0"]), st.integers(-1, 4)),
        "request_bots": st.just(E.RequestBots(**envelope)),
        "away": st.builds(lambda at: E.ReportDisconnect(**envelope, at=at),
                          st.integers(0, 10**6)),
        "back": st.just(E.ReportReconnect(**envelope)),
        "expire": st.builds(lambda since, at: E.ExpireReconnectWindow(
            **envelope, since=since, at=at), st.integers(0, state.seq), st.integers(0, 10**7)),
        "sit": st.builds(lambda p: E.Sit(**envelope | {"player_id": p}),
                         st.sampled_from(["p0", "new", ""])),
        "start": st.builds(lambda s: E.StartMatch(**envelope, seed=s), FIELDS["seed"]),
        "commit": st.builds(lambda c, at: E.CommitSeed(**mine, commitment=c, at=at),
                            st.sampled_from([D.commitment(walk_seed)] * 3 + ["zz", "ab" * 31]),
                            st.sampled_from([0, window[3] - 1, window[3]])),
        "reveal": st.builds(lambda c, at: E.RevealSeed(**mine, client_seed=c, at=at),
                            st.sampled_from(reveals),
                            st.sampled_from([0, window[3] - 1, window[3]])),
        "close": st.builds(
            lambda dh, stage, dt: E.CloseSeeding(**envelope, hand=window[0] + dh,
                                                 attempt=window[1], stage=stage,
                                                 at=window[3] + dt),
            st.sampled_from([0, 0, 0, 1]), st.sampled_from([window[2]] * 3 + ["commit"]),
            st.sampled_from([0, 0, 5, -1])),
    }
    command: E.Command = draw(built[kind])
    return command


def _decide_checked(state: TableState, command: E.Command) -> TableState:
    before = fingerprint(state)
    decision = decide(state, command)
    assert isinstance(decision, (list, E.Rejection)), type(decision)
    name = type(command).__name__
    tally(f"{name}: {decision.code}" if isinstance(decision, E.Rejection) else f"{name}: ok")
    if isinstance(decision, E.Rejection):
        assert decision.code and decision.message
        # (c): a rejected command changes nothing
        assert fingerprint(state) == before
        after, again = apply(state, command)
        assert after is state and again == decision
        return state
    assert fingerprint(state) == before  # decide never mutates its input
    after = replay(decision, state)
    assert after.seq == state.seq + len(decision)
    where = ledger(after)
    assert where is None or where == FULL_SET, f"{type(command).__name__} broke the ledger"
    for event in decision:  # every event survives its own codec
        assert E.event_decoder.decode(E.encode(event)) == event
    return after


# ---------------------------------------------------------------- (c) rejections
@MATCHES
@given(house=houses, seed=seeds)
def test_a_rejected_command_changes_nothing(house: str, seed: str) -> None:
    rec = recorded(house, seed)
    for before, command, decision, after in rec.steps:
        if isinstance(decision, E.Rejection):
            assert after is before, f"{command.command_id} was rejected yet changed the state"
    # and plainly wrong commands at every 8th state: out of turn, stale, not in the rack
    for before, *_ in rec.steps[6::8]:
        hand = before.hand
        if hand is None or before.status != "playing":
            continue
        other = (hand.to_act + 1) % 4
        env = {"table_id": before.table_id, "command_id": "w", "seq": before.seq}
        missing = next(t for t in range(tiles.KINDS) if t not in hand.seats[hand.to_act].rack)
        wrong: list[E.Command] = [
            E.Draw(**env, seat=other, player_id=before.players[other]),
            E.Draw(**env | {"seq": before.seq - 1}, seat=hand.to_act,
                   player_id=before.players[hand.to_act]),
            E.Discard(**env, seat=hand.to_act, player_id=before.players[hand.to_act],
                      tile=tiles.name(missing)),
            E.TimeOut(**env, seat=hand.to_act, turn=before.turn - 1),
            E.Draw(**env, seat=hand.to_act, player_id="intruder"),
        ]
        for command in wrong:
            fp = fingerprint(before)
            decision = decide(before, command)
            assert isinstance(decision, E.Rejection), command
            assert fingerprint(before) == fp
            assert apply(before, command)[0] is before


# ---------------------------------------------------------------- (d) garbage never raises
@COMMANDS
@given(data=st.data())
def test_garbage_commands_never_raise(data: st.DataObject) -> None:
    pool = state_pool()
    state = pool[data.draw(st.integers(0, len(pool) - 1), label="state")]
    command = data.draw(garbage_command(state), label="command")
    tally("converted" if command is not None else "did not convert")
    if command is not None:
        _decide_checked(state, command)


@COMMANDS
@given(data=st.data())
def test_well_typed_random_commands_never_raise(data: st.DataObject) -> None:
    pool = state_pool()
    state = pool[data.draw(st.integers(0, len(pool) - 1), label="state")]
    _decide_checked(state, data.draw(typed_command(state), label="command"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_command_walks_never_raise_and_keep_every_tile(data: st.DataObject) -> None:
    """Twenty random commands in a row from a match state: the accepted ones move the
    table on, into states no simple player reaches."""
    pool = state_pool()
    state = pool[data.draw(st.integers(0, len(pool) - 1), label="state")]
    for _ in range(20):
        command = data.draw(typed_command(state), label="command")
        state = _decide_checked(state, command)


def test_garbage_json_never_decodes_into_a_crash() -> None:
    """The wire decoder refuses junk with a msgspec error, never anything else."""
    for raw in (b"{}", b'{"type":"discard"}', b'{"type":"nope","table_id":"t"}', b"[]",
                b'{"type":"discard","table_id":"t","command_id":"c","tile":7}', b"\xff"):
        with pytest.raises(msgspec.DecodeError):
            E.command_decoder.decode(raw)


# ---------------------------------------------------------------- (e) view secrecy
FORBIDDEN_KEYS = {"deck", "seed", "racks", "match_seed", "deals", "hand_seed"}


def _keys(doc: Any) -> set[str]:
    if isinstance(doc, dict):
        return set(doc) | {k for v in doc.values() for k in _keys(v)}
    if isinstance(doc, list):
        return {k for v in doc for k in _keys(v)}
    return set()


def _secrets(state: TableState) -> list[str]:
    """What no view may hold: the match seed, the hand's seed and the server's shares of
    the hand and of the next one (a view never shows them; `hand_ended` reveals them)."""
    out = [state.match_seed] if state.match_seed else []
    if state.hand is not None and state.hand.seed:
        out.append(state.hand.seed)
    if state.match_seed:
        match_seed = bytes.fromhex(state.match_seed)
        if state.hand is not None:
            out.append(D.server_share(match_seed, state.hand.number, state.hand.attempt).hex())
        if state.seeding is not None:
            g = state.seeding
            out.append(D.server_share(match_seed, g.hand, g.attempt).hex())
    return out


@MATCHES
@given(house=houses, seed=seeds)
def test_a_view_holds_only_its_own_rack_and_the_public_table(house: str, seed: str) -> None:
    state = NEW_TABLE
    for event in recorded(house, seed).record.events:
        state = evolve(state, event)
        hand = state.hand
        secrets = _secrets(state)
        for seat in (0, 1, 2, 3, -1):
            view = player_view(state, seat) if seat >= 0 else public_view(state)
            text = E.encode(view).decode()
            assert not _keys(json.loads(text)) & FORBIDDEN_KEYS
            assert not any(s in text for s in secrets), "a seed leaked into a view"
            if hand is None:
                assert view.rack == []
                continue
            own = tiles.names(hand.seats[seat].rack) if seat >= 0 else []
            assert view.rack == own
            assert view.hand is not None
            assert [s.rack_size for s in view.hand.seats] == [len(h.rack) for h in hand.seats]
            assert view.hand.deck_count == hand.deck_left
            # every tile the view places is in the own rack or public on the table
            shown: Counter[str] = Counter(view.rack)
            for s in view.hand.seats:
                shown.update(s.discards)
            for m in view.hand.melds:
                shown.update(tok.partition("=")[0] for tok in m.tiles)
            public: Counter[str] = Counter(own)
            for h in hand.seats:
                public.update(tiles.names(h.discards))
            for m in hand.melds:
                public.update(tiles.names(p for p, _ in m.meld.tiles))
            assert shown == public


@MATCHES
@given(house=houses, seed=seeds)
def test_event_for_never_shows_server_events_or_another_seats_tiles(
        house: str, seed: str) -> None:
    for event in recorded(house, seed).record.events:
        kind = E.visibility(event)
        for seat in (0, 1, 2, 3, -1):
            seen = event_for(event, seat) if seat >= 0 else public_event(event)
            if kind == "server":
                assert seen is None
                continue
            if kind == "public":
                blank = E.SERVER_FIELDS.get(type(event), {})
                assert seen == msgspec.structs.replace(event, **blank)
                if not isinstance(event, E.HandEnded):  # the seed is revealed after the hand
                    assert not _keys(msgspec.to_builtins(event)) & FORBIDDEN_KEYS
                continue
            own = getattr(event, "seat", None) == seat
            if isinstance(event, E.RackDealt):
                assert seen is (event if own else None)
            elif isinstance(event, E.TileDrawn):
                assert seen is not None and seen.seat == event.seat
                assert seen.tile == (event.tile if own else "")
            else:
                pytest.fail(f"a seat-private event the test does not know: {event}")


# ---------------------------------------------------------------- (g) players' entropy
seeded_seeds = st.binary(min_size=32, max_size=32).map(
    lambda b: (bytes([b[0] | 1]) + b[1:]).hex())  # an odd first byte: seeding windows


@MATCHES
@given(house=houses, seed=seeded_seeds)
def test_no_client_seed_is_seen_before_its_reveal_nor_a_servers_share_before_its_hand_ends(
        house: str, seed: str) -> None:
    """Deal version 2: whatever a seat or a spectator receives (events and views) holds no
    client seed before its seat revealed it, and no server share before its hand ended; a
    seed that was never revealed is nowhere, not even on the server's record."""
    assert is_seeded(seed)
    rec = recorded(house, seed).record
    match_seed = bytes.fromhex(seed)
    opened = [e for e in rec.events if isinstance(e, E.SeedingOpened)]
    assert opened, "a seeded match opened no seeding"
    shares = {D.server_share(match_seed, e.hand, e.attempt).hex() for e in opened}
    clients = {simulate.client_seed(seed, seat, e.hand, e.attempt).hex()
               for e in opened for seat in range(4)}
    public: set[str] = set()
    state = NEW_TABLE
    for event in rec.events:
        if isinstance(event, E.SeedRevealed):
            public.add(event.client_seed)
        if isinstance(event, E.HandEnded):
            public.add(event.server_share)
        hidden = (shares | clients) - public
        state = evolve(state, event)
        for seat in (0, 1, 2, 3, -1):
            seen = event_for(event, seat)
            view = player_view(state, seat) if seat >= 0 else public_view(state)
            text = (E.encode(seen).decode() if seen is not None else "") + \
                E.encode(view).decode()
            assert not any(h in text for h in hidden), f"seq {event.seq}: a secret leaked"
    record = b"".join(E.encode(e) for e in rec.events).decode()
    kept = clients - public
    assert not any(c in record for c in kept), "an unrevealed client seed reached the server"
    tally(f"clients {'/'.join(contributions(seed))}")


def _verified_hands(events: list[E.Event]) -> int:
    """Every hand re-derived from the public events alone, by its deal version; returns the
    number of hands checked (what an auditor or a player does: proto/DEAL.md)."""
    checked = 0
    commitments: dict[int, str] = {}
    revealed: dict[int, str] = {}
    opened: E.SeedingOpened | None = None
    closed: E.SeedingClosed | None = None
    started: E.HandStarted | None = None
    for event in events:
        if isinstance(event, E.SeedingOpened):
            opened, closed, commitments, revealed = event, None, {}, {}
        elif isinstance(event, E.SeedCommitted):
            commitments[event.seat] = event.commitment
        elif isinstance(event, E.SeedRevealed):
            assert D.commitment(bytes.fromhex(event.client_seed)) == commitments[event.seat]
            revealed[event.seat] = event.client_seed
        elif isinstance(event, E.SeedingClosed):
            assert event.client_seeds == [revealed.get(i, "") for i in range(4)]
            closed = event
        elif isinstance(event, E.HandStarted):
            started = event
        elif isinstance(event, E.HandEnded):
            assert started is not None and started.hand == event.hand
            if started.deal_version == 2:
                assert opened is not None and closed is not None
                assert (opened.hand, opened.attempt) == (started.hand, started.attempt)
                share = bytes.fromhex(event.server_share)
                assert D.commitment(share) == opened.server_commitment
                client = [bytes.fromhex(c) if c else None for c in closed.client_seeds]
                seed = D.derived_seed(2, share, client)
            else:
                assert event.server_share == ""
                seed = D.derived_seed(1, bytes.fromhex(event.seed))
            assert seed.hex() == event.seed and D.commitment(seed) == started.commitment
            checked += 1
    return checked


@MATCHES
@given(house=houses, seed=seeds)
def test_every_hand_verifies_from_its_public_events_by_its_deal_version(
        house: str, seed: str) -> None:
    """Version 1 hands (no seeding) and version 2 hands (forfeits included) alike: the
    public events re-derive each hand's seed, and the seed re-derives the racks dealt."""
    rec = recorded(house, seed).record
    public = [e for e in (public_event(e) for e in rec.events) if e is not None]
    ended = [e for e in rec.events if isinstance(e, E.HandEnded)]
    assert _verified_hands(public) == len(ended) > 0
    versions = {e.deal_version for e in rec.events if isinstance(e, E.HandStarted)}
    tally(f"versions {sorted(versions)}")
    if not is_seeded(seed):
        assert versions == {1}
    assert rec.final.profile is not None
    sizes = D.Sizes(rec.final.profile.starter_tiles, rec.final.profile.other_tiles)
    starts = [e for e in rec.events if isinstance(e, E.HandStarted)]
    dealt = [e for e in rec.events if isinstance(e, E.HandDealt)]
    for start, end, truth in zip(starts, ended, dealt, strict=True):
        again = D.deal(bytes.fromhex(end.seed), start.starter, sizes)
        assert [tiles.names(r) for r in again.racks] == truth.racks
        assert tiles.name(again.indicator) == start.indicator


# ---------------------------------------------------------------- (f) bots not labelled
def _twin(seed: str, bot_seats: frozenset[int], leaver: int, leave_at: int, bots: bool,
          seeding: bool = False) -> tuple[list[list[Any]], list[list[bytes]]]:
    """One north-sultan match: seats in `bot_seats` sit as bots (when `bots`) or as people
    with the same ids; after `leave_at` moves seat `leaver` leaves and "u9" takes it (a bot
    handed the seat, or a person sitting down). Every seat (and the spectators) gets: the
    events as `event_for` shows them, and its view after every command. With `seeding`
    (deal version 2) the people commit and reveal, except in the seats that are bots in the
    other twin, whose people send nothing, as a bot does."""
    state = NEW_TABLE
    seen: list[list[Any]] = [[] for _ in range(5)]
    views: list[list[bytes]] = [[] for _ in range(5)]

    def send(command: E.Command) -> bool:
        nonlocal state
        state, decision = decide_and_fold(state, msgspec.structs.replace(
            command, table_id="twin", seq=state.seq))
        if isinstance(decision, E.Rejection):
            return False
        for i, seat in enumerate((0, 1, 2, 3, -1)):
            seen[i] += [event_for(e, seat) for e in decision]
            views[i].append(E.encode(player_view(state, seat)))
        return True

    def sit(seat: int, player: str) -> E.Command:
        if bots:
            return E.Sit(table_id="", command_id=f"s{player}", seat=seat, player_id=player,
                         bot=True, bot_level=seat)
        return E.Sit(table_id="", command_id=f"s{player}", seat=seat, player_id=player)

    options: dict[str, Any] = {"hands_per_match": 1}
    if seeding:
        options["seeding_seconds"] = 10
    silent = set(bot_seats)
    assert send(E.CreateTable(table_id="", command_id="c", profile="north-sultan",
                              options=options))
    for seat in range(4):
        player = f"u{seat}"
        assert send(sit(seat, player) if seat in bot_seats else
                    E.Sit(table_id="", command_id=f"s{player}", seat=seat, player_id=player))
    assert send(E.StartMatch(table_id="", command_id="go", seat=0, player_id="u0", seed=seed))
    moves = 0
    while state.status == "playing" and moves < 3000:
        if moves == leave_at:
            assert send(E.Leave(table_id="", command_id="bye", seat=leaver,
                                player_id=state.players[leaver]))
            assert send(E.ReplaceWithBot(table_id="", command_id="in", seat=leaver,
                                         bot_id="u9") if bots else
                        E.Sit(table_id="", command_id="in", seat=leaver, player_id="u9"))
            silent.add(leaver)
        if state.seeding is not None:
            g = state.seeding
            intents = [(seat, simulate.seeding_intent(player_view(state, seat), "honest", seed))
                       for seat in range(4) if seat not in silent]
            intents = [(seat, c) for seat, c in intents if c is not None]
            if intents:
                seat, intent = intents[0]
                assert send(msgspec.structs.replace(intent, command_id=f"m{moves}", seat=seat,
                                                    player_id=state.players[seat]))
            else:
                assert send(E.CloseSeeding(table_id="", command_id=f"m{moves}", hand=g.hand,
                                           attempt=g.attempt, stage=g.stage, at=g.deadline))
            moves += 1
            continue
        hand = state.hand
        assert hand is not None
        seat = hand.to_act
        intent = level0(player_view(state, seat))
        if not send(msgspec.structs.replace(intent, command_id=f"m{moves}", seat=seat,
                                            player_id=state.players[seat])):
            assert send(E.TimeOut(table_id="", command_id=f"t{moves}", seat=seat,
                                  turn=state.turn))
        moves += 1
    return seen, views


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, bot_seats=st.frozensets(st.integers(0, 3), min_size=1),
       leaver=st.integers(0, 3), leave_at=st.integers(0, 40))
def test_north_sultan_nothing_a_seat_or_spectator_receives_tells_a_bot(
        seed: str, bot_seats: frozenset[int], leaver: int, leave_at: int) -> None:
    """RULES.md section 11: the same match with bots in some seats (and a bot taking a seat
    left mid-match) and with people in them: every seat and the spectators receive exactly
    the same events and views, byte for byte."""
    seen_bots, views_bots = _twin(seed, bot_seats, leaver, leave_at, bots=True)
    seen_people, views_people = _twin(seed, bot_seats, leaver, leave_at, bots=False)
    assert seen_bots == seen_people
    assert views_bots == views_people
    assert any(isinstance(e, E.MatchEnded) for e in seen_bots[4])


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, bot_seats=st.frozensets(st.integers(0, 3), min_size=1, max_size=3),
       leaver=st.integers(0, 3), leave_at=st.integers(0, 40))
def test_north_sultan_seeding_tells_no_bot_to_a_person_or_a_spectator(
        seed: str, bot_seats: frozenset[int], leaver: int, leave_at: int) -> None:
    """Deal version 2 where bots are not labelled: a bot sends no seed, nor does a person
    who chooses not to; the commit window waits for both alike, so the people and the
    spectators receive the same events and views either way. (A bot's own view, read by
    the bots service alone, lists no seeding command.)"""
    seen_bots, views_bots = _twin(seed, bot_seats, leaver, leave_at, True, seeding=True)
    seen_people, views_people = _twin(seed, bot_seats, leaver, leave_at, False, seeding=True)
    assert seen_bots == seen_people
    assert any(isinstance(e, E.SeedingOpened) for e in seen_bots[4])
    people = [i for i in range(4) if i not in bot_seats and i != leaver] + [4]
    assert [views_bots[i] for i in people] == [views_people[i] for i in people]
