"""The matchmaker's settings: the shared ones and its own."""

from __future__ import annotations

from pydantic import Field

from services.common.settings import ServiceSettings


class MatchmakerSettings(ServiceSettings):
    """okey101-matchmaker: halls, quick play and tournaments. Reads the requests topic,
    writes its decisions and the table commands they call for in one transaction."""

    program = "okey101-matchmaker"

    group: str = Field("okey-matchmaker", description="consumer group")
    metrics_port: int = Field(9109, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
    tick_ms: int = Field(200, ge=10, le=10000, description="how often waiting players and "
                         "tournaments are looked at")
    bot_wait_ms: int = Field(20000, ge=0, le=3_600_000, description="a seat still empty "
                             "after this long goes to a bot (where the house allows bots)")
    window_base: float = Field(2.0, ge=0, description="skill (ordinal) distance accepted "
                               "at once")
    window_per_s: float = Field(1.0, ge=0, description="and this much more per second "
                                "waited")
    window_max: float = Field(60.0, ge=0, description="the widest skill window")
    relay: bool = Field(True, description="relay the end of every table the matchmaker "
                        "seated from the events topic to the requests topic (one instance "
                        "is enough; duplicates are harmless)")
