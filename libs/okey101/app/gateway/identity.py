"""Who a connection is: a signed token (JWT, HMAC-SHA256) naming the player.

The gateway verifies the token a client sends in its first frame and stamps every command
with the player it names; `okey101 token PLAYER` mints one for local use. A token lives
at most `max_lifetime` seconds (the gateway's `token_max_hours`, 24 h by default): a
longer-lived one is refused even when its signature is good, so a leaked token is good for
a day, not for years. Pure: the time arrives as an argument (the token's `exp` is checked
against it).
"""

from __future__ import annotations

import re

import jwt

ALGORITHM = "HS256"
PLAYER_ID = re.compile(r"^[^\W_][\w.@-]{0,63}$")  # letters and digits of any script
MAX_LIFETIME = 24 * 3600  # seconds: the longest a token may be valid, by default


class TokenRefused(Exception):
    """Why a token was refused: `code` is `bad_token`, `token_expired` or
    `token_lifetime`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def mint(secret: str, player_id: str, now: int, ttl: int = MAX_LIFETIME,
         max_lifetime: int = MAX_LIFETIME, roles: tuple[str, ...] = ()) -> str:
    """A token for `player_id`, valid `ttl` seconds from `now` (seconds since the epoch);
    ValueError for a ttl past `max_lifetime` (no gateway would accept it)."""
    if not 0 < ttl <= max_lifetime:
        raise ValueError(f"a token lives 1 s to {max_lifetime / 3600:g} h, not {ttl} s")
    if not PLAYER_ID.match(player_id):
        raise ValueError(f"player id {player_id!r}: 1-64 letters, digits, _ . @ -, "
                         "starting with a letter or digit")
    claims: dict[str, object] = {"sub": player_id, "iat": now, "exp": now + ttl}
    if roles:  # e.g. "vip": opens Has Oda (okey101.app.matchmaker.halls)
        claims["roles"] = sorted(set(roles))
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def verify(secret: str, token: str, now: int, max_lifetime: int = MAX_LIFETIME) -> str:
    """The player a token names, or TokenRefused (`verify_roles` says how)."""
    return verify_roles(secret, token, now, max_lifetime)[0]


def verify_roles(secret: str, token: str, now: int, max_lifetime: int = MAX_LIFETIME
                 ) -> tuple[str, list[str]]:
    """The player a token names and the roles it carries (`roles`, a list of strings;
    none when absent), or TokenRefused. Its lifetime is `exp` - `iat` (`iat` is
    required), and `exp` may not lie further ahead than `max_lifetime` either (an `iat`
    set in the future)."""
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM],
                            options={"verify_exp": False, "verify_iat": False,
                                     "require": ["sub", "exp", "iat"]})
    except jwt.PyJWTError as exc:
        raise TokenRefused("bad_token", f"token refused: {exc}") from None
    exp, iat, sub = claims.get("exp"), claims.get("iat"), claims.get("sub")
    if not isinstance(exp, int) or not isinstance(iat, int) or not isinstance(sub, str) \
            or not PLAYER_ID.match(sub):
        raise TokenRefused("bad_token", "token refused: exp, iat or sub is malformed")
    roles = claims.get("roles", [])
    if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
        raise TokenRefused("bad_token", "token refused: roles must be a list of strings")
    if exp <= now:
        raise TokenRefused("token_expired", f"token expired {now - exp} s ago")
    lifetime = max(exp - iat, exp - now)
    if lifetime > max_lifetime:
        raise TokenRefused("token_lifetime", f"token valid for {lifetime / 3600:g} h: this "
                           f"gateway accepts at most {max_lifetime / 3600:g} h; mint a "
                           "shorter one")
    return sub, roles
