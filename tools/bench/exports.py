"""Benchmark: where the export's CPU goes, without the broker, stage by stage.

The records are those `tools.bench.replays` produces (whole matches of the four houses
played by the simple players, copied under fresh table ids, `--live` tables interleaved on
each partition), made once, saved, and handed over as the bulk reader hands them over
(`services.replays.bulk`: batches of at most 5,000 offsets and values). Every run is a
fresh process (as `okey101 export` is), pinned to one core, the garbage collector off as
in the export, and does what `services.replays.exporting.export` does after reading, one
partition at a time:

1. decode and collect (`Rows.collect_values`): msgspec decoding, the row loop (which
   keeps the rows apart by house, UTC day and event type);
2. Arrow (`Rows.parts()`): the columns of each house and date; then the rows' Python
   objects freed (`Rows.clear()`);
3. Parquet (`Writer.write_parts`): each house and date encoded and written to its file.

CPU time is `os.times()` user + system (the pages a run faults in are system time). The
medians over the runs are printed, per event and as events per CPU second. Reading from
the broker is not here: `tools.bench.replays` prints it ("its first stage alone") and the
export end to end.

Run: .venv/bin/python -m tools.bench.exports [--events N] [--runs R]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from okey101.app import topics
from okey101.app.replays.exports import Rows
from services.replays.bulk import BATCH  # records a read hands over at most
from services.replays.exporting import Writer
from tools.bench.replays import HOUSES, matches, schedule

T = TypeVar("T")


Partitions = dict[int, list[tuple[list[int], list[bytes | None]]]]  # (offsets, values)


def records(events: int, distinct: int, live: int, seed: int
            ) -> tuple[Partitions, dict[str, str], int]:
    """Batches of records by partition, each table's house, and how many records."""
    recorded = matches(distinct, seed)
    by_partition = schedule(recorded, events, live, topics.PARTITIONS, "bench")
    houses: dict[str, str] = {}
    parts: Partitions = {}
    for partition, pairs in sorted(by_partition.items()):
        for key, _ in pairs:
            table = key.decode()
            # copy n is of match n % distinct, played in house n % distinct % 4 (`matches`)
            houses[table] = HOUSES[int(table.rsplit("-", 1)[1]) % distinct % len(HOUSES)]
        values: list[bytes | None] = [value for _, value in pairs]
        parts[partition] = [(list(range(i, min(i + BATCH, len(values)))), values[i:i + BATCH])
                            for i in range(0, len(values), BATCH)]
    return parts, houses, sum(len(p) for p in by_partition.values())


def cpu() -> float:
    times = os.times()
    return times.user + times.system


def timed(seconds: dict[str, float], stage: str, work: Callable[[], T]) -> T:
    started = cpu()
    out = work()
    seconds[stage] = seconds.get(stage, 0.0) + cpu() - started
    return out


def run(saved: Path) -> dict[str, float]:
    """One export of the saved records, in this process: CPU seconds by stage."""
    with saved.open("rb") as handle:
        parts, houses, total = pickle.load(handle)
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    seconds: dict[str, float] = {}
    folder = Path(tempfile.mkdtemp(prefix="okey-export-bench-"))
    gc.disable()
    try:
        writer = Writer(folder, "parquet")
        for partition, batches in sorted(parts.items()):
            rows = Rows()
            for offsets, values in batches:
                timed(seconds, "collect", lambda o=offsets, v=values, p=partition, r=rows:
                      r.collect_values(p, o, v, houses))
            parts = timed(seconds, "arrow", lambda r=rows: list(r.parts()))
            timed(seconds, "free", rows.clear)  # the rows' Python objects freed
            timed(seconds, "parquet", lambda t=parts: writer.write_parts(t))
            del parts
        assert writer.events == total, (writer.events, total)
    finally:
        gc.enable()
        shutil.rmtree(folder, ignore_errors=True)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--distinct", type=int, default=16, help="matches actually played")
    parser.add_argument("--live", type=int, default=8, help="tables at once per partition")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes")
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--child", metavar="RECORDS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run(Path(args.child))))
        return
    parts, houses, total = records(args.events, args.distinct, args.live, args.seed)
    runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="okey-export-bench-") as folder:
        saved = Path(folder) / "records.pickle"
        with saved.open("wb") as handle:
            pickle.dump((parts, houses, total), handle)
        del parts
        for i in range(args.runs):
            done = subprocess.run([sys.executable, "-m", "tools.bench.exports", "--child",
                                   str(saved)], check=True, capture_output=True, text=True)
            runs.append(json.loads(done.stdout.splitlines()[-1]))
            print(f"run {i + 1}: " + "  ".join(f"{stage} {s:.3f} s"
                                                for stage, s in runs[-1].items()), flush=True)
    median = {stage: statistics.median(r[stage] for r in runs) for stage in runs[0]}

    def per(stage: str) -> str:
        return f"{median[stage] / total * 1e6:.2f} us"

    whole = sum(median.values())
    print(f"export without the broker, {total} events, median of {args.runs} fresh processes "
          f"on one core, CPU per event: decode and collect {per('collect')}, Arrow "
          f"{per('arrow')}, the rows freed {per('free')}, Parquet {per('parquet')}; in all "
          f"{whole / total * 1e6:.2f} us: {total / whole:,.0f} events per CPU second")

if __name__ == "__main__":
    main()
