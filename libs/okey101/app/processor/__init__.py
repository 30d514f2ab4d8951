"""The rules processor's pure parts: the command loop's fold and its snapshots."""
