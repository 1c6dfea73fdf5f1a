#!/usr/bin/env python3
"""The halo model of docs/scale-out.md against measured partitioned bit solves.

    halo-model.py MAP REPORT.json [MAP REPORT.json ...]

Each REPORT is process 0's `retrograde solve MAP --processes N --json` output
of a one-cop solve on the bit engine (`"kernel": "bitboard"`), MAP the map it
solved (seed text or MovingAI). The model (docs/scale-out.md, "The bit
engine"): the N bands are runs of whole grid rows of about C / N cells each
(cut as the solver cuts them); after every step a process sends each process
whose band touches one of its edge rows that row's thief-to-move bitsets,
as two word ranges per cell (16 bytes) and the words that changed. A word
changes when a state of the row is decided in it, so at most one word per
thief-to-move state decided in an edge row (the counter engine's crossing
states, here words of 64 of them):

    bytes_k = 8 * d_k * E / (2 C)        (changed words, at most)
            + 16 * E                      (the ranges)
            + N (N - 1) * 48              (each step's counts, to everyone)

with d_k the states decided at level k (all bands), E the edge-row cells
sent per step (each edge row's cells times its readers) and C the free
cells. Prints the measured and modelled totals and their ratio, and the
busiest level's.
"""
import json
import sys


def free_rows(path):
    """Free cells per row of the free cells' bounding box."""
    lines = open(path).read().splitlines()
    if lines[0].startswith("type"):
        at = lines.index("map") + 1
        rows = ["".join("1" if ch in ".GS" else "0" for ch in line) for line in lines[at:]]
    else:
        rows = ["".join("0" if ch in "*#" else "1" for ch in line) for line in lines[1:]]
    counts = [row.count("1") for row in rows]
    first = next(i for i, c in enumerate(counts) if c)
    last = max(i for i, c in enumerate(counts) if c)
    return counts[first:last + 1]


def cuts(counts, parts):
    """Row cuts splitting the rows into `parts` runs of about equal cells
    (the solver's `cut_rows`)."""
    starts, total = [], 0
    for c in counts:
        starts.append(total)
        total += c
    out = [0]
    for k in range(1, parts):
        target = total * k // parts
        r = next((i for i, s in enumerate(starts) if s >= target), len(counts))
        out.append(max(r, out[-1]))
    out.append(len(counts))
    return out


def edge_cells(counts, parts):
    """E: cells of every edge row sent, times the processes that read it."""
    c = cuts(counts, parts)
    height = len(counts)
    bands = [(c[i], c[i + 1]) for i in range(parts)]
    e = 0
    for q, (a, b) in enumerate(bands):
        if a == b:
            continue
        for r in (a - 1, b):
            if 0 <= r < height:
                e += counts[r]
    return e


def main():
    args = sys.argv[1:]
    print("| map | processes x workers | levels | measured bytes | model | measured / model | busiest level: measured / model |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path, report in zip(args[::2], args[1::2]):
        r = json.load(open(report))
        counts = free_rows(path)
        n = r["processes"]
        cells = sum(counts)
        e = edge_cells(counts, n)
        decided = r["exchange"]["decided_per_level"]
        per_level = [8 * d * e / (2 * cells) + 16 * e + n * (n - 1) * 48 for d in decided]
        measured = r["exchange"]["bytes_per_level"]
        total = sum(per_level)
        busiest = max(range(len(measured)), key=lambda k: measured[k])
        name = path.rsplit("/", 1)[-1]
        print(
            f"| {name} | {n} x {r['workers']} | {r['levels']} | {r['exchange']['bytes']:,} | {total:,.0f} "
            f"| {r['exchange']['bytes'] / total:.2f} | {measured[busiest]:,} / {per_level[busiest]:,.0f} |"
        )


if __name__ == "__main__":
    main()
