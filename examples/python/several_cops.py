#!/usr/bin/env python3
"""Several cops on a map, and cop numbers of small graphs.

  python examples/python/several_cops.py [MAP]

Needs the package (`pip install ./python`) and networkx.
"""
import pathlib
import sys
import tempfile

import networkx as nx
import retrograde

ROOT = pathlib.Path(__file__).resolve().parents[2]
path = sys.argv[1] if len(sys.argv) > 1 else ROOT / "data" / "maps" / "sample.txt"

m = retrograde.Map.from_file(path)
one = retrograde.solve(m)
print(f"{m}: one cop from {m.cop}: {one.verdict}, start {one.start}")
# A second cop on the first one's cell, then on an exit: `retrograde solve MAP --cops 2
# --cop R,C --cop R,C`; the thief starts where the map says.
exits = m.exits
for second in [m.cop, exits[-1]]:
    two = retrograde.solve(m, cops=2, cops_at=[m.cop, second])
    print(f"two cops from {m.cop} and {second}: {two.verdict}, start {two.start}, "
          f"{two.states:,} states")

# Its table, as `retrograde solve MAP --cops 2 --cop R,C --cop R,C --save`
# writes it, read back: probes take the cops' cells in any order, the
# optimal game gives them as a tuple.
with tempfile.TemporaryDirectory() as tmp:
    table = pathlib.Path(tmp) / "two.rtb"
    two.save(table)
    with retrograde.open_table(table) as tb:
        cops, thief, turn = tb.start
        game = tb.play()
        print(f"{tb}: start {tb.probe(cops[::-1], thief, turn)}, optimal game of {len(game) - 1} plies, "
              f"last position {game[-1]}")

# Cop numbers, as `retrograde copnumber --json` reports them.
for name, g in [("path of 6", nx.path_graph(6)), ("5-cycle", nx.cycle_graph(5)),
                ("Petersen graph", nx.petersen_graph()), ("8 x 8 grid", nx.grid_2d_graph(8, 8))]:
    r = retrograde.cop_number(g)
    print(f"{name}: cop number {r['cop_number']}, placement {r['placement']}, "
          f"capture in {r['capture_time']} rounds ({r['capture_time_plies']} plies)")
