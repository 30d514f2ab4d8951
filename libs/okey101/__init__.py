"""okey101: the pure rules core of a 101 Okey game service.

Nothing in this package performs I/O, reads a clock or draws randomness: time and
seeds arrive in commands and events.
"""
