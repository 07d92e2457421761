"""The board against OpenSpiel's independent ultimate_tic_tac_toe: legal
moves and results over 10,000 positions of random games. Skipped, saying
so, where open_spiel is not installed (pip install open_spiel)."""

import random

import pytest

import ultimo

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")

POSITIONS = 10_000


def forced_board(state):
    """OpenSpiel's board to play on, or None when the player picks one."""
    for line in str(state).splitlines():
        if line.startswith("Forced board:"):
            value = line.split(":", 1)[1].strip()
            return None if value == "any" else int(value)
    raise AssertionError(f"no forced board in {state}")


def test_agrees_with_openspiel_over_random_games():
    game = pyspiel.load_game("ultimate_tic_tac_toe")
    rng = random.Random(2026)
    compared = games = 0
    while compared < POSITIONS:
        games += 1
        state = game.new_initial_state()
        board = ultimo.Board()
        while True:
            assert state.is_terminal() == board.is_game_over(), board.fen()
            if board.is_game_over():
                break
            ours = set(board.legal_actions())
            assert state.current_player() == (0 if board.turn == "x" else 1)
            forced = forced_board(state)
            if forced is None:
                # OpenSpiel picks the board first, then the cell.
                assert set(state.legal_actions()) == {a // 9 for a in ours}, board.fen()
                b = rng.choice(state.legal_actions())
                state.apply_action(b)
            else:
                b = forced
            assert {9 * b + c for c in state.legal_actions()} == {a for a in ours if a // 9 == b}
            if forced is not None:
                assert {a // 9 for a in ours} == {b}, board.fen()
            c = rng.choice(state.legal_actions())
            state.apply_action(c)
            board.push(9 * b + c)
            compared += 1
        x_return = state.returns()[0]
        expected = {1.0: "x", -1.0: "o", 0.0: None}[x_return]
        assert board.winner() == expected, board.fen()
    assert compared >= POSITIONS
