//! What the command line says about itself beyond `--help`: the version
//! (`ultimo --version`: the package, the commit it was built from and the
//! built-in net), shell completion scripts (`ultimo completions SHELL`) and
//! manual pages (`ultimo man`), the last two generated from the same
//! definition as `--help`, so that they never disagree with it.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::CommandFactory;

use super::{Cli, CliError};

/// The version `--version` prints after the name, e.g. `0.1.0 (commit
/// 9f65a0c, net p3-18e7b020)`: the package's version, the commit it was
/// built from (where it was built in a git checkout) and the built-in
/// net's version (see `build.rs`).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("ULTIMO_BUILD"), ")");

/// `ultimo completions`'s arguments.
#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `ultimo man`'s arguments.
#[derive(clap::Args)]
pub struct ManArgs {
    /// Write ultimo.1 and one page per command (ultimo-analyze.1, ..) into
    /// this folder (created if missing) instead of printing ultimo.1
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints the completion script of `args.shell` for `ultimo`.
pub fn completions(args: &CompletionsArgs) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    clap_complete::generate(args.shell, &mut Cli::command(), "ultimo", &mut out);
    out.flush()?;
    Ok(())
}

/// Prints the manual page of `ultimo`, or writes the pages of `ultimo`
/// and each of its commands into `args.dir`.
pub fn man(args: &ManArgs) -> Result<(), CliError> {
    let Some(dir) = &args.dir else {
        let mut out = io::stdout().lock();
        clap_mangen::Man::new(Cli::command()).render(&mut out)?;
        out.flush()?;
        return Ok(());
    };
    for path in write_pages(dir)? {
        println!("{}", path.display());
    }
    Ok(())
}

/// Writes the pages of `ultimo` and its commands into `dir` (made if
/// missing) and returns their paths.
fn write_pages(dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CliError::WriteFile { path, source }
    };
    std::fs::create_dir_all(dir).map_err(error(dir))?;
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = vec![cmd.clone()];
    // A command's page gives the version too.
    let commands = cmd.get_subcommands().filter(|s| !s.is_hide_set());
    pages.extend(commands.map(|s| s.clone().version(VERSION)));
    let mut written = Vec::new();
    for page in pages {
        let man = clap_mangen::Man::new(page);
        let path = dir.join(man.get_filename());
        man.generate_to(dir).map_err(error(&path))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_names_the_net_the_engine_reads() {
        let net = crate::net::Net::builtin().version();
        assert!(VERSION.starts_with(env!("CARGO_PKG_VERSION")), "{VERSION}");
        assert!(VERSION.ends_with(&format!("net {net})")), "{VERSION}");
    }

    #[test]
    fn man_pages_for_every_command() {
        let dir = std::env::temp_dir().join(format!("ultimo-man-{}", std::process::id()));
        let pages = write_pages(&dir).unwrap();
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names[0], "ultimo.1");
        assert!(names.contains(&"ultimo-analyze.1".to_string()), "{names:?}");
        assert!(names.contains(&"ultimo-match.1".to_string()), "{names:?}");
        let analyze = std::fs::read_to_string(dir.join("ultimo-analyze.1")).unwrap();
        assert!(analyze.starts_with(".ie \\n(.g .ds Aq \\(aq"), "{analyze}");
        assert!(analyze.contains("\\-\\-multipv"), "{analyze}");
        std::fs::remove_dir_all(&dir).unwrap();
        // A folder that cannot be made is named.
        let file = std::env::temp_dir().join(format!("ultimo-man-file-{}", std::process::id()));
        std::fs::write(&file, "").unwrap();
        let err = write_pages(&file.join("sub")).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("cannot write to {}", file.join("sub").display())),
            "{err}"
        );
        std::fs::remove_file(&file).unwrap();
    }
}
