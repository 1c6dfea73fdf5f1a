#!/usr/bin/env python3
# /// script
# requires-python = ">=3.8"
# dependencies = ["matplotlib"]  # optional: without it only the table is printed
# ///
"""Summarise `retrograde batch` results files, and compare numbers of cops.

  batch-summary.py RESULTS... [--plot FILE.png] [--no-plot]

Each RESULTS is a file written by `retrograde batch --out` (.jsonl or .csv):
one cop, `--cops K` (several cops: the summary over every start placement)
or `--copnumber`. Prints a markdown table on stdout (one line per map and
number of cops, or per scenario pair for a `batch --scen` file, sorted by
map, with its exits, then totals, and how many maps have no exit: the
thief cannot escape there). Given the rows of one map for several numbers
of cops (a `batch DIR` and a `batch DIR --cops 2` file), it adds a table
comparing them map by map. When matplotlib is importable it writes a PNG
(default: the first RESULTS with .png appended): per map (named, with its
exits), how its start pairs or placements split by outcome (cops win,
thief escapes, draw), a bar per number of cops side by side; files of
scenario pairs only get time against size instead.
Dependency: matplotlib (`pip install matplotlib`, or `uv run` reads the
inline metadata above); without it the script prints the tables and says so.
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
            "longest_cop_row", "longest_cop_col", "longest_thief_row", "longest_thief_col",
            "cops", "placements", "longest_placement_dte", "best_placement_plies", "cop_number"}
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
    several = row.get("longest_placement") or {}
    flat["longest_placement_dte"] = several.get("dte")
    best = row.get("best_placement") or {}
    flat["best_placement_plies"] = best.get("capture_plies")
    flat["best_placement_cops"] = " ".join(show(c) for c in best.get("cops") or []) or None
    return flat


def show(cell):
    """A cell of a row: `row,col` on a map, the vertex id on a graph."""
    return ",".join(str(x) for x in cell) if isinstance(cell, list) else str(cell)


def cops_of(row):
    """The number of cops of a row: 1 for one-cop rows (no `cops` field)."""
    return row.get("cops") or 1


def read_all(paths):
    """The rows of every file, keyed as batch keys them plus the number of
    cops (and `--copnumber` rows apart), the last row of a key winning."""
    by_key = {}
    for path in paths:
        for row in read_rows(path):
            by_key[row_key(row) + (cops_of(row), copnumber(row))] = row
    return [by_key[k] for k in sorted(by_key)]


def copnumber(row):
    """Whether a row is of `batch --copnumber`."""
    return "--copnumber" in (row.get("flags") or "")


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
    return rows


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
    solves = [r for r in rows if not copnumber(r)]
    numbers = [r for r in rows if copnumber(r)]
    if solves:
        print("| map | cops | format | exits | states | result | dte | cop wins | thief escapes "
              "| draw | best placement | seconds | status |")
        print("| --- | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | --- |")
        for r in solves:
            status = str(r.get("status", "")).replace("|", "\\|")
            best = r.get("best_placement_cops")
            if best is not None:
                best = f"{best} ({r.get('best_placement_plies')} plies)"
            print(
                f"| {label(r)} | {cops_of(r)} | {cell(r.get('format'))} | {cell(r.get('exits'))} "
                f"| {cell(r.get('states'))} | {cell(r.get('result'))} | {cell(r.get('dte'))} "
                f"| {cell(r.get('share_cop_wins'), 3)} | {cell(r.get('share_thief_escapes'), 3)} "
                f"| {cell(r.get('share_draw'), 3)} | {cell(best)} | {cell(r.get('seconds'), 3)} | {status} |"
            )
    if numbers:
        if solves:
            print()
        print("| map | cells | exits | cop number | placement | capture (plies) | seconds | status |")
        print("| --- | ---: | ---: | ---: | --- | ---: | ---: | --- |")
        for r in numbers:
            status = str(r.get("status", "")).replace("|", "\\|")
            number = r.get("cop_number")
            if number is None and r.get("status") == "ok":
                number = "more than --max-cops"
            print(
                f"| {label(r)} | {cell(r.get('cells'))} | {cell(r.get('exits'))} | {cell(number)} "
                f"| {cell(r.get('best_placement_cops'))} | {cell(r.get('best_placement_plies'))} "
                f"| {cell(r.get('seconds'), 3)} | {status} |"
            )
    categories = Counter(result_of(r) for r in rows)
    # Pair rows repeat their map's solve (states, seconds): count it once.
    per_map = {(r.get("map"), cops_of(r), copnumber(r)): r for r in rows}.values()
    total_seconds = sum(r.get("seconds") or 0 for r in per_map)
    total_states = sum(r.get("states") or 0 for r in per_map if r.get("status") == "ok")
    pairs = sum(1 for r in rows if r.get("scen"))
    maps = len({r.get("map") for r in rows})
    if pairs:
        counted = f"{len(rows)} rows ({pairs} scenario pairs) on {len(per_map)} maps"
    elif len(rows) == maps:
        counted = f"{maps} maps"
    else:
        counted = f"{len(rows)} rows on {maps} maps"
    print()
    print(f"**{counted}**: " + ", ".join(f"{n} {k}" for k, n in sorted(categories.items()))
          + f"; {total_states} states solved in {total_seconds:.2f} s of map time")
    exits = {r["map"]: r.get("exits") for r in rows if r.get("exits") is not None}
    closed = sorted(m for m, e in exits.items() if e == 0)
    if closed:
        print()
        print(f"**{len(closed)} of {len(exits)} maps have no exit** (the thief cannot escape there: "
              f"the map marks none and the exit flags found none; `--exits border` finds none "
              f"on a map walled all round, `--exits rim` takes the free cells next to it): "
              + ", ".join(closed))
    print_comparison(solves)


def shares_by_cops(rows):
    """Per map, per number of cops, the whole-map row (solved, with shares)."""
    maps = {}
    for r in rows:
        if r.get("scen") or r.get("status") != "ok" or r.get("share_cop_wins") is None:
            continue
        maps.setdefault(r["map"], {})[cops_of(r)] = r
    return maps


def print_comparison(rows):
    """A table comparing the share the cops win per map across numbers of
    cops, when some map has rows for more than one."""
    maps = shares_by_cops(rows)
    counts = sorted({k for by in maps.values() for k in by})
    if len(counts) < 2:
        return
    print()
    heads = " | ".join(f"cop wins, {k} cop{'s' if k > 1 else ''}" for k in counts)
    print(f"| map | exits | {heads} | gain ({counts[0]} to {counts[-1]}) |")
    print("| --- | ---: | " + " | ".join("---:" for _ in counts) + " | ---: |")
    for m, by in sorted(maps.items()):
        exits = next(iter(by.values())).get("exits")
        shares = [by[k]["share_cop_wins"] if k in by else None for k in counts]
        gain = None
        if shares[0] is not None and shares[-1] is not None:
            gain = shares[-1] - shares[0]
        print(f"| {m} | {cell(exits)} | " + " | ".join(cell(x, 3) for x in shares)
              + f" | {cell(gain, 3)} |")


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)", file=sys.stderr)
        return False
    maps = shares_by_cops([r for r in rows if not copnumber(r)])
    if maps:
        numbers = {r["map"]: r.get("cop_number") for r in rows
                   if copnumber(r) and r.get("status") == "ok"}
        return plot_outcomes(plt, maps, numbers, path)
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
    ax.set_xlabel("states")
    ax.set_ylabel("seconds per map (load + solve + sweeps)")
    ax.set_title("retrograde batch: time against size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot written to {path}", file=sys.stderr)
    return True


def plot_outcomes(plt, maps, numbers, path):
    """Per map (named, with its exits and, from `--copnumber` rows, its cop
    number) a horizontal bar per number of cops, split into the shares the
    cops win, the thief escapes and drawn."""
    counts = sorted({k for by in maps.values() for k in by})
    names = sorted(maps)
    height = 0.8 / len(counts)
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.45 * len(names) * max(1, len(counts) * 0.7)))
    outcomes = [("share_cop_wins", "cops win", "tab:blue"),
                ("share_thief_escapes", "thief escapes", "tab:red"),
                ("share_draw", "draw", "tab:green")]
    hatches = ["", "//", "..", "xx"]
    for j, k in enumerate(counts):
        ys = [i + (j - (len(counts) - 1) / 2) * height for i in range(len(names))]
        left = [0.0] * len(names)
        for key, what, colour in outcomes:
            widths = [(maps[m][k].get(key) or 0.0) if k in maps[m] else 0.0 for m in names]
            label = f"{what}, {k} cop{'s' if k > 1 else ''}"
            ax.barh(ys, widths, height=height * 0.9, left=left, color=colour,
                    hatch=hatches[j % len(hatches)], edgecolor="white", label=label)
            left = [a + b for a, b in zip(left, widths)]
        for y, m in zip(ys, names):
            row = maps[m].get(k)
            if row is not None:
                ax.text(1.01, y, f"{k}: {row['share_cop_wins']:.0%} cops win", va="center",
                        fontsize=8)
    labels = []
    for m in names:
        exits = next(iter(maps[m].values())).get("exits")
        name = m.rsplit("/", 1)[-1]
        said = "no exit" if exits == 0 else f"{exits} exit{'s' if exits != 1 else ''}"
        if m in numbers:
            number = numbers[m]
            said += f", cop number {number if number is not None else '> max'}"
        labels.append(f"{name}\n({said})")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.25)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_xlabel("share of the start pairs (one cop) or placements (several cops)")
    title = " vs ".join(f"{k} cop{'s' if k > 1 else ''}" for k in counts)
    ax.set_title(f"retrograde batch: outcomes per map, {title}")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.06),
              ncol=min(3 * len(counts), 6))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot written to {path}", file=sys.stderr)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+",
                        help="results files from `retrograde batch --out` (.jsonl or .csv)")
    parser.add_argument("--plot", help="PNG file for the plot (default: the first RESULTS.png)")
    parser.add_argument("--no-plot", action="store_true", help="print the tables only")
    args = parser.parse_args()
    rows = read_all(args.results)
    if not rows:
        sys.exit(f"{' '.join(args.results)}: no rows")
    print_table(rows)
    if not args.no_plot:
        plot(rows, args.plot or args.results[0] + ".png")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        # `| head` closed stdout: not an error worth a traceback.
        sys.stderr.close()
