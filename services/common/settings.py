"""One settings object per service: flags and `OKEY_*` variables in one place.

`ServiceSettings` holds what every service shares (where Kafka is, the topic prefix, the
consumer group, the metrics/health endpoint, the log level, the instance id); each service
subclasses it with its own options and defaults (`services/<name>/settings.py`). A field
`linger_ms` is the flag `--linger-ms` and the variable `OKEY_LINGER_MS`; a flag beats a
variable, a variable beats the default. `bootstrap` also reads `KAFKA_BOOTSTRAP` (after
`OKEY_BOOTSTRAP`), then `KAFKA_PORT` (the local broker `tools/kafka/broker.sh` starts,
127.0.0.1:KAFKA_PORT), as the tools and tests do. `--help` shows each default.

`load(cls, argv)` validates everything at start and returns the settings, or a list of
lines, one per bad value, naming the flag and the variable.
"""

from __future__ import annotations

import ipaddress
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    CliApp,
    CliSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

DEFAULT_BOOTSTRAP = "127.0.0.1:19092"
ENV_PREFIX = "OKEY_"
_HOST_PORT = re.compile(r"^[A-Za-z0-9._\-\[\]:]+:\d{1,5}$")
_NAME = re.compile(r"^[A-Za-z0-9._\-]+$")
LogLevel = Literal["debug", "info", "warning", "error"]


def _local_broker() -> str | None:
    """127.0.0.1:KAFKA_PORT when KAFKA_PORT is set (the port broker.sh starts on)."""
    port = os.environ.get("KAFKA_PORT", "").strip()
    return f"127.0.0.1:{port}" if port else None


class _KafkaBootstrapEnv(PydanticBaseSettingsSource):
    """`KAFKA_BOOTSTRAP`, read after `OKEY_BOOTSTRAP`, then `KAFKA_PORT`, before the
    default; and the older variable names a service keeps (`ServiceSettings.also_read`),
    each read after the field's own `OKEY_<NAME>`."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return os.environ.get("KAFKA_BOOTSTRAP") or _local_broker(), "KAFKA_BOOTSTRAP", False

    def __call__(self) -> dict[str, Any]:
        found = {"bootstrap": os.environ.get("KAFKA_BOOTSTRAP") or _local_broker()}
        also: dict[str, str] = getattr(self.settings_cls, "also_read", {})
        found |= {name: os.environ.get(older) for name, older in also.items()}
        return {name: value for name, value in found.items() if value}


class ServiceSettings(BaseSettings):
    """Options every service takes."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="ignore", cli_kebab_case=True, cli_implicit_flags=True,
        cli_hide_none_type=True, cli_avoid_json=True, cli_exit_on_error=False,
        validate_default=True)

    program: ClassVar[str] = "okey101-service"  # the console script's name
    # field -> an older variable it also reads (after OKEY_<NAME>), kept for deployments
    also_read: ClassVar[dict[str, str]] = {}
    # fields whose value a bad-value line must not repeat
    secret: ClassVar[frozenset[str]] = frozenset()

    bootstrap: str = Field(DEFAULT_BOOTSTRAP, description="Kafka bootstrap servers, "
                           "host:port[,host:port...]; KAFKA_PORT=N alone means 127.0.0.1:N")
    prefix: str = Field("okey", description="topic name prefix")
    group: str = Field("okey-service", description="consumer group")
    metrics_port: int = Field(0, ge=0, le=65535, description="port of /metrics, /healthz "
                              "and /readyz (0: no endpoint)")
    metrics_addr: str = Field("127.0.0.1", description="address the endpoint listens on")
    log_level: LogLevel = Field("info", description="JSON log level")
    stall_seconds: float = Field(300, ge=0, le=86400, description="a main loop without "
                                 "progress this long is stalled: /readyz 503, exit status 1 "
                                 "(0: no watchdog)")
    stop_grace_seconds: float = Field(20, gt=0, le=3600, description="SIGTERM ends the "
                                      "process within this, stopped in order or not "
                                      "(below the orchestrator's grace period)")
    instance_id: str | None = Field(None, description="static group membership id "
                                    "(KIP-345): a restarted instance takes its partitions "
                                    "back at once")

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        for name, field in cls.model_fields.items():
            tag = f"[{variable(name, cls.also_read)}]"
            if tag not in (field.description or ""):
                field.description = f"{field.description or ''} {tag}".strip()
        cls.model_rebuild(force=True)

    @classmethod
    def settings_customise_sources(
            cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _KafkaBootstrapEnv(settings_cls))

    @field_validator("bootstrap")
    @classmethod
    def _servers(cls, value: str) -> str:
        servers = [s.strip() for s in value.split(",")]
        bad = [s for s in servers if not _HOST_PORT.match(s) or int(s.rsplit(":", 1)[1]) > 65535]
        if bad:
            raise ValueError(f"expected host:port[,host:port...], not {bad[0]!r}")
        return ",".join(servers)

    @field_validator("prefix", "group")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("letters, digits, '.', '_' and '-' only")
        return value

    @field_validator("metrics_addr")
    @classmethod
    def _address(cls, value: str) -> str:
        if value != "localhost":
            ipaddress.ip_address(value)  # ValueError names the value
        return value


S = TypeVar("S", bound=ServiceSettings)


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def variable(name: str, also_read: dict[str, str] | None = None) -> str:
    """The environment variable(s) of a field."""
    if name == "bootstrap":
        return "OKEY_BOOTSTRAP or KAFKA_BOOTSTRAP"
    older = (also_read or {}).get(name)
    return f"{ENV_PREFIX}{name.upper()}" + (f" or {older}" if older else "")


def problems(error: ValidationError, settings_class: type[ServiceSettings] | None = None
             ) -> list[str]:
    """One line per bad value: the flag, the variable, the value and what is wrong (a
    secret's value is not repeated)."""
    also = settings_class.also_read if settings_class else {}
    hidden = settings_class.secret if settings_class else frozenset()
    lines = []
    for item in error.errors(include_url=False):
        name = str(item["loc"][0]) if item["loc"] else "?"
        message = str(item["msg"]).removeprefix("Value error, ")
        shown = "(hidden)" if name in hidden else repr(item.get("input"))
        lines.append(f"bad setting {flag(name)} ({variable(name, also)}) = {shown}: {message}")
    return lines


def load(cls: type[S], argv: Sequence[str] | None = None) -> S | list[str]:
    """The settings from `argv` (default: sys.argv[1:]), the environment and the defaults;
    or the lines saying what is wrong. `--help` prints and exits 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        source: CliSettingsSource[Any] = CliSettingsSource(cls, cli_prog_name=cls.program)
        settings = CliApp.run(cls, cli_args=args, cli_settings_source=source)
    except ValidationError as exc:
        return problems(exc, cls)
    except SettingsError as exc:
        return [f"bad arguments: {_first_line(exc)}"]
    return settings


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else repr(exc)).removeprefix("error parsing CLI: ")
