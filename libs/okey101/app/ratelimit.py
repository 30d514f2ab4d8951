"""A token bucket: at most `rate` actions a second on average, `burst` at once. Pure: the
caller passes the time."""

from __future__ import annotations


class TokenBucket:
    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now

    def take(self, now: float) -> bool:
        """Spend one token if there is one."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
