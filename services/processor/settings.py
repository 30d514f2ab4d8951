"""The processor's settings: the shared ones and its own."""

from __future__ import annotations

from pydantic import Field

from okey101.app.processor.processing import FINISHED_WINDOW, OUTCOMES_PER_TABLE
from services.common.settings import ServiceSettings

SNAPSHOT_EVERY = 5000  # commands between snapshots (at a hand end, or twice as many), per
# partition; 0: none


class ProcessorSettings(ServiceSettings):
    """okey101-processor: the rules processor. Consumes commands, decides, and writes the
    events and outcomes with the consumed offsets in one Kafka transaction per
    batch."""

    program = "okey101-processor"

    group: str = Field("okey-processor", description="consumer group (and transactional "
                       "id prefix)")
    metrics_port: int = Field(9101, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
    linger_ms: float = Field(2.0, ge=0, le=1000, description="wait this long for more "
                             "commands before a transaction (fewer, larger transactions)")
    allow_stacked_deals: bool = Field(False, description="accept client seeds and stacked "
                                      "deals (tests only)")
    finished_window: int = Field(FINISHED_WINDOW, ge=1, description="finished tables per "
                                 "partition whose command ids are kept, so a late retry is "
                                 "still answered as a duplicate (bounded memory)")
    outcomes_per_table: int = Field(OUTCOMES_PER_TABLE, ge=1, description="the last "
                                    "command ids of each table (live or in the finished "
                                    "window) whose first outcomes are kept for retries; an "
                                    "older id is decided again and refused (stale_seq)")
    snapshot_every: int = Field(SNAPSHOT_EVERY, ge=0, description="0: no snapshots; "
                                "else commands per partition between "
                                "snapshots of the tables' memory (written at the next hand "
                                "end, or after twice as many commands), so a restart reads "
                                "only the log's tail")
