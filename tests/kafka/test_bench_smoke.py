"""Every benchmark command that needs the broker runs at a tiny size, all at once, and
prints its figures (tests/benchsmoke.py): the stack they start is the demo's
(`services.common.stack`), so a service the stack gains cannot leave a bench behind, as
the views service once left the gateway's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.benchsmoke import NUMBER as N
from tests.benchsmoke import Runs, Smoke, check, collected
from tools.bench.disk import LIBS

SMOKES = [
    Smoke("kafka", ("--smoke", "--python-core"),
          (rf"bare loop\s+sustained\s+{N}/s\s+p50\s+{N} ms\s+p99\s+{N} ms",
           rf"processor \+ views\s+sustained.* = {N}x / {N}x the bare loop's",
           rf"python core \+ views\s+sustained.* = {N}x / {N}x the bare loop's",
           rf"to the player view: p50\s+{N} ms",
           rf"saturation \(processor \+ views\): a backlog of \d+ commands drained at\s+{N}")),
    Smoke("gateway", ("--players", "4", "--seconds", "4", "--frozen", "1", "--connections", "5",
                      "--reconnect", "2"),
          (rf"command -> own updated view: p50\s+{N} ms\s+p99\s+{N} ms",
           r"2 clients reconnecting at once: \d+ resumed with exactly what they missed",
           rf"{N} KiB per connection")),
    Smoke("disk", ("--tables", "4", "--bot-tables", "1", "--hands", "1", "--rate", "200"),
          (r"\d+ commands accepted", r"all topics\s+\d+\s+\d+")),
    Smoke("hostile", ("--tables", "1", "--bursts", "1", "--size", "2"),
          (rf"with bursts: hostile sent \d+, dead-lettered \d+, .* outcome p50 {N} ms",)),
    Smoke("standings", ("--rate", "5", "--seconds", "1", "--rebuild", "100"),
          (rf"match_ended -> standings record: p50 {N} ms",
           rf"\(b\) a fresh leaderboards service to ready.*: {N} s")),
    Smoke("recovery", ("--commands", "600", "--step", "300", "--live", "4", "--hands", "1",
                       "--snapshot-every", "100", "--settle", "1"),
          (rf"history\s+600 commands: full log\s+{N} s",)),
    Smoke("replays", ("--events", "3000", "--distinct", "2", "--live", "2", "--samples", "2",
                      "--scans", "1", "--hands", "1", "--house", "north-sultan"),
          (rf"single-table replay over HTTP .* p95 {N} ms", r"export: \d+ events",
           rf"directory lag under the demo's load .* p99 {N} ms")),
    Smoke("matchmaker", ("--players", "8", "--size", "16", "--bot-wait-ms", "1000"),
          (rf"request -> seated: p50 {N} ms", r"skill spread at a table",
           rf"tournament of 16 \(bots, 1 hand a match\): {N} s")),
]


def _runnable(smoke: Smoke) -> bool:
    """The disk bench reads the log sizes with the broker's own tool (its jars, which
    tools/kafka/broker.sh fetches): not there with a broker from elsewhere."""
    return smoke.bench != "disk" or LIBS.is_dir()


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, kafka_bootstrap: str) -> Iterator[Runs]:
    started = Runs([s for s in collected(request) if _runnable(s)],
                   env={"KAFKA_BOOTSTRAP": kafka_bootstrap}, timeout=600)
    yield started
    started.stop()


@pytest.mark.parametrize("smoke", SMOKES, ids=lambda s: s.id)
def test_the_bench_runs_at_a_tiny_size_and_prints_its_figures(runs: Runs, smoke: Smoke
                                                              ) -> None:
    if not _runnable(smoke):
        pytest.skip(f"no broker jars in {LIBS} (KAFKA_CACHE_DIR) for the disk bench")
    check(runs, smoke)
