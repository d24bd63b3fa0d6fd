//! `ClusterKey`: the cluster a finding belongs to, one per root cause rather than one per
//! signature. An explained finding (`ptx::explain`) is keyed by the explanation's id and the
//! family it applies to (`bf16-as-f16~fma.bf16`, whatever the rounding mode, clamp, packing,
//! operand classes or mismatch class); an unexplained one by its form and mismatch class
//! (`unexplained~add.rn.f32~gross`). Worker and server compute it here, one way.

use std::fmt;

use std::collections::BTreeMap;
use std::sync::Mutex;

use ptx::explain::program::explain_statement;
use ptx::explain::{explain, explain_judged, Case, Explanation};
use ptx::isa::Instr;
use ptx::profile::Profile;
use ptx::program::Program;
use ptx::value::parse_hex;
use serde::{Deserialize, Serialize};

use crate::repro::Reproducer;
use crate::Exec;

/// Why a reproducer's finding could not be turned into an instruction and its cases.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("the reproducer's program does not parse ({0}); was it written by this ptxfuzz version?")]
    Program(String),
    #[error("the reproducer's value {0:?} is not a hex bit pattern; repair or re-minimize the finding")]
    Value(String),
    #[error("the reproducer names failing output {0}, which the program does not have")]
    Output(usize),
    #[error("the reproducer holds {got} input(s) for a program taking {expected}; repair its `inputs` or re-minimize the finding")]
    Inputs { expected: usize, got: usize },
    #[error("the reproducer's `actual` holds {got} value(s) and has none for failing output {output}; repair it or re-minimize the finding")]
    Actual { output: usize, got: usize },
}

/// The cluster of a finding. Its string form ([`ClusterKey::key`]) is stable and file-name safe.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ClusterKey {
    /// The explanation's catalogue id; `None` when unexplained.
    pub explanation: Option<String>,
    /// Explained: the family (`fma.bf16`); unexplained: the form (`fma.rz.bf16`, or `input`).
    pub scope: String,
    /// Unexplained only: the mismatch class (`gross`); explained findings ignore it.
    pub mismatch: Option<String>,
}

impl ClusterKey {
    pub fn explained(e: &Explanation) -> ClusterKey {
        ClusterKey { explanation: Some(e.id.to_string()), scope: e.family_key.clone(), mismatch: None }
    }

    pub fn unexplained(form: &str, mismatch: &str) -> ClusterKey {
        ClusterKey { explanation: None, scope: form.to_string(), mismatch: Some(mismatch.to_string()) }
    }

    /// `bf16-as-f16~fma.bf16` or `unexplained~fma.rz.bf16~gross`.
    pub fn key(&self) -> String {
        match (&self.explanation, &self.mismatch) {
            (Some(id), _) => format!("{id}~{}", self.scope),
            (None, m) => format!("unexplained~{}~{}", self.scope, m.as_deref().unwrap_or("-")),
        }
    }
}

impl fmt::Display for ClusterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// The statement a finding's first failing output comes from, as the interpreter runs the
/// program up to it: every register before it (inputs, then earlier statements at their
/// primary result), the statement's index and the target's bits. `None` when the output is
/// an input, or an earlier statement cannot be evaluated (nothing to explain with).
struct Failing {
    program: Program,
    regs: Vec<u64>,
    stmt: usize,
    got: u64,
}

impl Failing {
    /// The failing statement's instruction and its case: operands and the target's bits.
    fn case(&self) -> (Instr, Case) {
        let s = &self.program.body()[self.stmt];
        let operands = s.srcs().iter().map(|r| self.regs[r.0 as usize]).collect();
        (s.instr, Case { operands, got: self.got })
    }
}

fn failing(r: &Reproducer) -> Result<Option<Failing>, ClusterError> {
    let program = Program::from_json(&r.program.to_string()).map_err(|e| ClusterError::Program(e.to_string()))?;
    let hex = |s: &String| {
        let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
        parse_hex(digits).ok_or_else(|| ClusterError::Value(s.clone()))
    };
    // Every register the statements read is an input or an earlier result: a short `inputs`
    // would be read past its end.
    if r.inputs.len() != program.inputs().len() {
        return Err(ClusterError::Inputs { expected: program.inputs().len(), got: r.inputs.len() });
    }
    let mut regs: Vec<u64> = r.inputs.iter().map(hex).collect::<Result<_, _>>()?;
    let out = *r.failing_outputs.first().unwrap_or(&0);
    let reg = *program.outputs().get(out).ok_or(ClusterError::Output(out))?;
    let got = hex(r.actual.get(out).ok_or(ClusterError::Actual { output: out, got: r.actual.len() })?)?;
    let Some(stmt) = program.definition(reg) else { return Ok(None) };
    for s in &program.body()[..stmt] {
        let operands: Vec<u64> = s.srcs().iter().map(|s| regs[s.0 as usize]).collect();
        let Ok(e) = ptx::interp::eval(&s.instr, &operands) else { return Ok(None) };
        regs.push(e.primary_bits());
    }
    Ok(Some(Failing { program, regs, stmt, got }))
}

/// The instruction a finding's first failing output comes from, and its recorded case: the
/// operands as the interpreter computes them from the inputs (earlier instructions at their
/// primary result) and the target's bits. `None` as instruction when the output is an input.
pub fn finding_case(r: &Reproducer) -> Result<Option<(Instr, Vec<Case>)>, ClusterError> {
    Ok(failing(r)?.map(|f| {
        let (instr, case) = f.case();
        (instr, vec![case])
    }))
}

/// The hardware profile a reproducer was judged against (`repro.json`'s `judge`), parsed once
/// a process (`Profile::named` reads its JSON, and the server clusters every finding it takes
/// in); `None` for `spec` and for a name this version does not know, whose findings are
/// explained against the spec as before the field existed.
pub fn hardware_judge(name: &str) -> Option<&'static Profile> {
    static KNOWN: Mutex<BTreeMap<String, &'static Profile>> = Mutex::new(BTreeMap::new());
    let mut known = KNOWN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(p) = known.get(name) {
        return Some(*p);
    }
    // One leak a profile name (`sm_90`): an unknown name is not kept.
    let p = Profile::named(name).ok().filter(|p| !matches!(p, Profile::Spec))?;
    let p: &'static Profile = Box::leak(Box::new(p));
    known.insert(name.to_string(), p);
    Some(p)
}

/// A finding's explanation (if any) and its cluster. A finding of a compiled program (one
/// kernel) may be a whole-program rewrite of ptxas (`ptx::explain::program`: a `neg` folded
/// into the `set` feeding it, two conversions fused), tried around the catalogue as
/// `modes-check` does; an `isa` finding ran every instruction alone, so only the catalogue
/// can explain it. A finding judged against a hardware profile (`--judge sm_90`) whose
/// result the spec allows is `spec-allowed` (`ptx::explain::explain_judged`).
pub fn cluster_of(r: &Reproducer) -> Result<(Option<Explanation>, ClusterKey), ClusterError> {
    let Some(f) = failing(r)? else {
        return Ok((None, ClusterKey::unexplained("input", &r.class)));
    };
    let (instr, case) = f.case();
    let judge = hardware_judge(&r.judge);
    let explanation = match (r.exec, judge) {
        (Exec::Compiled, _) => explain_statement(&f.program, f.stmt, f.got, &|reg| f.regs[reg.0 as usize])
            .or_else(|| judge.and_then(|p| explain_judged(p, &instr, &[case]))),
        (Exec::Isa, Some(p)) => explain_judged(p, &instr, &[case]),
        (Exec::Isa, None) => explain(&instr, &[case]),
    };
    Ok(match explanation {
        Some(e) => {
            let key = ClusterKey::explained(&e);
            (Some(e), key)
        }
        None => (None, ClusterKey::unexplained(&instr.to_string(), &r.class)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn the_h100_campaign_clusters_its_bf16_fma_findings_by_how_ptxas_lowers_them() {
        let d = crate::folder::tests::tempdir::unpack("../../shared/hw/h100-sm90/campaign-60s.tar.gz", "cluster")
            .expect("unpack the campaign tarball");
        let reports = crate::folder::read_campaign(&d.0.join("campaign")).unwrap();
        assert_eq!(reports.len(), 281);
        let mut clusters: BTreeMap<String, usize> = BTreeMap::new();
        // Per form, the clusters its findings land in: ptxas 13.5 lowers the scalar forms
        // through f16 and f32 (HADD2.F32, FFMA.RZ/RM/RP, F2FP.F16.F32) and the packed ones to
        // HFMA2.MMA.BF16_V2, bf16 to nearest (docs/triage.md).
        let (mut scalar, mut packed) = (BTreeMap::<String, usize>::new(), BTreeMap::<String, usize>::new());
        let mut bf16_fma = 0;
        for report in &reports {
            let r = &report.reproducer;
            let (e, key) = cluster_of(r).unwrap();
            *clusters.entry(key.key()).or_default() += 1;
            let (instr, cases) = finding_case(r).unwrap().unwrap();
            if let Some(e) = &e {
                assert!(cases.iter().all(|c| e.reproduces(&instr, c)), "{} not reproduced by {e:?}", r.signature);
            }
            if r.signature.starts_with("fma.r") && instr.ty.scalar() == ptx::Scalar::BF16 {
                bf16_fma += 1;
                let by_packing = if instr.ty.lanes() == 1 { &mut scalar } else { &mut packed };
                *by_packing.entry(key.key()).or_default() += 1;
            }
        }
        let mut sizes: Vec<_> = clusters.iter().collect();
        sizes.sort_by_key(|(k, n)| (std::cmp::Reverse(**n), (*k).clone()));
        println!("{} clusters over {} findings:", clusters.len(), reports.len());
        for (k, n) in &sizes {
            println!("{n:5}  {k}");
        }
        assert_eq!(bf16_fma, 275);
        assert_eq!(scalar, [("bf16-as-f16~fma.bf16".to_string(), 213)].into(), "every scalar one computed as f16");
        assert_eq!(packed, [("other-rounding~fma.bf16".to_string(), 62)].into(), "every packed one rounded to nearest");
        assert_eq!(sizes[0], (&"bf16-as-f16~fma.bf16".to_string(), &213));
        assert!(clusters.keys().all(|k| !k.starts_with("unexplained")), "{clusters:?}");
        assert!(clusters.len() <= 8, "{} clusters", clusters.len());
    }

    /// The H200's compiled `neg.f16~signed-zero` finding as a minimized reproducer: `set.gt` of
    /// 1 and 2 (false: +0), then `neg.f16`, whose -0 came back +0 from the compiled kernel.
    fn neg_of_a_set(exec: crate::Exec) -> Reproducer {
        let program = Program::parse("// inputs: %h0:f16, %h1:f16\nset.gt.f16.f16 %h2, %h0, %h1;\nneg.f16 %h3, %h2;\n// outputs: %h3\n").unwrap();
        Reproducer {
            signature: "neg.f16~signed-zero~zero~sm90".into(),
            class: "signed-zero".into(),
            program: serde_json::from_str(&program.to_json()).unwrap(),
            program_text: program.to_string(),
            inputs: vec!["0x3c00".into(), "0x4000".into()],
            inputs_decimal: vec!["1".into(), "2".into()],
            expected: vec!["0x8000".into()],
            actual: vec!["0x0000".into()],
            exec,
            ..crate::repro::files::tests::sample()
        }
    }

    #[test]
    fn a_compiled_finding_of_a_neg_folded_into_its_set_clusters_by_that_rewrite_and_an_isa_one_by_the_catalogue() {
        let (e, key) = cluster_of(&neg_of_a_set(crate::Exec::Compiled)).unwrap();
        assert_eq!(key.key(), "neg-folded-into-set~neg.f16");
        assert!(e.unwrap().model.is_none(), "a rewrite has no one-instruction model");
        // On the VM every instruction runs alone: no rewrite can have happened there.
        let (e, key) = cluster_of(&neg_of_a_set(crate::Exec::Isa)).unwrap();
        assert_eq!(key.key(), "folded-to-operand~neg.f16");
        assert!(e.is_some_and(|e| e.model.is_some()));
    }

    #[test]
    fn a_finding_judged_by_a_gpu_profile_that_the_spec_allows_clusters_as_spec_allowed() {
        // The interpreter's f64 NaN payload for `add.rn.f64` of two NaNs, judged against the
        // H100's (`campaign --target interp --judge sm_90`): the payload of the first operand
        // quieted is what the spec allows; the H100 takes the other operand's.
        let program = Program::parse("// inputs: %fd0:f64, %fd1:f64
add.rn.f64 %fd2, %fd0, %fd1;
// outputs: %fd2
").unwrap();
        let (a, b) = (0x7ff0_0000_0000_0001u64, 0x7ff8_0000_0000_0002u64);
        let op = Instr::parse_default("add.rn.f64").unwrap();
        let allowed = ptx::interp::eval(&op, &[a, b]).unwrap();
        let sm90 = Profile::named("sm_90").unwrap();
        let ptx::profile::Resolved::One(gpu) = sm90.resolve(&op, &[a, b], &allowed) else { panic!("sm_90 claims add.rn.f64") };
        // A NaN the spec allows that is not the H100's.
        let got = [a | 1 << 51, b, 0x7fff_ffff_ffff_ffff].into_iter().find(|&v| v != gpu && allowed.accepts(v)).expect("another allowed NaN");
        let r = Reproducer {
            signature: "add.rn.f64~nan-payload~nan.nan~sm-".into(),
            class: "nan-payload".into(),
            program: serde_json::from_str(&program.to_json()).unwrap(),
            program_text: program.to_string(),
            inputs: vec![format!("{a:#018x}"), format!("{b:#018x}")],
            inputs_decimal: vec!["nan".into(), "nan".into()],
            expected: vec![format!("{gpu:#018x}")],
            actual: vec![format!("{got:#018x}")],
            failing_outputs: vec![0],
            judge: "sm_90".into(),
            exec: crate::Exec::Isa,
            ..crate::repro::files::tests::sample()
        };
        let (e, key) = cluster_of(&r).unwrap();
        assert_eq!(key.key(), "spec-allowed~add.f64");
        assert!(e.unwrap().detail.starts_with(&format!("sm_90 gives {gpu:#018x}")));
        // Judged by the spec the same result is nothing the catalogue explains; a judge this
        // version does not know is read as the spec.
        for judge in ["spec", "sm_999"] {
            let (e, key) = cluster_of(&Reproducer { judge: judge.into(), ..r.clone() }).unwrap();
            assert!(e.is_none() && key.key() == "unexplained~add.rn.f64~nan-payload", "{judge}: {key}");
        }
    }

    #[test]
    fn a_reproducer_short_of_inputs_or_actual_values_is_an_error_naming_the_field_not_a_panic() {
        let sample = crate::repro::files::tests::sample;
        for keep in [0, 1] {
            let mut r = sample();
            r.inputs.truncate(keep);
            let e = cluster_of(&r).unwrap_err();
            assert!(matches!(e, ClusterError::Inputs { expected: 2, got } if got == keep), "{e}");
            assert!(e.to_string().contains("inputs"), "{e}");
        }
        let e = cluster_of(&Reproducer { actual: vec![], ..sample() }).unwrap_err();
        assert!(matches!(e, ClusterError::Actual { output: 0, got: 0 }), "{e}");
        assert!(e.to_string().contains("`actual`"), "{e}");
        assert!(cluster_of(&sample()).is_ok(), "the sample itself clusters");
    }

    #[test]
    fn a_cluster_key_reads_as_its_explanation_and_family_or_form_and_class() {
        assert_eq!(
            ClusterKey { explanation: Some("bf16-as-f16".into()), scope: "fma.bf16".into(), mismatch: None }.key(),
            "bf16-as-f16~fma.bf16"
        );
        assert_eq!(ClusterKey::unexplained("add.rn.f32", "gross").key(), "unexplained~add.rn.f32~gross");
    }
}
