//! `ultimo train`: a net from datagen's files, with its arguments checked
//! before any training and the progress it shows. Built with the `train`
//! feature (on by default), as is the trainer itself ([`crate::net::train`]).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::CliError;
use crate::display::Style;
use crate::display::progress::{Progress as Bar, duration_text};
use crate::net::Net;
use crate::net::data;
use crate::net::train::{self, Config, Epoch, MAX_NAME_LEN, Validation};

/// The progress line of epoch `e` of `epochs`, `elapsed` into the run:
/// the losses, the time so far and, before the last epoch, the time left
/// if the next epochs take as long as these did.
pub fn epoch_line(e: &Epoch, epochs: u32, elapsed: Duration) -> String {
    let mut line = format!(
        "epoch {:>3}  train loss {:.5}  valid loss {:.5}  valid mse {:.5}  policy {:.4}  top-1 {:.1}%  {:.0} s",
        e.epoch,
        e.train_loss,
        e.valid_loss,
        e.valid_mse,
        e.valid_policy,
        100.0 * e.valid_top1,
        elapsed.as_secs_f64()
    );
    if e.epoch > 0 && e.epoch < epochs {
        let left = elapsed.mul_f64(f64::from(epochs - e.epoch) / f64::from(e.epoch));
        line.push_str(&format!(", about {} left", duration_text(left)));
    }
    line
}

/// The line of the `--init` net's figures on the held-out positions,
/// before training, aligned with the epochs' lines below it.
pub fn start_line(v: &Validation) -> String {
    format!(
        "before                         valid loss {:.5}  valid mse {:.5}  policy {:.4}  top-1 {:.1}%  (the --init net)",
        v.loss,
        v.mse,
        v.policy,
        100.0 * v.top1
    )
}

/// Why a `train` setting is refused before training.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrainArgError {
    /// A net name that the net file cannot keep as given.
    #[error(
        "'{0}' is not a net name: use 1 to {MAX_NAME_LEN} printable ASCII characters without spaces (letters, digits, punctuation)"
    )]
    Name(String),
    /// An output file in a folder that does not exist.
    #[error("the folder '{}' does not exist: make it first", crate::quote::path(.0))]
    NoFolder(PathBuf),
    /// An output path that is a folder.
    #[error("'{}' is a folder: give the net file's path", crate::quote::path(.0))]
    Folder(PathBuf),
}

/// A net name as `train --name` takes it: 1 to [`MAX_NAME_LEN`] printable
/// ASCII characters, no spaces (the file keeps them as they are).
pub fn parse_name(text: &str) -> Result<String, TrainArgError> {
    let fits = (1..=MAX_NAME_LEN).contains(&text.len());
    match fits && text.bytes().all(|b| b.is_ascii_graphic()) {
        true => Ok(text.to_string()),
        false => Err(TrainArgError::Name(crate::quote::shorten(text))),
    }
}

/// The path `train --out` writes the net to, checked before training: its
/// folder exists and it is not a folder itself.
pub fn parse_out(text: &str) -> Result<PathBuf, TrainArgError> {
    let path = PathBuf::from(text);
    if path.is_dir() {
        return Err(TrainArgError::Folder(path));
    }
    match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() && !folder.is_dir() => {
            Err(TrainArgError::NoFolder(folder.to_path_buf()))
        }
        _ => Ok(path),
    }
}

/// `ultimo train`'s arguments.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Data files from ultimo datagen
    #[arg(long, num_args = 1.., required = true)]
    data: Vec<PathBuf>,
    /// The net file to write (its folder must exist)
    #[arg(long, value_parser = parse_out)]
    out: PathBuf,
    /// The net's name (1 to 16 printable ASCII characters, no spaces),
    /// shown in its version
    #[arg(long, default_value = "net", value_parser = parse_name)]
    name: String,
    /// Passes over the data
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10000))]
    epochs: u32,
    /// Positions per step
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    batch: u32,
    /// Adam's learning rate at the start (falls linearly to a tenth)
    #[arg(long, default_value_t = 0.002)]
    lr: f32,
    /// Weight of the game's result in the target; the search's value has
    /// the rest
    #[arg(long, default_value_t = 0.5)]
    lambda: f32,
    /// Seed of the weights, the shuffles and the symmetries
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Weight of the policy head's cross-entropy (against the search's
    /// visits) in the loss; 0 leaves the policy head untrained
    #[arg(long, default_value_t = 1.0)]
    policy_weight: f32,
    /// Start from this net instead of fresh weights (its figures on the
    /// held-out positions come first, on the line "before")
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
}

/// Runs `ultimo train`.
pub fn train_cmd(args: &TrainArgs) -> Result<(), CliError> {
    if !((0.0..=1.0).contains(&args.lambda)
        && args.lr > 0.0
        && args.lr < 1.0
        && (0.0..=100.0).contains(&args.policy_weight))
    {
        return Err(CliError::TrainSettings);
    }
    let start_net = args.init.as_ref().map(|f| Net::load(f)).transpose()?;
    let mut games = Vec::new();
    let mut out = std::io::stdout();
    for f in &args.data {
        let contents = data::read(f)?;
        if contents.truncated {
            writeln!(
                out,
                "train: {} ends with an incomplete record (ignored)",
                f.display()
            )?;
        }
        games.extend(contents.games);
    }
    let config = Config {
        epochs: args.epochs,
        batch: args.batch as usize,
        lr: args.lr,
        lambda: args.lambda,
        seed: args.seed,
        policy_weight: args.policy_weight,
    };
    let (train_set, valid) = train::split(&games, config.lambda, config.seed);
    writeln!(
        out,
        "train: {} games, {} positions ({} held out)",
        games.len(),
        train_set.len() + valid.len(),
        valid.len()
    )?;
    let start = Instant::now();
    let mut io_error = None;
    let steps = (args.epochs as usize * train_set.len().div_ceil(config.batch.max(1))).max(1);
    let bar = Bar::new("train", steps as u64, Style::for_stderr().live);
    let trainer = train::train(
        &train_set,
        &valid,
        &config,
        start_net.as_ref(),
        &mut |news| {
            let line = match news {
                train::News::Step { done, .. } => return bar.advance(done as u64),
                train::News::Start(v) => start_line(v),
                train::News::Epoch(e) => epoch_line(e, args.epochs, start.elapsed()),
            };
            // The line stays, above the bar (on standard output).
            let r = bar.suspend(|| writeln!(out, "{line}").and_then(|_| out.flush()));
            if let Err(e) = r {
                io_error.get_or_insert(e);
            }
        },
    );
    bar.finish();
    if let Some(e) = io_error {
        return Err(e.into());
    }
    let net = trainer.net(&args.name);
    net.save(&args.out)?;
    let file = crate::quote::name(&args.out.display().to_string());
    writeln!(out, "wrote {file} (net {})", net.version())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_names_follow_the_files_rule() {
        assert_eq!(parse_name("gen4-test").unwrap(), "gen4-test");
        assert_eq!(parse_name("sixteen-chars-ok").unwrap(), "sixteen-chars-ok");
        for bad in ["", "my net", "seventeen-chars-x", "caf\u{e9}", "tab\there"] {
            let err = parse_name(bad).unwrap_err();
            // Quoted as every outside text is: the tab escaped.
            assert_eq!(err, TrainArgError::Name(crate::quote::shorten(bad)));
        }
        assert_eq!(
            parse_name("tab\there").unwrap_err(),
            TrainArgError::Name("tab\\there".into())
        );
        assert_eq!(
            parse_name("my net").unwrap_err().to_string(),
            "'my net' is not a net name: use 1 to 16 printable ASCII characters without spaces (letters, digits, punctuation)"
        );
    }

    #[test]
    fn the_out_path_is_checked_before_training() {
        let dir = std::env::temp_dir();
        assert!(parse_out("net.nnue").is_ok());
        let inside = dir.join("net.nnue");
        assert_eq!(parse_out(inside.to_str().unwrap()).unwrap(), inside);
        let missing = dir.join("ultimo-no-such-folder").join("net.nnue");
        assert_eq!(
            parse_out(missing.to_str().unwrap())
                .unwrap_err()
                .to_string(),
            format!(
                "the folder '{}' does not exist: make it first",
                dir.join("ultimo-no-such-folder").display()
            )
        );
        let err = parse_out(dir.to_str().unwrap()).unwrap_err();
        assert!(matches!(err, TrainArgError::Folder(_)), "{err}");
    }

    #[test]
    fn epoch_lines_tell_the_time_left() {
        let epoch = Epoch {
            epoch: 2,
            train_loss: 0.5,
            valid_loss: 0.6,
            valid_mse: 0.1,
            valid_policy: 2.0,
            valid_top1: 0.25,
        };
        assert_eq!(
            epoch_line(&epoch, 10, Duration::from_secs(30)),
            "epoch   2  train loss 0.50000  valid loss 0.60000  valid mse 0.10000  policy 2.0000  top-1 25.0%  30 s, about 2 min 00 s left"
        );
        let last = Epoch { epoch: 10, ..epoch };
        assert!(epoch_line(&last, 10, Duration::from_secs(150)).ends_with("top-1 25.0%  150 s"));
        // The start net's line: the same figures in the same columns.
        let before = start_line(&Validation {
            loss: 0.6,
            mse: 0.1,
            policy: 2.0,
            top1: 0.25,
        });
        let line = epoch_line(&epoch, 10, Duration::from_secs(30));
        assert_eq!(
            before.find("valid loss"),
            line.find("valid loss"),
            "{before}"
        );
        assert!(
            before.starts_with("before ")
                && before.ends_with(
                    "valid loss 0.60000  valid mse 0.10000  policy 2.0000  top-1 25.0%  (the --init net)"
                ),
            "{before}"
        );
    }
}
