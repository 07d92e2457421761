#!/usr/bin/env python3
"""The Python package's speed, side by side in one run (issue 37's figures).

    pip install './python[test]' open_spiel
    python3 scripts/python-speed.py [--ultimo target/release/ultimo] [--rounds 5]

1. Random playouts a second from Python: ultimo.Board's batch helper
   (random_playouts), a Python loop stepping ultimo.Board, and a Python
   loop stepping OpenSpiel's ultimate_tic_tac_toe (when pyspiel is there).
2. perft 6 from the empty board with ultimo.Board.perft.
3. ultimo.analyse over the positions of `ultimo bench` at its budget
   (50,000 nodes each, 1 thread, Hash 64, seed 0): the total node count
   must be bench's checksum, and the nps is set against `ultimo bench`'s,
   run alternately; for both evaluations. Then ultimo.analyse at 100,000
   nodes from the empty board with the net.

Medians of --rounds rounds; every ratio is of figures from the same round.
"""

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import time

import ultimo


def playouts_batch(n):
    start = time.perf_counter()
    ultimo.Board().random_playouts(n, seed=1)
    return n / (time.perf_counter() - start)


def playouts_python_ultimo(n, rng):
    start = time.perf_counter()
    for _ in range(n):
        board = ultimo.Board()
        while not board.is_game_over():
            board.push(rng.choice(board.legal_actions()))
    return n / (time.perf_counter() - start)


def playouts_python_openspiel(game, n, rng):
    start = time.perf_counter()
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
    return n / (time.perf_counter() - start)


def bench(binary, eval_name):
    out = subprocess.run(
        [binary, "bench", "--json", "--eval", eval_name],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def analyse_bench(positions, budget, eval_name):
    nodes = 0
    seconds = 0.0
    for fen in positions:
        found = ultimo.analyse(ultimo.Board(fen), nodes=budget, eval=eval_name)
        nodes += found.nodes
        seconds += found.time
    return nodes, nodes / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ultimo", default=shutil.which("ultimo") or "target/release/ultimo")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(1)
    try:
        import pyspiel

        game = pyspiel.load_game("ultimate_tic_tac_toe")
    except ImportError:
        game = None
        print("pyspiel is not installed: no OpenSpiel figures", file=sys.stderr)

    rows = {}

    def add(name, value):
        rows.setdefault(name, []).append(value)

    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        batch = playouts_batch(200_000)
        loop = playouts_python_ultimo(2_000, rng)
        add("playouts/s, ultimo.Board.random_playouts", batch)
        add("playouts/s, Python loop over ultimo.Board", loop)
        if game is not None:
            spiel = playouts_python_openspiel(game, 2_000, rng)
            add("playouts/s, Python loop over pyspiel", spiel)
            add("ratio: random_playouts / pyspiel loop", batch / spiel)
            add("ratio: ultimo.Board loop / pyspiel loop", loop / spiel)
        start = time.perf_counter()
        assert ultimo.Board().perft(6) == 4_020_960
        add("perft 6 from the start, seconds", time.perf_counter() - start)
        for eval_name in ("playout", "net"):
            report = bench(args.ultimo, eval_name)
            fens = [p["fen"] for p in report["positions"]]
            nodes, nps = analyse_bench(fens, report["nodes_per_position"], eval_name)
            add(f"bench --eval {eval_name}: node checksum, ultimo bench", report["nodes"])
            add(f"bench --eval {eval_name}: node checksum, ultimo.analyse", nodes)
            add(f"bench --eval {eval_name}: nps, ultimo bench", report["nps"])
            add(f"bench --eval {eval_name}: nps, ultimo.analyse", nps)
            add(f"bench --eval {eval_name}: ratio analyse / bench", nps / report["nps"])
        found = ultimo.analyse(ultimo.Board(), nodes=100_000)
        add("ultimo.analyse, 100,000 nodes from the start (net): nps", found.nps)

    width = max(len(name) for name in rows)
    for name, values in rows.items():
        median = statistics.median(values)
        text = f"{median:.3f}" if median < 100 else f"{median:,.0f}"
        print(f"{name:<{width}}  {text}  (median of {len(values)})")


if __name__ == "__main__":
    main()
