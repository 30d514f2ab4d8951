"""tools.generated.sync, the write-or-check loop of `make proto` and `make kubernetes`: it
writes what differs, and `check` writes nothing and fails naming the stale files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.generated import sync


def test_sync_writes_the_files_then_a_check_finds_nothing_stale(tmp_path: Path) -> None:
    files = {"a.json": "{}\n", "deep/b.yaml": "b: 1\n"}
    assert sync(files, tmp_path, check=False, hint="run it") == 0
    assert (tmp_path / "deep" / "b.yaml").read_text() == "b: 1\n"
    assert sync(files, tmp_path, check=True, hint="run it") == 0


def test_a_check_writes_nothing_and_names_the_stale_and_missing_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.json").write_text('{"old": 1}\n')
    files = {"a.json": "{}\n", "new.yaml": "n: 1\n"}
    assert sync(files, tmp_path, check=True, hint="run `make x` and commit") == 1
    assert (tmp_path / "a.json").read_text() == '{"old": 1}\n'
    assert not (tmp_path / "new.yaml").exists()
    err = capsys.readouterr().err
    assert '-{"old": 1}' in err and "+{}" in err
    assert err.endswith(f"{tmp_path} is stale (a.json, new.yaml): run `make x` and commit\n")
