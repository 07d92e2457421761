"""Ultimate Tic-Tac-Toe from Python: the Ultimo engine's board, search and
solver in process, a client for UGI engine processes, and environments for
reinforcement learning.

>>> import ultimo
>>> board = ultimo.Board()
>>> board.push("e5")
>>> board.fen()
'9/9/9/9/4x4/9/9/9/9 o 1 e5'
>>> len(board.legal_moves())
8

Moves are written as the engine writes them: files ``a``-``i`` from the
left, ranks ``1``-``9`` from the bottom, ``e5`` the centre. A move is also
an integer action ``9 * board + cell`` (0-80), boards and cells in reading
order from the top left.
"""

from __future__ import annotations

from typing import Optional, Union

import threading

from ._ultimo import PLANES, Analysis, Board, Engine, Line, Solved, engine_version
from ._ultimo import solve as _solve

__all__ = [
    "Board",
    "Engine",
    "Analysis",
    "Line",
    "Solved",
    "analyse",
    "best_move",
    "solve",
    "PLANES",
    "STARTING_FEN",
    "__version__",
]

__version__: str = engine_version()

#: The empty board's FEN.
STARTING_FEN = "9/9/9/9/9/9/9/9/9 x 1 0000"

#: A move: its notation (``"e5"``) or, in Ultimate Tic-Tac-Toe, its action.
Move = Union[str, int]


#: Each thread's engines, by their settings: a tree is allocated once and
#: reused by the searches that follow, as ``ultimo bench`` does.
_engines = threading.local()


def _engine(threads: int, hash: int, eval: str, seed: int) -> Engine:
    cache = getattr(_engines, "cache", None)
    if cache is None:
        cache = _engines.cache = {}
    key = (threads, hash, eval, seed)
    if key not in cache:
        cache.clear()  # one tree per thread at a time: Hash is a bound
        cache[key] = Engine(threads=threads, hash=hash, eval=eval, seed=seed)
    return cache[key]


def analyse(
    board,
    nodes: Optional[int] = None,
    time: Optional[float] = None,
    threads: int = 1,
    multipv: Optional[int] = None,
    hash: int = 64,
    eval: str = "net",
    seed: int = 0,
) -> Analysis:
    """Searches ``board`` (either game's) for ``nodes`` iterations or
    ``time`` seconds, whichever ends first, and returns what it found: a
    line per root move, best first, with visits, win/draw/loss chances
    (permille) for the side to move, score and the expected line;
    ``multipv`` keeps the best ones only. The GIL is released while the
    engine thinks; Ctrl-C stops the search and raises ``KeyboardInterrupt``.
    ``hash`` is the tree's memory in MiB, ``eval`` ``"net"`` (the learned
    evaluation) or ``"playout"``. Each search starts from a cleared tree;
    the tree itself is kept for the next call with the same settings (an
    ``Engine`` does the same for code that holds one).

    >>> found = analyse(Board(), nodes=2000, multipv=3)
    >>> len(found.lines), sum(found.lines[0].wdl)
    (3, 1000)
    """
    engine = _engine(threads, hash, eval, seed)
    return engine.analyse(board, nodes=nodes, time=time, multipv=multipv)


def best_move(
    board,
    nodes: Optional[int] = None,
    time: Optional[float] = None,
    threads: int = 1,
    hash: int = 64,
    eval: str = "net",
    seed: int = 0,
) -> Optional[str]:
    """The engine's move in ``board`` after a search as ``analyse`` makes.

    >>> best_move(Board("xxxxxxxx1/9/9/9/9/9/oo1o1o1oo/9/o7o x 9 i3"), nodes=1000)
    'i9'
    """
    return analyse(
        board, nodes=nodes, time=time, threads=threads, hash=hash, eval=eval, seed=seed
    ).best_move


def solve(
    board,
    time: Optional[float] = None,
    nodes: Optional[int] = None,
    hash: int = 256,
    threads: int = 1,
) -> Solved:
    """Proves ``board`` won, drawn or lost for the side to move with the
    df-pn solver, within ``time`` seconds or ``nodes`` nodes (no limit when
    neither is given; Ctrl-C stops it). ``result`` is ``'win'``, ``'draw'``,
    ``'loss'``, or None when a limit came first (``lower`` and ``upper``
    then bound it); ``line`` is the proof's line.

    >>> found = solve(Board("xxxxxxxx1/9/9/9/9/9/oo1o1o1oo/9/o7o x 9 i3"), time=10)
    >>> found.result, found.plies, found.line
    ('win', 1, ['i9'])
    """
    return _solve(board, time=time, nodes=nodes, hash=hash, threads=threads)

from . import super15  # noqa: E402  (ultimo.super15.Board without an import)
