#!/usr/bin/env python3
"""Write seed-format maps for benchmarks and for the C++ peers.

  make-map.py open ROWS COLS [--walls P] [--seed S] > map.txt
      a ROWS x COLS map with a share P of random walls (default 0), every free
      border cell an exit, the cop near the top-left and the thief at the centre.
  make-map.py convert FILE.map > map.txt
      a MovingAI map in seed format with the same starts and border exits.

Starts are the first free cell in row-major order (cop) and the free cell
nearest the centre (thief), never on the border, so `retrograde solve` with
the seed file and the peers see the same game.
"""
import random
import sys


def finish(rows):
    h, w = len(rows), len(rows[0])
    grid = [list(r) for r in rows]
    free = [(r, c) for r in range(h) for c in range(w) if grid[r][c] != "*"]
    inner = [(r, c) for (r, c) in free if 0 < r < h - 1 and 0 < c < w - 1]
    if len(inner) < 2:
        sys.exit("map too small: needs two free non-border cells")
    cop = inner[0]
    thief = min(inner[1:], key=lambda p: (abs(p[0] - h // 2) + abs(p[1] - w // 2), p))
    for (r, c) in free:
        if r in (0, h - 1) or c in (0, w - 1):
            grid[r][c] = "E"
    grid[cop[0]][cop[1]] = "C"
    grid[thief[0]][thief[1]] = "T"
    print(h, w)
    for row in grid:
        print("".join(row))


def main():
    args = sys.argv[1:]
    if args[:1] == ["open"]:
        h, w = int(args[1]), int(args[2])
        p = float(args[args.index("--walls") + 1]) if "--walls" in args else 0.0
        seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
        rng = random.Random(seed)
        rows = ["".join("*" if rng.random() < p else "." for _ in range(w)) for _ in range(h)]
        finish(rows)
    elif args[:1] == ["convert"]:
        lines = open(args[1]).read().split("\n")
        i = lines.index("map")
        h = int(next(l.split()[1] for l in lines if l.startswith("height")))
        rows = ["".join("." if ch in ".GS" else "*" for ch in l) for l in lines[i + 1 : i + 1 + h]]
        finish(rows)
    else:
        sys.exit(__doc__)


main()
