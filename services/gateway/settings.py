"""The gateway's settings: the shared ones and its own."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field, field_validator

from okey101.app.gateway import identity
from okey101.app.gateway import websocket as W
from services.common.settings import ServiceSettings

SECRET_CHARS = 32


@dataclass(frozen=True)
class Settings:
    """What the gateway runs with, resolved from `GatewaySettings` (or given by a test)."""

    bootstrap: str
    secret: str
    prefix: str = "okey"
    host: str = "127.0.0.1"
    port: int = 8100
    guest_login: bool = False
    frame_bytes: int = 16 * 1024
    commands_per_second: float = 10.0
    command_burst: int = 20
    connections_per_account: int = 5
    queued_messages: int = 256
    hello_timeout: float = 10.0
    send_buffer: int = 128 * 1024  # the kernel's buffer per socket: bounds a frozen client
    flood_strikes: int = 200  # refusals since the bucket was last full: then it is closed
    token_max_hours: float = identity.MAX_LIFETIME / 3600  # the longest a token may live
    command_ids_kept: int = 100_000  # (account, command id)s remembered, to refuse reuse
    leaderboards_url: str = ""  # the leaderboards' HTTP API, for /api/me/standing
    recent_decisions: int = 20_000  # matchmaker decisions a partition re-read at the start

    @property
    def token_max_seconds(self) -> int:
        return int(self.token_max_hours * 3600)

    def limits(self) -> W.Limits:
        return W.Limits(frame_bytes=self.frame_bytes,
                        commands_per_second=self.commands_per_second,
                        command_burst=self.command_burst,
                        connections_per_account=self.connections_per_account,
                        queued_messages=self.queued_messages)


class GatewaySettings(ServiceSettings):
    """okey101-gateway: WebSocket and HTTP for people, and the browser table. Check
    identity tokens, turn client frames into commands, push each seat's view and each
    command's outcome."""

    program = "okey101-gateway"
    secret = frozenset({"gateway_secret"})

    group: str = Field("okey-gateway", description="not used: the gateway reads every "
                       "view and outcome partition itself")
    metrics_port: int = Field(9106, ge=0, le=65535, description="port of /metrics, "
                              "/healthz and /readyz (0: no endpoint)")
    host: str = Field("127.0.0.1", description="address of the HTTP/WebSocket endpoint")
    port: int = Field(8100, ge=0, le=65535, description="HTTP/WebSocket port (0: any free)")
    gateway_secret: str = Field("", description="the HMAC key tokens are signed with, at "
                                f"least {SECRET_CHARS} characters; required (set it in the "
                                "environment: a flag shows in the process list)")
    guest_login: bool = Field(False, description="let anyone get a token for a guest name "
                              "(demos only)")
    frame_bytes: int = Field(16 * 1024, ge=256, description="largest client frame (bytes)")
    commands_per_second: float = Field(10.0, gt=0, description="commands one connection may "
                                       "send per second, on average")
    command_burst: int = Field(20, ge=1, description="commands one connection may send at "
                               "once")
    connections_per_account: int = Field(5, ge=1, description="open connections per account")
    queued_messages: int = Field(256, ge=1, description="frames queued for one client "
                                 "before it is dropped as too slow")
    send_buffer: int = Field(128 * 1024, ge=1024, description="kernel send buffer per "
                             "socket (bytes): what a frozen client can hold")
    flood_strikes: int = Field(200, ge=1, description="commands refused as rate_limited "
                               "since the connection last paused long enough to refill its "
                               "burst; the next closes it (1008)")
    token_max_hours: float = Field(24.0, gt=0, description="the longest lifetime a token "
                                   "may have (exp - iat, and exp - now); a longer-lived one "
                                   "is refused (token_lifetime). `okey101 token` reads "
                                   "OKEY_TOKEN_MAX_HOURS too")
    command_ids_kept: int = Field(100_000, ge=1, description="(account, command id)s "
                                  "remembered, so that an id reused for another command is "
                                  "refused (id_reused) rather than answered as a retry")
    recent_decisions: int = Field(20_000, ge=0, description="matchmaker decisions a "
                                  "partition re-read at the start for the quick-play waits "
                                  "(a tournament not finished is re-read whole however old)")
    leaderboards_url: str = Field("", description="the leaderboards' HTTP API "
                                  "(http://host:9110), read for the lobby's own standing "
                                  "(/api/me/standing); empty: that route answers 404")

    @field_validator("gateway_secret")
    @classmethod
    def _long_enough(cls, value: str) -> str:
        if len(value) < SECRET_CHARS:
            raise ValueError(f"set OKEY_GATEWAY_SECRET to at least {SECRET_CHARS} characters "
                             "(the key tokens are signed with)")
        return value

    def gateway(self) -> Settings:
        """The gateway's own settings object (what `Gateway` is built from)."""
        return Settings(
            bootstrap=self.bootstrap, secret=self.gateway_secret, prefix=self.prefix,
            host=self.host, port=self.port, guest_login=self.guest_login,
            frame_bytes=self.frame_bytes, commands_per_second=self.commands_per_second,
            command_burst=self.command_burst,
            connections_per_account=self.connections_per_account,
            queued_messages=self.queued_messages, send_buffer=self.send_buffer,
            flood_strikes=self.flood_strikes, token_max_hours=self.token_max_hours,
            command_ids_kept=self.command_ids_kept, leaderboards_url=self.leaderboards_url,
            recent_decisions=self.recent_decisions)
