#!/usr/bin/env python3
"""Positions from the games of a PGN file, for the solver's benchmark.

Usage: pgn-positions.py GAMES.pgn ULTIMO [PER_GAME] > positions.txt

Takes from each distinct game (a match between two copies of one engine
plays each opening twice, the same game) PER_GAME positions (default 2)
spread over plies 24-40: game k gives plies 24 + (5k mod 9) and
32 + (3k mod 9). A position whose game is over is skipped. Prints one
line per position, `<fen>;moves <m1 m2 ...>;game <k> ply <p>`; the FEN
comes from `ULTIMO solve --moves ... --nodes 1 --json`.
"""
import json, subprocess, sys

from pgn_moves import games


def main():
    pgn, ultimo = sys.argv[1], sys.argv[2]
    per_game = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    seen, k = set(), 0
    for moves in games(open(pgn).read()):
        if tuple(moves) in seen:
            continue
        seen.add(tuple(moves))
        plies = [24 + (5 * k) % 9, 32 + (3 * k) % 9][:per_game]
        for ply in plies:
            if ply >= len(moves):
                continue
            line = moves[:ply]
            out = subprocess.run([ultimo, 'solve', '--nodes', '1', '--hash', '1', '--json', '--moves', *line],
                                 capture_output=True, text=True, check=True).stdout
            fen = json.loads(out)['fen']
            print(f"{fen};moves {' '.join(line)};game {k} ply {ply}")
        k += 1

main()
