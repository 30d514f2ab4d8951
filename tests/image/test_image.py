"""The OCI image (`make image`, deploy/image/build.sh) runs the rules processor against the
real broker: a whole hand's commands in, the outcomes and events the in-process fold
decides out, from a container of the image with the host's network.

Skipped when podman is missing or the image was not built (`make image`); `make
test-image` builds it and runs this. How podman runs here (as root, on this machine):
runc, not crun (crun 1.8 refuses the hybrid cgroup v1/v2 layout), and explicit
`--ulimit`s at or below this machine's limits (root here lacks CAP_SYS_RESOURCE, and
podman's defaults would raise them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
import uuid
from collections.abc import Iterator

import pytest

from okey101.app import topics
from okey101.table import messages as E
from services.common.kafka import provision
from tests.kafka.support import ROOT, check_log, fresh_tag, publish, read_all, scenario_commands
from tools import gen_kubernetes

pytestmark = [pytest.mark.image, pytest.mark.kafka]  # the broker too: out of test-unit

IMAGE = os.environ.get("OKEY_IMAGE", gen_kubernetes.IMAGE)  # the manifests' image
RUNTIME = os.environ.get("OKEY_PODMAN_RUNTIME", "runc")
PODMAN = shutil.which("podman")


def _podman(
    *args: str, check: bool = True, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    assert PODMAN
    return subprocess.run(
        [PODMAN, "--runtime", RUNTIME, *args],
        capture_output=True,
        text=True,
        check=check,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _image_present() -> bool:
    return PODMAN is not None and _podman("image", "exists", IMAGE, check=False).returncode == 0


needs_image = pytest.mark.skipif(
    not _image_present(),
    reason=(
        "podman is not installed (apt-get install podman runc)"
        if PODMAN is None
        else f"no image {IMAGE}: build it with `make image`"
    ),
)

# as the Deployments run it (deploy/kubernetes: readOnlyRootFilesystem, no capabilities,
# no privilege escalation), with the host's network to reach the local broker
RUN = (
    "run",
    "--rm",
    "--network",
    "host",
    "--read-only",
    "--read-only-tmpfs=false",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--ulimit",
    "nofile=10000:10000",
    "--ulimit",
    "nproc=4096:4096",
)


class Container:
    def __init__(self, *args: str) -> None:
        self.name = f"okey101-test-{uuid.uuid4().hex[:8]}"
        self.args = [*RUN, "--name", self.name, "-e", "OKEY_LOG_LEVEL=info", IMAGE, *args]
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        assert PODMAN
        self.proc = subprocess.Popen(
            [PODMAN, "--runtime", RUNTIME, *self.args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def stop(self) -> str:
        """SIGTERM (podman stop), then the container's output."""
        assert self.proc is not None
        _podman("stop", "--time", "30", self.name, check=False, timeout=60)
        try:
            out, _ = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            _podman("kill", self.name, check=False)
            out, _ = self.proc.communicate(timeout=30)
        return out


@pytest.fixture
def container() -> Iterator[list[Container]]:
    started: list[Container] = []
    yield started
    for c in started:
        if c.proc is not None and c.proc.poll() is None:
            c.stop()


@needs_image
def test_the_image_runs_as_a_non_root_user_with_no_compiler_or_pip() -> None:
    out = _podman(
        *RUN,
        "--entrypoint",
        "/bin/sh",
        IMAGE,
        "-c",
        "id -u; id -g; for t in gcc cc make pip pip3 apt-get; do command -v $t || true; done",
    ).stdout.split()
    assert out[:2] == ["10101", "10101"], out
    assert out[2:] == [], f"build tools in the image: {out[2:]}"


@needs_image
def test_the_entry_point_runs_the_cli_and_names_the_services_for_an_unknown_one() -> None:
    done = _podman(*RUN, IMAGE, "dealer", check=False)
    assert done.returncode == 2
    assert "no service named 'dealer'" in done.stderr
    assert "processor" in done.stderr
    cli = _podman(*RUN, IMAGE, "cli", "--help")
    assert "101 Okey rules engine tools" in cli.stdout


@needs_image
def test_the_image_solves_through_the_compiled_core_of_this_tree() -> None:
    code = ("import okey101_native; from okey101 import native, solver; "
            "assert native.core is okey101_native and solver.most_pairs is native.most_pairs; "
            "print(okey101_native.core_version())")
    out = _podman(*RUN, "--entrypoint", "/opt/okey101/bin/python", IMAGE, "-c", code).stdout
    cargo = tomllib.loads((ROOT / "native" / "Cargo.toml").read_text())
    assert out.strip() == cargo["package"]["version"], out


@needs_image
async def test_the_processor_from_the_image_plays_a_whole_hand_on_the_broker(
    kafka_bootstrap: str, container: list[Container]
) -> None:
    tag = fresh_tag()
    prefix, group = f"t{tag}", f"proc-{tag}"
    await provision(kafka_bootstrap, prefix)
    doc = json.loads((ROOT / "tests" / "kafka" / "whole_hand.json").read_text())
    commands, final = scenario_commands(doc, f"{prefix}-hand")
    proc = Container(
        "processor",
        "--bootstrap",
        kafka_bootstrap,
        "--prefix",
        prefix,
        "--group",
        group,
        "--metrics-port",
        "0",
        "--allow-stacked-deals",
        "--instance-id",
        "image",
    )
    container.append(proc)
    proc.start()
    log = ""
    try:
        await publish(kafka_bootstrap, prefix, commands)
        outcomes = await read_all(
            kafka_bootstrap, topics.OUTCOMES.name(prefix), until=len(commands), timeout=120
        )
        events = await read_all(kafka_bootstrap, topics.EVENTS.name(prefix))
    finally:
        log = proc.stop()
    decoded = [E.outcome_decoder.decode(v) for v in outcomes]
    assert [o.command_id for o in decoded] == [c.command_id for c in commands], log[-3000:]
    assert all(o.accepted for o in decoded), log[-3000:]
    played = [E.event_decoder.decode(v) for v in events]
    assert [(e.finish, e.scores) for e in played if isinstance(e, E.HandEnded)] == [
        ("elden", [-202, 404, 404, 404])
    ]
    check_log(outcomes, events, {f"{prefix}-hand": (commands, final)})
    # the container's processor decided them, and stopped cleanly on podman stop's SIGTERM
    assert f'"group": "{group}"' in log and "processor_started" in log, log[-3000:]
    assert "processor_stopped" in log, log[-3000:]
