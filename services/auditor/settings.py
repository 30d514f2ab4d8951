"""The auditor's settings: the shared ones and its own."""

from __future__ import annotations

from pydantic import Field

from okey101.audit.collusion import MAX_ACCOUNTS, MAX_PAIRS
from services.common.settings import ServiceSettings


class AuditorSettings(ServiceSettings):
    """okey101-auditor: the fairness auditor. Follow the events topic, verify every hand
    against its commitment and deal, look for collusion in shared matches, and write the
    findings to the audit topic."""

    program = "okey101-auditor"

    group: str = Field("okey-auditor", description="consumer group")
    metrics_port: int = Field(9107, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
    collusion: bool = Field(True, description="measure collusion and abuse (off: verify "
                            "hands only)")
    max_pairs: int = Field(MAX_PAIRS, ge=1, description="ordered pairs of accounts whose "
                           "collusion figures are kept, the least recently met leaving "
                           "(bounded memory: a few KB a pair)")
    max_accounts: int = Field(MAX_ACCOUNTS, ge=1, description="accounts whose figures are "
                              "kept, the least recently seen leaving")
