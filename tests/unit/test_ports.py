"""Ports the demo, tests and benchmarks hand their services: free, and out of the range the
kernel gives outgoing connections (a client could take such a port before the bind)."""

from __future__ import annotations

import socket
from pathlib import Path

from services.common import ports
from services.common.stack import Service


def test_free_ports_are_consecutive_free_and_below_the_ephemeral_range() -> None:
    low, high = ports._listening_range()
    first = ports.free_ports(10)
    assert low <= first and first + 10 <= high
    assert all(ports.is_free(first + i) for i in range(10))


def test_a_preferred_port_is_kept_when_free_and_replaced_when_taken() -> None:
    preferred = ports.free_ports(1)
    assert ports.free_port(preferred) == preferred
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", preferred))
        taken.listen()
        other = ports.free_port(preferred)
    assert other != preferred and other < ports._listening_range()[1]


def test_a_service_whose_chosen_metrics_port_is_taken_starts_again_on_another(
        tmp_path: Path) -> None:
    """Another process may bind the port free_port chose before the service does: the
    service logs metrics_port_unavailable and exits, and the stack starts it again on a
    new port (not so for a port the caller gave)."""
    service = Service("timers", "127.0.0.1:1", "ports-test", log=tmp_path / "timers.log")
    given = Service("timers", "127.0.0.1:1", "ports-test", log=tmp_path / "given.log",
                    port=service.port)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", service.port))
        taken.listen()
        clashed = service.port
        try:
            for s in (service, given):
                s.start()
                assert s.proc is not None
                assert s.proc.wait(60) == 1
            assert not given.restarted_on_another_port()
            assert service.restarted_on_another_port()
            assert service.port != clashed and service.running
            assert f"--metrics-port {service.port}" in " ".join(service.args)
        finally:
            service.kill()
            given.kill()
