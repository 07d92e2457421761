#!/usr/bin/env python3
"""Positions labelled with their proven value, for the analysis benchmark.

Usage: analysis-positions.py GAMES.pgn ULTIMO [SECONDS] > positions.txt

Takes positions at plies 26-40 of the games of a PGN file (two a game:
plies 26 + (5k mod 8) and 34 + (3k mod 7) of game k; repeated games
once) and proves every move of each with the solver (`go solve` in one
ULTIMO protocol process, its table kept from one solve to the next, at
most SECONDS each, default 5). A position is kept when every move is
solved and not every move keeps its value (a position where any move
will do tests nothing). Prints one line per position:

    <fen>;value win|draw|loss;keep <moves that keep the value>;moves <m1 m2 ...>;ply <p>

`value` is for the side to move; `keep` lists the moves whose position
is proven the opposite for the opponent (a loss after a win, a draw after
a draw). Progress goes to standard error.
"""
import re
import subprocess
import sys

OPPOSITE = {'win': 'loss', 'draw': 'draw', 'loss': 'win'}


def games(text):
    for block in re.split(r'\n\s*\n(?=\[)', text):
        body = '\n'.join(l for l in block.splitlines() if not l.startswith('['))
        body = re.sub(r'\{[^}]*\}', ' ', body)
        body = re.sub(r'\([^)]*\)', ' ', body)
        moves = [t for t in body.split() if re.fullmatch(r'[a-i][1-9]', t)]
        if moves:
            yield moves


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.send('setoption name Hash value 256')

    def send(self, line):
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()

    def until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError('the engine quit')
            line = line.rstrip('\n')
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def position(self, moves):
        self.send('position startpos moves ' + ' '.join(moves) if moves else 'position startpos')

    def fen_and_moves(self, moves):
        self.position(moves)
        self.send('d')
        fen = next(l[4:] for l in self.until('fen ') if l.startswith('fen '))
        self.send('moves')
        legal = self.until('moves')[-1].split()[1:]
        return fen, legal

    def solve(self, moves, seconds):
        """The proven result for the side to move after `moves`, or None."""
        self.position(moves)
        self.send(f'go solve movetime {int(seconds * 1000)}')
        result = None
        for line in self.until('bestmove'):
            m = re.match(r'info string solve result (\w+)', line)
            if m:
                result = m.group(1)
        return None if result == 'unknown' else result


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pgn, ultimo = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    engine = Engine(ultimo)
    seen, k, kept = set(), 0, 0
    for moves in games(open(pgn).read()):
        if tuple(moves) in seen:
            continue
        seen.add(tuple(moves))
        for ply in (26 + (5 * k) % 8, 34 + (3 * k) % 7):
            if ply >= len(moves):
                continue
            line = moves[:ply]
            fen, legal = engine.fen_and_moves(line)
            children = {}
            for m in legal:
                r = engine.solve(line + [m], seconds)
                if r is None:
                    break
                children[m] = r
            if len(children) < len(legal) or not legal:
                continue
            # The value for the side to move: the best of the opponent's
            # results after each move, turned round.
            mine = [OPPOSITE[r] for r in children.values()]
            value = next(v for v in ('win', 'draw', 'loss') if v in mine)
            keep = [m for m in legal if OPPOSITE[children[m]] == value]
            if len(keep) == len(legal):
                continue
            kept += 1
            print(f"{fen};value {value};keep {' '.join(keep)};moves {' '.join(line)};ply {ply}",
                  flush=True)
        k += 1
        print(f'game {k}: {kept} positions', file=sys.stderr, flush=True)
    engine.send('quit')


if __name__ == '__main__':
    main()
