//! The target table: from which `sm_XX` and PTX ISA version each legal form exists.
//!
//! Rows are (opcodes, types, predicate on the form) -> (min sm, min PTX ISA); a form needs the
//! maximum over the rows that match it. Values are the PTX ISA "PTX ISA Notes" / "Target ISA
//! Notes"; where ptxas 13.5 is stricter than the text, or the text is silent, ptxas decides (each
//! such row says so). Where ptxas is more lenient for pre-sm_53 targets (it lets `sm_10` use f64,
//! demoted to f32), the text decides. docs/isa-table.md lists every check.

use super::target::{PtxVersion, Requirement};
use super::{AbsMode, Clamp, Ftz, Instr, NanMode, Opcode, Precision, Type};
use crate::rounding::Rounding;

/// One requirement row.
#[derive(Clone, Copy, Debug)]
pub struct ReqRule {
    /// The opcodes the row covers, each with the PTX ISA section that states the requirement.
    pub ops: &'static [(Opcode, &'static str)],
    pub types: &'static [Type],
    /// Which forms of those opcodes and types the row is about.
    pub when: fn(&Instr) -> bool,
    /// `sm_XX` as a number (`sm_10` = "supported on all target architectures").
    pub sm: u32,
    pub ptx: PtxVersion,
}

impl ReqRule {
    pub fn matches(&self, i: &Instr) -> bool {
        self.types.contains(&i.ty) && self.ops.iter().any(|(o, _)| *o == i.op) && (self.when)(i)
    }

    fn section(&self, op: Opcode) -> &'static str {
        self.ops.iter().find(|(o, _)| *o == op).map_or("9.7.3", |&(_, s)| s)
    }
}

/// The minimum target of a form: the maximum over all matching rows (sm first, then PTX ISA).
/// A form no row matches (an illegal one) gets `sm_10` / PTX ISA 1.0 and its opcode's section.
pub fn requirement_of(i: &Instr) -> Requirement {
    let mut req = Requirement::plain(10, PtxVersion::new(1, 0), super::rules::section_of(i.op, i.ty));
    let mut best: Option<(u32, PtxVersion)> = None;
    for row in REQUIREMENTS.iter().filter(|r| r.matches(i)) {
        if best.is_none_or(|b| (row.sm, row.ptx) > b) {
            best = Some((row.sm, row.ptx));
            req.section = row.section(i.op);
        }
        req.sm = req.sm.max(row.sm);
        req.ptx = req.ptx.max(row.ptx);
    }
    req
}

const fn v(major: u8, minor: u8) -> PtxVersion {
    PtxVersion::new(major, minor)
}

fn any(_: &Instr) -> bool {
    true
}
fn ftz(i: &Instr) -> bool {
    i.ftz == Ftz::Flush
}
/// `.rm` / `.rp`.
fn directed(i: &Instr) -> bool {
    matches!(i.precision, Precision::Rounded(Rounding::Rm | Rounding::Rp))
}
/// `.rz` / `.rm` / `.rp`: the "general rounding modifiers" of 9.7.3.13 and 9.7.3.15.
fn not_rn(i: &Instr) -> bool {
    matches!(i.precision, Precision::Rounded(Rounding::Rz | Rounding::Rm | Rounding::Rp))
}
fn rounded(i: &Instr) -> bool {
    matches!(i.precision, Precision::Rounded(_))
}
fn approx(i: &Instr) -> bool {
    i.precision == Precision::Approx
}
fn approx_no_ftz(i: &Instr) -> bool {
    i.precision == Precision::Approx && i.ftz == Ftz::Preserve
}
fn approx_ftz(i: &Instr) -> bool {
    i.precision == Precision::Approx && i.ftz == Ftz::Flush
}
fn approx_or_full(i: &Instr) -> bool {
    matches!(i.precision, Precision::Approx | Precision::Full)
}
fn nan(i: &Instr) -> bool {
    i.nan == NanMode::Propagate
}
fn xorsign(i: &Instr) -> bool {
    i.abs == AbsMode::XorsignAbs
}
fn three_inputs(i: &Instr) -> bool {
    i.inputs == 3
}
fn relu(i: &Instr) -> bool {
    i.clamp == Clamp::Relu
}

use Opcode as O;
use Type as T;

const F16S: &[Type] = &[T::F16, T::F16x2];
const BF16S: &[Type] = &[T::Bf16, T::Bf16x2];
const F32: &[Type] = &[T::F32];
const F32X2: &[Type] = &[T::F32x2];
const F64: &[Type] = &[T::F64];
const F32_F64: &[Type] = &[T::F32, T::F64];

const TESTP: &[(Opcode, &str)] = &[(O::Testp, "9.7.3.1")];
const COPYSIGN: &[(Opcode, &str)] = &[(O::Copysign, "9.7.3.2")];
const ADD_SUB_MUL: &[(Opcode, &str)] = &[(O::Add, "9.7.3.3"), (O::Sub, "9.7.3.4"), (O::Mul, "9.7.3.5")];
const FMA: &[(Opcode, &str)] = &[(O::Fma, "9.7.3.6")];
const MAD: &[(Opcode, &str)] = &[(O::Mad, "9.7.3.7")];
const DIV: &[(Opcode, &str)] = &[(O::Div, "9.7.3.8")];
const ABS_NEG: &[(Opcode, &str)] = &[(O::Abs, "9.7.3.9"), (O::Neg, "9.7.3.10")];
const MIN_MAX: &[(Opcode, &str)] = &[(O::Min, "9.7.3.11"), (O::Max, "9.7.3.12")];
const RCP_SQRT: &[(Opcode, &str)] = &[(O::Rcp, "9.7.3.13"), (O::Sqrt, "9.7.3.15")];
const RCP_APPROX_FTZ_F64: &[(Opcode, &str)] = &[(O::Rcp, "9.7.3.14")];
const RSQRT: &[(Opcode, &str)] = &[(O::Rsqrt, "9.7.3.16")];
const RSQRT_APPROX_FTZ_F64: &[(Opcode, &str)] = &[(O::Rsqrt, "9.7.3.17")];
const SIN_COS_LG2_EX2: &[(Opcode, &str)] =
    &[(O::Sin, "9.7.3.18"), (O::Cos, "9.7.3.19"), (O::Lg2, "9.7.3.20"), (O::Ex2, "9.7.3.21")];
const TANH: &[(Opcode, &str)] = &[(O::Tanh, "9.7.3.22")];
const H_ADD_SUB_MUL: &[(Opcode, &str)] = &[(O::Add, "9.7.4.1"), (O::Sub, "9.7.4.2"), (O::Mul, "9.7.4.3")];
const H_FMA: &[(Opcode, &str)] = &[(O::Fma, "9.7.4.4")];
const H_NEG: &[(Opcode, &str)] = &[(O::Neg, "9.7.4.5")];
const H_ABS: &[(Opcode, &str)] = &[(O::Abs, "9.7.4.6")];
const H_MIN_MAX: &[(Opcode, &str)] = &[(O::Min, "9.7.4.7"), (O::Max, "9.7.4.8")];
const H_TANH: &[(Opcode, &str)] = &[(O::Tanh, "9.7.4.9")];
const H_EX2: &[(Opcode, &str)] = &[(O::Ex2, "9.7.4.10")];

/// The requirement table. "ptxas" in a comment: value confirmed (or set) with ptxas 13.5 by
/// compiling the form for every `.target` and `.version` (docs/isa-table.md).
#[rustfmt::skip]
pub static REQUIREMENTS: &[ReqRule] = &[
    // 9.7.3.1 / 9.7.3.2: sm_20, PTX 2.0 (ptxas agrees).
    ReqRule { ops: TESTP, types: F32_F64, when: any, sm: 20, ptx: v(2, 0) },
    ReqRule { ops: COPYSIGN, types: F32_F64, when: any, sm: 20, ptx: v(2, 0) },
    // 9.7.3.3-5: f32 on all targets from PTX 1.0; .rm/.rp on f32 need sm_20 (ptxas agrees).
    ReqRule { ops: ADD_SUB_MUL, types: F32, when: any, sm: 10, ptx: v(1, 0) },
    ReqRule { ops: ADD_SUB_MUL, types: F32, when: directed, sm: 20, ptx: v(1, 0) },
    // .ftz: the text gives no version; ptxas 13.5 wants PTX 1.4 (for every f32 .ftz below too).
    ReqRule { ops: ADD_SUB_MUL, types: F32, when: ftz, sm: 10, ptx: v(1, 4) },
    // 9.7.3.3-5: f64 needs sm_13 (ptxas accepts sm_10 by demoting f64 to f32; the text wins).
    ReqRule { ops: ADD_SUB_MUL, types: F64, when: any, sm: 13, ptx: v(1, 0) },
    // 9.7.3.3-5: .f32x2 sm_100, PTX 8.6 (ptxas agrees).
    ReqRule { ops: ADD_SUB_MUL, types: F32X2, when: any, sm: 100, ptx: v(8, 6) },
    // 9.7.3.6: fma.f32 sm_20 / PTX 2.0, fma.f64 sm_13 / PTX 1.4, fma.f32x2 sm_100 / PTX 8.6.
    ReqRule { ops: FMA, types: F32, when: any, sm: 20, ptx: v(2, 0) },
    ReqRule { ops: FMA, types: F64, when: any, sm: 13, ptx: v(1, 4) },
    ReqRule { ops: FMA, types: F32X2, when: any, sm: 100, ptx: v(8, 6) },
    // 9.7.3.7: mad.rnd.f32 needs sm_20; mad.f64 sm_13; PTX 1.0 (ptxas: 1.0; .ftz 1.4).
    ReqRule { ops: MAD, types: F32, when: any, sm: 20, ptx: v(1, 0) },
    ReqRule { ops: MAD, types: F32, when: ftz, sm: 20, ptx: v(1, 4) },
    ReqRule { ops: MAD, types: F64, when: any, sm: 13, ptx: v(1, 0) },
    // 9.7.3.8: explicit .approx/.full/.rnd from PTX 1.4; div.rnd.f32 sm_20; div.rn.f64 sm_13;
    // div.{rz,rm,rp}.f64 sm_20 (ptxas takes PTX 1.0 and sm_10 for div.rn.f64; the text wins).
    ReqRule { ops: DIV, types: F32, when: approx_or_full, sm: 10, ptx: v(1, 4) },
    ReqRule { ops: DIV, types: F32, when: rounded, sm: 20, ptx: v(1, 4) },
    ReqRule { ops: DIV, types: F64, when: any, sm: 13, ptx: v(1, 4) },
    ReqRule { ops: DIV, types: F64, when: not_rn, sm: 20, ptx: v(1, 4) },
    // 9.7.3.9-10: abs/neg f32 all targets, f64 sm_13, PTX 1.0; .ftz PTX 1.4 (ptxas).
    ReqRule { ops: ABS_NEG, types: F32, when: any, sm: 10, ptx: v(1, 0) },
    ReqRule { ops: ABS_NEG, types: F32, when: ftz, sm: 10, ptx: v(1, 4) },
    ReqRule { ops: ABS_NEG, types: F64, when: any, sm: 13, ptx: v(1, 0) },
    // 9.7.3.11-12: f32 all targets, f64 sm_13; .NaN sm_80 / 7.0; .xorsign.abs sm_86 / 7.2;
    // three inputs sm_100 / 8.8; .ftz PTX 1.4 (all confirmed with ptxas).
    ReqRule { ops: MIN_MAX, types: F32, when: any, sm: 10, ptx: v(1, 0) },
    ReqRule { ops: MIN_MAX, types: F32, when: ftz, sm: 10, ptx: v(1, 4) },
    ReqRule { ops: MIN_MAX, types: F32, when: nan, sm: 80, ptx: v(7, 0) },
    ReqRule { ops: MIN_MAX, types: F32, when: xorsign, sm: 86, ptx: v(7, 2) },
    ReqRule { ops: MIN_MAX, types: F32, when: three_inputs, sm: 100, ptx: v(8, 8) },
    ReqRule { ops: MIN_MAX, types: F64, when: any, sm: 13, ptx: v(1, 0) },
    // 9.7.3.13 / 9.7.3.15: .approx and rcp.rn.f64 / sqrt.rn.f64 from PTX 1.4, "general rounding
    // modifiers" from PTX 2.0 (ptxas takes 1.4 for all; the text wins). .rnd.f32 and
    // .{rz,rm,rp}.f64 need sm_20, .rn.f64 sm_13.
    ReqRule { ops: RCP_SQRT, types: F32, when: approx, sm: 10, ptx: v(1, 4) },
    ReqRule { ops: RCP_SQRT, types: F32, when: rounded, sm: 20, ptx: v(2, 0) },
    ReqRule { ops: RCP_SQRT, types: F64, when: rounded, sm: 13, ptx: v(1, 4) },
    ReqRule { ops: RCP_SQRT, types: F64, when: not_rn, sm: 20, ptx: v(2, 0) },
    // 9.7.3.14: rcp.approx.ftz.f64 sm_20, PTX 2.1 (ptxas agrees).
    ReqRule { ops: RCP_APPROX_FTZ_F64, types: F64, when: approx, sm: 20, ptx: v(2, 1) },
    // 9.7.3.16: rsqrt.approx.f32 all targets, rsqrt.approx.f64 sm_13, PTX 1.4.
    ReqRule { ops: RSQRT, types: F32, when: any, sm: 10, ptx: v(1, 4) },
    ReqRule { ops: RSQRT, types: F64, when: approx_no_ftz, sm: 13, ptx: v(1, 4) },
    // 9.7.3.17: rsqrt.approx.ftz.f64 sm_20, PTX 4.0 (ptxas agrees).
    ReqRule { ops: RSQRT_APPROX_FTZ_F64, types: F64, when: approx_ftz, sm: 20, ptx: v(4, 0) },
    // 9.7.3.18-21: all targets, PTX 1.4 (ptxas agrees).
    ReqRule { ops: SIN_COS_LG2_EX2, types: F32, when: any, sm: 10, ptx: v(1, 4) },
    // 9.7.3.22: tanh.approx.f32 sm_75, PTX 7.0 (ptxas agrees).
    ReqRule { ops: TANH, types: F32, when: any, sm: 75, ptx: v(7, 0) },
    // 9.7.4.1-3: f16/f16x2 sm_53, PTX 4.2 (9.7.4.2 text; ptxas agrees, every modifier);
    // bf16/bf16x2 sm_90, PTX 7.8 (ptxas agrees).
    ReqRule { ops: H_ADD_SUB_MUL, types: F16S, when: any, sm: 53, ptx: v(4, 2) },
    ReqRule { ops: H_ADD_SUB_MUL, types: BF16S, when: any, sm: 90, ptx: v(7, 8) },
    // 9.7.4.4: f16 sm_53 / 4.2; .relu and every bf16 form sm_80 / 7.0 (ptxas; includes the
    // ptxas-only fma.{rz,rm,rp}.bf16 forms).
    ReqRule { ops: H_FMA, types: F16S, when: any, sm: 53, ptx: v(4, 2) },
    ReqRule { ops: H_FMA, types: F16S, when: relu, sm: 80, ptx: v(7, 0) },
    ReqRule { ops: H_FMA, types: BF16S, when: any, sm: 80, ptx: v(7, 0) },
    // 9.7.4.5: neg.f16 sm_53 / PTX 6.0; 9.7.4.6: abs.f16 sm_53 / PTX 6.5; bf16 sm_80 / 7.0 (ptxas).
    ReqRule { ops: H_NEG, types: F16S, when: any, sm: 53, ptx: v(6, 0) },
    ReqRule { ops: H_ABS, types: F16S, when: any, sm: 53, ptx: v(6, 5) },
    ReqRule { ops: H_NEG, types: BF16S, when: any, sm: 80, ptx: v(7, 0) },
    ReqRule { ops: H_ABS, types: BF16S, when: any, sm: 80, ptx: v(7, 0) },
    // 9.7.4.7-8: every half type sm_80 / 7.0 (.NaN included); .xorsign.abs sm_86 / 7.2 (ptxas).
    ReqRule { ops: H_MIN_MAX, types: F16S, when: any, sm: 80, ptx: v(7, 0) },
    ReqRule { ops: H_MIN_MAX, types: BF16S, when: any, sm: 80, ptx: v(7, 0) },
    ReqRule { ops: H_MIN_MAX, types: F16S, when: xorsign, sm: 86, ptx: v(7, 2) },
    ReqRule { ops: H_MIN_MAX, types: BF16S, when: xorsign, sm: 86, ptx: v(7, 2) },
    // 9.7.4.9-10: f16/f16x2 sm_75 / 7.0, bf16/bf16x2 sm_90 / 7.8 (ptxas).
    ReqRule { ops: H_TANH, types: F16S, when: any, sm: 75, ptx: v(7, 0) },
    ReqRule { ops: H_TANH, types: BF16S, when: any, sm: 90, ptx: v(7, 8) },
    ReqRule { ops: H_EX2, types: F16S, when: any, sm: 75, ptx: v(7, 0) },
    ReqRule { ops: H_EX2, types: BF16S, when: any, sm: 90, ptx: v(7, 8) },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::all_forms;

    #[test]
    fn every_legal_form_has_a_requirement_row() {
        for f in all_forms() {
            assert!(REQUIREMENTS.iter().any(|r| r.matches(&f)), "{f} has no requirement row");
        }
    }

    #[test]
    fn every_row_matches_some_legal_form() {
        let forms = all_forms();
        for (n, row) in REQUIREMENTS.iter().enumerate() {
            assert!(forms.iter().any(|f| row.matches(f)), "requirement row {n} matches nothing");
        }
    }

    #[test]
    fn requirement_takes_the_strictest_row() {
        let i = Instr::parse_default("min.ftz.NaN.xorsign.abs.f32").unwrap();
        let r = requirement_of(&i);
        assert_eq!((r.sm, r.ptx, r.section), (86, v(7, 2), "9.7.3.11"));
        let i = Instr::parse("max.NaN.abs.f32", 3).unwrap();
        let r = requirement_of(&i);
        assert_eq!((r.sm, r.ptx, r.section), (100, v(8, 8), "9.7.3.12"));
    }
}
