"""Retrograde analysis of policeman and thief on grid maps, from Python.

Every state is WIN / LOSS / DRAW for the player to move, with its exact
distance to end (plies). Quick start::

    import retrograde
    m = retrograde.Map.from_file("data/maps/sample.txt")
    sol = retrograde.solve(m)               # GIL released; Ctrl-C stops it
    sol.start                               # ('win', 7): the first mover's result
    values, dte = sol.heatmap(cop=m.cop)    # 2-D numpy arrays
    sol.save("sample.rtb")
    with retrograde.open_table("sample.rtb") as tb:
        tb.probe(m.cop, m.thief)            # ('win', 7)
        tb.play()                           # the optimal game

Positions are ``(cop, thief, turn)``: cells as ``(row, col)``, 0-based;
``turn`` is ``"cop"`` or ``"thief"`` (the player to move), by default the
rules' first mover.
"""

from ._retrograde import (
    Map,
    Rules,
    Solution,
    Table,
    __version__,
    nim,
    open_table,
    solve,
    subtraction,
)

__all__ = [
    "Map",
    "Rules",
    "Solution",
    "Table",
    "__version__",
    "nim",
    "open_table",
    "solve",
    "subtraction",
]
