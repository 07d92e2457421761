#!/usr/bin/env python3
"""How each engine spent its clock in a match's PGN (`ultimo match --tc
BASE+INC --pgnout FILE`): the share of its time it had left when the game
ended, and its median time a move by stage of the game.

    scripts/clock-left.py match.pgn

Reads the `TimeControl` tag (BASE+INC in seconds) and each move's time from
the `{score/depth 0.123s}` comment that `ultimo match` writes; book moves
count no time.
"""

import re
import statistics
import sys

TAG = re.compile(r'^\[(\w+) "(.*)"\]$')
MOVE = re.compile(r"(\d+)\.(\.\.)?\s*([a-i][1-9])\s*\{([^}]*)\}")
SECONDS = re.compile(r"(\d+(?:\.\d+)?)s\b")
STAGES = [(0, 20), (20, 40), (40, 60), (60, 200)]


def games(text):
    """Yields (tags, movetext) for each game of a PGN file."""
    tags, moves = {}, []
    for line in text.splitlines():
        m = TAG.match(line.strip())
        if m:
            if moves:
                yield tags, " ".join(moves)
                tags, moves = {}, []
            tags[m.group(1)] = m.group(2)
        elif line.strip():
            moves.append(line.strip())
    if moves:
        yield tags, " ".join(moves)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    left = {}
    by_stage = {}
    for tags, movetext in games(text):
        tc = tags.get("TimeControl", "")
        if "+" not in tc:
            sys.exit(f"a game without a BASE+INC TimeControl: {tc!r}")
        base, inc = (float(x) for x in tc.split("+"))
        names = (tags["White"], tags["Black"])
        used = [0.0, 0.0]
        moved = [0, 0]
        ply = 0
        for m in MOVE.finditer(movetext):
            side = 1 if m.group(2) else 0
            comment = m.group(4)
            ply += 1
            if "book" in comment:
                continue
            s = SECONDS.search(comment)
            if not s:
                continue
            t = float(s.group(1))
            used[side] += t
            moved[side] += 1
            for lo, hi in STAGES:
                if lo <= ply - 1 < hi:
                    by_stage.setdefault((names[side], lo), []).append(t)
        for side in (0, 1):
            total = base + inc * moved[side]
            left.setdefault(names[side], []).append((total - used[side]) / base)
    for name, shares in sorted(left.items()):
        q = statistics.quantiles(shares, n=4) if len(shares) > 1 else shares * 3
        print(
            f"{name}: {len(shares)} games, clock left at the end (share of the base): "
            f"median {statistics.median(shares):.2f}, quartiles {q[0]:.2f}-{q[2]:.2f}"
        )
        stages = []
        for lo, hi in STAGES:
            ts = by_stage.get((name, lo), [])
            if ts:
                stages.append(f"plies {lo}-{hi - 1}: {statistics.median(ts) * 1000:.0f} ms")
        print("  median time a move, " + ", ".join(stages))


if __name__ == "__main__":
    main()
