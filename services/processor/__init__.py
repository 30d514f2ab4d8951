"""The rules processor: commands in, events and outcomes out, exactly once."""
