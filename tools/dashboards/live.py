"""A real run to look at: the demo's load (processor, timers, bots and four tables of bots)
scraped every second by the Debian `prometheus` server with the deploy configuration
(deploy/prometheus/prometheus.yml: the same jobs, the same recording and alerting rules),
the services on fresh ports. The expression check (tests/kafka/test_dashboards.py) and the
PNG panels (`make dashboards`) both query the Prometheus of such a run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from services.common.ports import free_ports
from services.demo.__main__ import SERVICES

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "prometheus"
SCRAPE_S = 1
RATE_INTERVAL = "10s"  # Grafana's $__rate_interval for this scrape interval (>= 4 scrapes)
# The demo runs these jobs, at its metrics port base + their index in SERVICES.
DEMO_JOBS = tuple(f"okey101-{name}" for name in SERVICES)


@dataclass
class RealRun:
    prometheus: str  # http://127.0.0.1:PORT
    start: float  # the demo started (seconds since the epoch)
    end: float  # the demo ended
    at: float  # the last moment every service answered: instant queries are evaluated here
    ports: dict[str, int]  # job -> the port of its /metrics in this run
    expositions: dict[str, str] = field(default_factory=dict)  # job -> its last /metrics
    demo_output: str = ""

    def get(self, path: str, **params: str | float) -> Any:
        """A Prometheus HTTP API call's `data` (raises on an error status)."""
        url = f"{self.prometheus}{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                body = json.load(response)
        except urllib.error.HTTPError as exc:
            body = json.load(exc)
        if body.get("status") != "success":
            raise ValueError(f"{path} {params}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        data = self.get("/api/v1/query", query=expr, time=self.at)
        return data["result"] if data["resultType"] in ("vector", "matrix") else [data]

    def query_range(self, expr: str, step: float = SCRAPE_S) -> list[dict[str, Any]]:
        data = self.get("/api/v1/query_range", query=expr, start=self.start, end=self.end,
                        step=step)
        return list(data["result"])


def prometheus_config(base: int) -> tuple[dict[str, Any], dict[str, int]]:
    """The deploy configuration, scraping every second the ports of this run (one target
    per job: a job the demo does not run gets a port nobody answers); and the port of each
    job."""
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    config["global"] = {**config.get("global", {}), "scrape_interval": f"{SCRAPE_S}s",
                        "evaluation_interval": f"{SCRAPE_S}s"}
    config["rule_files"] = [str((DEPLOY / f).resolve()) for f in config.get("rule_files", [])]
    ports: dict[str, int] = {}
    others = iter(range(base + len(DEMO_JOBS), base + 100))
    for job in config["scrape_configs"]:
        name = job["job_name"]
        ports[name] = base + DEMO_JOBS.index(name) if name in DEMO_JOBS else next(others)
        job["static_configs"] = [{"targets": [f"127.0.0.1:{ports[name]}"]}]
    return config, ports


@contextmanager
def real_run(bootstrap: str, hands: int = 1, timeout: float = 600) -> Iterator[RealRun]:
    """Prometheus, then the demo's load until its matches end; Prometheus stays up (for
    queries) until the block ends."""
    server = shutil.which("prometheus")
    if server is None:
        raise FileNotFoundError("the prometheus server is missing (apt-get install prometheus)")
    base = free_ports(len(DEMO_JOBS))
    web = free_ports(1)
    config, ports = prometheus_config(base)
    with tempfile.TemporaryDirectory(prefix="okey101-prometheus-") as tmp:
        (Path(tmp) / "prometheus.yml").write_text(yaml.safe_dump(config))
        log = open(Path(tmp) / "prometheus.log", "wb")  # noqa: SIM115 (closed below)
        prometheus = subprocess.Popen(
            [server, f"--config.file={tmp}/prometheus.yml", f"--storage.tsdb.path={tmp}/data",
             f"--web.listen-address=127.0.0.1:{web}"], stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{web}"
            _wait_ready(url, prometheus, Path(tmp) / "prometheus.log")
            run = _run_demo(bootstrap, hands, timeout, base, url, ports)
            yield run
        finally:
            prometheus.terminate()
            try:
                prometheus.wait(20)
            except subprocess.TimeoutExpired:
                prometheus.kill()
            log.close()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"prometheus exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError("prometheus not ready in 60 s")


def _run_demo(bootstrap: str, hands: int, timeout: float, base: int, url: str,
              ports: dict[str, int]) -> RealRun:
    env = dict(os.environ, KAFKA_BOOTSTRAP=bootstrap, PYTHONUNBUFFERED="1")
    with tempfile.TemporaryFile() as out:
        started = time.time()
        demo = subprocess.Popen(
            [sys.executable, "-m", "services.demo", "--hands", str(hands), "--timeout",
             str(timeout), "--metrics-port-base", str(base)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        run = RealRun(prometheus=url, start=started, end=started, at=started, ports=ports)
        deadline = time.monotonic() + timeout + 60
        while demo.poll() is None:
            if time.monotonic() > deadline:
                demo.kill()
                raise TimeoutError("the demo did not end")
            texts = {job: _scrape(ports[job]) for job in DEMO_JOBS}
            answered = {job: text for job, text in texts.items() if text is not None}
            run.expositions.update(answered)
            if len(answered) == len(DEMO_JOBS):
                run.at = time.time()
            time.sleep(SCRAPE_S)
        run.end = time.time()
        out.seek(0)
        run.demo_output = out.read().decode(errors="replace")
    if demo.returncode != 0:
        raise RuntimeError(f"the demo failed ({demo.returncode}):\n{run.demo_output[-3000:]}")
    return run


def _scrape(port: int) -> str | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as response:
            return str(response.read().decode())
    except OSError:
        return None
