"""The leaderboards' settings: the shared ones and their own."""

from __future__ import annotations

from pydantic import Field

from services.common.settings import ServiceSettings


class LeaderboardsSettings(ServiceSettings):
    """okey101-leaderboards: every house's standings. Read every events partition from the
    beginning (no consumer group: each instance is a whole replica), fold the finished
    matches into each house's board, write every changed standing to the compacted
    standings topic and serve the boards over HTTP."""

    program = "okey101-leaderboards"

    group: str = Field("okey-leaderboards", description="not used: every instance reads "
                       "every events partition itself")
    metrics_port: int = Field(9104, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
    http_host: str = Field("127.0.0.1", description="address of the boards' HTTP API")
    http_port: int = Field(9110, ge=0, le=65535, description="port of the boards' HTTP API "
                           "(0: none)")
    horizon: int = Field(50_000, ge=1, description="how many recent matches a late match "
                         "may be put before")
