//! Two folds ptxas 13.5 makes of a float `set`'s result, each checked in the SASS of the kernels
//! ptxfuzz emits; `worker::modes` names them. If a later ptxas stops one, its first test fails:
//! then the cause is history, say so in docs/triage.md.
//!
//! - `neg-folded-into-set`: a `neg` of the result folded into the `set`'s two constants, -1.0
//!   or +0.0 (`SEL R, RZ, 0xbc00, !P` for f16, `FSEL R, RZ, -1, !P` for f32), so a false
//!   comparison gives +0 where `neg` of the `set`'s +0 is -0 (9.7.3.10). Only in some kernels
//!   that also call a subroutine (the f64 `sqrt.rz` or the f32 `rcp.rp` slow path); alone, the
//!   two statements keep their `neg` (`FADD R, -R, -RZ`), which is right. The H200's third run
//!   met it as compiled findings `neg.f16`, `neg.bf16` and `neg.f32` `~signed-zero`
//!   (docs/hardware/nvidia-h200-2026-12-04; their regenerated programs compile to such a
//!   select).
//! - `set-converted-by-value`: a `cvt` of a 16-bit `set`'s result to an integer computed from
//!   the comparison's truth value (`HSET2` without `.BF`, then `PRMT`, `IABS`: 1 or 0), not
//!   from the bits read as the `cvt`'s type: `set.nan.f16.f16` writes 0x3c00, which read as
//!   bf16 is 2^-7 and `cvt.rni.u32.bf16` makes 0. The H200's run 2 met it as the compiled
//!   finding `cvt.rni.u32.bf16~rounding`.

mod common;

use common::ptxas::{kernel_instructions, ptxas_or_skip};
use ptx::kernel::Mode;
use ptx::program::Program;

/// The SASS instructions of `p`'s sm_90 kernel.
fn kernel_code(ptxas: &std::path::Path, p: &str, tag: &str) -> Vec<String> {
    kernel_instructions(ptxas, &Program::parse(p).unwrap(), "90", Mode::Outputs, tag)
}

/// Whether some instruction selects between `RZ` (+0) and `minus_one` on a predicate.
fn selects_zero_or(code: &[String], minus_one: &str) -> bool {
    code.iter().any(|i| (i.starts_with("SEL ") || i.starts_with("FSEL ")) && i.contains(&format!("RZ, {minus_one}, ")))
}

// Programs as the generator makes them: the H200's `neg.f16` finding had `sqrt.rz.f64`,
// `set.gtu.and.bf16.f16` and `neg.f16`; its `neg.f32` one `set.ne.or.f32.f64`, `rcp.rp.f32`
// and `neg.f32` (among others).
const F16_WITH_CALL: &str = "// inputs: %h0:f16, %h1:f16, %fd2:f64\nsqrt.rz.f64 %fd3, %fd2;\nset.gt.f16.f16 %h4, %h0, %h1;\nneg.f16 %h5, %h4;\n// outputs: %fd3, %h5\n";
const F32_WITH_CALL: &str = "// inputs: %fd0:f64, %fd1:f64, %f2:f32\nset.ne.f32.f64 %f3, %fd0, %fd1;\nrcp.rp.f32 %f4, %f2;\nneg.f32 %f5, %f3;\n// outputs: %f4, %f5\n";
const F16_ALONE: &str = "// inputs: %h0:f16, %h1:f16\nset.gt.f16.f16 %h2, %h0, %h1;\nneg.f16 %h3, %h2;\n// outputs: %h3\n";

#[test]
fn ptxas_folds_a_neg_of_a_set_into_a_select_of_minus_one_or_positive_zero_beside_a_call() {
    let Some(ptxas) = ptxas_or_skip("ptxas_folds_a_neg_of_a_set_into_a_select_of_minus_one_or_positive_zero_beside_a_call") else {
        return;
    };
    let f16 = kernel_code(&ptxas, F16_WITH_CALL, "neg-set-f16");
    assert!(f16.iter().any(|i| i.starts_with("CALL")), "the f64 sqrt.rz is a call: {f16:#?}");
    assert!(selects_zero_or(&f16, "0xbc00"), "neg.f16 of set.f16: a SEL of +0 or -1.0 (0xbc00): {f16:#?}");
    let f32 = kernel_code(&ptxas, F32_WITH_CALL, "neg-set-f32");
    assert!(selects_zero_or(&f32, "-1"), "neg.f32 of set.f32.f64: an FSEL of +0 or -1: {f32:#?}");
}

#[test]
fn ptxas_keeps_the_neg_of_a_set_in_a_kernel_without_a_call() {
    let Some(ptxas) = ptxas_or_skip("ptxas_keeps_the_neg_of_a_set_in_a_kernel_without_a_call") else {
        return;
    };
    let code = kernel_code(&ptxas, F16_ALONE, "neg-set-alone");
    assert!(!selects_zero_or(&code, "0xbc00"), "{code:#?}");
    // The set gives 1.0 or +0 (HSET2.BF), the neg adds -0 to its negation: -0 for +0.
    assert!(code.iter().any(|i| i.starts_with("HADD2 ") && i.contains("-RZ")), "{code:#?}");
}

/// A `set` of `set_form` over two f16 inputs, then `cvt` of its result to an integer.
fn set_then_cvt(set_form: &str, cvt: &str, int: &str) -> String {
    format!("// inputs: %h0:f16, %h1:f16\n{set_form} %h2, %h0, %h1;\n{cvt} %{int}3, %h2;\n// outputs: %{int}3\n")
}

#[test]
fn ptxas_converts_the_truth_value_of_a_half_set_to_an_integer_not_its_bits() {
    let Some(ptxas) = ptxas_or_skip("ptxas_converts_the_truth_value_of_a_half_set_to_an_integer_not_its_bits") else {
        return;
    };
    // (set, cvt, the integer register class) of the H200's finding and its neighbours.
    let rows = [
        ("set.nan.f16.f16", "cvt.rni.u32.bf16", "r"),
        ("set.gt.f16.f16", "cvt.rzi.s32.bf16", "r"),
        ("set.gt.bf16.f16", "cvt.rni.s32.f16", "r"),
        ("set.gt.bf16.f16", "cvt.rpi.s64.f16", "rd"),
    ];
    for (set, cvt, int) in rows {
        let code = kernel_code(&ptxas, &set_then_cvt(set, cvt, int), &format!("{set}-{cvt}"));
        let ops: Vec<&str> = code.iter().map(|i| i.split_whitespace().next().unwrap()).collect();
        // The comparison as a 16-bit mask (HSET2 without .BF: 0xffff or 0), its absolute value
        // as an integer, and no conversion of a float at all.
        let mask = |op: &str| op.starts_with("HSET2") && !op.split('.').any(|m| m == "BF");
        assert!(ops.iter().any(|o| mask(o)), "{set}; {cvt}: {code:#?}");
        assert!(ops.contains(&"IABS"), "{set}; {cvt}: {code:#?}");
        assert!(!ops.iter().any(|o| o.starts_with("F2I") || o.starts_with("F2F")), "{set}; {cvt}: {code:#?}");
    }
}
