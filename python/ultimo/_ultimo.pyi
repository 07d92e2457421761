"""Type stubs of the native module (src/lib.rs)."""

from typing import Any, List, Optional, Tuple, Union

import numpy as np

#: Planes of ``Board.to_planes``.
PLANES: int

Move = Union[str, int]

def engine_version() -> str:
    """The package's version."""

class Board:
    """An Ultimate Tic-Tac-Toe position and the moves that led to it.

    ``Board()`` is the empty board, ``Board(fen)`` a position, and
    ``Board(fen, moves=[...])`` the moves played from it. A bad FEN or an
    illegal move raises ``ValueError`` saying why.
    """

    def __init__(self, fen: Optional[str] = None, moves: Optional[List[Move]] = None) -> None: ...
    @property
    def turn(self) -> str:
        """``'x'`` or ``'o'``: the side to move."""
    @property
    def ply(self) -> int:
        """Moves played in the game (from the FEN's count)."""
    @property
    def move_stack(self) -> List[str]:
        """The moves pushed since the root, in order."""
    def legal_moves(self) -> List[str]:
        """The legal moves, in notation."""
    def legal_actions(self) -> List[int]:
        """The legal moves as actions (``9 * board + cell``)."""
    def legal_action_mask(self) -> np.ndarray:
        """81 ``int8``, 1 where the action is legal."""
    def action(self, move: Move) -> int:
        """A move's action."""
    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` (notation or action) is legal here."""
    def push(self, move: Move) -> None:
        """Plays ``move``; ``ValueError`` when it is not legal (the board
        is left as it was), ``TypeError`` when it is no move at all."""
    def pop(self) -> str:
        """Takes back the last move and returns it; ``IndexError`` at the
        root."""
    def peek(self) -> Optional[str]:
        """The last move, or None at the root."""
    def fen(self) -> str:
        """The position's FEN."""
    def root_fen(self) -> str:
        """The FEN of the position before the first pushed move."""
    def is_game_over(self) -> bool: ...
    def result(self) -> str:
        """``'1-0'``, ``'0-1'``, ``'1/2-1/2'`` or ``'*'`` (not over)."""
    def winner(self) -> Optional[str]:
        """``'x'``, ``'o'``, or None (a draw, or not over)."""
    def copy(self) -> "Board": ...
    def summary(self) -> str:
        """The facts the CLI prints under the diagram."""
    def to_planes(self) -> np.ndarray:
        """``(PLANES, 9, 9)`` ``uint8`` planes from the side to move's view."""
    def perft(self, depth: int) -> int:
        """Leaves of the move tree ``depth`` plies deep."""
    def random_playouts(self, n: int, seed: int = 0) -> Tuple[int, int, int]:
        """Wins of x, wins of o and draws of ``n`` random games."""
    def __eq__(self, other: Any) -> bool: ...
    def __hash__(self) -> int: ...

class Super15Board(Board):
    """Super 1 al 5's board: ``ultimo.super15.Board``. Actions are
    ``80 * from + to``; ``to_planes`` raises ``NotImplementedError``."""

class Engine:
    """The engine in process: one search tree of ``hash`` MiB over
    ``threads`` threads, kept from one search to the next."""

    def __init__(self, threads: int = 1, hash: int = 64, eval: str = "net", seed: int = 0) -> None: ...
    def analyse(
        self,
        board: Board,
        nodes: Optional[int] = None,
        time: Optional[float] = None,
        multipv: Optional[int] = None,
    ) -> "Analysis": ...

def solve(
    board: Board,
    time: Optional[float] = None,
    nodes: Optional[int] = None,
    hash: int = 256,
    threads: int = 1,
) -> "Solved": ...

class Line:
    """One root move of an analysis."""

    move: str
    visits: int
    wdl: Tuple[int, int, int]
    score: str
    cp: int
    value: float
    proven: Optional[str]
    pv: List[str]

class Analysis:
    """What a search found."""

    lines: List[Line]
    nodes: int
    time: float
    nps: int
    depth: int
    seldepth: int
    @property
    def best_move(self) -> Optional[str]: ...

class Solved:
    """What the solver found."""

    result: Optional[str]
    lower: str
    upper: str
    plies: Optional[int]
    line: List[str]
    nodes: int
    time: float
