//! ptxas fuses `cvt.rnd.f16.bf16` (or `.bf16.f16`) and a `cvt.rzi` of its result to an
//! integer into one `F2I` of the first conversion's *source*, read as the second one's half
//! type and rounded with `rnd`: its fusion of `cvt.rndi.f16.f16; cvt.rzi.s32.f16`, applied to
//! a conversion that changes the format. The H200's `modes-check` of 2026-12-04 found it in a
//! compiled kernel (docs/hardware/nvidia-h200-2026-12-04): `cvt.rz.f16.bf16` of 0xe0c1 then
//! `cvt.rzi.sat.s32.f16` gave -608, 0xe0c1 read as f16. `worker::modes` names the cause
//! `half-conversions-fused`; this is its evidence, in the SASS of the kernels ptxfuzz emits.
//! If a later ptxas stops fusing, the first test fails: then the cause is history, say so in
//! docs/triage.md.

mod common;

use common::ptxas::{kernel_instructions, ptxas_or_skip};
use ptx::isa::Instr;
use ptx::kernel::Mode;
use ptx::program::{Program, Reg, Stmt, ValType};

/// `first` (a 16-bit source to a 16-bit result) feeding `second`, whose result is the output.
fn pair(first: &str, second: &str) -> Program {
    let (a, b) = (Instr::parse(first, 1).unwrap(), Instr::parse(second, 1).unwrap());
    let body = vec![Stmt::new(a, &[Reg(0)]).unwrap(), Stmt::new(b, &[Reg(1)]).unwrap()];
    Program::new(vec![ValType::of_operand(&a, 0)], body, vec![Reg(2)]).unwrap()
}

/// The conversion opcodes (`F2F...`, `F2I...`) in the sm_XX SASS of `p`'s kernel.
fn conversions(ptxas: &std::path::Path, p: &Program, sm: &str, tag: &str) -> Vec<String> {
    kernel_instructions(ptxas, p, sm, Mode::Outputs, tag)
        .iter()
        .flat_map(|i| i.split_whitespace().find(|w| w.starts_with("F2F") || w.starts_with("F2I")))
        .map(str::to_string)
        .collect()
}

#[test]
fn ptxas_fuses_a_half_to_half_cvt_and_a_cvt_rzi_into_one_f2i_of_the_first_source() {
    let Some(ptxas) = ptxas_or_skip("ptxas_fuses_a_half_to_half_cvt_and_a_cvt_rzi_into_one_f2i_of_the_first_source") else {
        return;
    };
    // (first, second, the F2I ptxas 13.5 makes: the first one's rounding, the second's type)
    let rows = [
        ("cvt.rz.f16.bf16", "cvt.rzi.sat.s32.f16", "F2I.F16.TRUNC.NTZ"),
        ("cvt.rn.f16.bf16", "cvt.rzi.s32.f16", "F2I.F16.NTZ"),
        ("cvt.rm.f16.bf16", "cvt.rzi.u16.f16", "F2I.U16.F16.FLOOR.NTZ"),
        ("cvt.rp.bf16.f16", "cvt.rzi.s32.bf16", "F2I.BF16.CEIL.NTZ"),
    ];
    for sm in ["90", "100a"] {
        for (first, second, f2i) in rows {
            let got = conversions(&ptxas, &pair(first, second), sm, &format!("{first}-{second}-{sm}"));
            assert_eq!(got, vec![f2i.to_string()], "sm_{sm}: {first}; {second}: no F2F, one F2I of the first's source");
        }
    }
}

#[test]
fn ptxas_keeps_both_conversions_when_the_second_rounds_otherwise_than_toward_zero() {
    let Some(ptxas) = ptxas_or_skip("ptxas_keeps_both_conversions_when_the_second_rounds_otherwise_than_toward_zero") else {
        return;
    };
    let got = conversions(&ptxas, &pair("cvt.rz.f16.bf16", "cvt.rni.s32.f16"), "90", "rni");
    assert_eq!(got, vec!["F2F.F16.BF16.RZ".to_string(), "F2I.F16.NTZ".to_string()]);
}
