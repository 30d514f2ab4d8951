"""Every benchmark command that needs no broker runs at a tiny size and prints its figures
(tests/benchsmoke.py; the broker's benches: tests/kafka/test_bench_smoke.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.benchsmoke import NUMBER as N
from tests.benchsmoke import Runs, Smoke, check, collected

SMOKES = [
    Smoke("solver", ("--racks", "20"),
          (rf"warm \(12-13-1 valid\) native\s+n=20\s+wall p50 {N}",
           rf"warm \(12-13-1 valid\)\s+python/native wall: p50 {N}x",)),
    Smoke("engine", ("--matches", "1", "--repeat", "1"), (rf"Draw\s+\d+\s+{N} us each",)),
    Smoke("playout", ("--matches", "1", "--repeat", "1"),
          (rf"python decide_and_fold\s+{N} us a command",
           rf"ratio python/native\s+{N}x with packing",
           r"whole hands \(deal to HandEnded\): \d+ segments")),
    Smoke("policy", ("--matches", "1"),
          (rf"\d+ decisions: python level 2 {N} us, core on packed views {N} us \({N}x\)",)),
    Smoke("bots", ("--hands", "4", "--match-hands", "1", "--workers", "1", "--pairing", "L2"),
          (rf"level 2 match wins: {N} / 4", rf"level 2 decision \(\d+\): wall p50 {N} ms")),
    Smoke("search_signal", ("--matches", "1", "--match-hands", "1", "--worlds", "3"),
          (rf"a playout: CPU p50 {N} ms, p90 {N} ms; a search weighs \d+ candidates",
           rf"picking every separated better move: {N} points a hand")),
    Smoke("audit", ("--pairs", "1", "--shared", "1", "--honest-matches", "2", "--workers", "1"),
          (r"hands verified \d+, failed \d+", r"bot_timing\s+\d+/\d+\s+\d+%")),
    Smoke("ratings", ("--accounts", "8", "--rounds", "2", "--calibration", "2", "--seeds", "1",
                      "--jobs", "1", "--hands", "1"),
          (rf"hand mean\s+{N}% of \d+ matches with a unique favourite",)),
    Smoke("shuffle", ("--deals", "1000", "--workers", "1"),
          (rf"chi-square {N} with \d+ degrees of freedom .*p-value {N}",)),
    Smoke("exports", ("--events", "2000", "--distinct", "2", "--runs", "1"),
          (rf"in all {N} us: {N} events per CPU second",)),
    Smoke("footprint", ("--tables", "5", "--at", "20", "--hands", "1"),
          (rf"live:\s+{N} KB memory", rf"views service: {N} KB a live table")),
    Smoke("bounds", ("--tables", "2"),
          (rf"views\s+\(\s*\d+ bytes a record\): check\s+{N} µs, generic decode\s+{N} µs",)),
    Smoke("views", ("--tables", "4", "--hands", "1", "--batches", "1"),
          (r"processor\s+\d+ commands/s; views service\s+\d+ commands/s",
           rf"one record a change .*\s+\d+ \({N}\); with the acting seat's rules\s+\d+ \({N}\)",
           rf"the fold\s+\d+ \({N}\), the seat rules\s+\d+ \({N}\), the rest .*\s+\d+ \({N}\)")),
    Smoke("views", ("--tables", "2", "--hands", "1", "--batches", "1", "--against",
                    "python-core", "--rounds", "1"),
          (r"views before \(python-core\) and after \(working tree\)",
           rf"batches of\s+1: processor before\s+\d+ after\s+\d+; views service before\s+\d+ "
           rf"after\s+\d+ \({N}x;")),
    *(Smoke("soak", ("--service", service, "--commands", "2000", "--every", "1000",
                     "--live", "5", "--distinct", "2"),
            (rf"soak {service}: rss after \d+ commands {N} MB, at the end {N} MB",))
      for service in ("processor", "timers", "bots")),
]


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest) -> Iterator[Runs]:
    started = Runs(collected(request), timeout=300)
    yield started
    started.stop()


@pytest.mark.parametrize("smoke", SMOKES, ids=lambda s: s.id)
def test_the_bench_runs_at_a_tiny_size_and_prints_its_figures(runs: Runs, smoke: Smoke
                                                              ) -> None:
    check(runs, smoke)
