"""Ultimate Tic-Tac-Toe as a PettingZoo AEC environment (needs the ``rl``
extra: ``pip install './python[rl]'``).

Agents are ``"x"`` (first) and ``"o"``. An action is a cell, ``9 * board +
cell`` (0-80). An observation is a dict of:

- ``observation``: ``(7, 9, 9)`` ``uint8`` planes seen from the observing
  agent (see ``Board.to_planes``); for the agent not to move, its marks and
  won boards are still planes 0 and 3 and plane 2 (the legal moves) is empty;
- ``action_mask``: 81 ``int8``, 1 where the action is legal for the agent
  (all 0 for the agent not to move).

The winner gets reward 1 and the loser -1 when the game ends; a draw gives
both 0. An illegal action raises ``ValueError`` (check the mask).
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import ultimo

__all__ = ["env", "raw_env"]


def env(render_mode: Optional[str] = None) -> AECEnv:
    """The environment with PettingZoo's usual checks around it (actions in
    range, no acting after the end, reset before use)."""
    wrapped = raw_env(render_mode=render_mode)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):
    """The environment itself; ``env()`` wraps it."""

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "ultimo_uttt_v0",
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: Optional[str] = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = ["x", "o"]
        self.board = ultimo.Board()
        observation = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (ultimo.PLANES, 9, 9), dtype=np.uint8),
                "action_mask": spaces.Box(0, 1, (81,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(81) for a in self.possible_agents}

    def observation_space(self, agent):
        """The observation space of ``agent`` (the same for both)."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """The action space of ``agent``: the 81 cells."""
        return self.action_spaces[agent]

    def observe(self, agent):
        """``agent``'s observation: its planes and its action mask."""
        planes = np.array(self.board.to_planes())
        if agent != self.board.turn:
            # Seen from the agent not to move: its own planes first, and no
            # legal moves.
            planes[[0, 1]] = planes[[1, 0]]
            planes[[3, 4]] = planes[[4, 3]]
            planes[2] = 0
            mask = np.zeros(81, dtype=np.int8)
        else:
            mask = np.array(self.board.legal_action_mask(), dtype=np.int8)
        return {"observation": planes, "action_mask": mask}

    def reset(self, seed=None, options=None):
        """A new game from the empty board, or from ``options["fen"]``
        (the game has no randomness: ``seed`` changes nothing)."""
        fen = (options or {}).get("fen")
        self.board = ultimo.Board(fen) if fen else ultimo.Board()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.board.turn
        if self.board.is_game_over():
            self._end()

    def step(self, action):
        """The agent to move plays ``action``; ``ValueError`` when it is
        not legal."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0
        self.board.push(int(action))
        if self.board.is_game_over():
            self._end()
        else:
            self.agent_selection = self.board.turn
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end(self) -> None:
        winner = self.board.winner()
        for a in self.agents:
            self.rewards[a] = 0 if winner is None else (1 if a == winner else -1)
            self.terminations[a] = True

    def render(self):
        """The board diagram: printed (``human``) or returned (``ansi``)."""
        if self.render_mode is None:
            return None
        text = str(self.board)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        """Nothing to release."""
        pass
