"""A replay serves a viewer's views over a range of steps as the views contract sends them
(`app.replays.replay.view_frames`): the first step whole, then a patch a step. Applied in
order they give, at every step, the view the replay shows at that step
(`replay_step`), byte for byte, for every viewer in every house and mode."""

from __future__ import annotations

import msgspec
import pytest

from okey101.app.replays.replay import SERVER, fold, view_frames, view_of
from okey101.errors import MalformedInput
from okey101.table import messages as E
from okey101.table.viewparts import KEYFRAME
from okey101.table.viewpatch import apply, decode_update
from okey101.table.views import PlayerPatch, PlayerUpdate
from tests.unit.test_viewparts import HOUSES, events_of


def events(house: int) -> list[E.Event]:
    return [e for step in events_of(house, 0) for e in step]


def follow(frames: list[bytes]) -> list[tuple[int, bytes, str]]:
    """(version, the whole view, the record's kind) at each frame, patches applied."""
    held, out = None, []
    for frame in frames:
        record = decode_update(frame)
        if isinstance(record, PlayerUpdate):
            held = msgspec.to_builtins(record.view)
        else:
            assert held is not None and isinstance(record, PlayerPatch)
            held = apply(held, msgspec.to_builtins(record.patch))
        assert not record.bot and record.bot_level is None  # the server's notes left out
        kind = "view" if isinstance(record, PlayerUpdate) else "patch"
        out.append((record.version, msgspec.json.encode(held), kind))
    return out


@pytest.mark.parametrize("house", range(len(HOUSES)))
@pytest.mark.parametrize("viewer", [-1, 0, 2, SERVER])
def test_the_views_of_every_step_patched_are_the_replays_views(house: int, viewer: int
                                                               ) -> None:
    log = events(house)
    got = view_frames("t", log, viewer)
    steps = follow(got.frames)
    assert [v for v, _, _ in steps] == [e.seq for e in log]
    assert (got.first, got.last) == (1, log[-1].seq)
    for version, view, _ in steps:
        folded = fold(log, version)
        want = view_of(folded.state, viewer, folded.turn_started)
        assert view == msgspec.json.encode(want), (house, viewer, version)


def test_the_first_step_is_whole_then_patches_whole_again_every_keyframe() -> None:
    log = events(0)
    kinds = [k for _, _, k in follow(view_frames("t", log, 0, 5, 5 + 2 * KEYFRAME).frames)]
    assert kinds[0] == "view" and kinds.count("view") == 3
    assert kinds[1:KEYFRAME] == ["patch"] * (KEYFRAME - 1)
    assert kinds[KEYFRAME] == "view"


def test_a_range_starts_whole_at_its_first_step() -> None:
    log = events(1)
    got = view_frames("t", log, 1, 40, 60)
    steps = follow(got.frames)
    assert [v for v, _, _ in steps] == list(range(40, 61)) and (got.first, got.last) == (40, 60)
    folded = fold(log, 40)
    assert steps[0][1] == msgspec.json.encode(view_of(folded.state, 1, folded.turn_started))


@pytest.mark.parametrize("start,end,words", [
    (0, None, "seqs start at 1"), (10, 5, "after"), (None, 10**6, "past the end")])
def test_a_range_outside_the_table_is_refused_naming_it(start: int | None, end: int | None,
                                                        words: str) -> None:
    with pytest.raises(MalformedInput, match=words):
        view_frames("t", events(0), 0, start, end)


def test_folding_that_stops_says_where_and_keeps_what_it_sent() -> None:
    log = events(0)
    broken = [*log[:30], *log[31:]]  # seq 31 lost: 32 does not follow
    got = view_frames("t", broken, 0)
    assert got.last == 30 and "stopped at seq 30" in got.stopped
    assert len(got.frames) == 30
