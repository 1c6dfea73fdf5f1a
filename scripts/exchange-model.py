#!/usr/bin/env python3
"""The network model of docs/scale-out.md against measured partitioned solves.

    exchange-model.py REPORT.json...

Each REPORT is process 0's `retrograde solve --processes N --json` output.
The model: a band boundary between grid rows is crossed by the thief-to-move
states whose cop stands in one of the two rows next to it; each is sent once,
8 bytes, when it is decided (thief exits and draws never are). Every round
each worker also sends every other worker its frontier size (24 bytes).

    bytes = 8 * 2 * (C / H) * C * (1 - exits / C) * (1 - draws / states) * (B - 1)
            + rounds * B * (B - 1) * 24

with C free cells, H rows, B = processes * workers bands (exact for open
maps, whose rows all hold C / H cells). Per level, the states decided at
level k may all be thief-to-move (levels alternate between mostly one side
and mostly the other), so the model bounds a level's bytes by
8 * decided_k * 2 * (B - 1) / H + B * (B - 1) * 24.
Prints measured and predicted bytes in total, and the largest ratio of a
level's measured bytes to its bound (at most 1 when the model holds).
"""
import json
import sys


def model(r):
    cells, rows = r["cells"], r["height"]
    bands = r["processes"] * r["workers"]
    per_row = cells / rows
    decided_share = 1 - r["counts"]["draw"] / r["states"]
    exit_share = r["exits"] / cells
    rounds = len(r["exchange"]["bytes_per_level"])
    crossing = 2 * per_row * cells * (1 - exit_share) * decided_share * (bands - 1)
    overhead = bands * (bands - 1) * 24
    total = 8 * crossing + rounds * overhead
    share = 2 * (bands - 1) / rows
    per_level = [8 * d * share + overhead for d in r["exchange"]["decided_per_level"]]
    return total, per_level


def main():
    print("| report | bands | measured bytes | predicted | ratio | largest level / its bound | busiest level: measured / bound |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path in sys.argv[1:]:
        with open(path) as f:
            r = json.load(f)
        total, per_level = model(r)
        measured = r["exchange"]["bytes_per_level"]
        ratios = [m / p for m, p in zip(measured, per_level) if p > 0]
        peak = max(range(len(measured)), key=lambda k: measured[k])
        print(
            f"| {path} | {r['processes']} x {r['workers']} | {r['exchange']['bytes']} | {total:.0f} "
            f"| {r['exchange']['bytes'] / total:.3f} | {max(ratios):.2f} "
            f"| {measured[peak]} / {per_level[peak]:.0f} |"
        )


if __name__ == "__main__":
    main()
