"""The bots' settings: the shared ones and their own."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from services.common.settings import ServiceSettings


class BotsSettings(ServiceSettings):
    """okey101-bots: the bots. Read the player views of the bot seats and play them as a
    gateway would; hand empty seats to bots where the house allows them."""

    program = "okey101-bots"

    group: str = Field("okey-bots", description="consumer group")
    metrics_port: int = Field(9103, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
    level: Literal[1, 2, 3, 4] = Field(2, description="level of the bots this service seats")
    level4_budget_ms: float = Field(35.0, gt=0, le=200, description="level 4: the CPU "
                                    "time a decision may search for (this process's)")
    level4_playouts: int = Field(200, ge=0, le=100000, description="level 4: the most "
                                 "playouts a decision (0: level 3's moves, no search)")
    think_ms: float = Field(0.0, ge=0, le=60000, description="pause before each move")
    fill_seats: bool = Field(True, description="hand empty seats to bots where the house "
                             "allows them")
