//! Regression validation with the `ptx` crate: parse a filed program, check its inputs and the
//! filer's expected values, and re-evaluate it with the interpreter; and judge a worker's
//! result against the same evaluation. Everything here is pure (no database); every failure is
//! an [`Invalid`] whose message says what is wrong and how to fix it (a 422 in the API).

use ptx::interp::Expectation;
use ptx::isa::Target;
use ptx::kernel;
use ptx::program::{Program, ValType};

pub mod fields;
pub mod report;

use fields::strip_0x;

/// Largest program text accepted (bytes). Programs are straight-line and minimized; this keeps
/// one request from occupying a core for long.
pub const MAX_PROGRAM_BYTES: usize = 256 << 10;
/// Most instructions in a filed program.
pub const MAX_INSTRUCTIONS: usize = 4096;

/// Why a filed regression or a posted result is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

fn invalid(msg: impl Into<String>) -> Invalid {
    Invalid(msg.into())
}

/// A program the interpreter accepted, with everything a regression stores.
#[derive(Clone, Debug)]
pub struct Checked {
    pub program: Program,
    /// Canonical program JSON (`ptx::program::json`).
    pub program_json: serde_json::Value,
    /// Canonical program text.
    pub program_text: String,
    /// Canonical hex, zero-padded to each register's width.
    pub inputs: Vec<String>,
    /// Per output, the interpreter's allowed results (`ptxfuzz eval --accept` form).
    pub expected: Vec<String>,
    /// The lowest target that has every instruction.
    pub sm: u32,
    /// The execution mode to run it in (a reproducer's own; `compiled` for a raw program
    /// unless the filer says).
    pub exec: api::Exec,
}

/// Parse program text, or its JSON when the first non-space character is `{`.
pub fn parse_program(text: &str) -> Result<Program, Invalid> {
    if text.len() > MAX_PROGRAM_BYTES {
        return Err(invalid(format!(
            "the program is {} bytes; at most {MAX_PROGRAM_BYTES} are accepted: minimize it first (`ptxfuzz minimize`)",
            text.len()
        )));
    }
    if text.trim().is_empty() {
        return Err(invalid(
            "the program is empty: give PTX text (`// inputs: %f0:f32` header, one instruction per line, `// outputs: ...`) or its JSON",
        ));
    }
    let parsed = if text.trim_start().starts_with('{') { Program::from_json(text) } else { Program::parse(text) };
    let program = parsed.map_err(|e| {
        let e = e.to_string();
        // JSON errors already start with "program JSON".
        invalid(if e.starts_with("program") { e } else { format!("program: {e}") })
    })?;
    if program.body().len() > MAX_INSTRUCTIONS {
        return Err(invalid(format!(
            "the program has {} instructions; at most {MAX_INSTRUCTIONS} are accepted: minimize it first",
            program.body().len()
        )));
    }
    Ok(program)
}

/// Hex digits of a register `bits` wide (no prefix: callers strip it, [`prefixed_bits`]).
fn parse_bits(hex: &str, bits: u32) -> Option<u64> {
    let v = ptx::value::parse_hex(hex)?;
    (bits >= 64 || v >> bits == 0).then_some(v)
}

/// `0x`-prefixed hex bits of a register `bits` wide (the rule of [`fields::strip_0x`]).
fn prefixed_bits(text: &str, bits: u32) -> Option<u64> {
    parse_bits(strip_0x(text)?, bits)
}

/// Parse one hex input per program input, each fitting its register.
pub fn parse_inputs(program: &Program, inputs: &[String]) -> Result<Vec<u64>, Invalid> {
    let types = program.inputs();
    if inputs.len() != types.len() {
        return Err(invalid(format!(
            "the program takes {} input(s) ({}), got {}: give one 0x-prefixed hex value per input",
            types.len(),
            describe_inputs(program),
            inputs.len()
        )));
    }
    types
        .iter()
        .zip(inputs)
        .enumerate()
        .map(|(i, (&ty, text))| parse_input(ty, text).map_err(|e| invalid(format!("input {i}: {e}"))))
        .collect()
}

/// One input as `0x`-prefixed hex bits of its register: the rule of reports, raw regressions
/// and results alike (a bare `1` would otherwise be the bit pattern 0x1 here and refused at
/// ingest).
fn parse_input(ty: ValType, text: &str) -> Result<u64, String> {
    let Some(hex) = strip_0x(text) else {
        return Err(format!(
            "'{}' is not 0x-prefixed hex bits of a {}-bit .{} register (such as {})",
            clip(text),
            ty.bits(),
            ty.name(),
            ty.format_hex(0)
        ));
    };
    if !hex.bytes().any(|c| c.is_ascii_hexdigit()) || !hex.bytes().all(|c| c.is_ascii_hexdigit() || c == b'_') {
        return Err(format!("'{}' is not hex bits (such as 0x3f800000)", clip(text)));
    }
    let significant = hex.trim_start_matches(['0', '_']).bytes().filter(|&c| c != b'_').count();
    if significant > 16 {
        return Err(format!("'{}' has more than {} bits: a .{} register holds {} bits", clip(text), ty.bits(), ty.name(), ty.bits()));
    }
    // parse_input says "more than N bits" for a value too wide for the register.
    ty.parse_input(&format!("0x{hex}")).map_err(|e| e.to_string())
}

fn describe_inputs(p: &Program) -> String {
    (0..p.inputs().len()).map(|i| format!("{}:{}", p.name(ptx::program::Reg(i as u16)), p.inputs()[i].name())).collect::<Vec<_>>().join(", ")
}

/// At most 40 characters of user text, for messages.
fn clip(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// The lowest known sm whose PTX has every instruction of `p` (`sm_100a`'s 100 for the
/// architecture-specific `cvt`s: `kernel::lowest_arch`).
pub fn lowest_sm(p: &Program) -> Result<u32, Invalid> {
    if let Some(arch) = kernel::lowest_arch(p) {
        return Ok(arch.sm);
    }
    // No target: the plain targets' refusal says why.
    let need = p.requirement().0;
    let mut last = None;
    for sm in kernel::known_sms().filter(|&sm| sm >= need) {
        let Ok(ptx) = kernel::module_version(&[p], sm) else { continue };
        match p.check_target(Target::new(sm, ptx)) {
            Ok(()) => return Ok(sm),
            Err(e) => last = Some(e),
        }
    }
    Err(invalid(match last {
        Some(e) => format!("no target this server knows (sm_75 .. sm_121) runs the program: {e}"),
        None => format!("the program needs sm_{need}, newer than any target this server knows (sm_75 .. sm_121)"),
    }))
}

/// Run the interpreter; `Invalid` for inputs it refuses.
fn evaluate(p: &Program, inputs: &[u64]) -> Result<Vec<Expectation>, Invalid> {
    p.run(inputs).map_err(|e| invalid(format!("the interpreter cannot run the program on these inputs: {e}")))
}

/// Validate a raw regression: program, inputs, and (when given) the filer's expected values,
/// each of which the interpreter must allow.
pub fn check_raw(program: &str, inputs: &[String], expected: Option<&[String]>) -> Result<Checked, Invalid> {
    let program = parse_program(program)?;
    let values = parse_inputs(&program, inputs)?;
    let sm = lowest_sm(&program)?;
    let exp = evaluate(&program, &values)?;
    if let Some(given) = expected {
        if given.len() != exp.len() {
            return Err(invalid(format!(
                "expected has {} value(s), but the program has {} output(s): give one hex value per output, or leave expected out",
                given.len(),
                exp.len()
            )));
        }
        for (k, (text, e)) in given.iter().zip(&exp).enumerate() {
            let reg = program.name(program.outputs()[k]);
            let bits = prefixed_bits(text, e.width()).ok_or_else(|| {
                invalid(format!("expected[{k}] ({reg}): '{}' is not 0x-prefixed hex bits of a {}-bit register", clip(text), e.width()))
            })?;
            if !e.accepts(bits) {
                return Err(invalid(format!(
                    "expected[{k}] ({reg}): the interpreter does not allow {}; it allows {e}. If the interpreter is wrong, file the finding as interpreter-bug instead",
                    clip(text)
                )));
            }
        }
    }
    Ok(Checked {
        program_json: serde_json::from_str(&program.to_json()).map_err(|e| invalid(format!("program JSON: {e}")))?,
        program_text: program.to_string(),
        inputs: program.inputs().iter().zip(&values).map(|(&t, &v)| t.format_hex(v)).collect(),
        expected: exp.iter().map(|e| e.to_string()).collect(),
        sm,
        exec: api::Exec::Compiled,
        program,
    })
}

/// Validate a stored reproducer (`api::Reproducer` JSON) as a regression.
pub fn check_reproducer(reproducer: &serde_json::Value) -> Result<Checked, Invalid> {
    let r: api::Reproducer = serde_json::from_value(reproducer.clone())
        .map_err(|e| invalid(format!("the stored reproducer is not a ptxfuzz reproducer ({e}); file it as raw instead")))?;
    Ok(Checked { exec: r.exec, ..check_raw(&r.program.to_string(), &r.inputs, None)? })
}

/// The judge profiles a reproducer may name: `spec` and the hardware profiles, each parsed once
/// a process by `api::cluster::hardware_judge` (`sm_90` parses a JSON file), not per report.
fn known_judge(name: &str) -> bool {
    name == "spec" || api::cluster::hardware_judge(name).is_some()
}

/// The sms ptxfuzz writes PTX for, for messages: `75, 80, ..., 121`.
fn known_sm_list() -> String {
    kernel::known_sms().map(|sm| sm.to_string()).collect::<Vec<_>>().join(", ")
}

/// Check the values of a reported reproducer against its (parsed) program, so that what the
/// dashboard shows, a regression filed from it and its downloads all work: inputs and actual
/// values fit their registers, expected values are hex where they are hex, the sm is a target
/// ptxfuzz writes PTX for that has the program's instructions, and the judge is a known
/// profile. Errors name the field and index relative to the reproducer (`inputs[1]: ...`).
pub fn check_reported(r: &api::Reproducer, program: &Program) -> Result<(), String> {
    // Workers write these as 0x-prefixed hex (`ValType::format_hex`); the prefix is required.
    let hex = |ty: ValType, text: &str| parse_input(ty, text).map(|_| ());
    for (k, (&ty, text)) in program.inputs().iter().zip(&r.inputs).enumerate() {
        hex(ty, text).map_err(|e| format!("inputs[{k}]: {e}"))?;
    }
    for (k, (&reg, text)) in program.outputs().iter().zip(&r.actual).enumerate() {
        hex(program.reg_type(reg), text).map_err(|e| format!("actual[{k}] ({}): {e}", program.name(reg)))?;
    }
    for (k, (&reg, text)) in program.outputs().iter().zip(&r.expected).enumerate() {
        check_expected(text, program.reg_type(reg)).map_err(|e| format!("expected[{k}] ({}): {e}", program.name(reg)))?;
    }
    if !kernel::known_sms().any(|sm| sm == r.sm) {
        return Err(format!("sm: {} is not a target ptxfuzz writes PTX for; one of {}", r.sm, known_sm_list()));
    }
    // As the worker picks the target (`ptx_arch`): the PTX module must be writable for it,
    // else the repro.ptx/.cu downloads and a regression filed from it fail later.
    let ptx = kernel::module_version(&[program], r.arch())
        .map_err(|e| format!("sm: the program cannot be written for {}: {e}", r.arch()))?;
    if let Err(e) = program.check_target(Target::of(r.arch(), ptx)) {
        return Err(format!("sm: {} does not have the program's instructions: {e}", r.arch()));
    }
    if !known_judge(&r.judge) {
        return Err(format!("judge: unknown profile '{}'; one of spec, sm_90 (`ptxfuzz campaign --judge`)", clip(&r.judge)));
    }
    Ok(())
}

/// An expected value is the `--accept` text (`0x00800000 | 0x00000000 (ftz-before-rounding)`,
/// `lane0: any NaN`): free words, but every `0x` word must be hex bits of the register.
fn check_expected(text: &str, ty: ValType) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err("empty; give the allowed results as `ptxfuzz eval --accept` prints them (such as 0x3f800000)".into());
    }
    for word in text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
        let Some(hex) = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) else { continue };
        if parse_bits(hex, ty.bits().max(1)).is_none() {
            return Err(format!("'{}' is not hex bits of a {}-bit .{} register", clip(word), ty.bits(), ty.name()));
        }
    }
    Ok(())
}

/// The server's judgement of a worker's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub passed: bool,
    /// Why the server disagrees with the worker, or which outputs failed; empty when neither.
    pub note: String,
}

/// Judge `actual` (hex per output) for a stored regression. An empty `actual` is a run that
/// produced nothing (an engine fault): it fails. A malformed value is [`Invalid`].
pub fn judge(program_json: &serde_json::Value, inputs: &[String], actual: &[String], claimed: bool) -> Result<Verdict, Invalid> {
    let program = Program::from_json(&program_json.to_string()).map_err(|e| invalid(format!("stored program: {e}")))?;
    let values = parse_inputs(&program, inputs)?;
    let exp = evaluate(&program, &values)?;
    let (passed, mut note) = if actual.is_empty() {
        (false, "no results (engine fault)".to_string())
    } else {
        if actual.len() != exp.len() {
            return Err(invalid(format!(
                "actual has {} value(s), but the program has {} output(s): post one hex value per output (or none after an engine fault)",
                actual.len(),
                exp.len()
            )));
        }
        let mut failing = Vec::new();
        for (k, (text, e)) in actual.iter().zip(&exp).enumerate() {
            let bits = prefixed_bits(text, e.width()).ok_or_else(|| {
                invalid(format!("actual[{k}]: '{}' is not 0x-prefixed hex bits of a {}-bit register", clip(text), e.width()))
            })?;
            if !e.accepts(bits) {
                failing.push(format!("output {k}: {} not in {e}", clip(text)));
            }
        }
        (failing.is_empty(), failing.join("; "))
    };
    if passed != claimed {
        let server = if passed { "passes" } else { "fails" };
        let worker = if claimed { "passed" } else { "failed" };
        let why = if note.is_empty() { String::new() } else { format!(" ({note})") };
        note = format!("the worker said {worker}, the server's interpreter says the run {server}{why}; stored the server's verdict");
    }
    Ok(Verdict { passed, note })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADD: &str = "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n";

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn raw_program_is_evaluated_and_canonicalized() {
        let c = check_raw(ADD, &s(&["0x3f800000", "0x40000000"]), Some(&s(&["0x40400000"]))).unwrap();
        assert_eq!(c.inputs, ["0x3f800000", "0x40000000"]);
        assert_eq!(c.expected, ["0x40400000"]);
        assert!(kernel::known_sms().any(|sm| sm == c.sm));
        // An f6 cvt exists on sm_100a only: a regression of it is sm 100, not refused.
        let f6 = "// inputs: %f0:f32, %f1:f32\ncvt.rn.satfinite.e2m3x2.f32 %h2, %f0, %f1;\n// outputs: %h2\n";
        let c = check_raw(f6, &s(&["0x3f800000", "0x40400000"]), Some(&s(&["0x0814"]))).unwrap();
        assert_eq!((c.sm, c.expected.clone()), (100, vec!["lane0: 0x14 (3) ; lane1: 0x08 (1)".to_string()]));
    }

    #[test]
    fn a_raw_regression_with_an_integer_input_is_evaluated_and_its_width_checked() {
        // 2^24 + 3 to f32 rounds to nearest even: 2^24 + 4 (0x4b800002).
        let cvt = "// inputs: %r0:s32\ncvt.rn.f32.s32 %f1, %r0;\n// outputs: %f1\n";
        let c = check_raw(cvt, &s(&["0x1000003"]), Some(&s(&["0x4b800002"]))).unwrap();
        assert_eq!(c.inputs, ["0x01000003"]);
        let e = check_raw(cvt, &s(&["0x100000000"]), None).unwrap_err();
        assert!(e.0.contains("input 0") && e.0.contains("32 bits"), "{e}");
        let e = check_raw(cvt, &s(&["0x01000003"]), Some(&s(&["0x4b800001"]))).unwrap_err();
        assert!(e.0.contains("allows 0x4b800002"), "{e}");
    }

    #[test]
    fn json_program_is_accepted() {
        let json = Program::parse(ADD).unwrap().to_json();
        let c = check_raw(&format!("  {json}"), &s(&["0x0", "0x0"]), None).unwrap();
        assert_eq!(c.program_text, Program::parse(ADD).unwrap().to_string());
    }

    #[test]
    fn bad_inputs_are_refused_with_reasons() {
        let e = check_raw(ADD, &s(&["0x0"]), None).unwrap_err();
        assert!(e.0.contains("takes 2 input(s)"), "{e}");
        let e = check_raw(ADD, &s(&["0x0", "0xzz"]), None).unwrap_err();
        assert!(e.0.contains("input 1") && e.0.contains("not hex"), "{e}");
        let e = check_raw(ADD, &s(&["0x0", "0x1ffffffff"]), None).unwrap_err();
        assert!(e.0.contains("more than 32 bits"), "{e}");
        let e = check_raw(ADD, &s(&["0x0", &format!("0x{}", "f".repeat(10_000))]), None).unwrap_err();
        assert!(e.0.contains("more than 32 bits"), "{e}");
        let c = check_raw(ADD, &s(&["0x0", &format!("0x{}3f80_0000", "0".repeat(1000))]), None).unwrap();
        assert_eq!(c.inputs[1], "0x3f800000");
        let e = check_raw(ADD, &s(&["0x0", "0x_"]), None).unwrap_err();
        assert!(e.0.contains("not hex"), "{e}");
        let e = check_raw(ADD, &s(&["0x0", "0x"]), None).unwrap_err();
        assert!(e.0.contains("not hex"), "{e}");
    }

    #[test]
    fn hex_without_the_prefix_is_refused_everywhere() {
        // As at ingest: `1` is not the bit pattern 0x1.
        let e = check_raw(ADD, &s(&["1", "2"]), None).unwrap_err();
        assert!(e.0.contains("input 0: '1' is not 0x-prefixed hex bits of a 32-bit .f32 register (such as 0x00000000)"), "{e}");
        let e = check_raw(ADD, &s(&["0X1", "0x2"]), None).unwrap_err();
        assert!(e.0.contains("input 0") && e.0.contains("0x-prefixed"), "{e}");
        let e = check_raw(ADD, &s(&["0x1", "0x2"]), Some(&s(&["40400000"]))).unwrap_err();
        assert!(e.0.contains("expected[0]") && e.0.contains("0x-prefixed"), "{e}");
        let c = check_raw(ADD, &s(&["0x3f800000", "0x40000000"]), None).unwrap();
        let e = judge(&c.program_json, &c.inputs, &s(&["40400000"]), true).unwrap_err();
        assert!(e.0.contains("actual[0]: '40400000' is not 0x-prefixed hex bits"), "{e}");
    }

    #[test]
    fn expected_value_the_interpreter_refuses_names_output_and_allowed_set() {
        let e = check_raw(ADD, &s(&["0x3f800000", "0x40000000"]), Some(&s(&["0x40400001"]))).unwrap_err();
        assert!(e.0.contains("expected[0] (%f2)") && e.0.contains("allows 0x40400000"), "{e}");
        let e = check_raw(ADD, &s(&["0x0", "0x0"]), Some(&s(&[]))).unwrap_err();
        assert!(e.0.contains("1 output(s)"), "{e}");
    }

    #[test]
    fn empty_and_illegal_programs_are_refused() {
        assert!(check_raw("  \n", &[], None).unwrap_err().0.contains("empty"));
        let e = check_raw("// inputs: %fd0:f64\nadd.sat.f64 %fd1, %fd0, %fd0;\n// outputs: %fd1\n", &s(&["0x0"]), None)
            .unwrap_err();
        assert!(e.0.starts_with("program:"), "{e}");
        let e = check_raw("{\"types\":1}", &[], None).unwrap_err();
        assert!(e.0.contains("program JSON"), "{e}");
    }

    #[test]
    fn judge_recomputes_the_verdict() {
        let c = check_raw(ADD, &s(&["0x3f800000", "0x40000000"]), None).unwrap();
        let ok = judge(&c.program_json, &c.inputs, &s(&["0x40400000"]), true).unwrap();
        assert_eq!(ok, Verdict { passed: true, note: String::new() });
        let lie = judge(&c.program_json, &c.inputs, &s(&["0x40400001"]), true).unwrap();
        assert!(!lie.passed && lie.note.contains("the worker said passed"), "{lie:?}");
        let fault = judge(&c.program_json, &c.inputs, &[], false).unwrap();
        assert!(!fault.passed);
        assert!(judge(&c.program_json, &c.inputs, &s(&["0x1_0000_0000"]), false).is_err());
        assert!(judge(&c.program_json, &c.inputs, &s(&["0x0", "0x0"]), false).is_err());
    }
}
