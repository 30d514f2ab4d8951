"""The fairness auditor service (python -m services.auditor)."""
