//! `ultimo analyze`: one position (the board, then a table of the best
//! moves with visits, win/draw/loss, proven results and principal
//! variations; redrawn while the search runs on a terminal, or until Ctrl-C
//! with `--infinite`), or a whole game with `--review` (every position
//! searched, every move judged: see [`crate::review`]).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::CliError;
use super::{PositionArgs, SearchArgs, position_from, seconds};
use crate::client::signal;
use crate::display::Style;
use crate::display::board::Board;
use crate::display::progress::Progress;
use crate::display::score::table;
use crate::engine::Eval;
use crate::engine::NetGame;
use crate::engine::SearchRequest;
use crate::game::{Game, GameKind, Notation, Verdict};
use crate::pgn::{self, PgnGame, PgnNotation, Replayed};
use crate::review::{self, Review};
use crate::rules::Position;
use crate::search::{Control, Limits, Options, Report, Searcher};

/// The command line of `ultimo analyze`.
#[derive(clap::Args)]
#[command(after_long_help = REVIEW_HELP)]
#[command(group(clap::ArgGroup::new("whole_game").args(["review", "pgn"]).multiple(true)))]
pub struct AnalyzeArgs {
    /// The game (with --pgn, the file's Variant tag names it)
    #[arg(long, value_enum, default_value_t, conflicts_with = "pgn")]
    game: GameKind,
    #[command(flatten)]
    position: PositionArgs,
    /// Thinking time in seconds: for the position (default 3 when --nodes
    /// is not given), or for each position of a game
    /// (--review, --pgn; default 1)
    #[arg(long, value_parser = seconds, allow_negative_numbers = true)]
    time: Option<Duration>,
    /// Iterations to search (for each position of a game with --review,
    /// --pgn)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
    nodes: Option<u64>,
    /// Search until Ctrl-C, then leave the last table (exit 0)
    #[arg(long, conflicts_with_all = ["time", "nodes", "review"])]
    infinite: bool,
    /// Analyse the whole game: every position from --fen (or the start)
    /// through each of --moves, each move judged (see below)
    #[arg(long)]
    review: bool,
    /// Review a game of this PGN file (its Variant tag names the game;
    /// implies --review)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fen", "moves", "infinite"])]
    pgn: Option<PathBuf>,
    /// Which game of the --pgn file, from 1 (default 1)
    #[arg(long, value_name = "N", requires = "pgn", conflicts_with_all = ["fen", "moves"],
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    game_number: Option<usize>,
    /// Append the reviewed game to this PGN file, each move annotated: its
    /// score and depth, the mark as a NAG ($6 ?!, $2 ?, $4 ??) and in
    /// words, and the best move where it differs
    #[arg(long, value_name = "FILE", requires = "whole_game")]
    pgnout: Option<PathBuf>,
    /// Print the analysis as JSON instead of tables
    #[arg(long)]
    json: bool,
    /// Moves shown in the table (one position; a review judges the best
    /// move only)
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=81),
          conflicts_with = "whole_game")]
    multipv: u16,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    eval: super::EvalArgs,
}

/// The help's words on `--review`.
const REVIEW_HELP: &str = "\
Whole-game review (--review, or --pgn FILE):
  Every position of the game is searched from a fresh tree (--time or
  --nodes each, default 1 second). A position's evaluation is its best
  line's: a proven result, or the expected score E (win 1, draw 1/2, loss 0).
  For each move, 'before' is the position's score and 'after' the next
  position's, both from the mover's view (as the protocol prints them: cp N
  or mate N). The loss is the drop in winning chances W = 2E - 1 (from -1 to
  1; a proven win 1, draw 0, loss -1), and 0 when the move is the engine's
  own best. Marks: ?! inaccuracy (loss >= 0.10), ? mistake (>= 0.20),
  ?? blunder (>= 0.30), lichess's thresholds. The table has one row per
  move (the engine's best move where it differs), then a summary per side.
  The opening moves of a --pgn game marked {book} (as `ultimo match` marks
  its openings) are shown with the mark `book` but not judged: no loss, and
  not counted in the summary.
  Progress goes to stderr; Ctrl-C stops early and prints what was judged.";

/// What to analyse and how long.
#[derive(Clone, Debug)]
pub struct Settings<G: Game = Position> {
    /// The position.
    pub pos: G,
    /// Search limits (time and/or nodes).
    pub limits: Limits,
    /// Moves shown in the table.
    pub multipv: usize,
    /// Search options.
    pub options: Options,
    /// How positions are valued.
    pub eval: Eval,
    /// Colours in the board, and whether the table is redrawn while the
    /// search runs (each where the terminal policy allows it: see
    /// [`Style::for_stdout`]).
    pub style: Style,
}

/// The default thinking time when neither time nor nodes are given.
pub const DEFAULT_TIME: Duration = Duration::from_secs(3);

/// The default thinking time per position of a `--review`.
pub const DEFAULT_REVIEW_TIME: Duration = Duration::from_secs(1);

/// Runs `ultimo analyze`.
pub fn main(args: &AnalyzeArgs) -> Result<(), CliError> {
    if let Some(file) = &args.pgn {
        return main_pgn(args, file);
    }
    match args.game {
        GameKind::Uttt => main_for::<Position>(args),
        GameKind::Super15 => main_for::<crate::super15::Position>(args),
    }
}

/// `--pgn FILE`: the review of one game of a PGN file, of the game its
/// `Variant` tag names.
fn main_pgn(args: &AnalyzeArgs, file: &Path) -> Result<(), CliError> {
    let name = crate::quote::name(&file.display().to_string());
    let text = std::fs::File::open(file).map_err(|source| CliError::ReadPgn {
        file: file.to_path_buf(),
        source,
    })?;
    // One game at a time: those before the one asked for are only checked.
    let number = args.game_number.unwrap_or(1);
    let mut games = pgn::games(std::io::BufReader::new(text), &name);
    let mut read = 0;
    let game = loop {
        match games.next() {
            Some(game) => {
                let game = game?;
                read += 1;
                if read == number {
                    break game;
                }
            }
            None => {
                return Err(CliError::NoSuchGame {
                    file: file.to_path_buf(),
                    number,
                    games: read,
                });
            }
        }
    };
    let game = &game;
    if game.moves.is_empty() {
        return Err(CliError::NoMovesInGame {
            file: file.to_path_buf(),
            number,
        });
    }
    match game.kind() {
        Some(GameKind::Super15) => review_pgn::<crate::super15::Position>(args, game, &name),
        // Replaying refuses a Variant that is none of ours.
        _ => review_pgn::<Position>(args, game, &name),
    }
}

/// Reviews a game read from PGN.
fn review_pgn<G: Board + NetGame + PgnNotation>(
    args: &AnalyzeArgs,
    game: &PgnGame,
    file: &str,
) -> Result<(), CliError> {
    let replayed = Replayed::<G>::new(game, file)?;
    // The opening's book moves ({book}) are not the players' choice.
    let book = replayed.annotations.iter().take_while(|a| a.book).count();
    review_and_print(args, replayed.start, replayed.moves, book, game.clone())
}

fn main_for<G: Board + NetGame + PgnNotation>(args: &AnalyzeArgs) -> Result<(), CliError> {
    if args.review {
        if args.position.moves.is_empty() {
            return Err(CliError::NoMovesToReview);
        }
        let start: G = position_from(args.position.fen.as_deref(), &[])?;
        // Every move checked with the usual messages first.
        position_from::<G>(args.position.fen.as_deref(), &args.position.moves)?;
        let moves: Vec<G::Move> = args
            .position
            .moves
            .iter()
            .filter_map(|t| G::parse_move(t).ok())
            .collect();
        let today = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(pgn::UNKNOWN_DATE.to_string(), |d| {
                pgn::date_from_unix(d.as_secs())
            });
        let game = review::new_game(&start, &moves, "ultimo analyze", &today);
        return review_and_print(args, start, moves, 0, game);
    }
    let options = Options {
        move_overhead: Duration::ZERO,
        ..args.search.options()
    };
    let pos: G = position_from(args.position.fen.as_deref(), &args.position.moves)?;
    let limits = if args.infinite {
        Limits {
            infinite: true,
            ..Limits::default()
        }
    } else {
        super::limits(args.time, args.nodes, DEFAULT_TIME)
    };
    let settings = Settings {
        pos,
        limits,
        multipv: args.multipv as usize,
        options,
        eval: args.eval.eval,
        style: if args.json {
            Style::PLAIN
        } else {
            Style::for_stdout()
        },
    };
    let interrupted = interruptible();
    if args.infinite {
        eprintln!("analysing until Ctrl-C");
    }
    if args.json {
        let report = search_quietly(&settings, interrupted)?;
        let mut value = review::report_json(&settings.pos, &report, settings.multipv);
        let proof = prove_unproven(&settings.pos, &report, interrupted)?;
        value["solver"] = match proof {
            Some((p, pv)) => serde_json::json!({
                "result": verdict_word(p.verdict),
                "plies": p.plies,
                "pv": pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            }),
            None => serde_json::Value::Null,
        };
        let mut out = io::stdout().lock();
        writeln!(out, "{value:#}")?;
        out.flush()?;
        Ok(())
    } else {
        let report = run(&settings, interrupted, &mut io::stdout())?;
        if let Some((p, pv)) = prove_unproven(&settings.pos, &report, interrupted)? {
            let pv: Vec<String> = pv.iter().map(|m| m.to_string()).collect();
            let side = settings.pos.side_to_move();
            let mut out = io::stdout().lock();
            writeln!(
                out,
                "proven by the solver: {} for {side} in {} {}, pv {}",
                verdict_word(p.verdict),
                p.plies,
                if p.plies == 1 { "ply" } else { "plies" },
                pv.join(" ")
            )?;
            out.flush()?;
        }
        Ok(())
    }
}

/// A verdict's word: `win`, `draw` or `loss`.
fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Win => "win",
        Verdict::Draw => "draw",
        Verdict::Loss => "loss",
    }
}

/// The solver's proof of `pos` with [`review::PROOF_NODES`] when the
/// search's best line (`report`) is not proven and no stop was asked for:
/// the result and the proving line, or `None`.
fn prove_unproven<G: Game>(
    pos: &G,
    report: &Report<G::Move>,
    should_stop: &dyn Fn() -> bool,
) -> Result<Option<review::Proof<G::Move>>, CliError> {
    let proven = report.lines.first().is_some_and(|l| l.proven.is_some());
    if proven || should_stop() || pos.outcome().is_some() {
        return Ok(None);
    }
    let mut solver = review::proof_solver()?;
    Ok(review::prove(&mut solver, pos, &Control::new()))
}

/// Reviews the game `start` + `moves` (the first `book` of them book
/// moves, not judged), prints the review and, with `--pgnout`, appends
/// `game` (its PGN) annotated to that file.
fn review_and_print<G: Board + NetGame + PgnNotation>(
    args: &AnalyzeArgs,
    start: G,
    moves: Vec<G::Move>,
    book: usize,
    mut game: PgnGame,
) -> Result<(), CliError> {
    let limits = super::limits(args.time, args.nodes, DEFAULT_REVIEW_TIME);
    let annotator = format!(
        "Ultimo {} ({} per position)",
        env!("CARGO_PKG_VERSION"),
        match (limits.nodes, limits.movetime) {
            (Some(n), _) => format!("{n} nodes"),
            (None, Some(t)) => format!("{} ms", t.as_millis()),
            (None, None) => "no limit".to_string(),
        }
    );
    let settings = ReviewSettings {
        start,
        moves,
        book,
        limits,
        options: Options {
            move_overhead: Duration::ZERO,
            ..args.search.options()
        },
        eval: args.eval.eval,
        json: args.json,
    };
    // The output file is checked before the long search, not after.
    let mut out_file = match &args.pgnout {
        Some(path) => Some((path, open_append(path)?)),
        None => None,
    };
    let interrupted = interruptible();
    let positions = (settings.moves.len() + 1) as u64;
    let mut progress =
        Progress::new("review", positions, Style::for_stderr().live).lines_every(Duration::ZERO);
    let review = run_review(&settings, interrupted, &mut progress)?;
    progress.finish();
    print_review(&review, settings.json, &mut io::stdout())?;
    if let Some((path, file)) = &mut out_file {
        review::annotate(&review, &mut game, &annotator);
        let write_error = |source| CliError::WritePgn {
            file: path.to_path_buf(),
            source,
        };
        file.write_all(game.to_string().as_bytes())
            .and_then(|_| file.flush())
            .map_err(write_error)?;
    }
    Ok(())
}

/// `path` opened for appending (created if missing); a blank line first
/// when it already holds something, so that games stay apart.
fn open_append(path: &Path) -> Result<std::fs::File, CliError> {
    let error = |source| CliError::WritePgn {
        file: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(error)?;
    if file.metadata().map_err(error)?.len() > 0 {
        file.write_all(b"\n").map_err(error)?;
    }
    Ok(file)
}

/// Makes Ctrl-C (and SIGTERM or SIGHUP on Unix) stop the search instead of
/// ending the process, so that the analysis so far is printed, and returns
/// what tells whether one came. A signal whose handler cannot be installed
/// ends the process as usual.
pub(super) fn interruptible() -> &'static (dyn Fn() -> bool + Sync) {
    // Even a partial failure leaves the signals that were caught counting:
    // they must still stop the search.
    let _ = signal::install();
    &signal::stop_requested
}

/// Searches the position of `settings` with no output.
fn search_quietly<G: NetGame>(
    settings: &Settings<G>,
    should_stop: &dyn Fn() -> bool,
) -> Result<Report<G::Move>, CliError> {
    if settings.pos.is_over() {
        return Err(CliError::GameOver);
    }
    let mut searcher = super::searcher(&settings.options, settings.eval, settings.pos)?;
    let request = SearchRequest::new(settings.pos, settings.limits.clone());
    Ok(searcher.run(request, &mut |_| {}, should_stop)?)
}

/// Runs the analysis of one position, writing to `out`, until the limits
/// end it or `should_stop` says so.
pub fn run<G: Board + NetGame>(
    settings: &Settings<G>,
    should_stop: &dyn Fn() -> bool,
    out: &mut impl Write,
) -> Result<Report<G::Move>, CliError> {
    write!(out, "{}", settings.pos.diagram(settings.style))?;
    write!(out, "{}", settings.pos.summary())?;
    if settings.pos.is_over() {
        return Err(CliError::GameOver);
    }
    writeln!(out)?;
    out.flush()?;
    let mut searcher = super::searcher(&settings.options, settings.eval, settings.pos)?;
    let mut drawn = 0usize;
    let multipv = settings.multipv;
    // The redraw moves the cursor with escape codes: only where the one
    // terminal policy allows them (a terminal, not TERM=dumb; NO_COLOR
    // takes the colour away, not the redraw).
    let live = settings.style.live;
    let mut failed = None;
    let report = {
        let mut on_info = |r: &Report<G::Move>| {
            if !live || failed.is_some() {
                return;
            }
            let rows = table(r, multipv);
            // Move the cursor back over the previous table and redraw it,
            // each row cut to the terminal's width: a row that wrapped
            // would take two lines and leave one behind at the next redraw.
            let width = terminal_width();
            let mut text = String::new();
            if drawn > 0 {
                text.push_str(&format!("\x1b[{drawn}A"));
            }
            for row in &rows {
                text.push_str(&format!("\x1b[2K{}\n", fit(row, width)));
            }
            drawn = rows.len();
            if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                failed = Some(e);
            }
        };
        let request = SearchRequest::new(settings.pos, settings.limits.clone());
        searcher.run(request, &mut on_info, should_stop)?
    };
    if let Some(e) = failed {
        return Err(e.into());
    }
    // The last table stays, its rows whole: the live one is cleared from
    // the screen first (a whole row may wrap onto the next line).
    let rows = table(&report, multipv);
    let mut text = String::new();
    if drawn > 0 {
        text.push_str(&format!("\x1b[{drawn}A\x1b[J"));
    }
    for row in &rows {
        text.push_str(row);
        text.push('\n');
    }
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(report)
}

/// The width of the terminal on standard output, if it is one.
fn terminal_width() -> Option<usize> {
    console::Term::stdout()
        .size_checked()
        .map(|(_, columns)| usize::from(columns))
}

/// `row` cut to `width` columns, when there is a width.
fn fit(row: &str, width: Option<usize>) -> std::borrow::Cow<'_, str> {
    match width {
        Some(width) => console::truncate_str(row, width, ""),
        None => row.into(),
    }
}

/// What to review and how.
#[derive(Clone, Debug)]
pub struct ReviewSettings<G: Game = Position> {
    /// The position the game starts from.
    pub start: G,
    /// The game's moves.
    pub moves: Vec<G::Move>,
    /// How many of the first moves are the opening's book moves (not
    /// judged).
    pub book: usize,
    /// Search limits per position.
    pub limits: Limits,
    /// Search options.
    pub options: Options,
    /// How positions are valued.
    pub eval: Eval,
    /// JSON instead of text.
    pub json: bool,
}

/// Reviews the game of `settings`, showing each position judged on
/// `progress` (a line each when piped), stopping early when `should_stop`
/// says so.
pub fn run_review<G: NetGame>(
    settings: &ReviewSettings<G>,
    should_stop: &dyn Fn() -> bool,
    progress: &mut Progress,
) -> Result<Review<G>, CliError> {
    let mut searcher = super::searcher(&settings.options, settings.eval, settings.start)?;
    let mut solver = review::proof_solver()?;
    let review = {
        let mut on_progress = |p: review::Progress<'_, G::Move>| {
            let found = match p.found.best {
                Some(m) => format!(
                    "{}, best {m}, {} nodes",
                    p.found.eval.score(),
                    p.found.nodes
                ),
                None => "the game is over".to_string(),
            };
            let status = match progress.is_live() {
                true => found,
                false => format!("position {}/{}: {found}", p.index + 1, p.total),
            };
            progress.set(p.index as u64 + 1, status);
        };
        let work = |searcher: &mut Searcher<G>, control: &Control| {
            review::review(
                searcher,
                Some(&mut solver),
                settings.start,
                &settings.moves,
                settings.book,
                &settings.limits,
                control,
                &mut on_progress,
            )
        };
        searcher.run_with(work, should_stop)??
    };
    Ok(review)
}

/// Prints a review: its table, the summary and what the marks mean, or
/// its JSON.
pub fn print_review<G: Notation>(
    review: &Review<G>,
    json: bool,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let mut text = String::new();
    if json {
        text = format!("{:#}\n", review::json(review));
    } else {
        for row in review::table(review) {
            text.push_str(&row);
            text.push('\n');
        }
        text.push('\n');
        for line in review::summary_lines(review) {
            text.push_str(&line);
            text.push('\n');
        }
        text.push_str(&review::legend(&review.thresholds));
        text.push('\n');
    }
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_reports_a_forced_win() {
        let pos: Position = "xxxxxxxx1/9/9/9/9/9/oo1o1o1oo/9/o7o x 9 i3"
            .parse()
            .unwrap();
        let settings = Settings {
            pos,
            limits: Limits {
                nodes: Some(100_000),
                ..Limits::default()
            },
            multipv: 3,
            options: Options {
                hash_mb: 16,
                ..Options::default()
            },
            eval: Eval::Playout,
            style: Style::PLAIN,
        };
        let mut out = Vec::new();
        let report = run(&settings, &|| false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains('\x1b'));
        let best = text
            .lines()
            .skip_while(|l| !l.contains(" visits "))
            .nth(1)
            .unwrap();
        assert!(
            best.contains("i9") && best.contains("mate 1") && best.contains("wins in 1"),
            "{text}"
        );
        assert_eq!(report.best_move(), Some("i9".parse().unwrap()));
    }

    #[test]
    fn the_live_table_follows_the_terminal_policy() {
        let settings = |style| Settings {
            pos: Position::startpos(),
            limits: Limits {
                // Past the first redraw, at 1 s.
                movetime: Some(Duration::from_millis(1_300)),
                ..Limits::default()
            },
            multipv: 2,
            options: Options {
                hash_mb: 16,
                ..Options::default()
            },
            eval: Eval::Playout,
            style,
        };
        // Live without colour (NO_COLOR on a terminal): the table is drawn,
        // then drawn again over itself, and no colour is used.
        let live = Style {
            color: false,
            live: true,
        };
        let mut out = Vec::new();
        run(&settings(live), &|| false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let (first, last) = text
            .split_once("\x1b[J")
            .expect("the live table is cleared");
        assert!(first.contains("\x1b[2K"), "{text:?}");
        assert!(
            !last.contains('\x1b') && last.contains("nodes "),
            "{text:?}"
        );
        assert!(!text.contains("\x1b[3"), "no colour: {text:?}");
        let mut out = Vec::new();
        run(&settings(Style::PLAIN), &|| false, &mut out).unwrap();
        assert!(!out.contains(&b'\x1b'));
    }

    #[test]
    fn live_rows_are_cut_to_the_terminal() {
        assert_eq!(fit("e5 1200 visits", Some(8)), "e5 1200 ");
        assert_eq!(fit("e5", Some(8)), "e5");
        assert_eq!(fit("e5 1200 visits", None), "e5 1200 visits");
    }

    #[test]
    fn refuses_finished_games() {
        let fen = "oxo1xooxx/xo1oooo2/xxo3oo1/oo1xxx2x/xo2o1xo1/1xo1oxoxo/1xx5x/xx1xxx1ox/o1xo1ooox x 28 a9";
        let settings = Settings {
            pos: fen.parse::<Position>().unwrap(),
            limits: Limits::default(),
            multipv: 1,
            options: Options::default(),
            eval: Eval::Playout,
            style: Style::PLAIN,
        };
        let err = run(&settings, &|| false, &mut Vec::new()).unwrap_err();
        assert!(matches!(err, CliError::GameOver), "{err}");
        assert!(err.to_string().contains("game is over"));
    }
}
