//! Helpers shared by the integration tests that drive the release binary `ptxfuzz`: a scratch
//! folder per test, running the binary, and its output as text for assertion messages.
#![allow(dead_code)] // each test binary uses a subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PTXFUZZ: &str = env!("CARGO_BIN_EXE_ptxfuzz");

/// `prefix-name-PID` under the target's tmp dir, removed first so a previous run's leftovers never count (the pid keeps concurrent runs apart); not created.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// [`scratch`], created empty, for tests that run the binary inside it or list what it wrote.
pub fn scratch_created(prefix: &str, name: &str) -> PathBuf {
    let dir = scratch(prefix, name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Exit code (-1 when killed by a signal), stdout and stderr, for assertions on each.
fn outcome(out: Output) -> (i32, String, String) {
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// `ptxfuzz ARGS` in the test's own working directory: exit code, stdout, stderr.
pub fn ptxfuzz(args: &[&str]) -> (i32, String, String) {
    outcome(Command::new(PTXFUZZ).args(args).output().expect("runs"))
}

/// `ptxfuzz ARGS` run in `dir`, so relative paths it writes land there and not in the source tree.
pub fn ptxfuzz_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    outcome(Command::new(PTXFUZZ).current_dir(dir).args(args).output().expect("runs"))
}

/// `ptxfuzz ARGS` without env PTXFUZZ_SERVER/PTXFUZZ_TOKEN: a developer's server settings must not make a test report to a real server.
pub fn ptxfuzz_output(args: &[&str]) -> Output {
    Command::new(PTXFUZZ).args(args).env_remove("PTXFUZZ_SERVER").env_remove("PTXFUZZ_TOKEN").output().unwrap()
}

/// stdout, a newline, then stderr: the whole of what a run said, for assertion messages.
pub fn text(o: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// `ptxfuzz ARGS` (stdout and stderr piped) sent SIGINT after `after`, as a user's Ctrl-C:
/// everything it said and its exit status.
pub fn ptxfuzz_interrupted(args: &[&str], after: std::time::Duration) -> Output {
    use std::process::Stdio;
    let child = Command::new(PTXFUZZ).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("runs");
    std::thread::sleep(after);
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success(), "kill -INT {}", child.id());
    child.wait_with_output().unwrap()
}
