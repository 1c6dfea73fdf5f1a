#!/usr/bin/env python3
"""Bytes per state of the bitboard engine's bitsets on MovingAI maps.

  scripts/bitboard-bytes.py [MAP.map ...]   (default: ../shared/data/movingai/*.map)

Mirrors `Layout::new` in src/solve/bitboard.rs: the free cells' bounding box
H x W, rows of `ceil((64 m + H W) / 64) + m + 1` words with m = ceil((W + 1) / 64),
four rows per free cell; states are 2 C^2. Prints a markdown table.
"""
import glob
import sys


def read_map(path):
    lines = open(path).read().splitlines()
    k = lines.index("map")
    height = int(lines[1].split()[1])
    rows = lines[k + 1:k + 1 + height]
    return [[ch in ".GS" for ch in row] for row in rows]


def main():
    paths = sys.argv[1:] or sorted(glob.glob("../shared/data/movingai/*.map"))
    print("| map | free cells | bounding box | states | bitset bytes | bytes per state |")
    print("|---|---|---|---|---|---|")
    for path in paths:
        grid = read_map(path)
        cells = [(r, c) for r, row in enumerate(grid) for c, free in enumerate(row) if free]
        if not cells:
            continue
        rows = [r for r, _ in cells]
        cols = [c for _, c in cells]
        h, w = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
        m = -(-(w + 1) // 64)
        words = -(-(64 * m + h * w) // 64) + m + 1
        n = len(cells)
        states = 2 * n * n
        size = n * 4 * words * 8
        name = path.rsplit("/", 1)[-1]
        print(f"| {name} | {n} | {h} x {w} | {states:.2e} | {size:,} | {size / states:.3f} |")


main()
