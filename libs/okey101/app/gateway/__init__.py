"""The WebSocket gateway's pure parts: its schema, view cache, identity and limits."""
