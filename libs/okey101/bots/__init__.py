"""Bots: pure policies from a seat's `PlayerView` to one command (RULES.md section 11).

A bot sees what its seat may see and nothing else: its own rack and the public table
(`okey101.table.views.player_view`). It answers with one command for the seat to act,
with a blank envelope that the driver fills (table, command id, seq, player, seat), as
`okey101.simulate.play_match` does. Every command it sends is one the engine accepts.

- `level0`: the plain rule-follower that drives simulations (not a house's bot).
- `level1`: legal, simple and deliberately weak (draws, opens when it can, lays melds).
- `level2`: the solver's player (best melds, opens as soon as it can, takes useful
  discards, lays off, takes okeys, cuts useless tiles, avoids the 101 penalties).
- `Level3()`: level 2 plus inference from public information (live tiles, the next
  player's wants); a callable with a memory of the hand's earlier views, per seat.
- `Level4()`: the searching level: level 3's moves, searched (a determinized Monte Carlo
  search: the hidden tiles sampled from the view, level 3's best candidates played out to
  the hand's end on the pure engine), within a budget of playouts or of an injected clock;
  it keeps level 3's move unless the search is sure, and measures no stronger than level 3
  yet (README; `level4`'s docstring says why).

Modules: `seat` (a view read once, with the engine's answers of what is legal), `plays`
(the moves the levels share), `level0`, `levels` (levels 1 and 2), `level3`, `inference`
(live tiles, memory), `level4` (the search).
"""

from __future__ import annotations

from okey101.terms import BOT_LEVELS

from .level0 import level0
from .level3 import Level3
from .level4 import Level4
from .levels import Bot, level1, level2

LEVELS = BOT_LEVELS


def bot(level: int) -> Bot:
    """A bot of `level` (0-4); levels 3 and 4 are new instances with their own memory
    (level 4 with its default budget of playouts and no clock: deterministic)."""
    if level == 0:
        return level0
    if level == 1:
        return level1
    if level == 2:
        return level2
    if level == 3:
        return Level3()
    if level == 4:
        return Level4()
    raise ValueError(f"no bot level {level}: levels are 0, 1, 2, 3, 4")


__all__ = ["LEVELS", "Bot", "Level3", "Level4", "bot", "level0", "level1", "level2"]
