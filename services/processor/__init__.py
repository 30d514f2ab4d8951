"""The rules processor: commands in, events, outcomes and views out, exactly once."""
