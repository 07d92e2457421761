"""The board: moves, FEN, results, actions, planes and the fast loops."""

import copy

import pytest

import ultimo
from ultimo import super15


def test_the_empty_board():
    board = ultimo.Board()
    assert board.fen() == ultimo.STARTING_FEN
    assert board.turn == "x" and board.ply == 0
    assert len(board.legal_moves()) == 81
    assert board.legal_actions() == list(range(81))
    assert board.result() == "*" and board.winner() is None
    assert not board.is_game_over()
    assert board.move_stack == [] and board.peek() is None
    assert repr(board) == "Board('9/9/9/9/9/9/9/9/9 x 1 0000')"


def test_push_and_pop():
    board = ultimo.Board()
    board.push("e5")
    board.push(36)  # d6: board 4 (the centre), cell 0
    assert board.move_stack == ["e5", "d6"] and board.peek() == "d6"
    assert board.fen() == "9/9/9/3o5/4x4/9/9/9/9 x 2 d6"
    assert board.root_fen() == ultimo.STARTING_FEN
    assert board.pop() == "d6"
    assert board.pop() == "e5"
    assert board == ultimo.Board()
    with pytest.raises(IndexError):
        board.pop()


def test_bad_moves_raise_and_change_nothing():
    board = ultimo.Board(moves=["e5"])
    before = board.fen()
    with pytest.raises(ValueError, match="a1"):
        board.push("a1")
    with pytest.raises(ValueError):
        board.push("z9")
    with pytest.raises(ValueError, match="0 to 80"):
        board.push(81)
    with pytest.raises(ValueError):
        board.push(-1)
    with pytest.raises(TypeError):
        board.push(None)
    assert board.fen() == before and board.move_stack == ["e5"]
    assert not board.is_legal("a1") and board.is_legal("d4") and not board.is_legal("zz")


def test_bad_fens_raise():
    for fen in ["", "9/9/9 x 1 0000", "9/9/9/9/9/9/9/9/9 z 1 0000", "x" * 200]:
        with pytest.raises(ValueError):
            ultimo.Board(fen)
    with pytest.raises(ValueError):
        ultimo.Board(moves=["e5", "e5"])


def test_actions_name_the_same_cells_as_moves():
    board = ultimo.Board()
    for action, move in zip(board.legal_actions(), board.legal_moves()):
        assert board.action(move) == action == board.action(action)
    assert board.action("a9") == 0 and board.action("e5") == 40 and board.action("i1") == 80


def test_copies_and_hashes():
    board = ultimo.Board(moves=["e5", "e4"])
    for other in (board.copy(), copy.copy(board), copy.deepcopy(board)):
        assert other == board and hash(other) == hash(board)
        other.push(other.legal_moves()[0])
        assert other != board
    assert len({ultimo.Board(), ultimo.Board(), board}) == 2


def test_the_reference_positions(reference_positions):
    """Every line of the independent implementation's 300 positions: legal
    moves, perft 1-3, result, and the moves that lead there."""
    assert len(reference_positions) == 300
    for row in reference_positions:
        board = ultimo.Board(row["fen"])
        assert board.fen() == row["fen"]
        assert sorted(board.legal_moves()) == sorted(row.get("legal", []))
        assert [board.perft(d) for d in (1, 2, 3)] == [int(n) for n in row["perft"]]
        expected = {"none": "*", "x": "1-0", "o": "0-1", "draw": "1/2-1/2"}[row["result"]]
        assert board.result() == expected
        if "moves" in row:
            assert ultimo.Board(moves=row["moves"]).fen() == row["fen"]


def test_perft_of_the_start():
    lines = (
        l.split() for l in (pytest.importorskip("pathlib").Path(__file__).resolve().parents[2]
                            / "tests" / "data" / "perft-startpos.txt").read_text().splitlines()
        if l.strip() and not l.startswith("#")
    )
    counts = {int(d): int(n) for d, n in (l[:2] for l in lines)}
    for depth in range(1, 6):
        assert ultimo.Board().perft(depth) == counts[depth]


def test_random_playouts_are_seeded_and_add_up():
    board = ultimo.Board()
    x, o, draws = board.random_playouts(2000, seed=7)
    assert x + o + draws == 2000
    assert board.random_playouts(2000, seed=7) == (x, o, draws)
    # engine notes: random games from the start, x wins about 0.40-0.45.
    assert 0.35 < x / 2000 < 0.50, (x, o, draws)


def test_planes():
    np = pytest.importorskip("numpy")
    board = ultimo.Board(moves=["e5"])
    planes = board.to_planes()
    assert planes.shape == (ultimo.PLANES, 9, 9) and planes.dtype == np.uint8
    assert planes[1, 4, 4] == 1 and planes[0].sum() == 0  # o to move: x's mark is the opponent's
    assert planes[2].sum() == 8 and planes[2, 3:6, 3:6].sum() == 8
    assert planes[6].sum() == 0
    mask = board.legal_action_mask()
    assert mask.shape == (81,) and mask.sum() == 8
    assert sorted(mask.nonzero()[0].tolist()) == board.legal_actions()
    # A won board: x takes the top-left board with a9, b9 and c9.
    won = ultimo.Board(moves=["a9", "b8", "e5", "d6", "b9", "d9", "c9"])
    assert won.turn == "o"
    planes = won.to_planes()
    assert planes[4, 0:3, 0:3].sum() == 9 and planes[3].sum() == 0


def test_super15_board():
    board = super15.Board()
    assert board.turn == "x"
    moves = board.legal_moves()
    assert moves and len(board.legal_actions()) == len(moves)
    board.push(moves[0])
    assert board.move_stack == [moves[0]]
    assert super15.Board(board.fen()) == board
    assert board.pop() == moves[0]
    with pytest.raises(ValueError):
        board.push("nonsense")
    with pytest.raises(NotImplementedError):
        board.to_planes()
    assert "x" in str(board)
    x, o, draws = board.random_playouts(100, seed=1)
    assert x + o + draws == 100
    assert board.perft(2) > 0
