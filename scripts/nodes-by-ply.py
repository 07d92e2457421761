#!/usr/bin/env python3
"""How many nodes a search reaches in a fixed time, by ply of the game.

Usage: scripts/nodes-by-ply.py GAMES.pgn ULTIMO [NAME=VALUE ...]

Takes from each distinct game of GAMES.pgn (the first 20) the positions
at plies 14, 17, ..., 44 (where the game goes on for at least two more
plies), searches each from a fresh game (`ucinewgame`) with
`go movetime 100`, and prints for each ply the number of positions and
the median of the `nodes` of the search's last `info` line. Each
NAME=VALUE is sent first as `setoption name NAME value VALUE` (for
example SolveLeafNodes=50 or SolveLeaves=0). The environment variable
GO replaces `movetime 100` (GO="nodes 30000"). Run it on an idle
machine: the figures are the machine's speed.
"""
import os
import re
import statistics
import subprocess
import sys

from pgn_moves import games

PLIES = range(14, 45, 3)
GAMES = 20


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pgn, ultimo, options = sys.argv[1], sys.argv[2], sys.argv[3:]
    go = os.environ.get('GO', 'movetime 100')
    p = subprocess.Popen([ultimo], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        p.stdin.write(line + '\n')
        p.stdin.flush()

    def read():
        line = p.stdout.readline()
        if not line:
            sys.exit('the engine ended')
        return line

    send('uci')
    while read().strip() != 'uciok':
        pass
    for option in options:
        name, eq, value = option.partition('=')
        if not eq:
            sys.exit(f'{option}: expected NAME=VALUE')
        send(f'setoption name {name} value {value}')
    send('isready')
    while (line := read().strip()) != 'readyok':
        if line.startswith('info string error'):
            sys.exit(line)
    seen, nodes = set(), {ply: [] for ply in PLIES}
    for moves in games(open(pgn).read()):
        if len(seen) == GAMES:
            break
        if tuple(moves) in seen:
            continue
        seen.add(tuple(moves))
        for ply in PLIES:
            if ply + 2 > len(moves):
                continue
            send('ucinewgame')
            send('position startpos moves ' + ' '.join(moves[:ply]))
            send('go ' + go)
            last = None
            while not (line := read()).startswith('bestmove'):
                if line.startswith('info') and ' nodes ' in line:
                    last = line
            if last is None:
                sys.exit(f'no info line for ply {ply} of game {len(seen)}')
            nodes[ply].append(int(re.search(r' nodes (\d+)', last).group(1)))
    send('quit')
    print('ply positions median_nodes')
    for ply, found in nodes.items():
        if found:
            print(f'{ply} {len(found)} {statistics.median(found):.0f}')


if __name__ == '__main__':
    main()
