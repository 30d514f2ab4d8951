"""A real Prometheus server scrapes the processor; the deploy configuration is valid."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from services.common.kafka import provision
from services.common.ports import free_port
from tests.kafka.support import ROOT, fresh_tag, publish, read_all, record_timeout_match

PROMETHEUS = shutil.which("prometheus")
pytestmark = pytest.mark.skipif(PROMETHEUS is None, reason="the prometheus package is missing")


def _query(port: int, expr: str) -> list[dict]:  # type: ignore[type-arg]
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)["data"]["result"]  # type: ignore[no-any-return]


def test_the_deploy_prometheus_configuration_and_alerts_are_valid() -> None:
    promtool = shutil.which("promtool")
    assert promtool is not None
    config = ROOT / "deploy" / "prometheus" / "prometheus.yml"
    done = subprocess.run([promtool, "check", "config", str(config)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr


async def test_prometheus_scrapes_the_processor_commands_by_type_and_result(
        kafka_bootstrap: str) -> None:
    prefix = f"t{fresh_tag()}"
    await provision(kafka_bootstrap, prefix)
    commands, _ = record_timeout_match(f"{prefix}-m", 5)
    metrics_port, web_port = free_port(), free_port()
    processor = subprocess.Popen(
        [sys.executable, "-m", "services.processor", "--bootstrap", kafka_bootstrap,
         "--prefix", prefix, "--group", f"{prefix}-g", "--metrics-port", str(metrics_port),
         "--allow-stacked-deals"], cwd=ROOT, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "prometheus.yml"
        config.write_text(
            "global: {scrape_interval: 1s}\n"
            "scrape_configs:\n"
            f"  - job_name: okey101-processor\n"
            f"    static_configs: [{{targets: ['127.0.0.1:{metrics_port}']}}]\n")
        server = subprocess.Popen(
            [str(PROMETHEUS), f"--config.file={config}", f"--storage.tsdb.path={tmp}/data",
             f"--web.listen-address=127.0.0.1:{web_port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            await publish(kafka_bootstrap, prefix, commands)
            await read_all(kafka_bootstrap, f"{prefix}.outcomes", until=len(commands))
            want = {"timeout": sum(1 for c in commands if type(c).__name__ == "TimeOut")}
            for _ in range(60):
                await asyncio.sleep(1)
                try:
                    rows = _query(web_port, 'okey_commands_total{result="accepted"}')
                    up = _query(web_port, 'up{job="okey101-processor"}')
                except OSError:
                    continue
                seen = {r["metric"]["type"]: int(float(r["value"][1])) for r in rows}
                if seen.get("timeout") == want["timeout"]:
                    break
            else:
                pytest.fail(f"prometheus never saw the processor's commands: {seen}")
            assert up and up[0]["value"][1] == "1"
            assert seen["create_table"] == 1 and seen["sit"] == 4 and seen["start_match"] == 1
            latency = _query(web_port, "okey_command_latency_seconds_count")
            assert latency and int(float(latency[0]["value"][1])) == len(commands)
        finally:
            server.terminate()
            processor.terminate()
            server.wait(10)
            processor.wait(30)
