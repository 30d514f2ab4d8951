"""`okey101 token PLAYER`: a signed token for the gateway (local use and tests)."""

from __future__ import annotations

import argparse
import os
import time

from okey101.app.gateway import identity
from okey101.errors import MalformedInput

MAX_HOURS_VARIABLE = "OKEY_TOKEN_MAX_HOURS"  # the gateway's --token-max-hours, as it reads it


def max_hours() -> float:
    """The longest lifetime a gateway accepts, as the gateway's own setting says (24 h)."""
    raw = os.environ.get(MAX_HOURS_VARIABLE, "")
    if not raw:
        return identity.MAX_LIFETIME / 3600
    try:
        hours = float(raw)
    except ValueError:
        raise MalformedInput(f"{MAX_HOURS_VARIABLE}={raw!r}: a number of hours") from None
    if not hours > 0:
        raise MalformedInput(f"{MAX_HOURS_VARIABLE}={raw!r}: must be positive")
    return hours


def _token(args: argparse.Namespace) -> int:
    secret = os.environ.get("OKEY_GATEWAY_SECRET", "")
    if len(secret) < 32:
        raise MalformedInput("OKEY_GATEWAY_SECRET must be set (32+ characters): the key the "
                             "gateway checks tokens with")
    limit = max_hours()
    hours = limit if args.hours is None else args.hours
    if hours <= 0:
        raise MalformedInput(f"--hours {hours:g}: must be positive")
    if hours > limit:
        raise MalformedInput(f"--hours {hours:g}: a gateway accepts tokens valid for at "
                             f"most {limit:g} h ({MAX_HOURS_VARIABLE}, its "
                             "--token-max-hours)")
    try:
        print(identity.mint(secret, args.player, int(time.time()), int(hours * 3600),
                            max_lifetime=int(limit * 3600), roles=tuple(args.role)))
    except ValueError as exc:
        raise MalformedInput(str(exc)) from None
    return 0


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    token = commands.add_parser("token", help="a signed token for the gateway (HS256 JWT, "
                                "key from OKEY_GATEWAY_SECRET)")
    token.add_argument("player", help="the player id the token names")
    token.add_argument("--hours", type=float, default=None, help="valid for this long "
                       f"(default and most: the gateway's token lifetime, "
                       f"{MAX_HOURS_VARIABLE}, 24 h unless set)")
    token.add_argument("--role", action="append", default=[], help="a role the token "
                       "carries (repeatable): vip opens Has Oda (north-sultan)")
    token.set_defaults(run=_token)
