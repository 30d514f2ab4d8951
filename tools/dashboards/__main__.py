"""python -m tools.dashboards [--check] [--render] [FOLDER]: the Grafana dashboards.

Writes FOLDER (default deploy/grafana) from tools/dashboards/boards.py: dashboards/*.json
and the provisioning files. `--check` writes nothing and fails (exit 1) when FOLDER is
stale, as CI runs it. `--render` also runs the demo's load against a Prometheus with the
deploy configuration (tools/dashboards/live.py: needs the broker, started as `make demo`
does, and the Debian prometheus package) and draws every board as FOLDER/png/<board>.png,
and each overview panel as FOLDER/png/overview/NN-<panel>.png.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from tools.dashboards.boards import BOARDS
from tools.dashboards.files import stale, write

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.dashboards", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", type=Path, default=ROOT / "deploy" / "grafana")
    parser.add_argument("--check", action="store_true", help="fail if FOLDER is stale")
    parser.add_argument("--render", action="store_true", help="also draw PNGs from a run")
    parser.add_argument("--hands", type=int, default=1, help="hands per match of the run")
    args = parser.parse_args()
    if args.check:
        differing = stale(args.folder)
        for name in differing:
            print(f"stale: {args.folder / name} (run `make dashboards`)", file=sys.stderr)
        return 1 if differing else 0
    for name in write(args.folder):
        print(f"wrote {args.folder / name}")
    if args.render:
        return render(args.folder, args.hands)
    return 0


def render(folder: Path, hands: int) -> int:
    from tools.dashboards.live import real_run
    from tools.dashboards.render import board_png, panel_pngs

    bootstrap = os.environ.get("KAFKA_BOOTSTRAP")
    broker = ROOT / "tools" / "kafka" / "broker.sh"
    started = False
    if not bootstrap:  # the local broker, as `make demo` does (stopped again if we start it)
        if subprocess.run(["bash", str(broker), "status"], capture_output=True).returncode:
            subprocess.run(["bash", str(broker), "start"], check=True)
            started = True
        bootstrap = subprocess.run(["bash", str(broker), "bootstrap"], check=True,
                                   capture_output=True, text=True).stdout.strip()
    print(f"running the demo's load against {bootstrap} with Prometheus scraping it...",
          flush=True)
    try:
        with real_run(bootstrap, hands=hands) as run:
            for build in BOARDS:
                board = build()
                print(f"drew {board_png(board, run, folder / 'png' / f'{board.uid}.png')}")
                if board.uid == "okey101-overview":
                    for path in panel_pngs(board, run, folder / "png" / "overview"):
                        print(f"drew {path}")
    finally:
        if started:
            subprocess.run(["bash", str(broker), "stop"], check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
