"""The demo's progress: rich bars on a terminal, plain lines otherwise."""

from __future__ import annotations

import io

from rich.console import Console

from services.demo.__main__ import Table, display


def tables() -> dict[str, Table]:
    one = Table("t-ns", "north-sultan", 2, ["a", "b", "c", "d"], done_hands=1,
                outcomes=["hand 1: normal by seat 2, scores [1, 2, 0, 3]"])
    two = Table("t-gg", "okeygg", 7, ["a", "b", "c", "d"])
    return {t.table_id: t for t in (one, two)}


def test_a_terminal_gets_a_bar_per_table_with_its_hands_and_last_outcome() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120, color_system=None)
    shown = tables()
    with display(console, shown) as progress:
        progress.update(shown)
    text = screen.getvalue()
    assert "north-sultan" in text and "1/2" in text and "hand 1: normal by seat 2" in text
    assert "okeygg" in text and "0/7" in text and "dealing" in text


def test_a_pipe_gets_plain_lines_and_the_final_bars(capsys) -> None:  # type: ignore[no-untyped-def]
    console = Console(file=io.StringIO(), force_terminal=False)
    shown = tables()
    with display(console, shown) as progress:
        progress.update(shown)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "north-sultan 1/2 | okeygg 0/7"
    assert lines[1].startswith("north-sultan  [###############...............]  1/2 hands")
    assert "\x1b" not in "".join(lines)
