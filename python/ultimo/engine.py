"""A client for engine processes that speak UGI (or UCI), as
``chess.engine`` is for chess: Ultimo itself (``ultimo`` with no
arguments) or any other Ultimate Tic-Tac-Toe engine.

.. code-block:: python

    from ultimo.engine import Engine

    with Engine(["ultimo"]) as engine:
        engine.configure({"Hash": 64})
        move = engine.play(ultimo.Board(), nodes=10000)

Every wait has a timeout; an engine that dies, answers nonsense or does not
answer raises ``EngineError`` and is ended.
"""

from __future__ import annotations

import queue
import shlex
import subprocess
import threading
import time as _time
from typing import Dict, List, Mapping, Optional, Sequence, Union

__all__ = ["Engine", "EngineError", "Info"]

#: Info fields followed by one integer.
_INT_FIELDS = {"depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "time"}

Info = Dict[str, object]


class EngineError(Exception):
    """The engine did not do what the protocol says: it ended, did not
    answer in time, or answered what the client cannot read."""


class Engine:
    """An engine process, started at once and greeted with ``ugi`` (or
    ``uci``): its ``name``, ``author`` and ``options`` are read from the
    greeting.

    ``command`` is the program and its arguments (a list, or a string split
    as a shell would); ``timeout`` bounds every wait but a search's, which
    may take its limit plus ``timeout``.
    """

    def __init__(
        self,
        command: Union[str, Sequence[str]],
        protocol: str = "ugi",
        timeout: float = 10.0,
    ):
        if protocol not in ("ugi", "uci"):
            raise ValueError(f"protocol is 'ugi' or 'uci', got {protocol!r}")
        args = shlex.split(command) if isinstance(command, str) else list(command)
        self.protocol = protocol
        self.timeout = timeout
        self.name: Optional[str] = None
        self.author: Optional[str] = None
        self.options: Dict[str, str] = {}
        try:
            self._process = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as e:
            raise EngineError(f"cannot start {args[0] if args else '(nothing)'}: {e}") from e
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self._send(protocol)
            for line in self._until(protocol + "ok", timeout):
                words = line.split()
                if words[:2] == ["id", "name"]:
                    self.name = line.split(None, 2)[2] if len(words) > 2 else ""
                elif words[:2] == ["id", "author"]:
                    self.author = line.split(None, 2)[2] if len(words) > 2 else ""
                elif words[:2] == ["option", "name"] and "type" in words:
                    at = words.index("type")
                    self.options[" ".join(words[2:at])] = " ".join(words[at + 1 :])
            self.ping()
        except BaseException:
            self.close()
            raise

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    def _send(self, line: str) -> None:
        try:
            assert self._process.stdin is not None
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            self.close()
            raise EngineError(f"the engine ended (writing {line!r}: {e})") from e

    def _until(self, last: str, timeout: float) -> List[str]:
        """The lines up to the first that starts with ``last`` (included)."""
        deadline = _time.monotonic() + timeout
        lines = []
        while True:
            left = deadline - _time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                self.close()
                raise EngineError(f"no {last!r} within {timeout:g} s") from None
            if line is None:
                self.close()
                raise EngineError(f"the engine ended before {last!r}")
            lines.append(line)
            if line == last or line.startswith(last + " "):
                return lines

    def ping(self) -> None:
        """``isready``, and waits for ``readyok``."""
        self._send("isready")
        self._until("readyok", self.timeout)

    def configure(self, options: Mapping[str, object]) -> None:
        """Sets options with ``setoption`` (``True``/``False`` as
        ``true``/``false``), then checks the engine is still there."""
        for name, value in options.items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            self._send(f"setoption name {name} value {value}")
        self.ping()

    def new_game(self) -> None:
        """``uginewgame`` (or ``ucinewgame``): forget what was learnt."""
        self._send(self.protocol + "newgame")
        self.ping()

    def _go(self, board, nodes, movetime, depth) -> List[str]:
        moves = list(board.move_stack)
        fen = board.root_fen()
        position = f"position fen {fen}"
        if moves:
            position += " moves " + " ".join(moves)
        self._send(position)
        go = ["go"]
        if nodes is not None:
            go += ["nodes", str(int(nodes))]
        if movetime is not None:
            go += ["movetime", str(max(1, round(movetime * 1000)))]
        if depth is not None:
            go += ["depth", str(int(depth))]
        if len(go) == 1:
            raise ValueError("give nodes=, movetime= (seconds) or depth=")
        self._send(" ".join(go))
        wait = self.timeout + (movetime or 0.0) + (0.0 if movetime else 60.0)
        return self._until("bestmove", wait)

    def play(
        self,
        board,
        nodes: Optional[int] = None,
        movetime: Optional[float] = None,
        depth: Optional[int] = None,
    ) -> str:
        """The engine's move in ``board`` (an ``ultimo.Board``, its moves
        sent from its root), within the limits given (``movetime`` in
        seconds)."""
        lines = self._go(board, nodes, movetime, depth)
        words = lines[-1].split()
        if len(words) < 2:
            raise EngineError(f"a bestmove without a move: {lines[-1]!r}")
        return words[1]

    def analyse(
        self,
        board,
        nodes: Optional[int] = None,
        movetime: Optional[float] = None,
        depth: Optional[int] = None,
    ) -> Info:
        """The last ``info`` line before the engine's ``bestmove``, parsed:
        integers for ``depth``, ``nodes`` and the like, ``score`` as
        ``("cp", 59)`` or ``("mate", 3)``, ``wdl`` as three integers, ``pv``
        as a list of moves, and ``bestmove``."""
        lines = self._go(board, nodes, movetime, depth)
        infos = [parse_info(line) for line in lines if line.startswith("info ")]
        infos = [i for i in infos if i.get("multipv", 1) == 1 and "pv" in i] or infos
        info: Info = dict(infos[-1]) if infos else {}
        words = lines[-1].split()
        info["bestmove"] = words[1] if len(words) > 1 else None
        return info

    def close(self) -> None:
        """Sends ``quit`` and ends the process (killed if it lingers)."""
        process = self._process
        if process.poll() is None:
            try:
                assert process.stdin is not None
                process.stdin.write("quit\n")
                process.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    quit = close

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Engine {self.name!r} ({self.protocol})>"


def parse_info(line: str) -> Info:
    """An ``info`` line as a dict (see ``Engine.analyse``).

    >>> parse_info("info depth 7 multipv 1 score cp 63 wdl 219 733 48 nodes 20000 pv d2 b6")
    {'depth': 7, 'multipv': 1, 'score': ('cp', 63), 'wdl': (219, 733, 48), 'nodes': 20000, 'pv': ['d2', 'b6']}
    """
    words = line.split()[1:]
    info: Info = {}
    i = 0
    while i < len(words):
        key = words[i]
        try:
            if key in _INT_FIELDS:
                info[key] = int(words[i + 1])
                i += 2
            elif key == "score":
                info["score"] = (words[i + 1], int(words[i + 2]))
                i += 3
            elif key == "wdl":
                info["wdl"] = tuple(int(w) for w in words[i + 1 : i + 4])
                i += 4
            elif key == "pv":
                info["pv"] = words[i + 1 :]
                break
            elif key == "string":
                info["string"] = " ".join(words[i + 1 :])
                break
            else:
                i += 1
        except (IndexError, ValueError):
            raise EngineError(f"an info line the client cannot read: {line!r}") from None
    return info
