//! `--replay FILE` and `--merge FILE..`: play nothing, read recorded games
//! back, check every move with the rules and print the summary of all of
//! them, as if one run had played them.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};

use super::openings::ArenaGame;
use super::record::{Record, RecordError, RecordReader};
use super::tally::{Sprt, Standings};
use super::{ArenaError, write_json};
use crate::game::GameKind;
use crate::pgn::{self, PgnNotation};

/// What to replay: PGN files of a match (one with `--replay`, which may
/// hold several matches; the shards of one match with `--merge`).
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayConfig {
    /// The PGN files.
    pub records: Vec<PathBuf>,
    /// Whether the files are the shards of one match (`--merge`): their
    /// `Event`s may differ, a game number comes once over all of them,
    /// and their games must be of one match (`Games`, `Engines`, `Seed`,
    /// the `N` of `Shard`) and hold all of its games.
    pub merge: bool,
    /// With `merge`: summarise the games there are when some are missing
    /// (they are named), instead of refusing.
    pub allow_incomplete: bool,
    /// The SPRT's settings (ELO0 ELO1 ALPHA BETA), if any.
    pub sprt: Option<Vec<f64>>,
    /// Where to write the summary as JSON, if anywhere.
    pub json: Option<PathBuf>,
}

/// Prints the summary of the records of `config` on standard output, and
/// writes it as JSON where asked.
pub(super) fn run(config: &ReplayConfig) -> Result<(), ArenaError> {
    let sprt = config.sprt.as_deref().map(Sprt::new).transpose()?;
    let summary = replay(
        &config.records,
        config.merge.then_some(config.allow_incomplete),
        sprt.as_ref(),
        &mut io::stdout().lock(),
    )?;
    match &config.json {
        Some(path) => write_json(path, &summary),
        None => Ok(()),
    }
}

/// Prints the summary of the games of the PGN files `paths` (one with
/// `--replay`, or the shards of one match with `merge`, which is whether
/// missing games are allowed) after checking them, and returns it as JSON.
/// The game is the first game's `Variant`.
fn replay(
    paths: &[PathBuf],
    merge: Option<bool>,
    sprt: Option<&Sprt>,
    out: &mut impl Write,
) -> Result<serde_json::Value, ArenaError> {
    if let Some(twice) = given_twice(paths) {
        return Err(ArenaError::RecordTwice(twice.to_path_buf()));
    }
    // The game is the first game's: read that one game first. An unknown
    // variant is reported by the game's replay.
    let mut kind = None;
    for path in paths {
        if let Some(first) = games_of(path)?.next() {
            kind = first.map_err(RecordError::from)?.kind();
            break;
        }
    }
    match kind.unwrap_or_default() {
        GameKind::Uttt => replay_game::<crate::rules::Position>(paths, merge, sprt, out),
        GameKind::Super15 => replay_game::<crate::super15::Position>(paths, merge, sprt, out),
    }
}

/// The games of the PGN file at `path`, read one at a time.
fn games_of(path: &Path) -> Result<pgn::Games<'static>, ArenaError> {
    let file = File::open(path).map_err(|problem| ArenaError::Read {
        path: path.to_path_buf(),
        problem,
    })?;
    Ok(pgn::games(
        BufReader::new(file),
        &crate::quote::name(&path.display().to_string()),
    ))
}

/// The first file of `paths` that an earlier one names too (the same
/// file by another path counts, where both can be resolved).
fn given_twice(paths: &[PathBuf]) -> Option<&Path> {
    let resolved: Vec<PathBuf> = paths
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect();
    (1..paths.len())
        .find(|&i| resolved[..i].contains(&resolved[i]))
        .map(|i| paths[i].as_path())
}

/// Prints the summary of the games of the PGN files `paths` of game `G`
/// as if one run had played them all, and returns it as JSON. The files
/// are read one game at a time.
fn replay_game<G: ArenaGame + PgnNotation>(
    paths: &[PathBuf],
    merge: Option<bool>,
    sprt: Option<&Sprt>,
    out: &mut impl Write,
) -> Result<serde_json::Value, ArenaError> {
    let mut reader = RecordReader::<G>::new(merge.is_some() || paths.len() > 1);
    let mut counts = Vec::new();
    for path in paths {
        let name = crate::quote::name(&path.display().to_string());
        reader.file(&name);
        let mut count = 0;
        for game in games_of(path)? {
            reader.add(&game.map_err(RecordError::from)?)?;
            count += 1;
        }
        counts.push((name, count));
    }
    let record = reader.finish()?;
    let missing = record.missing();
    let total = record.id.as_ref().and_then(|id| id.games);
    if let (Some(false), Some(games)) = (merge, total)
        && !missing.is_empty()
    {
        return Err(ArenaError::Incomplete {
            have: record.games.len() as u64,
            games,
            missing: missing_text(&missing, &record),
        });
    }
    let engines = record.engines.clone();
    if engines.len() > 2 && sprt.is_some() {
        return Err(ArenaError::SprtEngines(engines.len()));
    }
    // With two engines their pairing shows even without a game.
    let pairings: &[(usize, usize)] = if engines.len() == 2 { &[(0, 1)] } else { &[] };
    let mut standings = Standings::new(engines, pairings);
    for game in &record.games {
        standings.add(game)?;
    }
    write!(out, "{}", standings.summary(sprt)).map_err(ArenaError::Output)?;
    for (name, games) in &counts {
        writeln!(
            out,
            "{:<12}{name}: {games} games, every move legal",
            "record",
        )
        .map_err(ArenaError::Output)?;
    }
    if merge.is_some() {
        let line = match total {
            None => "no Games tag: whether games are missing is not known".to_string(),
            Some(_) if missing.is_empty() => "every game of the match is there".to_string(),
            Some(games) => format!(
                "{} of {games} games: {}",
                record.games.len(),
                missing_text(&missing, &record)
            ),
        };
        writeln!(out, "{:<12}{line}", "merged").map_err(ArenaError::Output)?;
    }
    let names: Vec<&str> = counts.iter().map(|(name, _)| name.as_str()).collect();
    Ok(serde_json::json!({
        "settings": null,
        "records": names,
        "missing": merge.map(|_| missing),
        "standings": standings.json(sprt),
        "end": null,
    }))
}

/// The missing game numbers in words (at most ten ranges), and the
/// shards no game came from, where the games say how many there are.
fn missing_text<G: ArenaGame>(missing: &[(u64, u64)], record: &Record<G>) -> String {
    const SHOWN: usize = 10;
    let mut text = crate::shard::missing_games(missing);
    if let Some((_, n)) = record.id.as_ref().and_then(|id| id.shard) {
        let absent: Vec<String> = (1..=n.min(100_000))
            .filter(|k| !record.shards.contains(k))
            .take(SHOWN)
            .map(|k| k.to_string())
            .collect();
        match absent.len() {
            0 => {}
            1 => text.push_str(&format!(" (no record of shard {} of {n})", absent[0])),
            _ => text.push_str(&format!(
                " (no record of shards {} of {n})",
                absent.join(", ")
            )),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_a_pgn_file() {
        let dir = std::env::temp_dir().join(format!("ultimo-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.pgn");
        let text = "[Round \"1\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\
            [Termination \"abandoned\"]\n[Pair \"1\"]\n\n1. e5 {x (a) crashed} 0-1\n";
        std::fs::write(&path, text).unwrap();
        let mut out = Vec::new();
        replay(std::slice::from_ref(&path), None, None, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("games       1: W 0 D 0 L 1"), "{out}");
        assert!(out.contains("faults      a 1 (1 crash), b none"), "{out}");
        assert!(
            out.ends_with("games.pgn: 1 games, every move legal\n"),
            "{out}"
        );
        std::fs::write(&path, "\n[Round \"1\"]\n1. e5 e5 *\n").unwrap();
        let err = replay(std::slice::from_ref(&path), None, None, &mut Vec::new()).unwrap_err();
        assert!(
            matches!(
                err,
                ArenaError::Record(RecordError::Pgn(pgn::PgnError { line: 3, .. }))
            ),
            "{err:?}"
        );
        let err = err.to_string();
        assert!(
            err.contains("games.pgn:3: move 1... e5 is illegal"),
            "{err}"
        );
        std::fs::write(&path, "").unwrap();
        let err = replay(std::slice::from_ref(&path), None, None, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("games.pgn: no games"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn merges_shards_into_one_summary() {
        let dir = std::env::temp_dir().join(format!("ultimo-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b, c) = (dir.join("a.pgn"), dir.join("b.pgn"), dir.join("c.pgn"));
        // Game n of a shard started at `event`: o wins as x crashes.
        let game = |event: &str, n: u64, x: &str, o: &str| {
            format!(
                "[Event \"{event}\"]\n[Round \"{n}\"]\n[White \"{x}\"]\n[Black \"{o}\"]\n\
                 [Result \"0-1\"]\n[Termination \"abandoned\"]\n[Pair \"{}\"]\n\n\
                 1. e5 {{x crashed}} 0-1\n\n",
                n.div_ceil(2)
            )
        };
        // Each shard has its own start, so its own Event.
        std::fs::write(&a, game("shard 1", 1, "p", "q")).unwrap();
        std::fs::write(&b, game("shard 2", 3, "p", "r")).unwrap();
        std::fs::write(&c, game("shard 3", 1, "q", "r")).unwrap();
        let mut out = Vec::new();
        let json = replay(&[b.clone(), a.clone()], Some(false), None, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        // The engines by Round, whatever the order of the files.
        assert!(
            out.starts_with("engines     p, q, r (2 pairings, 2 games)\n"),
            "{out}"
        );
        assert!(
            out.contains("Score of p vs q: 0 - 1 - 0  [0.000] 1\n"),
            "{out}"
        );
        assert!(
            out.contains("Score of p vs r: 0 - 1 - 0  [0.000] 1\n"),
            "{out}"
        );
        assert!(
            out.contains("b.pgn: 1 games, every move legal\nrecord      "),
            "{out}"
        );
        assert_eq!(json["standings"]["games"], 2);
        assert_eq!(json["records"].as_array().unwrap().len(), 2);
        let err = replay(&[a.clone(), c.clone()], Some(false), None, &mut Vec::new()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:1: game 1 again (first in {}, line 1)",
                c.display(),
                a.display()
            )
        );
        let sprt = Sprt::new(&[0.0, 5.0, 0.05, 0.05]).unwrap();
        let err = replay(
            &[a.clone(), b.clone()],
            Some(false),
            Some(&sprt),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "--sprt needs exactly two engines (got 3)");
        // One file of two matches (two Events): --replay takes each game 1
        // as its match's; --merge takes the file as one match.
        let both = dir.join("both.pgn");
        let text = game("match 1", 1, "p", "q") + &game("match 2", 1, "p", "q");
        std::fs::write(&both, text).unwrap();
        let mut out = Vec::new();
        replay(std::slice::from_ref(&both), None, None, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("games       2: W 0 D 0 L 2"), "{out}");
        let err = replay(
            std::slice::from_ref(&both),
            Some(false),
            None,
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("game 1 again (first on line 1)"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn merge_refuses_a_file_given_twice() {
        let dir = std::env::temp_dir().join(format!("ultimo-twice-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.pgn"), dir.join("b.pgn"));
        for path in [&a, &b] {
            std::fs::write(path, "[Round \"1\"]\n\n1. e5 *\n").unwrap();
        }
        // A file given twice, under its own name or another path.
        for again in [a.clone(), dir.join(".").join("a.pgn")] {
            let err = replay(
                &[a.clone(), b.clone(), again.clone()],
                Some(false),
                None,
                &mut Vec::new(),
            )
            .unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "{} is given twice: give each shard's record once",
                    again.display()
                )
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
