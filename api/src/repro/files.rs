//! What a [`Reproducer`] turns back into: its case (program and input bits) and the
//! `repro.ptx` file (the `ptx::kernel` module with a header saying how to launch it). The
//! worker writes these into finding folders; the server offers them as downloads.

use ptx::kernel::{self, KernelError, Mode};
use ptx::program::{Program, ProgramError, RunError};
use ptx::value::parse_hex;

use super::Reproducer;

/// Why a stored reproducer cannot be turned back into a case or a file. Each message holds
/// its cause's, so none is a `source` too (`{:#}` would print it twice).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReproError {
    #[error("repro.json: bad program: {0}")]
    Program(ProgramError),
    #[error("repro.json: {got} input(s) for a program taking {expected}")]
    InputCount { expected: usize, got: usize },
    #[error("repro.json: {field} '{value}' is not 0x-prefixed hex")]
    Hex { field: &'static str, value: String },
    #[error("repro.json: cannot write the PTX module: {0}")]
    Kernel(KernelError),
    #[error("the reference cannot run the reproducer: {0}")]
    Run(RunError),
}

impl From<ProgramError> for ReproError {
    fn from(e: ProgramError) -> Self {
        ReproError::Program(e)
    }
}

impl From<KernelError> for ReproError {
    fn from(e: KernelError) -> Self {
        ReproError::Kernel(e)
    }
}

impl From<RunError> for ReproError {
    fn from(e: RunError) -> Self {
        ReproError::Run(e)
    }
}

fn hex(field: &'static str, s: &str) -> Result<u64, ReproError> {
    s.strip_prefix("0x").and_then(parse_hex).ok_or_else(|| ReproError::Hex { field, value: s.to_string() })
}

/// The program and input bits back from the stored form.
pub fn case(r: &Reproducer) -> Result<(Program, Vec<u64>), ReproError> {
    let program = Program::from_json(&r.program.to_string())?;
    if r.inputs.len() != program.inputs().len() {
        return Err(ReproError::InputCount { expected: program.inputs().len(), got: r.inputs.len() });
    }
    let inputs = r.inputs.iter().map(|s| hex("input", s)).collect::<Result<Vec<u64>, _>>()?;
    Ok((program, inputs))
}

/// The target's recorded bits per output.
pub fn actual_bits(r: &Reproducer) -> Result<Vec<u64>, ReproError> {
    r.actual.iter().map(|s| hex("actual value", s)).collect()
}

/// The `.ptx` file: the kernel module with a header saying how to launch it.
pub fn ptx_file(r: &Reproducer) -> Result<String, ReproError> {
    let (program, inputs) = case(r)?;
    let module = kernel::module(&[&program], r.arch(), Mode::Outputs)?;
    let mut s = String::new();
    s.push_str(&format!("// ptxfuzz reproducer: {}\n// target {} ({})\n", r.signature, r.target, r.device));
    if r.exec == crate::Exec::Isa {
        // This file is the whole-program kernel; the finding came from the instruction VM.
        s.push_str("// found in isa mode (each instruction alone, on the instruction VM): `ptxfuzz repro` re-runs it\n");
        s.push_str("// there; this kernel is the compiled form of the same program\n");
    }
    s.push_str("//\n");
    s.push_str("// Entry p0(.u64 in, .u64 out, .u32 n) runs the program once per thread on n cases\n");
    s.push_str("// (ptx::kernel layout): case i reads its inputs from 64-bit slots in[K*i + j] (value in\n");
    s.push_str("// the low bits) and writes output j, zero-extended, to out[M*i + j]. Launch it with\n");
    s.push_str(&format!(
        "// n = 1, K = {}, M = {} (repro.cu does, through cudaLibraryLoadData):\n",
        inputs.len(),
        r.expected.len()
    ));
    for (j, (h, d)) in r.inputs.iter().zip(&r.inputs_decimal).enumerate() {
        s.push_str(&format!("//   in[{j}]  = {h}   ({d})\n"));
    }
    for (j, (e, a)) in r.expected.iter().zip(&r.actual).enumerate() {
        s.push_str(&format!("//   out[{j}] allowed {e}; the target gave {a}\n"));
    }
    s.push_str("//\n");
    for line in r.program_text.lines() {
        s.push_str(&format!("// program: {line}\n"));
    }
    s.push('\n');
    s.push_str(&module);
    Ok(s)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::repro::FORMAT;

    /// add.rz(0.5, tiny) is 0.5; a target rounding to nearest would say 0x3f000001.
    pub(crate) fn sample() -> Reproducer {
        let program = Program::parse(
            "// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\ntestp.finite.f32 %p3, %f2;\n// outputs: %f2, %p3\n",
        )
        .unwrap();
        Reproducer {
            ptxfuzz_repro: FORMAT,
            signature: "add.rz.f32~rounding~normal.normal~sm90".into(),
            class: "rounding".into(),
            target: "exec:planted rz-as-rn".into(),
            device: "test".into(),
            sm: 90,
            variant: Default::default(),
            program: serde_json::from_str(&program.to_json()).unwrap(),
            program_text: program.to_string(),
            inputs: vec!["0x3f000000".into(), "0x33040000".into()],
            inputs_decimal: vec!["0.5".into(), "3.0733e-8".into()],
            expected: vec!["0x3f000000".into(), "1".into()],
            actual: vec!["0x3f000001".into(), "0x1".into()],
            failing_outputs: vec![0],
            found_after_cases: 0,
            original: None,
            probes: 0,
            steps: 0,
            judge: "spec".into(),
            exec: crate::Exec::Compiled,
            found_at: None,
        }
    }

    #[test]
    fn a_file_without_an_exec_field_is_compiled_and_isa_round_trips() {
        let mut v = serde_json::to_value(sample()).unwrap();
        v.as_object_mut().unwrap().remove("exec");
        let old: Reproducer = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(old.exec, crate::Exec::Compiled);
        v["exec"] = "isa".into();
        let isa: Reproducer = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(isa.exec, crate::Exec::Isa);
        assert!(ptx_file(&isa).unwrap().contains("found in isa mode"));
        assert!(!ptx_file(&old).unwrap().contains("isa mode"));
        v["exec"] = "jit".into();
        assert!(serde_json::from_value::<Reproducer>(v).is_err());
    }

    #[test]
    fn case_reads_program_and_input_bits_back() {
        let (p, inputs) = case(&sample()).unwrap();
        assert_eq!(inputs, [0x3f00_0000, 0x3304_0000]);
        assert_eq!(p.to_string(), sample().program_text);
        assert_eq!(actual_bits(&sample()).unwrap(), [0x3f00_0001, 1]);
    }

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        let mut r = sample();
        r.inputs.pop();
        assert_eq!(case(&r).unwrap_err(), ReproError::InputCount { expected: 2, got: 1 });
        let mut r = sample();
        r.inputs[1] = "33040000".into();
        assert!(matches!(case(&r).unwrap_err(), ReproError::Hex { field: "input", .. }));
        let mut r = sample();
        r.program = serde_json::json!({"body": 3});
        assert!(matches!(case(&r).unwrap_err(), ReproError::Program(_)));
        let mut r = sample();
        r.sm = 7;
        assert!(matches!(ptx_file(&r).unwrap_err(), ReproError::Kernel(_)));
    }

    #[test]
    fn ptx_file_has_the_entry_and_the_case() {
        let ptx = ptx_file(&sample()).unwrap();
        assert!(ptx.contains(".target sm_90"), "{ptx}");
        assert!(ptx.contains(".visible .entry p0("), "{ptx}");
        assert!(ptx.contains("//   in[1]  = 0x33040000"), "{ptx}");
    }
}
