"""Free local ports for the services a demo, a test or a benchmark starts.

They are chosen below the kernel's ephemeral range: a port chosen there may be taken by
any outgoing connection (a Kafka client's, say) between this check and the service's bind.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST = 10000


def free_ports(count: int) -> int:
    """The first of `count` consecutive free ports."""
    low, high = _listening_range()
    rng = random.Random()
    for _ in range(500):
        first = rng.randrange(low, high - count)
        if all(is_free(first + i) for i in range(count)):
            return first
    raise OSError(f"no {count} consecutive free ports in {low}-{high}")


def free_port(preferred: int | None = None) -> int:
    """`preferred` when it is free, else any free port."""
    if preferred is not None and is_free(preferred):
        return preferred
    return free_ports(1)


def is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _listening_range() -> tuple[int, int]:
    """Ports no outgoing connection is given: from LOWEST up to the ephemeral range."""
    try:
        ephemeral = int(EPHEMERAL.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        ephemeral = 32768  # Linux's default
    return LOWEST, max(ephemeral, LOWEST + 100)
