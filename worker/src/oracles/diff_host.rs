//! The `host` engine: the host CPU's own FPU (through `host_fpu`), real IEEE hardware that
//! every machine has, for the subset it implements natively.
//!
//! Supported: every instruction f32 or f64 (scalar), one of add, sub, mul, fma, mad, div,
//! sqrt with an explicit rounding mode or none (read as `.rn`, as the interpreter does), and
//! rcp with a rounding mode (rcp.rnd(x) is 1/x rounded once, exactly div.rnd(1, x):
//! 9.7.3.13 "rcp.rnd.{f32,f64} implements a compliant reciprocal"); no `.ftz`, no `.sat`.
//! Anything else is [`EngineFault::Unsupported`].
//!
//! An unrounded mul + add pair is computed unfused (the host does not contract).

use ptx::isa::{Clamp, Ftz, Instr, Opcode, Precision, Type};
use ptx::program::Program;
use ptx::Rounding;
use rayon::prelude::*;

use super::columns::{self, ColumnOp, Operands, CHUNK};
use super::engine::{Engine, EngineFault, EngineInfo, Job, Output, PerJob};
use super::host_fpu::{self, HostOp};


/// The host FPU as an engine.
pub struct HostEngine {
    info: EngineInfo,
}

impl HostEngine {
    /// Fails off x86-64 (the only host with an implementation).
    pub fn new() -> Result<HostEngine, EngineFault> {
        if !host_fpu::supports(HostOp::Add) {
            return Err(EngineFault::NoDevice {
                message: "the host engine needs an x86-64 CPU (SSE2); use --target interp or cuda".into(),
            });
        }
        let mut info = EngineInfo::new("host", cpu_name());
        info.threads = Some(rayon::current_num_threads());
        if !host_fpu::supports(HostOp::Fma) {
            info.notes.push("no FMA unit: fma/mad unsupported".into());
        }
        Ok(HostEngine { info })
    }
}

/// The CPU model from /proc/cpuinfo, or a generic name.
fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| format!("{} CPU", std::env::consts::ARCH))
}

/// One instruction as the host computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostInstr {
    pub op: HostOp,
    pub mode: Rounding,
    pub f64: bool,
    /// rcp: computed as div(1, x).
    pub reciprocal: bool,
}

/// How the host runs `instr`, or why it cannot.
pub fn host_instr(instr: &Instr) -> Result<HostInstr, String> {
    let no = |why: &str| Err(format!("{instr}: {why} (the host engine runs f32/f64 add, sub, mul, fma, mad, div, rcp, sqrt with IEEE rounding, no .ftz/.sat)"));
    let f64 = match instr.ty {
        Type::F32 => false,
        Type::F64 => true,
        _ => return no("not a scalar f32/f64 type"),
    };
    if instr.ftz != Ftz::Preserve {
        return no(".ftz");
    }
    if instr.clamp != Clamp::None {
        return no("clamped");
    }
    let mode = match instr.precision {
        Precision::Rounded(r) => r,
        // No modifier: `.rn` (9.7.3.3); rcp and sqrt have no such form without .approx.
        Precision::Default if !matches!(instr.op, Opcode::Rcp | Opcode::Sqrt) => Rounding::Rn,
        _ => return no("approximate"),
    };
    let (op, reciprocal) = match instr.op {
        Opcode::Add => (HostOp::Add, false),
        Opcode::Sub => (HostOp::Sub, false),
        Opcode::Mul => (HostOp::Mul, false),
        // 9.7.3.7: mad.rnd.{f32,f64} is fma.
        Opcode::Fma | Opcode::Mad => (HostOp::Fma, false),
        Opcode::Div => (HostOp::Div, false),
        Opcode::Rcp => (HostOp::Div, true),
        Opcode::Sqrt => (HostOp::Sqrt, false),
        _ => return no("no native host operation"),
    };
    if !host_fpu::supports(op) {
        return no("this CPU lacks the operation");
    }
    Ok(HostInstr { op, mode, f64, reciprocal })
}

impl ColumnOp for HostInstr {
    /// Apply to columns of operands.
    fn run(&self, ops: Operands, out: &mut [u64]) {
        let HostInstr { op, mode, reciprocal, .. } = *self;
        if self.f64 {
            let one = 1f64.to_bits();
            for (o, [a, b, c]) in out.iter_mut().zip(ops.iter()) {
                let (a, b) = if reciprocal { (one, a) } else { (a, b) };
                *o = host_fpu::f64_op(op, mode, a, b, c).unwrap_or(0);
            }
        } else {
            let one = 1f32.to_bits();
            for (o, [a, b, c]) in out.iter_mut().zip(ops.iter()) {
                let (a, b, c) = (a as u32, b as u32, c as u32);
                let (a, b) = if reciprocal { (one, a) } else { (a, b) };
                *o = host_fpu::f32_op(op, mode, a, b, c).unwrap_or(0) as u64;
            }
        }
    }
}

fn host_program(p: &Program) -> Result<Vec<HostInstr>, EngineFault> {
    p.body()
        .iter()
        .map(|s| host_instr(&s.instr).map_err(|what| EngineFault::Unsupported { what }))
        .collect()
}

impl Engine for HostEngine {
    fn info(&self) -> &EngineInfo {
        &self.info
    }

    fn supports(&self, p: &Program) -> bool {
        host_program(p).is_ok()
    }

    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        jobs.par_iter().map(run_job).collect()
    }

    /// Each job on its own: `run` is this over the rayon pool.
    fn per_job(&self) -> Option<PerJob> {
        Some(PerJob { supports: |p| host_program(p).is_ok(), run: run_job })
    }

    fn preferred_cases(&self) -> usize {
        CHUNK * 4 * rayon::current_num_threads()
    }
}

fn run_job(job: &Job) -> Result<Output, EngineFault> {
    job.check()?;
    columns::run_job(job, &host_program(job.program)?)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    fn instr(text: &str) -> Instr {
        Instr::parse_default(text).unwrap()
    }

    #[test]
    fn supports_exactly_the_native_subset() {
        for ok in ["add.rz.f32", "sub.f64", "mul.rp.f32", "fma.rm.f64", "div.rn.f32", "rcp.rz.f64", "sqrt.rp.f32"] {
            assert!(host_instr(&instr(ok)).is_ok(), "{ok}");
        }
        for no in ["add.rn.ftz.f32", "add.rn.sat.f32", "rcp.approx.f32", "div.full.f32", "add.rn.f16", "min.f32", "add.rn.f32x2"] {
            assert!(host_instr(&instr(no)).is_err(), "{no}");
        }
        assert_eq!(host_instr(&instr("rcp.rz.f32")).unwrap().op, HostOp::Div);
    }

    #[test]
    fn unsupported_program_is_a_fault() {
        let p = Program::parse("// inputs: %f0:f32\nneg.f32 %f1, %f0;\n// outputs: %f1\n").unwrap();
        let mut e = HostEngine::new().unwrap();
        assert!(!e.supports(&p));
        let r = e.run(&[Job::new(&p, &[0], false)]);
        assert_eq!(r[0].as_ref().unwrap_err().kind(), "unsupported");
    }
}
