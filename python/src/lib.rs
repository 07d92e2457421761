//! `ultimo._ultimo`: the native half of the Python package. It wraps the
//! engine's crate as it is: the boards of both games, the search and the
//! solver. The Python half (`python/ultimo/`) adds NumPy planes, the UGI
//! client and the environments on top.

use std::hash::Hash;
use std::time::Duration;

use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

use ultimo::display::Style;
use ultimo::display::board::Board as Diagram;
use ultimo::display::score::{centipawns, score};
use ultimo::engine::{AsyncSearcher, Eval, NetGame, SearchRequest, Setup};
use ultimo::game::{Game, Notation, Outcome, Player, Verdict};
use ultimo::rules::{self, Move};
use ultimo::search::{self, Control, Limits, Report};
use ultimo::solve::{self, Solution, Solver};
use ultimo::super15;

/// What the Python side needs of a game beyond the engine's traits.
trait PyGame: Notation + NetGame + Diagram + Hash {
    /// A move from Python: its notation, or for games that have them an
    /// integer action.
    fn move_from(&self, obj: &Bound<'_, PyAny>) -> PyResult<Self::Move> {
        let text: String = obj
            .extract()
            .map_err(|_| PyTypeError::new_err("a move is a string such as 'e5'"))?;
        Self::parse_move(&text).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// How many integer actions there are.
    const ACTIONS: usize;

    /// A move's integer action.
    fn action(m: Self::Move) -> u32;

    /// The planes of `Board.to_planes`, where the game has them.
    fn planes(&self) -> Option<Vec<u8>> {
        None
    }
}

impl PyGame for rules::Position {
    const ACTIONS: usize = 81;

    fn move_from(&self, obj: &Bound<'_, PyAny>) -> PyResult<Move> {
        if let Ok(action) = obj.extract::<i64>() {
            let index = u8::try_from(action).ok().and_then(Move::from_index);
            return index.ok_or_else(|| {
                PyValueError::new_err(format!("action {action} is not a cell: use 0 to 80"))
            });
        }
        let text: String = obj.extract().map_err(|_| {
            PyTypeError::new_err("a move is a string such as 'e5' or an action 0-80")
        })?;
        Self::parse_move(&text).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    fn action(m: Move) -> u32 {
        u32::from(m.index())
    }

    fn planes(&self) -> Option<Vec<u8>> {
        Some(planes(self))
    }
}

impl PyGame for super15::Position {
    const ACTIONS: usize = super15::CELLS * super15::CELLS;

    fn action(m: super15::Move) -> u32 {
        u32::from(m.from().index()) * super15::CELLS as u32 + u32::from(m.to().index())
    }
}

/// Leaves of the move tree `depth` plies deep, or `None` when
/// `should_stop` said so (it is asked above the last four plies).
fn perft<G: Notation>(pos: &G, depth: u32, should_stop: &dyn Fn() -> bool) -> Option<u64> {
    if depth <= 4 {
        return Some(pos.perft(depth));
    }
    let mut leaves = 0;
    for &m in pos.legal_moves().iter() {
        if should_stop() {
            return None;
        }
        let mut child = *pos;
        child.play_unchecked(m);
        leaves += perft(&child, depth - 1, should_stop)?;
    }
    Some(leaves)
}

/// `items` as Python writes a list of strings: `['e5', 'd4']`.
fn py_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("'{i}'")).collect();
    format!("[{}]", quoted.join(", "))
}

/// `item` as Python writes an optional string.
fn py_option(item: Option<&str>) -> String {
    item.map_or("None".to_string(), |i| format!("'{i}'"))
}

/// The result as PGN writes it.
fn result_text(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "*",
        Some(Outcome::Win(Player::X)) => "1-0",
        Some(Outcome::Win(Player::O)) => "0-1",
        Some(Outcome::Draw) => "1/2-1/2",
    }
}

/// Runs `work` with the GIL released, and lets Ctrl-C stop it: `stop` is
/// called on a pending signal, and its exception is raised once `work`
/// has returned. `work` gets what asks whether to stop.
fn interruptible<R: Send>(
    py: Python<'_>,
    stop: &(dyn Fn() + Sync),
    work: impl FnOnce(&dyn Fn() -> bool) -> R + Send,
) -> PyResult<R> {
    let (result, signal) = py.detach(|| {
        let signal: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);
        let should_stop = || {
            let mut pending = signal.lock().unwrap_or_else(|e| e.into_inner());
            if pending.is_none()
                && let Err(e) = Python::attach(|py| py.check_signals())
            {
                *pending = Some(e);
                stop();
            }
            pending.is_some()
        };
        let result = work(&should_stop);
        (
            result,
            signal.into_inner().unwrap_or_else(|e| e.into_inner()),
        )
    });
    match signal {
        Some(e) => Err(e),
        None => Ok(result),
    }
}

macro_rules! board_class {
    ($name:ident, $pyname:literal, $module:literal, $pos:ty) => {
        /// A position with the moves that led to it.
        #[pyclass(name = $pyname, module = $module)]
        #[derive(Clone)]
        pub struct $name {
            pos: $pos,
            /// The positions before each move, and the move.
            stack: Vec<($pos, <$pos as Game>::Move)>,
        }

        impl $name {
            fn push_one(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
                let m = self.pos.move_from(obj)?;
                let before = self.pos;
                self.pos
                    .try_play(m)
                    .map_err(|e| PyValueError::new_err(format!("{m} is not legal here: {e}")))?;
                self.stack.push((before, m));
                Ok(())
            }
        }

        #[pymethods]
        impl $name {
            /// `Board()` is the start, `Board(fen)` a position and `moves` the
            /// moves played from it; a bad FEN or move raises `ValueError`.
            #[new]
            #[pyo3(signature = (fen=None, moves=None))]
            fn new(fen: Option<&str>, moves: Option<Vec<Bound<'_, PyAny>>>) -> PyResult<Self> {
                let pos = match fen {
                    Some(text) => text
                        .parse::<$pos>()
                        .map_err(|e| PyValueError::new_err(e.to_string()))?,
                    None => <$pos>::startpos(),
                };
                let mut board = $name {
                    pos,
                    stack: Vec::new(),
                };
                for m in moves.unwrap_or_default() {
                    board.push_one(&m)?;
                }
                Ok(board)
            }

            /// The legal moves, in notation.
            fn legal_moves(&self) -> Vec<String> {
                self.pos
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_string())
                    .collect()
            }

            /// The position as a NumPy array of shape `(PLANES, 9, 9)`,
            /// `uint8`, seen from the side to move (see the package README
            /// for the planes).
            fn to_planes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                let Some(bytes) = self.pos.planes() else {
                    return Err(pyo3::exceptions::PyNotImplementedError::new_err(
                        "this game has no planes encoding",
                    ));
                };
                let numpy = py.import("numpy")?;
                numpy
                    .call_method1("frombuffer", (PyBytes::new(py, &bytes), "uint8"))?
                    .call_method1("reshape", (PLANES, 9, 9))
            }

            /// A NumPy `int8` array over every action, 1 where the action
            /// is legal.
            fn legal_action_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                let mut mask = vec![0i8; <$pos>::ACTIONS];
                for &m in self.pos.legal_moves().iter() {
                    mask[<$pos>::action(m) as usize] = 1;
                }
                py.import("numpy")?.call_method1("array", (mask, "int8"))
            }

            /// The legal moves as integer actions.
            fn legal_actions(&self) -> Vec<u32> {
                self.pos
                    .legal_moves()
                    .iter()
                    .map(|&m| <$pos>::action(m))
                    .collect()
            }

            /// The integer action of a move (its notation or its action).
            fn action(&self, mv: &Bound<'_, PyAny>) -> PyResult<u32> {
                Ok(<$pos>::action(self.pos.move_from(mv)?))
            }

            fn is_legal(&self, mv: &Bound<'_, PyAny>) -> bool {
                self.pos
                    .move_from(mv)
                    .is_ok_and(|m| self.pos.check(m).is_ok())
            }

            /// Plays `move` (notation, or an action): `ValueError` when it is
            /// not legal (the board is left as it was).
            fn push(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<()> {
                self.push_one(mv)
            }

            /// Takes back the last move and returns it (`IndexError` at the
            /// root).
            fn pop(&mut self) -> PyResult<String> {
                let (before, m) = self
                    .stack
                    .pop()
                    .ok_or_else(|| PyIndexError::new_err("pop from a board with no moves"))?;
                self.pos = before;
                Ok(m.to_string())
            }

            /// The last move played, or None at the root.
            fn peek(&self) -> Option<String> {
                self.stack.last().map(|(_, m)| m.to_string())
            }

            /// The moves played since the root, in order.
            #[getter]
            fn move_stack(&self) -> Vec<String> {
                self.stack.iter().map(|(_, m)| m.to_string()).collect()
            }

            /// The position's FEN.
            fn fen(&self) -> String {
                self.pos.to_string()
            }

            /// The FEN of the position before the first move played.
            fn root_fen(&self) -> String {
                self.stack.first().map_or(self.pos, |(p, _)| *p).to_string()
            }

            /// The side to move: `'x'` or `'o'`.
            #[getter]
            fn turn(&self) -> &'static str {
                match self.pos.side_to_move() {
                    Player::X => "x",
                    Player::O => "o",
                }
            }

            /// Moves played in the game.
            #[getter]
            fn ply(&self) -> u32 {
                self.pos.ply()
            }

            /// Whether the game is over.
            fn is_game_over(&self) -> bool {
                self.pos.outcome().is_some()
            }

            /// `'1-0'`, `'0-1'`, `'1/2-1/2'`, or `'*'` while the game goes on.
            fn result(&self) -> &'static str {
                result_text(self.pos.outcome())
            }

            /// `'x'` or `'o'` once one has won, else None.
            fn winner(&self) -> Option<&'static str> {
                match self.pos.outcome() {
                    Some(Outcome::Win(Player::X)) => Some("x"),
                    Some(Outcome::Win(Player::O)) => Some("o"),
                    _ => None,
                }
            }

            /// A copy, with its moves.
            fn copy(&self) -> Self {
                self.clone()
            }

            fn __copy__(&self) -> Self {
                self.clone()
            }

            fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
                self.clone()
            }

            /// The board diagram the command line prints.
            fn __str__(&self) -> String {
                self.pos.diagram(Style::PLAIN)
            }

            /// The facts the command line prints below the diagram.
            fn summary(&self) -> String {
                self.pos.summary()
            }

            fn __repr__(&self) -> String {
                format!("{}('{}')", $pyname, self.pos)
            }

            fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                other
                    .cast::<Self>()
                    .is_ok_and(|o| o.borrow().pos == self.pos)
            }

            fn __hash__(&self) -> u64 {
                use std::hash::Hasher;
                let mut h = std::collections::hash_map::DefaultHasher::new();
                self.pos.hash(&mut h);
                h.finish()
            }

            /// Leaves of the move tree `depth` plies deep (Ctrl-C stops it).
            fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
                let pos = self.pos;
                let counted =
                    interruptible(py, &|| (), |should_stop| perft(&pos, depth, should_stop))?;
                counted.ok_or_else(|| PyRuntimeError::new_err("perft was stopped"))
            }

            /// Wins of x, wins of o and draws of `n` uniformly random games
            /// from this position, seeded (Ctrl-C stops it).
            #[pyo3(signature = (n, seed=0))]
            fn random_playouts(
                &self,
                py: Python<'_>,
                n: u64,
                seed: u64,
            ) -> PyResult<(u64, u64, u64)> {
                let pos = self.pos;
                interruptible(py, &|| (), |should_stop| {
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                    let mut counts = (0, 0, 0);
                    for i in 0..n {
                        // Signals are looked at every 4096 games (a few ms).
                        if i % 4096 == 4095 && should_stop() {
                            break;
                        }
                        let mut p = pos;
                        while p.play_random(&mut rng) {}
                        match p.outcome() {
                            Some(Outcome::Win(Player::X)) => counts.0 += 1,
                            Some(Outcome::Win(Player::O)) => counts.1 += 1,
                            _ => counts.2 += 1,
                        }
                    }
                    counts
                })
            }
        }
    };
}

board_class!(Board, "Board", "ultimo", rules::Position);
board_class!(Super15Board, "Board", "ultimo.super15", super15::Position);

/// Planes of the Ultimate Tic-Tac-Toe planes encoding.
const PLANES: usize = 7;

/// The position as `PLANES` planes of 9x9 (rank 9 first, file a first),
/// from the side to move's view: its marks, the opponent's, the legal
/// cells, the small boards it won, those the opponent won, the drawn ones,
/// and all ones when x is to move.
fn planes(pos: &rules::Position) -> Vec<u8> {
    let me = pos.side_to_move();
    let mine = pos.won_boards(me);
    let theirs = pos.won_boards(me.opponent());
    let drawn = pos.closed_boards() & !mine & !theirs;
    let mut out = vec![0u8; PLANES * 81];
    for row in 0..9u8 {
        for col in 0..9u8 {
            let m = Move::from_grid(col, row).expect("on the grid");
            let at = usize::from(row) * 9 + usize::from(col);
            let board = 1u16 << m.board();
            let set = [
                pos.mark_at(m) == Some(me),
                pos.mark_at(m) == Some(me.opponent()),
                pos.is_legal(m),
                mine & board != 0,
                theirs & board != 0,
                drawn & board != 0,
                me == Player::X,
            ];
            for (plane, on) in set.into_iter().enumerate() {
                out[plane * 81 + at] = u8::from(on);
            }
        }
    }
    out
}

/// One root move of an analysis.
#[pyclass(module = "ultimo", get_all, frozen)]
#[derive(Clone)]
pub struct Line {
    /// The move.
    #[pyo3(name = "move")]
    mv: String,
    /// Its visits.
    visits: u64,
    /// Win, draw and loss chances of the side to move after it, permille.
    wdl: (u32, u32, u32),
    /// The score, as the protocol writes it: `cp 59` or `mate 3`.
    score: String,
    /// The score in centipawns (the expected result mapped as the engine
    /// does), for proven moves too.
    cp: i32,
    /// The expected result for the side to move, 0 to 1.
    value: f64,
    /// Proven result: `win`, `draw` or `loss`, or None.
    proven: Option<&'static str>,
    /// The expected line, this move first.
    pv: Vec<String>,
}

#[pymethods]
impl Line {
    fn __repr__(&self) -> String {
        format!(
            "Line(move='{}', visits={}, score='{}', wdl={:?}, pv={})",
            self.mv,
            self.visits,
            self.score,
            self.wdl,
            py_list(&self.pv)
        )
    }
}

/// What a search found.
#[pyclass(module = "ultimo", get_all, frozen)]
pub struct Analysis {
    /// One line per root move, best first.
    lines: Vec<Line>,
    /// Iterations searched.
    nodes: u64,
    /// Seconds taken.
    time: f64,
    /// Iterations a second.
    nps: u64,
    /// Mean depth of the playouts' starts.
    depth: u32,
    /// Deepest leaf.
    seldepth: u32,
}

#[pymethods]
impl Analysis {
    /// The best move, or None when the game is over.
    #[getter]
    fn best_move(&self) -> Option<String> {
        self.lines.first().map(|l| l.mv.clone())
    }

    fn __repr__(&self) -> String {
        format!(
            "Analysis(best_move={}, nodes={}, nps={}, lines={})",
            py_option(self.best_move().as_deref()),
            self.nodes,
            self.nps,
            self.lines.len()
        )
    }
}

fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Win => "win",
        Verdict::Draw => "draw",
        Verdict::Loss => "loss",
    }
}

fn analysis<M: std::fmt::Display + Copy>(report: &Report<M>) -> Analysis {
    let lines = report
        .lines
        .iter()
        .map(|l| Line {
            mv: l.mv.to_string(),
            visits: l.visits,
            wdl: (l.wdl[0], l.wdl[1], l.wdl[2]),
            score: score(l),
            cp: centipawns(l.q),
            value: l.q,
            proven: l.proven.map(|p| verdict_text(p.verdict)),
            pv: l.pv.iter().map(|m| m.to_string()).collect(),
        })
        .collect();
    Analysis {
        lines,
        nodes: report.nodes,
        time: report.elapsed.as_secs_f64(),
        nps: report.nps(),
        depth: report.depth,
        seldepth: report.seldepth,
    }
}

fn seconds(name: &str, value: Option<f64>) -> PyResult<Option<Duration>> {
    value
        .map(|s| {
            Duration::try_from_secs_f64(s)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "{name} must be a positive number of seconds, got {s}"
                    ))
                })
        })
        .transpose()
}

/// The evaluation named `name`.
fn eval_from(name: &str) -> PyResult<Eval> {
    match name {
        "net" => Ok(Eval::Net),
        "playout" => Ok(Eval::Playout),
        other => Err(PyValueError::new_err(format!(
            "eval is 'net' or 'playout', got '{}'",
            ultimo::quote::shorten(other)
        ))),
    }
}

/// The engine in process: a search tree of `hash` MiB over `threads`
/// threads, kept from one search to the next (each search starts from a
/// cleared tree, as `ultimo bench` does), for either game.
#[pyclass(module = "ultimo")]
pub struct Engine {
    setup: Setup,
    uttt: Option<AsyncSearcher<rules::Position>>,
    super15: Option<AsyncSearcher<super15::Position>>,
}

/// `slot`'s searcher, made for `pos`'s game on first use.
fn searcher_for<'a, G: PyGame>(
    setup: &Setup,
    slot: &'a mut Option<AsyncSearcher<G>>,
    pos: G,
) -> PyResult<&'a mut AsyncSearcher<G>> {
    if slot.is_none() {
        let net = setup
            .load_net::<G>()
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let searcher = AsyncSearcher::new(setup, net.as_ref(), pos)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        *slot = Some(searcher);
    }
    Ok(slot.as_mut().expect("made above"))
}

/// Searches `pos` with `searcher` from a cleared tree within `limits`.
fn search_with<G: PyGame>(
    py: Python<'_>,
    searcher: &mut AsyncSearcher<G>,
    pos: G,
    limits: Limits,
) -> PyResult<Report<G::Move>> {
    searcher
        .idle()
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?
        .clear(pos);
    // The search stops as soon as `should_stop` says so: nothing else to do
    // on Ctrl-C.
    interruptible(py, &|| (), |should_stop| {
        searcher.run(SearchRequest::new(pos, limits), &mut |_| {}, &|| {
            should_stop()
        })
    })?
    .map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

#[pymethods]
impl Engine {
    /// An engine of `threads` threads on one tree of `hash` MiB, valuing
    /// leaves with `eval` (`'net'` or `'playout'`); `seed` makes searches
    /// with one thread and a node limit repeatable.
    #[new]
    #[pyo3(signature = (threads=1, hash=64, eval="net", seed=0))]
    fn new(threads: usize, hash: usize, eval: &str, seed: u64) -> PyResult<Self> {
        if !(1..=search::MAX_THREADS).contains(&threads) {
            return Err(PyValueError::new_err(format!(
                "threads must be between 1 and {}, got {threads}",
                search::MAX_THREADS
            )));
        }
        let options = search::Options {
            threads,
            hash_mb: hash,
            seed,
            move_overhead: Duration::ZERO,
            ..search::Options::default()
        };
        let setup = Setup::new(options, eval_from(eval)?);
        // The tree is allocated here, so that a bad Hash is said at once.
        let mut engine = Engine {
            setup,
            uttt: None,
            super15: None,
        };
        searcher_for(&engine.setup, &mut engine.uttt, rules::Position::startpos())?;
        Ok(engine)
    }

    /// Searches `board` (either game's) for `nodes` iterations or `time`
    /// seconds, whichever ends first: see `ultimo.analyse`.
    #[pyo3(signature = (board, nodes=None, time=None, multipv=None))]
    fn analyse(
        &mut self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        nodes: Option<u64>,
        time: Option<f64>,
        multipv: Option<usize>,
    ) -> PyResult<Analysis> {
        if multipv == Some(0) {
            return Err(PyValueError::new_err("multipv must be at least 1"));
        }
        let movetime = seconds("time", time)?;
        if nodes.is_none() && movetime.is_none() {
            return Err(PyValueError::new_err("give nodes=N or time=SECONDS"));
        }
        let limits = Limits {
            nodes,
            movetime,
            ..Limits::default()
        };
        let over = || PyValueError::new_err("the game is over: there is nothing to search");
        let mut found = if let Ok(b) = board.cast::<Board>() {
            let pos = b.borrow().pos;
            if pos.outcome().is_some() {
                return Err(over());
            }
            let searcher = searcher_for(&self.setup, &mut self.uttt, pos)?;
            analysis(&search_with(py, searcher, pos, limits)?)
        } else if let Ok(b) = board.cast::<Super15Board>() {
            let pos = b.borrow().pos;
            if pos.outcome().is_some() {
                return Err(over());
            }
            let searcher = searcher_for(&self.setup, &mut self.super15, pos)?;
            analysis(&search_with(py, searcher, pos, limits)?)
        } else {
            return Err(PyTypeError::new_err(
                "board is an ultimo.Board or an ultimo.super15.Board",
            ));
        };
        if let Some(k) = multipv {
            found.lines.truncate(k);
        }
        Ok(found)
    }
}

/// Proves `board` won, drawn or lost: see `ultimo.solve`.
#[pyfunction]
#[pyo3(name = "solve", signature = (board, time=None, nodes=None, hash=256, threads=1))]
fn solve_board(
    py: Python<'_>,
    board: &Bound<'_, PyAny>,
    time: Option<f64>,
    nodes: Option<u64>,
    hash: usize,
    threads: usize,
) -> PyResult<Solved> {
    if let Ok(b) = board.cast::<Board>() {
        let pos = b.borrow().pos;
        solve_position(py, pos, time, nodes, hash, threads)
    } else if let Ok(b) = board.cast::<Super15Board>() {
        let pos = b.borrow().pos;
        solve_position(py, pos, time, nodes, hash, threads)
    } else {
        Err(PyTypeError::new_err(
            "board is an ultimo.Board or an ultimo.super15.Board",
        ))
    }
}

/// What the solver found.
#[pyclass(module = "ultimo", get_all, frozen)]
pub struct Solved {
    /// The result for the side to move once proven: `win`, `draw` or
    /// `loss`; None when the limits came first.
    result: Option<&'static str>,
    /// The worst result proven possible for the side to move.
    lower: &'static str,
    /// The best result not yet ruled out.
    upper: &'static str,
    /// Plies to the end along the proof's line, when known.
    plies: Option<u32>,
    /// The proving line (or the line searched most, while unsolved).
    line: Vec<String>,
    /// Nodes searched.
    nodes: u64,
    /// Seconds taken.
    time: f64,
}

#[pymethods]
impl Solved {
    fn __repr__(&self) -> String {
        let plies = self.plies.map_or("None".to_string(), |p| p.to_string());
        format!(
            "Solved(result={}, plies={plies}, line={}, nodes={})",
            py_option(self.result),
            py_list(&self.line),
            self.nodes
        )
    }
}

fn solve_position<G: PyGame>(
    py: Python<'_>,
    pos: G,
    time: Option<f64>,
    nodes: Option<u64>,
    hash: usize,
    threads: usize,
) -> PyResult<Solved> {
    let mut solver = Solver::new(&solve::Options {
        hash_mb: hash,
        threads,
        ..solve::Options::default()
    })
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let limits = solve::Limits {
        nodes,
        time: seconds("time", time)?,
    };
    let control = Control::new();
    let found = interruptible(py, &|| control.stop(), |should_stop| {
        // The solver runs on a thread of its own while this one watches for
        // Ctrl-C (Python sees signals on its main thread only).
        let done = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            let solving = s.spawn(|| {
                let found = solver.solve(&pos, &limits, &control, &mut |_| {});
                done.store(true, std::sync::atomic::Ordering::SeqCst);
                found
            });
            while !done.load(std::sync::atomic::Ordering::SeqCst) && !solving.is_finished() {
                should_stop();
                std::thread::sleep(Duration::from_millis(10));
            }
            solving.join()
        })
    })?;
    let found: Solution<G::Move> =
        found.map_err(|_| PyRuntimeError::new_err("the solver failed (it panicked)"))?;
    Ok(Solved {
        result: found.verdict.map(verdict_text),
        lower: verdict_text(found.lower),
        upper: verdict_text(found.upper),
        plies: found.plies,
        line: found.pv.iter().map(|m| m.to_string()).collect(),
        nodes: found.nodes,
        time: found.elapsed.as_secs_f64(),
    })
}

/// The engine's version, as `ultimo --version` prints it.
#[pyfunction]
fn engine_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The native module.
#[pymodule]
fn _ultimo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Board>()?;
    // Its Python name is Board too (in ultimo.super15): added apart.
    m.add("Super15Board", m.py().get_type::<Super15Board>())?;
    m.add_class::<Line>()?;
    m.add_class::<Analysis>()?;
    m.add_class::<Solved>()?;
    m.add_class::<Engine>()?;
    m.add_function(wrap_pyfunction!(solve_board, m)?)?;
    m.add("PLANES", PLANES)?;
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    Ok(())
}
