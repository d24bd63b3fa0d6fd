//! Regressions leased from the server, run between campaign batches: each program runs on
//! the campaign's target, the worker's interpreter judges the outputs, and the verdict goes
//! back through the spool (`POST /leases/{id}/result`, idempotent per lease).
//!
//! An engine fault (or a program this worker cannot run) is no verdict: nothing is posted,
//! the lease expires, and the regression returns to the pool for another worker.

use api::regressions::{LeaseRequest, Leased, RunResult};
use ptx::program::Program;
use ptx::value::parse_hex;

use super::client::{Client, Failure, Method};
use super::spool::{Kind, Message, Outbox};
use crate::oracles::{Engine, EngineFault, Job};

/// Seconds a worker holds a lease.
pub const LEASE_SECONDS: u32 = 300;

/// Who ran a regression: the fields of [`RunResult`] that do not depend on the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub worker: String,
    pub target: String,
    pub gpu_name: String,
    pub driver_version: String,
    pub interpreter_commit: String,
}

/// One run's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub passed: bool,
    /// The target's bits per output, hex at the output's width.
    pub actual: Vec<String>,
    /// What is wrong, per failing output.
    pub message: String,
}

/// Why a leased regression gave no verdict.
#[derive(Debug, thiserror::Error)]
pub enum NoVerdict {
    #[error("the leased program is malformed: {0}")]
    Malformed(String),
    #[error("the target does not support this program")]
    Unsupported,
    #[error("engine fault ({kind}): {fault}", kind = .0.kind(), fault = .0)]
    Fault(EngineFault),
}

/// What one lease round did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub leased: u64,
    pub passed: u64,
    pub failed: u64,
    /// No verdict (fault, unsupported, malformed): left to expire.
    pub skipped: u64,
}

impl Tally {
    pub fn add(&mut self, o: Tally) {
        self.leased += o.leased;
        self.passed += o.passed;
        self.failed += o.failed;
        self.skipped += o.skipped;
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} leased: {} passed, {} failed", self.leased, self.passed, self.failed)?;
        if self.skipped > 0 {
            write!(f, ", {} without verdict (engine fault or unsupported; left to expire)", self.skipped)?;
        }
        Ok(())
    }
}

/// Run one leased regression on `engine` and judge it with the interpreter.
pub fn run_one(engine: &mut dyn Engine, l: &Leased) -> Result<Verdict, NoVerdict> {
    let program = Program::from_json(&l.program.to_string()).map_err(|e| NoVerdict::Malformed(e.to_string()))?;
    if l.inputs.len() != program.inputs().len() {
        return Err(NoVerdict::Malformed(format!(
            "{} input(s) for a program taking {}",
            l.inputs.len(),
            program.inputs().len()
        )));
    }
    let inputs = l
        .inputs
        .iter()
        .map(|s| s.strip_prefix("0x").and_then(parse_hex).ok_or_else(|| NoVerdict::Malformed(format!("input '{s}' is not 0x-prefixed hex"))))
        .collect::<Result<Vec<u64>, _>>()?;
    let expected = program.run(&inputs).map_err(|e| NoVerdict::Malformed(format!("the interpreter cannot run it: {e}")))?;
    if !engine.supports(&program) {
        return Err(NoVerdict::Unsupported);
    }
    let out = engine
        // In the mode the finding was found in (a raw regression: compiled, or as filed).
        .run(&[Job::new(&program, &inputs, false).with_exec(l.exec)])
        .pop()
        .unwrap_or_else(|| Err(EngineFault::Protocol { message: "no result for the job".into() }))
        .map_err(NoVerdict::Fault)?;
    let got = &out.case(0)[..program.outputs().len()];
    let mut actual = Vec::with_capacity(got.len());
    let mut wrong = Vec::new();
    for (k, (e, &v)) in expected.iter().zip(got).enumerate() {
        let digits = (e.width() as usize).div_ceil(4);
        let hex = format!("0x{v:0digits$x}");
        if !e.accepts(v) {
            // Hex and decimal, as `ptxfuzz repro` prints them: 0x3c01 alone does not say
            // 1.0009766 (the output register's type reads the bits; `decimal` the allowed set).
            let ty = program.reg_type(program.outputs()[k]);
            let allowed = e.decimal().map_or(String::new(), |d| format!(" ({d})"));
            wrong.push(format!("output {k}: got {hex} ({}), allowed {e}{allowed}", ty.format_decimal(v)));
        }
        actual.push(hex);
    }
    Ok(Verdict { passed: wrong.is_empty(), actual, message: wrong.join("; ") })
}

/// The result to post for a verdict.
pub fn result(id: &Identity, v: Verdict) -> RunResult {
    RunResult {
        worker: id.worker.clone(),
        target: id.target.clone(),
        gpu_name: id.gpu_name.clone(),
        driver_version: id.driver_version.clone(),
        interpreter_commit: id.interpreter_commit.clone(),
        passed: v.passed,
        actual: v.actual,
        message: v.message,
    }
}

/// Lease up to `max` regressions, run each, and spool the verdicts.
pub fn lease_and_run(client: &Client, outbox: &Outbox, engine: &mut dyn Engine, id: &Identity, max: u32) -> Result<Tally, Failure> {
    let req = LeaseRequest { worker: id.worker.clone(), max: max.clamp(1, 1000), lease_seconds: LEASE_SECONDS };
    let work: Vec<Leased> = client.post_json("/leases", &req)?;
    let mut tally = Tally { leased: work.len() as u64, ..Tally::default() };
    for l in &work {
        match run_one(engine, l) {
            Ok(v) => {
                if v.passed {
                    tally.passed += 1;
                } else {
                    tally.failed += 1;
                    eprintln!("\nregression {} FAILS on {}: {}", l.regression_id, id.target, v.message);
                }
                let path = format!("/leases/{}/result", l.lease_id);
                let msg = Message::new(Kind::Result, Method::Post, path, &result(id, v));
                if let Err(e) = outbox.push(&msg) {
                    eprintln!("\nregression {}: cannot spool the result: {e:#}", l.regression_id);
                }
            }
            Err(e) => {
                tally.skipped += 1;
                eprintln!("\nregression {}: no verdict ({e}); its lease will expire", l.regression_id);
            }
        }
    }
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracles::{open, EngineOptions};

    fn leased(program: &str, inputs: &[&str]) -> Leased {
        let p = Program::parse(program).unwrap();
        Leased {
            lease_id: uuid::Uuid::new_v4(),
            regression_id: 7,
            program: serde_json::from_str(&p.to_json()).unwrap(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            expected: vec![],
            sm: 90,
            exec: crate::oracles::Exec::Compiled,
            leased_until: chrono::Utc::now(),
        }
    }

    const ADD_RZ: &str = "// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\n// outputs: %f2\n";

    #[test]
    fn the_interpreter_passes_its_own_regression() {
        let mut e = open("interp", &EngineOptions::default()).unwrap();
        let v = run_one(&mut *e, &leased(ADD_RZ, &["0x3f000000", "0x33040000"])).unwrap();
        assert!(v.passed, "{v:?}");
        assert_eq!(v.actual, ["0x3f000000"]);
        assert!(v.message.is_empty());
    }

    #[test]
    fn a_regression_runs_in_its_execution_mode() {
        use crate::oracles::Exec;
        use crate::smoke::tests::RzAsRn;
        // Rounds add.rz to nearest in `isa` mode only: the regression fails there alone.
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Compiled, Exec::Isa], broken: &[Exec::Isa] };
        for (exec, passes) in [(Exec::Compiled, true), (Exec::Isa, false)] {
            let l = Leased { exec, ..leased(ADD_RZ, &["0x3f000000", "0x33040000"]) };
            let v = run_one(&mut e, &l).unwrap();
            assert_eq!(v.passed, passes, "{exec}: {v:?}");
        }
    }

    /// The interpreter with one added to every result's bits (one ulp up in the low lane).
    struct OneUp(crate::oracles::diff_interp::InterpEngine);

    impl Engine for OneUp {
        fn info(&self) -> &crate::oracles::EngineInfo {
            self.0.info()
        }
        fn supports(&self, p: &Program) -> bool {
            self.0.supports(p)
        }
        fn exec_modes(&self) -> &'static [crate::oracles::Exec] {
            &[crate::oracles::Exec::Compiled]
        }
        fn run(&mut self, jobs: &[Job]) -> Vec<Result<crate::oracles::Output, EngineFault>> {
            let mut out = self.0.run(jobs);
            for o in out.iter_mut().flatten() {
                o.values.iter_mut().for_each(|v| *v += 1);
            }
            out
        }
    }

    #[test]
    fn a_failing_half_precision_regression_says_got_and_allowed_in_decimal_too() {
        // 1 + 2^-10 is 0x3c01 in each lane; the engine says 0x3c02 (1.002) in lane 0.
        const ADD_F16X2: &str = "// inputs: %r0:f16x2, %r1:f16x2\nadd.rn.f16x2 %r2, %r0, %r1;\n// outputs: %r2\n";
        let v = run_one(&mut OneUp(Default::default()), &leased(ADD_F16X2, &["0x3c003c00", "0x14001400"])).unwrap();
        assert!(!v.passed, "{v:?}");
        assert_eq!(v.actual, ["0x3c013c02"]);
        // Decimal beside the hex, as `ptxfuzz repro` prints them (lane 0 first).
        assert_eq!(v.message, "output 0: got 0x3c013c02 (1.002,1.001), allowed lane0: 0x3c01 ; lane1: 0x3c01 (1.001 ; 1.001)");
    }

    #[test]
    fn malformed_leases_give_no_verdict() {
        let mut e = open("interp", &EngineOptions::default()).unwrap();
        let r = run_one(&mut *e, &leased(ADD_RZ, &["0x3f000000"]));
        assert!(matches!(r, Err(NoVerdict::Malformed(m)) if m.contains("1 input(s)")));
        let r = run_one(&mut *e, &leased(ADD_RZ, &["0x3f000000", "zz"]));
        assert!(matches!(r, Err(NoVerdict::Malformed(m)) if m.contains("'zz'")));
        let mut bad = leased(ADD_RZ, &["0x1", "0x2"]);
        bad.program = serde_json::json!({"nonsense": true});
        assert!(matches!(run_one(&mut *e, &bad), Err(NoVerdict::Malformed(_))));
    }
}
