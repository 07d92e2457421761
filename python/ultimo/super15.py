"""Super 1 al 5, the second game Ultimo plays, from Python.

>>> from ultimo import super15
>>> board = super15.Board()
>>> board.turn
'x'
>>> len(board.legal_moves()) > 0
True

``Board`` has the same methods as ``ultimo.Board``; moves are written as
the engine writes them (``ultimo --game super15``), and an integer action
is ``80 * from + to`` (cells numbered ``10 * rank + file`` from ``a1``).
There is no ``to_planes`` for this game yet.
"""

from ._ultimo import Super15Board as _Board

Board = _Board

__all__ = ["Board"]
