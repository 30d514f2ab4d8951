"""A token bucket: at most `rate` actions a second on average, `burst` at once; and the
flood guard that closes a connection that keeps sending past it. Pure: the caller passes
the time."""

from __future__ import annotations

from typing import Literal


class TokenBucket:
    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now

    def take(self, now: float) -> bool:
        """Spend one token if there is one."""
        self.refill(now)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    @property
    def full(self) -> bool:
        return self.tokens >= self.burst


Verdict = Literal["pass", "refuse", "close"]


class FloodGuard:
    """A connection's command limit: commands past the bucket are refused, and the
    `strikes`-th refusal since the bucket was last full closes the connection. Only a
    client that stops long enough to refill its whole burst starts counting again: one
    that keeps sending faster than the rate gets a token now and then, and each must not
    forgive its refusals (a socket at 1,000 commands a second against a rate of 10 would
    otherwise be refused forever and never closed)."""

    def __init__(self, rate: float, burst: int, strikes: int, now: float) -> None:
        self.bucket = TokenBucket(rate, burst, now)
        self.strikes = strikes
        self.refused = 0  # since the bucket was last full

    def take(self, now: float) -> Verdict:
        self.bucket.refill(now)
        if self.bucket.full:
            self.refused = 0
        if self.bucket.take(now):
            return "pass"
        self.refused += 1
        return "close" if self.refused >= self.strikes else "refuse"
