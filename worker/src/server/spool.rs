//! The durable outbox under `<out>/.spool/`: every message for the server is first written
//! there (temporary file, fsync, rename) as a numbered JSON file, then a background thread
//! ([`Outbox`]) delivers the files in order and deletes each only after the server's 2xx.
//!
//! So a worker killed with -9, or a server that is down for hours, loses nothing: the next
//! campaign on the same `--out` (or `ptxfuzz deliver`) sends what is left. Every endpoint is
//! idempotent (findings by content hash, campaigns by id, heartbeats as absolute counters,
//! lease results per lease), and a file is re-sent byte for byte, so a message whose answer
//! was lost is delivered twice but counted once.
//!
//! Layout: `NNNNNNNNNNNN.KIND.json` messages (KIND: campaign, findings, heartbeat, result);
//! `staged/NNNNNNNNNNNN.json` single finding reports not yet sealed into a batch (written at
//! once, so a finding is durable the moment it is found; [`Spool::seal`] groups them);
//! `rejected/` messages the server refused for good, each with a `.problem.txt` saying why.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use api::findings::{FindingReport, IngestBatch};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::client::{Client, Failure, Method};
use crate::repro::replace_synced;

/// Most reports in one batch file.
pub const BATCH: usize = 1000;

/// What a message is (also the middle of its file name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Campaign,
    Findings,
    Heartbeat,
    Result,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Campaign => "campaign",
            Kind::Findings => "findings",
            Kind::Heartbeat => "heartbeat",
            Kind::Result => "result",
        }
    }

    fn from_name(s: &str) -> Option<Kind> {
        [Kind::Campaign, Kind::Findings, Kind::Heartbeat, Kind::Result].into_iter().find(|k| k.name() == s)
    }
}

/// One request to make, as stored in its file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub kind: Kind,
    pub method: Method,
    /// Below `/api/v1` (`/findings/batch`).
    pub path: String,
    pub body: serde_json::Value,
}

impl Message {
    pub fn new<B: Serialize>(kind: Kind, method: Method, path: String, body: &B) -> Message {
        Message { kind, method, path, body: serde_json::to_value(body).expect("API bodies serialise") }
    }

    /// The request body. Deterministic: the same file gives the same bytes on every attempt.
    pub fn body_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(&self.body).expect("JSON values serialise")
    }

    /// Reports in a findings batch (0 for other kinds).
    fn reports(&self) -> u64 {
        self.body.get("findings").and_then(|f| f.as_array()).map_or(0, |a| a.len() as u64)
    }
}

/// A staged report: one finding waiting to be sealed into a batch.
#[derive(Serialize, Deserialize)]
struct Staged {
    campaign_id: Option<Uuid>,
    report: FindingReport,
}

/// A pending message file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub seq: u64,
    pub kind: Kind,
    pub path: PathBuf,
}

/// The spool folder.
pub struct Spool {
    dir: PathBuf,
    next: Mutex<u64>,
    /// Files this process moved to `rejected/`: refused by the server, or not readable (a file
    /// cut short by a full disk). Counted here, where every move happens, so that no caller
    /// reports "0 pending" as if all had been delivered.
    rejected: std::sync::atomic::AtomicU64,
}

/// `NNNNNNNNNNNN.KIND.json` (or `NNNNNNNNNNNN.json` when `kind` is `None`).
fn parse_name(name: &str) -> Option<(u64, Option<Kind>)> {
    let stem = name.strip_suffix(".json")?;
    let (num, kind) = match stem.split_once('.') {
        Some((n, k)) => (n, Some(Kind::from_name(k)?)),
        None => (stem, None),
    };
    if num.len() != 12 || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((num.parse().ok()?, kind))
}

/// Numbered files of `dir`, sorted (temporary files being written are not numbered files).
fn numbered(dir: &Path) -> Vec<(u64, Option<Kind>, PathBuf)> {
    let mut v = Vec::new();
    for e in fs::read_dir(dir).into_iter().flatten().filter_map(|e| e.ok()) {
        if let Some((seq, kind)) = parse_name(&e.file_name().to_string_lossy()) {
            v.push((seq, kind, e.path()));
        }
    }
    v.sort_by_key(|x| x.0);
    v
}

/// Remove temporary files a killed writer left in `dir` (only at open: later, a temporary
/// file is one being written).
fn remove_temporaries(dir: &Path) {
    for e in fs::read_dir(dir).into_iter().flatten().filter_map(|e| e.ok()) {
        if e.file_name().to_string_lossy().contains(".tmp-") {
            let _ = fs::remove_file(e.path());
        }
    }
}

impl Spool {
    /// Open (or create) the spool in `dir`, sealing reports a dead campaign left staged.
    pub fn open(dir: &Path) -> Result<Spool> {
        for d in [dir.to_path_buf(), dir.join("staged"), dir.join("rejected")] {
            fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
            remove_temporaries(&d);
        }
        let last = ["", "staged", "rejected"]
            .iter()
            .flat_map(|sub| numbered(&dir.join(sub)))
            .map(|(seq, _, _)| seq)
            .max()
            .unwrap_or(0);
        let spool = Spool { dir: dir.to_path_buf(), next: Mutex::new(last + 1), rejected: Default::default() };
        spool.seal()?;
        Ok(spool)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn take_seq(&self) -> u64 {
        let mut n = self.next.lock().unwrap();
        *n += 1;
        *n - 1
    }

    /// Write `m` as the next message (durable when this returns).
    pub fn push(&self, m: &Message) -> Result<()> {
        let path = self.dir.join(format!("{:012}.{}.json", self.take_seq(), m.kind.name()));
        replace_synced(&path, &serde_json::to_vec_pretty(m).expect("messages serialise"))
    }

    /// Keep one report durably until [`Spool::seal`] puts it in a batch.
    pub fn stage(&self, campaign_id: Option<Uuid>, report: &FindingReport) -> Result<()> {
        let path = self.dir.join("staged").join(format!("{:012}.json", self.take_seq()));
        let staged = Staged { campaign_id, report: report.clone() };
        replace_synced(&path, &serde_json::to_vec(&staged).expect("reports serialise"))
    }

    /// Reports staged and not sealed yet.
    pub fn staged_count(&self) -> usize {
        numbered(&self.dir.join("staged")).len()
    }

    /// Seal staged reports into batch messages of at most [`BATCH`], one campaign per batch,
    /// in the order they were staged; returns how many reports. A crash between writing the
    /// batches and removing the staged files sends some reports twice: the server counts
    /// them once (content hash).
    pub fn seal(&self) -> Result<usize> {
        let files = numbered(&self.dir.join("staged"));
        let mut batches: Vec<IngestBatch> = Vec::new();
        for (_, _, path) in &files {
            let text = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let s = match serde_json::from_slice::<Staged>(&text) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("server: {} is not a staged report ({e}); moved to {}/rejected/", path.display(), self.dir.display());
                    let entry = Entry { seq: 0, kind: Kind::Findings, path: path.clone() };
                    self.reject(&entry, &format!("not a staged report: {e}"));
                    continue;
                }
            };
            match batches.last_mut() {
                Some(b) if b.campaign_id == s.campaign_id && b.findings.len() < BATCH => b.findings.push(s.report),
                _ => batches.push(IngestBatch { campaign_id: s.campaign_id, findings: vec![s.report] }),
            }
        }
        let n = batches.iter().map(|b| b.findings.len()).sum();
        for b in &batches {
            self.push(&Message::new(Kind::Findings, Method::Post, "/findings/batch".into(), b))?;
        }
        for (_, _, path) in &files {
            let _ = fs::remove_file(path);
        }
        Ok(n)
    }

    /// Pending messages in delivery order.
    pub fn pending(&self) -> Vec<Entry> {
        numbered(&self.dir)
            .into_iter()
            .filter_map(|(seq, kind, path)| Some(Entry { seq, kind: kind?, path }))
            .collect()
    }

    /// Remove heartbeats that a later heartbeat of the same campaign makes moot (counters are
    /// absolute: only the newest matters); returns the pending list without them.
    pub fn coalesce(&self) -> Vec<Entry> {
        let mut pending = self.pending();
        let mut newest: std::collections::HashMap<String, u64> = Default::default();
        let mut paths = Vec::new();
        for e in pending.iter().filter(|e| e.kind == Kind::Heartbeat) {
            if let Ok(m) = self.load(e) {
                newest.insert(m.path.clone(), e.seq);
                paths.push((e.seq, m.path));
            }
        }
        let moot: Vec<u64> = paths.into_iter().filter(|(seq, p)| newest[p] != *seq).map(|(seq, _)| seq).collect();
        pending.retain(|e| {
            if moot.contains(&e.seq) {
                let _ = fs::remove_file(&e.path);
                false
            } else {
                true
            }
        });
        pending
    }

    pub fn load(&self, e: &Entry) -> Result<Message> {
        let text = fs::read(&e.path).with_context(|| format!("cannot read {}", e.path.display()))?;
        serde_json::from_slice(&text).with_context(|| format!("{} is not a spooled message", e.path.display()))
    }

    /// Done with: delivered.
    pub fn remove(&self, e: &Entry) {
        let _ = fs::remove_file(&e.path);
    }

    /// Move a refused (or unreadable) message to `rejected/`, with the reason beside it.
    pub fn reject(&self, e: &Entry, why: &str) {
        self.rejected.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = e.path.file_name().expect("spool files have names");
        let to = self.dir.join("rejected").join(name);
        let _ = replace_synced(&to.with_extension("problem.txt"), format!("{why}\n").as_bytes());
        if fs::rename(&e.path, &to).is_err() {
            let _ = fs::remove_file(&e.path);
        }
    }

    /// Files this process moved to `rejected/` (those of earlier runs not counted).
    pub fn rejected_this_run(&self) -> u64 {
        self.rejected.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn rejected_count(&self) -> usize {
        numbered(&self.dir.join("rejected")).len()
    }
}

/// Sends one message (the HTTP client; a script in tests).
pub trait Sender: Send + 'static {
    fn send(&self, m: &Message, body: &[u8]) -> Result<(), Failure>;
}

impl Sender for Client {
    fn send(&self, m: &Message, body: &[u8]) -> Result<(), Failure> {
        Client::send(self, m.method, &m.path, body).map(|_| ())
    }
}

/// How the link to the server stands.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Link {
    /// Nothing sent yet.
    #[default]
    Unknown,
    Up,
    /// The last attempt failed; retrying with backoff.
    Down(String),
    /// 401/403: nothing more is sent.
    Unauthorized(String),
}

/// What the outbox has done so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    pub link: Link,
    /// Messages delivered, of them finding batches, and the reports in those.
    pub delivered: u64,
    pub batches: u64,
    pub reports: u64,
    /// Messages in `.spool` (plus staged reports not sealed yet).
    pub pending: usize,
    /// Messages moved to `.spool/rejected/` by this run: refused for good by the server, or
    /// unreadable files (staged reports included).
    pub rejected: u64,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} batches ({} findings) delivered", self.batches, self.reports)?;
        write!(f, ", {} pending in .spool", self.pending)?;
        if self.rejected > 0 {
            write!(f, ", {} rejected (moved to .spool/rejected/, each with a .problem.txt)", self.rejected)?;
        }
        match &self.link {
            Link::Down(e) => write!(f, "; server unreachable ({e})"),
            Link::Unauthorized(_) => write!(f, "; token refused"),
            _ => Ok(()),
        }
    }
}

/// Retry pacing.
#[derive(Clone, Copy, Debug)]
pub struct Backoff {
    pub min: Duration,
    pub max: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { min: Duration::from_secs(1), max: Duration::from_secs(60) }
    }
}

#[derive(Default)]
struct State {
    status: Status,
    /// Something may be waiting (new message, or a failed attempt to repeat).
    dirty: bool,
    /// The campaign is ending: retry at the shortest backoff.
    closing: bool,
    stop: bool,
    retry_at: Option<Instant>,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

/// The delivery thread and its state.
pub struct Outbox {
    spool: Arc<Spool>,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Outbox {
    /// Start delivering `spool` (what is in it already goes first) through `sender`.
    pub fn start(spool: Arc<Spool>, sender: impl Sender, backoff: Backoff) -> Outbox {
        let pending = spool.pending().len();
        let state = State { dirty: true, status: Status { pending, ..Status::default() }, ..State::default() };
        let shared = Arc::new(Shared { state: Mutex::new(state), wake: Condvar::new() });
        let (sp, sh) = (spool.clone(), shared.clone());
        let thread = std::thread::Builder::new()
            .name("ptxfuzz-outbox".into())
            .spawn(move || deliver(&sp, &sender, &sh, backoff))
            .expect("can start a thread");
        Outbox { spool, shared, thread: Some(thread) }
    }

    pub fn spool(&self) -> &Spool {
        &self.spool
    }

    pub fn spool_arc(&self) -> Arc<Spool> {
        self.spool.clone()
    }

    /// Write `m` to the spool and wake the delivery thread.
    pub fn push(&self, m: &Message) -> Result<()> {
        self.spool.push(m)?;
        self.notify();
        Ok(())
    }

    /// Tell the delivery thread that there is something new.
    pub fn notify(&self) {
        let mut st = self.shared.state.lock().unwrap();
        st.dirty = true;
        st.status.pending = self.spool.pending().len() + self.spool.staged_count();
        self.shared.wake.notify_all();
    }

    pub fn status(&self) -> Status {
        let mut s = self.shared.state.lock().unwrap().status.clone();
        s.rejected = self.spool.rejected_this_run();
        s
    }

    /// Wait up to `wait` for the spool to empty (retrying at the shortest backoff), then stop
    /// the delivery thread; what is left stays in `.spool` for the next run.
    pub fn finish(mut self, wait: Duration) -> Status {
        let deadline = Instant::now() + wait;
        let mut st = self.shared.state.lock().unwrap();
        st.closing = true;
        st.retry_at = None;
        st.dirty = true;
        self.shared.wake.notify_all();
        loop {
            let done = st.status.pending == 0 && !st.dirty;
            let now = Instant::now();
            if done || matches!(st.status.link, Link::Unauthorized(_)) || now >= deadline {
                break;
            }
            st = self.shared.wake.wait_timeout(st, (deadline - now).min(Duration::from_millis(100))).unwrap().0;
        }
        st.stop = true;
        self.shared.wake.notify_all();
        let mut status = st.status.clone();
        drop(st);
        status.pending = self.spool.pending().len() + self.spool.staged_count();
        status.rejected = self.spool.rejected_this_run();
        // A request in flight may take its full timeout: leave it (the file stays spooled).
        if status.pending == 0 {
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
        status
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        let mut st = self.shared.state.lock().unwrap();
        st.stop = true;
        self.shared.wake.notify_all();
    }
}

/// The delivery thread: wait for work, send pending files in order until the spool is empty
/// or an attempt fails.
fn deliver(spool: &Spool, sender: &dyn Sender, shared: &Shared, backoff: Backoff) {
    let mut delay = backoff.min;
    loop {
        {
            let mut st = shared.state.lock().unwrap();
            loop {
                if st.stop {
                    return;
                }
                let unauthorized = matches!(st.status.link, Link::Unauthorized(_));
                let now = Instant::now();
                let wait = match st.retry_at {
                    Some(t) if t > now && !unauthorized => Some(t - now),
                    _ => None,
                };
                if st.dirty && !unauthorized && wait.is_none() {
                    st.dirty = false;
                    break;
                }
                st = match wait {
                    Some(w) => shared.wake.wait_timeout(st, w).unwrap().0,
                    None => shared.wake.wait(st).unwrap(),
                };
            }
        }
        loop {
            let pending = spool.coalesce();
            let set_pending = |st: &mut State| st.status.pending = spool.pending().len() + spool.staged_count();
            let Some(head) = pending.first() else {
                let mut st = shared.state.lock().unwrap();
                set_pending(&mut st);
                shared.wake.notify_all();
                break;
            };
            let msg = match spool.load(head) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("\nserver: {e:#}; moved to .spool/rejected/");
                    spool.reject(head, &format!("{e:#}"));
                    continue;
                }
            };
            let result = sender.send(&msg, &msg.body_bytes());
            let mut st = shared.state.lock().unwrap();
            match result {
                Ok(()) => {
                    spool.remove(head);
                    if matches!(st.status.link, Link::Down(_)) {
                        eprintln!("\nserver: reachable again; delivering {} spooled message(s)", pending.len());
                    }
                    st.status.link = Link::Up;
                    st.status.delivered += 1;
                    if msg.kind == Kind::Findings {
                        st.status.batches += 1;
                        st.status.reports += msg.reports();
                    }
                    st.retry_at = None;
                    delay = backoff.min;
                }
                Err(Failure::Retryable(e)) => {
                    if !matches!(st.status.link, Link::Down(_)) {
                        eprintln!("\nserver: cannot deliver ({e}); keeping messages in {} and retrying", spool.dir().display());
                    }
                    st.status.link = Link::Down(e);
                    if st.closing {
                        delay = backoff.min;
                    }
                    st.retry_at = Some(Instant::now() + delay);
                    delay = (delay * 2).min(backoff.max);
                    st.dirty = true;
                    set_pending(&mut st);
                    shared.wake.notify_all();
                    break;
                }
                Err(Failure::Rejected { status, detail }) => {
                    eprintln!(
                        "\nserver: REFUSED {} (HTTP {status}): {detail}\n  moved to {}/rejected/; it will not be retried",
                        head.path.display(),
                        spool.dir().display()
                    );
                    spool.reject(head, &format!("HTTP {status}: {detail}\n{} {}", msg.path, api_hint(&msg)));
                }
                Err(Failure::Unauthorized { status, detail }) => {
                    eprintln!(
                        "\nserver: the token was refused (HTTP {status}: {detail}). Check --token (or PTXFUZZ_TOKEN): it \
                         needs the worker role. Nothing more is sent; the campaign goes on, findings stay in --out and \
                         messages in {} (deliver them later with `ptxfuzz deliver`).",
                        spool.dir().display()
                    );
                    st.status.link = Link::Unauthorized(detail);
                    set_pending(&mut st);
                    shared.wake.notify_all();
                    break;
                }
            }
            set_pending(&mut st);
            shared.wake.notify_all();
        }
    }
}

fn api_hint(m: &Message) -> &'static str {
    match m.kind {
        Kind::Findings => "(findings batch)",
        Kind::Campaign => "(campaign registration)",
        Kind::Heartbeat => "(heartbeat)",
        Kind::Result => "(regression result)",
    }
}

#[cfg(test)]
#[path = "spool_tests.rs"]
mod tests;
