//! A sweep on the device's sweep kernel (`ptx::vm::sweep`, issue 12 point 4): the GPU makes
//! every input, runs it and sums the fingerprint; the CPU judges only the pairs that come back:
//! all of them for most forms, or, where a pre-filter of proven margin exists
//! (`ptx::approx::prefilter`: rcp, sqrt, rsqrt `.approx.f32`, and the IEEE-rounded 16-bit
//! add/sub/mul forms without `.sat`, under the spec's judge), only
//! those the pre-filter keeps plus one passed input in 1024 (the audit).
//!
//! The CPU checks the GPU's filtering as it goes: every kept pair that the CPU's own
//! pre-filter would have passed, and is not an audited one, is a *disagreement* (the GPU's
//! decision differs from its definition), and every audited pass that the judge rejects is an
//! *escape* (the pre-filter let an error through). Either is reported loudly and makes the
//! sweep's exit status 1 (on an H200, 2026-11-29: none, for rcp.approx.f32, add.rn.f16 and
//! mul.rn.bf16).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{bail, Result};
use ptx::approx::prefilter::{audited as audited_input, Prefilter, Verdict};
use ptx::interp::Kernel;
use ptx::isa::Instr;
use ptx::profile::Profile;
use serde::Serialize;

use super::{judge, space_mask, Plan, Ran, Tally};
use crate::oracles::{Engine, EngineFault};

/// Inputs per launch: 2^24 pairs (128 MiB of device memory for the dense kernel's output)
/// keep a launch around 10 ms on an H100 while the CPU judges the previous one's pairs.
pub const LAUNCH: u64 = 1 << 24;

/// What the sweep kernel did (in the report's JSON as `gpu_kernel`).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct GpuKernel {
    /// `dense` (every pair judged on the CPU) or `filtered` (the pre-filter ran on the GPU).
    pub judging: &'static str,
    /// Pairs the CPU judged.
    pub judged: u64,
    /// Inputs the pre-filter passed on the GPU (certainly allowed) that the CPU did not see.
    pub passed: u64,
    /// Passed inputs the audit sent to the CPU anyway, and those the judge rejected (must be 0).
    pub audited: u64,
    pub escapes: u64,
    /// Pairs the GPU decided otherwise than the CPU's pre-filter (must be 0).
    pub disagreements: u64,
}

impl GpuKernel {
    /// The report's lines about it.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "  GPU sweep kernel ({}): {} input(s) judged on the CPU, {} passed on the GPU by the pre-filter",
            self.judging, self.judged, self.passed
        );
        if self.judging == "filtered" {
            let _ = writeln!(
                s,
                "  pre-filter audit: {} passed input(s) judged anyway, {} rejected; {} decision(s) differ from the CPU's pre-filter",
                self.audited, self.escapes, self.disagreements
            );
        }
        if self.escapes + self.disagreements > 0 {
            let _ = writeln!(
                s,
                "  THE GPU PRE-FILTER IS WRONG: its PTX (ptx::approx::prefilter_ptx) differs from its definition; \
                 rerun with --no-gpu-kernel and report this"
            );
        }
        s
    }

    /// Whether the pre-filter misbehaved.
    pub fn failed(&self) -> bool {
        self.escapes + self.disagreements > 0
    }
}

/// Run `plan` on `engine`'s sweep kernel and judge what comes back.
pub(super) fn run(
    engine: &mut dyn Engine,
    instr: &Instr,
    kernel: &Kernel,
    plan: Plan,
    keep: usize,
    stop: &AtomicBool,
    profile: &Profile,
) -> Result<Ran> {
    let mask = space_mask(instr)?;
    // Under a profile that claims the form, every result is judged against its one answer:
    // the pre-filter's interval is the spec's, not the profile's.
    let prefilter = if profile.claims(instr) { None } else { Prefilter::of(instr) };
    let mut g = GpuKernel { judging: if prefilter.is_some() { "filtered" } else { "dense" }, ..GpuKernel::default() };
    let (mut tally, mut fingerprint) = (Tally::new(), 0u64);
    let (mut done, mut faults, mut last_fault) = (0u128, 0u64, None);
    let mut next = plan.start & mask;
    while done < plan.count && !stop.load(Ordering::Relaxed) {
        let n = (plan.count - done).min(LAUNCH as u128) as u64;
        match engine.sweep_chunk(instr, prefilter.as_ref(), next, plan.stride, n) {
            Ok(chunk) => {
                fingerprint = fingerprint.wrapping_add(chunk.fingerprint);
                let split = |mut pairs: Vec<u64>| -> (Vec<u64>, Vec<u64>) {
                    // Appended in no particular order: input order makes examples reproducible.
                    pairs.sort_unstable();
                    pairs.iter().map(|&p| (p >> 32, p & 0xffff_ffff)).unzip()
                };
                let (kept, audited) = (chunk.pairs.len(), chunk.audited.len());
                let (mut inputs, mut got) = split(chunk.pairs);
                if let Some(pf) = &prefilter {
                    let (ai, ag) = split(chunk.audited);
                    check_filter(instr, pf, profile, (&inputs, &got), (&ai, &ag), &mut g);
                    g.passed += n - (kept + audited) as u64;
                    g.audited += audited as u64;
                    inputs.extend(ai);
                    got.extend(ag);
                }
                tally = tally.merge(judge(instr, kernel, &inputs, &got, keep, profile), keep);
                g.judged += inputs.len() as u64;
            }
            // The module itself cannot be built or loaded: no later launch does better.
            Err(f @ (EngineFault::Unsupported { .. } | EngineFault::Jit { .. })) if done == 0 => {
                bail!("the GPU sweep kernel of {instr} failed ({f}); rerun with --no-gpu-kernel to sweep through the engine's job path")
            }
            Err(f) => {
                faults += 1;
                last_fault = Some(f.to_string());
            }
        }
        done += n as u128;
        next = next.wrapping_add(n.wrapping_mul(plan.stride)) & mask;
    }
    // The GPU summed every input's term; the CPU's sum covers only the pairs it saw.
    tally.fingerprint = fingerprint;
    Ok(Ran { tally, done, faults, last_fault, gpu: Some(g) })
}

/// Check the GPU's filtering of one launch against the CPU's pre-filter: every pair it kept
/// must be one [`Prefilter::judge`] keeps, every audited pair it passed one that `judge`
/// passes (else a disagreement) and that the judge accepts (else an escape).
fn check_filter(
    instr: &Instr,
    pf: &Prefilter,
    profile: &Profile,
    kept: (&[u64], &[u64]),
    audited: (&[u64], &[u64]),
    g: &mut GpuKernel,
) {
    for (&x, &h) in kept.0.iter().zip(kept.1) {
        if pf.judge(x as u32, h as u32) == Verdict::Pass {
            g.disagreements += 1;
        }
    }
    for (&x, &h) in audited.0.iter().zip(audited.1) {
        if pf.judge(x as u32, h as u32) != Verdict::Pass || !audited_input(x) {
            g.disagreements += 1;
        }
        if !super::allowed(instr, profile, x, h) {
            g.escapes += 1;
        }
    }
}

/// The sweep kernel against the engine's own job path, for `engines --check` on an engine
/// with a kernel: `ex2.approx.f16` over all 2^16 inputs (dense: same mismatches, same
/// fingerprint), `rcp.approx.f32` over a 2^20-input sample and `add.rn.f16x2` over 2^20 sampled
/// pairs (filtered, by the approximate and the rounded pre-filter: same mismatches, every input
/// judged or passed, no disagreement or escape). `(name, Err(why))` on failure.
pub fn self_check(engine: &mut dyn Engine) -> Vec<(String, Result<(), String>)> {
    let stop = AtomicBool::new(false);
    let cases = [
        ("sweep kernel (dense): ex2.approx.f16, all 2^16 inputs", "ex2.approx.f16", Plan { start: 0, stride: 1, count: 1 << 16 }),
        ("sweep kernel (filtered): rcp.approx.f32, 2^20 sampled inputs", "rcp.approx.f32", Plan { start: 0x3f00_0000, stride: 0x9e37_79b1, count: 1 << 20 }),
        ("sweep kernel (filtered, rounded): add.rn.f16x2, 2^20 sampled pairs", "add.rn.f16x2", Plan { start: 0, stride: 0x9e37_79b1, count: 1 << 20 }),
    ];
    cases
        .iter()
        .map(|&(name, form, plan)| {
            let run = |engine: &mut dyn Engine, kernel: bool| {
                let instr = Instr::parse_default(form).expect("a known form");
                super::sweep_with(engine, &instr, plan, 1 << 20, 3, &stop, &Profile::Spec, kernel).map_err(|e| format!("{e:#}"))
            };
            let verdict = run(engine, true).and_then(|k| {
                let j = run(engine, false)?;
                let g = k.gpu_kernel.clone().ok_or("the kernel did not run")?;
                if k.faults + j.faults > 0 {
                    Err(format!("faults: {:?} / {:?}", k.last_fault, j.last_fault))
                } else if g.failed() {
                    Err(format!("the GPU pre-filter disagrees with its definition: {g:?}"))
                } else if (k.mismatches, &k.fingerprint) != (j.mismatches, &j.fingerprint) {
                    Err(format!(
                        "kernel: {} mismatches, fingerprint {:?}; job path: {} mismatches, fingerprint {:?}",
                        k.mismatches, k.fingerprint, j.mismatches, j.fingerprint
                    ))
                } else if u128::from(g.judged + g.passed) != plan.count {
                    Err(format!("{} judged + {} passed != {} inputs", g.judged, g.passed, plan.count))
                } else {
                    Ok(())
                }
            });
            (name.to_string(), verdict)
        })
        .collect()
}

#[cfg(test)]
#[path = "gpu_tests.rs"]
mod tests;
