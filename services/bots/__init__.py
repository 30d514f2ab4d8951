"""The bots service: bot seats play from their seat's view, as a gateway would."""
