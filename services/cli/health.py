"""`okey101 health TARGET`: ask a service's /healthz (or /readyz) whether it is alive
(ready); the systemd units use it after a start and from their health timer.

Exit status 0 when the endpoint answers 200 (within --wait seconds), 1 otherwise, with one
line saying what answered. TARGET is SERVICE-PORT (processor-9101, as the health units
name their instances), HOST:PORT or PORT. With --restart, a failed check restarts the unit
a SERVICE-PORT target names (processor-9101: okey101-processor@9101.service).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from okey101.errors import MalformedInput

_SERVICE_PORT = re.compile(r"^([a-z][a-z0-9_]*)-(\d{1,5})$")


def register(commands: Any) -> None:
    health = commands.add_parser("health", help="check a service's /healthz or /readyz",
                                 description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    health.add_argument("target", help="SERVICE-PORT (processor-9101) or [HOST:]PORT")
    health.add_argument("--ready", action="store_true", help="ask /readyz instead of /healthz")
    health.add_argument("--wait", type=float, default=0, help="keep asking this many seconds")
    health.add_argument("--restart", action="store_true",
                        help="restart the unit okey101-SERVICE@PORT on failure")
    health.set_defaults(run=run)


def parse_target(target: str) -> tuple[str | None, str, int]:
    """(service or None, host, port) of `processor-9101`, `127.0.0.1:9101` or `9101`."""
    named = _SERVICE_PORT.match(target)
    service, host, port = (named.group(1), "127.0.0.1", named.group(2)) if named else \
        (None, *target.rpartition(":")[::2])
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise MalformedInput(f"target {target!r}: expected SERVICE-PORT, HOST:PORT or PORT")
    return service, host or "127.0.0.1", int(port)


def probe(url: str, timeout: float = 2.0) -> tuple[bool, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status == 200, f"{response.status} {response.read(200).decode()}"
    except urllib.error.HTTPError as exc:
        return False, f"{exc.code} {exc.read(200).decode(errors='replace')}"
    except OSError as exc:
        return False, f"no answer: {exc}"


def run(args: argparse.Namespace) -> int:
    service, host, port = parse_target(args.target)
    url = f"http://{host}:{port}/{'readyz' if args.ready else 'healthz'}"
    deadline = time.monotonic() + args.wait
    while True:
        ok, said = probe(url)
        if ok or time.monotonic() >= deadline:
            break
        time.sleep(0.5)
    print(f"{url}: {said.strip()}", file=sys.stdout if ok else sys.stderr)
    if not ok and args.restart:
        if service is None:
            raise MalformedInput(f"--restart needs SERVICE-PORT, not {args.target!r}")
        unit = f"okey101-{service}@{port}.service"
        print(f"restarting {unit}", file=sys.stderr)
        subprocess.run(["systemctl", "restart", "--no-block", unit], check=False)
    return 0 if ok else 1
