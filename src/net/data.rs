//! Self-play data files: games of the engine against itself, each position
//! with the search's value, its visits per move and the game's result.
//!
//! # Format (version 2)
//!
//! All numbers little-endian. A file is a header and game records:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `UTTTDATA` |
//! | 4 | format version, 2 |
//! | 4 | `n`, the bytes of the run's settings |
//! | `n` | the run's settings: UTF-8 lines `<name> <value>` |
//!
//! The settings are those that shape the games (node budget, seed, the
//! net, the search parameters...): a run that continues a file must have
//! the same ([`Writer::open`]). A version 1 file has the same layout with
//! no settings (`n` is 0); it is read, and continued, without them.
//!
//! A game record:
//!
//! | bytes | content |
//! |---|---|
//! | 4 | `len`, the bytes of the body |
//! | `len` | the body |
//! | 4 | FNV-1a (32-bit) of the body |
//!
//! The body: the game's number (`u64`; its seed is the run's seed plus this
//! number), its result (`u8`: 0 `x` won, 1 `o` won, 2 drawn), the random
//! plies that opened it (`u8`), the number of positions (`u16`), then the
//! positions searched, in the order played. A position:
//!
//! | bytes | content |
//! |---|---|
//! | 11 | `x`'s cells, bit `9 * board + cell` (81 bits) |
//! | 11 | `o`'s cells, likewise |
//! | 1 | side to move: 0 `x`, 1 `o` |
//! | 1 | the last move's cell `9 * board + cell`, or 255 for none |
//! | 2 | the search's value for the side to move, times 65535 |
//! | 1 | `n`, the root moves searched |
//! | 5 `n` | per move: its cell (`u8`) and its visits (`u32`) |
//!
//! A record is written whole and flushed; a run that is stopped leaves at
//! most one incomplete record at the end, which the next run cuts off
//! ([`Writer::open`]) before it continues with the games not yet in the file.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::features::{CELLS, Planes};
use super::fnv1a;
use crate::game::{Outcome, Player};

/// The file's magic bytes.
pub const MAGIC: &[u8; 8] = b"UTTTDATA";
/// The format version.
pub const VERSION: u32 = 2;
/// The version before the settings were recorded (read, and continued).
const VERSION_WITHOUT_SETTINGS: u32 = 1;
/// Bytes of the header before the settings.
pub const HEADER_LEN: u64 = 16;
/// The longest settings text a header may have.
const MAX_SETTINGS: u32 = 1 << 16;

/// A run's settings as a file records them: names and values, in order.
pub type Settings = [(String, String)];
/// The longest body a record may have (81 positions of 81 moves fit).
const MAX_BODY: u32 = 1 << 16;

/// One searched position of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionRecord {
    /// The cells marked by `x` and by `o` (bit `9 * board + cell`).
    pub marks: [u128; 2],
    /// The side to move.
    pub side: Player,
    /// The last move's cell (`9 * board + cell`), if any.
    pub last: Option<u8>,
    /// The search's value for the side to move, in [0, 1] (stored to
    /// 1/65535).
    pub value: f32,
    /// The root moves' cells and visits.
    pub visits: Vec<(u8, u32)>,
}

impl PositionRecord {
    /// The planes the net reads.
    pub fn planes(&self) -> Planes {
        Planes::from_record(self.marks, self.side, self.last)
    }
}

/// One game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The game's number in its run.
    pub index: u64,
    /// How it ended.
    pub result: Outcome,
    /// Random plies that opened it.
    pub random_plies: u8,
    /// The searched positions, in the order played.
    pub positions: Vec<PositionRecord>,
}

/// What is wrong inside a data file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Error)]
pub enum Flaw {
    /// The first 8 bytes are not the magic.
    #[error("it does not start with UTTTDATA")]
    Magic,
    /// An unknown format version.
    #[error("format version {0}; this program reads versions 1 and {VERSION}")]
    Version(u32),
    /// The settings in the header are not `<name> <value>` lines of text.
    #[error("the header's settings are not lines of text")]
    Settings,
    /// The header is cut short.
    #[error("the header is incomplete")]
    ShortHeader,
    /// A record claims an impossible length.
    #[error("a record claims {0} bytes")]
    Length(u32),
    /// A record's checksum does not match.
    #[error("the record's checksum does not match")]
    Checksum,
    /// A record's contents do not describe a game.
    #[error("the record is malformed ({0})")]
    Malformed(&'static str),
}

/// Why a data file cannot be read or written.
#[derive(Debug, Error)]
pub enum DataError {
    /// An input or output error.
    #[error("{}: {source}", crate::quote::path(.path))]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The disk is full.
    #[error("{}: no space left on device; free some space and run the same command again to continue", crate::quote::path(.path))]
    NoSpace {
        /// The file.
        path: PathBuf,
    },
    /// The file holds games made with other settings.
    #[error(
        "{} was made with other settings: {}; run with those settings to add to it, or write to another file",
        crate::quote::path(.path),
        differences.iter().map(|(name, there, here)| format!("{name} {there} there, {here} here")).collect::<Vec<_>>().join("; ")
    )]
    OtherSettings {
        /// The file.
        path: PathBuf,
        /// Each setting that differs: its name, its value in the file and
        /// its value now (`none` where one side lacks it).
        differences: Vec<(String, String, String)>,
    },
    /// A file that is to be made new exists already.
    #[error("{} exists already: name a new file", crate::quote::path(.0))]
    Exists(PathBuf),
    /// The path is no regular file (a FIFO or a device would block or
    /// never end).
    #[error("{} is not a regular file", crate::quote::path(.0))]
    NotAFile(PathBuf),
    /// The file is not a data file, or is damaged.
    #[error("{} at byte {offset}: {flaw}", crate::quote::path(.path))]
    Bad {
        /// The file.
        path: PathBuf,
        /// Where the problem starts.
        offset: u64,
        /// What it is.
        flaw: Flaw,
    },
}

impl DataError {
    /// An I/O error on `path`, with a full disk told apart.
    pub fn io(path: &Path, source: io::Error) -> DataError {
        if source.kind() == io::ErrorKind::StorageFull || source.raw_os_error() == Some(28) {
            DataError::NoSpace {
                path: path.to_owned(),
            }
        } else {
            DataError::Io {
                path: path.to_owned(),
                source,
            }
        }
    }
}

/// The header's bytes, with `settings`.
pub fn header(settings: &Settings) -> Vec<u8> {
    let text: String = settings
        .iter()
        .map(|(name, value)| format!("{name} {value}\n"))
        .collect();
    let mut h = Vec::with_capacity(HEADER_LEN as usize + text.len());
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.extend_from_slice(&(text.len() as u32).to_le_bytes());
    h.extend_from_slice(text.as_bytes());
    h
}

/// Reads the settings text of a header.
fn read_settings(bytes: &[u8]) -> Result<Vec<(String, String)>, Flaw> {
    let text = std::str::from_utf8(bytes).map_err(|_| Flaw::Settings)?;
    text.lines()
        .map(|line| {
            line.split_once(' ')
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .ok_or(Flaw::Settings)
        })
        .collect()
}

/// The settings that differ between `there` (a file's) and `here`: name,
/// value there, value here.
pub fn differences(there: &Settings, here: &Settings) -> Vec<(String, String, String)> {
    let value = |list: &Settings, name: &str| {
        list.iter()
            .find(|(n, _)| n == name)
            .map_or("none".to_string(), |(_, v)| v.clone())
    };
    let mut names: Vec<&str> = there.iter().map(|(n, _)| n.as_str()).collect();
    for (n, _) in here {
        if !names.contains(&n.as_str()) {
            names.push(n);
        }
    }
    names
        .into_iter()
        .map(|n| (n.to_string(), value(there, n), value(here, n)))
        .filter(|(_, a, b)| a != b)
        .collect()
}

/// A game's record bytes: length, body, checksum.
pub fn encode(game: &GameRecord) -> Vec<u8> {
    let mut body = Vec::with_capacity(16 + game.positions.len() * 64);
    body.extend_from_slice(&game.index.to_le_bytes());
    body.push(match game.result {
        Outcome::Win(Player::X) => 0,
        Outcome::Win(Player::O) => 1,
        Outcome::Draw => 2,
    });
    body.push(game.random_plies);
    body.extend_from_slice(&(game.positions.len() as u16).to_le_bytes());
    for p in &game.positions {
        for m in p.marks {
            body.extend_from_slice(&m.to_le_bytes()[..11]);
        }
        body.push(p.side.index() as u8);
        body.push(p.last.unwrap_or(255));
        let v = (p.value.clamp(0.0, 1.0) * 65535.0).round() as u16;
        body.extend_from_slice(&v.to_le_bytes());
        body.push(p.visits.len() as u8);
        for &(mv, n) in &p.visits {
            body.push(mv);
            body.extend_from_slice(&n.to_le_bytes());
        }
    }
    let mut out = Vec::with_capacity(body.len() + 8);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&fnv1a(&body).to_le_bytes());
    out
}

/// A cursor over a record's body that fails with [`Flaw::Malformed`].
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Flaw> {
        let s = self
            .bytes
            .get(self.at..self.at + n)
            .ok_or(Flaw::Malformed("it ends early"))?;
        self.at += n;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, Flaw> {
        Ok(self.take(1)?[0])
    }
}

/// Reads a body (checksum already checked).
pub fn decode(body: &[u8]) -> Result<GameRecord, Flaw> {
    let mut c = Cursor { bytes: body, at: 0 };
    let index = u64::from_le_bytes(c.take(8)?.try_into().expect("8 bytes"));
    let result = match c.u8()? {
        0 => Outcome::Win(Player::X),
        1 => Outcome::Win(Player::O),
        2 => Outcome::Draw,
        _ => return Err(Flaw::Malformed("bad result")),
    };
    let random_plies = c.u8()?;
    let n = u16::from_le_bytes(c.take(2)?.try_into().expect("2 bytes"));
    let mut positions = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let mut marks = [0u128; 2];
        for m in &mut marks {
            let mut b = [0u8; 16];
            b[..11].copy_from_slice(c.take(11)?);
            *m = u128::from_le_bytes(b);
        }
        if marks[0] & marks[1] != 0 || (marks[0] | marks[1]) & !CELLS != 0 {
            return Err(Flaw::Malformed("bad marks"));
        }
        let side = match c.u8()? {
            0 => Player::X,
            1 => Player::O,
            _ => return Err(Flaw::Malformed("bad side to move")),
        };
        let last = match c.u8()? {
            255 => None,
            l if l < 81 && marks[side.opponent().index()] >> l & 1 == 1 => Some(l),
            _ => return Err(Flaw::Malformed("bad last move")),
        };
        let value = u16::from_le_bytes(c.take(2)?.try_into().expect("2 bytes")) as f32 / 65535.0;
        let moves = c.u8()?;
        let mut visits = Vec::with_capacity(moves as usize);
        for _ in 0..moves {
            let mv = c.u8()?;
            if mv >= 81 {
                return Err(Flaw::Malformed("bad move"));
            }
            let count = u32::from_le_bytes(c.take(4)?.try_into().expect("4 bytes"));
            visits.push((mv, count));
        }
        positions.push(PositionRecord {
            marks,
            side,
            last,
            value,
            visits,
        });
    }
    if c.at != body.len() {
        return Err(Flaw::Malformed("bytes left over"));
    }
    Ok(GameRecord {
        index,
        result,
        random_plies,
        positions,
    })
}

/// What a file holds.
#[derive(Debug, Default)]
pub struct Contents {
    /// The run's settings; `None` in a version 1 file, which has none.
    pub settings: Option<Vec<(String, String)>>,
    /// Its games, in file order.
    pub games: Vec<GameRecord>,
    /// Bytes up to the end of the last whole record.
    pub valid_len: u64,
    /// Whether an incomplete record follows (a run that was stopped).
    pub truncated: bool,
}

/// Reads a data file's bytes: the header, then whole records. An incomplete
/// last record is reported in [`Contents::truncated`], anything else that is
/// wrong is an error at its offset.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Contents, DataError> {
    let bad = |offset: u64, flaw: Flaw| DataError::Bad {
        path: path.to_owned(),
        offset,
        flaw,
    };
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        if bytes.len() < 8 && MAGIC.starts_with(bytes) {
            return Err(bad(0, Flaw::ShortHeader));
        }
        return Err(bad(0, Flaw::Magic));
    }
    if bytes.len() < HEADER_LEN as usize {
        return Err(bad(0, Flaw::ShortHeader));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != VERSION && version != VERSION_WITHOUT_SETTINGS {
        return Err(bad(8, Flaw::Version(version)));
    }
    let settings_len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes"));
    if settings_len > MAX_SETTINGS {
        return Err(bad(12, Flaw::Settings));
    }
    let header_len = HEADER_LEN as usize + settings_len as usize;
    let Some(settings) = bytes.get(HEADER_LEN as usize..header_len) else {
        return Err(bad(0, Flaw::ShortHeader));
    };
    let settings = match version {
        VERSION => Some(read_settings(settings).map_err(|flaw| bad(HEADER_LEN, flaw))?),
        _ => None,
    };
    let mut contents = Contents {
        settings,
        valid_len: header_len as u64,
        ..Contents::default()
    };
    let mut at = header_len;
    while at < bytes.len() {
        let Some(len) = bytes.get(at..at + 4) else {
            contents.truncated = true;
            break;
        };
        let len = u32::from_le_bytes(len.try_into().expect("4 bytes"));
        if !(12..=MAX_BODY).contains(&len) {
            return Err(bad(at as u64, Flaw::Length(len)));
        }
        let end = at + 4 + len as usize + 4;
        if end > bytes.len() {
            contents.truncated = true;
            break;
        }
        let body = &bytes[at + 4..end - 4];
        let sum = u32::from_le_bytes(bytes[end - 4..end].try_into().expect("4 bytes"));
        if sum != fnv1a(body) {
            return Err(bad(at as u64, Flaw::Checksum));
        }
        let game = decode(body).map_err(|flaw| bad(at as u64, flaw))?;
        contents.games.push(game);
        at = end;
        contents.valid_len = at as u64;
    }
    Ok(contents)
}

/// Reads a data file: a regular file (a FIFO or a device is refused before
/// it is opened), read whole only once its first bytes are a data file's.
pub fn read(path: &Path) -> Result<Contents, DataError> {
    let io = |e| DataError::io(path, e);
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(DataError::NotAFile(path.to_owned()));
    }
    let mut file = File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(HEADER_LEN)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.starts_with(MAGIC) {
        file.read_to_end(&mut bytes).map_err(io)?;
    }
    parse(path, &bytes)
}

/// Writes a new data file at `path`, with `settings` and `games` in their
/// order: refused when `path` exists ([`DataError::Exists`]); written to a
/// file beside it first and renamed when whole, so that a run that fails
/// leaves no partial file at `path`.
pub fn write_new<'a>(
    path: &Path,
    settings: &Settings,
    games: impl IntoIterator<Item = &'a GameRecord>,
) -> Result<(), DataError> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(DataError::Exists(path.to_owned()));
    }
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".part{}", std::process::id()));
    let part = path.with_file_name(name);
    let written = (|| {
        let mut out = io::BufWriter::new(File::create(&part).map_err(|e| DataError::io(&part, e))?);
        let io = |e| DataError::io(&part, e);
        out.write_all(&header(settings)).map_err(io)?;
        for game in games {
            out.write_all(&encode(game)).map_err(io)?;
        }
        out.into_inner()
            .map_err(|e| DataError::io(&part, e.into_error()))?
            .sync_all()
            .map_err(io)?;
        std::fs::rename(&part, path).map_err(|e| DataError::io(path, e))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    written
}

/// A data file open for appending games.
pub struct Writer {
    file: File,
    path: PathBuf,
}

impl Writer {
    /// Opens `path` to add games of a run with `settings`: creates it with
    /// a header when it is missing or empty, else checks it, refuses it
    /// when it was made with other settings ([`DataError::OtherSettings`],
    /// the file untouched) and cuts off an incomplete last record. A
    /// version 1 file, which records no settings, is continued as it is.
    /// Returns the writer and what the file already holds.
    pub fn open(path: &Path, settings: &Settings) -> Result<(Writer, Contents), DataError> {
        let io = |e| DataError::io(path, e);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        let contents = if bytes.is_empty() {
            let header = header(settings);
            file.write_all(&header).map_err(io)?;
            file.flush().map_err(io)?;
            Contents {
                settings: Some(settings.to_vec()),
                valid_len: header.len() as u64,
                ..Contents::default()
            }
        } else {
            let contents = parse(path, &bytes)?;
            if let Some(there) = &contents.settings {
                let differences = differences(there, settings);
                if !differences.is_empty() {
                    return Err(DataError::OtherSettings {
                        path: path.to_owned(),
                        differences,
                    });
                }
            }
            if contents.truncated {
                file.set_len(contents.valid_len).map_err(io)?;
            }
            contents
        };
        file.seek(SeekFrom::Start(contents.valid_len)).map_err(io)?;
        Ok((
            Writer {
                file,
                path: path.to_owned(),
            },
            contents,
        ))
    }

    /// Appends one game, whole, and flushes it.
    pub fn append(&mut self, game: &GameRecord) -> Result<(), DataError> {
        self.file
            .write_all(&encode(game))
            .and_then(|_| self.file.flush())
            .map_err(|e| DataError::io(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(index: u64) -> GameRecord {
        GameRecord {
            index,
            result: Outcome::Win(Player::O),
            random_plies: 6,
            positions: vec![
                PositionRecord {
                    marks: [0, 0],
                    side: Player::X,
                    last: None,
                    // Values are stored to 1/65535.
                    value: 32768.0 / 65535.0,
                    visits: vec![(40, 900), (0, 100)],
                },
                PositionRecord {
                    marks: [1 << 40, 1 << 80],
                    side: Player::X,
                    last: Some(80),
                    value: 1.0,
                    visits: vec![(4, u32::MAX)],
                },
            ],
        }
    }

    fn settings(nodes: u64) -> Vec<(String, String)> {
        vec![
            ("nodes".into(), nodes.to_string()),
            ("net".into(), "gen1-5e3a9c21".into()),
        ]
    }

    /// Regression (hostile input round 2, E1): `train --data /dev/zero`
    /// read until the memory ran out. A FIFO or a device is refused, and a
    /// file that does not start as a data file is refused after 16 bytes
    /// (a 1 TiB sparse one here).
    #[test]
    fn reading_takes_regular_data_files_only() {
        let err = |p: &Path| read(p).unwrap_err().to_string();
        assert_eq!(
            err(Path::new("/dev/null")),
            "/dev/null is not a regular file"
        );
        let path = temp("sparse");
        std::fs::File::create(&path)
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        assert_eq!(
            err(&path),
            format!(
                "{} at byte 0: it does not start with UTTTDATA",
                path.display()
            )
        );
        std::fs::remove_file(&path).unwrap();
    }

    /// A test's file `name`, alone in a fresh folder that goes with it
    /// when dropped, so that a run leaves nothing behind.
    struct Temp {
        dir: PathBuf,
        path: PathBuf,
    }

    impl std::ops::Deref for Temp {
        type Target = Path;

        fn deref(&self) -> &Path {
            &self.path
        }
    }

    impl AsRef<Path> for Temp {
        fn as_ref(&self) -> &Path {
            &self.path
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    fn temp(name: &str) -> Temp {
        let dir = std::env::temp_dir().join(format!("ultimo-data-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Temp {
            path: dir.join(name),
            dir,
        }
    }

    #[test]
    fn records_round_trip() {
        let g = game(7);
        let bytes = encode(&g);
        let back = decode(&bytes[4..bytes.len() - 4]).unwrap();
        assert_eq!(back, g);
    }

    #[test]
    fn files_round_trip_and_resume_after_a_cut() {
        let path = temp("resume.bin");
        {
            let (mut w, c) = Writer::open(&path, &settings(100)).unwrap();
            assert!(c.games.is_empty());
            w.append(&game(0)).unwrap();
            w.append(&game(1)).unwrap();
        }
        let full = std::fs::read(&path).unwrap();
        // A stopped run: half a record at the end.
        std::fs::write(&path, &full[..full.len() - 10]).unwrap();
        let (mut w, c) = Writer::open(&path, &settings(100)).unwrap();
        assert!(c.truncated);
        assert_eq!(c.games, vec![game(0)]);
        w.append(&game(1)).unwrap();
        drop(w);
        assert_eq!(std::fs::read(&path).unwrap(), full);
        let c = read(&path).unwrap();
        assert_eq!(c.games, vec![game(0), game(1)]);
        assert_eq!(c.settings, Some(settings(100)));
        assert!(!c.truncated);
    }

    #[test]
    fn a_file_made_with_other_settings_is_refused_untouched() {
        let path = temp("other.bin");
        {
            let (mut w, _) = Writer::open(&path, &settings(100)).unwrap();
            w.append(&game(0)).unwrap();
        }
        let full = std::fs::read(&path).unwrap();
        // Half a record too: refused before anything is cut.
        std::fs::write(&path, &full[..full.len() - 10]).unwrap();
        let mut other = settings(200);
        other.push(("seed".into(), "7".into()));
        let e = Writer::open(&path, &other).err().unwrap().to_string();
        assert!(
            e.ends_with(
                "other.bin was made with other settings: nodes 100 there, 200 here; \
                 seed none there, 7 here; run with those settings to add to it, or write to \
                 another file"
            ),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), &full[..full.len() - 10]);
    }

    #[test]
    fn a_version_1_file_is_read_and_continued() {
        let path = temp("v1.bin");
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend(encode(&game(0)));
        std::fs::write(&path, &bytes).unwrap();
        let (mut w, c) = Writer::open(&path, &settings(100)).unwrap();
        assert_eq!((c.settings, c.games), (None, vec![game(0)]));
        w.append(&game(1)).unwrap();
        drop(w);
        let c = read(&path).unwrap();
        assert_eq!((c.settings, c.games), (None, vec![game(0), game(1)]));
    }

    #[test]
    fn bad_files_are_refused_with_their_offset() {
        let path = temp("bad.bin");
        std::fs::write(&path, b"hello, world, this is text").unwrap();
        let e = Writer::open(&path, &settings(1)).err().unwrap().to_string();
        assert!(
            e.ends_with("at byte 0: it does not start with UTTTDATA"),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"hello, world, this is text");
        let mut bytes = header(&settings(1));
        bytes.extend(encode(&game(0)));
        let second = bytes.len();
        bytes.extend(encode(&game(1)));
        bytes[second + 20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = read(&path).err().unwrap().to_string();
        assert!(
            e.ends_with(&format!(
                "at byte {second}: the record's checksum does not match"
            )),
            "{e}"
        );
        let mut v3 = header(&settings(1));
        v3[8] = 3;
        std::fs::write(&path, v3).unwrap();
        let e = read(&path).err().unwrap().to_string();
        assert!(e.contains("format version 3"), "{e}");
    }

    #[test]
    fn a_new_file_is_written_whole_and_never_over_another() {
        let path = temp("new.bin");
        write_new(&path, &settings(100), &[game(0), game(1)]).unwrap();
        let c = read(&path).unwrap();
        assert_eq!(c.settings, Some(settings(100)));
        assert_eq!((c.games, c.truncated), (vec![game(0), game(1)], false));
        let before = std::fs::read(&path).unwrap();
        let e = write_new(&path, &settings(1), &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{} exists already: name a new file", path.display())
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
        let missing = temp("no-such-folder").join("new.bin");
        assert!(write_new(&missing, &settings(1), &[]).is_err());
        assert!(!missing.exists());
    }

    #[test]
    fn a_full_disk_says_so() {
        let e = DataError::io(Path::new("d.bin"), io::Error::from_raw_os_error(28));
        assert_eq!(
            e.to_string(),
            "d.bin: no space left on device; free some space and run the same command again to continue"
        );
    }
}
