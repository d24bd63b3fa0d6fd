//! Campaign counters: the progress line, the minute-by-minute JSON stats log, the summary.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::compare::Verdicts;
use crate::oracles::{EngineFault, Exec};

/// Running totals.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    /// Cases judged (a faulted job's cases are not).
    pub cases: u64,
    /// Programs run (judged or faulted).
    pub programs: u64,
    /// Result slots judged.
    pub results: u64,
    /// Results equal to the reference's primary result.
    pub fast: u64,
    /// Results not allowed (that lead to findings).
    pub mismatches: u64,
    /// End-to-end differences explained by allowed results upstream (not findings).
    pub explained: u64,
    /// Programs the target does not support (not run).
    pub unsupported: u64,
    /// Faulted jobs per fault kind.
    pub faults: BTreeMap<String, u64>,
    /// The last fault's message (shown in the progress line).
    pub last_fault: Option<String>,
    /// Distinct mismatch signatures met (as judged; see the summary for findings).
    pub signatures: u64,
    /// Finding folders: written this run, and known from earlier runs.
    pub findings_new: u64,
    pub findings_known: u64,
    /// Cases and programs per execution mode (`isa`, `compiled`; campaign::split).
    pub by_exec: BTreeMap<Exec, ModeTotals>,
    /// Where the campaign thread's time went, in microseconds ([`TimeSplit`]).
    pub time_us: TimeSplit,
    /// Mismatches resolved by a traced run made ahead for their batch, and the engine calls
    /// that ran them (`Findings::resolve_batch`: one per batch that had any, and a second
    /// where a compiled program's output was not the instruction VM's).
    pub resolved: u64,
    pub resolve_calls: u64,
    /// Of `resolved`, those a compiled traced run resolved (the VM's traced run gave another
    /// output): each a program for ptxas. The rest needed no compilation.
    pub resolved_compiled: u64,
}

/// The campaign thread's wall time by stage: what bounds a campaign's speed (the H200 run of
/// docs/hardware/ found the GPU campaign far below its engine's and judge's own speeds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TimeSplit {
    /// Waiting for the source's next batch (programs and cases being generated; on a CPU
    /// engine that runs per job, also run and judged there: `campaign::fused`, and then
    /// `engine` and `judge` stay near zero).
    pub source: u64,
    /// Planning the next batch and handing it to the engine ahead (`Engine::prepare`).
    pub prepare: u64,
    /// In `Engine::run`: the target computing the batch.
    pub engine: u64,
    /// Judging every result against the reference (on every judging thread).
    pub judge: u64,
    /// Resolving and minimizing mismatches (engine runs of traces and candidates included).
    pub findings: u64,
}

impl TimeSplit {
    /// `source 1.2 s, engine 3.4 s, ...` with each stage's share of `elapsed` seconds.
    pub fn line(&self, elapsed: f64) -> String {
        let parts = [("source", self.source), ("prepare", self.prepare), ("engine", self.engine), ("judge", self.judge), ("findings", self.findings)];
        parts
            .iter()
            .map(|(name, us)| format!("{name} {:.1} s ({:.0}%)", *us as f64 / 1e6, 100.0 * *us as f64 / 1e6 / elapsed.max(1e-9)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The counters of one execution mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ModeTotals {
    /// Cases judged in this mode.
    pub cases: u64,
    /// Programs run in this mode (judged or faulted).
    pub programs: u64,
}

/// Cases/s and programs/s of one mode over a window (the wall time both modes share).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ModeRates {
    pub cases_per_s: f64,
    pub programs_per_s: f64,
}

impl Totals {
    /// A program run in mode `exec` (judged or faulted).
    pub fn program(&mut self, exec: Exec) {
        self.programs += 1;
        self.by_exec.entry(exec).or_default().programs += 1;
    }

    /// The verdicts of a program run in mode `exec`.
    pub fn add(&mut self, exec: Exec, v: &Verdicts) {
        self.cases += v.cases;
        self.results += v.results;
        self.fast += v.fast;
        self.by_exec.entry(exec).or_default().cases += v.cases;
    }

    pub fn fault(&mut self, f: &EngineFault) {
        *self.faults.entry(f.kind().to_string()).or_insert(0) += 1;
        let mut msg = f.to_string();
        if msg.len() > 160 {
            let mut cut = 157;
            while !msg.is_char_boundary(cut) {
                cut -= 1;
            }
            msg.truncate(cut);
            msg.push_str("...");
        }
        self.last_fault = Some(msg);
    }

    pub fn fault_count(&self) -> u64 {
        self.faults.values().sum()
    }
}

/// Rates since the start and over the last window.
#[derive(Debug)]
pub struct Meter {
    start: Instant,
    window_start: Instant,
    /// The totals at the window's start.
    window: Totals,
}

/// Cases/s and programs/s, overall and per execution mode.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Rates {
    pub cases_per_s: f64,
    pub programs_per_s: f64,
    /// Named apart from `Totals::by_exec`, beside which the stats log writes it.
    #[serde(rename = "rates_by_exec")]
    pub by_exec: BTreeMap<Exec, ModeRates>,
}

impl Rates {
    /// The rates of going from `from` to `to` in `seconds`.
    pub fn between(from: &Totals, to: &Totals, seconds: f64) -> Rates {
        let dt = seconds.max(1e-9);
        let by_exec = to
            .by_exec
            .iter()
            .map(|(&e, m)| {
                let was = from.by_exec.get(&e).copied().unwrap_or_default();
                let r = ModeRates {
                    cases_per_s: (m.cases - was.cases) as f64 / dt,
                    programs_per_s: (m.programs - was.programs) as f64 / dt,
                };
                (e, r)
            })
            .collect();
        Rates {
            cases_per_s: (to.cases - from.cases) as f64 / dt,
            programs_per_s: (to.programs - from.programs) as f64 / dt,
            by_exec,
        }
    }

    /// Rounded to whole numbers, for the stats log.
    fn rounded(mut self) -> Rates {
        self.cases_per_s = self.cases_per_s.round();
        self.programs_per_s = self.programs_per_s.round();
        for m in self.by_exec.values_mut() {
            m.cases_per_s = m.cases_per_s.round();
            m.programs_per_s = m.programs_per_s.round();
        }
        self
    }
}

impl Meter {
    pub fn new() -> Meter {
        let now = Instant::now();
        Meter { start: now, window_start: now, window: Totals::default() }
    }

    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// The rates since the last call (overall on the first).
    pub fn window(&mut self, t: &Totals) -> Rates {
        let r = Rates::between(&self.window, t, self.window_start.elapsed().as_secs_f64());
        self.window_start = Instant::now();
        self.window = t.clone();
        r
    }
}

impl Default for Meter {
    fn default() -> Meter {
        Meter::new()
    }
}

/// `1.23 M`, `456 k`, `789`.
pub fn si(v: f64) -> String {
    // A long campaign passes 10^12 cases; a sweep of an f32 pair counts 2^64 inputs.
    if v >= 1e18 {
        format!("{:.2} E", v / 1e18)
    } else if v >= 1e15 {
        format!("{:.2} P", v / 1e15)
    } else if v >= 1e12 {
        format!("{:.2} T", v / 1e12)
    } else if v >= 1e9 {
        format!("{:.2} G", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.1} k", v / 1e3)
    } else {
        format!("{v:.0} ")
    }
}

/// The progress line. With programs in both modes it names each mode's cases/s.
pub fn progress_line(elapsed: f64, t: &Totals, r: &Rates) -> String {
    let mut s = format!(
        "[{elapsed:7.1} s] {}cases ({}cases/s)  {}programs ({}programs/s)  {} findings  {} signatures",
        si(t.cases as f64),
        si(r.cases_per_s),
        si(t.programs as f64),
        si(r.programs_per_s),
        t.findings_new + t.findings_known,
        t.signatures,
    );
    if t.by_exec.len() > 1 {
        let modes: Vec<String> = r.by_exec.iter().map(|(e, m)| format!("{e} {}cases/s", si(m.cases_per_s))).collect();
        s.push_str(&format!("  [{}]", modes.join(", ")));
    }
    let faults = t.fault_count();
    if faults > 0 {
        s.push_str(&format!("  {faults} faults"));
    }
    if t.unsupported > 0 {
        s.push_str(&format!("  {} unsupported", t.unsupported));
    }
    s
}

/// One line of `stats.jsonl`.
#[derive(Serialize)]
struct StatsLine<'a> {
    /// Seconds since the Unix epoch.
    time: u64,
    elapsed_s: f64,
    /// Over the interval since the previous line, overall and per mode (`by_exec`).
    #[serde(flatten)]
    rates: Rates,
    /// Resident memory (kB, from /proc/self/status), to watch that it stays flat.
    rss_kb: Option<u64>,
    #[serde(flatten)]
    totals: &'a Totals,
}

/// Appends a stats line per interval to `stats.jsonl`, fsync'ed.
pub struct StatsLog {
    file: File,
    meter: Meter,
    last: Instant,
    every: f64,
}

impl StatsLog {
    pub fn open(path: &Path, every: f64) -> Result<StatsLog> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok(StatsLog { file, meter: Meter::new(), last: Instant::now(), every })
    }

    /// Write a line if the interval has passed (or `force`).
    pub fn tick(&mut self, elapsed: f64, t: &Totals, force: bool) -> Result<()> {
        if !force && self.last.elapsed().as_secs_f64() < self.every {
            return Ok(());
        }
        self.last = Instant::now();
        let line = StatsLine {
            time: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            elapsed_s: (elapsed * 10.0).round() / 10.0,
            rates: self.meter.window(t).rounded(),
            rss_kb: rss_kb(),
            totals: t,
        };
        let text = serde_json::to_string(&line).expect("stats serialise") + "\n";
        self.file.write_all(text.as_bytes()).and_then(|_| self.file.sync_data()).context("cannot write stats.jsonl")
    }
}

/// VmRSS of this process in kB (Linux), or `None`.
pub fn rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(cases: f64, programs: f64) -> Rates {
        Rates { cases_per_s: cases, programs_per_s: programs, ..Rates::default() }
    }

    #[test]
    fn progress_line_shows_rates_findings_and_faults() {
        let mut t = Totals { cases: 12_345_678, programs: 4000, signatures: 3, findings_new: 2, ..Totals::default() };
        let l = progress_line(10.0, &t, &rates(1_234_567.0, 400.0));
        assert!(l.contains("12.35 M"), "{l}");
        assert!(l.contains("1.23 Mcases/s"), "{l}");
        assert!(l.contains("2 findings  3 signatures"), "{l}");
        assert!(!l.contains("faults"), "{l}");
        t.fault(&EngineFault::Timeout { seconds: 1 });
        assert!(progress_line(10.0, &t, &rates(0.0, 0.0)).contains("1 faults"));
        assert_eq!(t.faults["timeout"], 1);
    }

    fn verdicts(cases: u64) -> Verdicts {
        Verdicts { cases, results: cases, fast: cases, ..Verdicts::default() }
    }

    #[test]
    fn each_mode_gets_its_cases_programs_and_rates() {
        let mut t = Totals::default();
        for (exec, cases) in [(Exec::Isa, 1000), (Exec::Isa, 1000), (Exec::Compiled, 500)] {
            t.program(exec);
            t.add(exec, &verdicts(cases));
        }
        assert_eq!((t.cases, t.programs), (2500, 3));
        assert_eq!(t.by_exec[&Exec::Isa], ModeTotals { cases: 2000, programs: 2 });
        assert_eq!(t.by_exec[&Exec::Compiled], ModeTotals { cases: 500, programs: 1 });
        let r = Rates::between(&Totals::default(), &t, 2.0);
        assert_eq!((r.cases_per_s, r.by_exec[&Exec::Isa].cases_per_s, r.by_exec[&Exec::Compiled].programs_per_s), (1250.0, 1000.0, 0.5));
        // A later window counts only what came after its start.
        let before = t.clone();
        t.program(Exec::Compiled);
        t.add(Exec::Compiled, &verdicts(100));
        let r = Rates::between(&before, &t, 1.0);
        assert_eq!((r.by_exec[&Exec::Isa].cases_per_s, r.by_exec[&Exec::Compiled].cases_per_s), (0.0, 100.0));
        let l = progress_line(1.0, &t, &r);
        assert!(l.contains("[compiled 100 cases/s, isa 0 cases/s]"), "{l}");
        // One mode alone: the overall figures say it all.
        let mut one = Totals::default();
        one.program(Exec::Isa);
        let l = progress_line(1.0, &one, &Rates::between(&Totals::default(), &one, 1.0));
        assert!(!l.contains("isa"), "{l}");
    }

    #[test]
    fn stats_log_appends_json_lines() {
        let path = std::env::temp_dir().join(format!("ptxfuzz-stats-test-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut log = StatsLog::open(&path, 3600.0).unwrap();
        let t = Totals { cases: 5, ..Totals::default() };
        log.tick(1.0, &t, false).unwrap();
        log.tick(2.0, &t, true).unwrap();
        log.tick(3.0, &t, true).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2, "the interval holds back unforced lines");
        assert_eq!(lines[0]["cases"], 5);
        assert!(lines[0]["by_exec"].is_object() && lines[0]["rates_by_exec"].is_object(), "{}", lines[0]);
        assert!(lines[0]["faults"].is_object());
        std::fs::remove_file(&path).unwrap();
    }
}
