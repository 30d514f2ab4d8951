"""The table aggregate: commands, events, decide, evolve, views."""
