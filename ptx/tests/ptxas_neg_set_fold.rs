//! ptxas folds a `neg` of a float `set`'s result into the `set`'s two constants: it selects
//! -1.0 or +0.0 (`SEL R, RZ, 0xbc00, !P` for f16, `FSEL R, RZ, -1, !P` for f32), so a false
//! comparison gives +0 where `neg` of the `set`'s +0 is -0 (9.7.3.10). It does so in kernels
//! that also call a subroutine (the f64 `sqrt.rz` or the f32 `rcp.rp` slow path); alone, the
//! two statements keep their `neg` (`FADD R, -R, -RZ`), which is right. The H200's third run
//! (docs/hardware/nvidia-h200-2026-12-04) met it as campaign findings `neg.f16`, `neg.bf16` and
//! `neg.f32` `~signed-zero` in compiled programs; regenerated from the campaigns' seed, those
//! programs compile to such a select. `worker::modes` names the cause `neg-folded-into-set`;
//! this is its evidence, in the SASS of the kernels ptxfuzz emits. If a later ptxas stops
//! folding, the first test fails: then the cause is history, say so in docs/triage.md.

mod common;

use common::ptxas::{instructions, ptxas_or_skip, sass};
use ptx::kernel::{self, Mode};
use ptx::program::Program;

/// The SASS instructions of `p`'s sm_90 kernel.
fn kernel_code(ptxas: &std::path::Path, p: &str, tag: &str) -> Vec<String> {
    let p = Program::parse(p).unwrap();
    let module = kernel::module(&[&p], 90u32, Mode::Outputs).unwrap();
    instructions(&sass(ptxas, &module, "90", tag).unwrap_or_else(|e| panic!("{e}")))
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
