"""What the services count for the dashboards and alerts."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from prometheus_client import REGISTRY, generate_latest

from okey101.table import messages as E
from okey101.table.state import TableState
from services.common.memory import track_gc_pauses
from services.processor import metrics
from services.processor.app import is_bot_move

TABLE = TableState(players=("bot-l2-t-0", "alice", "", "bot-l3-t-3"),
                   bots=(True, False, False, True))


def test_a_move_for_a_bots_seat_by_that_bot_is_a_bot_move() -> None:
    assert is_bot_move(TABLE, E.Draw(table_id="t", command_id="c", seat=0,
                                     player_id="bot-l2-t-0"))
    assert is_bot_move(TABLE, E.Discard(table_id="t", command_id="c", seat=3,
                                        player_id="bot-l3-t-3", tile="R1"))


def test_humans_other_players_seat_fills_and_unknown_tables_are_not_bot_moves() -> None:
    assert not is_bot_move(TABLE, E.Draw(table_id="t", command_id="c", seat=1,
                                         player_id="alice"))
    assert not is_bot_move(TABLE, E.Draw(table_id="t", command_id="c", seat=0,
                                         player_id="alice"))
    assert not is_bot_move(TABLE, E.ReplaceWithBot(table_id="t", command_id="c", seat=2,
                                                   bot_id="bot-l2-t-2"))
    assert not is_bot_move(TABLE, E.Draw(table_id="t", command_id="c", seat=-1,
                                         player_id="bot-l2-t-0"))
    assert not is_bot_move(None, E.Draw(table_id="t", command_id="c", seat=0,
                                        player_id="bot-l2-t-0"))


def test_every_command_type_and_result_is_exported_from_the_start() -> None:
    text = generate_latest().decode()
    assert len(metrics.COMMAND_TYPES) > 10
    for kind in metrics.COMMAND_TYPES:
        for result in metrics.RESULTS:
            assert f'okey_commands_total{{result="{result}",type="{kind}"}}' in text
    assert "# TYPE okey_bot_rejections_total counter" in text
    assert "\nokey_aborted_commands_total " in text


def test_every_collection_of_the_garbage_collector_is_timed_by_generation() -> None:
    def full() -> float:
        return REGISTRY.get_sample_value("okey_gc_pause_seconds_count",
                                         {"generation": "2"}) or 0.0

    track_gc_pauses()
    track_gc_pauses()  # once per process, however often asked
    before = full()
    gc.collect()
    assert full() == before + 1


def test_a_service_freezes_what_it_started_with_out_of_every_full_collection() -> None:
    import subprocess
    import sys
    code = ("import gc, services.views.app\n"
            "from services.common.memory import freeze_startup\n"
            "before = len(gc.get_objects())\n"
            "freeze_startup()\n"
            "print(before, len(gc.get_objects()), gc.get_freeze_count())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    before, walked, frozen = map(int, done.stdout.split())
    assert before > 10_000 and frozen >= before * 0.9  # imports: left out from now on
    assert walked < 1_000


def test_run_freezes_the_startup_before_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    from services.common import runtime
    from services.views.settings import ViewsSettings
    calls: list[str] = []
    monkeypatch.setattr(runtime, "freeze_startup", lambda: calls.append("freeze"))

    def serve(coroutine: Any) -> int:
        coroutine.close()
        calls.append("serve")
        return 0
    monkeypatch.setattr(runtime.asyncio, "run", serve)
    assert runtime.run(ViewsSettings, lambda s: None, argv=[]) == 0  # never built here
    assert calls == ["freeze", "serve"]
