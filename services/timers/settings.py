"""The turn timers' settings: the shared ones and their own."""

from __future__ import annotations

from pydantic import Field

from services.common.settings import ServiceSettings


class TimersSettings(ServiceSettings):
    """okey101-timers: the turn timers. Follow the events topic, know each table's turn
    deadline and send the house's TimeOut command when it passes."""

    program = "okey101-timers"

    group: str = Field("okey-timers", description="consumer group")
    metrics_port: int = Field(9102, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
    tick_ms: float = Field(100.0, gt=0, le=60000, description="how often due turns are "
                           "looked for")
