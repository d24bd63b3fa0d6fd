//! The `interp` engine: the reference interpreter's primary results, parallel over cores.
//!
//! Each instruction reads the primary bits of earlier results, exactly as `Program::run`
//! evaluates (contraction alternatives aside: this engine is the unfused primary). Cases run
//! in chunks, column by column: per instruction one `ptx::interp::Kernel` call over the whole
//! chunk (one dispatch per chunk, not per case), chunks spread over the rayon pool.

use ptx::form::Form;
use ptx::interp::Kernel;
use ptx::program::Program;
use rayon::prelude::*;

use super::columns::{self, ColumnOp, Operands, CHUNK};
use super::engine::{Engine, EngineFault, EngineInfo, Job, Output, PerJob};

/// Cases per chunk: large enough to amortise the per-instruction dispatch, small enough that
/// the chunk's registers stay in L2 (reg_count * CHUNK * 8 bytes).

/// The reference interpreter as an engine.
pub struct InterpEngine {
    info: EngineInfo,
}

impl InterpEngine {
    pub fn new() -> InterpEngine {
        let mut info = EngineInfo::new("interp", "ptxfuzz reference interpreter (primary results)");
        info.threads = Some(rayon::current_num_threads());
        InterpEngine { info }
    }
}

impl Default for InterpEngine {
    fn default() -> InterpEngine {
        InterpEngine::new()
    }
}

impl Engine for InterpEngine {
    fn info(&self) -> &EngineInfo {
        &self.info
    }

    fn supports(&self, p: &Program) -> bool {
        kernels(p).is_ok()
    }

    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        jobs.par_iter().map(run_job).collect()
    }

    /// Each job on its own: `run` is this over the rayon pool.
    fn per_job(&self) -> Option<PerJob> {
        Some(PerJob { supports: |p| kernels(p).is_ok(), run: run_job })
    }

    /// 32 chunks per thread (131,072 cases, 128 default programs, on 2 cores): each batch
    /// is one fork-join over the pool and one handoff from the source thread, and at 4 chunks
    /// per thread those cost about 8% of an interp campaign (docs/benchmarks.md); the batch's
    /// cases and outputs stay a few MiB.
    fn preferred_cases(&self) -> usize {
        CHUNK * 32 * rayon::current_num_threads()
    }

    fn outputs_are_reference(&self) -> bool {
        true
    }

    fn supports_form(&self, _form: &Form) -> bool {
        true
    }

    /// Each case's primary word (`Form::eval`), over the rayon pool.
    fn run_forms(&mut self, form: &Form, cases: &[u64]) -> Result<Vec<u64>, EngineFault> {
        let k = form.operands().len();
        if cases.len() % k != 0 {
            return Err(EngineFault::Invalid { message: format!("{} values is not a whole number of cases of {k} operand(s) of {form}", cases.len()) });
        }
        cases
            .par_chunks_exact(k)
            .enumerate()
            .map(|(i, ops)| form.eval(ops).map(|a| a.word).map_err(|e| EngineFault::Invalid { message: format!("case {i}: {e}") }))
            .collect()
    }
}

/// One kernel per instruction; fails for forms the interpreter cannot evaluate.
pub fn kernels(p: &Program) -> Result<Vec<Kernel>, EngineFault> {
    p.body()
        .iter()
        .map(|s| Kernel::new(&s.instr).map_err(|e| EngineFault::Unsupported { what: e.to_string() }))
        .collect()
}

/// Run one job on the rayon pool: the primary bits of every output (and traced instruction).
pub fn run_job(job: &Job) -> Result<Output, EngineFault> {
    job.check()?;
    columns::run_job(job, &kernels(job.program)?)
}

impl ColumnOp for Kernel {
    fn run(&self, ops: Operands, out: &mut [u64]) {
        self.run_columns(ops, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits() as u64).collect()
    }

    #[test]
    fn results_are_the_primary_bits_of_program_run() {
        let p = Program::parse(
            "// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f0;\ntestp.finite.f32 %p4, %f3;\n// outputs: %f3, %p4, %f1\n",
        )
        .unwrap();
        let mut cases = Vec::new();
        for i in 0..5000u32 {
            let a = f32::from_bits(i.wrapping_mul(2_654_435_761));
            cases.extend(f32s(&[a, 1.0 + i as f32]));
        }
        let mut e = InterpEngine::new();
        let out = e.run(&[Job::new(&p, &cases, true)]).pop().unwrap().unwrap();
        assert_eq!(out.per_case, 3 + 3);
        assert_eq!(out.n_cases(), 5000);
        for i in 0..5000 {
            let run = p.trace(&cases[2 * i..2 * i + 2]).unwrap();
            let want: Vec<u64> =
                run.outputs.iter().chain(&run.intermediates).map(|x| x.primary_bits()).collect();
            assert_eq!(out.case(i), want.as_slice(), "case {i}");
        }
    }

    #[test]
    fn forms_run_to_their_primary_words_and_bad_cases_are_faults() {
        let mut e = InterpEngine::new();
        let f = Form::parse("cvt.rn.bf16.f32").unwrap();
        assert!(e.supports_form(&f));
        assert_eq!(e.run_forms(&f, &[0x3fc0_0000, 0x3f80_8000]).unwrap(), vec![0x3fc0, 0x3f80]);
        let setp = Form::parse("setp.lt.f16x2").unwrap();
        assert_eq!(e.run_forms(&setp, &[0x4000_3c00, 0x3c00_4000]).unwrap(), vec![0b01]);
        assert_eq!(e.run_forms(&setp, &[1]).unwrap_err().kind(), "invalid");
        let err = e.run_forms(&f, &[0, 1 << 40]).unwrap_err();
        assert!(err.to_string().contains("case 1") && err.to_string().contains("32 bit"), "{err}");
    }

    #[test]
    fn malformed_job_is_a_fault_not_a_panic() {
        let p = Program::parse("// inputs: %h0:f16\nneg.f16 %h1, %h0;\n// outputs: %h1\n").unwrap();
        let cases = [0x1_0000];
        let r = InterpEngine::new().run(&[Job::new(&p, &cases, false)]);
        assert_eq!(r[0].as_ref().unwrap_err().kind(), "invalid");
    }
}
