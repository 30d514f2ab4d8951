"""The replays service: the table directory and replays over HTTP."""
