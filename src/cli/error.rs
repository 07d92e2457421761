//! [`CliError`]: everything a subcommand can fail with, as one typed error.
//! `main` prints it as one `error: ...` line on stderr and exits with 2.

use std::io;

use thiserror::Error;

use crate::search::SearchError;

use crate::arena::ArenaError;
use crate::gui::GuiError;
use crate::notation::FenError;
use crate::pgn::GameTextError;
use crate::protocol::ProtocolError;
use crate::protocol::codingame::CodingameError;
use crate::protocol::riddles::RiddlesError;

/// Why a command of the `ultimo` command line failed.
///
/// The variants that wrap a `String` stand for layers whose errors are not
/// typed yet; each says which typed error replaces it.
#[derive(Debug, Error)]
pub enum CliError {
    /// `datagen --option` names an option that has its own flag.
    #[error("datagen: set {0} with its own flag (--eval, --net, --threads, --hash), not --option")]
    DatagenOptionFlag(String),
    /// `--log` with a subcommand: it logs the protocol loop only.
    #[error("--log logs the protocol loop only (ultimo with no subcommand)")]
    LogWithCommand,
    /// `datagen --eval playout --net FILE`: the net would not be used.
    #[error("datagen: --net {0} has no use with --eval playout (--net alone searches with it)")]
    DatagenNetWithPlayouts(String),
    /// `datagen` without `--games` or `--merge`.
    #[error("datagen: give --games N, or --merge FILE... to merge the files of a run's shards")]
    DatagenGames,
    /// `datagen --allow-incomplete` without `--merge`.
    #[error("datagen: --allow-incomplete goes with --merge only")]
    DatagenAllowIncomplete,
    /// A `--shard` that does not read.
    #[error(transparent)]
    Shard(#[from] crate::shard::ShardError),
    /// `datagen --merge`: the files are not the shards of one run.
    #[error("datagen --merge: {0}")]
    Merge(#[from] crate::selfplay::merge::MergeError),
    /// Self-play failed.
    #[error(transparent)]
    SelfPlay(#[from] crate::selfplay::SelfPlayError),
    /// `datagen --option` is not an option with a valid value.
    #[error("datagen --option: {0}")]
    DatagenOption(#[from] crate::protocol::options::OptionError),
    /// `--fen` is not a position of the game.
    #[error("bad FEN '{fen}': {source}")]
    Fen {
        /// The FEN as given, shortened for echoing.
        fen: String,
        /// What is wrong with it.
        source: GameTextError,
    },
    /// `--moves` are not moves of the game, or not legal in turn.
    #[error(transparent)]
    Moves(GameTextError),
    /// `analyze` on a finished game.
    #[error("the game is over; nothing to analyse")]
    GameOver,
    /// A game to review has a move that cannot be played.
    #[error(transparent)]
    Review(#[from] crate::review::ReviewError),
    /// The `--pgn` file cannot be read.
    #[error("cannot read {}: {source}", crate::quote::path(.file))]
    ReadPgn {
        /// The file.
        file: std::path::PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The `--pgn` file is not PGN, or its game breaks the rules.
    #[error(transparent)]
    Pgn(#[from] crate::pgn::PgnError),
    /// `--game-number` is past the file's games.
    #[error("{} has {games} game(s); there is no game {number}", crate::quote::path(.file))]
    NoSuchGame {
        /// The file.
        file: std::path::PathBuf,
        /// The game asked for, from 1.
        number: usize,
        /// The games in the file.
        games: usize,
    },
    /// `--review` without moves.
    #[error(
        "nothing to review: give the game's moves with --moves (from --fen or the start), or a game with --pgn FILE"
    )]
    NoMovesToReview,
    /// The `--pgn` game to review has no moves.
    #[error("game {number} of {} has no moves to review", crate::quote::path(.file))]
    NoMovesInGame {
        /// The file.
        file: std::path::PathBuf,
        /// The game, from 1.
        number: usize,
    },
    /// The `--pgnout` file cannot be written.
    #[error("cannot write {}: {source}", crate::quote::path(.file))]
    WritePgn {
        /// The file.
        file: std::path::PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The search returned no move in a game that is not over.
    #[error("the engine found no move")]
    NoMove,
    /// A compiled-in bench position does not parse (a bug, not bad input).
    #[error("bench position {index}: {source}")]
    BenchPosition {
        /// The position's number, from 1.
        index: usize,
        /// What is wrong with it.
        source: FenError,
    },
    /// The `--pgnout` file cannot be opened or written.
    #[error("cannot write to {path}: {source}")]
    PgnOut {
        /// The file.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// A file or folder cannot be written.
    #[error("cannot write to {}: {source}", crate::quote::path(.path))]
    WriteFile {
        /// The file or folder.
        path: std::path::PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Reading the input or writing the output failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The searcher cannot be made or refused its options (e.g. memory).
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The solver cannot be made as asked (hash, threads, memory).
    #[error(transparent)]
    Solve(#[from] crate::solve::SolveError),
    /// A search could not be run (its thread could not start, or failed).
    #[error(transparent)]
    Searcher(#[from] crate::engine::AsyncError),
    /// The protocol loop failed.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// The CodinGame dialect failed.
    #[error(transparent)]
    Codingame(#[from] CodingameError),
    /// The riddles.io dialect failed.
    #[error(transparent)]
    Riddles(#[from] RiddlesError),
    /// The GUI's server failed.
    #[error(transparent)]
    Gui(#[from] GuiError),
    /// The match runner failed.
    #[error(transparent)]
    Arena(#[from] ArenaError),
    /// A data file cannot be read or written.
    #[error(transparent)]
    Data(#[from] crate::net::data::DataError),
    /// A net file cannot be read or written.
    #[error(transparent)]
    Net(#[from] crate::net::NetError),
    /// `train` settings out of range.
    #[cfg(feature = "train")]
    #[error(
        "train: --lambda must be between 0 and 1, --lr between 0 and 1 (exclusive) and --policy-weight between 0 and 100"
    )]
    TrainSettings,
}

/// A command-line value that clap's parsers refuse. Clap accepts any
/// `std::error::Error + Send + Sync` from a value parser and prints it after
/// `invalid value '...' for '--option <VALUE>': `.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ValueError {
    /// Not a number of seconds in (0, 86400].
    #[error("'{0}' is not a number of seconds greater than 0 and at most 86400")]
    Seconds(String),
    /// Not `x` or `o`.
    #[error("'{0}' is not a side (x or o)")]
    Side(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_before() {
        let fen = "9/9/9 x 1 0000";
        let err = CliError::Fen {
            fen: crate::quote::shorten(fen),
            source: fen.parse::<crate::rules::Position>().unwrap_err().into(),
        };
        assert_eq!(
            err.to_string(),
            format!(
                "bad FEN '9/9/9 x 1 0000': {}",
                fen.parse::<crate::rules::Position>().unwrap_err()
            )
        );
        assert_eq!(
            ValueError::Seconds("0".into()).to_string(),
            "'0' is not a number of seconds greater than 0 and at most 86400"
        );
    }
}
