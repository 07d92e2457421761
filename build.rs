//! Tells the binary which commit it was built from: `ULTIMO_COMMIT`, the
//! short hash of `HEAD`, for `ultimo --version`. Outside a git checkout (a
//! source archive, a crate package) or without git, it is left unset and
//! the version names no commit.

use std::path::Path;
use std::process::Command;

/// The trimmed output of `git ARGS` when it succeeds with some.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}

fn main() {
    // Without this line any change to the package would run the script.
    println!("cargo:rerun-if-changed=build.rs");
    let Some(commit) = git(&["rev-parse", "--short", "HEAD"]) else {
        return;
    };
    println!("cargo:rustc-env=ULTIMO_COMMIT={commit}");
    // Run again when HEAD moves: a checkout (HEAD), or a commit on the
    // branch (its ref, loose or packed).
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &branch]));
    }
    watched.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    for path in watched.into_iter().flatten() {
        // A path that does not exist would run the script every time.
        if Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
