//! The plan of a match: its settings checked before anything starts (the
//! engines, their time controls, the openings, the shard), its pairings,
//! and which game each thread plays next.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use super::game::{GameSettings, GameSetup};
use super::openings::{self, ArenaGame, OpeningBook, OpeningError};
use super::record::MatchId;
use super::tally::{Sprt, Standings};
use super::{ArenaError, MAX_CONCURRENCY, MatchConfig, Tournament, read};
use crate::client::clock::{self, ClockError, TimeControl};
use crate::client::engine::{self, EngineSpec};
use crate::game::GameKind;
use crate::shard::Shard;

/// Two engines that meet, with what a game between them needs.
#[derive(Debug)]
pub(super) struct Pairing {
    /// Their indices among the engines.
    pub(super) engines: [usize; 2],
    /// Their specs (the first plays `x` in the first game of each pair).
    pub(super) specs: [EngineSpec; 2],
    /// Their time controls.
    controls: [TimeControl; 2],
}

/// Everything a match needs, checked before it starts.
#[derive(Debug)]
pub(super) struct Plan<G: ArenaGame> {
    /// The engines, in `--engine` order.
    pub(super) specs: Vec<EngineSpec>,
    /// Each engine's time control.
    pub(super) controls: Vec<TimeControl>,
    /// How more than two engines meet.
    tournament: Option<Tournament>,
    /// The pairings, in order.
    pub(super) pairings: Vec<Pairing>,
    /// Games per pairing.
    games: u64,
    /// The global indices of the pairs this run plays (all, or a shard's).
    pairs: Vec<u64>,
    shard: Option<Shard>,
    /// The openings of the pairs.
    openings: OpeningBook<G>,
    /// Where the openings come from, in words.
    openings_source: String,
    /// What every game needs: the referee's margins and the engines' logs.
    pub(super) settings: GameSettings,
    /// Games played at once.
    pub(super) concurrency: usize,
    pub(super) sprt: Option<Sprt>,
    /// The `--pgnout` file.
    pub(super) record: Option<PathBuf>,
    /// The `--json` file.
    pub(super) json: Option<PathBuf>,
}

impl<G: ArenaGame> Plan<G> {
    /// Checks the settings and reads or makes the openings. The checks run
    /// in this order, so that of several problems the first is reported.
    pub(super) fn new(args: &MatchConfig) -> Result<Plan<G>, ArenaError> {
        let sprt = args.sprt.as_deref().map(Sprt::new).transpose()?;
        let (specs, tournament) = engines::<G>(args, sprt.is_some())?;
        let controls = controls(args, &specs)?;
        check_counts(args)?;
        let shard = shard(args, sprt.is_some())?;
        let settings = game_settings(args)?;
        let (openings, openings_source) = openings::<G>(args)?;
        let pairings = pairings(tournament, &specs, &controls);
        let all_pairs = pairings.len() as u64 * (args.games / 2);
        let pairs = (0..all_pairs)
            .filter(|&i| shard.is_none_or(|s| s.has(i)))
            .collect();
        Ok(Plan {
            specs,
            controls,
            tournament,
            pairings,
            games: args.games,
            pairs,
            shard,
            openings,
            openings_source,
            settings,
            concurrency: args.concurrency,
            sprt,
            record: args.record.clone(),
            json: args.json.clone(),
        })
    }

    /// The games this run plays.
    pub(super) fn run_games(&self) -> u64 {
        2 * self.pairs.len() as u64
    }

    /// The games of the whole match (all shards).
    pub(super) fn all_games(&self) -> u64 {
        self.pairings.len() as u64 * self.games
    }

    /// The `index`-th game this run plays (from 0): its pairing and its
    /// number, pair, opening and colours, as in the whole match.
    pub(super) fn setup(&self, index: u64) -> Result<(usize, GameSetup<G>), OpeningError> {
        let pair = self.pairs[(index / 2) as usize];
        let per_pairing = self.games / 2;
        let pairing = (pair / per_pairing) as usize;
        let second = index % 2;
        Ok((
            pairing,
            GameSetup {
                game: 2 * pair + second + 1,
                pair: pair + 1,
                opening: self.openings.opening(pair % per_pairing)?,
                x_engine: second as usize,
                controls: self.pairings[pairing].controls,
            },
        ))
    }

    /// The engines as `a, b` or, when their controls differ, `a (nodes
    /// 100), b (tc 1+0.1 s)`, joined by `sep`; and the common control if
    /// there is one.
    fn engines_text(&self, sep: &str) -> (String, Option<TimeControl>) {
        let same = self.controls.iter().all(|&c| c == self.controls[0]);
        let names: Vec<String> = self
            .specs
            .iter()
            .zip(&self.controls)
            .map(|(spec, control)| match same {
                true => spec.name.clone(),
                false => format!("{} ({control})", spec.name),
            })
            .collect();
        (names.join(sep), same.then_some(self.controls[0]))
    }

    /// The first line of progress: who plays, how long, from where.
    pub(super) fn describe(&self) -> String {
        let game = match G::KIND {
            GameKind::Uttt => String::new(),
            kind => format!(" of {kind}"),
        };
        let control = |c: Option<TimeControl>| c.map_or(String::new(), |c| format!(", {c}"));
        let head = match self.tournament.filter(|_| self.specs.len() > 2) {
            None => {
                let (engines, common) = self.engines_text(" vs ");
                format!(
                    "match: {engines}, {} games{game}{}",
                    self.games,
                    control(common)
                )
            }
            Some(t) => {
                let (engines, common) = self.engines_text(", ");
                format!(
                    "{}: {engines}; {} pairings of {} games{game} ({} games){}",
                    t.name(),
                    self.pairings.len(),
                    self.games,
                    self.all_games(),
                    control(common)
                )
            }
        };
        let shard = match self.shard {
            Some(shard) => format!(
                ", shard {shard}: {} of {} pairs",
                self.pairs.len(),
                self.all_games() / 2
            ),
            None => String::new(),
        };
        format!(
            "{head}, openings: {}, concurrency {}{shard}",
            self.openings_source, self.concurrency
        )
    }

    /// Empty standings of the match's engines and pairings.
    pub(super) fn standings(&self) -> Standings {
        let names = self.specs.iter().map(|s| s.name.clone()).collect();
        let pairings: Vec<(usize, usize)> = self
            .pairings
            .iter()
            .map(|p| (p.engines[0], p.engines[1]))
            .collect();
        Standings::new(names, &pairings)
    }

    /// The settings as JSON.
    pub(super) fn json(&self) -> serde_json::Value {
        let engines: Vec<serde_json::Value> = self
            .specs
            .iter()
            .zip(&self.controls)
            .map(|(spec, control)| {
                serde_json::json!({
                    "name": spec.name,
                    "program": spec.program,
                    "control": control.to_string(),
                })
            })
            .collect();
        serde_json::json!({
            "game": G::KIND.to_string(),
            "engines": engines,
            "tournament": self.tournament.map(Tournament::name),
            "games_per_pairing": self.games,
            "games": self.run_games(),
            "shard": self.shard.map(|s| s.to_string()),
            "openings": self.openings_source,
            "concurrency": self.concurrency,
        })
    }

    /// What the settings may not do as the user expects, one sentence
    /// each: with nodes limits for every engine, too few openings for the
    /// pairs (none, or a short file) repeat the same games, as an engine
    /// that searches a fixed number of nodes plays the same moves in the
    /// same position.
    pub(super) fn warnings(&self) -> Vec<String> {
        let per_pairing = self.games / 2;
        let openings = match &self.openings {
            OpeningBook::List(list) => list.len() as u64,
            OpeningBook::Random { .. } => return Vec::new(),
        };
        let all_nodes = self
            .controls
            .iter()
            .all(|c| matches!(c, TimeControl::Nodes(_)));
        if !all_nodes || openings.max(1) >= per_pairing {
            return Vec::new();
        }
        let from = match openings {
            0 => "every pair starts from the start position".to_string(),
            n => format!("{n} openings for {per_pairing} pairs per pairing"),
        };
        vec![format!(
            "{from} and every engine has a nodes limit: an engine that searches \
             the same way each time (as Ultimo does) repeats the same games; \
             give --random-plies N or more --openings"
        )]
    }

    /// Each engine's name and `TimeControl` tag, for the PGN record.
    /// The tags that tell this match (every shard of it) from others.
    pub(super) fn match_id(&self) -> MatchId {
        let names: Vec<&str> = self.specs.iter().map(|s| s.name.as_str()).collect();
        MatchId {
            games: Some(self.all_games()),
            engines: Some(names.join(" ")),
            seed: match self.openings {
                OpeningBook::Random { seed, .. } => Some(seed),
                OpeningBook::List(_) => None,
            },
            shard: self.shard.map(|s| (s.k(), s.n())),
        }
    }

    pub(super) fn time_control_tags(&self) -> Vec<(String, String)> {
        self.specs
            .iter()
            .zip(&self.controls)
            .map(|(spec, control)| {
                (
                    spec.name.clone(),
                    crate::client::clock::time_control_tag(control),
                )
            })
            .collect()
    }
}

/// The engines' specs, checked (at least two, distinct names), each told
/// the game first when it is not the default; and how they meet.
fn engines<G: ArenaGame>(
    args: &MatchConfig,
    sprt: bool,
) -> Result<(Vec<EngineSpec>, Option<Tournament>), ArenaError> {
    let count = args.engines.len();
    if count < 2 {
        return Err(ArenaError::EngineCount(count));
    }
    let tournament = match args.tournament {
        None if count > 2 => return Err(ArenaError::Tournament(count)),
        t => t,
    };
    if sprt && count > 2 {
        return Err(ArenaError::SprtEngines(count));
    }
    let mut specs = args
        .engines
        .iter()
        .map(|e| EngineSpec::parse(e))
        .collect::<Result<Vec<_>, _>>()?;
    engine::distinct_names(&mut specs)?;
    if G::KIND != GameKind::Uttt {
        // The game first, before the engine's own options.
        for spec in &mut specs {
            let game = ("Game".to_string(), G::KIND.to_string());
            spec.options.insert(0, game);
        }
    }
    Ok((specs, tournament))
}

/// Each engine's time control: its own `tc=`, `nodes=` or `movetime=`,
/// else the match's `--tc`, `--nodes` or `--movetime`.
fn controls(args: &MatchConfig, specs: &[EngineSpec]) -> Result<Vec<TimeControl>, ArenaError> {
    let given = [
        args.movetime.is_some(),
        args.nodes.is_some(),
        args.tc.is_some(),
    ];
    let global = match given.iter().filter(|&&g| g).count() {
        0 if specs.iter().all(|s| s.control.is_none()) => {
            return Err(ClockError::NotOne.into());
        }
        0 => None,
        _ => Some(TimeControl::from_options(
            args.movetime,
            args.nodes,
            args.tc.as_deref(),
        )?),
    };
    specs
        .iter()
        .map(|spec| {
            spec.control
                .or(global)
                .ok_or_else(|| ArenaError::NoControl(spec.name.clone()))
        })
        .collect()
}

/// `--games` positive and even, `--concurrency` in range.
fn check_counts(args: &MatchConfig) -> Result<(), ArenaError> {
    if args.games == 0 || !args.games.is_multiple_of(2) {
        return Err(ArenaError::Games(args.games));
    }
    if !(1..=MAX_CONCURRENCY).contains(&args.concurrency) {
        return Err(ArenaError::Concurrency(args.concurrency));
    }
    Ok(())
}

/// The `--shard`, if any: not with the SPRT, and with random openings only
/// from a given seed.
fn shard(args: &MatchConfig, sprt: bool) -> Result<Option<Shard>, ArenaError> {
    let shard = args.shard.as_deref().map(str::parse::<Shard>).transpose()?;
    if shard.is_some() && sprt {
        return Err(ArenaError::Conflict("--sprt", "--shard"));
    }
    // Without a seed every shard would draw openings of its own.
    if shard.is_some() && args.random_plies.is_some() && args.seed.is_none() {
        return Err(ArenaError::Requires(
            "--shard with --random-plies",
            "--seed",
        ));
    }
    Ok(shard)
}

/// The referee's margins and timeouts, and the engines' log folder.
fn game_settings(args: &MatchConfig) -> Result<GameSettings, ArenaError> {
    Ok(GameSettings {
        margin: clock::millis("--timemargin", args.timemargin)?,
        move_timeout: clock::millis("--move-timeout", args.move_timeout)?,
        startup_timeout: clock::millis("--startup-timeout", args.startup_timeout)?,
        log: args.log.clone(),
    })
}

/// The openings of the pairs (read from `--openings`, drawn by
/// `--random-plies`, or none) and where they come from, in words.
fn openings<G: ArenaGame>(args: &MatchConfig) -> Result<(OpeningBook<G>, String), ArenaError> {
    match (&args.openings, args.random_plies) {
        (Some(_), Some(_)) => Err(ArenaError::Conflict("--openings", "--random-plies")),
        (_, None) if args.seed.is_some() => Err(ArenaError::Requires("--seed", "--random-plies")),
        (Some(path), None) => {
            let name = crate::quote::name(&path.display().to_string());
            let text = read(path)?;
            let list = openings::parse_openings(&text, &name)?;
            let source = format!("{} from {name}", list.len());
            Ok((OpeningBook::List(list), source))
        }
        (None, Some(plies)) => {
            let seed = args.seed.unwrap_or_else(seed_from_clock);
            let book = OpeningBook::Random { plies, seed };
            // Fails at once when no such opening can be found.
            book.opening(0)?;
            Ok((book, format!("{plies} random plies, seed {seed}")))
        }
        (None, None) => Ok((OpeningBook::List(Vec::new()), "startpos".to_string())),
    }
}

/// The pairings of the engines, in order: one of two engines, else as the
/// tournament pairs them.
fn pairings(
    tournament: Option<Tournament>,
    specs: &[EngineSpec],
    controls: &[TimeControl],
) -> Vec<Pairing> {
    tournament
        .unwrap_or(Tournament::RoundRobin)
        .pairings(specs.len())
        .into_iter()
        .map(|(a, b)| Pairing {
            engines: [a, b],
            specs: [specs[a].clone(), specs[b].clone()],
            controls: [controls[a], controls[b]],
        })
        .collect()
}

/// A seed from the clock, for when none is given.
fn seed_from_clock() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
pub(super) mod testing {
    //! Match settings and games shared by the arena's tests.

    use super::*;
    use crate::arena::record::{GameRecord, Termination};

    /// A match between `cmd=a name=one` and `cmd=b` with nothing else set.
    pub(in crate::arena) fn config() -> MatchConfig {
        MatchConfig {
            engines: vec!["cmd=a name=one".into(), "cmd=b".into()],
            ..MatchConfig::default()
        }
    }

    /// [`config`] with `nodes` iterations per move.
    pub(in crate::arena) fn nodes(n: u64) -> MatchConfig {
        MatchConfig {
            nodes: Some(n),
            ..config()
        }
    }

    /// Engines `a`, `b`, .. with `nodes` each, meeting as `tournament`.
    pub(in crate::arena) fn many(names: &[&str], tournament: Option<Tournament>) -> MatchConfig {
        MatchConfig {
            engines: names.iter().map(|n| format!("cmd={n}")).collect(),
            tournament,
            ..nodes(5)
        }
    }

    /// The game of `setup` in `plan`'s pairing `pairing`, lost by x's crash
    /// before any move.
    pub(in crate::arena) fn crashed(
        plan: &Plan<crate::rules::Position>,
        (pairing, setup): (usize, GameSetup<crate::rules::Position>),
    ) -> GameRecord {
        let engines = plan.pairings[pairing].engines;
        let name = |i: usize| plan.specs[engines[i]].name.clone();
        GameRecord {
            game: setup.game,
            pair: setup.pair,
            x: name(setup.x_engine),
            o: name(1 - setup.x_engine),
            opening: setup.opening,
            moves: vec![],
            notes: vec![],
            outcome: crate::game::Outcome::Win(crate::game::Player::O),
            termination: Termination::Crash,
            reason: "x crashed".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::arena::DEFAULT_GAMES;
    use crate::arena::record::{MatchTags, Record};
    use crate::pgn::{self, PgnGame};
    use std::time::Duration;

    #[test]
    fn plans_a_match() {
        let plan = Plan::<crate::rules::Position>::new(&MatchConfig {
            games: 4,
            ..nodes(100)
        })
        .unwrap();
        assert_eq!(plan.specs[0].name, "one");
        assert_eq!(plan.specs[1].name, "b");
        assert_eq!(plan.controls, [TimeControl::Nodes(100); 2]);
        assert_eq!(plan.settings.margin, Duration::from_millis(50));
        assert_eq!(plan.settings.move_timeout, Duration::from_secs(10));
        assert_eq!(plan.settings.startup_timeout, Duration::from_secs(5));
        assert_eq!(plan.sprt, None);
        assert_eq!(
            plan.describe(),
            "match: one vs b, 4 games, nodes 100, openings: startpos, concurrency 1"
        );
        let setups: Vec<(u64, u64, usize)> = (0..4)
            .map(|i| plan.setup(i).unwrap().1)
            .map(|s| (s.game, s.pair, s.x_engine))
            .collect();
        assert_eq!(setups, [(1, 1, 0), (2, 1, 1), (3, 2, 0), (4, 2, 1)]);
    }

    #[test]
    fn warns_of_repeated_games() {
        let plan = |config: MatchConfig| Plan::<crate::rules::Position>::new(&config).unwrap();
        let warnings = plan(nodes(100)).warnings();
        assert_eq!(
            warnings,
            [
                "every pair starts from the start position and every engine has a nodes limit: \
              an engine that searches the same way each time (as Ultimo does) repeats the same \
              games; give --random-plies N or more --openings"
            ]
        );
        // One pair, random openings, or a clock: nothing to repeat.
        assert!(
            plan(MatchConfig {
                games: 2,
                ..nodes(100)
            })
            .warnings()
            .is_empty()
        );
        let random = MatchConfig {
            random_plies: Some(4),
            ..nodes(100)
        };
        assert!(plan(random).warnings().is_empty());
        let clock = MatchConfig {
            tc: Some("1+0.1".into()),
            ..config()
        };
        assert!(plan(clock).warnings().is_empty());
        let odds = MatchConfig {
            engines: vec!["cmd=a".into(), "cmd=b movetime=10".into()],
            ..nodes(100)
        };
        assert!(plan(odds).warnings().is_empty());
        // A file of fewer openings than pairs.
        let dir = std::env::temp_dir().join(format!("ultimo-warn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let book = dir.join("book.txt");
        std::fs::write(&book, "e5\ne5 e4\n").unwrap();
        let short = MatchConfig {
            openings: Some(book.clone()),
            games: 6,
            ..nodes(100)
        };
        let warnings = plan(short.clone()).warnings();
        assert!(
            warnings[0].starts_with("2 openings for 3 pairs per pairing and every engine"),
            "{warnings:?}"
        );
        assert!(
            plan(MatchConfig { games: 4, ..short })
                .warnings()
                .is_empty()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pairs_share_random_openings() {
        let plan = Plan::<crate::rules::Position>::new(&MatchConfig {
            tc: Some("1+0.01".into()),
            random_plies: Some(6),
            seed: Some(9),
            games: 6,
            sprt: Some(vec![0.0, 5.0, 0.05, 0.05]),
            ..config()
        })
        .unwrap();
        assert!(
            plan.describe()
                .contains("tc 1+0.01 s, openings: 6 random plies, seed 9")
        );
        assert_eq!(plan.sprt.map(|s| s.elo1), Some(5.0));
        let opening = |i| plan.setup(i).unwrap().1.opening;
        assert_eq!(opening(2), opening(3));
        assert_ne!(opening(1), opening(2));
    }

    #[test]
    fn refuses_bad_plans() {
        let check = |config: MatchConfig, expected: &str| {
            let err = Plan::<crate::rules::Position>::new(&config)
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{config:?}: {err}");
        };
        check(config(), "give one time control");
        check(nodes(0), "--nodes must be at least 1");
        let movetime = |ms| MatchConfig {
            movetime: Some(ms),
            ..config()
        };
        check(movetime(0), "--movetime must be at least 1");
        check(
            MatchConfig {
                nodes: Some(5),
                ..movetime(5)
            },
            "give one time control",
        );
        check(
            MatchConfig {
                games: 3,
                ..nodes(5)
            },
            "--games must be a positive even number",
        );
        check(
            MatchConfig {
                games: 0,
                ..nodes(5)
            },
            "--games must be a positive even number",
        );
        check(
            MatchConfig {
                concurrency: 0,
                ..nodes(5)
            },
            "--concurrency must be between 1 and 256, got 0",
        );
        check(
            MatchConfig {
                tc: Some("x".into()),
                ..config()
            },
            "--tc x",
        );
        check(movetime(86_400_001), "--movetime 86400001 is too long");
        check(
            MatchConfig {
                timemargin: 86_400_001,
                ..nodes(5)
            },
            "--timemargin 86400001 is too long",
        );
        check(
            MatchConfig {
                move_timeout: 86_400_001,
                ..nodes(5)
            },
            "--move-timeout 86400001 is too long",
        );
        check(
            MatchConfig {
                startup_timeout: 86_400_001,
                ..nodes(5)
            },
            "--startup-timeout 86400001 is too long",
        );
        check(
            MatchConfig {
                openings: Some("/nonexistent/book".into()),
                ..nodes(5)
            },
            "cannot read /nonexistent/book",
        );
        check(
            MatchConfig {
                openings: Some("book".into()),
                random_plies: Some(2),
                ..nodes(5)
            },
            "--openings and --random-plies cannot be used together",
        );
        check(
            MatchConfig {
                seed: Some(1),
                ..nodes(5)
            },
            "--seed needs --random-plies",
        );
        check(
            MatchConfig {
                sprt: Some(vec![5.0, 0.0, 0.05, 0.05]),
                ..nodes(5)
            },
            "--sprt: ELO0 must be below ELO1",
        );
        check(
            MatchConfig {
                engines: vec!["cmd=a".into()],
                ..nodes(5)
            },
            "give at least two engines with --engine (got 1)",
        );
        check(
            MatchConfig {
                engines: vec!["cmd=a".into(), "cmd=b proto=x".into()],
                ..nodes(5)
            },
            "--engine 'cmd=b proto=x': proto must be ugi or uci",
        );
    }

    #[test]
    fn cycles_through_file_openings() {
        let dir = std::env::temp_dir().join(format!("ultimo-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.txt");
        std::fs::write(&path, "# two openings\ne5\ne5 e4\n").unwrap();
        let with_book = |games| MatchConfig {
            games,
            openings: Some(path.clone()),
            ..nodes(5)
        };
        let plan = Plan::<crate::rules::Position>::new(&with_book(6)).unwrap();
        let shown: Vec<String> = (0..6)
            .map(|i| plan.setup(i).unwrap().1.opening.to_string())
            .collect();
        assert_eq!(shown, ["e5", "e5", "e5 e4", "e5 e4", "e5", "e5"]);
        std::fs::write(&path, "e5\nbad line\n").unwrap();
        let err = Plan::<crate::rules::Position>::new(&with_book(2)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:2: bad moves 'bad line': 'bad' is not a cell (expected a file a-i and a rank 1-9, like e5)",
                path.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn gauntlets_and_round_robins_pair_the_engines() {
        let names = ["a", "b", "c", "d"];
        let plan = |t| Plan::<crate::rules::Position>::new(&many(&names, Some(t))).unwrap();
        let pairings = |p: &Plan<crate::rules::Position>| -> Vec<[usize; 2]> {
            p.pairings.iter().map(|p| p.engines).collect()
        };
        let gauntlet = plan(Tournament::Gauntlet);
        assert_eq!(pairings(&gauntlet), [[0, 1], [0, 2], [0, 3]]);
        assert_eq!(gauntlet.run_games(), 3 * DEFAULT_GAMES);
        let round_robin = plan(Tournament::RoundRobin);
        assert_eq!(
            pairings(&round_robin),
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
        );
        assert_eq!(round_robin.run_games(), 6 * DEFAULT_GAMES);
        assert!(
            round_robin.describe().starts_with(
                "round-robin: a, b, c, d; 6 pairings of 100 games (600 games), nodes 5"
            ),
            "{}",
            round_robin.describe()
        );
        // Two engines make one pairing, with or without --tournament.
        let two = Plan::<crate::rules::Position>::new(&many(&names[..2], None)).unwrap();
        assert_eq!(pairings(&two), [[0, 1]]);
        let err = |config: MatchConfig| {
            Plan::<crate::rules::Position>::new(&config)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(many(&names, None)),
            "with 4 engines, say how they meet: --tournament gauntlet or round-robin"
        );
        assert_eq!(
            err(MatchConfig {
                sprt: Some(vec![0.0, 5.0, 0.05, 0.05]),
                ..many(&names, Some(Tournament::Gauntlet))
            }),
            "--sprt needs exactly two engines (got 4)"
        );
    }

    #[test]
    fn every_pairing_plays_the_same_openings() {
        let plan = Plan::<crate::rules::Position>::new(&MatchConfig {
            games: 4,
            random_plies: Some(4),
            seed: Some(3),
            ..many(&["a", "b", "c"], Some(Tournament::RoundRobin))
        })
        .unwrap();
        assert_eq!(plan.run_games(), 12);
        let setups: Vec<(usize, GameSetup<crate::rules::Position>)> =
            (0..12).map(|i| plan.setup(i).unwrap()).collect();
        let numbers: Vec<(usize, u64, u64, usize)> = setups
            .iter()
            .map(|(p, s)| (*p, s.game, s.pair, s.x_engine))
            .collect();
        assert_eq!(
            numbers[..4],
            [(0, 1, 1, 0), (0, 2, 1, 1), (0, 3, 2, 0), (0, 4, 2, 1)]
        );
        assert_eq!(numbers[11], (2, 12, 6, 1));
        // Pair p of each pairing starts from opening p.
        for k in 0..3 {
            assert_eq!(setups[4 * k].1.opening, setups[0].1.opening);
            assert_eq!(setups[4 * k + 2].1.opening, setups[2].1.opening);
        }
        assert_ne!(setups[0].1.opening, setups[2].1.opening);
    }

    #[test]
    fn shards_play_their_share_as_the_whole_match_would() {
        let config = |shard: Option<&str>| MatchConfig {
            games: 4,
            random_plies: Some(4),
            seed: Some(3),
            shard: shard.map(String::from),
            ..many(&["a", "b", "c"], Some(Tournament::RoundRobin))
        };
        let whole = Plan::<crate::rules::Position>::new(&config(None)).unwrap();
        let key = |(p, s): (usize, GameSetup<crate::rules::Position>)| {
            (p, s.game, s.pair, s.x_engine, s.opening.to_string())
        };
        let all: Vec<_> = (0..whole.run_games())
            .map(|i| key(whole.setup(i).unwrap()))
            .collect();
        let mut union = Vec::new();
        for k in 1..=4 {
            let shard =
                Plan::<crate::rules::Position>::new(&config(Some(&format!("{k}/4")))).unwrap();
            assert_eq!(
                shard.pairs,
                (0..6).filter(|i| i % 4 == k - 1).collect::<Vec<u64>>()
            );
            assert!(
                shard
                    .describe()
                    .ends_with(&format!("shard {k}/4: {} of 6 pairs", shard.pairs.len())),
                "{}",
                shard.describe()
            );
            union.extend((0..shard.run_games()).map(|i| key(shard.setup(i).unwrap())));
        }
        union.sort_by_key(|g| g.1);
        // Shards without a seed would not share their openings.
        let unseeded = MatchConfig {
            seed: None,
            ..config(Some("1/4"))
        };
        let err = Plan::<crate::rules::Position>::new(&unseeded).unwrap_err();
        assert_eq!(err.to_string(), "--shard with --random-plies needs --seed");
        assert_eq!(union, all);
        // More shards than pairs: some play nothing.
        let empty = Plan::<crate::rules::Position>::new(&config(Some("8/8"))).unwrap();
        assert_eq!(empty.run_games(), 0);
        for bad in ["0/2", "3/2", "1", "a/b", "1/0", "-1/2"] {
            let err = Plan::<crate::rules::Position>::new(&config(Some(bad))).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("--shard '{bad}': expected K/N with 1 <= K <= N, e.g. 2/8")
            );
        }
        let err = Plan::<crate::rules::Position>::new(&MatchConfig {
            sprt: Some(vec![0.0, 5.0, 0.05, 0.05]),
            shard: Some("1/2".into()),
            ..nodes(5)
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "--sprt and --shard cannot be used together"
        );
    }

    #[test]
    fn each_engine_has_exactly_one_limit() {
        let engines = |specs: &[&str]| specs.iter().map(|s| s.to_string()).collect();
        let plan = |config: MatchConfig| Plan::<crate::rules::Position>::new(&config);
        // Its own limit overrides the match's.
        let odds = plan(MatchConfig {
            engines: engines(&["cmd=a tc=2+0.1", "cmd=b"]),
            nodes: Some(300),
            ..MatchConfig::default()
        })
        .unwrap();
        assert_eq!(
            odds.controls,
            [
                TimeControl::parse_clock("2+0.1").unwrap(),
                TimeControl::Nodes(300)
            ]
        );
        assert_eq!(
            odds.pairings[0].controls,
            [odds.controls[0], odds.controls[1]]
        );
        assert!(
            odds.describe()
                .starts_with("match: a (tc 2+0.1 s) vs b (nodes 300), 100 games, openings"),
            "{}",
            odds.describe()
        );
        // Every engine with its own: no match-wide limit needed.
        let own = plan(MatchConfig {
            engines: engines(&["cmd=a nodes=1", "cmd=b movetime=20"]),
            ..MatchConfig::default()
        })
        .unwrap();
        assert_eq!(
            own.controls[1],
            TimeControl::Movetime(Duration::from_millis(20))
        );
        let err = plan(MatchConfig {
            engines: engines(&["cmd=a nodes=1", "cmd=b"]),
            ..MatchConfig::default()
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "engine b has no time control: give --movetime, --nodes or --tc, or movetime=, nodes= or tc= in its --engine"
        );
        let err = plan(MatchConfig {
            engines: engines(&["cmd=a nodes=1 movetime=5", "cmd=b"]),
            ..nodes(5)
        })
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("give at most one of tc=, nodes= and movetime="),
            "{err}"
        );
    }

    #[test]
    fn records_give_the_engines_in_engine_order() {
        let names = ["d", "b", "a", "c"];
        for tournament in [Tournament::Gauntlet, Tournament::RoundRobin] {
            let config = |shard: Option<String>| MatchConfig {
                games: 4,
                random_plies: Some(2),
                seed: Some(5),
                shard,
                ..many(&names, Some(tournament))
            };
            let tags = |event: &str| MatchTags {
                event: event.into(),
                site: "?".into(),
                date: pgn::UNKNOWN_DATE.into(),
                time_controls: ["nodes=5".into(), "nodes=5".into()],
                id: Default::default(),
            };
            // The whole match, its games finished in reverse order.
            let whole = Plan::<crate::rules::Position>::new(&config(None)).unwrap();
            let games: Vec<PgnGame> = (0..whole.run_games())
                .rev()
                .map(|i| crashed(&whole, whole.setup(i).unwrap()).to_pgn(&tags("whole")))
                .collect();
            let record = Record::<crate::rules::Position>::from_games(&games, "w.pgn").unwrap();
            assert_eq!(record.engines, names, "{tournament:?}");
            // Its three shards, each with its own Event, read in reverse.
            let shards: Vec<(String, Vec<PgnGame>)> = (1..=3)
                .rev()
                .map(|k| {
                    let plan = Plan::<crate::rules::Position>::new(&config(Some(format!("{k}/3"))))
                        .unwrap();
                    let event = format!("shard {k}");
                    let games = (0..plan.run_games())
                        .map(|i| crashed(&plan, plan.setup(i).unwrap()).to_pgn(&tags(&event)))
                        .collect();
                    (format!("{k}.pgn"), games)
                })
                .collect();
            let files: Vec<(&str, &[PgnGame])> = shards
                .iter()
                .map(|(name, games)| (name.as_str(), games.as_slice()))
                .collect();
            let merged = Record::<crate::rules::Position>::merge(&files).unwrap();
            assert_eq!(merged.engines, names, "{tournament:?}");
            assert_eq!(merged.games.len(), record.games.len());
        }
    }
}
