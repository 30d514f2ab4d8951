"""Who a connection is: a signed token (JWT, HMAC-SHA256) naming the player.

The gateway verifies the token a client sends in its first frame and stamps every command
with the player it names; `okey101 token PLAYER` mints one for local use. Pure: the time
arrives as an argument (the token's `exp` is checked against it).
"""

from __future__ import annotations

import re

import jwt

ALGORITHM = "HS256"
PLAYER_ID = re.compile(r"^[^\W_][\w.@-]{0,63}$")  # letters and digits of any script


class TokenRefused(Exception):
    """Why a token was refused: `code` is `bad_token` or `token_expired`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def mint(secret: str, player_id: str, now: int, ttl: int = 24 * 3600) -> str:
    """A token for `player_id`, valid `ttl` seconds from `now` (seconds since the epoch)."""
    if not PLAYER_ID.match(player_id):
        raise ValueError(f"player id {player_id!r}: 1-64 letters, digits, _ . @ -, "
                         "starting with a letter or digit")
    return jwt.encode({"sub": player_id, "iat": now, "exp": now + ttl}, secret,
                      algorithm=ALGORITHM)


def verify(secret: str, token: str, now: int) -> str:
    """The player a token names, or TokenRefused."""
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM],
                            options={"verify_exp": False, "require": ["sub", "exp"]})
    except jwt.PyJWTError as exc:
        raise TokenRefused("bad_token", f"token refused: {exc}") from None
    exp, sub = claims.get("exp"), claims.get("sub")
    if not isinstance(exp, int) or not isinstance(sub, str) or not PLAYER_ID.match(sub):
        raise TokenRefused("bad_token", "token refused: exp or sub is malformed")
    if exp <= now:
        raise TokenRefused("token_expired", f"token expired {now - exp} s ago")
    return sub
