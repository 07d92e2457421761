//! The `--pgnout` file: every finished game appended in PGN, flushed, so
//! that the file is complete at any moment.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::ArenaError;
use super::openings::ArenaGame;
use super::record::{GameRecord, MatchId, MatchTags};
use crate::pgn;

/// Seconds since 1970 (UTC), for the PGN's dates.
fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The PGN file the games are appended to.
pub(super) struct RecordFile {
    path: PathBuf,
    out: BufWriter<File>,
    /// The tags every game shares (the date and the time controls are
    /// set per game).
    tags: MatchTags,
    /// Each engine's name and `TimeControl` tag.
    controls: Vec<(String, String)>,
}

impl RecordFile {
    /// Opens the file to append to, creating it if missing (it is never
    /// truncated). The games' `Event` is the match's start (UTC, to the
    /// millisecond), which tells the matches in one file apart. `controls`
    /// are each engine's name and `TimeControl` tag.
    pub(super) fn create(
        path: &Path,
        controls: Vec<(String, String)>,
        id: MatchId,
    ) -> Result<RecordFile, ArenaError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|problem| ArenaError::Create {
                path: path.to_path_buf(),
                problem,
            })?;
        // To the millisecond: matches run one after another into the same
        // file start in the same second.
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let secs = (now / 1000) as u64;
        let time = secs % 86_400;
        let event = format!(
            "ultimo match {} {:02}:{:02}:{:02}.{:03}",
            pgn::date_from_unix(secs),
            time / 3600,
            time / 60 % 60,
            time % 60,
            now % 1000
        );
        Ok(RecordFile {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
            tags: MatchTags {
                event,
                site: "?".to_string(),
                date: pgn::UNKNOWN_DATE.to_string(),
                time_controls: [String::new(), String::new()],
                id,
            },
            controls,
        })
    }

    /// Appends a finished game (dated today, with its players' time
    /// controls) and a blank line, and flushes them, so the file is
    /// complete at any moment.
    pub(super) fn write_game<G: ArenaGame>(
        &mut self,
        game: &GameRecord<G>,
    ) -> Result<(), ArenaError> {
        self.tags.date = pgn::date_from_unix(unix_seconds());
        for (tag, player) in self.tags.time_controls.iter_mut().zip([&game.x, &game.o]) {
            if let Some((_, control)) = self.controls.iter().find(|(name, _)| name == player) {
                tag.clone_from(control);
            }
        }
        let text = game.to_pgn(&self.tags).to_string();
        writeln!(self.out, "{text}")
            .and_then(|_| self.out.flush())
            .map_err(|problem| ArenaError::Write {
                path: self.path.clone(),
                problem,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::MatchConfig;
    use crate::arena::config::Tournament;
    use crate::arena::openings;
    use crate::arena::plan::Plan;
    use crate::arena::plan::testing::{crashed, nodes};
    use crate::arena::record;
    use crate::arena::record::Record;

    #[test]
    fn pgn_file_is_appended_to() {
        let dir = std::env::temp_dir().join(format!("ultimo-pgnout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.pgn");
        std::fs::write(&path, "; kept\n").unwrap();
        let plan = Plan::<crate::rules::Position>::new(&nodes(100)).unwrap();
        let game = GameRecord {
            game: 1,
            pair: 1,
            x: "one".into(),
            o: "b".into(),
            opening: openings::Opening::<crate::rules::Position>::Moves(vec![]),
            moves: vec![],
            notes: vec![],
            outcome: crate::game::Outcome::Win(crate::game::Player::O),
            termination: record::Termination::Crash,
            reason: "x (one) could not be started".into(),
        };
        for _ in 0..2 {
            let mut file =
                RecordFile::create(&path, plan.time_control_tags(), plan.match_id()).unwrap();
            file.write_game(&game).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("; kept\n[Event \"ultimo match 20"),
            "{text}"
        );
        assert!(text.contains("[TimeControl \"nodes=100\"]\n"), "{text}");
        assert!(text.contains("[Termination \"abandoned\"]\n"), "{text}");
        assert!(
            text.contains("\n\n{x (one) could not be started} 0-1\n\n["),
            "{text}"
        );
        let games = pgn::read(&text, "games.pgn").unwrap();
        assert_eq!(games.len(), 2);
        let date = games[0].tag("Date").unwrap();
        assert!(date.len() == 10 && date.starts_with("20"), "{date}");
        let err = RecordFile::create(&dir, plan.time_control_tags(), plan.match_id())
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("cannot open "), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pgn_gives_each_side_its_own_time_control() {
        let dir = std::env::temp_dir().join(format!("ultimo-controls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.pgn");
        let plan = Plan::<crate::rules::Position>::new(&MatchConfig {
            engines: vec!["cmd=a tc=2+0.1".into(), "cmd=b".into(), "cmd=c".into()],
            tournament: Some(Tournament::Gauntlet),
            nodes: Some(300),
            ..MatchConfig::default()
        })
        .unwrap();
        let mut file =
            RecordFile::create(&path, plan.time_control_tags(), plan.match_id()).unwrap();
        // a (its own clock) against b, then b against c (the same nodes).
        let mut game = crashed(&plan, plan.setup(1).unwrap());
        assert_eq!((game.x.as_str(), game.o.as_str()), ("b", "a"));
        file.write_game(&game).unwrap();
        let mut third = crashed(&plan, plan.setup(2).unwrap());
        (third.x, third.o) = ("b".into(), "c".into());
        file.write_game(&third).unwrap();
        drop(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let games = pgn::read(&text, "games.pgn").unwrap();
        assert_eq!(games[0].tag("WhiteTimeControl"), Some("nodes=300"));
        assert_eq!(games[0].tag("BlackTimeControl"), Some("2+0.1"));
        assert_eq!(games[0].tag("TimeControl"), None);
        assert_eq!(games[1].tag("TimeControl"), Some("nodes=300"));
        assert_eq!(games[1].tag("WhiteTimeControl"), None);
        // The reader takes both forms.
        let record = Record::<crate::rules::Position>::from_games(&games, "games.pgn").unwrap();
        game.notes.clear();
        assert_eq!(record.games[0], game);
        assert_eq!(record.engines, ["b", "a", "c"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
