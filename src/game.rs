//! The small interface through which the search sees a game.
//!
//! The search knows nothing of Ultimate Tic-Tac-Toe: it plays moves, asks
//! whether the game is over and draws random or winning moves, all through
//! [`Game`]. A second two-player game can be searched by implementing it.

use std::fmt::{self, Debug, Display};
use std::hash::Hash;
use std::sync::atomic::{AtomicU8, AtomicU16, Ordering};

/// One of the two players. `X` moves first. (In Ultimate Tic-Tac-Toe they
/// place the marks `x` and `o`.) In JSON: `x` or `o`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// The first player.
    X = 0,
    /// The second player.
    O = 1,
}

impl Player {
    /// The other player.
    #[inline]
    pub const fn opponent(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    /// 0 for `X`, 1 for `O`.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The player's character: `x` or `o`.
    pub const fn to_char(self) -> char {
        match self {
            Player::X => 'x',
            Player::O => 'o',
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

/// How a finished game ended. A position that is still being played has
/// no outcome (`Option<Outcome>` is `None`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Outcome {
    /// This player won.
    Win(Player),
    /// Nobody won.
    Draw,
}

impl Outcome {
    /// The result for `player`.
    pub fn verdict_for(self, player: Player) -> Verdict {
        match self {
            Outcome::Win(p) if p == player => Verdict::Win,
            Outcome::Win(_) => Verdict::Loss,
            Outcome::Draw => Verdict::Draw,
        }
    }
}

/// A result seen from one player's side: a game's result for one engine,
/// or a proven result for the side to move.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Verdict {
    /// That player wins.
    Win,
    /// Nobody wins.
    Draw,
    /// That player loses.
    Loss,
}

impl Verdict {
    /// The same result from the other side.
    pub const fn flip(self) -> Verdict {
        match self {
            Verdict::Win => Verdict::Loss,
            Verdict::Draw => Verdict::Draw,
            Verdict::Loss => Verdict::Win,
        }
    }

    /// The score: 1 for a win, 1/2 for a draw, 0 for a loss.
    pub const fn score(self) -> f64 {
        match self {
            Verdict::Win => 1.0,
            Verdict::Draw => 0.5,
            Verdict::Loss => 0.0,
        }
    }
}

/// An atomic word that holds a node's move or child count: `AtomicU8` or
/// `AtomicU16` (a Relaxed load compiles to a plain load).
pub trait AtomicWord: Send + Sync + 'static {
    /// The word's integer.
    type Int: Copy;
    /// A word holding `v`.
    fn new(v: Self::Int) -> Self;
    /// Its value (Relaxed: what publishes a node orders it).
    fn get(&self) -> Self::Int;
    /// Sets its value (Relaxed).
    fn set(&self, v: Self::Int);
}

impl AtomicWord for AtomicU8 {
    type Int = u8;
    #[inline(always)]
    fn new(v: u8) -> AtomicU8 {
        AtomicU8::new(v)
    }
    #[inline(always)]
    fn get(&self) -> u8 {
        self.load(Ordering::Relaxed)
    }
    #[inline(always)]
    fn set(&self, v: u8) {
        self.store(v, Ordering::Relaxed)
    }
}

impl AtomicWord for AtomicU16 {
    type Int = u16;
    #[inline(always)]
    fn new(v: u16) -> AtomicU16 {
        AtomicU16::new(v)
    }
    #[inline(always)]
    fn get(&self) -> u16 {
        self.load(Ordering::Relaxed)
    }
    #[inline(always)]
    fn set(&self, v: u16) {
        self.store(v, Ordering::Relaxed)
    }
}

/// A value the search keeps in a node as an atomic word (a move, a child
/// count), so that its nodes need no `unsafe`: the bits of the value, and
/// the value of the bits. The zero word must stand for the default value.
pub trait Packed: Copy + Send + Sync + 'static {
    /// The word that holds one.
    type Word: AtomicWord;
    /// The value's bits.
    fn pack(self) -> <Self::Word as AtomicWord>::Int;
    /// The value of `bits` (which [`Packed::pack`] made).
    fn unpack(bits: <Self::Word as AtomicWord>::Int) -> Self;
}

impl Packed for u8 {
    type Word = AtomicU8;
    #[inline(always)]
    fn pack(self) -> u8 {
        self
    }
    #[inline(always)]
    fn unpack(bits: u8) -> u8 {
        bits
    }
}

impl Packed for u16 {
    type Word = AtomicU16;
    #[inline(always)]
    fn pack(self) -> u16 {
        self
    }
    #[inline(always)]
    fn unpack(bits: u16) -> u16 {
        bits
    }
}

/// A count of a search node's children, as small as the game allows.
pub trait ChildCount: Packed + Debug + Default {
    /// The count `n`; `n` is at most the game's `MAX_MOVES`, which fits.
    fn from_usize(n: usize) -> Self;
    /// The count as a `usize`.
    fn to_usize(self) -> usize;
}

impl ChildCount for u8 {
    #[inline(always)]
    fn from_usize(n: usize) -> u8 {
        debug_assert!(n <= u8::MAX as usize);
        n as u8
    }

    #[inline(always)]
    fn to_usize(self) -> usize {
        self as usize
    }
}

impl ChildCount for u16 {
    #[inline(always)]
    fn from_usize(n: usize) -> u16 {
        debug_assert!(n <= u16::MAX as usize);
        n as u16
    }

    #[inline(always)]
    fn to_usize(self) -> usize {
        self as usize
    }
}

/// A two-player, zero-sum, perfect-information game with win, draw and loss.
///
/// Positions hash: the solver's table keys them (also for the search's
/// leaf solver).
pub trait Game: Copy + Send + Sync + PartialEq + Debug + Display + Hash + 'static {
    /// A move. The search stores one per tree node, so keep it small.
    type Move: Packed + Eq + Debug + Display + Default;

    /// A list of moves, without allocation.
    type Moves: std::ops::Deref<Target = [Self::Move]>;

    /// How a search node counts its children: `u8` for games with at
    /// most 255 legal moves (a 16-byte node with a one-byte move), `u16`
    /// for games with more.
    type ChildCount: ChildCount;

    /// The most legal moves any position can have (at most what
    /// [`Game::ChildCount`] holds).
    const MAX_MOVES: usize;

    /// The most plies a game can last from any position.
    const MAX_PLIES: usize;

    /// The plies a game between good players is expected to last, for
    /// time management on a clock without moves-to-go.
    const EXPECTED_PLIES: u32;

    /// The player to move.
    fn side_to_move(&self) -> Player;

    /// Plies played so far (for time management).
    fn ply(&self) -> u32;

    /// At most this many plies are left to play (the search settles a
    /// leaf with its leaf solver when this is small, see
    /// [`crate::search::Params::leaf_solve`]). By default
    /// [`Game::MAX_PLIES`], which settles none below the threshold.
    fn plies_left_bound(&self) -> u32 {
        Self::MAX_PLIES as u32
    }

    /// How the game ended, or `None` while it goes on.
    fn outcome(&self) -> Option<Outcome>;

    /// The legal moves; empty once the game is over.
    fn legal_moves(&self) -> Self::Moves;

    /// The proof search's first disproof number for a new position: its
    /// number of legal moves where the game counts them cheaply (a
    /// popcount of a mask it keeps), else 1 (the default: no guess).
    /// Working the moves out costs: Super 1 al 5's solver ran 2.4 times
    /// slower a node with the list's length, and whether the guess saves
    /// more than that in time to an answer is not measured
    /// (docs/search.md, "Legal moves as first disproof numbers").
    #[inline]
    fn mobility(&self) -> u32 {
        1
    }

    /// Plays a move without checking it: the search's fast path. The caller
    /// guarantees that `m` is legal (an illegal move leaves the position
    /// meaningless; debug builds assert). Each game's own `try_play` checks.
    fn play_unchecked(&mut self, m: Self::Move);

    /// A uniformly random legal move, or `None` once the game is over.
    fn random_move<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Option<Self::Move>;

    /// Plays one uniformly random legal move; `false` once the game is over.
    /// Games may override this with a faster path.
    #[inline]
    fn play_random<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        match self.random_move(rng) {
            Some(m) => {
                self.play_unchecked(m);
                true
            }
            None => false,
        }
    }

    /// A move that wins the game at once, if the side to move has one.
    fn winning_move(&self) -> Option<Self::Move> {
        None
    }

    /// Whether `player` may still win: `false` only when no sequence of
    /// moves from here ends in a win for `player` (the proof search prunes
    /// with it). The default, `true`, is always sound.
    fn may_win(&self, player: Player) -> bool {
        let _ = player;
        true
    }

    /// Plays a game-winning move if there is one, else a uniformly random
    /// move; `false` once the game is over. Games may override this with a
    /// faster path.
    #[inline]
    fn play_winning_or_random<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        match self.winning_move() {
            Some(m) => {
                self.play_unchecked(m);
                true
            }
            None => self.play_random(rng),
        }
    }
}

/// The games Ultimo plays, as the command line's `--game`, the protocol's
/// game list and the GUI's JSON name them (`uttt`, `super15`).
#[derive(
    Copy, Clone, PartialEq, Eq, Hash, Debug, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// Ultimate Tic-Tac-Toe (the default).
    #[default]
    Uttt,
    /// Super 1 al 5 (see `docs/super-1-al-5.md`).
    Super15,
}

impl GameKind {
    /// Every game, the default first.
    pub const ALL: [GameKind; 2] = [GameKind::Uttt, GameKind::Super15];

    /// The game's name: `uttt` or `super15`.
    pub const fn name(self) -> &'static str {
        match self {
            GameKind::Uttt => "uttt",
            GameKind::Super15 => "super15",
        }
    }

    /// The deepest `perft` the protocol takes in this game: one at the
    /// start position takes seconds (281 million leaves at depth 8 in UTTT,
    /// 290 million at depth 5 in Super 1 al 5, which has about 50 moves a
    /// ply), while `perft` blocks the protocol until it ends.
    pub const fn protocol_perft_depth(self) -> u32 {
        match self {
            GameKind::Uttt => 8,
            GameKind::Super15 => 5,
        }
    }

    /// The game of a name (case-insensitive), if it is one.
    pub fn from_name(name: &str) -> Option<GameKind> {
        GameKind::ALL
            .into_iter()
            .find(|g| g.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error of a game's text, as the tools above need it: shown to people,
/// kept in typed errors, compared in tests.
pub trait TextError: std::error::Error + Clone + PartialEq + Send + Sync + 'static {}

impl<E: std::error::Error + Clone + PartialEq + Send + Sync + 'static> TextError for E {}

/// A game's text: the start position, positions and moves read and
/// written, and the legality of a move with its reason. The protocol, the
/// tools and the match referee see a game only through this and [`Game`].
/// A position reads with `FromStr` and writes with `Display`; a move
/// writes with `Display`.
pub trait Notation: Game + std::str::FromStr<Err = Self::FenError> {
    /// Which game this is.
    const KIND: GameKind;
    /// Why a text is no position.
    type FenError: TextError;
    /// Why a word is no move.
    type MoveError: TextError;
    /// Why a move is illegal in a position.
    type PlayError: TextError;
    /// Why a list of moves cannot be played.
    type MovesError: TextError;

    /// The start position.
    fn startpos() -> Self;

    /// Reads one move.
    fn parse_move(text: &str) -> Result<Self::Move, Self::MoveError>;

    /// Whether `m` is legal here, and why not.
    fn check(&self, m: Self::Move) -> Result<(), Self::PlayError>;

    /// Plays `m` if it is legal; otherwise says why and leaves the position
    /// as it was.
    fn try_play(&mut self, m: Self::Move) -> Result<(), Self::PlayError> {
        self.check(m)?;
        self.play_unchecked(m);
        Ok(())
    }

    /// Plays a list of moves, all or nothing.
    fn play_moves<'a, I: IntoIterator<Item = &'a str>>(
        &self,
        moves: I,
    ) -> Result<Self, Self::MovesError>;

    /// The leaves of the move tree `depth` plies below (a finished game is
    /// a leaf only at depth 0). Games may override this with a faster path.
    fn perft(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.legal_moves().len() as u64,
            _ => self
                .legal_moves()
                .iter()
                .map(|&m| {
                    let mut child = *self;
                    child.play_unchecked(m);
                    child.perft(depth - 1)
                })
                .sum(),
        }
    }

    /// Whether the game is over.
    fn is_over(&self) -> bool {
        self.outcome().is_some()
    }
}
