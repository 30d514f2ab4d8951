"""Replays never leak: at any step, as any seat (or the spectators), a replay shows that
viewer's own rack and the public table, never another seat's tiles, the deck, or a seed
before the hand that reveals it is over. The readable table and the hand history hold no
more than the view and the viewer's events, and do not change when what the viewer may not
see is changed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okey101 import tiles
from okey101.app.replays.history import history
from okey101.app.replays.render import render
from okey101.app.replays.replay import PUBLIC, events_as, replay_step
from okey101.table import messages as E
from okey101.table.evolve import replay

from .support import houses, recorded, seeds

REPLAYS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FORBIDDEN_KEYS = {"deck", "seed", "racks", "match_seed", "deals", "hand_seed"}
TILE = re.compile(r"(?<![A-Za-z0-9=])(?:[RYBK](?:1[0-3]|[1-9])|F)(?![0-9])")
viewers = st.sampled_from([0, 1, 2, 3, PUBLIC])


def _keys(doc: Any) -> set[str]:
    if isinstance(doc, dict):
        return set(doc) | {k for v in doc.values() for k in _keys(v)}
    if isinstance(doc, list):
        return {k for v in doc for k in _keys(v)}
    return set()


def unrevealed_seeds(events: list[E.Event]) -> list[str]:
    """Seeds of the log not revealed by its events: the match seed, and each dealt hand's
    seed unless its HandEnded is among `events`."""
    revealed = {e.seed for e in events if isinstance(e, E.HandEnded)}
    out = [e.seed for e in events if isinstance(e, E.MatchSeeded) and e.seed]
    out += [e.seed for e in events if isinstance(e, E.HandDealt) and e.seed
            and e.seed not in revealed]
    return out


def _values(doc: Any) -> list[str]:
    if isinstance(doc, dict):
        return [x for v in doc.values() for x in _values(v)]
    if isinstance(doc, list):
        return [x for v in doc for x in _values(v)]
    return [doc] if isinstance(doc, str) else []


@REPLAYS
@given(house=houses, seed=seeds, data=st.data())
def test_a_replay_step_shows_a_seat_only_its_rack_and_the_public_table(
        house: str, seed: str, data: st.DataObject) -> None:
    events = recorded(house, seed).record.events
    at = data.draw(st.integers(1, len(events)), label="seq")
    viewer = data.draw(viewers, label="viewer")
    step = replay_step("sim", events, viewer, at=at)
    doc = msgspec.to_builtins(step)
    text = json.dumps(doc) + render(step)
    secrets = unrevealed_seeds(events[:at]) + [e.seed for e in events[at:]
                                               if isinstance(e, E.HandDealt) and e.seed]
    assert not [s for s in secrets if s in text], "a seed leaked before it was revealed"
    assert step.server is None
    assert not _keys(doc["view"]) & FORBIDDEN_KEYS
    if not isinstance(step.event, E.HandEnded):  # a hand's end reveals its racks and seed
        assert not _keys(doc["event"]) & FORBIDDEN_KEYS
    state = replay(events[:at])
    hand = state.hand
    own = tiles.names(hand.seats[viewer].rack) if hand is not None and viewer >= 0 else []
    assert step.view.rack == own
    if hand is not None:  # the tiles it places are its own rack's and the table's
        assert step.view.hand is not None
        shown: Counter[str] = Counter(step.view.rack)
        for s in step.view.hand.seats:
            shown.update(s.discards)
        for m in step.view.hand.melds:
            shown.update(tok.partition("=")[0] for tok in m.tiles)
        public: Counter[str] = Counter(own)
        for h in hand.seats:
            public.update(tiles.names(h.discards))
        for m in hand.melds:
            public.update(tiles.names(p for p, _ in m.meld.tiles))
        assert shown == public
    # the readable table names no tile the document does not
    in_doc: Counter[str] = Counter(t for v in _values(doc) for t in TILE.findall(v))
    in_text: Counter[str] = Counter(TILE.findall(render(step)))
    assert not in_text - in_doc, f"the table shows {dict(in_text - in_doc)} beyond the view"


def _scramble(event: E.Event, viewer: int) -> E.Event:
    """`event` with everything `viewer` may not see replaced: the deal, the seeds, another
    seat's rack and draws."""
    swap = {name: tiles.name((i + 17) % 52) for i, name in
            enumerate(tiles.names(range(52)))}
    if isinstance(event, E.HandDealt):
        return msgspec.structs.replace(
            event, seed="00" * 32, racks=[[swap.get(t, t) for t in r] for r in event.racks],
            deck=list(reversed(event.deck)))
    if isinstance(event, E.MatchSeeded):
        return msgspec.structs.replace(event, seed="11" * 32)
    if isinstance(event, E.RackDealt) and event.seat != viewer:
        return msgspec.structs.replace(event, tiles=[swap.get(t, t) for t in event.tiles])
    if isinstance(event, E.TileDrawn) and event.seat != viewer:
        return msgspec.structs.replace(event, tile=swap.get(event.tile, "F"))
    return event


@REPLAYS
@given(house=houses, seed=seeds, data=st.data())
def test_a_seats_history_and_events_do_not_change_with_what_it_may_not_see(
        house: str, seed: str, data: st.DataObject) -> None:
    events = recorded(house, seed).record.events
    at = data.draw(st.integers(1, len(events)), label="seq")
    viewer = data.draw(viewers, label="viewer")
    seen = events[:at]
    other = [_scramble(e, viewer) for e in seen]
    told = history(seen, viewer)
    assert told == history(other, viewer)
    assert events_as(seen, viewer) == events_as(other, viewer)
    words = "\n".join(told) + "".join(E.encode(e).decode() for e in events_as(seen, viewer))
    assert not [s for s in unrevealed_seeds(seen) if s in words]
    assert "(server)" not in words
