//! `ptxfuzz sweep INSTR`: every input of one instruction (all 2^32 for a unary f32 form,
//! 2^16 for a unary 16-bit form, all 2^32 pairs for a binary 16-bit form) on a target, with
//! the mismatches and the error distribution in ulps from the correctly rounded result,
//! beside the documented bound.
//!
//! Inputs are numbered: input `i` gives operand `k` the bits `(i >> (k * w)) & mask` (`w` the
//! lane width; packed forms get the same value in both lanes). `--start`, `--stride` and
//! `--limit` walk `start, start + stride, ...` modulo the space, so an odd stride visits
//! every input once per lap and a large odd stride samples the space evenly.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::interp::{self, Kernel, Operands};
use ptx::isa::Instr;
use ptx::profile::Profile;
use ptx::program::Program;
use ptx::Scalar;
use rayon::prelude::*;

use crate::oracles::{open_spec, Engine, EngineSpec, Job};
use crate::progress::Progress;

/// The largest `--batch`: a batch's inputs, operands and results are held at once (and, on
/// the GPU, in device memory), about 48 bytes an input: 2^24 is under 1 GiB. A larger count
/// once aborted allocating.
const MAX_BATCH: u64 = 1 << 24;
const MAX_BATCH_WHY: &str = "a batch's inputs, operands and results are held in memory at once (2^24 is under 1 GiB)";

/// Run one instruction on every input (or a regular sample of them) and measure its error.
#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:\n  ptxfuzz sweep rcp.approx.f32 --target cuda        (all 2^32 inputs)\n  \
ptxfuzz sweep ex2.approx.f16 --target cuda        (all 2^16)\n  \
ptxfuzz sweep add.rn.bf16 --target cuda           (all 2^32 pairs)\n  \
ptxfuzz sweep cvt.rn.bf16.f32 --target cuda       (a conversion: all 2^32 f32 inputs, judged by its allowed set)\n  \
ptxfuzz sweep rcp.approx.f32 --target interp --limit 1000000 --stride 0x9e3779b1   (a sample)\n  \
ptxfuzz sweep tanh.approx.f32 --target cuda --start 0x40000000 --limit 8388608 --dump .   (every output of [2, 4))\n\n\
Error: the distance in ulps between the target's result and the correctly rounded one (steps \
between adjacent values, both zeros one value; packed forms: the worse lane). Mismatches are \
results the PTX ISA does not allow (bound, special-case table, NaN rules), judged as campaigns \
judge them.\n\n\
Exit status 0: the sweep ran, whatever it found (mismatches are in the report; --json's \
\"mismatches\"), for an instruction and a cvt/setp/set/selp form alike. Exit status 1: an error, a --truth fingerprint that differs, a GPU pre-filter failure, or every batch ended in an engine \
fault (nothing was judged). Exit status 130: interrupted (Ctrl-C, SIGTERM): the report, printed, saved and posted as \
usual, covers the inputs swept before the signal.")]
pub struct SweepArgs {
    /// The instruction as PTX spells it (rcp.approx.f32, sqrt.rn.f16, add.rn.bf16, ...), or a
    /// cvt/setp/set/selp form with at most 32 bits of operands (cvt.rn.bf16.f32, setp.ltu.f16).
    pub instr: String,
    /// Engine: cuda, cuda:N, host, interp or exec:COMMAND. Default: the first GPU, else host.
    #[arg(long)]
    pub target: Option<String>,
    /// Number of inputs to run (default: one lap of --stride: the whole space for an odd
    /// stride). Decimal or 0x hex, at least 1.
    #[arg(long, value_parser = crate::cli_values::at_least_one::<u64>)]
    pub limit: Option<u64>,
    /// Step between inputs, modulo the space (odd: every input once per lap; an even stride
    /// reaches a part of the space; at least 1). Decimal or 0x hex.
    #[arg(long, default_value = "1", value_parser = crate::cli_values::at_least_one::<u64>)]
    pub stride: u64,
    /// First input number. Decimal or 0x hex.
    #[arg(long, default_value = "0", value_parser = parse_u64)]
    pub start: u64,
    /// Inputs per batch handed to the engine, 1 to 2^24 (default: the engine's preferred size,
    /// at least 64 K).
    #[arg(long, value_parser = crate::cli_values::count_in::<usize>(1, MAX_BATCH, MAX_BATCH_WHY))]
    pub batch: Option<usize>,
    /// Mismatching inputs printed (all are counted).
    #[arg(long, default_value_t = 10)]
    pub examples: usize,
    /// cuda: compile for sm_XX instead of the device's own (90 or sm_90; plain: a cvt form's
    /// kernel gets the suffix its table needs on that sm by itself).
    #[arg(long)]
    pub sm: Option<ptx::isa::Arch>,
    /// Seconds an engine may take for one batch.
    #[arg(long, default_value_t = 120, value_parser = crate::cli_values::at_least_one::<u64>)]
    pub timeout: u64,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON report to this file; a folder gets INSTR.sweep.json in it.
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
    /// cuda: run every input through the engine's job path (inputs uploaded, every output
    /// judged on the CPU: the path measured on the H100) instead of the GPU sweep kernel, which
    /// makes, runs and fingerprints inputs on the GPU and, for rcp/sqrt/rsqrt.approx.f32,
    /// pre-filters what the CPU judges (docs/campaigns.md; on an H200 both pre-filters kept
    /// the H100's fingerprints: docs/hardware/nvidia-h200-2026-11-29/).
    #[arg(long)]
    pub no_gpu_kernel: bool,
    /// Record every output of the inputs from --start (--limit of them, stride 1) instead of
    /// judging them, into PATH in the dense format of the H100 recordings (xz, a JSON header,
    /// deltas: ../shared/hw/h100-sm90/README.md); a directory gets the recordings' file name,
    /// INSTR.START.COUNT.dxz. For the binades a bit-exact model still needs (docs/approx.md).
    /// It records and judges nothing, so --judge and --examples do not go with it.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["truth", "save", "json", "no_gpu_kernel", "judge", "examples"])]
    pub dump: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub post: post::PostArgs,
}

pub mod dump;
pub mod fingerprint;
pub mod forms;
pub mod gpu;
pub mod post;
mod report;
pub mod sweep_checks;

pub use gpu::GpuKernel;
pub use report::{bound_ulps, bucket, bucket_label, documented_bounds, server_report, Example, Report, BUCKETS};

fn parse_u64(s: &str) -> Result<u64, String> {
    crate::cli_values::number(s).map_err(|e| format!("'{s}': {e}"))
}

/// Which inputs to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub start: u64,
    pub stride: u64,
    pub count: u128,
}

impl Plan {
    /// The plan of `--start`, `--stride` and `--limit` over a space of `2^bits` inputs. Without
    /// a limit it runs one lap: every input the stride reaches, once. That is the whole space
    /// for an odd stride; a stride of `2^k * odd` reaches `2^(bits-k)` inputs and would repeat
    /// them after that (before, it ran `2^bits` inputs regardless: `--stride 0x10000000` on a
    /// 2^64 space asked for 2^64 runs of 2^36 inputs). The note says when the plan repeats
    /// inputs or visits only part of the space.
    pub fn new(start: u64, stride: u64, limit: Option<u64>, bits: u32) -> (Plan, Option<String>) {
        let lap = Plan::lap(stride, bits);
        let plan = Plan { start, stride, count: limit.map_or(lap, u128::from) };
        let note = match limit {
            Some(l) if u128::from(l) > lap => Some(format!(
                "note: --stride {stride:#x} ({stride}) reaches {lap} distinct input(s) of 2^{bits}; --limit {l} runs some of them again"
            )),
            None if lap < 1u128 << bits => Some(format!(
                "note: --stride {stride:#x} ({stride}) is even: it reaches {lap} of the 2^{bits} inputs, and the sweep runs those once (an odd stride reaches all)"
            )),
            _ => None,
        };
        (plan, note)
    }

    /// How many distinct inputs `start + i * stride` reaches modulo `2^bits`: `2^bits` over the
    /// largest power of two dividing the stride there (1 for a stride of 0 modulo the space).
    pub fn lap(stride: u64, bits: u32) -> u128 {
        let space = 1u128 << bits;
        let step = u128::from(stride) & (space - 1);
        match step {
            0 => 1,
            s => space >> s.trailing_zeros(),
        }
    }
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
                    if !allowed(instr, profile, i, g) {
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

/// Whether the judge (`profile`'s narrowing of the spec's set) allows output `got` for input
/// number `i`.
fn allowed(instr: &Instr, profile: &Profile, i: u64, got: u64) -> bool {
    let ops = &operands(instr, i)[..instr.inputs as usize];
    interp::eval(instr, ops).is_ok_and(|e| crate::compare::narrow(profile, instr, ops, e).accepts(got))
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
    sweep_with(engine, instr, plan, batch, keep, stop, profile, true)
}

/// How a sweep ran: its tallies however they were made.
struct Ran {
    tally: Tally,
    done: u128,
    faults: u64,
    last_fault: Option<String>,
    gpu: Option<GpuKernel>,
}

/// Every input through the engine's job path, judged on the CPU.
#[allow(clippy::too_many_arguments)]
fn run_jobs(
    engine: &mut dyn Engine,
    instr: &Instr,
    p: &Program,
    kernel: &Kernel,
    plan: Plan,
    batch: usize,
    keep: usize,
    stop: &AtomicBool,
    profile: &Profile,
) -> Result<Ran> {
    let space_mask = space_mask(instr)?;
    let mut tally = Tally::new();
    let (mut done, mut faults, mut last_fault) = (0u128, 0u64, None);
    let mut next = plan.start & space_mask;
    let mut inputs = Vec::with_capacity(batch);
    let mut cases = Vec::with_capacity(batch * instr.inputs as usize);
    let mut progress = Progress::new(format!("sweep {instr}"), plan.count);
    while done < plan.count && !stop.load(Ordering::Relaxed) {
        progress.update_with(done, || format!("{} mismatch(es)", tally.mismatches));
        let n = (plan.count - done).min(batch as u128) as usize;
        inputs.clear();
        cases.clear();
        for _ in 0..n {
            inputs.push(next);
            cases.extend_from_slice(&operands(instr, next)[..instr.inputs as usize]);
            next = next.wrapping_add(plan.stride) & space_mask;
        }
        match engine.run(&[Job::new(p, &cases, false)]).pop().context("the engine returned no result")? {
            Ok(out) => tally = tally.merge(judge(instr, kernel, &inputs, &out.values, keep, profile), keep),
            // Every later batch would fault the same way: say so now, not after 2^32 inputs.
            Err(f) if f.is_fatal() => bail!("{}: {f}", engine.info().name),
            Err(f) => {
                faults += 1;
                last_fault = Some(f.to_string());
            }
        }
        done += n as u128;
    }
    progress.finish();
    Ok(Ran { tally, done, faults, last_fault, gpu: None })
}

/// `engine` cannot run `instr`: [`sweep_checks::not_run_on`] with what the instruction needs
/// (`defaulted`: no --target chose the engine).
fn not_run(engine: &dyn Engine, instr: &Instr, defaulted: bool) -> anyhow::Error {
    sweep_checks::not_run_on(&engine.info().name, instr, ptx::isa::requirements::requirement_of(instr), defaulted)
}

/// The mask of `instr`'s input numbers.
fn space_mask(instr: &Instr) -> Result<u64> {
    let bits = space_bits(instr)?;
    Ok(if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 })
}

/// As [`sweep_judged`]; `gpu_kernel: false` keeps a GPU engine on its job path (every input
/// uploaded, every output judged on the CPU) instead of its sweep kernel (`sweep::gpu`).
#[allow(clippy::too_many_arguments)]
pub fn sweep_with(
    engine: &mut dyn Engine,
    instr: &Instr,
    plan: Plan,
    batch: usize,
    keep: usize,
    stop: &AtomicBool,
    profile: &Profile,
    gpu_kernel: bool,
) -> Result<Report> {
    let bits = space_bits(instr)?;
    let p = program_of(instr)?;
    if !engine.supports(&p) {
        return Err(not_run(engine, instr, false));
    }
    let kernel = Kernel::new(instr)?;
    let t0 = Instant::now();
    let ran = match gpu_kernel && engine.has_sweep_kernel() && ptx::vm::sweep::unsupported(instr).is_none() {
        true => gpu::run(engine, instr, &kernel, plan, keep, stop, profile)?,
        false => run_jobs(engine, instr, &p, &kernel, plan, batch, keep, stop, profile)?,
    };
    let Ran { tally, done, faults, last_fault, gpu } = ran;
    let example = |i: u64, engine_bits: Option<u64>| report::example(instr, profile, i, engine_bits);
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
        gpu_kernel: gpu,
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

pub fn run(args: SweepArgs) -> Result<()> {
    // A cvt/setp/set/selp/mixed form has its own sweep (`forms`): a float-to-float `cvt` too,
    // although programs hold it as an `Instr`, since its operands are not of its result type.
    match ptx::form::Form::parse(&args.instr) {
        Ok(form) => return forms::run(&args, form),
        Err(ptx::form::FormError::Unknown(_)) => {}
        Err(f) => return Err(f.into()),
    }
    let instr = Instr::parse_default(&args.instr)?;
    let bits = space_bits(&instr)?;
    // What can be known before the sweep is checked before it: a 2^32 sweep on the CPU takes
    // minutes, and its report should not be lost to a typo in a path.
    sweep_checks::check_start(args.start, bits, &instr.to_string())?;
    let opts = sweep_checks::engine_options(args.timeout, args.sm)?;
    let client = args.post.client()?;
    if args.dump.is_some() && client.is_some() {
        bail!("--dump writes a file and posts nothing: drop --server");
    }
    let spec: EngineSpec = match &args.target {
        Some(t) => t.parse()?,
        None => crate::oracles::default_target(),
    };
    let (plan, note) = Plan::new(args.start, args.stride, args.limit, bits);
    let truth = match &args.truth {
        Some(path) => Some(truth_before(path, &instr, plan, bits)?),
        None => None,
    };
    let save = args.save.as_deref().map(|p| sweep_checks::out_path("--save", p, &format!("{instr}.sweep.json"))).transpose()?;
    // A dump holds every input of the plan or is not written (`dump::record`), so its name
    // is known now.
    let dump_name = dump::file_name(&instr.to_string(), plan.start, u64::try_from(plan.count).unwrap_or(u64::MAX));
    let dump = args.dump.as_deref().map(|p| sweep_checks::out_path("--dump", p, &dump_name)).transpose()?;
    let profile = Profile::named(&args.judge)?;
    let mut engine = open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?;
    if let (Some(note), None) = (note, &dump) {
        eprintln!("{note}");
    }
    // Before the "sweeping" line: a target that cannot run the instruction ran nothing.
    if !engine.supports(&program_of(&instr)?) {
        return Err(not_run(&*engine, &instr, args.target.is_none()));
    }
    let batch = args.batch.unwrap_or_else(|| engine.preferred_cases().max(1 << 16)).max(1);
    let stop = crate::interrupt::stop_flag()?;
    if let Some(path) = &dump {
        eprintln!("recording {instr}: {} input(s) from {:#x} on {}", plan.count, plan.start, engine.info());
        let outputs = dump::record(&mut *engine, &instr, plan, batch, &stop)?;
        let bytes = dump::encode(&instr.to_string(), plan.start, instr.ty.bits(), &outputs)?;
        crate::repro::replace_synced(path, &bytes)?;
        println!("wrote {} outputs of {instr} (inputs {:#x} to {:#x}) to {}", outputs.len(), plan.start, plan.start + outputs.len() as u64 - 1, path.display());
        return Ok(());
    }
    if !args.json {
        eprintln!("sweeping {instr}: {} input(s) on {}", crate::progress::count(plan.count), engine.info());
    }
    let report = sweep_with(&mut *engine, &instr, plan, batch, args.examples, &stop, &profile, !args.no_gpu_kernel)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", report.text());
    }
    if let Some(path) = &save {
        let json = serde_json::to_string_pretty(&report)? + "\n";
        crate::repro::replace_synced(path, json.as_bytes())?;
    }
    if let Some(c) = client {
        post::post(&c, &server_report(&report, &instr, engine.info()))?;
    }
    // Interrupted: 130 (128 + SIGINT, as math-check and a second signal exit), whether or not
    // --truth was asked, so a script never reads part of a sweep as a pass.
    if report.interrupted {
        exit_interrupted(report.inputs, plan.count);
    }
    // Every batch faulted (an exec engine that does not start): nothing was tested, whatever
    // the zero mismatches above say (the GPU sweep kernel judges only what its pre-filter
    // keeps, so it is left out).
    let judged: u64 = report.histogram.iter().sum::<u64>() + report.nan_vs_number;
    if report.faults > 0 && judged == 0 && report.gpu_kernel.is_none() {
        bail!(
            "the target judged no input: all {} batch(es) ended in an engine fault (the last one is above); check \
             the engine with `ptxfuzz engines --check {}`",
            report.faults,
            spec.shell_word()
        );
    }
    if report.gpu_kernel.as_ref().is_some_and(GpuKernel::failed) {
        bail!("the GPU pre-filter disagreed with its definition (see above): this sweep's pass counts are not to be trusted; rerun with --no-gpu-kernel");
    }
    match (&args.truth, truth) {
        (Some(path), Some(recorded)) => compare_truth(&report, &instr, path, recorded),
        _ => Ok(()),
    }
}

/// After an interrupted sweep's report is out (an instruction's or a spelled form's): say
/// what it covers and exit 130 ([`crate::interrupt::exit_interrupted`]).
fn exit_interrupted(inputs: impl std::fmt::Display, planned: u128) -> ! {
    crate::interrupt::exit_interrupted(&format!(
        "sweep: interrupted after {inputs} of {planned} input(s): the report covers those only; run again without interrupting for all"
    ))
}

/// `--truth`, before the sweep: the fingerprint recorded for the form in `path`, and a plan
/// that can give one to compare it with (every input once).
fn truth_before(path: &std::path::Path, instr: &Instr, plan: Plan, bits: u32) -> Result<u64> {
    let Some(recorded) = fingerprint::recorded_for(path, instr)? else {
        // The forms it does record, in `sweep`'s spelling (the file's `op` names are not).
        let forms: Vec<String> = fingerprint::read_recorded(path)?.into_iter().map(|r| r.instr).collect();
        bail!(
            "{} records no sweep of {instr}; it records {} form(s): {}; sweep one of those with --truth, or {instr} without it",
            path.display(),
            forms.len(),
            forms.join(", ")
        );
    };
    if !fingerprint::defined_for(instr, bits) {
        bail!("--truth: {instr} has no output fingerprint (only forms of 32 input bits or fewer do)");
    }
    if plan.count != 1u128 << bits || plan.stride % 2 == 0 {
        bail!("--truth needs a whole sweep (no --limit, an odd --stride): only every input once gives a fingerprint");
    }
    Ok(recorded)
}

/// `--truth`: the sweep's fingerprint against the one recorded for the form.
fn compare_truth(report: &Report, instr: &Instr, path: &std::path::Path, recorded: u64) -> Result<()> {
    let Some(ours) = &report.fingerprint else {
        bail!("--truth needs a whole sweep without faults: this one was interrupted or lost a batch to a fault, so it has no fingerprint");
    };
    let recorded = format!("{recorded:016x}");
    if *ours == recorded {
        eprintln!("fingerprint {ours} matches {} for {instr}: the target returned the recorded bits on every input", path.display());
        Ok(())
    } else {
        bail!("fingerprint {ours} differs from {recorded} recorded in {} for {instr}: the target's bits differ on some input", path.display())
    }
}

#[cfg(test)]
#[path = "sweep/tests.rs"]
mod tests;
