//! The real `ptxfuzz-server serve` binary on a private PostgreSQL cluster (no --database-url),
//! for the tests of a first run (private_cluster.rs, browser.rs): a temporary folder, the H100
//! campaign's finding folders to import, and a running server with its `dashboard:` link.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long `serve` may take to print its `dashboard:` line (issue #18: within 30 s on a fresh
/// machine, initdb and the import included).
pub const DASHBOARD_LINE_WITHIN: Duration = Duration::from_secs(30);

/// A temporary folder, removed on drop; a postmaster left in it (a failed test) is stopped.
pub struct Tmp(pub PathBuf);

impl Tmp {
    pub fn new(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("ptxfuzz-private-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        if let Ok(t) = std::fs::read_to_string(self.0.join("data/pgdata/postmaster.pid")) {
            if let Some(pid) = t.lines().next() {
                // SIGQUIT: PostgreSQL's immediate shutdown.
                let _ = Command::new("kill").args(["-QUIT", pid.trim()]).status();
                std::thread::sleep(Duration::from_millis(500));
            }
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The H100 campaign's --out folder (the README's `campaign --seconds 60`, run on an H100),
/// unpacked under `tmp` (as api::folder's tests do).
pub fn campaign(tmp: &Tmp) -> PathBuf {
    let tar = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/hw/h100-sm90/campaign-60s.tar.gz");
    let ok = Command::new("tar").arg("xzf").arg(&tar).arg("-C").arg(&tmp.0).status().expect("run tar");
    assert!(ok.success(), "tar xzf {} failed", tar.display());
    tmp.0.join("campaign")
}

/// The signatures of the campaign's finding folders (a folder is named by its signature).
pub fn folder_signatures(out: &Path) -> BTreeSet<String> {
    std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("repro.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// `ptxfuzz-server serve --data-dir DATA_DIR --import DIR...`, with no database URL or bind
/// address from the environment. As root the cluster runs as the default --pg-user `postgres`,
/// which can enter the temporary folders (/tmp is world-searchable).
pub fn command(data_dir: &Path, import: &[&Path]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxfuzz-server"));
    c.arg("serve").arg("--data-dir").arg(data_dir);
    for d in import {
        c.arg("--import").arg(d);
    }
    c.env_remove("DATABASE_URL").env_remove("PTXFUZZ_BIND").env("RUST_LOG", "warn");
    c
}

/// A running server; SIGTERM (a clean stop of its cluster) when dropped.
pub struct Server {
    pub child: Child,
    /// Its stdout lines up to the `dashboard:` line.
    pub lines: Vec<String>,
    /// The `dashboard:` line's address (`http://127.0.0.1:PORT/?login=SECRET`).
    pub link: String,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// From the start of the process to its `dashboard:` line.
    pub ready_after: Duration,
}

impl Server {
    /// Starts the server and waits for its `dashboard:` line; panics (with its output) when
    /// none comes within [`DASHBOARD_LINE_WITHIN`].
    pub fn start(data_dir: &Path, import: &[&Path]) -> Server {
        let start = Instant::now();
        let mut child = command(data_dir, import).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start ptxfuzz-server");
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let err = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        let mut lines = Vec::new();
        loop {
            let left = DASHBOARD_LINE_WITHIN.saturating_sub(start.elapsed());
            match rx.recv_timeout(left) {
                Ok(l) if l.starts_with("dashboard: ") => {
                    let ready_after = start.elapsed();
                    let link = l["dashboard: ".len()..].to_string();
                    let base = link.split("/?").next().unwrap().to_string();
                    lines.push(l);
                    // Keep the pipes drained for the server's lifetime.
                    std::thread::spawn(move || while rx.recv().is_ok() {});
                    return Server { child, lines, link, base, ready_after };
                }
                Ok(l) => lines.push(l),
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("no `dashboard:` line within {DASHBOARD_LINE_WITHIN:?}; stdout {lines:?}; stderr {}", err.join().unwrap());
                }
            }
        }
    }

    pub fn kill9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, then waits up to 30 s for the exit; `None` when it had to be killed.
    pub fn stop(&mut self) -> Option<ExitStatus> {
        if let Some(s) = self.child.try_wait().ok().flatten() {
            return Some(s);
        }
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if let Some(s) = self.child.try_wait().ok().flatten() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}
