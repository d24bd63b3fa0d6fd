//! Talking to a ptxfuzz server (`ptxfuzz campaign --server URL --token T`, `ptxfuzz deliver`):
//! the campaign registers itself, reports every finding it writes, sends heartbeats with its
//! counters, and between batches leases regressions, runs them on its target and posts the
//! verdicts.
//!
//! Everything sent goes through the durable spool in `--out/.spool` first ([`spool`]), so the
//! campaign never waits on the server and never loses a message to a crash or an outage; the
//! server's idempotency turns re-sends into no-ops. The campaign itself never fails because of
//! the server: findings are in `--out` whatever happens.

pub mod client;
pub mod deliver;
pub mod regressions;
pub mod spool;

pub use deliver::{deliver, deliver_folders, DeliverArgs};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use api::campaigns::{CampaignStart, Counters, Heartbeat};
use api::findings::FindingReport;
use clap::Args;
use uuid::Uuid;

use crate::oracles::{Engine, EngineInfo};
use crate::repro::{Reproducer, ReproducerExt};
use client::{Client, Failure, Method};
use regressions::{Identity, Tally};
use spool::{Backoff, Kind, Link, Message, Outbox, Spool, Status};

/// Seconds between heartbeats.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(30);
/// The oldest a staged finding gets before it is sealed into a batch.
pub const SEAL_EVERY: Duration = Duration::from_secs(3);

/// `campaign`'s server options.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Server")]
pub struct ServerArgs {
    /// Send findings and heartbeats to this ptxfuzz server (http:// or https://HOST[:PORT])
    /// and run its regressions between batches. Messages wait in --out/.spool until the
    /// server has them, so an outage or a crash loses nothing.
    #[arg(long, env = "PTXFUZZ_SERVER")]
    pub server: Option<String>,
    /// Bearer token with the worker role (`ptxfuzz-server token create --role worker`).
    #[arg(long, env = "PTXFUZZ_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// At the end, wait up to this many seconds for the spool to reach the server; what is
    /// left is delivered by the next campaign on the same --out or by `ptxfuzz deliver`.
    #[arg(long, default_value_t = 10.0)]
    pub server_flush_seconds: f64,
    /// Seconds between regression leases (0: run no regressions).
    #[arg(long, default_value_t = 60.0)]
    pub lease_every: f64,
    /// Most regressions per lease.
    #[arg(long, default_value_t = 16)]
    pub lease_max: u32,
}

impl ServerArgs {
    /// The client, or `None` without `--server`; an error for a token without a server or a
    /// URL that is not http(s).
    pub fn client(&self) -> Result<Option<Client>> {
        match (&self.server, &self.token) {
            (None, Some(_)) => bail!("--token (or PTXFUZZ_TOKEN) needs --server URL (or PTXFUZZ_SERVER)"),
            (None, None) => Ok(None),
            (Some(url), token) => Ok(Some(Client::new(url, token.clone()).map_err(anyhow::Error::msg)?)),
        }
    }
}

/// The spool folder of an `--out` folder.
pub fn spool_dir(out: &Path) -> PathBuf {
    out.join(".spool")
}

/// This worker's interpreter version, as results and campaigns record it: the crate version
/// and, when built with `PTXFUZZ_GIT_COMMIT` set, the commit.
pub fn interpreter_commit() -> String {
    match option_env!("PTXFUZZ_GIT_COMMIT") {
        Some(c) if !c.is_empty() => format!("ptxfuzz {} ({c})", env!("CARGO_PKG_VERSION")),
        _ => format!("ptxfuzz {}", env!("CARGO_PKG_VERSION")),
    }
}

/// The machine's host name (`/proc/sys/kernel/hostname`, else `$HOSTNAME`).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown-host".into())
}

/// Spools new findings (durably, at once) for the next batch to the server.
pub struct Stager {
    spool: Arc<Spool>,
    campaign_id: Uuid,
}

impl Stager {
    /// Spool a report of `r`, with `hits` mismatches counted under its signature so far.
    pub fn stage(&self, r: &Reproducer, hits: u64) -> Result<()> {
        let report = FindingReport { reproducer: r.clone(), hits: hits.max(1), ptx: r.ptx_file().ok(), sass: None };
        self.spool.stage(Some(self.campaign_id), &report)
    }
}

/// A campaign's link to the server.
pub struct Session {
    client: Client,
    outbox: Outbox,
    campaign_id: Uuid,
    identity: Identity,
    flush_wait: Duration,
    /// When the oldest staged (unsealed) report was staged.
    staged_since: Option<Instant>,
    last_heartbeat: Instant,
    lease_every: Option<Duration>,
    last_lease: Option<Instant>,
    lease_max: u32,
    /// Leasing failed this way last time (said once, not on every attempt).
    lease_error: Option<String>,
    pub regressions: Tally,
    has_token: bool,
}

impl Session {
    /// Register a campaign on `target` (engine spec `spec`) and start delivering, the spool
    /// left by earlier runs first.
    pub fn start(client: Client, args: &ServerArgs, out: &Path, spec: &str, info: &EngineInfo, sm: u32, seed: u64) -> Result<Session> {
        let spool = Arc::new(Spool::open(&spool_dir(out))?);
        let leftover = spool.pending().len();
        let outbox = Outbox::start(spool, client.clone(), Backoff::default());
        let campaign_id = Uuid::new_v4();
        let host = hostname();
        let on_gpu = info.sm.is_some();
        let start = CampaignStart {
            worker_host: host.clone(),
            target: spec.to_string(),
            device: info.device.clone(),
            gpu_name: on_gpu.then(|| info.device.clone()),
            sm: info.sm.or(Some(sm)),
            driver_version: info.driver.clone(),
            cuda_version: info.runtime.clone(),
            interpreter_commit: interpreter_commit(),
            seed: Some(seed),
            started_at: chrono::Utc::now(),
        };
        outbox.push(&Message::new(Kind::Campaign, Method::Put, format!("/campaigns/{campaign_id}"), &start))?;
        eprintln!(
            "server: {} as campaign {campaign_id}{}",
            client.api(),
            if leftover > 0 { format!("; delivering {leftover} message(s) spooled earlier") } else { String::new() }
        );
        let identity = Identity {
            worker: host,
            target: spec.to_string(),
            gpu_name: if info.device.is_empty() { "n/a".into() } else { info.device.clone() },
            driver_version: info.driver.clone().unwrap_or_else(|| "n/a".into()),
            interpreter_commit: interpreter_commit(),
        };
        let secs = |s: f64| Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::ZERO);
        Ok(Session {
            client,
            outbox,
            campaign_id,
            identity,
            flush_wait: secs(args.server_flush_seconds),
            staged_since: None,
            last_heartbeat: Instant::now(),
            lease_every: (args.lease_every > 0.0).then(|| secs(args.lease_every)),
            last_lease: None,
            lease_max: args.lease_max,
            lease_error: None,
            regressions: Tally::default(),
            has_token: args.token.is_some(),
        })
    }

    pub fn campaign_id(&self) -> Uuid {
        self.campaign_id
    }

    /// What the campaign's finding store reports new findings through.
    pub fn stager(&self) -> Stager {
        Stager { spool: self.outbox.spool_arc(), campaign_id: self.campaign_id }
    }

    /// Between two batches: seal staged findings that waited long enough (or fill a batch),
    /// send a heartbeat when due, and lease and run regressions when due.
    pub fn between_batches(&mut self, engine: &mut dyn Engine, counters: Counters) -> Result<()> {
        let staged = self.outbox.spool().staged_count();
        if staged > 0 {
            let since = *self.staged_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= SEAL_EVERY || staged >= spool::BATCH {
                self.seal()?;
            }
        }
        if self.last_heartbeat.elapsed() >= HEARTBEAT_EVERY {
            self.heartbeat(counters, false)?;
        }
        let due = match (self.lease_every, self.last_lease) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(every), Some(t)) => t.elapsed() >= every,
        };
        // While the server is away or refuses the token, a lease would only wait on timeouts.
        let reachable = matches!(self.outbox.status().link, Link::Up | Link::Unknown);
        if due && reachable {
            self.last_lease = Some(Instant::now());
            match regressions::lease_and_run(&self.client, &self.outbox, engine, &self.identity, self.lease_max) {
                Ok(t) => {
                    self.regressions.add(t);
                    self.lease_error = None;
                }
                Err(e) => {
                    let text = e.to_string();
                    if self.lease_error.as_ref() != Some(&text) {
                        let hint = if matches!(e, Failure::Unauthorized { .. }) { " (check --token)" } else { "" };
                        eprintln!("\nserver: cannot lease regressions: {text}{hint}");
                    }
                    self.lease_error = Some(text);
                }
            }
        }
        Ok(())
    }

    fn seal(&mut self) -> Result<()> {
        self.outbox.spool().seal()?;
        self.staged_since = None;
        self.outbox.notify();
        Ok(())
    }

    fn heartbeat(&mut self, counters: Counters, ended: bool) -> Result<()> {
        self.last_heartbeat = Instant::now();
        let path = format!("/campaigns/{}/heartbeat", self.campaign_id);
        self.outbox.push(&Message::new(Kind::Heartbeat, Method::Post, path, &Heartbeat { counters, ended }))
    }

    /// For the progress line: `server ok, 2 pending`.
    pub fn progress(&self) -> String {
        let s = self.outbox.status();
        let link = match s.link {
            Link::Unknown | Link::Up => "ok",
            Link::Down(_) => "DOWN",
            Link::Unauthorized(_) => "TOKEN REFUSED",
        };
        format!("server {link}, {} pending", s.pending)
    }

    /// End the campaign: seal what is staged, send the last heartbeat, wait (bounded) for the
    /// spool to drain. Returns the lines for the summary.
    pub fn finish(mut self, counters: Counters, out: &Path) -> Result<Vec<String>> {
        self.seal()?;
        self.heartbeat(counters, true)?;
        let url = self.client.api().trim_end_matches("/api/v1").to_string();
        let status = self.outbox.finish(self.flush_wait);
        let mut lines = vec![format!("server: {status}")];
        lines.extend(leftover_hint(&status, &url, self.has_token, out));
        if self.regressions.leased > 0 {
            lines.push(format!("regressions: {}", self.regressions));
        }
        Ok(lines)
    }
}

/// Where a worker gets a token the server takes (the server's side of `--token`).
pub(crate) const WORKER_TOKEN: &str = "a live worker token: `ptxfuzz-server token create --role worker` where the server runs \
     (beside a private `serve`, no database URL needed)";

/// What to do about messages still in the spool: the command that delivers them, and where a
/// token comes from when the server refused the one given (or its absence).
fn leftover_hint(s: &Status, url: &str, has_token: bool, out: &Path) -> Vec<String> {
    if s.pending == 0 {
        return vec![];
    }
    let refused = matches!(s.link, Link::Unauthorized(_));
    // The token itself is never printed.
    let token = if has_token || refused { " --token T" } else { "" };
    let mut lines = vec![format!(
        "  the next campaign with --out {} delivers them, or now: ptxfuzz deliver --server {url}{token} --out {}",
        out.display(),
        out.display()
    )];
    if refused {
        let given = if has_token { "the --token given" } else { "reports without a token" };
        lines.push(format!("  the server refused {given}: T is {WORKER_TOKEN}"));
    }
    lines
}

/// A campaign's counters in the API's terms.
pub fn counters(t: &crate::campaign::stats::Totals) -> Counters {
    Counters {
        cases: t.cases,
        programs: t.programs,
        mismatches: t.mismatches,
        findings: t.findings_new,
        signatures: t.signatures,
        engine_faults: t.fault_count(),
        cases_isa: t.by_exec.get(&crate::oracles::Exec::Isa).map_or(0, |m| m.cases),
        cases_compiled: t.by_exec.get(&crate::oracles::Exec::Compiled).map_or(0, |m| m.cases),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_from_a_git_checkout_names_its_commit() {
        let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.git").exists();
        let c = interpreter_commit();
        assert!(c.starts_with(concat!("ptxfuzz ", env!("CARGO_PKG_VERSION"))), "{c}");
        if checkout {
            let inner = c.split_once('(').map(|(_, r)| r.trim_end_matches(')')).unwrap_or_else(|| panic!("no commit in {c}"));
            assert!(inner.len() >= 7 && inner.chars().all(|ch| ch.is_ascii_hexdigit()), "{c}");
        }
    }

    fn args(server: Option<&str>, token: Option<&str>) -> ServerArgs {
        ServerArgs {
            server: server.map(String::from),
            token: token.map(String::from),
            server_flush_seconds: 1.0,
            lease_every: 0.0,
            lease_max: 1,
        }
    }

    #[test]
    fn a_refused_campaign_is_told_where_a_worker_token_comes_from() {
        let out = Path::new("out");
        let refused = Status { link: Link::Unauthorized("401".into()), pending: 2, ..Status::default() };
        let lines = leftover_hint(&refused, "http://h:1", false, out);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].ends_with("ptxfuzz deliver --server http://h:1 --token T --out out"), "{lines:?}");
        assert!(lines[1].contains("refused reports without a token") && lines[1].contains("ptxfuzz-server token create --role worker"), "{lines:?}");
        assert!(leftover_hint(&refused, "http://h:1", true, out)[1].contains("refused the --token given"));
        // Unreachable: the same command, no token advice; nothing pending: nothing to say.
        let down = Status { link: Link::Down("refused".into()), pending: 2, ..Status::default() };
        assert_eq!(leftover_hint(&down, "http://h:1", false, out).len(), 1);
        assert!(leftover_hint(&Status { pending: 0, ..refused }, "http://h:1", false, out).is_empty());
    }

    #[test]
    fn a_token_needs_a_server_and_urls_must_be_http() {
        assert!(args(None, None).client().unwrap().is_none());
        let e = args(None, Some("t")).client().unwrap_err().to_string();
        assert!(e.contains("--token") && e.contains("--server"), "{e}");
        let e = args(Some("localhost:8080"), None).client().unwrap_err().to_string();
        assert!(e.contains("not an http:// or https:// URL"), "{e}");
        assert!(args(Some("https://x.y"), Some("t")).client().unwrap().is_some());
    }
}
