//! Records the git commit the worker is built from (`PTXFUZZ_GIT_COMMIT`), so campaigns,
//! sweeps and regression results name the interpreter that judged them, not just the crate
//! version. A build outside a git checkout (or with PTXFUZZ_GIT_COMMIT set) keeps what it has.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git").args(args).output().ok()?;
    o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string()).filter(|s| !s.is_empty())
}

fn main() {
    println!("cargo:rerun-if-env-changed=PTXFUZZ_GIT_COMMIT");
    if std::env::var_os("PTXFUZZ_GIT_COMMIT").is_some() {
        return;
    }
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else { return };
    // Rebuilt when HEAD moves: HEAD itself (a checkout) and the branch it names (a commit).
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
    }
    println!("cargo:rustc-env=PTXFUZZ_GIT_COMMIT={commit}");
}
