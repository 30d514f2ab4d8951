"""The gateway's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

CONNECTIONS = Gauge("okey_gateway_connections", "Open WebSocket connections (authenticated)")
COMMANDS = Counter("okey_gateway_commands_total", "Commands from clients, by type and result "
                   "(accepted, rejected, refused: answered by the gateway itself)",
                   ["type", "result"])
REFUSED = Counter("okey_gateway_refusals_total", "Frames refused by the gateway, by code",
                  ["code"])
DROPPED = Counter("okey_gateway_dropped_clients_total", "Clients disconnected for reading "
                  "too slowly (their queue was full)")
UPDATES = Counter("okey_gateway_updates_total", "Player-view updates read from Kafka")
FRAMES_OUT = Counter("okey_gateway_frames_out_total", "Frames queued for clients")
OUTCOME_LATENCY = Histogram(
    "okey_gateway_command_seconds", "From a client's command to its outcome being queued",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
