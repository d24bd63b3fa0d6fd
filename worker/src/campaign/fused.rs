//! Programs run and judged where they were generated. On a CPU engine that runs each job on
//! whatever thread calls it (`Engine::per_job`: `interp`, `host`), the source generates, runs
//! and judges each random program in one rayon task ([`Finisher::finish`]), so its cases and
//! outputs stay in the cache of the core that drew them, and a batch is one fork-join over the
//! pool instead of three (generate, run, judge) with a handoff between threads after each: on
//! 2 cores those handoffs cost about 12% of the cases per CPU second (docs/benchmarks.md,
//! 2026-12-02). The main thread still counts the verdicts and handles findings in program
//! order (`batch::handle`), so what a campaign finds does not change.

use ptx::program::Program;

use crate::compare::{self, CompareOptions, Verdicts};
use crate::oracles::{Engine, EngineFault, Exec, Job, Output, PerJob};

/// What became of a program judged where it was generated.
#[derive(Clone, Debug)]
pub enum Done {
    /// The engine does not run one of its instructions (counted as `unsupported`).
    Unsupported,
    /// Its verdicts, or the engine's or the judge's fault.
    Judged(Result<Verdicts, EngineFault>),
}

/// Runs and judges one program on the calling thread, as `batch::execute` and `batch::judge`
/// would.
#[derive(Clone, Debug)]
pub struct Finisher {
    per_job: PerJob,
    /// The engine's one execution mode: an engine with two (a GPU) is never fused.
    exec: Exec,
    trace: bool,
    /// The engine's outputs are the judge's reference (`Engine::outputs_are_reference`).
    own_reference: bool,
    copts: CompareOptions,
}

impl Finisher {
    /// A finisher for `target`, if it runs jobs one by one on any thread and has one
    /// execution mode.
    pub fn new(target: &dyn Engine, trace: bool, copts: &CompareOptions) -> Option<Finisher> {
        let per_job = target.per_job()?;
        let &[exec] = target.exec_modes() else { return None };
        Some(Finisher { per_job, exec, trace, own_reference: target.outputs_are_reference() && !trace, copts: copts.clone() })
    }

    /// Run and judge `program` on `cases`.
    pub fn finish(&self, program: &Program, cases: &[u64]) -> Done {
        if (self.per_job.supports)(program) {
            let job = Job::new(program, cases, self.trace).with_exec(self.exec);
            Done::Judged((self.per_job.run)(&job).and_then(|out| verdicts(&job, &out, self.own_reference, &self.copts)))
        } else {
            Done::Unsupported
        }
    }
}

/// The judge's verdicts on `out`, the engine's output for `job`: against the engine's own
/// output where it is the reference (the interpreter as target: judging it again would run
/// every program twice), else against the interpreter (`compare::check`).
pub fn verdicts(job: &Job, out: &Output, own_reference: bool, copts: &CompareOptions) -> Result<Verdicts, EngineFault> {
    if own_reference {
        compare::check_with_reference(job, out, out, copts)
    } else {
        compare::check(job, out, copts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracles::diff_host::HostEngine;
    use crate::oracles::diff_interp::InterpEngine;

    fn program(text: &str) -> Program {
        Program::parse(text).unwrap()
    }

    #[test]
    fn a_fused_program_gets_the_verdicts_of_the_batch_path() {
        let p = program("// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f0;\n// outputs: %f3\n");
        let cases: Vec<u64> = (0..512u64).flat_map(|i| [(i * 0x0123_4567) & 0xffff_ffff, (i * 0x89ab_cdef) & 0xffff_ffff]).collect();
        let copts = CompareOptions::default();
        for trace in [false, true] {
            let mut interp = InterpEngine::new();
            let mut host = HostEngine::new().unwrap();
            for target in [&mut interp as &mut dyn Engine, &mut host] {
                let f = Finisher::new(target, trace, &copts).expect("a CPU engine runs per job");
                let Done::Judged(Ok(fused)) = f.finish(&p, &cases) else { panic!("{} did not judge", target.info()) };
                let job = Job::new(&p, &cases, trace).with_exec(Exec::Isa);
                let out = target.run(&[job]).remove(0).unwrap();
                let batch = verdicts(&job, &out, target.outputs_are_reference() && !trace, &copts).unwrap();
                assert_eq!(fused, batch, "{} trace {trace}", target.info());
                assert_eq!(fused.cases, 512);
            }
        }
    }

    #[test]
    fn a_program_the_engine_cannot_run_is_unsupported() {
        // The host FPU has no approximate forms (oracles::diff_host).
        let p = program("// inputs: %f0:f32\nrcp.approx.f32 %f1, %f0;\n// outputs: %f1\n");
        let f = Finisher::new(&HostEngine::new().unwrap(), false, &CompareOptions::default()).unwrap();
        assert!(matches!(f.finish(&p, &[0x3f80_0000]), Done::Unsupported));
    }

    /// An engine with the given modes and, if `per_job`, the interpreter's job functions.
    struct Modes {
        info: crate::oracles::EngineInfo,
        modes: &'static [Exec],
        per_job: bool,
    }

    impl Engine for Modes {
        fn info(&self) -> &crate::oracles::EngineInfo {
            &self.info
        }
        fn supports(&self, _: &Program) -> bool {
            true
        }
        fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
            jobs.iter().map(crate::oracles::diff_interp::run_job).collect()
        }
        fn exec_modes(&self) -> &'static [Exec] {
            self.modes
        }
        fn per_job(&self) -> Option<PerJob> {
            self.per_job.then(|| InterpEngine::new().per_job().unwrap())
        }
    }

    #[test]
    fn only_an_engine_with_one_mode_and_per_job_functions_is_fused() {
        let copts = CompareOptions::default();
        let engine = |modes, per_job| Modes { info: crate::oracles::EngineInfo::new("modes", "test"), modes, per_job };
        assert!(Finisher::new(&engine(&[Exec::Isa], true), false, &copts).is_some());
        // A GPU runs `isa` and `compiled` a batch at a time, the device beside the cores.
        assert!(Finisher::new(&engine(&[Exec::Compiled, Exec::Isa], true), false, &copts).is_none());
        assert!(Finisher::new(&engine(&[Exec::Isa], false), false, &copts).is_none());
    }
}
