"""`okey101 token PLAYER`: a signed token for the gateway (local use and tests)."""

from __future__ import annotations

import argparse
import os
import time

from okey101.app import identity
from okey101.errors import MalformedInput


def _token(args: argparse.Namespace) -> int:
    secret = os.environ.get("OKEY_GATEWAY_SECRET", "")
    if len(secret) < 32:
        raise MalformedInput("OKEY_GATEWAY_SECRET must be set (32+ characters): the key the "
                             "gateway checks tokens with")
    if args.hours <= 0:
        raise MalformedInput(f"--hours {args.hours}: must be positive")
    try:
        print(identity.mint(secret, args.player, int(time.time()), int(args.hours * 3600)))
    except ValueError as exc:
        raise MalformedInput(str(exc)) from None
    return 0


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    token = commands.add_parser("token", help="a signed token for the gateway (HS256 JWT, "
                                "key from OKEY_GATEWAY_SECRET)")
    token.add_argument("player", help="the player id the token names")
    token.add_argument("--hours", type=float, default=24, help="valid for this long")
    token.set_defaults(run=_token)
