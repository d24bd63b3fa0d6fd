//! One engine's two execution modes against each other: the same programs and cases run on
//! the instruction VM (`isa`) and as whole-program kernels (`compiled`), output by output.
//! Issue 12's GPU check: "the VM and the whole-program JIT agree except where a listed
//! compiler effect explains the difference". The modes are compared raw (no reference, no
//! tolerance): what differs is either a compiler effect (contraction, folding, the bf16 `fma`
//! lowering of `../shared/hw/h100-sm90/findings/`) or a bug in one of the two paths.

use ptx::program::Program;

use crate::campaign::source::Item;
use crate::oracles::{Engine, Exec, Job};

/// A case whose outputs differ between the modes (the first of its program).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Disagreement {
    /// The program's text (`Program::parse` reads it back).
    pub program: String,
    /// The case's inputs, 0x-hex.
    pub inputs: Vec<String>,
    /// Its outputs on the instruction VM and compiled, 0x-hex.
    pub isa: Vec<String>,
    pub compiled: Vec<String>,
    /// Cases of this program that differ, of how many.
    pub differing_cases: usize,
    pub cases: usize,
}

/// What [`compare_modes`] saw.
#[derive(Debug, Default)]
pub struct ModesReport {
    pub programs: u64,
    pub cases: u64,
    /// Programs the engine does not run in both modes.
    pub skipped: u64,
    /// Engine faults, either mode ("isa: ..." / "compiled: ...").
    pub faults: Vec<String>,
    pub disagreements: Vec<Disagreement>,
}

/// Why the modes cannot be compared on an engine.
#[derive(Debug, thiserror::Error)]
#[error("engine {engine} runs programs one way only ({modes}): modes-check needs an engine with both isa and compiled, i.e. cuda on a machine with an NVIDIA GPU")]
pub struct OneMode {
    pub engine: String,
    pub modes: String,
}

/// Run `items` in both modes on `engine` and compare every output bit for bit.
pub fn compare_modes(engine: &mut dyn Engine, items: &[Item]) -> Result<ModesReport, OneMode> {
    let modes = engine.exec_modes();
    if !(modes.contains(&Exec::Isa) && modes.contains(&Exec::Compiled)) {
        let modes = modes.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ");
        return Err(OneMode { engine: engine.info().name.clone(), modes });
    }
    let mut report = ModesReport::default();
    let runnable: Vec<&Item> = items.iter().filter(|i| engine.supports(&i.program)).collect();
    report.skipped = (items.len() - runnable.len()) as u64;
    let run = |engine: &mut dyn Engine, exec: Exec| {
        let jobs: Vec<Job> = runnable.iter().map(|i| Job::new(&i.program, &i.cases, false).with_exec(exec)).collect();
        engine.run(&jobs)
    };
    let isa = run(engine, Exec::Isa);
    let compiled = run(engine, Exec::Compiled);
    for ((item, a), b) in runnable.iter().zip(isa).zip(compiled) {
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                for (mode, r) in [("isa", a.err()), ("compiled", b.err())] {
                    if let Some(f) = r {
                        report.faults.push(format!("{mode}: {f}"));
                    }
                }
                continue;
            }
        };
        report.programs += 1;
        let n_in = item.program.inputs().len().max(1);
        let n_out = item.program.outputs().len().max(1);
        let cases = item.cases.len() / n_in;
        report.cases += cases as u64;
        let differing: Vec<usize> =
            (0..cases).filter(|&c| a.values.get(c * n_out..(c + 1) * n_out) != b.values.get(c * n_out..(c + 1) * n_out)).collect();
        if let Some(&c) = differing.first() {
            report.disagreements.push(Disagreement {
                program: item.program.to_string(),
                inputs: hexes(&item.cases[c * n_in..(c + 1) * n_in]),
                isa: hexes(a.values.get(c * n_out..(c + 1) * n_out).unwrap_or_default()),
                compiled: hexes(b.values.get(c * n_out..(c + 1) * n_out).unwrap_or_default()),
                differing_cases: differing.len(),
                cases,
            });
        }
    }
    Ok(report)
}

fn hexes(v: &[u64]) -> Vec<String> {
    v.iter().map(|x| format!("0x{x:x}")).collect()
}

/// Parse a disagreement's program back (for triage: `ptxfuzz explain`, `eval`).
pub fn program_of(d: &Disagreement) -> Result<Program, ptx::program::ProgramError> {
    Program::parse(&d.program)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smoke::tests::RzAsRn;

    const BOTH: &[Exec] = &[Exec::Compiled, Exec::Isa];

    fn items() -> Vec<Item> {
        let add = |op: &str| Program::parse(&format!("// inputs: %f0:f32, %f1:f32\n{op}.f32 %f2, %f0, %f1;\n// outputs: %f2\n")).unwrap();
        // 0.5 + 2^-25: round-to-zero and round-to-nearest differ; 1 + 1: they agree.
        let cases = vec![0x3f00_0000, 0x3304_0000, 0x3f80_0000, 0x3f80_0000];
        vec![
            Item { program: add("add.rz"), cases: cases.clone(), origin: None },
            Item { program: add("add.rn"), cases, origin: None },
        ]
    }

    #[test]
    fn modes_that_compute_alike_agree_on_every_case() {
        let mut e = RzAsRn { inner: Default::default(), modes: BOTH, broken: &[] };
        let r = compare_modes(&mut e, &items()).unwrap();
        assert_eq!((r.programs, r.cases, r.disagreements.len(), r.faults.len()), (2, 4, 0, 0));
    }

    #[test]
    fn a_mode_that_computes_differently_is_reported_with_the_case_and_both_outputs() {
        let mut e = RzAsRn { inner: Default::default(), modes: BOTH, broken: &[Exec::Compiled] };
        let r = compare_modes(&mut e, &items()).unwrap();
        assert_eq!(r.disagreements.len(), 1, "{r:?}");
        let d = &r.disagreements[0];
        assert!(d.program.contains("add.rz.f32"), "{}", d.program);
        assert_eq!((d.inputs.clone(), d.isa.clone(), d.compiled.clone()), (vec!["0x3f000000".into(), "0x33040000".into()], vec!["0x3f000000".into()], vec!["0x3f000001".into()]));
        assert_eq!((d.differing_cases, d.cases), (1, 2));
        assert!(program_of(d).is_ok());
    }

    #[test]
    fn an_engine_with_one_mode_is_refused_with_what_to_use() {
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Compiled], broken: &[] };
        let err = compare_modes(&mut e, &items()).unwrap_err().to_string();
        assert!(err.contains("cuda on a machine with an NVIDIA GPU"), "{err}");
    }
}
