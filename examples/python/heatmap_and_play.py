#!/usr/bin/env python3
"""Solve a map, draw the thief's chances as a heatmap, play the optimal game.

  python examples/python/heatmap_and_play.py [MAP] [--out docs/python-heatmap.png]

Needs the package (`pip install ./python`) and matplotlib.
"""
import argparse
import pathlib
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import retrograde  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]

ap = argparse.ArgumentParser()
ap.add_argument("map", nargs="?", default=str(ROOT / "data" / "maps" / "sample.txt"))
ap.add_argument("--out", default="python-heatmap.png")
args = ap.parse_args()

m = retrograde.Map.from_file(args.map)
sol = retrograde.solve(m)  # Ctrl-C stops a long solve with KeyboardInterrupt
value, dte = sol.start
verb = {"win": "wins", "loss": "loses", "draw": "draws"}[value]
print(f"{m}: the first mover {verb}" + (f" in {dte} plies" if dte is not None else "") + f" ({sol.verdict})")

# Every thief cell against the cop on its start, cop to move: the value for
# the cop (1 win, -1 loss, 0 draw, -2 wall) and the distance to end.
values, dist = sol.heatmap(cop=m.cop, turn="cop")

# The optimal game, through a saved table.
with tempfile.TemporaryDirectory() as tmp:
    table = pathlib.Path(tmp) / "map.rtb"
    sol.save(table)
    with retrograde.open_table(table) as tb:
        game = tb.play()
for ply, (cop, thief, turn) in enumerate(game):
    print(f"ply {ply:2}: cop {cop}, thief {thief}, {turn} to move")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
colours = matplotlib.colors.ListedColormap(["#444444", "#d9534f", "#f0ad4e", "#5cb85c"])
ax1.imshow(values, cmap=colours, vmin=-2.5, vmax=1.5)
ax1.set_title(f"cop on {m.cop}, cop to move: green wins, red loses, orange draws")
masked = np.ma.masked_less(dist, 0)
im = ax2.imshow(masked, cmap="viridis")
fig.colorbar(im, ax=ax2, label="distance to end (plies)")
ax2.set_title("distance to end")
for ax in (ax1, ax2):
    cops = np.array([p[0] for p in game])
    thieves = np.array([p[1] for p in game])
    ax.plot(cops[:, 1], cops[:, 0], "-o", color="navy", ms=3, label="cop")
    ax.plot(thieves[:, 1], thieves[:, 0], "-o", color="white", mec="black", ms=3, label="thief")
    ex = np.argwhere(m.exit_array())
    ax.scatter(ex[:, 1], ex[:, 0], marker="s", facecolors="none", edgecolors="cyan", s=40, label="exit")
    ax.set_xticks([])
    ax.set_yticks([])
ax1.legend(loc="lower left", fontsize=7)
fig.suptitle(f"{pathlib.Path(args.map).name}: optimal game of {len(game) - 1} plies")
fig.tight_layout()
fig.savefig(args.out, dpi=110)
print(f"wrote {args.out}")
