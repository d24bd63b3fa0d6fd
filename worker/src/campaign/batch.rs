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
    totals.resolve_calls += ahead.runs.calls;
    totals.resolved_compiled += ahead.runs.compiled;
    for (i, (job, judged)) in jobs.iter().zip(verdicts).enumerate() {
        totals.program(job.exec);
        let verdicts = match judged {
            Ok(v) => v,
            Err(f) => {
                totals.fault(f);
                // An engine that cannot run at all would fault on every later batch too.
                if f.is_fatal() {
                    anyhow::bail!("target {}: {f}", target.info().name);
                }
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use ptx::gen::{GenConfig, Generator};
    use ptx::vm::Encoder;
    use rayon::prelude::*;

    use super::fused;
    use crate::campaign::source::random_item;
    use crate::compare::{self, CompareOptions};
    use crate::oracles::diff_cuda::vm_batch::VmBatch;
    use crate::oracles::diff_interp::InterpEngine;
    use crate::oracles::{Engine, Exec, Job, Output};

    /// What a GPU `isa` campaign asks of the CPU per case, the GPU's own work aside, stage by
    /// stage on the global pool (`RAYON_NUM_THREADS=1` for one core): generate a default batch
    /// (1,024 programs of 1,024 cases, the cuda engine's `preferred_cases`), pack it for the VM
    /// and unpack its outputs (`vm_batch`), judge it against the interpreter (`batch::judge`'s
    /// `fused::verdicts`, the reference run included). The interpreter's outputs stand in for
    /// the GPU's (untimed). Issue 12's 100 M cases/s needs the sum times 100 M under the cores
    /// the GPU machine has (16). Figures: docs/benchmarks.md ("A GPU campaign's CPU work").
    /// `cargo test --release -p worker --lib -- --ignored gpu_isa_campaign_cpu_work_per_case --nocapture`
    #[test]
    #[ignore]
    fn gpu_isa_campaign_cpu_work_per_case() {
        report("the interpreter's results", false, None);
    }

    /// As above with GPU-like results: the sm_90 profile's (`bench --judge`'s load: 12 % of
    /// results off the fast path), judged by `compare::check` as a GPU campaign judges them, end
    /// to end and traced (every instruction's result packed, unpacked and judged).
    /// `cargo test --release -p worker --lib -- --ignored gpu_isa_campaign_cpu_work_on_gpu_like_results --nocapture`
    #[test]
    #[ignore]
    fn gpu_isa_campaign_cpu_work_on_gpu_like_results() {
        let hw = ptx::profile::Profile::named("sm_90").unwrap();
        report("sm_90's results, end to end", false, Some(&hw));
        report("sm_90's results, traced", true, Some(&hw));
    }

    /// Time the stages over three default batches (after one that warms the caches) and print
    /// them per case. `profile`: whose results stand for the GPU's (`None`: the interpreter's).
    fn report(what: &str, trace: bool, profile: Option<&ptx::profile::Profile>) {
        let g = Generator::new(GenConfig { approximate: true, ..GenConfig::default() }).unwrap();
        let (enc, copts) = (Encoder::new(90).unwrap(), CompareOptions::default());
        let threads = rayon::current_num_threads();
        let mut sums = [Duration::ZERO; 4];
        let mut cases = 0usize;
        for round in 0..4u64 {
            let t = Instant::now();
            let items: Vec<_> = (0..1024u64).into_par_iter().filter_map(|i| random_item(&g, 7, round * 1024 + i, 1024)).collect();
            let generate = t.elapsed();
            let jobs: Vec<Job> = items.iter().map(|it| Job::new(&it.program, &it.cases, trace).with_exec(Exec::Isa)).collect();
            let idx: Vec<usize> = (0..jobs.len()).collect();
            let t = Instant::now();
            let (batch, faults) = VmBatch::pack(&enc, &jobs, &idx);
            let pack = t.elapsed();
            assert!(faults.is_empty(), "{faults:?}");
            let device = vec![0x5555_5555_5555_5555u64; batch.out_len];
            let t = Instant::now();
            assert_eq!(batch.unpack(&device).len(), jobs.len());
            let unpack = t.elapsed();
            let results: Vec<Output> = match profile {
                None => InterpEngine::new().run(&jobs).into_iter().map(|r| r.expect("the interpreter runs it")).collect(),
                Some(hw) => jobs.par_iter().map(|j| compare::profile_output(hw, j).expect("the profile runs it")).collect(),
            };
            let t = Instant::now();
            let verdicts: Vec<_> = jobs
                .par_iter()
                .zip(&results)
                .map(|(j, r)| if profile.is_some() { compare::check(j, r, &copts) } else { fused::verdicts(j, r, false, &copts) })
                .collect();
            let judge = t.elapsed();
            let n: usize = jobs.iter().map(|j| j.n_cases()).sum();
            assert!(verdicts.iter().all(|v| v.is_ok()), "every job judged");
            if profile.is_none() {
                assert!(verdicts.iter().all(|v| v.as_ref().is_ok_and(|v| v.is_clean())), "the interpreter agrees with itself");
            }
            if round > 0 {
                // The first round warms the caches (the approximate forms' memo, the pool).
                cases += n;
                for (s, d) in sums.iter_mut().zip([generate, pack, unpack, judge]) {
                    *s += d;
                }
            }
        }
        let ns = |d: Duration| d.as_secs_f64() * 1e9 / cases as f64;
        let total: f64 = sums.iter().map(|&d| ns(d)).sum();
        println!(
            "{what}: {threads} thread(s), {cases} cases: generate {:.1} ns/case, pack {:.1}, unpack {:.1}, judge {:.1}; total {total:.1} ns/case = {:.1} M cases/s; 100 M cases/s needs {:.1} such thread(s)",
            ns(sums[0]), ns(sums[1]), ns(sums[2]), ns(sums[3]), 1e3 / total, 100e6 * total * 1e-9 * threads as f64
        );
    }
}
