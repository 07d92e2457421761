"""A single-agent Gymnasium environment: the agent plays one side of
Ultimate Tic-Tac-Toe, the Ultimo engine the other (needs the ``rl`` extra).

>>> from ultimo.gym import UltimoEnv
>>> env = UltimoEnv(play_as="x", nodes=200)
>>> obs, info = env.reset(seed=0)
>>> obs.shape, int(info["action_mask"].sum())
((7, 9, 9), 81)
"""

from __future__ import annotations

from typing import Optional

import gymnasium
import numpy as np
from gymnasium import spaces

import ultimo

__all__ = ["UltimoEnv"]


class UltimoEnv(gymnasium.Env):
    """The agent plays ``play_as`` (``"x"`` moves first, ``"o"`` second)
    against the engine searching ``nodes`` iterations a move (``eval``
    ``"net"`` or ``"playout"``; fewer nodes make a weaker opponent).

    Observations are the planes of ``Board.to_planes`` from the agent's side
    (always the side to move when the agent acts); actions are cells 0-80.
    A win gives reward 1, a loss -1, a draw 0. An illegal action loses the
    game at once (reward -1, ``info["illegal"]`` True); ``info["action_mask"]``
    and ``action_masks()`` say which actions are legal.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        play_as: str = "x",
        nodes: int = 1000,
        eval: str = "net",
        render_mode: Optional[str] = None,
    ):
        if play_as not in ("x", "o"):
            raise ValueError(f"play_as is 'x' or 'o', got {play_as!r}")
        if nodes < 1:
            raise ValueError(f"nodes must be at least 1, got {nodes}")
        self.play_as = play_as
        self.nodes = nodes
        self.eval = eval
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0, 1, (ultimo.PLANES, 9, 9), dtype=np.uint8)
        self.action_space = spaces.Discrete(81)
        self.board = ultimo.Board()
        self._seed = 0
        self._done = True

    def action_masks(self) -> np.ndarray:
        """The legal actions as a boolean mask (sb3-contrib's convention)."""
        return np.asarray(self.board.legal_action_mask(), dtype=bool)

    def _observe(self, **extra):
        info = {"action_mask": np.asarray(self.board.legal_action_mask(), dtype=np.int8)}
        info.update(extra)
        return np.array(self.board.to_planes()), info

    def _engine_moves(self) -> None:
        if not self.board.is_game_over() and self.board.turn != self.play_as:
            self._seed += 1
            move = ultimo.best_move(self.board, nodes=self.nodes, eval=self.eval, seed=self._seed)
            self.board.push(move)

    def _reward(self) -> float:
        winner = self.board.winner()
        return 0.0 if winner is None else (1.0 if winner == self.play_as else -1.0)

    def reset(self, seed=None, options=None):
        """A new game from the empty board (or ``options["fen"]``); when the
        engine moves first, its move is played. ``seed`` seeds the engine's
        searches."""
        super().reset(seed=seed)
        self._seed = int(self.np_random.integers(1 << 31))
        fen = (options or {}).get("fen")
        self.board = ultimo.Board(fen) if fen else ultimo.Board()
        self._engine_moves()
        self._done = self.board.is_game_over()
        return self._observe()

    def step(self, action):
        """The agent plays ``action``, then the engine replies; returns
        ``(observation, reward, terminated, truncated, info)``."""
        if self._done:
            raise RuntimeError("the game is over: call reset()")
        if not self.board.is_legal(int(action)):
            self._done = True
            obs, info = self._observe(illegal=True)
            return obs, -1.0, True, False, info
        self.board.push(int(action))
        self._engine_moves()
        over = self._done = self.board.is_game_over()
        obs, info = self._observe(illegal=False)
        return obs, self._reward() if over else 0.0, over, False, info

    def render(self):
        """The board diagram (``ansi``), or None."""
        if self.render_mode == "ansi":
            return str(self.board)
        return None
