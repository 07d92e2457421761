#!/usr/bin/env python3
"""The accuracy table from the results files of scripts/analysis-accuracy.sh
(its --out RESULTS): one row per Hash and time, one column per build, each
cell the share of positions whose best move keeps the proven value and the
share whose reported result is right, with how many positions were counted.

    scripts/accuracy-table.py [--lines FROM-TO] RESULTS...

A build's cell counts the positions within --lines (all by default) that
its file has; where two builds have different positions, only those both
have are counted, so that a row compares like with like (the count says
how many). Each file's first line names its time, Hash and build, as
analysis-accuracy.sh writes it; the columns come in the order the files
first name their builds.
"""
import argparse
import re
import sys
from collections import defaultdict

HEADER = re.compile(r"--time (\S+) --hash (\S+),.*\(commit (\w+)")


def read(path):
    """(time, hash, commit) and {position: (move right, result right)}."""
    key = None
    rows = {}
    try:
        f = open(path)
    except OSError as e:
        sys.exit(f"error: {path}: {e.strerror}")
    with f:
        for line in f:
            if line.startswith("#"):
                m = HEADER.search(line)
                if m is None:
                    continue
                this = (float(m.group(1)), m.group(2), m.group(3))
                if key is not None and this != key:
                    sys.exit(f"error: {path} mixes runs: {key} and {this}")
                key = this
                continue
            fields = line.split()
            if len(fields) < 8 or not fields[0].isdigit():
                continue
            rows[int(fields[0])] = (fields[4] == "yes", fields[7] == "yes")
    if key is None:
        sys.exit(f"error: {path} has no header line from analysis-accuracy.sh")
    return key, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", help="FROM-TO: only these positions")
    ap.add_argument("results", nargs="+")
    args = ap.parse_args()
    first, last = 1, 10**9
    if args.lines:
        try:
            first, last = (int(x) for x in args.lines.split("-"))
        except ValueError:
            sys.exit(f"error: --lines wants FROM-TO, not {args.lines}")
    runs = defaultdict(dict)  # (hash, time) -> commit -> rows
    commits = []
    for path in args.results:
        (time, hash_mb, commit), rows = read(path)
        rows = {n: r for n, r in rows.items() if first <= n <= last}
        runs[(hash_mb, time)][commit] = rows
        if commit not in commits:
            commits.append(commit)
    print("| Hash, time | " + " | ".join(commits) + " |")
    print("|---|" + "---|" * len(commits))
    for (hash_mb, time) in sorted(runs, key=lambda k: (int(k[0]), k[1])):
        builds = runs[(hash_mb, time)]
        common = set.intersection(*(set(r) for r in builds.values()))
        cells = []
        for c in commits:
            if c not in builds:
                cells.append("")
                continue
            rows = [builds[c][n] for n in common]
            n = len(rows)
            if n == 0:
                cells.append("-")
                continue
            moves = sum(m for m, _ in rows)
            results = sum(r for _, r in rows)
            cells.append(f"{100 * moves / n:.1f}%, {100 * results / n:.1f}% ({n})")
        print(f"| {hash_mb} MiB, {time:g} s | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
