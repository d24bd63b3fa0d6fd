//! The smoke check's known results of the forms outside `Instr` (`ptx::form`: `cvt`, `setp`,
//! `selp`), run through `Engine::run_forms` on every engine that has it: on a GPU, the first
//! launch of the batched form kernel (`ptx::form_kernel`). Each expected word is written out
//! from the section's rule, not computed by the interpreter.

use ptx::form::Form;

use crate::oracles::{Engine, EngineFault};

/// A form, one case's operands and the expected result word.
struct KnownForm {
    name: &'static str,
    form: &'static str,
    operands: &'static [u64],
    expected: u64,
}

const fn k(name: &'static str, form: &'static str, operands: &'static [u64], expected: u64) -> KnownForm {
    KnownForm { name, form, operands, expected }
}

const KNOWN_FORMS: &[KnownForm] = &[
    // 9.7.9.21 cvt, "Floating-point rounding": .rn is round to nearest even.
    k("cvt.rn.bf16.f32 ties to even (down)", "cvt.rn.bf16.f32", &[0x3f80_8000], 0x3f80),
    k("cvt.rn.bf16.f32 ties to even (up)", "cvt.rn.bf16.f32", &[0x3f81_8000], 0x3f82),
    // 65520 is half an ulp above f16's largest finite 65504: .rn overflows, .rz does not.
    k("cvt.rn.f16.f32 of 65520 overflows to inf", "cvt.rn.f16.f32", &[0x477f_f000], 0x7c00),
    k("cvt.rz.f16.f32 of 65520 is the largest finite", "cvt.rz.f16.f32", &[0x477f_f000], 0x7bff),
    k("cvt.f32.f16 of the smallest subnormal is exact", "cvt.f32.f16", &[0x0001], 0x3380_0000),
    // Integer rounding and saturation: -2.5 toward zero is -2; 300 saturates to 127; NaN is 0.
    k("cvt.rzi.s32.f32 of -2.5 is -2", "cvt.rzi.s32.f32", &[0xc020_0000], 0xffff_fffe),
    k("cvt.rni.s8.f32 of 300 saturates to 127", "cvt.rni.s8.f32", &[0x4396_0000], 0x7f),
    k("cvt.rni.s32.f32 of NaN is 0", "cvt.rni.s32.f32", &[0x7fc0_0000], 0),
    // .satfinite: 500 clamps to e4m3's largest finite 448 (0x7e) in the low lane (b); a = 1.0.
    k("cvt.rn.satfinite.e4m3x2.f32 clamps 500 to 448", "cvt.rn.satfinite.e4m3x2.f32", &[0x3f80_0000, 0x43fa_0000], 0x387e),
    // .rna: a tie rounds away from zero.
    k("cvt.rna.tf32.f32 rounds a tie away", "cvt.rna.tf32.f32", &[0x3f80_1000], 0x3f80_2000),
    // 9.7.6.2 setp: an unordered comparison is true with a NaN; q is its negation.
    k("setp.ltu.f32 of NaN and 1 is true", "setp.ltu.f32", &[0x7fc0_0000, 0x3f80_0000], 0b01),
    // setp.f16x2: p from the low lanes (1 < 2), q from the high ones (2 < 1 is false).
    k("setp.lt.f16x2 compares each lane", "setp.lt.f16x2", &[0x4000_3c00, 0x3c00_4000], 0b01),
    k("selp.f32 picks b when c is false", "selp.f32", &[0x3f80_0000, 0x4000_0000, 0], 0x4000_0000),
];

/// What one known form gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    /// The engine answered `unsupported` or `refused` for the case (a capture that does not
    /// record it): nothing is known either way, as for a program the engine does not run.
    Skipped(String),
    /// Why it failed.
    Failed(String),
}

/// Run every known form the engine supports; (name, verdict) per check.
pub fn check(engine: &mut dyn Engine) -> Vec<(String, Verdict)> {
    let mut out = Vec::new();
    for kn in KNOWN_FORMS {
        let form = Form::parse(kn.form).expect("smoke forms are documented");
        if !engine.supports_form(&form) {
            continue;
        }
        let verdict = match engine.run_forms(&form, kn.operands) {
            Ok(words) if words == [kn.expected] => Verdict::Passed,
            Ok(words) => Verdict::Failed(format!("got {}, expected {}", shown(&form, &words), shown(&form, &[kn.expected]))),
            // As `smoke` treats a program's job: the engine says it cannot answer this case.
            Err(f @ (EngineFault::Unsupported { .. } | EngineFault::Refused { .. })) => Verdict::Skipped(f.to_string()),
            Err(f) => Verdict::Failed(f.to_string()),
        };
        out.push((kn.name.to_string(), verdict));
    }
    out
}

/// Result words in hex and as the form's destination reads them: `[0x3f81 (1.0078125)]`.
fn shown(form: &Form, words: &[u64]) -> String {
    let each: Vec<String> = words.iter().map(|&w| format!("{w:#x} ({})", ptx::form_value::result_decimal(form, w))).collect();
    format!("[{}]", each.join(", "))
}

/// Number of known form results.
#[cfg(test)]
pub fn count() -> usize {
    KNOWN_FORMS.len()
}
