#!/usr/bin/env python3
# Dependencies: matplotlib (pip install matplotlib).
"""Plot `retrograde bench --export-csv` records: solve time (build + solve)
and peak memory against the number of states, one line per engine.

    plot-bench.py RESULTS.csv OUT.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(open(sys.argv[1])) if not r["error"]]
    series = defaultdict(list)
    for r in rows:
        series[f'{r["engine"]} ({r["threads"]} thr)'].append(
            (int(r["states"]), float(r["build_seconds"]) + float(r["solve_seconds"]),
             int(r["peak_memory_bytes"] or 0) / 2**20))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, points in sorted(series.items()):
        points.sort()
        xs = [p[0] for p in points]
        ax1.plot(xs, [p[1] for p in points], marker="o", label=name)
        ax2.plot(xs, [p[2] for p in points], marker="o", label=name)
    for ax, label in ((ax1, "seconds (build + solve)"), (ax2, "peak memory (MiB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("states")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle("policeman and thief: explicit graph vs on the fly")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    print(f"wrote {sys.argv[2]}")


main()
