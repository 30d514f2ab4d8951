"""The fairness auditor's pure logic: every hand verified against its deal
(`verify`, `log`), collusion and abuse found in shared matches (`collusion`), the records
it publishes (`records`)."""
