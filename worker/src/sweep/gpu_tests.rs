//! The GPU sweep path on the CPU: an engine that runs `ptx::vm::sweep`'s documented semantics
//! (input numbering, fingerprint sum, dense or pre-filtered pairs appended in any order) over
//! the interpreter gives the same report as the job path, finds wrong results the pre-filter
//! keeps, and a pre-filter that passes wrong results is reported.

use std::sync::atomic::AtomicBool;

use ptx::approx::prefilter::{audited, Prefilter, Verdict};
use ptx::interp::Operands;
use ptx::isa::Instr;
use ptx::profile::Profile;
use ptx::program::Program;

use super::super::{fingerprint, operands, sweep_with, Plan};
use crate::oracles::diff_interp::InterpEngine;
use crate::oracles::{Engine, EngineFault, EngineInfo, Job, Output, SweepChunk};

/// How the emulated GPU filters.
#[derive(Clone, Copy, PartialEq)]
enum Filter {
    /// As `ptx::vm::sweep` documents it.
    AsDocumented,
    /// A broken pre-filter: everything passes but the audited inputs.
    PassesAll,
}

/// The interpreter with a sweep kernel emulated on the CPU; `skew` ulps added to the results
/// of inputs divisible by 7 (a wrong target).
struct EmulatedGpu {
    interp: InterpEngine,
    skew: u64,
    filter: Filter,
    launches: usize,
}

impl EmulatedGpu {
    fn new(skew: u64, filter: Filter) -> EmulatedGpu {
        EmulatedGpu { interp: InterpEngine::new(), skew, filter, launches: 0 }
    }

    fn result(&self, form: &Instr, u: u64) -> u64 {
        let ops = operands(form, u);
        let mut out = [0u64];
        ptx::interp::Kernel::new(form).unwrap().run_columns(Operands::new(&ops[0..1], &ops[1..2], &ops[2..3]), &mut out);
        if u % 7 == 0 { out[0].wrapping_add(self.skew) & 0xffff_ffff } else { out[0] }
    }
}

impl Engine for EmulatedGpu {
    fn info(&self) -> &EngineInfo {
        self.interp.info()
    }
    fn supports(&self, p: &Program) -> bool {
        self.interp.supports(p)
    }
    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        let mut r = self.interp.run(jobs);
        for (job, out) in jobs.iter().zip(&mut r) {
            let Ok(out) = out else { continue };
            // A sweep's job is one instruction: its input number is the operands' low lanes
            // side by side (`operands`' numbering); skew as `sweep_chunk` does.
            let ty = job.program.body()[0].instr.ty;
            let w = ty.scalar().bits();
            for i in 0..job.n_cases() {
                let u = job.case(i).iter().enumerate().fold(0u64, |u, (k, &v)| u | (v & ty.scalar().mask()).checked_shl(k as u32 * w).unwrap_or(0));
                if u % 7 == 0 {
                    out.values[i * out.per_case] = out.values[i * out.per_case].wrapping_add(self.skew) & 0xffff_ffff;
                }
            }
        }
        r
    }
    fn has_sweep_kernel(&self) -> bool {
        true
    }
    fn sweep_chunk(&mut self, form: &Instr, pf: Option<&Prefilter>, start: u64, stride: u64, count: u64) -> Result<SweepChunk, EngineFault> {
        self.launches += 1;
        let mask = (1u64 << (form.ty.scalar().bits() * form.inputs as u32)) - 1;
        let mut c = SweepChunk::default();
        for k in 0..count {
            let u = start.wrapping_add(k.wrapping_mul(stride)) & mask;
            let out = self.result(form, u);
            c.fingerprint = c.fingerprint.wrapping_add(fingerprint::term(u, out, form.ty.bits()));
            let keep = match (pf, self.filter) {
                (None, _) => true,
                (Some(pf), Filter::AsDocumented) => pf.judge(u as u32, out as u32) == Verdict::Keep,
                (Some(_), Filter::PassesAll) => false,
            };
            if keep {
                c.pairs.push(u << 32 | out);
            } else if audited(u) {
                c.audited.push(u << 32 | out);
            }
        }
        // Appended by atomics on a GPU: any order.
        c.pairs.reverse();
        c.audited.reverse();
        Ok(c)
    }
}

fn sweep(e: &mut dyn Engine, form: &str, plan: Plan, gpu_kernel: bool) -> super::super::Report {
    let instr = Instr::parse_default(form).unwrap();
    sweep_with(e, &instr, plan, 1 << 16, 5, &AtomicBool::new(false), &Profile::Spec, gpu_kernel).unwrap()
}

/// A regular sample of the f32 inputs in 4 launches (a stride coprime with 2^32).
fn plan() -> Plan {
    Plan { start: 0x3f00_0000, stride: 0x9e37_79b1, count: 3 * super::LAUNCH as u128 / 64 + 5 }
}

#[test]
fn the_kernel_path_reports_what_the_job_path_reports_on_a_dense_form() {
    let plan = Plan { start: 3, stride: 1, count: 1 << 16 };
    let mut e = EmulatedGpu::new(0, Filter::AsDocumented);
    let on_gpu = sweep(&mut e, "ex2.approx.f16", plan, true);
    let on_jobs = sweep(&mut e, "ex2.approx.f16", plan, false);
    assert_eq!(e.launches, 1);
    let g = on_gpu.gpu_kernel.as_ref().unwrap();
    assert_eq!((g.judging, g.judged, g.passed), ("dense", 1 << 16, 0));
    assert!(on_jobs.gpu_kernel.is_none());
    assert_eq!(on_gpu.fingerprint, on_jobs.fingerprint);
    assert!(on_gpu.fingerprint.is_some(), "a whole 16-bit space has a fingerprint");
    assert_eq!((on_gpu.mismatches, &on_gpu.histogram, on_gpu.max_ulps), (on_jobs.mismatches, &on_jobs.histogram, on_jobs.max_ulps));
}

#[test]
fn the_prefilter_sends_few_pairs_back_and_the_fingerprint_still_covers_every_input() {
    let mut e = EmulatedGpu::new(0, Filter::AsDocumented);
    let plan = Plan { count: super::LAUNCH as u128 + 1000, ..plan() };
    let on_gpu = sweep(&mut e, "rcp.approx.f32", plan, true);
    let on_jobs = sweep(&mut e, "rcp.approx.f32", plan, false);
    assert_eq!(e.launches, 2, "2^24 inputs per launch");
    let g = on_gpu.gpu_kernel.clone().unwrap();
    assert_eq!(g.judged + g.passed, plan.count as u64);
    // Every input of a random sample is normal with a normal reciprocal but for ~1%.
    assert!(g.judged * 20 < plan.count as u64, "{g:?}");
    assert!(g.audited * 1100 > g.passed && g.audited * 950 < g.passed, "one pass in 1024 audited: {g:?}");
    assert_eq!((g.escapes, g.disagreements, on_gpu.mismatches, on_jobs.mismatches), (0, 0, 0, 0));
    assert!(!g.failed());
    // No fingerprint: a sample is not the whole space; the sums still agree.
    assert_eq!(on_gpu.fingerprint, None);
    assert!(on_gpu.text().contains("passed on the GPU by the pre-filter"));
}

#[test]
fn results_outside_the_bound_are_kept_and_found_on_the_kernel_path() {
    // 2 ulps off on one input in 7: rcp.approx.f32 allows 1.
    let mut e = EmulatedGpu::new(2, Filter::AsDocumented);
    let on_gpu = sweep(&mut e, "rcp.approx.f32", plan(), true);
    let on_jobs = sweep(&mut e, "rcp.approx.f32", plan(), false);
    assert!(on_jobs.mismatches > plan().count as u64 / 8, "{}", on_jobs.mismatches);
    assert_eq!(on_gpu.mismatches, on_jobs.mismatches);
    // Examples come in input order per launch (the job path's: visiting order), every one a
    // skewed input.
    assert_eq!(on_gpu.examples.len(), 5);
    assert!(on_gpu.examples.iter().all(|x| u64::from_str_radix(&x.operands[0][2..], 16).unwrap() % 7 == 0));
    assert!(!on_gpu.gpu_kernel.unwrap().failed());
}

#[test]
fn a_prefilter_that_passes_wrong_results_is_caught_by_the_audit() {
    let mut e = EmulatedGpu::new(2, Filter::PassesAll);
    let r = sweep(&mut e, "rsqrt.approx.f32", plan(), true);
    let g = r.gpu_kernel.clone().unwrap();
    assert!(g.escapes > 0 && g.failed(), "{g:?}");
    assert!(r.text().contains("THE GPU PRE-FILTER IS WRONG"), "{}", r.text());
    // And a GPU that keeps what its definition passes is a disagreement.
    let instr = Instr::parse_default("sqrt.approx.f32").unwrap();
    let pf = Prefilter::new(&ptx::approx::Form::of(&instr).unwrap()).unwrap();
    let e = EmulatedGpu::new(0, Filter::AsDocumented);
    let x = 0x4000_0001u64; // not audited, passed with its primary
    assert!(!audited(x));
    let h = e.result(&instr, x);
    let mut g = super::GpuKernel::default();
    super::check_filter(&instr, &pf, &Profile::Spec, (&[x], &[h]), (&[], &[]), &mut g);
    assert_eq!((g.disagreements, g.escapes), (1, 0));
}

#[test]
fn a_rounded_16_bit_form_sends_back_only_the_audit_when_every_result_is_right() {
    let mut e = EmulatedGpu::new(0, Filter::AsDocumented);
    for form in ["add.rn.f16", "mul.rn.bf16x2", "sub.bf16"] {
        let on_gpu = sweep(&mut e, form, plan(), true);
        let on_jobs = sweep(&mut e, form, plan(), false);
        let g = on_gpu.gpu_kernel.clone().unwrap();
        assert_eq!((g.judging, g.judged + g.passed), ("filtered", plan().count as u64), "{form}");
        // The correctly rounded result and any NaN for NaN operands pass: the CPU judges the
        // audit alone.
        assert_eq!(g.judged, g.audited, "{form}: {g:?}");
        assert_eq!((g.escapes, g.disagreements, on_gpu.mismatches, on_jobs.mismatches), (0, 0, 0, 0), "{form}");
    }
}

#[test]
fn a_rounded_16_bit_form_off_by_one_ulp_is_kept_and_found_on_the_kernel_path() {
    // One ulp off on every seventh input (a lane's bits + 1).
    let mut e = EmulatedGpu::new(1, Filter::AsDocumented);
    for form in ["add.rn.f16", "mul.rn.bf16"] {
        let on_gpu = sweep(&mut e, form, plan(), true);
        let on_jobs = sweep(&mut e, form, plan(), false);
        assert!(on_jobs.mismatches > plan().count as u64 / 8, "{form}: {}", on_jobs.mismatches);
        assert_eq!(on_gpu.mismatches, on_jobs.mismatches, "{form}");
        assert!(!on_gpu.gpu_kernel.unwrap().failed(), "{form}");
    }
}

#[test]
fn under_a_profile_that_claims_the_form_the_kernel_runs_dense() {
    // The sm_90 profile models add.rn.f16 bit for bit; no pre-filter form is claimed yet
    // (issue 15), so this checks the dense kernel under a profile and the fingerprint.
    let instr = Instr::parse_default("add.rn.f16").unwrap();
    let sm90 = Profile::named("sm_90").unwrap();
    let plan = Plan { start: 0, stride: 0x9e37_79b1, count: 40_000 };
    let r = sweep_with(&mut EmulatedGpu::new(0, Filter::AsDocumented), &instr, plan, 1 << 16, 5, &AtomicBool::new(false), &sm90, true).unwrap();
    assert_eq!((r.gpu_kernel.unwrap().judging, r.mismatches), ("dense", 0));
}

#[test]
fn the_engine_self_check_passes_a_faithful_kernel_and_fails_a_broken_filter() {
    let checks = super::self_check(&mut EmulatedGpu::new(0, Filter::AsDocumented));
    assert_eq!(checks.len(), 3);
    assert!(checks.iter().all(|(_, v)| v.is_ok()), "{checks:?}");
    // A target 2 ulps off on every seventh input whose GPU filter passes everything: the
    // audit catches the filter (the job path sees the mismatches the kernel path cannot).
    let checks = super::self_check(&mut EmulatedGpu::new(2, Filter::PassesAll));
    let (name, verdict) = &checks[1];
    assert!(name.contains("filtered") && verdict.as_ref().unwrap_err().contains("pre-filter"), "{checks:?}");
    // And the smoke check (`engines --check`) includes them.
    let report = crate::smoke::smoke(&mut EmulatedGpu::new(0, Filter::AsDocumented));
    assert!(report.passed.iter().any(|n| n.starts_with("sweep kernel (dense)")), "{report:?}");
    assert!(report.ok(), "{report:?}");
}
