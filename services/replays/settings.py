"""The replays service's settings: the shared ones and its own."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from services.common.settings import ServiceSettings


class ReplaysSettings(ServiceSettings):
    """okey101-replays: the table directory and replays over HTTP. Fold the events topic
    into the compacted directory topic (one entry per table, with its events' partition
    and offsets) and answer replays from each table's offset range."""

    program = "okey101-replays"
    also_read: ClassVar[dict[str, str]] = {"auditor": "OKEY_REPLAYS_AUDITOR"}

    group: str = Field("okey-replays", description="consumer group")
    metrics_port: int = Field(9105, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
    http_host: str = Field("127.0.0.1", description="address of the HTTP API")
    http_port: int = Field(9180, ge=0, le=65535, description="port of the HTTP API")
    auditor: bool = Field(False, description="serve server visibility (the deal, every "
                          "rack, which seats are bots) and seat views of live tables: for "
                          "auditors' instances only")
    readers: int = Field(2, ge=1, le=64, description="consumers for range reads")
