"""The views service's settings: the shared ones and its own."""

from __future__ import annotations

from pydantic import Field

from services.common.settings import ServiceSettings


class ViewsSettings(ServiceSettings):
    """okey101-views: the player views. Follow the events topic and publish, per changed
    table and seat, the whole view and the events since the previous one to the
    player-views topic that gateways serve."""

    program = "okey101-views"

    group: str = Field("okey-views", description="consumer group")
    metrics_port: int = Field(9108, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
