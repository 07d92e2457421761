#!/usr/bin/env python3
"""Does each level see a win in one, and keep from handing one over?

Random games give positions; the engine itself (its `moves` and `query
result` commands) finds in each the moves that win at once and the moves
after which the opponent can win at once. Then each level of `ultimo
levels` (and full strength) is asked for its move in every position:

- wins taken: of the positions with a win in one, the share where the
  level played one;
- threats kept: of the positions without one where some move hands the
  opponent a win in one and another does not, the share where the level's
  move hands over none.

Prints a markdown table. Usage:

    scripts/level-tactics.py [--games N] [--threat-share F] [--seed S]
                             [--game uttt|super15] [ULTIMO]

(defaults: 30 random games, threats looked for in a quarter of their
positions, seed 1, uttt, target/release/ultimo). Each level plays at
100 ms a move.
"""

import argparse
import random
import subprocess
import sys


class Engine:
    """An ultimo process spoken to line by line."""

    def __init__(self, path, game):
        self.p = subprocess.Popen(
            [path, "--game", game],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def until(self, prefix):
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("error: the engine ended")
            if line.startswith(prefix):
                return line.strip()

    def moves(self, played):
        self.send("position startpos moves " + " ".join(played))
        self.send("moves")
        return self.until("moves").split()[1:]

    def over(self, played):
        self.send("position startpos moves " + " ".join(played))
        self.send("query result")
        return self.until("response").split()[1] != "none"

    def close(self):
        self.send("quit")
        self.p.wait()


def wins(engine, played, legal):
    """The moves of `legal` that win the game at once for the side to move
    after `played`."""
    out = []
    for m in legal:
        engine.send("position startpos moves " + " ".join(played + [m]))
        engine.send("query result")
        r = engine.until("response").split()[1]
        mover = "p1win" if len(played) % 2 == 0 else "p2win"
        if r == mover:
            out.append(m)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--threat-share", type=float, default=0.25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--game", default="uttt")
    ap.add_argument("ultimo", nargs="?", default="target/release/ultimo")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    probe = Engine(a.ultimo, a.game)

    # Positions (as move lists) and what their moves do.
    wins_at, threats_at = [], []
    for g in range(a.games):
        print(f"random game {g + 1} of {a.games}...", file=sys.stderr)
        played = []
        while True:
            legal = probe.moves(played)
            if not legal:
                break
            w = wins(probe, played, legal)
            if w:
                wins_at.append((list(played), set(w)))
            elif rng.random() < a.threat_share:
                # Each move and each reply: checked in a share of the
                # positions only, as it takes a few thousand queries.
                bad = set()
                for m in legal:
                    after = played + [m]
                    if probe.over(after):
                        continue
                    if wins(probe, after, probe.moves(after)):
                        bad.add(m)
                if bad and len(bad) < len(legal):
                    threats_at.append((list(played), bad))
            played.append(rng.choice(legal))
    probe.close()

    levels = subprocess.run(
        [a.ultimo, "levels", "--game", a.game], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    table = [(l.split()[0], l.split()[1]) for l in levels[1:] if l.split()[0].isdigit()]
    table.append(("full", None))

    print(f"| level | nominal Elo | wins in one taken ({len(wins_at)} positions) "
          f"| threats kept from ({len(threats_at)} positions) |")
    print("|---|---|---|---|")
    for level, elo in table:
        print(f"level {level}...", file=sys.stderr)
        e = Engine(a.ultimo, a.game)
        if elo:
            e.send("setoption name UCI_LimitStrength value true")
            e.send(f"setoption name UCI_Elo value {elo}")

        def best(played):
            e.send("position startpos moves " + " ".join(played))
            e.send("go movetime 100")
            return e.until("bestmove").split()[1]

        took = sum(best(p) in w for p, w in wins_at)
        kept = sum(best(p) not in bad for p, bad in threats_at)
        e.close()
        print(f"| {level} | {elo or '-'} | {took / max(1, len(wins_at)):.0%} "
              f"| {kept / max(1, len(threats_at)):.0%} |")


if __name__ == "__main__":
    main()
