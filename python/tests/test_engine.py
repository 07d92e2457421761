"""The engine and the solver in process: results, errors, the GIL and
Ctrl-C."""

import os
import signal
import threading
import time

import pytest

import ultimo
from ultimo import super15

#: x to move wins at once with i9.
MATE_IN_ONE = "xxxxxxxx1/9/9/9/9/9/oo1o1o1oo/9/o7o x 9 i3"


def test_analyse_finds_the_win():
    found = ultimo.analyse(ultimo.Board(MATE_IN_ONE), nodes=5000, multipv=3)
    assert found.best_move == "i9"
    best = found.lines[0]
    assert best.move == "i9" and best.proven == "win" and best.score == "mate 1"
    assert best.pv[0] == "i9" and sum(best.wdl) == 1000
    # Proven at the root: the search may end before its first iteration.
    assert len(found.lines) == 3 and found.nodes >= 0


def test_analyse_follows_its_limits():
    board = ultimo.Board()
    found = ultimo.analyse(board, nodes=3000, threads=1)
    assert 3000 <= found.nodes < 3200 and found.nps > 0 and found.time > 0
    assert len(found.lines) == 81
    started = time.monotonic()
    found = ultimo.analyse(board, time=0.3, eval="playout")
    assert time.monotonic() - started < 60  # only a hang gets near this
    assert found.best_move in board.legal_moves()
    # Two threads, one tree.
    assert ultimo.analyse(board, nodes=4000, threads=2).best_move in board.legal_moves()


def test_a_node_limited_search_is_repeatable():
    board = ultimo.Board(moves=["e5", "e4"])
    first = ultimo.analyse(board, nodes=2000, seed=3)
    again = ultimo.analyse(board, nodes=2000, seed=3)
    assert [l.visits for l in first.lines] == [l.visits for l in again.lines]


def test_bad_settings_raise():
    board = ultimo.Board()
    with pytest.raises(ValueError, match="nodes=N or time"):
        ultimo.analyse(board)
    with pytest.raises(ValueError, match="eval"):
        ultimo.analyse(board, nodes=10, eval="magic")
    with pytest.raises(ValueError, match="threads"):
        ultimo.analyse(board, nodes=10, threads=0)
    with pytest.raises(ValueError, match="time"):
        ultimo.analyse(board, time=-1)
    with pytest.raises(ValueError, match="multipv"):
        ultimo.analyse(board, nodes=10, multipv=0)
    with pytest.raises(ValueError):
        ultimo.analyse(board, nodes=10, hash=0)
    over = ultimo.Board("xoooo4/x5x2/xo1xxxxxx/1xx4ox/6x2/1oox5/1ooxxoo1o/o1xo1o1oo/oox1xxxo1 o 22 a8")
    assert over.is_game_over() and over.result() == "1-0"
    with pytest.raises(ValueError, match="over"):
        ultimo.analyse(over, nodes=10)
    with pytest.raises(ValueError):
        ultimo.solve(board, hash=0)


def test_best_move_and_solve():
    board = ultimo.Board(MATE_IN_ONE)
    assert ultimo.best_move(board, nodes=1000) == "i9"
    solved = ultimo.solve(board, time=10)
    assert (solved.result, solved.plies, solved.line) == ("win", 1, ["i9"])
    assert solved.lower == solved.upper == "win"
    unsolved = ultimo.solve(ultimo.Board(), nodes=2000)
    assert unsolved.result is None and unsolved.nodes >= 1


def test_super15_searches_and_solves():
    board = super15.Board()
    found = ultimo.analyse(board, nodes=500)
    assert found.best_move in board.legal_moves()
    assert ultimo.solve(board, nodes=500).nodes > 0


def test_the_search_releases_the_gil():
    """Another Python thread runs while the engine thinks."""
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        ultimo.analyse(ultimo.Board(), time=0.5, eval="playout")
    finally:
        stop.set()
        ticker.join()
    assert len(ticks) >= 10, len(ticks)


@pytest.mark.skipif(os.name != "posix", reason="SIGINT to itself needs a POSIX system")
@pytest.mark.parametrize("work", ["analyse", "solve", "perft", "playouts"])
def test_ctrl_c_stops_the_work(work):
    board = ultimo.Board()
    run = {
        "analyse": lambda: ultimo.analyse(board, time=60, eval="playout"),
        "solve": lambda: ultimo.solve(board, time=60),
        "perft": lambda: board.perft(8),
        "playouts": lambda: board.random_playouts(50_000_000),
    }[work]
    # Python turns SIGINT into KeyboardInterrupt only where its handler is
    # installed: not when the parent ignored SIGINT (a job started in the
    # background by a shell without job control, as some CI runners are).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run()
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 30


def test_an_engine_keeps_its_tree_for_either_game():
    engine = ultimo.Engine(threads=1, hash=16, eval="playout", seed=1)
    first = engine.analyse(ultimo.Board(), nodes=2000)
    again = engine.analyse(ultimo.Board(), nodes=2000)
    # Each search starts from a cleared tree: the same search again.
    assert [l.visits for l in first.lines] == [l.visits for l in again.lines]
    assert engine.analyse(super15.Board(), nodes=300).best_move in super15.Board().legal_moves()
    with pytest.raises(TypeError):
        engine.analyse("e5", nodes=10)
    with pytest.raises(ValueError):
        ultimo.Engine(hash=0)
    with pytest.raises(ValueError, match="eval"):
        ultimo.Engine(eval="magic")
