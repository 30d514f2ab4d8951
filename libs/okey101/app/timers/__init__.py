"""The timers service's pure parts: turn deadlines and what they emit."""
