"""The replays service's pure parts: the directory, replay, history, render and exports."""
