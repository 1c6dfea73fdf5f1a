#!/usr/bin/env python3
# /// script
# requires-python = ">=3.8"
# dependencies = ["matplotlib"]  # optional: without it only the table is printed
# ///
"""Summarise a `retrograde batch` results file.

  batch-summary.py RESULTS [--plot FILE.png] [--no-plot]

RESULTS is the file written by `retrograde batch --out` (.jsonl or .csv).
Prints a markdown table (one line per map, or per scenario pair for a
`batch --scen` file, sorted by map, then totals) on
stdout and, when matplotlib is importable, writes a PNG plot of seconds
against states, coloured by result (default: RESULTS with .png appended).
Dependency: matplotlib (`pip install matplotlib`, or `uv run` reads the
inline metadata above); without it the script prints the table and says so.
"""
import argparse
import csv
import json
import sys
from collections import Counter

# CSV columns that hold numbers (everything else stays a string).
INTEGERS = {"width", "height", "cells", "exits", "states", "dte", "win", "loss", "draw",
            "pairs", "longest_dte", "threads", "array_bytes", "peak_memory_bytes",
            "scen_line", "bucket", "cop_row", "cop_col", "thief_row", "thief_col",
            "longest_cop_row", "longest_cop_col", "longest_thief_row", "longest_thief_col"}
FLOATS = {"seconds", "share_cop_wins", "share_thief_escapes", "share_draw"}


def flatten(row):
    """A JSON Lines row in the flat shape of a CSV row."""
    flat = {k: v for k, v in row.items() if not isinstance(v, dict)}
    for k, v in (row.get("counts") or {}).items():
        flat[k] = v
    for k, v in (row.get("share") or {}).items():
        flat["share_" + k] = v
    longest = row.get("longest") or {}
    flat["longest_dte"] = longest.get("dte")
    return flat


def read_rows(path):
    """Rows as flat dicts; a torn last line (a killed batch) is skipped."""
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        if path.lower().endswith(".csv"):
            for raw in csv.DictReader(f):
                row = {}
                for key, value in raw.items():
                    if value in ("", None):
                        row[key] = None
                    elif key in INTEGERS:
                        row[key] = int(value)
                    elif key in FLOATS:
                        row[key] = float(value)
                    else:
                        row[key] = value
                rows.append(row)
        else:
            for line in f:
                try:
                    rows.append(flatten(json.loads(line)))
                except json.JSONDecodeError:
                    print(f"skipping a line that is not JSON: {line[:60]!r}", file=sys.stderr)
    # Rows are keyed as batch keys them: by map, and for a scenario pair also
    # by its file and line. The last row of a key wins, as when a batch is
    # resumed by hand.
    by_key = {row_key(row): row for row in rows}
    return [by_key[k] for k in sorted(by_key)]


def row_key(row):
    """A row's key: its map, then its scenario file and line (pair rows)."""
    return (row.get("map") or "", row.get("scen") or "", row.get("scen_line") or 0)


def label(row):
    """The table's first column: the map, and the scenario entry of a pair row."""
    if row.get("scen"):
        return f"{row['map']} ({row['scen']}:{row.get('scen_line')})"
    return row["map"]


def result_of(row):
    """The plotted category: the start's verdict, `whole map`, or the status."""
    if row.get("status") != "ok":
        return "skipped" if str(row.get("status", "")).startswith("skipped") else "failed"
    return row.get("result") or "whole map"


def cell(value, digits=None):
    if value is None:
        return "-"
    if digits is not None:
        return f"{value:.{digits}f}"
    return str(value)


def print_table(rows):
    print("| map | format | states | result | dte | cop wins | thief escapes | draw | seconds | status |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        status = str(r.get("status", "")).replace("|", "\\|")
        print(
            f"| {label(r)} | {cell(r.get('format'))} | {cell(r.get('states'))} "
            f"| {cell(r.get('result'))} | {cell(r.get('dte'))} "
            f"| {cell(r.get('share_cop_wins'), 3)} | {cell(r.get('share_thief_escapes'), 3)} "
            f"| {cell(r.get('share_draw'), 3)} | {cell(r.get('seconds'), 3)} | {status} |"
        )
    categories = Counter(result_of(r) for r in rows)
    # Pair rows repeat their map's solve (states, seconds): count it once.
    per_map = {r.get("map"): r for r in rows}.values()
    total_seconds = sum(r.get("seconds") or 0 for r in per_map)
    total_states = sum(r.get("states") or 0 for r in per_map if r.get("status") == "ok")
    pairs = sum(1 for r in rows if r.get("scen"))
    counted = f"{len(rows)} maps" if not pairs else f"{len(rows)} rows ({pairs} scenario pairs) on {len(per_map)} maps"
    print()
    print(f"**{counted}**: " + ", ".join(f"{n} {k}" for k, n in sorted(categories.items()))
          + f"; {total_states} states solved in {total_seconds:.2f} s of map time")


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)", file=sys.stderr)
        return False
    solved = [r for r in rows if r.get("status") == "ok" and r.get("states") and r.get("seconds")]
    if not solved:
        print("no solved maps to plot", file=sys.stderr)
        return False
    colours = {"cop-wins": "tab:blue", "thief-escapes": "tab:red", "draw": "tab:green",
               "whole map": "tab:gray"}
    fig, ax = plt.subplots(figsize=(7, 5))
    for category in sorted({result_of(r) for r in solved}):
        points = [r for r in solved if result_of(r) == category]
        ax.scatter([r["states"] for r in points], [r["seconds"] for r in points],
                   label=f"{category} ({len(points)})", color=colours.get(category), alpha=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("states (2 x free cells^2)")
    ax.set_ylabel("seconds per map (load + solve + sweeps)")
    ax.set_title("retrograde batch: time against size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot written to {path}", file=sys.stderr)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="results file from `retrograde batch --out` (.jsonl or .csv)")
    parser.add_argument("--plot", help="PNG file for the plot (default: RESULTS.png)")
    parser.add_argument("--no-plot", action="store_true", help="print the table only")
    args = parser.parse_args()
    rows = read_rows(args.results)
    if not rows:
        sys.exit(f"{args.results}: no rows")
    print_table(rows)
    if not args.no_plot:
        plot(rows, args.plot or args.results + ".png")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        # `| head` closed stdout: not an error worth a traceback.
        sys.stderr.close()
