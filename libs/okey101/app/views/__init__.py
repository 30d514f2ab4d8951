"""The views service's pure parts: the one projection of every seat's view."""
