"""One example of every published message, for proto/examples.json and the AsyncAPI
document. Real where it can be: the commands, events and views come from a seeded match
played in process (the level-0 bot at every seat); the kinds that match never shows are
written out here. tests/unit/test_contract.py validates each against its schema.
"""

from __future__ import annotations

from typing import Any

import msgspec

from okey101.app.gateway import websocket as W
from okey101.app.matchmaker import records as MM
from okey101.app.processor.snapshots import Cut, TableSnapshot
from okey101.app.replays import directory
from okey101.app.views.playerviews import TableParts
from okey101.audit import records as A
from okey101.simulate import play_match
from okey101.standings.board import Standing
from okey101.table import messages as E
from okey101.table.evolve import NEW_TABLE, evolve
from okey101.table.state import TableState
from okey101.table.viewrules import detail
from okey101.table.views import PlayerPatch, PlayerUpdate, player_updates

SEED = "a1" * 32
T = "t4f2a9c1e07b3"
CUP = W.TournamentSummary(
    tournament_id="aralik-kupasi", house="north-sultan", name="Aralık Kupası",
    starts_at=1_767_225_600_000, size=64, hands=0, status="open", registered=2,
    is_registered=True)
AT = 1767225600000  # 2026-01-01T00:00:00Z


def _env(seq: int) -> dict[str, Any]:
    return {"table_id": T, "seq": seq, "at": AT}


def _cmd(seq: int, seat: int = 0) -> dict[str, Any]:
    return {"table_id": T, "command_id": f"ayse-01/c{seq}", "player_id": "ayse-01",
            "seat": seat, "seq": seq, "at": AT}


WRITTEN_COMMANDS: list[E.Command] = [
    E.Leave(**_cmd(12, 2)),
    E.ReplaceWithBot(**_cmd(3, 1), bot_id="c3a7e55b0f6d4e1d9b2a41f0e8c6d7a2", bot_level=2),
    E.TakeDiscard(**_cmd(40, 1)),
    E.PutBack(**_cmd(41, 1)),
    E.DeclarePairs(**_cmd(30, 2)),
    E.ShowIndicator(**_cmd(14, 0)),
    E.Lay(**_cmd(88, 3), melds=[["B9", "B10", "B11"]]),
    E.LayOff(**_cmd(90, 3), meld=0, tiles=["R8"], end="high"),
    E.TakeOkey(**_cmd(93, 1), meld=2, tiles=["K4"]),
    E.TimeOut(table_id=T, command_id=f"timeout-{T}-57", seat=2, seq=120, turn=57, at=AT),
    E.Finish(**_cmd(70, 1), tile="K7", melds=[["R1", "R2", "R3"], ["Y5", "B5", "K5"],
                                           ["B9", "B10", "B11", "B12"], ["R12", "Y12", "K12"]]),
    E.CommitSeed(**_cmd(1, 0), commitment="5d5b09f6dcb2d53a5fffc60c4ac0d55fabdf556069d6631"
                                          "545f42aa6e3500f2e"),
    E.RevealSeed(**_cmd(3, 0), client_seed="00" * 32),
    E.CloseSeeding(table_id=T, command_id=f"seeding-{T}-1-0-commit-6", seq=6, hand=1,
                   attempt=0, stage="commit", at=AT),
    E.RequestBots(**_cmd(2, 0)),
    E.ReportDisconnect(**_cmd(44, 2)),
    E.ReportReconnect(**_cmd(46, 2)),
    E.ExpireReconnectWindow(table_id=T, command_id=f"reconnect-{T}-2-44-45", seat=2, seq=45,
                            since=44, at=AT),
]
WRITTEN_EVENTS: list[E.Event] = [
    E.PlayerLeft(**_env(12), seat=2, player_id="mehmet-7"),
    E.SeatHandedToBot(**_env(13), seat=2, bot_id="nazli-3c"),
    E.DiscardTaken(**_env(40), seat=1, tile="R5"),
    E.DiscardPutBack(**_env(41), seat=1, tile="R5"),
    E.PairsDeclared(**_env(30), seat=2),
    E.IndicatorShown(**_env(14), seat=0, tile="K8"),
    E.MeldsLaid(**_env(88), seat=3, melds=[["B9", "B10", "B11"]]),
    E.TilesLaidOff(**_env(90), seat=3, meld=0, tiles=["R8"], end="high"),
    E.OkeyTaken(**_env(93), seat=1, meld=2, tiles=["K4"], okey="Y12"),
    E.PenaltyImposed(**_env(94), seat=0, points=101, reason="okey_taken"),
    E.OpeningRetracted(**_env(95), seat=2, reason="an opening of 96 points does not reach 101"),
    E.TurnTimedOut(**_env(120), seat=2, turn=57),
    E.MatchEnded(**_env(400), totals=[-101, 188, 202, 344], places=[1, 2, 3, 4]),
    E.RackShown(**_env(71), seat=1, tile="K7", melds=[["R1", "R2", "R3"], ["Y5", "B5", "K5"],
                                                      ["B9", "B10", "B11", "B12"],
                                                      ["R12", "Y12", "K12"]]),
    E.SeedingOpened(**_env(6), hand=1, attempt=0, starter=0, server_commitment="9c" * 32,
                    commit_by=AT + 15000),
    E.SeedCommitted(**_env(7), seat=0, commitment="5d" * 32),
    E.SeedCommitsClosed(**_env(8), hand=1, committed=[0], reveal_by=AT + 30000),
    E.SeedRevealed(**_env(9), seat=0, client_seed="00" * 32),
    E.SeedForfeited(**_env(10), seat=2, player_id="mehmet-7", reason="not_revealed"),
    E.SeedingClosed(**_env(11), hand=1, attempt=0, client_seeds=["00" * 32, "", "", ""]),
    E.BotsRequested(**_env(3), player_id="ayse-01"),
    E.PlayerDisconnected(**_env(44), seat=2, player_id="mehmet-7",
                         reconnect_by=AT + 420000),
    E.PlayerReconnected(**_env(46), seat=2, player_id="mehmet-7"),
]


def _played() -> tuple[list[E.Command], list[E.Event], TableState]:
    """A seeded north-sultan match of one hand, and a state from its middle (melds down)."""
    middle: list[TableState] = []

    def keep(before: TableState, command: E.Command, decision: object, after: TableState
             ) -> None:
        if not middle and after.hand is not None and after.hand.melds and \
                after.hand.phase == "play":
            middle.append(after)

    record = play_match({"base": "north-sultan", "options": {"hands_per_match": 1}}, SEED,
                        observer=keep)
    return record.commands, record.events, middle[0] if middle else record.final


def _detailed() -> tuple[TableState, int]:
    """The first state of the same match where the seat to act has rules' detail."""
    found: list[tuple[TableState, int]] = []

    def keep(before: TableState, command: E.Command, decision: object, after: TableState
             ) -> None:
        hand = after.hand
        if not found and hand is not None and hand.phase == "play":
            got = detail(after, hand.to_act)
            if got.penalised_discards and (got.lay_offs or got.okey_takes):
                found.append((after, hand.to_act))

    record = play_match({"base": "north-sultan", "options": {"hands_per_match": 1}}, SEED,
                        observer=keep)
    return found[0] if found else (record.final, 0)


def _first_by_tag(items: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        out.setdefault(type(item).__struct_config__.tag, item)
    return out


def examples() -> dict[str, Any]:
    """Name -> one example, as JSON builtins."""
    commands, events, middle = _played()
    command_by = _first_by_tag([msgspec.structs.replace(
        c, table_id=T, at=AT, command_id=f"{c.player_id or 'server'}/{c.command_id}")
        for c in commands])
    for c in WRITTEN_COMMANDS:
        command_by.setdefault(type(c).__struct_config__.tag, c)
    start = command_by["start_match"]
    command_by["start_match"] = msgspec.structs.replace(start, seed="")  # clients send none
    event_by = _first_by_tag([msgspec.structs.replace(e, table_id=T, at=AT) for e in events])
    for e in WRITTEN_EVENTS:
        event_by.setdefault(type(e).__struct_config__.tag, e)
    middle = msgspec.structs.replace(middle, table_id=T)
    seat = middle.hand.to_act if middle.hand is not None else 0
    [update] = [u for u in player_updates(middle, middle.seq - 2, [
        msgspec.structs.replace(e, table_id=T) for e in events[middle.seq - 2:middle.seq]],
        turn_started=AT) if u.seat == seat]  # the seat to act's: rules and a deadline
    out: dict[str, Any] = {}
    for tag in sorted(command_by):
        out[f"command.{tag}"] = command_by[tag]
    for tag in sorted(event_by):
        out[f"event.{tag}"] = event_by[tag]
    out["outcome.accepted"] = E.Outcome(table_id=T, command_id="ayse-01/c7", accepted=True,
                                        seqs=[61, 62])
    out["outcome.rejected"] = E.Outcome(
        table_id=T, command_id="ayse-01/c8", accepted=False, code="not_your_turn",
        message="seat 0 acted on seat 2's turn")
    out["player-update"] = PlayerUpdate(table_id=T, seat=update.seat, version=update.version,
                                        previous=update.previous, events=update.events,
                                        view=update.view, bot=update.bot,
                                        bot_level=update.bot_level)
    out["player-patch"] = _patch_of(middle, events, update.seat)
    entry = None
    for offset, event in enumerate(msgspec.structs.replace(e, table_id=T) for e in events):
        entry = directory.fold(entry, event, 3, 1000 + offset)
    assert entry is not None
    out["directory-entry"] = entry
    out["standing"] = Standing(house="north-sultan", account="ayse-01", points=1024,
                               league={"2026-W01": 12}, xp=70, level=1, room="Acemi",
                               played=1, won=1, last_table=T, last_at=AT, matches=1)
    out["dead-letter"] = E.DeadLetter(reason="undecodable command: Expected `object`, got "
                                      "`str`", topic="okey.commands", partition=3,
                                      offset=1042, key=T, value='"draw"', kind="invalid",
                                      error="ValidationError", service="processor")
    out |= _audit()
    accepted = out["outcome.accepted"]
    out["snapshot.table"] = TableSnapshot(
        table_id=T, state=middle, kept={accepted.command_id: accepted.seqs,
                                        "ayse-01/c8": out["outcome.rejected"]})
    out["snapshot.cut"] = Cut(partition=3, events_offset=8812, outcomes_offset=4410,
                              finished=["t-0c1f"], strays=[out["outcome.rejected"]], tables=2)
    out |= _websocket(update)
    patch = out["player-patch"]
    out["ws.patch"] = W.Patch(table_id=T, seat=patch.seat, version=patch.version,
                              previous=patch.previous, events=patch.events, patch=patch.patch)
    asked, at = _detailed()
    out["ws.rules"] = W.AskRules(id=f"rules-{asked.seq}", table_id=T, seat=at,
                                 version=asked.seq)
    out["ws.rules-reply"] = W.Rules(id=f"rules-{asked.seq}", table_id=T, seat=at,
                                    version=asked.seq, rules=detail(asked, at))
    out |= _matchmaking()
    return {name: msgspec.json.decode(msgspec.json.encode(value)) for name, value in out.items()}


def _audit() -> dict[str, msgspec.Struct]:
    return {
        "audit.hand_verified": A.HandVerified(
            table_id=T, hand=3, attempt=0, deal_version=2, first_seq=141, last_seq=209,
            commitment="78323c35afb2343a1706beb3f8d004812b52b948ae4c8e201a0c167b214c67b0",
            moves=57),
        "audit.hand_failed": A.HandFailed(
            table_id=T, hand=4, attempt=0, deal_version=1, finding="tile_not_in_rack",
            seq=233, event="tile_discarded", message="seat 2 discarded K9, but K9 was not in "
            "its rack (it held B2 B5 ...)"),
        "audit.collusion_flag": A.CollusionFlag(
            table_id=T, kind="feeding", players=["ayse-01", "mehmet-7"],
            matches=["north-sultan-1f3a", "north-sultan-77c0", T], observed=0.214,
            expected=0.071, score=5.8, summary="mehmet-7 took and laid at once 41 of 192 "
            "discards of ayse-01 (21.4%; honest play 7.1%) over 3 shared matches",
            evidence=[A.Evidence(table_id=T, hand=2, seq=88, seat=1, what="ayse-01 "
                                 "discarded R7; mehmet-7 took it (seq 87) and laid it at "
                                 "once (hand_opened, seq 88)")]),
    }


def _matchmaking() -> dict[str, msgspec.Struct]:
    ns, cup, table = "north-sultan", "cuma-kupasi", "mm.north-sultan.4be1c0a9d2f37e65"
    seats = [MM.Seat(player_id="ayse-01", request_id="ayse-01/q3", ordinal=12.4),
             MM.Seat(player_id="mehmet-7", request_id="mehmet-7/q1", ordinal=11.9),
             MM.Seat(player_id="zeynep", request_id="zeynep/q8", ordinal=13.0),
             MM.Seat(player_id="3f9c2a71b04e4d6f8e21a0c5d7b9e113", bot=True, bot_level=2)]
    requests: list[msgspec.Struct] = [
        MM.QuickPlay(request_id="ayse-01/q3", house=ns, player_id="ayse-01", at=AT),
        MM.CancelQuickPlay(request_id="ayse-01/q4", house=ns, player_id="ayse-01", at=AT),
        MM.ScheduleTournament(request_id="ops/1", house=ns, tournament_id=cup,
                              name="Cuma Kupası", starts_at=AT + 3_600_000, size=64, at=AT),
        MM.CancelTournament(request_id="ops/2", house=ns, tournament_id=cup,
                            reason="the hall is closed tonight", at=AT),
        MM.Register(request_id="ayse-01/r1", house=ns, player_id="ayse-01",
                    tournament_id=cup, at=AT),
        MM.Unregister(request_id="ayse-01/r2", house=ns, player_id="ayse-01",
                      tournament_id=cup, at=AT),
        MM.TableEnded(request_id=f"end/{table}", house=ns, table_id=table,
                      players=[s.player_id for s in seats], places=[2, 1, 4, 3],
                      totals=[120, -101, 640, 301], at=AT)]
    decisions: list[msgspec.Struct] = [
        MM.Waiting(house=ns, at=AT, request_id="ayse-01/q3", player_id="ayse-01",
                   hall="Kalfa", ordinal=12.4, level=4),
        MM.Refused(house=ns, at=AT, request_id="ayse-01/q5", player_id="ayse-01",
                   code="hall_above_level", message="Usta needs level 6; ayse-01 is level 4"),
        MM.Cancelled(house=ns, at=AT, request_id="ayse-01/q4", player_id="ayse-01",
                     hall="Kalfa", waited_ms=8200),
        MM.Seated(house=ns, at=AT, table_id=table, hall="Kalfa", seats=seats, window=9.5,
                  waited_ms=[7500, 21000, 900, 0]),
        MM.TournamentScheduled(house=ns, at=AT, request_id="ops/1", tournament_id=cup,
                               name="Cuma Kupası", starts_at=AT + 3_600_000, size=64,
                               hands=0, fill_with_bots=False, bot_level=1),
        MM.Registered(house=ns, at=AT, request_id="ayse-01/r1", tournament_id=cup,
                      player_id="ayse-01", ordinal=12.4),
        MM.Unregistered(house=ns, at=AT, request_id="ayse-01/r2", tournament_id=cup,
                        player_id="ayse-01"),
        MM.TournamentStarted(house=ns, at=AT, tournament_id=cup,
                             entrants=["ayse-01", "mehmet-7", "zeynep", "can"]),
        MM.TableResult(house=ns, at=AT, tournament_id=cup, round=1, table_id=table,
                       players=[s.player_id for s in seats], places=[2, 1, 4, 3],
                       advancing=["mehmet-7"], points={"ayse-01": 2, "mehmet-7": 3,
                                                       "zeynep": 0}),
        MM.TournamentEnded(house=ns, at=AT, tournament_id=cup, matches=21, standings=[
            MM.Placing(player_id="mehmet-7", place=1, title="Turnuva Sultanı",
                       league_points=60, tournament_points=9, reached=3)]),
        MM.TournamentCancelled(house=ns, at=AT, tournament_id=cup,
                               reason="1 entrant(s) at the start")]
    out: dict[str, msgspec.Struct] = {}
    for r in requests:
        out[f"matchmaking.{type(r).__struct_config__.tag}"] = r
    for d in decisions:
        out[f"matchmaker.{type(d).__struct_config__.tag}"] = d
    return out


def _patch_of(state: TableState, events: list[E.Event], seat: int) -> PlayerPatch:
    """The views service's patch of `seat` for the last event before `state`, as it
    publishes it after a whole view of the state before."""
    parts = TableParts()
    before = NEW_TABLE
    for e in events[:state.seq - 1]:
        before = evolve(before, msgspec.structs.replace(e, table_id=T))
    parts.updates(before, before.seq - 1, [], turn_started=AT)
    last = [msgspec.structs.replace(events[state.seq - 1], table_id=T)]
    [published] = [p for p in parts.updates(state, before.seq, last, turn_started=AT)
                   if p.seat == seat]
    patch: PlayerPatch = msgspec.json.decode(published.value, type=PlayerPatch)
    return patch


def _websocket(update: PlayerUpdate) -> dict[str, msgspec.Struct]:
    return {
        "ws.hello": W.Hello(v=W.VERSION, token="eyJhbGciOiJIUzI1NiJ9."
                            "eyJzdWIiOiJheXNlLTAxIn0.c2lnbmF0dXJl"),
        "ws.watch": W.Watch(table_id=T, version=57, id="w1"),
        "ws.unwatch": W.Unwatch(table_id=T),
        "ws.command": W.SendCommand(id="c9", table_id=T, seq=update.version,
                                    command=W.DiscardMove(tile="R5")),
        "ws.tables": W.ListTables(house="north-sultan"),
        "ws.welcome": W.Welcome(player_id="ayse-01", limits=W.Limits(
            frame_bytes=16384, commands_per_second=10, command_burst=20,
            connections_per_account=5, queued_messages=256)),
        "ws.error": W.ErrorReply(code="rate_limited", message="at most 10 commands a second "
                                 "(burst 20)", id="c10"),
        "ws.outcome": W.CommandOutcome(id="c9", table_id=T, accepted=True, seqs=[61, 62]),
        "ws.update": W.Update(table_id=T, seat=update.seat, version=update.version,
                              previous=update.previous, events=update.events,
                              view=update.view),
        "ws.synced": W.Synced(table_id=T, seat=0, version=57),
        "ws.tables-reply": W.Tables(tables=[W.TableSummary(
            table_id=T, house="north-sultan", status="seating", version=3,
            players=["ayse-01", "", "", ""], free_seats=[1, 2, 3], hands_total=0,
            bots_allowed=True, turn_seconds=45)]),
        "ws.quick_play": W.AskQuickPlay(id="q1", house="north-sultan"),
        "ws.cancel_quick_play": W.WithdrawQuickPlay(id="q2", house="north-sultan"),
        "ws.quick_play_state": W.QuickPlayState(
            id="q1", house="north-sultan", hall="Acemi", status="seated",
            since=1_767_225_600_000, table_id="mm.north-sultan.4404c1146bb519a6", seat=0),
        "ws.tournaments": W.ListTournaments(house="north-sultan"),
        "ws.tournament": W.ShowTournament(id="t1", tournament_id="aralik-kupasi"),
        "ws.register": W.RegisterForTournament(id="t2", house="north-sultan",
                                               tournament_id="aralik-kupasi"),
        "ws.unregister": W.WithdrawFromTournament(id="t3", house="north-sultan",
                                                  tournament_id="aralik-kupasi"),
        "ws.tournaments-reply": W.Tournaments(tournaments=[CUP]),
        "ws.tournament-reply": W.TournamentState(
            id="t2", tournament=CUP, entrants=["ayse-01", "gokhan-02"], rounds=[],
            standings=[]),
    }
