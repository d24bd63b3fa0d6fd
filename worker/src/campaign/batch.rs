//! One batch of a campaign, in three stages: run on the target ([`execute`]), judge on every
//! core ([`judge`], no engine needed), and hand each job's new signatures to the finding store
//! ([`handle`], which may run the engine again). The main loop runs batch k+1 on the target
//! while batch k is judged (issue 12 point 3: on a GPU the device and the cores work at once);
//! findings are still handled in program order, so the thread count and the overlap change
//! nothing that is found. Programs the source ran and judged where it generated them
//! (`campaign::fused`, on the CPU engines) skip the first two stages.

use anyhow::Result;
use rayon::prelude::*;

use super::findings::{Findings, Handled};
use super::fused;
use super::queue::Planned;
use super::stats::Totals;
use crate::compare::{self, CompareOptions, Verdicts};
use crate::oracles::{Engine, EngineFault, Job, Output};

/// A batch that ran on the target.
pub struct Ran {
    pub planned: Planned,
    /// Which items the target supports (and ran), in order.
    supported: Vec<bool>,
    /// The results of the jobs that ran here, in order: those not judged where they were
    /// generated (`Planned::done_of`).
    results: Vec<Result<Output, EngineFault>>,
    trace: bool,
    /// The target's results are the judge's reference (the interpreter as target).
    own_reference: bool,
}

impl Ran {
    /// The jobs that ran, in order (the same as `Planned::jobs` gave the target).
    fn jobs(&self) -> Vec<Job<'_>> {
        self.planned.jobs_of(&self.supported, self.trace)
    }

    /// The jobs that ran here: all but those judged where they were generated.
    fn here(&self) -> Vec<Job<'_>> {
        let done = self.planned.done_of(&self.supported);
        self.jobs().into_iter().zip(done).filter(|(_, d)| d.is_none()).map(|(j, _)| j).collect()
    }
}

/// The verdicts of a batch's jobs that ran here, in order, and the judge's wall time in
/// microseconds.
pub struct Judged {
    verdicts: Vec<Result<Verdicts, EngineFault>>,
    micros: u64,
}

/// Stage 1: run the jobs `target` supports (but those judged where they were generated).
pub fn execute(target: &mut dyn Engine, planned: Planned, trace: bool, totals: &mut Totals) -> Ran {
    let supported = planned.supported(&*target);
    totals.unsupported += supported.iter().filter(|&&ok| !ok).count() as u64;
    let own_reference = target.outputs_are_reference() && !trace;
    let mut ran = Ran { planned, supported, results: Vec::new(), trace, own_reference };
    let jobs = ran.here();
    if jobs.is_empty() {
        return ran;
    }
    let t0 = std::time::Instant::now();
    let results = target.run(&jobs);
    totals.time_us.engine += t0.elapsed().as_micros() as u64;
    drop(jobs);
    ran.results = results;
    ran
}

/// Stage 2: judge every job that ran here at once, one rayon task per job (a default job of
/// 1,024 cases is a single chunk of `compare::check`, so parallelism comes from the jobs).
pub fn judge(ran: &Ran, copts: &CompareOptions) -> Judged {
    let t0 = std::time::Instant::now();
    let jobs = ran.here();
    let verdicts = jobs
        .par_iter()
        .zip(ran.results.par_iter())
        .map(|(job, r)| r.as_ref().map_err(Clone::clone).and_then(|out| fused::verdicts(job, out, ran.own_reference, copts)))
        .collect();
    Judged { verdicts, micros: t0.elapsed().as_micros() as u64 }
}

/// Stage 3: count every job's verdicts and hand the first mismatch of each signature in each
/// job to `findings`, in job order; those that need a traced run to resolve get it in one
/// engine call for the whole batch (`Findings::resolve_batch`).
pub fn handle(target: &mut dyn Engine, ran: &Ran, judged: Judged, findings: &mut Findings, totals: &mut Totals) -> Result<()> {
    totals.time_us.judge += judged.micros;
    let jobs = ran.jobs();
    let t0 = std::time::Instant::now();
    // Every job's verdicts, in order: judged where generated, or here.
    let mut here = judged.verdicts.iter();
    let verdicts: Vec<&Result<Verdicts, EngineFault>> =
        ran.planned.done_of(&ran.supported).into_iter().map(|d| d.unwrap_or_else(|| here.next().expect("a verdict per job that ran here"))).collect();
    let firsts: Vec<Vec<&compare::Mismatch>> = verdicts
        .iter()
        .map(|v| {
            let mut seen = std::collections::HashSet::new();
            v.as_ref().map_or(Vec::new(), |v| v.mismatches.iter().filter(|m| seen.insert(&m.signature)).collect())
        })
        .collect();
    let todo: Vec<(usize, &compare::Mismatch)> = firsts.iter().enumerate().flat_map(|(i, ms)| ms.iter().map(move |&m| (i, m))).collect();
    let mut ahead = findings.resolve_batch(target, &jobs, &todo);
    totals.resolved += ahead.len() as u64;
    totals.resolve_calls += (!ahead.is_empty()) as u64;
    for (i, (job, judged)) in jobs.iter().zip(verdicts).enumerate() {
        totals.program(job.exec);
        let verdicts = match judged {
            Ok(v) => v,
            Err(f) => {
                totals.fault(f);
                continue;
            }
        };
        let cases_before = totals.cases;
        totals.add(job.exec, verdicts);
        for &m in &firsts[i] {
            let hits = verdicts.signatures.get(&m.signature).copied().unwrap_or(1);
            match findings.handle(target, job, m, hits, cases_before, ahead.take(i, &m.signature))? {
                Handled::Explained => totals.explained += hits,
                Handled::Finding(None) => totals.mismatches += hits,
                Handled::Finding(Some(rec)) => {
                    totals.mismatches += hits;
                    eprintln!(
                        "\nnew finding: {} ({} instruction(s), after {} cases{}) -> {}",
                        rec.key,
                        rec.instructions,
                        rec.found_after_cases,
                        if rec.undocumented { "; an undocumented form" } else { "" },
                        rec.folder.display()
                    );
                }
            }
        }
    }
    totals.time_us.findings += t0.elapsed().as_micros() as u64;
    Ok(())
}

/// Run batch k+1 on the target while `pending` (batch k, if any) is judged on another
/// thread, then handle batch k's verdicts; returns batch k+1, to be judged during the next
/// call (or by [`finish`]).
pub fn overlapped(
    target: &mut dyn Engine,
    next: Planned,
    pending: Option<Ran>,
    copts: &CompareOptions,
    trace: bool,
    findings: &mut Findings,
    totals: &mut Totals,
) -> Result<Ran> {
    let (ran, judged) = std::thread::scope(|s| {
        // A batch judged where it was generated (`campaign::fused`) needs no thread.
        let judging = pending.as_ref().filter(|p| !p.results.is_empty()).map(|p| s.spawn(|| judge(p, copts)));
        let ran = execute(target, next, trace, totals);
        (ran, judging.map(|h| h.join().expect("the judging thread does not panic")))
    });
    if let Some(p) = &pending {
        let j = judged.unwrap_or_else(|| judge(p, copts));
        handle(target, p, j, findings, totals)?;
    }
    Ok(ran)
}

/// Judge and handle the last batch that ran.
pub fn finish(target: &mut dyn Engine, pending: Option<Ran>, copts: &CompareOptions, findings: &mut Findings, totals: &mut Totals) -> Result<()> {
    match pending {
        Some(p) => {
            let j = judge(&p, copts);
            handle(target, &p, j, findings, totals)
        }
        None => Ok(()),
    }
}

/// One batch through all three stages, one after the other.
pub fn run_batch(
    target: &mut dyn Engine,
    planned: Planned,
    copts: &CompareOptions,
    trace: bool,
    findings: &mut Findings,
    totals: &mut Totals,
) -> Result<()> {
    let ran = execute(target, planned, trace, totals);
    finish(target, Some(ran), copts, findings, totals)
}
