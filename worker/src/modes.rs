//! One engine's two execution modes against each other: the same programs and cases run on
//! the instruction VM (`isa`) and as whole-program kernels (`compiled`), output by output.
//! Issue 12's GPU check: "the VM and the whole-program JIT agree except where a listed
//! compiler effect explains the difference". The modes are compared raw (no reference, no
//! tolerance): what differs is either a compiler effect (contraction, folding, the bf16 `fma`
//! lowering of `../shared/hw/h100-sm90/findings/`) or a bug in one of the two paths.
//! [`classify`] tells them apart, statement by statement through both modes' traces: a
//! differing result either is one the PTX ISA allows on its operands (a NaN payload the
//! compiler chose by commuting operands; a consequence of a difference upstream), or a
//! catalogue entry of `ptx::explain` (a fold, a dropped `.abs`, another NaN rule) or one of
//! its whole-program rewrites (`ptx::explain::program`: two statements compiled as one)
//! reproduces it, or nothing does: only that last kind is a real disagreement.

use ptx::explain::program::explain_statement;
use ptx::interp::eval;
use ptx::program::Program;

use crate::campaign::source::Item;
use crate::oracles::{Engine, Exec, Job};

/// A case whose outputs differ between the modes (the first of its program).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
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
    /// Per differing output of the case: what explains it ([`classify`]).
    #[serde(default)]
    pub causes: Vec<Cause>,
}

/// What explains one differing output.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cause {
    /// The statement (index in the program's body) whose result differs, and its PTX text.
    pub stmt: usize,
    pub instr: String,
    /// `allowed`, `propagated`, a catalogue id of `ptx::explain` (`folded-to-operand`,
    /// `nan-canonical`, ...), a whole-program rewrite of `ptx::explain::program::REWRITES`
    /// (`half-conversions-fused`, `neg-folded-into-set`, ...) or `unexplained` ([`classify`]).
    pub by: String,
}

impl Cause {
    pub fn is_explained(&self) -> bool {
        self.by != "unexplained"
    }
}

impl Disagreement {
    /// Whether every differing output has an explanation (a compiler effect, not a bug).
    pub fn is_explained(&self) -> bool {
        !self.causes.is_empty() && self.causes.iter().all(Cause::is_explained)
    }
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

/// Whether `engine` runs programs both ways (isa and compiled): what [`compare_modes`] needs,
/// asked before anything is written.
pub fn both_modes(engine: &dyn Engine) -> Result<(), OneMode> {
    let modes = engine.exec_modes();
    if modes.contains(&Exec::Isa) && modes.contains(&Exec::Compiled) {
        return Ok(());
    }
    let modes = modes.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ");
    Err(OneMode { engine: engine.info().name.clone(), modes })
}

/// Run `items` in both modes on `engine` and compare every output bit for bit.
pub fn compare_modes(engine: &mut dyn Engine, items: &[Item]) -> Result<ModesReport, OneMode> {
    both_modes(engine)?;
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
            let inputs = &item.cases[c * n_in..(c + 1) * n_in];
            let compiled = b.values.get(c * n_out..(c + 1) * n_out).unwrap_or_default();
            report.disagreements.push(Disagreement {
                program: item.program.to_string(),
                inputs: hexes(inputs),
                isa: hexes(a.values.get(c * n_out..(c + 1) * n_out).unwrap_or_default()),
                compiled: hexes(compiled),
                differing_cases: differing.len(),
                cases,
                causes: classify(engine, &item.program, inputs, compiled),
            });
        }
    }
    Ok(report)
}

/// The `instr` of the cause when the outputs differ but no statement does.
pub const NO_STATEMENT_DIFFERS: &str = "(no statement differs)";

/// Why the compiled outputs of one case differ from the VM's.
///
/// The VM's intermediate results come from a traced `isa` job: on a GPU the engine runs it on
/// the VM as the program with every result an output (`Program::traced`), each instruction
/// alone. (The binary of call 2 on the H200 ran it as one kernel with a store after each
/// instruction; ptxas still commuted its operands, so its NaN payloads were the compiled ones.)
///
/// With a `compiled` trace (used only when its outputs are the compiled run's and each output
/// is its statement's traced result, so the stores changed nothing): every statement whose
/// compiled result differs from the VM's, in program order, judged on the operands the
/// compiled kernel gave it: `allowed` (same operands as on the VM, and the PTX ISA accepts the
/// result), `propagated` (an operand differed upstream, and the PTX ISA allows the result on
/// those operands), a catalogue or rewrite id, or `unexplained`. Without one (an engine with
/// one mode, such as `exec-reference` reclassifying a GPU run's file): each differing output's
/// statement on the VM's operands; where that fails and an operand is a NaN, `propagated` if
/// the PTX ISA allows the result with that operand replaced by another NaN of the case (a NaN
/// whose payload or sign a statement upstream was free to choose).
pub fn classify(engine: &mut dyn Engine, program: &Program, inputs: &[u64], compiled: &[u64]) -> Vec<Cause> {
    let unexplained = |stmt: usize, instr: String| Cause { stmt, instr, by: "unexplained".into() };
    let n_out = program.outputs().len();
    let n_body = program.body().len();
    let Some(isa) = trace(engine, program, inputs, Exec::Isa) else { return vec![unexplained(0, "(the isa run faulted)".into())] };
    // The value of register r in a trace: an input, or the result of the statement defining it.
    let value = |t: &[u64], r: ptx::program::Reg| match program.definition(r) {
        Some(k) => t[n_out + k],
        None => inputs[r.0 as usize],
    };
    let judge = |k: usize, ops: Vec<u64>, same_operands: bool, got: u64, t: &[u64]| {
        let instr = program.body()[k].instr;
        let allows = |ops: &[u64]| eval(&instr, ops).is_ok_and(|e| e.accepts(got));
        let by = if allows(&ops) {
            if same_operands { "allowed" } else { "propagated" }.to_string()
        } else if let Some(e) = explain_statement(program, k, got, &|r| value(t, r)) {
            // A whole-program rewrite of ptxas (a `neg` folded into a `set`, two conversions
            // fused) or a catalogue entry on the statement's operands.
            e.id.to_string()
        } else if same_operands && nan_alternatives(&instr, &ops, inputs, &isa).iter().any(|alt| allows(alt)) {
            "propagated".to_string()
        } else {
            "unexplained".to_string()
        };
        Cause { stmt: k, instr: instr.to_string(), by }
    };
    let compiled_trace = if engine.exec_modes().contains(&Exec::Compiled) { trace(engine, program, inputs, Exec::Compiled) } else { None };
    let faithful = |ct: &Vec<u64>| {
        ct[..n_out] == *compiled && program.outputs().iter().enumerate().all(|(s, &r)| program.definition(r).is_none_or(|k| ct[n_out + k] == ct[s]))
    };
    if let Some(ct) = compiled_trace.filter(faithful) {
        let causes: Vec<Cause> = (0..n_body)
            .filter(|&k| ct[n_out + k] != isa[n_out + k])
            .map(|k| {
                let srcs = program.body()[k].srcs();
                let ops: Vec<u64> = srcs.iter().map(|&r| value(&ct, r)).collect();
                let same = srcs.iter().all(|&r| value(&ct, r) == value(&isa, r));
                judge(k, ops, same, ct[n_out + k], &ct)
            })
            .collect();
        if !causes.is_empty() {
            return causes;
        }
    }
    let mut causes = Vec::new();
    for (slot, (&r, &got)) in program.outputs().iter().zip(compiled).enumerate() {
        if isa[slot] == got {
            continue;
        }
        match program.definition(r) {
            Some(k) => causes.push(judge(k, program.body()[k].srcs().iter().map(|&s| value(&isa, s)).collect(), true, got, &isa)),
            None => causes.push(unexplained(usize::MAX, format!("(output {slot} is an input)"))),
        }
    }
    if causes.is_empty() {
        // The outputs differ, yet no statement does: the VM's run and the compiled one are
        // inconsistent with themselves.
        causes.push(unexplained(usize::MAX, NO_STATEMENT_DIFFERS.into()));
    }
    causes
}

/// One case's trace in mode `exec` (outputs, then every statement's result); `None` if it
/// faults or comes back short.
/// Why one recorded case of `program` (a `--differ` line being reclassified) cannot be run:
/// another number of inputs than the program reads or of compiled outputs than it writes, or
/// an input wider than its register. Checked before [`classify`], whose engine would refuse
/// such a job and leave only "the isa run faulted" to say, with no word on the file's line.
pub fn case_shape(program: &Program, inputs: &[u64], compiled: &[u64]) -> Result<(), String> {
    let (n_in, n_out) = (program.inputs().len(), program.outputs().len());
    if inputs.len() != n_in {
        return Err(format!("\"inputs\" has {} value(s), the program reads {n_in}", inputs.len()));
    }
    if compiled.len() != n_out {
        return Err(format!("\"compiled\" has {} value(s), the program writes {n_out} output(s)", compiled.len()));
    }
    Job::new(program, inputs, false).check().map_err(|f| format!("\"inputs\": {f}"))
}

fn trace(engine: &mut dyn Engine, program: &Program, inputs: &[u64], exec: Exec) -> Option<Vec<u64>> {
    match engine.run(&[Job::new(program, inputs, true).with_exec(exec)]).pop() {
        Some(Ok(o)) if o.values.len() == program.outputs().len() + program.body().len() => Some(o.values),
        _ => None,
    }
}

/// `ops` with NaN operands (of a one-lane form) replaced by each other NaN of the same width
/// met in the case (its inputs and the VM's results), as is and with its sign flipped: the
/// operands a statement upstream could have given, had it chosen another NaN.
fn nan_alternatives(instr: &ptx::isa::Instr, ops: &[u64], inputs: &[u64], isa: &[u64]) -> Vec<Vec<u64>> {
    if instr.ty.lanes() != 1 {
        return vec![];
    }
    let s = instr.ty.scalar();
    let sign = 1u64 << (s.bits() - 1);
    let mut pool: Vec<u64> = inputs.iter().chain(isa).copied().filter(|&v| v <= s.mask() && s.is_nan(v)).flat_map(|v| [v, v ^ sign]).collect();
    pool.sort_unstable();
    pool.dedup();
    let nan_slots: Vec<usize> = (0..ops.len()).filter(|&i| s.is_nan(ops[i])).collect();
    let mut out = Vec::new();
    for &i in &nan_slots {
        for &p in &pool {
            let mut alt = ops.to_vec();
            alt[i] = p;
            // The same NaN register read twice (fma a, b, a) is one choice upstream.
            for &j in &nan_slots {
                if ops[j] == ops[i] {
                    alt[j] = p;
                }
            }
            out.push(alt);
        }
    }
    out
}

fn hexes(v: &[u64]) -> Vec<String> {
    v.iter().map(|x| format!("0x{x:x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smoke::tests::RzAsRn;

    const BOTH: &[Exec] = &[Exec::Compiled, Exec::Isa];

    #[test]
    fn a_reclassified_case_with_too_few_inputs_or_outputs_is_refused_with_the_counts() {
        let p = Program::parse("// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n").unwrap();
        assert_eq!(case_shape(&p, &[1], &[2]).unwrap_err(), "\"inputs\" has 1 value(s), the program reads 2");
        assert_eq!(case_shape(&p, &[1, 1], &[]).unwrap_err(), "\"compiled\" has 0 value(s), the program writes 1 output(s)");
        assert!(case_shape(&p, &[1, 1 << 32], &[2]).unwrap_err().starts_with("\"inputs\": "));
        assert!(case_shape(&p, &[1, 1], &[2]).is_ok());
    }

    fn items() -> Vec<Item> {
        let add = |op: &str| Program::parse(&format!("// inputs: %f0:f32, %f1:f32\n{op}.f32 %f2, %f0, %f1;\n// outputs: %f2\n")).unwrap();
        // 0.5 + 2^-25: round-to-zero and round-to-nearest differ; 1 + 1: they agree.
        let cases = vec![0x3f00_0000, 0x3304_0000, 0x3f80_0000, 0x3f80_0000];
        vec![
            Item { program: add("add.rz"), cases: cases.clone(), origin: None, done: None },
            Item { program: add("add.rn"), cases, origin: None, done: None },
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
        assert!(Program::parse(&d.program).is_ok());
        // add.rz computed as add.rn: the catalogue's "another rounding mode".
        assert_eq!(d.causes, vec![Cause { stmt: 0, instr: "add.rz.f32".into(), by: "other-rounding".into() }]);
        assert!(d.is_explained());
    }

    #[test]
    fn a_difference_downstream_of_another_is_propagated() {
        let p = Program::parse("// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f2;\n// outputs: %f3\n").unwrap();
        let mut e = RzAsRn { inner: Default::default(), modes: BOTH, broken: &[Exec::Compiled] };
        let r = compare_modes(&mut e, &[Item { program: p, cases: vec![0x3f00_0000, 0x3304_0000], origin: None, done: None }]).unwrap();
        let by: Vec<_> = r.disagreements[0].causes.iter().map(|c| (c.stmt, c.by.as_str())).collect();
        assert_eq!(by, [(0, "other-rounding"), (1, "propagated")]);
    }

    #[test]
    fn a_difference_no_catalogue_entry_reproduces_is_unexplained() {
        // Compiled as add.rz where isa computes add.rn is another rounding too; a result no
        // rounding of 0.5 + 2^-25 gives (0x3f000002) is not.
        let p = Program::parse("// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n").unwrap();
        // One mode: no compiled trace, so the output's statement is judged on the VM's operands.
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Isa], broken: &[] };
        let c = classify(&mut e, &p, &[0x3f00_0000, 0x3304_0000], &[0x3f00_0002]);
        assert_eq!(c, vec![Cause { stmt: 0, instr: "add.rn.f32".into(), by: "unexplained".into() }]);
        let c = classify(&mut e, &p, &[0x3f00_0000, 0x3304_0000], &[0x3f00_0000]);
        assert_eq!(c[0].by, "other-rounding");
    }

    #[test]
    fn without_a_compiled_trace_a_nan_another_statement_could_have_chosen_is_propagated() {
        // add of two quiet NaNs may give any NaN (the PTX ISA leaves payload and sign open);
        // copysign then gives %fd1 the sign of whichever NaN add gave: a negative one here.
        let p = Program::parse("// inputs: %fd0:f64, %fd1:f64\nadd.rn.f64 %fd2, %fd0, %fd1;\ncopysign.f64 %fd3, %fd2, %fd1;\n// outputs: %fd3\n").unwrap();
        let (a, b) = (0x7ff8_0000_0000_0001u64, 0x7ff8_0000_0000_0002u64);
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Isa], broken: &[] };
        assert_eq!(p.run(&[a, b]).unwrap()[0].primary_bits(), b, "the VM's copysign keeps %fd1's sign");
        let c = classify(&mut e, &p, &[a, b], &[b | 1 << 63]);
        assert_eq!(c, vec![Cause { stmt: 1, instr: "copysign.f64".into(), by: "propagated".into() }]);
        // A result no NaN of the case could have led to stays unexplained.
        let c = classify(&mut e, &p, &[a, b], &[0xfff8_0000_0000_0077]);
        assert_eq!(c[0].by, "unexplained");
    }

    #[test]
    fn a_result_that_is_the_source_of_a_neg_or_abs_feeding_the_statement_is_folded_to_operand() {
        // The H200's modes-check (docs/hardware/nvidia-h200-2026-11-29/modes.jsonl, first line):
        // neg.f16x2 then max.xorsign.abs.f16x2 r, r gave the neg's operand itself.
        let p = Program::parse(
            "// inputs: %r0:f16x2\nneg.f16x2 %r1, %r0;\nmax.xorsign.abs.f16x2 %r2, %r1, %r1;\n// outputs: %r2\n",
        )
        .unwrap();
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Isa], broken: &[] };
        let x = 0x993e_8200;
        assert_eq!(p.run(&[x]).unwrap()[0].primary_bits(), 0x193e_0200, "the VM: |x| per lane");
        let c = classify(&mut e, &p, &[x], &[x]);
        assert_eq!(c, vec![Cause { stmt: 1, instr: "max.xorsign.abs.f16x2".into(), by: "folded-to-operand".into() }]);
        // Another value (x with its last bit changed) stays unexplained.
        let c = classify(&mut e, &p, &[x], &[0x993e_8201]);
        assert_eq!(c[0].by, "unexplained");
    }

    #[test]
    fn an_integer_cvt_that_reads_the_source_of_the_half_cvt_feeding_it_is_half_conversions_fused() {
        // The H200's third modes-check (docs/hardware/nvidia-h200-2026-12-04, modes.jsonl): the
        // compiled kernel gave -608 (0xe0c1 read as f16 is -608.5, truncated), not -65504.
        let p = Program::parse("// inputs: %h0:bf16\ncvt.rz.f16.bf16 %h1, %h0;\ncvt.rzi.sat.s32.f16 %r2, %h1;\n// outputs: %r2\n").unwrap();
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Isa], broken: &[] };
        assert_eq!(p.run(&[0xe0c1]).unwrap()[0].primary_bits(), 0xffff_0020, "the VM: -65504, f16's largest");
        let c = classify(&mut e, &p, &[0xe0c1], &[0xffff_fda0]);
        assert_eq!(c, vec![Cause { stmt: 1, instr: "cvt.rzi.sat.s32.f16".into(), by: "half-conversions-fused".into() }]);
        // The first conversion's rounding is the fused one's: .rm of -608.5 is -609.
        let p = Program::parse("// inputs: %h0:bf16\ncvt.rm.f16.bf16 %h1, %h0;\ncvt.rzi.s32.f16 %r2, %h1;\n// outputs: %r2\n").unwrap();
        assert_eq!(classify(&mut e, &p, &[0xe0c1], &[(-609i32) as u32 as u64])[0].by, "half-conversions-fused");
        assert_eq!(classify(&mut e, &p, &[0xe0c1], &[(-608i32) as u32 as u64])[0].by, "unexplained");
        // A .rni second conversion is not fused by ptxas: the same result stays unexplained.
        let p = Program::parse("// inputs: %h0:bf16\ncvt.rz.f16.bf16 %h1, %h0;\ncvt.rni.s32.f16 %r2, %h1;\n// outputs: %r2\n").unwrap();
        assert_eq!(classify(&mut e, &p, &[0xe0c1], &[(-608i32) as u32 as u64])[0].by, "unexplained");
    }

    #[test]
    fn a_neg_of_a_float_set_that_keeps_the_sets_positive_zero_is_neg_folded_into_set() {
        // The H200's third run (docs/hardware/nvidia-h200-2026-12-04, run 3): ptxas selects
        // -1.0 or +0 for `neg` of a `set`, so a false comparison gives +0, not -0.
        let p = Program::parse("// inputs: %h0:f16, %h1:f16\nset.gt.f16.f16 %h2, %h0, %h1;\nneg.f16 %h3, %h2;\n// outputs: %h3\n").unwrap();
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Isa], broken: &[] };
        let (one, two) = (0x3c00, 0x4000);
        assert_eq!(p.run(&[one, two]).unwrap()[0].primary_bits(), 0x8000, "the VM: neg of +0 is -0");
        assert_eq!(classify(&mut e, &p, &[one, two], &[0x0000])[0].by, "neg-folded-into-set");
        // A true comparison gives -1.0 in both; any other result stays unexplained.
        assert_eq!(p.run(&[two, one]).unwrap()[0].primary_bits(), 0xbc00);
        assert_eq!(classify(&mut e, &p, &[one, two], &[0x3c00])[0].by, "unexplained");
        // f32, over f64 operands (DSETP, then FSEL R, RZ, -1 in the SASS).
        let p = Program::parse("// inputs: %fd0:f64, %fd1:f64\nset.ne.f32.f64 %f2, %fd0, %fd1;\nneg.f32 %f3, %f2;\n// outputs: %f3\n").unwrap();
        assert_eq!(classify(&mut e, &p, &[0, 0], &[0])[0].by, "neg-folded-into-set");
        // A pair is not folded (no SASS shows it): a lane that kept +0 stays unexplained.
        let p = Program::parse("// inputs: %r0:f16x2, %r1:f16x2\nset.gt.f16x2.f16x2 %r2, %r0, %r1;\nneg.f16x2 %r3, %r2;\n// outputs: %r3\n").unwrap();
        let (a, b) = (0x4000_3c00, 0x3c00_4000);
        assert_eq!(p.run(&[a, b]).unwrap()[0].primary_bits(), 0xbc00_8000);
        assert_eq!(classify(&mut e, &p, &[a, b], &[0xbc00_0000])[0].by, "unexplained");
        // A neg of anything but a set keeping a +0 is not this cause (the catalogue's
        // folded-to-operand names it).
        let p = Program::parse("// inputs: %h0:f16, %h1:f16\nsub.rn.f16 %h2, %h0, %h1;\nneg.f16 %h3, %h2;\n// outputs: %h3\n").unwrap();
        assert_eq!(classify(&mut e, &p, &[one, one], &[0x0000])[0].by, "folded-to-operand");
    }

    #[test]
    fn an_integer_cvt_of_a_half_set_read_as_the_other_half_that_gives_its_truth_value_is_set_converted_by_value() {
        // The H200's run 2 (docs/hardware/nvidia-h200-2026-12-04): set.nan.f16.f16 then
        // cvt.rni.u32.bf16 gave 1 where the set was true; 0x3c00 read as bf16 is 2^-7, so 0.
        let p = Program::parse("// inputs: %h0:f16, %h1:f16\nset.nan.f16.f16 %h2, %h0, %h1;\ncvt.rni.u32.bf16 %r3, %h2;\n// outputs: %r3\n").unwrap();
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Isa], broken: &[] };
        let (nan, one) = (0x7e00, 0x3c00);
        assert_eq!(p.run(&[nan, one]).unwrap()[0].primary_bits(), 0, "the VM: 2^-7 rounds to 0");
        assert_eq!(classify(&mut e, &p, &[nan, one], &[1])[0].by, "set-converted-by-value");
        assert_eq!(classify(&mut e, &p, &[nan, one], &[2])[0].by, "unexplained");
        // A bf16 set read as f16: 0x3f80 is 1.875, 2 with .rni; ptxas gives 1.
        let p = Program::parse("// inputs: %h0:f16, %h1:f16\nset.gt.bf16.f16 %h2, %h0, %h1;\ncvt.rni.s32.f16 %r3, %h2;\n// outputs: %r3\n").unwrap();
        let two = 0x4000;
        assert_eq!(p.run(&[two, one]).unwrap()[0].primary_bits(), 2);
        assert_eq!(classify(&mut e, &p, &[two, one], &[1])[0].by, "set-converted-by-value");
        // The same 1 from a cvt whose source is no set is not this cause (the catalogue's
        // other-rounding fits it: 2^-7 rounded up).
        let p = Program::parse("// inputs: %h0:f16\nabs.f16 %h2, %h0;\ncvt.rni.u32.bf16 %r3, %h2;\n// outputs: %r3\n").unwrap();
        assert_eq!(classify(&mut e, &p, &[one], &[1])[0].by, "other-rounding");
    }

    #[test]
    fn an_engine_with_one_mode_is_refused_with_what_to_use() {
        let mut e = RzAsRn { inner: Default::default(), modes: &[Exec::Compiled], broken: &[] };
        let err = compare_modes(&mut e, &items()).unwrap_err().to_string();
        assert!(err.contains("cuda on a machine with an NVIDIA GPU"), "{err}");
    }
}
