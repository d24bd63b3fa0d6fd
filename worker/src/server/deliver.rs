//! `ptxfuzz deliver`: what a campaign left in its spool (`--out`), or its finding folders
//! (`--findings`), sent to a server now.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use api::findings::{FindingReport, IngestBatch, IngestResult};
use clap::Args;

use super::client::{Client, Failure};
use super::spool::{self, Backoff, Link, Outbox, Spool};
use super::{spool_dir, WORKER_TOKEN};
use api::folder::REPAIR_ADVICE;

/// Deliver what a campaign left in its spool.
#[derive(Args, Debug)]
#[command(after_help = "Exit status: 0 when every message was delivered, 1 when messages are left (server \
unreachable, token refused) or some could not be delivered: those the server refuses for good, and spool \
files that do not read (cut short by a full disk), go to --out/.spool/rejected/ with the reason beside them. \
With --findings: 1 when a finding folder was skipped (each is named); the others are sent.")]
pub struct DeliverArgs {
    /// The ptxfuzz server (http:// or https://HOST[:PORT]).
    #[arg(long, env = "PTXFUZZ_SERVER")]
    pub server: String,
    /// Bearer token with the worker role.
    #[arg(long, env = "PTXFUZZ_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The campaign's --out folder (its .spool is delivered).
    #[arg(long, default_value = "findings")]
    pub out: PathBuf,
    /// Instead of the spool, send the finding folders of this campaign --out folder
    /// (SIGNATURE/repro.json, repro.ptx; hits from its summary.json) in batches. The server
    /// ingests by content, so sending the same folders twice adds nothing.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub findings: Option<PathBuf>,
    /// Give up after this many seconds (0 to 1e9), retrying while the server is unreachable
    /// or busy (no answer, 5xx, 429), with --out's spool and with --findings alike.
    #[arg(long, default_value_t = 60.0, value_parser = crate::cli_values::seconds)]
    pub wait: f64,
}

/// Retry pacing of `deliver`, the spool's and `--findings`' alike: short, as a user waits
/// for it (a campaign's background delivery uses `Backoff::default()`, 1 s to 60 s).
const DELIVER_BACKOFF: Backoff = Backoff { min: Duration::from_millis(500), max: Duration::from_secs(10) };

/// `ptxfuzz deliver`.
pub fn deliver(args: DeliverArgs) -> Result<()> {
    let client = Client::new(&args.server, args.token.clone()).map_err(anyhow::Error::msg)?;
    let wait = Duration::try_from_secs_f64(args.wait).unwrap_or(Duration::ZERO);
    if let Some(dir) = &args.findings {
        return deliver_folders(&client, dir, wait).map(|_| ());
    }
    let dir = spool_dir(&args.out);
    if !dir.is_dir() {
        bail!("{} has no spool ({} does not exist): nothing to deliver", args.out.display(), dir.display());
    }
    let spool = Arc::new(Spool::open(&dir).with_context(|| format!("cannot open {}", dir.display()))?);
    let before = spool.pending().len();
    let outbox = Outbox::start(spool, client, DELIVER_BACKOFF);
    let status = outbox.finish(wait);
    println!("{before} message(s) in {}", dir.display());
    println!("server: {status}");
    if let Link::Unauthorized(d) = &status.link {
        bail!("the server refused the token ({d}): give --token {WORKER_TOKEN}; the messages stay in {}", dir.display());
    }
    if status.pending > 0 {
        bail!("{} message(s) left in {}; run this again when the server is reachable", status.pending, dir.display());
    }
    // An empty spool is not all delivered when some went to rejected/: a script must see it.
    if status.rejected > 0 {
        bail!(
            "{} message(s) were not delivered: moved to {}, each with a .problem.txt saying why. The finding \
             folders are still in {}: `ptxfuzz deliver --findings {} --server {}` sends them all (the server \
             stores each finding once)",
            status.rejected,
            dir.join("rejected").display(),
            args.out.display(),
            args.out.display(),
            // The token itself is never printed.
            args.server.clone() + if args.token.is_some() { " --token T" } else { "" }
        );
    }
    Ok(())
}

/// `ptxfuzz deliver --findings DIR`: every finding folder of `dir`, in batches of
/// [`spool::BATCH`] reports. Prints and returns what the server did.
///
/// A folder that does not read (a repro.json cut short), or that the server refuses, is named
/// and skipped, and the others are sent: with 300 findings, one damaged folder must not keep
/// the 299 from the server. The run still fails at the end, naming how many were skipped, so
/// a script notices; sending again after the repair adds only what is missing (the server
/// ingests by content).
///
/// An unreachable or busy server is retried for up to `wait` in all. An answer that no report
/// could change (a 404 or 405: no ptxfuzz API at that address; a 401 or 403: the token) stops
/// the run at once, blaming the address or the token, not the folders.
pub fn deliver_folders(client: &Client, dir: &Path, wait: Duration) -> Result<IngestResult> {
    let deadline = Instant::now() + wait;
    anyhow::ensure!(dir.is_dir(), "--findings {}: {}: give a campaign's --out folder", dir.display(), what_is(dir));
    let read = api::folder::read_campaign_each(dir)?;
    if let Some(e) = &read.summary {
        eprintln!("warning: {e}; its hit counts are unknown, so each finding is sent with 1 hit");
    }
    let mut skipped: Vec<String> = read.bad.iter().map(|e| format!("{}: {e}", folder_of(e.path()).display())).collect();
    if read.reports.is_empty() && skipped.is_empty() {
        bail!("{} holds no finding folder (SIGNATURE/repro.json): is it a campaign's --out folder?", dir.display());
    }
    let mut total = IngestResult { received: 0, inserted: 0, duplicates: 0, finding_ids: Vec::new() };
    for chunk in read.reports.chunks(spool::BATCH) {
        let reports: Vec<FindingReport> = chunk.iter().map(|(_, r)| r.clone()).collect();
        match send(client, reports, deadline) {
            Ok(r) => add(&mut total, r),
            // One report the server refuses for good refuses its whole batch: send the batch's
            // reports one by one, so the refused one is named and the others get through.
            Err(Failure::Rejected { status, .. }) if !no_api(status) => {
                for (folder, r) in chunk {
                    match send(client, vec![r.clone()], deadline) {
                        Ok(r) => add(&mut total, r),
                        Err(Failure::Rejected { status, detail }) if !no_api(status) => {
                            skipped.push(format!("{}: the server refused it (HTTP {status}: {detail})", folder.display()))
                        }
                        Err(e) => return Err(not_taken(client, dir, e, &total)),
                    }
                }
            }
            Err(e) => return Err(not_taken(client, dir, e, &total)),
        }
    }
    println!("{} finding folder(s) of {}: {} new, {} already on the server", total.received, dir.display(), total.inserted, total.duplicates);
    if !skipped.is_empty() {
        for s in &skipped {
            eprintln!("skipped {s}");
        }
        bail!(
            "{} finding folder(s) of {} skipped (named above), the other {} sent. {REPAIR_ADVICE} Then run this \
             again: the server stores each finding once.",
            skipped.len(),
            dir.display(),
            total.received
        );
    }
    Ok(total)
}

/// A 404 or 405 for `POST /findings/batch` says nothing about a report: no ptxfuzz API
/// answers at that address (a wrong host, port or path prefix).
fn no_api(status: u16) -> bool {
    matches!(status, 404 | 405)
}

/// The error that ends a delivery the server did not take: what to check, and what was sent.
fn not_taken(client: &Client, dir: &Path, e: Failure, total: &IngestResult) -> anyhow::Error {
    let why = match &e {
        Failure::Rejected { status, .. } if no_api(*status) => format!(
            "no ptxfuzz API answers at {} (HTTP {status} for POST /findings/batch): check --server, the address ptxfuzz-server prints when it starts (http://HOST:PORT)",
            client.api()
        ),
        Failure::Unauthorized { .. } => format!("the server refused the token: give --token {WORKER_TOKEN}"),
        Failure::Retryable(_) => "the server stayed unreachable: run this again when it is up, or give a longer --wait".into(),
        Failure::Rejected { .. } => "the server refused the request".into(),
    };
    anyhow::anyhow!(
        "the server did not take the findings of {} ({e}); {why}. The finding folders are unchanged; {} of them sent before this.",
        dir.display(),
        total.received
    )
}

/// Send one batch, retrying an unreachable or busy server (paced by `DELIVER_BACKOFF`)
/// until `deadline`.
fn send(client: &Client, findings: Vec<FindingReport>, deadline: Instant) -> Result<IngestResult, Failure> {
    let batch = IngestBatch { campaign_id: None, findings };
    let mut pause = DELIVER_BACKOFF.min;
    loop {
        match client.post_json("/findings/batch", &batch) {
            Err(Failure::Retryable(why)) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(Failure::Retryable(why));
                }
                eprintln!("server unreachable or busy ({why}); retrying for up to {:.0} s more (--wait)", left.as_secs_f64());
                std::thread::sleep(pause.min(left));
                pause = (pause * 2).min(DELIVER_BACKOFF.max);
            }
            r => return r,
        }
    }
}

fn add(total: &mut IngestResult, r: IngestResult) {
    total.received += r.received;
    total.inserted += r.inserted;
    total.duplicates += r.duplicates;
    total.finding_ids.extend(r.finding_ids);
}

/// The finding folder a folder error is about (the folder of its file).
fn folder_of(file: &Path) -> &Path {
    file.parent().unwrap_or(file)
}

/// What `path` is, when it is not a folder.
fn what_is(path: &Path) -> &'static str {
    if path.exists() {
        "is a file, not a folder"
    } else {
        "does not exist"
    }
}
