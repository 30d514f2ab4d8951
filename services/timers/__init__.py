"""The turn-timer service: times out stalled seats (python -m services.timers)."""
