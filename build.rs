//! Tells the binary what `ultimo --version` says after the package's
//! version, as `ULTIMO_BUILD`: the commit it was built from (the short hash
//! of `HEAD`; outside a git checkout, or without git, no commit is named)
//! and the version of the net it embeds (`nets/default.bin`: the name in
//! its header and its checksum, the file's last four bytes), read here so
//! that printing the version does not load the net at every start. A unit
//! test checks that the net's version is the one the engine reads.

use std::path::Path;
use std::process::Command;

/// The trimmed output of `git ARGS` when it succeeds with some.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}

/// The built-in net's version, `name-checksum` (e.g. `p3-18e7b020`).
fn net_version() -> String {
    const NET: &str = "nets/default.bin";
    println!("cargo:rerun-if-changed={NET}");
    let bytes = std::fs::read(NET).expect("nets/default.bin is readable");
    let name: String = bytes[24..40]
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| b as char)
        .collect();
    let sum: [u8; 4] = bytes[bytes.len() - 4..].try_into().expect("4 bytes");
    format!("{name}-{:08x}", u32::from_le_bytes(sum))
}

fn main() {
    // Without this line any change to the package would run the script.
    println!("cargo:rerun-if-changed=build.rs");
    let net = net_version();
    let Some(commit) = git(&["rev-parse", "--short", "HEAD"]) else {
        println!("cargo:rustc-env=ULTIMO_BUILD=net {net}");
        return;
    };
    println!("cargo:rustc-env=ULTIMO_BUILD=commit {commit}, net {net}");
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
