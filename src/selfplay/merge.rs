//! The shards of a run put back together (`ultimo datagen --merge`): every
//! file checked to be a shard of one run, the games checked to be their
//! shards' and, unless some may be missing, all there; the result is the
//! games in the order of their numbers, under the settings of the run
//! without its [`Part`], which is the file one run on one machine writes
//! with one thread.

use thiserror::Error;

use super::{GAMES, Part, SHARD};
use crate::net::data::{self, Contents, GameRecord};
use crate::shard::{Shard, missing_games, ranges};

/// Why shards' files do not merge.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum MergeError {
    /// No file to merge.
    #[error("no data file to merge")]
    NoFiles,
    /// A file of format version 1, which records no settings.
    #[error("{0} records no settings (format version 1): which run it is a shard of is not known")]
    NoSettings(String),
    /// A file of a run without `--shard`.
    #[error(
        "{0} is not a shard: its run had no --shard (ultimo train takes several data files as they are)"
    )]
    NotAShard(String),
    /// A file whose `games` or `shard` setting does not read.
    #[error("{file} records {name} '{value}', which is not a shard's")]
    BadPart {
        /// The file.
        file: String,
        /// The setting.
        name: String,
        /// Its value.
        value: String,
    },
    /// A file of another run than the first file's.
    #[error(
        "{file} is a shard of another run than {first}: {}",
        differences.iter().map(|(name, there, here)| format!("{name} {there} there, {here} here")).collect::<Vec<_>>().join("; ")
    )]
    OtherRun {
        /// The file.
        file: String,
        /// The first file.
        first: String,
        /// Each setting that differs: its name, its value in the first file
        /// and in this one.
        differences: Vec<(String, String, String)>,
    },
    /// Two files of one shard.
    #[error("{first} and {file} are both shard {shard}: give each shard's file once")]
    ShardTwice {
        /// The shard.
        shard: Shard,
        /// The file read first.
        first: String,
        /// The other.
        file: String,
    },
    /// A game that is not its file's shard's.
    #[error("{file} holds game {game}, which is not one of shard {}'s", .part.shard)]
    ForeignGame {
        /// The file.
        file: String,
        /// The game's number.
        game: u64,
        /// The file's part of the run.
        part: Part,
    },
    /// A game number twice in a file.
    #[error("{file} holds game {game} twice")]
    GameTwice {
        /// The file.
        file: String,
        /// The game's number.
        game: u64,
    },
    /// A file that ends with an incomplete game (its run was stopped).
    #[error(
        "{file} ends with an incomplete game (at byte {at}): its run was stopped; \
         run its datagen command again to finish it, or give --allow-incomplete"
    )]
    Truncated {
        /// The file.
        file: String,
        /// Where the incomplete game starts.
        at: u64,
    },
    /// Games of the run that no file holds.
    #[error(
        "the files hold {have} of the run's {games} games: {missing}; finish every shard \
         (run its datagen command again) and merge all of their files, or give --allow-incomplete"
    )]
    Incomplete {
        /// The games the files hold.
        have: u64,
        /// The run's games.
        games: u64,
        /// The game numbers missing, and the shards without a file, in
        /// words.
        missing: String,
    },
}

/// A data file to merge: its name, as messages show it, and what it holds.
#[derive(Debug)]
pub struct Input {
    /// The file's name (quoted for messages).
    pub name: String,
    /// Its contents.
    pub contents: Contents,
}

/// Shards' files merged.
#[derive(Debug)]
pub struct Merged {
    /// The run's settings without its part: a run on one machine's.
    pub settings: Vec<(String, String)>,
    /// Every game of the files, by number.
    pub games: Vec<GameRecord>,
    /// The games of the whole run.
    pub run_games: u64,
    /// The shards of the run.
    pub shard_count: u64,
    /// How many shards have a file.
    pub shards: u64,
    /// What is missing, in words (`None` when nothing is).
    pub missing: Option<String>,
}

/// Merges the files of a run's shards: each must be a shard (a `games` and
/// a `shard` setting) of the same run (all other settings, and the shard
/// count, the same), each shard given once, each game its file's shard's
/// and given once. Unless `allow_incomplete`, every game of the run must be
/// there and no file may end with an incomplete game; with it, the whole
/// games are merged and [`Merged::missing`] says what is not there.
pub fn merge(inputs: Vec<Input>, allow_incomplete: bool) -> Result<Merged, MergeError> {
    // The first file's name, its run's settings and its part.
    let mut first: Option<(String, RunSettings, Part)> = None;
    let mut seen: Vec<(Shard, String)> = Vec::new();
    let mut games = Vec::new();
    let mut cut = Vec::new();
    for input in inputs {
        let Input { name, contents } = input;
        let (part, run) = shard_of(&name, contents.settings.as_deref())?;
        match &first {
            None => first = Some((name.clone(), run, part)),
            Some((first, there, _)) => {
                let differences = data::differences(there, &run);
                if !differences.is_empty() {
                    return Err(MergeError::OtherRun {
                        file: name,
                        first: first.clone(),
                        differences,
                    });
                }
            }
        }
        if let Some((_, other)) = seen.iter().find(|(s, _)| *s == part.shard) {
            return Err(MergeError::ShardTwice {
                shard: part.shard,
                first: other.clone(),
                file: name,
            });
        }
        check_games(&name, &contents.games, part)?;
        if contents.truncated {
            if !allow_incomplete {
                return Err(MergeError::Truncated {
                    file: name,
                    at: contents.valid_len,
                });
            }
            cut.push(name.clone());
        }
        seen.push((part.shard, name));
        games.extend(contents.games);
    }
    let Some((_, settings, part)) = first else {
        return Err(MergeError::NoFiles);
    };
    games.sort_unstable_by_key(|g| g.index);
    let (run_games, shard_count) = (part.games, part.shard.n());
    let missing = missing_text(&games, run_games, shard_count, &seen, &cut);
    if let (Some(missing), false) = (&missing, allow_incomplete) {
        return Err(MergeError::Incomplete {
            have: games.len() as u64,
            games: run_games,
            missing: missing.clone(),
        });
    }
    Ok(Merged {
        settings: settings
            .into_iter()
            .filter(|(n, _)| n != GAMES && n != SHARDS)
            .collect(),
        games,
        run_games,
        shard_count,
        shards: seen.len() as u64,
        missing,
    })
}

/// The part of a run that the file `name` with `settings` holds, and the
/// run's settings.
fn shard_of(
    name: &str,
    settings: Option<&[(String, String)]>,
) -> Result<(Part, RunSettings), MergeError> {
    let Some(settings) = settings else {
        return Err(MergeError::NoSettings(name.to_string()));
    };
    let part = match Part::recorded(settings) {
        None => return Err(MergeError::NotAShard(name.to_string())),
        Some(Err((setting, value))) => {
            return Err(MergeError::BadPart {
                file: name.to_string(),
                name: setting,
                value,
            });
        }
        Some(Ok(part)) => part,
    };
    Ok((part, run_settings(settings, part)))
}

/// Every game of the file `name` is its shard's and there once.
fn check_games(name: &str, games: &[GameRecord], part: Part) -> Result<(), MergeError> {
    let mut numbers: Vec<u64> = games.iter().map(|g| g.index).collect();
    numbers.sort_unstable();
    if let Some(&game) = numbers
        .iter()
        .find(|&&i| i >= part.games || !part.shard.has(i))
    {
        return Err(MergeError::ForeignGame {
            file: name.to_string(),
            game,
            part,
        });
    }
    if let Some(w) = numbers.windows(2).find(|w| w[0] == w[1]) {
        return Err(MergeError::GameTwice {
            file: name.to_string(),
            game: w[0],
        });
    }
    Ok(())
}

/// The name that stands for `shard` in [`run_settings`].
const SHARDS: &str = "shards";

/// A run's settings, names and values.
type RunSettings = Vec<(String, String)>;

/// A shard's settings as they must agree over the run's files: its shard
/// `K/N` stands as the count `N` only.
fn run_settings(settings: &data::Settings, part: Part) -> RunSettings {
    settings
        .iter()
        .map(|(name, value)| match name.as_str() {
            SHARD => (SHARDS.to_string(), part.shard.n().to_string()),
            _ => (name.clone(), value.clone()),
        })
        .collect()
}

/// The game numbers of a run of `run_games` that `games` (sorted) miss,
/// the shards of `n` without a file and the files cut short, in words (at
/// most ten ranges and ten shards); `None` when nothing is missing.
fn missing_text(
    games: &[GameRecord],
    run_games: u64,
    n: u64,
    seen: &[(Shard, String)],
    cut: &[String],
) -> Option<String> {
    const SHOWN: usize = 10;
    let mut have = games.iter().map(|g| g.index).peekable();
    let missing = ranges((0..run_games).filter(|&i| {
        let there = have.peek() == Some(&i);
        if there {
            have.next();
        }
        !there
    }));
    if missing.is_empty() && cut.is_empty() {
        return None;
    }
    let mut text = missing_games(&missing);
    let absent: Vec<u64> = (1..=n)
        .filter(|&k| !seen.iter().any(|(s, _)| s.k() == k))
        .take(SHOWN + 1)
        .collect();
    let mut notes = Vec::new();
    if !absent.is_empty() {
        let mut list: Vec<String> = absent.iter().take(SHOWN).map(u64::to_string).collect();
        if absent.len() > SHOWN {
            list.push("...".into());
        }
        let shards = if absent.len() == 1 { "shard" } else { "shards" };
        notes.push(format!("no file of {shards} {} of {n}", list.join(", ")));
    }
    for file in cut {
        notes.push(format!("{file} ends with an incomplete game"));
    }
    if !notes.is_empty() {
        text.push_str(&format!(" ({})", notes.join("; ")));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Outcome, Player};
    use crate::net::data::PositionRecord;

    fn game(index: u64) -> GameRecord {
        GameRecord {
            index,
            result: Outcome::Draw,
            random_plies: 2,
            positions: vec![PositionRecord {
                marks: [index as u128, 0],
                side: Player::O,
                last: None,
                value: 0.5,
                visits: vec![(3, 10)],
            }],
        }
    }

    fn settings(games: u64, shard: &str) -> Vec<(String, String)> {
        [("nodes", "20"), ("seed", "7")]
            .into_iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .chain([
                ("games".to_string(), games.to_string()),
                ("shard".to_string(), shard.to_string()),
            ])
            .collect()
    }

    /// Shard `k` of `n` of a run of `games`, with all its games.
    fn shard(k: u64, n: u64, games: u64) -> Input {
        let part = Part {
            games,
            shard: Shard::new(k, n).unwrap(),
        };
        Input {
            name: format!("s{k}.bin"),
            contents: Contents {
                settings: Some(settings(games, &format!("{k}/{n}"))),
                games: part
                    .games()
                    .map(game)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect(),
                valid_len: 100,
                truncated: false,
            },
        }
    }

    fn error(inputs: Vec<Input>) -> String {
        merge(inputs, false).unwrap_err().to_string()
    }

    #[test]
    fn the_shards_merge_into_the_whole_run_in_order() {
        let merged = merge(vec![shard(3, 3, 7), shard(1, 3, 7), shard(2, 3, 7)], false).unwrap();
        assert_eq!(merged.games, (0..7).map(game).collect::<Vec<_>>());
        assert_eq!(merged.settings, settings(7, "")[..2].to_vec());
        assert_eq!((merged.run_games, merged.shard_count), (7, 3));
        assert_eq!((merged.shards, merged.missing), (3, None));
        // A shard with no game (more shards than games) merges too.
        assert!(merge(vec![shard(1, 2, 1), shard(2, 2, 1)], false).is_ok());
    }

    #[test]
    fn missing_games_are_named_and_refused_unless_allowed() {
        let mut short = shard(2, 3, 12);
        short
            .contents
            .games
            .retain(|g| g.index != 7 && g.index != 10);
        let e = error(vec![shard(1, 3, 12), short]);
        assert_eq!(
            e,
            "the files hold 6 of the run's 12 games: games 2, 5, 7-8, 10-11 are missing \
             (no file of shard 3 of 3); finish every shard (run its datagen command again) \
             and merge all of their files, or give --allow-incomplete"
        );
        let mut cut = shard(2, 2, 4);
        cut.contents.games.retain(|g| g.index != 3);
        cut.contents.truncated = true;
        assert_eq!(
            error(vec![shard(1, 2, 4), cut]),
            "s2.bin ends with an incomplete game (at byte 100): its run was stopped; \
             run its datagen command again to finish it, or give --allow-incomplete"
        );
        let mut cut = shard(2, 2, 4);
        cut.contents.games.retain(|g| g.index != 3);
        cut.contents.truncated = true;
        let merged = merge(vec![cut, shard(1, 2, 4)], true).unwrap();
        assert_eq!(merged.games, [0, 1, 2].map(game));
        assert_eq!(
            merged.missing.as_deref(),
            Some("game 3 is missing (s2.bin ends with an incomplete game)")
        );
        let merged = merge(vec![shard(1, 2, 4)], true).unwrap();
        assert_eq!(
            merged.missing.as_deref(),
            Some("games 1, 3 are missing (no file of shard 2 of 2)")
        );
        assert_eq!(merged.shards, 1);
    }

    #[test]
    fn files_of_other_runs_or_shards_given_twice_are_refused() {
        let mut other = shard(2, 2, 4);
        other.contents.settings = Some(settings(4, "2/2"));
        other.contents.settings.as_mut().unwrap()[1].1 = "8".into();
        assert_eq!(
            error(vec![shard(1, 2, 4), other]),
            "s2.bin is a shard of another run than s1.bin: seed 7 there, 8 here"
        );
        assert_eq!(
            error(vec![shard(1, 2, 4), shard(2, 3, 4)]),
            "s2.bin is a shard of another run than s1.bin: shards 2 there, 3 here"
        );
        assert_eq!(
            error(vec![shard(1, 2, 4), shard(1, 2, 6)]),
            "s1.bin is a shard of another run than s1.bin: games 4 there, 6 here"
        );
        assert_eq!(
            error(vec![shard(1, 2, 4), shard(1, 2, 4)]),
            "s1.bin and s1.bin are both shard 1/2: give each shard's file once"
        );
        let mut unsharded = shard(1, 1, 2);
        unsharded.contents.settings = Some(settings(2, "1/1")[..2].to_vec());
        assert_eq!(
            error(vec![unsharded]),
            "s1.bin is not a shard: its run had no --shard \
             (ultimo train takes several data files as they are)"
        );
        let mut v1 = shard(1, 1, 2);
        v1.contents.settings = None;
        assert!(error(vec![v1]).contains("format version 1"));
        let mut bad = shard(1, 2, 4);
        bad.contents.settings.as_mut().unwrap()[3].1 = "3/2".into();
        assert_eq!(
            error(vec![bad]),
            "s1.bin records shard '3/2', which is not a shard's"
        );
        let mut bad = shard(1, 2, 4);
        bad.contents.settings.as_mut().unwrap()[2].1 = "0".into();
        assert_eq!(
            error(vec![bad]),
            "s1.bin records games '0', which is not a shard's"
        );
    }

    #[test]
    fn games_not_of_their_shard_are_refused() {
        let mut foreign = shard(1, 2, 4);
        foreign.contents.games.push(game(1));
        assert_eq!(
            error(vec![foreign]),
            "s1.bin holds game 1, which is not one of shard 1/2's"
        );
        let mut past = shard(2, 2, 4);
        past.contents.games.push(game(5));
        assert_eq!(
            error(vec![past]),
            "s2.bin holds game 5, which is not one of shard 2/2's"
        );
        let mut twice = shard(1, 2, 4);
        twice.contents.games.push(game(2));
        assert_eq!(error(vec![twice]), "s1.bin holds game 2 twice");
    }
}
