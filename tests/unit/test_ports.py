"""Ports the demo, tests and benchmarks hand their services: free, and out of the range the
kernel gives outgoing connections (a client could take such a port before the bind)."""

from __future__ import annotations

import socket

from services.common import ports


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
