"""A table's hand history in words, move by move, like a poker hand history. Pure.

Every event goes through `replay.visible` (the core's `event_for` for a seat or the
spectators) before it is put into words, so a seat's history holds its own rack and draws
and nothing of another seat's; the server's holds the deal too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from okey101.app.replays.directory import is_bot
from okey101.app.replays.replay import visible
from okey101.table import messages as E


def clock(at: int) -> str:
    """An event time as UTC, or '?' for an event logged before times were kept."""
    if at <= 0:
        return "?"
    return datetime.fromtimestamp(at / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _melds(melds: list[list[str]]) -> str:
    return " ".join(f"[{' '.join(m)}]" for m in melds)


class _Teller:
    """Words for one viewer's events, keeping the little context words need."""

    def __init__(self, viewer: int) -> None:
        self.viewer = viewer
        self.hand_at = 0  # when the current hand started

    def since(self, event: E.Event) -> str:
        if self.hand_at <= 0 or event.at <= 0:
            return ""
        return f"[+{(event.at - self.hand_at) / 1000:.1f}s] "

    def lines(self, event: E.Event) -> list[str]:
        words = _WORDS.get(type(event))
        if words is None:
            return [f"  {self.since(event)}{type(event).__name__} (seq {event.seq})"]
        return words(self, event)


def _created(t: _Teller, e: E.TableCreated) -> list[str]:
    return [f"Table {e.table_id}: {e.profile.id}, created {clock(e.at)}"]


def _sat(t: _Teller, e: E.PlayerSat) -> list[str]:
    return [f"Seat {e.seat}: {e.player_id}" + (" (bot)" if is_bot(e) else "")]


def _left(t: _Teller, e: E.PlayerLeft) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat} ({e.player_id}) leaves the table"]


def _to_bot(t: _Teller, e: E.SeatHandedToBot) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat} is handed to a bot ({e.bot_id})"]


def _match_started(t: _Teller, e: E.MatchStarted) -> list[str]:
    return [f"Match of {e.hands} hand(s) starts {clock(e.at)}"]


def _seeded(t: _Teller, e: E.MatchSeeded) -> list[str]:
    return [f"  (server) match seed {e.seed or 'none: stacked deals'}"]


def _hand_started(t: _Teller, e: E.HandStarted) -> list[str]:
    t.hand_at = e.at
    again = f", dealt again (attempt {e.attempt})" if e.attempt else ""
    return [f"*** Hand {e.hand}{again} *** {clock(e.at)}",
            f"  seat {e.starter} starts; indicator {e.indicator}, okey {e.okey}; "
            f"{e.deck_count} tiles in the deck; deal commitment {e.commitment or 'none'}"]


def _dealt(t: _Teller, e: E.HandDealt) -> list[str]:
    out = [f"  (server) seat {i} is dealt {' '.join(r)}" for i, r in enumerate(e.racks)]
    return [*out, f"  (server) the deck, top first: {' '.join(e.deck)}"]


def _rack(t: _Teller, e: E.RackDealt) -> list[str]:
    return [f"  seat {e.seat} holds {' '.join(e.tiles)}"]


def _drawn(t: _Teller, e: E.TileDrawn) -> list[str]:
    tile = f" {e.tile}" if e.tile else " a tile"
    return [f"  {t.since(e)}seat {e.seat} draws{tile} from the deck"]


def _taken(t: _Teller, e: E.DiscardTaken) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat} takes {e.tile} from seat {(e.seat - 1) % 4}'s discards"]


def _put_back(t: _Teller, e: E.DiscardPutBack) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat} puts {e.tile} back"]


def _pairs_declared(t: _Teller, e: E.PairsDeclared) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat} declares pairs"]


def _indicator(t: _Teller, e: E.IndicatorShown) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat} shows the indicator {e.tile}"]


def _opened(t: _Teller, e: E.HandOpened) -> list[str]:
    what = f"{e.value} points" if e.kind == "points" else f"{e.value} pairs"
    elden = " (elden: the whole rack)" if e.elden else ""
    return [f"  {t.since(e)}seat {e.seat} opens with {what} (needed {e.threshold}){elden}: "
            f"{_melds(e.melds)}"]


def _laid(t: _Teller, e: E.MeldsLaid) -> list[str]:
    kind = "pairs" if e.pairs else "melds"
    return [f"  {t.since(e)}seat {e.seat} lays {kind} {_melds(e.melds)}"]


def _laid_off(t: _Teller, e: E.TilesLaidOff) -> list[str]:
    where = "" if e.end == "group" else f" at its {e.end} end"
    return [f"  {t.since(e)}seat {e.seat} lays off {' '.join(e.tiles)} on meld {e.meld}{where}"]


def _okey_taken(t: _Teller, e: E.OkeyTaken) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat} takes the okey {e.okey} from meld {e.meld}, "
            f"putting {' '.join(e.tiles)} in its place"]


def _discarded(t: _Teller, e: E.TileDiscarded) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat} discards {e.tile}"]


def _penalty(t: _Teller, e: E.PenaltyImposed) -> list[str]:
    what = f"scores {e.points}" if e.points < 0 else f"is penalised {e.points}"
    return [f"  {t.since(e)}seat {e.seat} {what} ({e.reason.replace('_', ' ')})"]


def _retracted(t: _Teller, e: E.OpeningRetracted) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat}'s opening is taken back ({e.reason})"]


def _timed_out(t: _Teller, e: E.TurnTimedOut) -> list[str]:
    return [f"  {t.since(e)}seat {e.seat} runs out of time (turn {e.turn}): the house plays"]


def _hand_ended(t: _Teller, e: E.HandEnded) -> list[str]:
    who = f"seat {e.finished_by}" if e.finished_by is not None else "nobody"
    again = "; the deal is played again" if e.replay else ""
    out = [f"*** Hand {e.hand} ends{' ' + t.since(e).strip() if t.since(e) else ''}: "
           f"{e.finish.replace('_', ' ')} by {who}; scores {e.scores}{again} ***"]
    out += [f"  seat {i} shows {' '.join(r) or '(nothing)'}" for i, r in enumerate(e.racks)]
    if e.seed:
        out.append(f"  seed revealed: {e.seed}")
    return out


def _match_ended(t: _Teller, e: E.MatchEnded) -> list[str]:
    out = [f"*** Match over {clock(e.at)}: totals {e.totals}, places {e.places} ***"]
    if e.rating_changes is not None:
        out.append(f"  rating changes {e.rating_changes}")
    if e.team_totals is not None:
        out.append(f"  team totals {e.team_totals}")
    return out


_WORDS: dict[type[E.Event], Callable[[_Teller, Any], list[str]]] = {
    E.TableCreated: _created, E.PlayerSat: _sat, E.PlayerLeft: _left,
    E.SeatHandedToBot: _to_bot, E.MatchStarted: _match_started, E.MatchSeeded: _seeded,
    E.HandStarted: _hand_started, E.HandDealt: _dealt, E.RackDealt: _rack,
    E.TileDrawn: _drawn, E.DiscardTaken: _taken, E.DiscardPutBack: _put_back,
    E.PairsDeclared: _pairs_declared, E.IndicatorShown: _indicator, E.HandOpened: _opened,
    E.MeldsLaid: _laid, E.TilesLaidOff: _laid_off, E.OkeyTaken: _okey_taken,
    E.TileDiscarded: _discarded, E.PenaltyImposed: _penalty, E.OpeningRetracted: _retracted,
    E.TurnTimedOut: _timed_out, E.HandEnded: _hand_ended, E.MatchEnded: _match_ended,
}


def history(events: Iterable[E.Event], viewer: int) -> list[str]:
    """The table's history in words, as `viewer` saw it."""
    teller = _Teller(viewer)
    out: list[str] = []
    for event in events:
        seen = visible(event, viewer)
        if seen is not None:
            out += teller.lines(seen)
    return out
