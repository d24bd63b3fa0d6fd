//! `ptxfuzz sweep INSTR`: every input of one instruction (all 2^32 for a unary f32 form,
//! 2^16 for a unary 16-bit form, all 2^32 pairs for a binary 16-bit form) on a target, with
//! the mismatches and the error distribution in ulps from the correctly rounded result,
//! beside the documented bound.
//!
//! Inputs are numbered: input `i` gives operand `k` the bits `(i >> (k * w)) & mask` (`w` the
//! lane width; packed forms get the same value in both lanes). `--start`, `--stride` and
//! `--limit` walk `start, start + stride, ...` modulo the space, so an odd stride visits
//! every input once per lap and a large odd stride samples the space evenly.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::interp::{self, Kernel, Operands};
use ptx::isa::Instr;
use ptx::profile::Profile;
use ptx::program::Program;
use ptx::Scalar;
use rayon::prelude::*;
use serde::Serialize;

use crate::oracles::{open_spec, Engine, EngineOptions, EngineSpec, Job};

/// Run one instruction on every input (or a regular sample of them) and measure its error.
#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:\n  ptxfuzz sweep rcp.approx.f32 --target cuda        (all 2^32 inputs)\n  \
ptxfuzz sweep ex2.approx.f16 --target cuda        (all 2^16)\n  \
ptxfuzz sweep add.rn.bf16 --target cuda           (all 2^32 pairs)\n  \
ptxfuzz sweep rcp.approx.f32 --target interp --limit 1000000 --stride 0x9e3779b1   (a sample)\n\n\
Error: the distance in ulps between the target's result and the correctly rounded one (steps \
between adjacent values, both zeros one value; packed forms: the worse lane). Mismatches are \
results the PTX ISA does not allow (bound, special-case table, NaN rules), judged as campaigns \
judge them.")]
pub struct SweepArgs {
    /// The instruction as PTX spells it (rcp.approx.f32, sqrt.rn.f16, add.rn.bf16, ...).
    pub instr: String,
    /// Engine: cuda, cuda:N, host, interp or exec:COMMAND. Default: the first GPU, else host.
    #[arg(long)]
    pub target: Option<String>,
    /// Number of inputs to run (default: the whole space).
    #[arg(long)]
    pub limit: Option<u64>,
    /// Step between inputs, modulo the space (odd: every input once per lap). Decimal or 0x hex.
    #[arg(long, default_value = "1", value_parser = parse_u64)]
    pub stride: u64,
    /// First input number. Decimal or 0x hex.
    #[arg(long, default_value = "0", value_parser = parse_u64)]
    pub start: u64,
    /// Inputs per batch handed to the engine (default: the engine's preferred size, at least 64 K).
    #[arg(long)]
    pub batch: Option<usize>,
    /// Mismatching inputs printed (all are counted).
    #[arg(long, default_value_t = 10)]
    pub examples: usize,
    /// cuda: compile for sm_XX instead of the device's own.
    #[arg(long)]
    pub sm: Option<u32>,
    /// Seconds an engine may take for one batch.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON report to this file.
    #[arg(long)]
    pub save: Option<std::path::PathBuf>,
    /// Compare the output fingerprint of an exhaustive sweep with the one recorded for this form
    /// in a `sweeps.jsonl` file (e.g. ../shared/hw/h100-sm90/sweeps.jsonl, recorded on an H100);
    /// exit status 1 if they differ.
    #[arg(long, value_name = "SWEEPS_JSONL")]
    pub truth: Option<std::path::PathBuf>,
    /// Count as mismatches the results this profile does not give: spec (the set the PTX ISA
    /// allows) or sm_90 (the H100's bits for every IEEE-rounded and non-rounding form and the
    /// approximate forms with a bit-exact model; the others keep the spec's set).
    #[arg(long, default_value = "spec")]
    pub judge: String,
    #[command(flatten)]
    pub post: post::PostArgs,
}

pub mod fingerprint;
pub mod post;

fn parse_u64(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
        None => s.replace('_', "").parse(),
    }
    .map_err(|e| format!("'{s}': {e}"))
}

/// Which inputs to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub start: u64,
    pub stride: u64,
    pub count: u128,
}

/// Histogram buckets: 0, 1, 2, 3 ulps, then [4, 8), [8, 16), ... [2^63, 2^64).
pub const BUCKETS: usize = 66;

/// The histogram bucket of an error of `ulps`.
pub fn bucket(ulps: u64) -> usize {
    if ulps < 4 {
        ulps as usize
    } else {
        2 + (63 - ulps.leading_zeros() as usize)
    }
}

/// The bucket's label: `0`, `1`, `2`, `3`, `4-7`, `8-15`, ...
pub fn bucket_label(b: usize) -> String {
    if b < 4 {
        b.to_string()
    } else {
        let lo = 1u128 << (b - 2);
        format!("{lo}-{}", 2 * lo - 1)
    }
}

/// One input worth showing.
#[derive(Clone, Debug, Serialize)]
pub struct Example {
    pub operands: Vec<String>,
    pub got: String,
    pub reference: String,
    pub allowed: String,
    pub ulps: Option<u64>,
}

/// What a sweep found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub instr: String,
    pub target: String,
    /// The profile mismatches were judged against (`--judge`).
    pub judge: String,
    pub inputs: u128,
    pub space_bits: u32,
    pub exhaustive: bool,
    pub interrupted: bool,
    pub seconds: f64,
    /// Results the PTX ISA does not allow.
    pub mismatches: u64,
    /// Cases per histogram bucket (see [`bucket_label`]), trailing empty buckets dropped.
    pub histogram: Vec<u64>,
    /// A NaN against a number (no ulp distance).
    pub nan_vs_number: u64,
    pub max_ulps: u64,
    pub max_at: Option<Example>,
    pub examples: Vec<Example>,
    /// The documented bound rows (ptx::approx::bounds), or "correctly rounded".
    pub bounds: Vec<String>,
    pub faults: u64,
    pub last_fault: Option<String>,
    /// The output fingerprint (`sweep::fingerprint`, 16 hex digits) when every input ran
    /// without a fault and the form has one; comparable with `sweeps.jsonl`.
    pub fingerprint: Option<String>,
}

/// The one-instruction program of `instr` (sources: one input each).
pub fn program_of(instr: &Instr) -> Result<Program> {
    Ok(crate::oracles::diff_replay::program_of(instr)?)
}

/// Bits of the input space: lane width times operands (at most 64).
pub fn space_bits(instr: &Instr) -> Result<u32> {
    let bits = instr.ty.scalar().bits() * instr.inputs as u32;
    if bits > 64 {
        bail!(
            "{instr} has {bits} bits of input ({} operands of {} bits): too many to sweep; use `ptxfuzz campaign --families {}` to sample it",
            instr.inputs,
            instr.ty.scalar().bits(),
            instr.op.name()
        );
    }
    Ok(bits)
}

/// The operands of input number `i` (packed types: both lanes alike).
pub fn operands(instr: &Instr, i: u64) -> [u64; 3] {
    let s = instr.ty.scalar();
    let w = s.bits();
    let mut ops = [0u64; 3];
    for (k, o) in ops.iter_mut().enumerate().take(instr.inputs as usize) {
        let v = if w == 64 { i } else { (i >> (k as u32 * w)) & s.mask() };
        *o = if instr.ty.lanes() == 2 { v | v << w } else { v };
    }
    ops
}

/// Distance in ulps between two lanes (both zeros one value); `None` if exactly one is NaN.
pub fn ulps(s: Scalar, a: u64, b: u64) -> Option<u64> {
    // Two NaNs agree (a sweep compares NaN-ness, not payloads); one NaN has no distance.
    if s.is_nan(a) && s.is_nan(b) {
        Some(0)
    } else {
        s.ulps_between(a, b)
    }
}

/// Per-chunk tallies, merged in input order.
#[derive(Clone, Debug)]
struct Tally {
    mismatches: u64,
    histogram: [u64; BUCKETS],
    nan_vs_number: u64,
    max: Option<(u64, u64)>,
    examples: Vec<u64>,
    /// Sum of `fingerprint::term` over the inputs judged (wrapping).
    fingerprint: u64,
}

impl Tally {
    fn new() -> Tally {
        Tally { mismatches: 0, histogram: [0; BUCKETS], nan_vs_number: 0, max: None, examples: Vec::new(), fingerprint: 0 }
    }

    fn merge(mut self, o: Tally, keep: usize) -> Tally {
        self.mismatches += o.mismatches;
        for (a, b) in self.histogram.iter_mut().zip(o.histogram) {
            *a += b;
        }
        self.nan_vs_number += o.nan_vs_number;
        self.fingerprint = self.fingerprint.wrapping_add(o.fingerprint);
        if o.max.is_some_and(|(u, _)| self.max.is_none_or(|(m, _)| u > m)) {
            self.max = o.max;
        }
        let room = keep.saturating_sub(self.examples.len());
        self.examples.extend(o.examples.into_iter().take(room));
        self
    }
}

/// Judge one batch: `inputs[i]` gave `got[i]`. Under a hardware profile that claims `instr`
/// every result is checked against the profile's one (the primary is the spec's first
/// reading, not necessarily the GPU's).
fn judge(instr: &Instr, kernel: &Kernel, inputs: &[u64], got: &[u64], keep: usize, profile: &Profile) -> Tally {
    let claimed = profile.claims(instr);
    inputs
        .par_chunks(4096)
        .zip(got.par_chunks(4096))
        .map(|(ins, gots)| {
            let mut t = Tally::new();
            let mut cols: [Vec<u64>; 3] = std::array::from_fn(|_| Vec::with_capacity(ins.len()));
            for &i in ins {
                for (col, v) in cols.iter_mut().zip(operands(instr, i)) {
                    col.push(v);
                }
            }
            let mut prim = vec![0u64; ins.len()];
            kernel.run_columns(Operands::new(&cols[0], &cols[1], &cols[2]), &mut prim);
            let s = instr.ty.scalar();
            let w = s.bits();
            for (x, (&i, &g)) in ins.iter().zip(gots).enumerate() {
                t.fingerprint = t.fingerprint.wrapping_add(fingerprint::term(i, g, instr.ty.bits()));
                let mut worst = Some(0u64);
                for l in 0..instr.ty.lanes() {
                    let lane = |v: u64| (v >> (l * w)) & s.mask();
                    worst = match (worst, ulps(s, lane(g), lane(prim[x]))) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    };
                }
                match worst {
                    Some(u) => {
                        t.histogram[bucket(u)] += 1;
                        if t.max.is_none_or(|(m, _)| u > m) {
                            t.max = Some((u, i));
                        }
                    }
                    None => t.nan_vs_number += 1,
                }
                if g != prim[x] || claimed {
                    let ops = &operands(instr, i)[..instr.inputs as usize];
                    let ok = interp::eval(instr, ops).is_ok_and(|e| crate::compare::narrow(profile, instr, ops, e).accepts(g));
                    if !ok {
                        t.mismatches += 1;
                        if t.examples.len() < keep {
                            t.examples.push(i);
                        }
                    }
                }
            }
            t
        })
        .reduce(Tally::new, |a, b| a.merge(b, keep))
}

/// Sweep `instr` on `engine` following `plan`, judged against the spec. `stop` ends it early
/// (the report says so).
pub fn sweep(engine: &mut dyn Engine, instr: &Instr, plan: Plan, batch: usize, keep: usize, stop: &AtomicBool) -> Result<Report> {
    sweep_judged(engine, instr, plan, batch, keep, stop, &Profile::Spec)
}

/// As [`sweep`], mismatches judged against `profile` (`--judge`).
pub fn sweep_judged(
    engine: &mut dyn Engine,
    instr: &Instr,
    plan: Plan,
    batch: usize,
    keep: usize,
    stop: &AtomicBool,
    profile: &Profile,
) -> Result<Report> {
    let bits = space_bits(instr)?;
    let p = program_of(instr)?;
    if !engine.supports(&p) {
        bail!("target {} does not support {instr}; pick another with --target (cuda, interp, exec:COMMAND)", engine.info().name);
    }
    let kernel = Kernel::new(instr)?;
    let space_mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let t0 = Instant::now();
    let mut tally = Tally::new();
    let (mut done, mut faults, mut last_fault) = (0u128, 0u64, None);
    let mut next = plan.start & space_mask;
    let mut inputs = Vec::with_capacity(batch);
    let mut cases = Vec::with_capacity(batch * instr.inputs as usize);
    while done < plan.count && !stop.load(Ordering::Relaxed) {
        let n = (plan.count - done).min(batch as u128) as usize;
        inputs.clear();
        cases.clear();
        for _ in 0..n {
            inputs.push(next);
            cases.extend_from_slice(&operands(instr, next)[..instr.inputs as usize]);
            next = next.wrapping_add(plan.stride) & space_mask;
        }
        match engine.run(&[Job::new(&p, &cases, false)]).pop().context("the engine returned no result")? {
            Ok(out) => tally = tally.merge(judge(instr, &kernel, &inputs, &out.values, keep, profile), keep),
            Err(f) => {
                faults += 1;
                last_fault = Some(f.to_string());
            }
        }
        done += n as u128;
    }
    let s = instr.ty.scalar();
    let hex = |v: u64| format!("0x{v:0w$x}", w = (instr.ty.bits() / 4) as usize);
    let example = |i: u64, engine_bits: Option<u64>| -> Example {
        let ops = operands(instr, i);
        let ops = &ops[..instr.inputs as usize];
        let e = interp::eval(instr, ops).ok().map(|e| crate::compare::narrow(profile, instr, ops, e));
        let reference = e.as_ref().map_or(0, |e| e.primary_bits());
        let got = engine_bits.unwrap_or(reference);
        Example {
            operands: ops.iter().map(|&o| hex(o)).collect(),
            got: hex(got),
            reference: hex(reference),
            allowed: e.map_or_else(String::new, |e| e.to_string()),
            ulps: (0..instr.ty.lanes())
                .map(|l| ulps(s, (got >> (l * s.bits())) & s.mask(), (reference >> (l * s.bits())) & s.mask()))
                .try_fold(0u64, |m, u| u.map(|u| m.max(u))),
        }
    };
    // Re-run the few inputs worth showing to report the target's bits for them.
    let show: Vec<u64> = tally.examples.iter().copied().chain(tally.max.map(|(_, i)| i)).collect();
    let shown_bits = rerun(engine, &p, instr, &show);
    let mut examples: Vec<Example> =
        tally.examples.iter().enumerate().map(|(k, &i)| example(i, shown_bits.get(k).copied())).collect();
    let max_at = tally.max.map(|(_, i)| example(i, shown_bits.last().copied()));
    examples.truncate(keep);
    let mut histogram = tally.histogram.to_vec();
    while histogram.len() > 1 && histogram.last() == Some(&0) {
        histogram.pop();
    }
    let interrupted = done < plan.count;
    let exhaustive = !interrupted && plan.count >= 1u128 << bits && plan.stride % 2 == 1;
    // Every input exactly once (one lap of an odd stride) and no batch lost to a fault.
    let whole = exhaustive && plan.count == 1u128 << bits && faults == 0;
    Ok(Report {
        instr: instr.to_string(),
        target: engine.info().to_string(),
        judge: profile.name().to_string(),
        inputs: done,
        space_bits: bits,
        exhaustive,
        interrupted,
        seconds: t0.elapsed().as_secs_f64(),
        mismatches: tally.mismatches,
        histogram,
        nan_vs_number: tally.nan_vs_number,
        max_ulps: tally.max.map_or(0, |(u, _)| u),
        max_at,
        examples,
        bounds: documented_bounds(instr),
        faults,
        last_fault,
        fingerprint: (whole && fingerprint::defined_for(instr, bits)).then(|| format!("{:016x}", tally.fingerprint)),
    })
}

fn rerun(engine: &mut dyn Engine, p: &Program, instr: &Instr, inputs: &[u64]) -> Vec<u64> {
    if inputs.is_empty() {
        return Vec::new();
    }
    let cases: Vec<u64> = inputs.iter().flat_map(|&i| operands(instr, i)[..instr.inputs as usize].to_vec()).collect();
    match engine.run(&[Job::new(p, &cases, false)]).pop() {
        Some(Ok(out)) => out.values,
        _ => Vec::new(),
    }
}

/// The bound rows of an approximate form; "correctly rounded" for the IEEE-rounded ones.
pub fn documented_bounds(instr: &Instr) -> Vec<String> {
    match ptx::approx::Form::of(instr) {
        Some(f) => ptx::approx::bounds::rows_for(f.func, f.scalar)
            .iter()
            .map(|b| format!("{} (\"{}\")", b.to_string().split_whitespace().collect::<Vec<_>>().join(" "), b.spec))
            .collect(),
        None if instr.is_approximate() => vec!["no bound row known for this form".into()],
        None => vec!["correctly rounded: 0 ulp (IEEE 754 rounding in the stated mode)".into()],
    }
}

impl Report {
    pub fn text(&self) -> String {
        let mut s = String::new();
        let rate = self.inputs as f64 / self.seconds.max(1e-9);
        let _ = writeln!(
            s,
            "sweep {} on {}: {} inputs{} of 2^{}, {:.1} s ({:.2} M inputs/s){}",
            self.instr,
            self.target,
            self.inputs,
            if self.exhaustive { " (all)" } else { "" },
            self.space_bits,
            self.seconds,
            rate / 1e6,
            if self.interrupted { ", interrupted" } else { "" }
        );
        for b in &self.bounds {
            let _ = writeln!(s, "  documented bound: {b}");
        }
        match self.judge.as_str() {
            "spec" => writeln!(s, "  mismatches (results the PTX ISA does not allow): {}", self.mismatches),
            p => writeln!(s, "  mismatches (results the {p} profile does not give): {}", self.mismatches),
        }
        .expect("writing to a String");
        if self.faults > 0 {
            let _ = writeln!(s, "  engine faults: {} batches (last: {})", self.faults, self.last_fault.as_deref().unwrap_or(""));
        }
        let _ = writeln!(s, "  error in ulps from the correctly rounded result:");
        let total = self.inputs.max(1) as f64;
        for (b, &n) in self.histogram.iter().enumerate() {
            if n > 0 {
                let _ = writeln!(s, "    {:>12} ulp  {:>12}  {:>8.4}%", bucket_label(b), n, 100.0 * n as f64 / total);
            }
        }
        if self.nan_vs_number > 0 {
            let _ = writeln!(s, "    {:>12}      {:>12}  {:>8.4}%", "NaN/number", self.nan_vs_number, 100.0 * self.nan_vs_number as f64 / total);
        }
        if let Some(f) = &self.fingerprint {
            let _ = writeln!(s, "  output fingerprint: {f} (the sweeps.jsonl hash: compare with --truth FILE)");
        }
        if let Some(m) = self.max_at.as_ref().filter(|_| self.max_ulps > 0) {
            let _ = writeln!(
                s,
                "  max error: {} ulp at {} (got {}, correctly rounded {})",
                self.max_ulps,
                m.operands.join(", "),
                m.got,
                m.reference
            );
        }
        for e in &self.examples {
            let _ = writeln!(s, "  mismatch: {} -> got {}, allowed {}", e.operands.join(", "), e.got, e.allowed);
        }
        s
    }
}

pub fn run(args: SweepArgs) -> Result<()> {
    let instr = Instr::parse_default(&args.instr)?;
    let bits = space_bits(&instr)?;
    let client = args.post.client()?;
    let spec: EngineSpec = match &args.target {
        Some(t) => t.parse()?,
        None => crate::oracles::default_target(),
    };
    let opts = EngineOptions { timeout: Duration::from_secs(args.timeout), sm: args.sm };
    let mut engine = open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?;
    let space = 1u128 << bits;
    let plan = Plan { start: args.start, stride: args.stride, count: args.limit.map_or(space, |l| l as u128) };
    let batch = args.batch.unwrap_or_else(|| engine.preferred_cases().max(1 << 16)).max(1);
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone())?;
        signal_hook::flag::register(sig, stop.clone())?;
    }
    if !args.json {
        eprintln!("sweeping {instr}: {} input(s) on {}", plan.count, engine.info());
    }
    let profile = Profile::named(&args.judge)?;
    let report = sweep_judged(&mut *engine, &instr, plan, batch, args.examples, &stop, &profile)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", report.text());
    }
    if let Some(path) = &args.save {
        let json = serde_json::to_string_pretty(&report)? + "\n";
        crate::repro::replace_synced(path, json.as_bytes())?;
    }
    if let Some(c) = client {
        post::post(&c, &server_report(&report, &instr, engine.info()))?;
    }
    match &args.truth {
        Some(path) => compare_truth(&report, &instr, path),
        None => Ok(()),
    }
}

/// `--truth`: the sweep's fingerprint against the one recorded for the form.
fn compare_truth(report: &Report, instr: &Instr, path: &std::path::Path) -> Result<()> {
    let Some(recorded) = fingerprint::recorded_for(path, instr)? else {
        bail!("{} records no sweep of {instr}; its forms are listed by their `op` field", path.display());
    };
    let Some(ours) = &report.fingerprint else {
        bail!("--truth needs a whole sweep without faults (no --limit, odd --stride); this one has no fingerprint");
    };
    let recorded = format!("{recorded:016x}");
    if *ours == recorded {
        eprintln!("fingerprint {ours} matches {} for {instr}: the target returned the recorded bits on every input", path.display());
        Ok(())
    } else {
        bail!("fingerprint {ours} differs from {recorded} recorded in {} for {instr}: the target's bits differ on some input", path.display())
    }
}

/// The report as the server takes it (`POST /api/v1/sweeps`).
pub fn server_report(r: &Report, instr: &Instr, info: &crate::oracles::EngineInfo) -> api::sweeps::SweepReport {
    api::sweeps::SweepReport {
        kind: api::sweeps::SweepKind::Sweep,
        name: r.instr.clone(),
        target: info.name.clone(),
        device: info.device.clone(),
        gpu_name: info.sm.map(|_| info.device.clone()),
        driver_version: info.driver.clone(),
        interpreter_commit: crate::server::interpreter_commit(),
        flags: String::new(),
        inputs: u64::try_from(r.inputs).unwrap_or(u64::MAX),
        exhaustive: r.exhaustive,
        mismatches: r.mismatches,
        max_ulps: r.max_ulps,
        histogram: post::buckets(&r.histogram),
        bound_text: r.bounds.clone(),
        bound_ulps: bound_ulps(instr),
        at: chrono::Utc::now(),
    }
}

/// The documented bound in ulps: 0 for the correctly rounded forms, the largest ulp row of an
/// approximate form, `None` where its bounds are absolute, relative or undocumented.
pub fn bound_ulps(instr: &Instr) -> Option<u64> {
    use ptx::approx::bounds::BoundKind;
    match ptx::approx::Form::of(instr) {
        Some(f) => ptx::approx::bounds::rows_for(f.func, f.scalar)
            .iter()
            .filter_map(|b| match b.kind {
                BoundKind::Ulps(n) => Some(n as u64),
                _ => None,
            })
            .max(),
        None if instr.is_approximate() => None,
        None => Some(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracles::diff_interp::InterpEngine;

    fn instr(s: &str) -> Instr {
        Instr::parse_default(s).unwrap()
    }

    /// The interpreter on every pair of f16 (and bf16) operands reproduces, bit for bit, the
    /// fingerprint an H100 recorded (../shared/hw/h100-sm90/sweeps.jsonl): 2^32 results each,
    /// 4 to 11 minutes on 2 cores, so not in CI: `cargo test --release -p worker --lib --
    /// --ignored interp_sweeps`.
    #[test]
    #[ignore = "2 x 2^32 results: 4 to 11 minutes on 2 cores"]
    fn interp_sweeps_of_the_16_bit_pairs_reproduce_the_h100_fingerprints() {
        let truth = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/hw/h100-sm90/sweeps.jsonl");
        for form in ["add.rn.f16", "mul.rn.bf16"] {
            let i = instr(form);
            let plan = Plan { start: 0, stride: 1, count: 1 << 32 };
            let r = sweep(&mut InterpEngine::new(), &i, plan, 1 << 22, 4, &AtomicBool::new(false)).unwrap();
            let recorded = fingerprint::recorded_for(&truth, &i).unwrap().unwrap();
            assert_eq!(r.fingerprint, Some(format!("{recorded:016x}")), "{form}");
            assert_eq!(r.mismatches, 0, "{form}");
        }
    }

    #[test]
    fn a_partial_sweep_has_no_fingerprint() {
        let i = instr("add.rn.f16");
        let plan = Plan { start: 0, stride: 1, count: 1 << 16 };
        let r = sweep(&mut InterpEngine::new(), &i, plan, 1 << 16, 4, &AtomicBool::new(false)).unwrap();
        assert_eq!(r.fingerprint, None);
        let full = sweep(&mut InterpEngine::new(), &instr("neg.f16"), Plan { start: 0, stride: 1, count: 1 << 16 }, 1 << 12, 4, &AtomicBool::new(false)).unwrap();
        // The same sum from `interp::eval` one input at a time (the sweep ran the batch kernel).
        let neg = instr("neg.f16");
        let want = (0..1u64 << 16).fold(0u64, |a, u| a.wrapping_add(fingerprint::term(u, interp::eval(&neg, &[u]).unwrap().primary_bits(), 16)));
        assert_eq!(full.fingerprint, Some(format!("{want:016x}")));
    }

    #[test]
    fn under_sm_90_the_spec_primary_of_abs_f64_on_signalling_nans_is_a_mismatch() {
        // The interp engine answers abs.f64 of a signalling NaN with the sign cleared; the H100
        // keeps the sign and quiets it (../shared/hw/h100-sm90/README.md).
        let plan = Plan { start: 0xfff0_0000_0000_0001, stride: 1, count: 16 };
        let run = |p: &Profile| sweep_judged(&mut InterpEngine::new(), &instr("abs.f64"), plan, 16, 4, &AtomicBool::new(false), p).unwrap();
        let spec = run(&Profile::Spec);
        assert_eq!((spec.mismatches, spec.judge.as_str()), (0, "spec"));
        let hw = run(&Profile::named("sm_90").unwrap());
        assert_eq!((hw.mismatches, hw.judge.as_str()), (16, "sm_90"));
        assert!(hw.text().contains("results the sm_90 profile does not give): 16"), "{}", hw.text());
        assert_eq!(hw.examples[0].reference, "0xfff8000000000001", "the example shows the H100's bits");
    }

    #[test]
    fn input_numbers_map_to_operands_lane_by_lane() {
        assert_eq!(operands(&instr("add.rn.f16"), 0x1234_5678), [0x5678, 0x1234, 0]);
        assert_eq!(operands(&instr("neg.f16x2"), 0x3c00), [0x3c00_3c00, 0, 0]);
        assert_eq!(operands(&instr("rcp.approx.f32"), 0x3f80_0000), [0x3f80_0000, 0, 0]);
        assert_eq!(operands(&instr("sqrt.rn.f64"), u64::MAX), [u64::MAX, 0, 0]);
        assert_eq!(space_bits(&instr("add.rn.bf16")).unwrap(), 32);
        assert_eq!(space_bits(&instr("fma.rn.f16")).unwrap(), 48);
        assert!(space_bits(&instr("add.rn.f64")).unwrap_err().to_string().contains("campaign"));
    }

    #[test]
    fn ulp_distance_counts_both_zeros_as_one_value() {
        let s = Scalar::F32;
        assert_eq!(ulps(s, 0x3f80_0000, 0x3f80_0002), Some(2));
        assert_eq!(ulps(s, 0x8000_0000, 0), Some(0));
        assert_eq!(ulps(s, 0x8000_0001, 1), Some(2));
        assert_eq!(ulps(s, 0x7fc0_0000, 0x7fff_ffff), Some(0));
        assert_eq!(ulps(s, 0x7fc0_0000, 0), None);
    }

    #[test]
    fn buckets_are_exact_below_four_then_powers_of_two() {
        assert_eq!([0, 1, 2, 3, 4, 7, 8].map(bucket), [0, 1, 2, 3, 4, 4, 5]);
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
        assert_eq!(bucket_label(4), "4-7");
        assert_eq!(bucket_label(5), "8-15");
    }

    #[test]
    fn all_f16_inputs_of_the_reference_against_itself_have_no_error() {
        let mut e = InterpEngine::new();
        let i = instr("ex2.approx.f16");
        let plan = Plan { start: 0, stride: 1, count: 1 << 16 };
        let r = sweep(&mut e, &i, plan, 1 << 14, 5, &AtomicBool::new(false)).unwrap();
        assert!(r.exhaustive && !r.interrupted);
        assert_eq!(r.inputs, 1 << 16);
        assert_eq!(r.mismatches, 0);
        assert_eq!(r.histogram, vec![1 << 16], "{}", r.text());
        assert!(r.bounds.iter().any(|b| b.contains("9.7.4")), "{:?}", r.bounds);
    }

    #[test]
    fn sampled_sweep_walks_the_stride_and_stops_at_the_limit() {
        let mut e = InterpEngine::new();
        let i = instr("rcp.approx.f32");
        let plan = Plan { start: 5, stride: 0x9e37_79b1, count: 50_000 };
        let r = sweep(&mut e, &i, plan, 8192, 5, &AtomicBool::new(false)).unwrap();
        assert_eq!(r.inputs, 50_000);
        assert!(!r.exhaustive);
        assert_eq!(r.mismatches, 0);
        assert!(r.text().contains("documented bound: rcp.approx{.ftz}.f32"), "{}", r.text());
    }

    #[test]
    fn stop_flag_interrupts() {
        let mut e = InterpEngine::new();
        let r = sweep(&mut e, &instr("neg.f32"), Plan { start: 0, stride: 1, count: 1 << 32 }, 1024, 5, &AtomicBool::new(true))
            .unwrap();
        assert!(r.interrupted && r.inputs == 0);
    }
}
