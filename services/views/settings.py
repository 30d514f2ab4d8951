"""The views service's settings: the shared ones and its own."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from services.common.settings import ServiceSettings


class ViewsSettings(ServiceSettings):
    """okey101-views: every view. Follow the events topic and publish, per changed table
    and seat (people's, bots' and the spectators'), the whole view and the events since the
    previous one to the player-views topic that gateways serve and bots play from."""

    program = "okey101-views"

    group: str = Field("okey-views", description="consumer group")
    metrics_port: int = Field(9108, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
    compression: Literal["zstd", "gzip", "none"] = Field(
        "zstd", description="the player-views producer's compression (a whole view repeats "
        "the house's rules and the table in every update: zstd stores them in a 31st of "
        "their bytes, and cuts the broker's and the readers' work; docs/capacity.md)")
