"""A replay step as a readable table: racks, melds on the table, discards, scores. Pure.

It prints only what the step's view holds (the viewer's `PlayerView`, or the auditors'
`ServerView`), so it can show no more than the view.
"""

from __future__ import annotations

from okey101.app.replays.history import clock
from okey101.app.replays.replay import ReplayStep, ServerView
from okey101.table.views import PlayerView


def _tiles(names: list[str]) -> str:
    return " ".join(names) if names else "-"


def render(step: ReplayStep) -> str:
    table = step.view
    event = type(step.event).__name__ if step.event is not None else "hidden from this viewer"
    lines = [f"table {step.table_id}  seq {step.seq} of {step.last_seq}  ({event}, "
             f"{clock(step.at)})  as {step.viewer}"]
    if step.stopped:
        lines.append(f"note: {step.stopped}")
    for skipped in step.skipped:
        lines.append(f"note: skipped the record at partition {skipped.partition} offset "
                     f"{skipped.offset}: {skipped.reason}")
    house = table.profile.id if table.profile is not None else "?"
    lines.append(f"house {house}  status {table.status}  turn {table.turn}")
    lines += _hand(table, step.server)
    lines += _scores(table)
    return "\n".join(lines)


def _hand(table: PlayerView, server: ServerView | None) -> list[str]:
    hand = table.hand
    players = server.players if server is not None else table.players
    bots = server.bots if server is not None else table.bots
    if hand is None:
        return [f"  seat {i}: {p or '(empty)'}{' (bot)' if bots[i] else ''}"
                for i, p in enumerate(players)]
    out = [f"hand {hand.number}/{table.hands_total}"
           + (f" (attempt {hand.attempt})" if hand.attempt else "")
           + f"  indicator {hand.indicator}  okey {hand.okey}  deck {hand.deck_count} left"
           + f"  to act: seat {hand.to_act} ({hand.phase})"]
    if hand.available_discard is not None:
        out.append(f"  seat {hand.to_act} may take {hand.available_discard}")
    if hand.finish is not None:
        who = f"seat {hand.finished_by}" if hand.finished_by is not None else "nobody"
        out.append(f"  hand over: {hand.finish.replace('_', ' ')} by {who}")
    for s in hand.seats:
        opened = f"opened {s.opened} {s.opening_value}" if s.opened else "not opened"
        out.append(f"seat {s.seat} {players[s.seat] or '(empty)'}"
                   f"{' (bot)' if bots[s.seat] else ''}: {s.rack_size} tiles, {opened}, "
                   f"penalties {s.penalties}")
        if server is not None and s.seat < len(server.racks):
            out.append(f"  rack     {_tiles(server.racks[s.seat])}")
        elif s.seat == table.seat:
            out.append(f"  rack     {_tiles(table.rack)}")
        out.append(f"  discards {_tiles(s.discards)}")
    out.append("melds on the table:" if hand.melds else "melds on the table: none")
    for m in hand.melds:
        out.append(f"  #{m.index} seat {m.owner} {m.kind:<5} {_tiles(m.tiles)}")
    if server is not None:
        out.append(f"deck (top first): {_tiles(server.deck)}")
        out.append(f"hand seed: {server.hand_seed or '-'}  match seed: {server.match_seed or '-'}")
    return out


def _scores(table: PlayerView) -> list[str]:
    out = [f"hand {i + 1} scores {list(s)}" for i, s in enumerate(table.hand_scores)]
    if any(table.penalties):
        out.append(f"penalties {table.penalties}")
    out.append(f"totals {table.totals}")
    return out
