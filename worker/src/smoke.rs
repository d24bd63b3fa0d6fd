//! A smoke check for any engine: programs with results known from the spec (and from IEEE
//! 754 arithmetic done by hand), run in one batch, in end-to-end and trace mode, and in each
//! execution mode the engine has (`Engine::exec_modes`: on a GPU the whole-program kernels
//! and the instruction VM; a check that fails only in `isa` mode names the VM). The tests run
//! it against every engine available without a GPU (interp, host, exec with `ptxfuzz
//! exec-reference`); `ptxfuzz engines --check ENGINE` runs it for users bringing their own.
//!
//! Each expected value is written out (not computed by the interpreter), and every result is
//! also judged by `compare::check`, so the check and the reference must agree.

mod forms;

use ptx::program::{Program, ValType};

use crate::oracles::{Engine, EngineFault, Exec, Job};
use crate::compare::{self, CompareOptions};

/// One known result: a program, one case, the expected result slots (`None`: any NaN).
struct Known {
    name: &'static str,
    program: &'static str,
    inputs: &'static [u64],
    trace: bool,
    expected: &'static [Option<u64>],
}

const fn k(
    name: &'static str,
    program: &'static str,
    inputs: &'static [u64],
    expected: &'static [Option<u64>],
) -> Known {
    Known { name, program, inputs, trace: false, expected }
}

const F1: u64 = 0x3f80_0000; // 1.0f
const TINY: u64 = 0x3380_0020; // 2^-24 + 2^-30: beyond half an ulp of 1.0f
const MIN_NORMAL: u64 = 0x0080_0000; // 2^-126
const HALF: u64 = 0x3f00_0000;
const MAX: u64 = 0x7f7f_ffff;
const TWO: u64 = 0x4000_0000;

const KNOWN: &[Known] = &[
    // 9.7.3.3 add: each rounding mode on 1 + (2^-24 + 2^-30).
    k("add.rn.f32 rounds up past the half ulp", "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[F1, TINY], &[Some(0x3f80_0001)]),
    k("add.rz.f32 truncates", "// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[F1, TINY], &[Some(F1)]),
    k("add.rm.f32 rounds down", "// inputs: %f0:f32, %f1:f32\nadd.rm.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[F1, TINY], &[Some(F1)]),
    k("add.rp.f32 rounds up", "// inputs: %f0:f32, %f1:f32\nadd.rp.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[F1, TINY], &[Some(0x3f80_0001)]),
    // IEEE 754 6.3: x + (-x) is +0, except -0 when rounding toward negative.
    k("add.rn.f32 of +0 and -0 is +0", "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[0, 0x8000_0000], &[Some(0)]),
    k("sub.rm.f32 of equal values is -0", "// inputs: %f0:f32, %f1:f32\nsub.rm.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[F1, F1], &[Some(0x8000_0000)]),
    k("add.rn.f32 of opposite infinities is NaN", "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[0x7f80_0000, 0xff80_0000], &[None]),
    k("mul.rn.f32 is exact on 1.5 * 1.5", "// inputs: %f0:f32\nmul.rn.f32 %f1, %f0, %f0;\n// outputs: %f1\n", &[0x3fc0_0000], &[Some(0x4010_0000)]),
    k("mul.rn.f32 keeps a subnormal result", "// inputs: %f0:f32, %f1:f32\nmul.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[MIN_NORMAL, HALF], &[Some(0x0040_0000)]),
    k("mul.rz.f32 overflows to the largest finite", "// inputs: %f0:f32, %f1:f32\nmul.rz.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[MAX, TWO], &[Some(MAX)]),
    k("mul.rn.f32 overflows to infinity", "// inputs: %f0:f32, %f1:f32\nmul.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[MAX, TWO], &[Some(0x7f80_0000)]),
    // fma(1/3, 3, -1) = 3 * 0x3eaaaaab - 1 = 2^-25 exactly: one rounding only.
    k("fma.rn.f32 rounds once", "// inputs: %f0:f32, %f1:f32, %f2:f32\nfma.rn.f32 %f3, %f0, %f1, %f2;\n// outputs: %f3\n", &[0x3eaa_aaab, 0x4040_0000, 0xbf80_0000], &[Some(0x3300_0000)]),
    k("div.rn.f32 1/3", "// inputs: %f0:f32, %f1:f32\ndiv.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[F1, 0x4040_0000], &[Some(0x3eaa_aaab)]),
    k("div.rz.f32 1/3", "// inputs: %f0:f32, %f1:f32\ndiv.rz.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[F1, 0x4040_0000], &[Some(0x3eaa_aaaa)]),
    k("sqrt.rn.f32 2", "// inputs: %f0:f32\nsqrt.rn.f32 %f1, %f0;\n// outputs: %f1\n", &[TWO], &[Some(0x3fb5_04f3)]),
    k("sqrt.rp.f32 2", "// inputs: %f0:f32\nsqrt.rp.f32 %f1, %f0;\n// outputs: %f1\n", &[TWO], &[Some(0x3fb5_04f4)]),
    k("rcp.rn.f64 3", "// inputs: %fd0:f64\nrcp.rn.f64 %fd1, %fd0;\n// outputs: %fd1\n", &[0x4008_0000_0000_0000], &[Some(0x3fd5_5555_5555_5555)]),
    k("add.rn.f64 ties to even", "// inputs: %fd0:f64, %fd1:f64\nadd.rn.f64 %fd2, %fd0, %fd1;\n// outputs: %fd2\n", &[0x3ff0_0000_0000_0000, 0x3ca0_0000_0000_0000], &[Some(0x3ff0_0000_0000_0000)]),
    k("add.rp.f64 rounds the tie up", "// inputs: %fd0:f64, %fd1:f64\nadd.rp.f64 %fd2, %fd0, %fd1;\n// outputs: %fd2\n", &[0x3ff0_0000_0000_0000, 0x3ca0_0000_0000_0000], &[Some(0x3ff0_0000_0000_0001)]),
    // 9.7.3 intro: f64 NaN payloads are kept (first NaN operand, quieted).
    k("add.rn.f64 keeps the NaN payload", "// inputs: %fd0:f64, %fd1:f64\nadd.rn.f64 %fd2, %fd0, %fd1;\n// outputs: %fd2\n", &[0x7ff8_0000_0000_0001, 0x3ff0_0000_0000_0000], &[Some(0x7ff8_0000_0000_0001)]),
    // Beyond the host's subset.
    k("mul.rn.ftz.f32 flushes a subnormal result", "// inputs: %f0:f32, %f1:f32\nmul.rn.ftz.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[MIN_NORMAL, HALF], &[Some(0)]),
    k("add.rn.sat.f32 clamps to 1", "// inputs: %f0:f32\nadd.rn.sat.f32 %f1, %f0, %f0;\n// outputs: %f1\n", &[0x3f40_0000], &[Some(F1)]),
    k("add.rn.sat.f32 turns NaN into +0", "// inputs: %f0:f32\nadd.rn.sat.f32 %f1, %f0, %f0;\n// outputs: %f1\n", &[0x7fc0_0000], &[Some(0)]),
    k("min.f32 of +0 and -0 is -0", "// inputs: %f0:f32, %f1:f32\nmin.f32 %f2, %f0, %f1;\n// outputs: %f2\n", &[0, 0x8000_0000], &[Some(0x8000_0000)]),
    k("testp.subnormal.f32 of 1 is false", "// inputs: %f0:f32\ntestp.subnormal.f32 %p1, %f0;\n// outputs: %p1\n", &[F1], &[Some(0)]),
    k("neg.f16 of 1", "// inputs: %h0:f16\nneg.f16 %h1, %h0;\n// outputs: %h1\n", &[0x3c00], &[Some(0xbc00)]),
    k("add.rn.f16x2 adds each lane", "// inputs: %r0:f16x2, %r1:f16x2\nadd.rn.f16x2 %r2, %r0, %r1;\n// outputs: %r2\n", &[0x4000_3c00, 0x3c00_3c00], &[Some(0x4200_4000)]),
    Known {
        name: "trace mode returns outputs then every instruction",
        program: "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f2;\n// outputs: %f3, %f1\n",
        inputs: &[F1, TWO],
        trace: true,
        // outputs (9, 2), then the add (3) and the mul (9).
        expected: &[Some(0x4110_0000), Some(TWO), Some(0x4040_0000), Some(0x4110_0000)],
    },
];

/// The outcome of a smoke check.
#[derive(Debug, Default)]
pub struct SmokeReport {
    /// Names of the checks passed (with ` [isa]` appended in the VM's mode on an engine with
    /// both modes).
    pub passed: Vec<String>,
    /// Checks the engine does not support (with its fault), not failures.
    pub skipped: Vec<(String, String)>,
    pub failed: Vec<Failure>,
}

/// One failed check: its name (as in `passed`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub name: String,
    pub why: String,
}

impl Failure {
    fn new(name: impl Into<String>, why: impl Into<String>) -> Failure {
        Failure { name: name.into(), why: why.into() }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.why)
    }
}

impl SmokeReport {
    pub fn ok(&self) -> bool {
        self.failed.is_empty()
    }
}

/// Run every known result on `engine`, in one batch.
pub fn smoke(engine: &mut dyn Engine) -> SmokeReport {
    let mut report = SmokeReport::default();
    let programs: Vec<Program> =
        KNOWN.iter().map(|kn| Program::parse(kn.program).expect("smoke programs are valid")).collect();
    let mut idx = Vec::new();
    let mut jobs = Vec::new();
    let mut names = Vec::new();
    let modes = engine.exec_modes();
    for &exec in modes {
        // An engine with one mode needs no label; on a GPU the VM's checks are the ones marked.
        let suffix = if modes.len() == 1 || exec == Exec::Compiled { String::new() } else { format!(" [{}]", exec.name()) };
        for (i, (kn, p)) in KNOWN.iter().zip(&programs).enumerate() {
            let name = format!("{}{suffix}", kn.name);
            if engine.supports(p) {
                idx.push(i);
                jobs.push(Job::new(p, kn.inputs, kn.trace).with_exec(exec));
                names.push(name);
            } else {
                report.skipped.push((name, "not supported".into()));
            }
        }
    }
    let results = engine.run(&jobs);
    if results.len() != jobs.len() {
        report.failed.push(Failure::new("the batch", format!("{} results for {} jobs", results.len(), jobs.len())));
        return report;
    }
    for (((&i, job), r), name) in idx.iter().zip(&jobs).zip(results).zip(names) {
        let kn = &KNOWN[i];
        let out = match r {
            Ok(out) => out,
            Err(f @ (EngineFault::Unsupported { .. } | EngineFault::Refused { .. })) => {
                report.skipped.push((name, f.to_string()));
                continue;
            }
            Err(f) => {
                report.failed.push(Failure::new(name, f.to_string()));
                continue;
            }
        };
        let nan = |v: u64, bits: u32| {
            let (e, m) = match bits {
                64 => (0x7ff0_0000_0000_0000u64, 0x000f_ffff_ffff_ffffu64),
                32 => (0x7f80_0000, 0x007f_ffff),
                _ => (0x7c00, 0x03ff),
            };
            v & e == e && v & m != 0
        };
        let types: Vec<ValType> = (0..job.per_case())
            .map(|s| {
                let p = job.program;
                p.reg_type(if s < p.outputs().len() { p.outputs()[s] } else { p.dst(s - p.outputs().len()) })
            })
            .collect();
        // Each value in hex and as its register reads it, so that a wrong answer is readable.
        let show = |ty: ValType, v: u64| format!("{} ({})", ty.format_hex(v), ty.format_decimal(v));
        let bad: Vec<String> = kn
            .expected
            .iter()
            .zip(&types)
            .enumerate()
            .filter_map(|(s, (want, &ty))| {
                let got = *out.values.get(s)?;
                let ok = match want {
                    Some(w) => got == *w,
                    None => nan(got, ty.bits()),
                };
                (!ok).then(|| format!("slot {s}: got {}, expected {}", show(ty, got), want.map_or("a NaN".into(), |w| show(ty, w))))
            })
            .collect();
        if out.values.len() != kn.expected.len() {
            report.failed.push(Failure::new(name, format!("{} values, expected {}", out.values.len(), kn.expected.len())));
        } else if !bad.is_empty() {
            report.failed.push(Failure::new(name, bad.join("; ")));
        } else {
            // The reference must agree with the known value too.
            match compare::check(job, &out, &CompareOptions::default()) {
                Ok(v) if v.is_clean() => report.passed.push(name),
                Ok(v) => report.failed.push(Failure::new(name, format!("the known value is a mismatch for compare: {:?}", v.signatures))),
                Err(f) => report.failed.push(Failure::new(name, f.to_string())),
            }
        }
    }
    // The forms outside programs (cvt, setp, selp) where the engine runs them.
    for (name, verdict) in forms::check(engine) {
        match verdict {
            forms::Verdict::Passed => report.passed.push(name),
            forms::Verdict::Skipped(why) => report.skipped.push((name, why)),
            forms::Verdict::Failed(why) => report.failed.push(Failure::new(name, why)),
        }
    }
    // An engine with a sweep kernel (a GPU): the kernel against its own job path.
    if engine.has_sweep_kernel() {
        for (name, verdict) in crate::sweep::gpu::self_check(engine) {
            match verdict {
                Ok(()) => report.passed.push(name),
                Err(why) => report.failed.push(Failure::new(name, why)),
            }
        }
    }
    report
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::oracles::{open, EngineOptions};

    #[test]
    fn interp_engine_passes_every_known_result() {
        let mut e = open("interp", &EngineOptions::default()).unwrap();
        let r = smoke(e.as_mut());
        assert!(r.ok(), "{:#?}", r.failed);
        assert_eq!(r.passed.len(), KNOWN.len() + forms::count(), "{:?}", r.skipped);
    }

    #[test]
    fn an_engine_computing_a_form_wrong_fails_its_check() {
        /// The interpreter, but every cvt.rn.bf16.f32 truncates.
        struct Truncating(crate::oracles::diff_interp::InterpEngine);
        impl Engine for Truncating {
            fn info(&self) -> &crate::oracles::EngineInfo {
                self.0.info()
            }
            fn supports(&self, p: &Program) -> bool {
                self.0.supports(p)
            }
            fn run(&mut self, jobs: &[Job]) -> Vec<Result<crate::oracles::Output, EngineFault>> {
                self.0.run(jobs)
            }
            fn supports_form(&self, _: &ptx::form::Form) -> bool {
                true
            }
            fn run_forms(&mut self, form: &ptx::form::Form, cases: &[u64]) -> Result<Vec<u64>, EngineFault> {
                match form.to_string().as_str() {
                    "cvt.rn.bf16.f32" => Ok(cases.iter().map(|c| c >> 16).collect()),
                    _ => self.0.run_forms(form, cases),
                }
            }
        }
        let r = smoke(&mut Truncating(Default::default()));
        assert_eq!(r.failed.len(), 1, "{:#?}", r.failed);
        assert_eq!(r.failed[0].name, "cvt.rn.bf16.f32 ties to even (up)");
        assert_eq!(r.failed[0].why, "got [0x3f81 (1.01)], expected [0x3f82 (1.016)]");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn host_engine_passes_its_subset_and_skips_the_rest() {
        let mut e = open("host", &EngineOptions::default()).unwrap();
        let r = smoke(e.as_mut());
        assert!(r.ok(), "{:#?}", r.failed);
        // Everything but the ftz, sat, min, testp, half and packed checks.
        assert_eq!(r.passed.len(), KNOWN.len() - 7, "{:?}", r.skipped);
    }

    /// `p` with every add.rz computed as add.rn.
    pub(crate) fn rz_as_rn(p: &Program) -> Program {
        Program::parse(&p.to_string().replace("add.rz", "add.rn")).unwrap()
    }

    /// The interpreter with `modes` as its execution modes, computing every add.rz as add.rn
    /// in the modes `broken`.
    pub(crate) struct RzAsRn {
        pub(crate) inner: crate::oracles::diff_interp::InterpEngine,
        pub(crate) modes: &'static [Exec],
        pub(crate) broken: &'static [Exec],
    }

    impl Engine for RzAsRn {
        fn info(&self) -> &crate::oracles::EngineInfo {
            self.inner.info()
        }
        fn supports(&self, p: &Program) -> bool {
            self.inner.supports(p)
        }
        fn exec_modes(&self) -> &'static [Exec] {
            self.modes
        }
        fn run(&mut self, jobs: &[Job]) -> Vec<Result<crate::oracles::Output, EngineFault>> {
            let swapped: Vec<Program> = jobs
                .iter()
                .map(|j| match self.broken.contains(&j.exec) {
                    true => rz_as_rn(j.program),
                    false => j.program.clone(),
                })
                .collect();
            let jobs2: Vec<Job> = jobs.iter().zip(&swapped).map(|(j, p)| Job { program: p, ..*j }).collect();
            self.inner.run(&jobs2)
        }
    }

    #[test]
    fn a_wrong_engine_fails_the_smoke_check() {
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Compiled], broken: &[Exec::Compiled] };
        let r = smoke(&mut e);
        assert_eq!(r.failed.len(), 1, "{:#?}", r.failed);
        assert_eq!(r.failed[0].name, "add.rz.f32 truncates", "{:?}", r.failed);
        // Both values in hex and decimal: the rounded-up sum against the truncated one.
        assert_eq!(r.failed[0].why, "slot 0: got 0x3f800001 (1.0000001), expected 0x3f800000 (1)");
    }

    #[test]
    fn an_engine_with_two_execution_modes_is_checked_in_both() {
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Compiled, Exec::Isa], broken: &[Exec::Isa] };
        let r = smoke(&mut e);
        assert_eq!(r.passed.len(), 2 * KNOWN.len() - 1, "{:?}", r.failed);
        assert_eq!(r.failed.len(), 1, "{:#?}", r.failed);
        assert_eq!(r.failed[0].name, "add.rz.f32 truncates [isa]", "{:?}", r.failed);
    }
}
