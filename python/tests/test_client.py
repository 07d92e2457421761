"""ultimo.engine.Engine against a real engine process: the ultimo binary
(built by cargo; skipped, saying so, when there is none)."""

import pytest

import ultimo
from ultimo.engine import Engine, EngineError, parse_info

MATE_IN_ONE = "xxxxxxxx1/9/9/9/9/9/oo1o1o1oo/9/o7o x 9 i3"


def test_play_and_analyse(ultimo_binary):
    with Engine([ultimo_binary]) as engine:
        assert engine.name and engine.name.startswith("Ultimo")
        assert "Hash" in engine.options
        engine.configure({"Hash": 16, "UCI_ShowWDL": True})
        engine.new_game()
        board = ultimo.Board(moves=["e5"])
        move = engine.play(board, nodes=2000)
        assert move in board.legal_moves()
        info = engine.analyse(ultimo.Board(MATE_IN_ONE), nodes=2000)
        assert info["bestmove"] == "i9"
        assert info["score"] == ("mate", 1) and info["pv"][0] == "i9"
        # Moves are sent from the board's root.
        board = ultimo.Board(MATE_IN_ONE, moves=[])
        assert engine.play(board, movetime=0.1) == "i9"


def test_uci_dialect(ultimo_binary):
    with Engine([ultimo_binary], protocol="uci") as engine:
        assert engine.play(ultimo.Board(), nodes=500) in ultimo.Board().legal_moves()


def test_engines_that_fail_raise():
    with pytest.raises(EngineError, match="cannot start"):
        Engine(["/nonexistent/engine"])
    with pytest.raises(EngineError, match="ended"):
        Engine(["true"])
    with pytest.raises(EngineError, match="within"):
        Engine(["sleep", "30"], timeout=0.5)
    with pytest.raises(ValueError):
        Engine(["true"], protocol="xboard")


def test_info_lines():
    info = parse_info("info depth 7 seldepth 15 multipv 1 score mate -3 wdl 0 0 1000 nodes 5 pv a1")
    assert info["score"] == ("mate", -3) and info["wdl"] == (0, 0, 1000) and info["pv"] == ["a1"]
    with pytest.raises(EngineError):
        parse_info("info depth x")
