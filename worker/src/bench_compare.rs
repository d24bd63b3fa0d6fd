//! `ptxfuzz bench --compare`: cases compared per second, target engine vs the interpreter
//! (`worker::compare::throughput`). The figure: host vs interp, single-instruction
//! f32 programs, at least 20 M cases/s on a 2-core machine.

use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use worker::compare::throughput::{self, Throughput};
use worker::oracles::{open, EngineOptions};

pub fn run(target: &str, generated: bool, trace: bool, cases: usize, seconds: f64, json: bool) -> Result<()> {
    let opts = EngineOptions::default();
    let mut t = open(target, &opts).map_err(|f| anyhow!("{target}: {f}"))?;
    let mut reference = open("interp", &opts).map_err(|f| anyhow!("interp: {f}"))?;
    let data = if generated {
        throughput::host_generated(256, cases.max(1), 1, t.as_ref())
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
