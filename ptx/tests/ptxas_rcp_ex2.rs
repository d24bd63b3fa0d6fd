//! ptxas rewrites `rcp.approx.ftz.f32` of an `ex2.approx.ftz.f32` result as one `MUFU.EX2` of
//! the negated operand (1 / 2^x = 2^-x), where the `ex2` result is not stored: a compiled
//! program then computes another approximation than the two instructions give one by one
//! (which the instruction VM and a traced kernel, storing the `ex2` result, both run). The
//! H200's third run (docs/hardware/nvidia-h200-2026-12-04) met it as the compiled finding
//! `add.rz.ftz.f32~rounding` (3 statements): regenerated from the campaign's seed, its program
//! is `ex2.approx.ftz`, `rcp.approx.ftz`, `mad.rn.ftz`, `add.rz.ftz`, and its kernel has
//! `MUFU.EX2 R, -R` and no `MUFU.RCP`. If a later ptxas stops rewriting, the first test fails:
//! then say so in docs/triage.md.

mod common;

use common::ptxas::{kernel_instructions, ptxas_or_skip};
use ptx::kernel::Mode;
use ptx::program::Program;

/// The `MUFU` instructions of `p`'s sm_90 kernel in `mode`.
fn mufus(ptxas: &std::path::Path, p: &str, mode: Mode, tag: &str) -> Vec<String> {
    let code = kernel_instructions(ptxas, &Program::parse(p).unwrap(), "90", mode, tag);
    code.into_iter().filter(|s| s.starts_with("MUFU")).collect()
}

const RCP_OF_EX2: &str = "// inputs: %f0:f32, %f1:f32\nex2.approx.ftz.f32 %f2, %f0;\nrcp.approx.ftz.f32 %f3, %f2;\nadd.rz.ftz.f32 %f4, %f3, %f1;\n// outputs: %f4\n";

#[test]
fn ptxas_compiles_rcp_of_ex2_as_one_ex2_of_the_negated_operand() {
    let Some(ptxas) = ptxas_or_skip("ptxas_compiles_rcp_of_ex2_as_one_ex2_of_the_negated_operand") else {
        return;
    };
    let got = mufus(&ptxas, RCP_OF_EX2, Mode::Outputs, "rcp-ex2");
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].starts_with("MUFU.EX2 ") && got[0].ends_with(", -R0"), "{got:#?}");
}

#[test]
fn ptxas_keeps_rcp_and_ex2_apart_when_the_ex2_result_is_stored() {
    let Some(ptxas) = ptxas_or_skip("ptxas_keeps_rcp_and_ex2_apart_when_the_ex2_result_is_stored") else {
        return;
    };
    // A traced kernel stores every statement's result, so it computes what the VM does.
    let got = mufus(&ptxas, RCP_OF_EX2, Mode::Trace, "rcp-ex2-traced");
    let ops: Vec<&str> = got.iter().map(|i| i.split_whitespace().next().unwrap()).collect();
    assert_eq!(ops, ["MUFU.EX2", "MUFU.RCP"], "{got:#?}");
}
