//! `ptxfuzz bench --compare`: cases compared per second, target engine vs the interpreter
//! (`worker::compare::throughput`). The figure: host vs interp, single-instruction
//! f32 programs, at least 20 M cases/s on a 2-core machine.

use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use worker::compare::throughput::{self, Throughput};
use worker::oracles::{open, EngineOptions};

/// Programs of `--compare --generated`.
const GENERATED_PROGRAMS: usize = 256;

pub fn run(target: &str, generated: bool, trace: bool, cases: usize, seconds: f64, json: bool) -> Result<()> {
    // Every program's cases are made and held at once (with both engines' outputs): the same
    // 2^24 cases in all as the table's array (`bench::MAX_CASES`).
    let programs = if generated { GENERATED_PROGRAMS } else { throughput::F32_SINGLES } as u64;
    if cases as u64 * programs > crate::bench::MAX_CASES {
        bail!(
            "--cases {cases} is too many for --compare{}: its {programs} programs get --cases each, held in memory at once, so give at most {} (2^24 cases in all)",
            if generated { " --generated" } else { "" },
            crate::bench::MAX_CASES / programs
        );
    }
    let opts = EngineOptions::default();
    let mut t = open(target, &opts).map_err(|f| anyhow!("{target}: {f}"))?;
    let mut reference = open("interp", &opts).map_err(|f| anyhow!("interp: {f}"))?;
    let data = if generated {
        throughput::host_generated(GENERATED_PROGRAMS, cases.max(1), 1, t.as_ref())
    } else {
        throughput::host_f32_singles(cases.max(1), 1)
    };
    let data: Vec<_> = data.into_iter().filter(|(p, _)| t.supports(p)).collect();
    if data.is_empty() {
        bail!("{target} supports none of the benchmark programs");
    }
    let r: Throughput = throughput::measure(t.as_mut(), reference.as_mut(), &data, trace, Duration::from_secs_f64(seconds));
    if json {
        let mut v = serde_json::to_value(&r)?;
        v["cases_per_s"] = r.cases_per_second().round().into();
        v["target"] = t.info().to_string().into();
        v["threads"] = rayon::current_num_threads().into();
        println!("{v}");
    } else {
        println!(
            "{} vs interp ({}, {}): {:.1} M cases/s compared ({} cases in {:.2} s, {} batches of {} jobs, {} threads); {} mismatches, {} faults",
            t.info(),
            if generated { "generated programs" } else { "single-instruction f32" },
            if trace { "trace" } else { "end-to-end" },
            r.cases_per_second() / 1e6,
            r.cases,
            r.seconds,
            r.batches,
            data.len(),
            rayon::current_num_threads(),
            r.mismatches,
            r.faults
        );
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        println!(
            "  time: target {:.2} s, interp {:.2} s, compare {:.2} s; {:.2} CPU s used: {:.1} M cases per CPU second, {:.1} M cases/s on {cores} idle cores",
            r.target_seconds,
            r.reference_seconds,
            r.compare_seconds,
            r.cpu_seconds,
            r.cases as f64 / r.cpu_seconds.max(1e-9) / 1e6,
            r.cases as f64 / r.cpu_seconds.max(1e-9) * cores as f64 / 1e6,
        );
        println!("  fast path: {:.1}% of {} results", 100.0 * r.fast as f64 / r.results.max(1) as f64, r.results);
        for s in &r.signatures {
            println!("  mismatch signature: {s}");
        }
    }
    if r.mismatches > 0 || r.faults > 0 {
        bail!("{} mismatches and {} faults against the interpreter", r.mismatches, r.faults);
    }
    Ok(())
}

/// `ptxfuzz bench --judge`: the judge alone on a GPU's load, without a GPU. `programs` default
/// campaign programs (approximate forms on, 1,024 cases each, drawn as `campaign` draws them),
/// each case's outputs what `exec-reference --profile PROFILE` answers (the H100's bits under
/// `sm_90`: as many results leave the fast path as on the H200, 11 %), judged against the
/// spec on one thread, as one of a GPU campaign's judging threads does.
pub fn run_judge(profile: &str, programs: usize, trace: bool, seconds: f64, json: bool) -> Result<()> {
    use ptx::gen::{GenConfig, Generator};
    use worker::campaign::source::random_item;
    use worker::oracles::Job;

    let hw = ptx::profile::Profile::named(profile)?;
    let gen = Generator::new(GenConfig { approximate: true, ..GenConfig::default() })?;
    let made = std::time::Instant::now();
    let data: Vec<_> = (0..programs as u64 * 2)
        .filter_map(|i| random_item(&gen, 1, i, 1024))
        .take(programs)
        .map(|item| {
            let p = item.program;
            let out = worker::compare::profile_output(&hw, &Job::new(&p, &item.cases, trace)).map_err(|e| anyhow!("{p}: {e}"))?;
            Ok((p, item.cases, out))
        })
        .collect::<Result<_>>()?;
    let made = made.elapsed().as_secs_f64();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let opts = worker::compare::CompareOptions::default();
    let r = pool.install(|| throughput::measure_judge(&data, trace, &opts, Duration::from_secs_f64(seconds)));
    let per_s = r.cases as f64 / r.compare_seconds.max(1e-9);
    // Every pass judges the same cases.
    let best = (r.cases / r.batches.max(1)) as f64 / r.best_batch_seconds.max(1e-9);
    if json {
        let mut v = serde_json::to_value(&r)?;
        v["judge_cases_per_s"] = per_s.round().into();
        v["best_pass_cases_per_s"] = best.round().into();
        v["profile"] = profile.into();
        v["programs"] = data.len().into();
        v["mode"] = if trace { "trace" } else { "end-to-end" }.into();
        println!("{v}");
    } else {
        println!(
            "judge against {profile}'s results, {} ({} campaign programs of 1024 cases, made in {made:.1} s): {:.2} M cases/s on one thread, the fastest pass {:.2} M ({} cases in {:.2} s, {} passes)",
            if trace { "traced" } else { "end to end" },
            data.len(),
            per_s / 1e6,
            best / 1e6,
            r.cases,
            r.compare_seconds,
            r.batches
        );
        // Mismatches are expected here: end to end, a result downstream of one the profile
        // answers differently (an approximate form, a NaN payload) differs from the spec's
        // chain, as on a GPU, where the campaign's findings stage then explains it upstream;
        // traced, each instruction is judged on the profile's own operands, and what is left
        // is where the profile departs from the spec.
        let why = if trace { "where the profile departs from the spec" } else { "downstream of the profile's own answers, as on a GPU" };
        println!(
            "  fast path: {:.2}% of {} results; {} mismatches ({why}) in {} signatures",
            100.0 * r.fast as f64 / r.results.max(1) as f64,
            r.results,
            r.mismatches,
            r.signatures.len()
        );
    }
    Ok(())
}
