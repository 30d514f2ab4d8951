"""Bots: pure policies from a seat's `PlayerView` to one command (RULES.md section 11)."""

from __future__ import annotations

from .level3 import Level3
from .levels import Bot, level1, level2

__all__ = ["Bot", "Level3", "level1", "level2"]
