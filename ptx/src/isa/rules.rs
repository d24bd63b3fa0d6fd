//! The structural legality table: which opcode x type x modifier sets PTX ISA 9.7.3 and 9.7.4
//! define. One row per syntax line of the spec; a form is legal iff some row admits it.
//!
//! Which `sm_XX` / PTX ISA version a legal form needs is a separate table, in [`super::requirements`].

use std::fmt;

use super::{AbsMode, Clamp, Ftz, Instr, NanMode, Opcode, Precision, TestpOp, Type};
use crate::rounding::Rounding;

/// What a row allows in the precision slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrecisionRule {
    /// No precision modifier exists for this form (abs, neg, min, max, testp, copysign).
    None,
    /// `{.rnd}`: one of these roundings, or none (`.rn` that the optimizer may contract into fma).
    Optional(&'static [Rounding]),
    /// `.rnd`: one of these roundings is required ("Rounding modifiers (no default)").
    Required(&'static [Rounding]),
    /// `.approx` is required.
    Approx,
    /// `.full` is required (div.full.f32 only).
    Full,
}

impl PrecisionRule {
    pub fn admits(self, p: Precision) -> bool {
        match (self, p) {
            (PrecisionRule::None, Precision::Default) => true,
            (PrecisionRule::Optional(_), Precision::Default) => true,
            (PrecisionRule::Optional(rs) | PrecisionRule::Required(rs), Precision::Rounded(r)) => rs.contains(&r),
            (PrecisionRule::Approx, Precision::Approx) => true,
            (PrecisionRule::Full, Precision::Full) => true,
            _ => false,
        }
    }

    /// Every precision value the rule admits, in canonical order.
    pub fn values(self) -> Vec<Precision> {
        match self {
            PrecisionRule::None => vec![Precision::Default],
            PrecisionRule::Optional(rs) => {
                std::iter::once(Precision::Default).chain(rs.iter().map(|&r| Precision::Rounded(r))).collect()
            }
            PrecisionRule::Required(rs) => rs.iter().map(|&r| Precision::Rounded(r)).collect(),
            PrecisionRule::Approx => vec![Precision::Approx],
            PrecisionRule::Full => vec![Precision::Full],
        }
    }
}

/// Whether an on/off modifier (`.ftz`, `.NaN`, the testp operation) may, must or must not appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allow {
    Never,
    Optional,
    Required,
}

impl Allow {
    pub fn admits(self, present: bool) -> bool {
        match self {
            Allow::Never => !present,
            Allow::Optional => true,
            Allow::Required => present,
        }
    }

    pub fn values(self) -> &'static [bool] {
        match self {
            Allow::Never => &[false],
            Allow::Optional => &[false, true],
            Allow::Required => &[true],
        }
    }
}

/// Where a row comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The syntax of the PTX ISA text.
    Spec,
    /// Not in the PTX ISA text, but accepted by ptxas 13.5 (see docs/isa-table.md).
    Ptxas,
}

/// One syntax line of the spec: the forms it admits.
#[derive(Clone, Copy, Debug)]
pub struct FormRule {
    /// The opcodes the line covers, each with its PTX ISA section.
    pub ops: &'static [(Opcode, &'static str)],
    pub types: &'static [Type],
    /// The testp property (`testp.op.type`): required for testp, never elsewhere.
    pub test: Allow,
    pub precision: PrecisionRule,
    pub ftz: Allow,
    /// Allowed clamp values; `Clamp::None` listed when clamping is optional.
    pub clamps: &'static [Clamp],
    pub nan: Allow,
    /// Allowed magnitude modifiers; `AbsMode::None` listed when optional.
    pub abs: &'static [AbsMode],
    /// Number of source operands.
    pub inputs: u8,
    pub source: Source,
}

/// The slots of a form, in the order the diagnostics check them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Test,
    Precision,
    Ftz,
    Clamp,
    Nan,
    Inputs,
    Abs,
}

impl Slot {
    pub const ALL: [Slot; 7] =
        [Slot::Test, Slot::Precision, Slot::Ftz, Slot::Clamp, Slot::Nan, Slot::Inputs, Slot::Abs];
}

impl FormRule {
    /// The section of `op` in this row, if the row covers it.
    pub fn section(&self, op: Opcode) -> Option<&'static str> {
        self.ops.iter().find(|(o, _)| *o == op).map(|&(_, s)| s)
    }

    pub fn covers(&self, op: Opcode, ty: Type) -> bool {
        self.section(op).is_some() && self.types.contains(&ty)
    }

    /// Whether the row admits the form's value in one slot.
    pub fn admits_slot(&self, slot: Slot, i: &Instr) -> bool {
        match slot {
            Slot::Test => self.test.admits(i.testp.is_some()),
            Slot::Precision => self.precision.admits(i.precision),
            Slot::Ftz => self.ftz.admits(i.ftz == Ftz::Flush),
            Slot::Clamp => self.clamps.contains(&i.clamp),
            Slot::Nan => self.nan.admits(i.nan == NanMode::Propagate),
            Slot::Inputs => self.inputs == i.inputs,
            Slot::Abs => self.abs.contains(&i.abs),
        }
    }

    pub fn admits(&self, i: &Instr) -> bool {
        i.conv.is_none() && i.cmp.is_none() && i.selp_int.is_none() && i.atype.is_none() && self.covers(i.op, i.ty) && Slot::ALL.iter().all(|&s| self.admits_slot(s, i))
    }

    /// Every form of this row for one opcode and type.
    pub fn forms(&self, op: Opcode, ty: Type) -> Vec<Instr> {
        let mut out = Vec::new();
        if !self.covers(op, ty) {
            return out;
        }
        let tests: Vec<Option<TestpOp>> = match self.test {
            Allow::Never => vec![None],
            Allow::Optional => std::iter::once(None).chain(TestpOp::ALL.map(Some)).collect(),
            Allow::Required => TestpOp::ALL.map(Some).to_vec(),
        };
        for &testp in &tests {
            for precision in self.precision.values() {
                for &ftz in self.ftz.values() {
                    for &clamp in self.clamps {
                        for &nan in self.nan.values() {
                            for &abs in self.abs {
                                out.push(Instr {
                                    op,
                                    testp,
                                    precision,
                                    ftz: if ftz { Ftz::Flush } else { Ftz::Preserve },
                                    clamp,
                                    nan: if nan { NanMode::Propagate } else { NanMode::Number },
                                    abs,
                                    ty,
                                    inputs: self.inputs,
                                    conv: None,
                                    cmp: None,
                                    selp_int: None,
                                    atype: None,
                                });
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The row as spec syntax for one opcode and type, e.g. `add{.rnd}{.ftz}{.sat}.f32 d, a, b`.
    pub fn syntax(&self, op: Opcode, ty: Type) -> Syntax {
        Syntax { rule: *self, op, ty }
    }
}

/// Display adapter for [`FormRule::syntax`].
pub struct Syntax {
    rule: FormRule,
    op: Opcode,
    ty: Type,
}

impl fmt::Display for Syntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.rule;
        write!(f, "{}", self.op.name())?;
        match r.test {
            Allow::Never => {}
            Allow::Optional => write!(f, "{{.op}}")?,
            Allow::Required => write!(f, ".op")?,
        }
        match r.precision {
            PrecisionRule::None => {}
            PrecisionRule::Optional(rs) => write!(f, "{{{}}}", rounding_set(rs))?,
            PrecisionRule::Required(rs) => write!(f, "{}", rounding_set(rs))?,
            PrecisionRule::Approx => write!(f, ".approx")?,
            PrecisionRule::Full => write!(f, ".full")?,
        }
        optional(f, r.ftz, ".ftz")?;
        let clamp_names: Vec<&str> = r.clamps.iter().filter_map(|c| clamp_name(*c)).collect();
        if !clamp_names.is_empty() {
            let joined = clamp_names.iter().map(|n| format!(".{n}")).collect::<Vec<_>>().join("|");
            if r.clamps.contains(&Clamp::None) {
                write!(f, "{{{joined}}}")?;
            } else {
                write!(f, "{joined}")?;
            }
        }
        optional(f, r.nan, ".NaN")?;
        let abs_names: Vec<&str> = r.abs.iter().filter_map(|a| abs_name(*a)).collect();
        if !abs_names.is_empty() {
            let joined = abs_names.iter().map(|n| format!(".{n}")).collect::<Vec<_>>().join("|");
            if r.abs.contains(&AbsMode::None) {
                write!(f, "{{{joined}}}")?;
            } else {
                write!(f, "{joined}")?;
            }
        }
        // testp writes a predicate (9.7.3.1: `testp.op.type p, a`).
        let dest = if self.op == Opcode::Testp { "p" } else { "d" };
        write!(f, ".{} {dest}", self.ty.name())?;
        for name in ["a", "b", "c", "e", "f", "g"].iter().take(usize::from(r.inputs)) {
            write!(f, ", {name}")?;
        }
        Ok(())
    }
}

fn optional(f: &mut fmt::Formatter<'_>, allow: Allow, name: &str) -> fmt::Result {
    match allow {
        Allow::Never => Ok(()),
        Allow::Optional => write!(f, "{{{name}}}"),
        Allow::Required => write!(f, "{name}"),
    }
}

/// `.rnd` for all four modes, else as the spec writes subsets: `.rn`, `.{rz,rm,rp}`.
pub fn rounding_set(rs: &[Rounding]) -> String {
    match rs {
        [r] => format!(".{}", r.name()),
        _ if rs.len() == Rounding::ALL.len() => ".rnd".to_string(),
        _ => format!(".{{{}}}", rs.iter().map(|r| r.name()).collect::<Vec<_>>().join(",")),
    }
}

pub fn clamp_name(c: Clamp) -> Option<&'static str> {
    match c {
        Clamp::None => None,
        Clamp::Sat => Some("sat"),
        Clamp::Relu => Some("relu"),
    }
}

pub fn abs_name(a: AbsMode) -> Option<&'static str> {
    match a {
        AbsMode::None => None,
        AbsMode::Abs => Some("abs"),
        AbsMode::XorsignAbs => Some("xorsign.abs"),
    }
}

use AbsMode as A;
use Clamp as C;
use Opcode as O;
use Type as T;

const RND: &[Rounding] = &Rounding::ALL;
const RN: &[Rounding] = &[Rounding::Rn];
const RZ_RM_RP: &[Rounding] = &[Rounding::Rz, Rounding::Rm, Rounding::Rp];

const NO_CLAMP: &[Clamp] = &[C::None];
const SAT: &[Clamp] = &[C::None, C::Sat];
const RELU: &[Clamp] = &[C::None, C::Relu];
const RELU_ONLY: &[Clamp] = &[C::Relu];
const NO_ABS: &[AbsMode] = &[A::None];
const XORSIGN: &[AbsMode] = &[A::None, A::XorsignAbs];
const ABS: &[AbsMode] = &[A::None, A::Abs];

const F16S: &[Type] = &[T::F16, T::F16x2];
const BF16S: &[Type] = &[T::Bf16, T::Bf16x2];
const HALVES: &[Type] = &[T::F16, T::F16x2, T::Bf16, T::Bf16x2];
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
const ABS_OP: &[(Opcode, &str)] = &[(O::Abs, "9.7.3.9")];
const NEG: &[(Opcode, &str)] = &[(O::Neg, "9.7.3.10")];
const MIN_MAX: &[(Opcode, &str)] = &[(O::Min, "9.7.3.11"), (O::Max, "9.7.3.12")];
const RCP: &[(Opcode, &str)] = &[(O::Rcp, "9.7.3.13")];
const RCP_APPROX_FTZ_F64: &[(Opcode, &str)] = &[(O::Rcp, "9.7.3.14")];
const SQRT: &[(Opcode, &str)] = &[(O::Sqrt, "9.7.3.15")];
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

/// A row with nothing allowed but the opcode and type; the table overrides what each line allows.
const BASE: FormRule = FormRule {
    ops: &[],
    types: &[],
    test: Allow::Never,
    precision: PrecisionRule::None,
    ftz: Allow::Never,
    clamps: NO_CLAMP,
    nan: Allow::Never,
    abs: NO_ABS,
    inputs: 1,
    source: Source::Spec,
};

/// The structural table. Every row is one syntax line of the PTX ISA (section in `ops`).
#[rustfmt::skip]
pub static FORM_RULES: &[FormRule] = &[
    // 9.7.3.1: testp.op.type p, a; .type = { .f32, .f64 }.
    FormRule { ops: TESTP, types: F32_F64, test: Allow::Required, ..BASE },
    // 9.7.3.2: copysign.type d, a, b.
    FormRule { ops: COPYSIGN, types: F32_F64, inputs: 2, ..BASE },
    // 9.7.3.3-5: {add,sub,mul}{.rnd}{.ftz}{.sat}.f32; no rounding = .rn, may be contracted.
    FormRule { ops: ADD_SUB_MUL, types: F32, precision: PrecisionRule::Optional(RND), ftz: Allow::Optional, clamps: SAT, inputs: 2, ..BASE },
    // 9.7.3.3-5: {add,sub,mul}{.rnd}{.ftz}.f32x2 (no .sat).
    FormRule { ops: ADD_SUB_MUL, types: F32X2, precision: PrecisionRule::Optional(RND), ftz: Allow::Optional, inputs: 2, ..BASE },
    // 9.7.3.3-5: {add,sub,mul}{.rnd}.f64 (Table 29: .ftz and .sat n/a).
    FormRule { ops: ADD_SUB_MUL, types: F64, precision: PrecisionRule::Optional(RND), inputs: 2, ..BASE },
    // 9.7.3.6: fma.rnd{.ftz}{.sat}.f32, "Rounding modifiers (no default)".
    FormRule { ops: FMA, types: F32, precision: PrecisionRule::Required(RND), ftz: Allow::Optional, clamps: SAT, inputs: 3, ..BASE },
    // 9.7.3.6: fma.rnd{.ftz}.f32x2.
    FormRule { ops: FMA, types: F32X2, precision: PrecisionRule::Required(RND), ftz: Allow::Optional, inputs: 3, ..BASE },
    // 9.7.3.6: fma.rnd.f64.
    FormRule { ops: FMA, types: F64, precision: PrecisionRule::Required(RND), inputs: 3, ..BASE },
    // 9.7.3.7: mad.rnd{.ftz}{.sat}.f32 (sm_20+). mad{.ftz}{.sat}.f32 without rounding is sm_1x
    // only and rejected from PTX ISA 3.2 (errata; ptxas 13.5 errors from 3.2, warns at 3.1).
    FormRule { ops: MAD, types: F32, precision: PrecisionRule::Required(RND), ftz: Allow::Optional, clamps: SAT, inputs: 3, ..BASE },
    // 9.7.3.7: mad.rnd.f64.
    FormRule { ops: MAD, types: F64, precision: PrecisionRule::Required(RND), inputs: 3, ..BASE },
    // 9.7.3.8: div.approx{.ftz}.f32.
    FormRule { ops: DIV, types: F32, precision: PrecisionRule::Approx, ftz: Allow::Optional, inputs: 2, ..BASE },
    // 9.7.3.8: div.full{.ftz}.f32.
    FormRule { ops: DIV, types: F32, precision: PrecisionRule::Full, ftz: Allow::Optional, inputs: 2, ..BASE },
    // 9.7.3.8: div.rnd{.ftz}.f32.
    FormRule { ops: DIV, types: F32, precision: PrecisionRule::Required(RND), ftz: Allow::Optional, inputs: 2, ..BASE },
    // 9.7.3.8: div.rnd.f64.
    FormRule { ops: DIV, types: F64, precision: PrecisionRule::Required(RND), inputs: 2, ..BASE },
    // 9.7.3.9 / 9.7.3.10: {abs,neg}{.ftz}.f32, {abs,neg}.f64.
    FormRule { ops: ABS_OP, types: F32, ftz: Allow::Optional, ..BASE },
    FormRule { ops: ABS_OP, types: F64, ..BASE },
    FormRule { ops: NEG, types: F32, ftz: Allow::Optional, ..BASE },
    FormRule { ops: NEG, types: F64, ..BASE },
    // 9.7.3.11-12: {min,max}{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b.
    FormRule { ops: MIN_MAX, types: F32, ftz: Allow::Optional, nan: Allow::Optional, abs: XORSIGN, inputs: 2, ..BASE },
    // 9.7.3.11-12: {min,max}{.ftz}{.NaN}{.abs}.f32 d, a, b, c (".xorsign cannot be specified for
    // three inputs"; ".abs" alone only here: ptxas: "Modifier '.abs' requires modifier '.xorsign'").
    FormRule { ops: MIN_MAX, types: F32, ftz: Allow::Optional, nan: Allow::Optional, abs: ABS, inputs: 3, ..BASE },
    // 9.7.3.11-12: {min,max}.f64 d, a, b.
    FormRule { ops: MIN_MAX, types: F64, inputs: 2, ..BASE },
    // 9.7.3.13: rcp.approx{.ftz}.f32, rcp.rnd{.ftz}.f32, rcp.rnd.f64. (ptxas 13.5 also takes
    // rcp.rnd.ftz.f64 and ignores the .ftz; not in the spec, left out: docs/isa-table.md.)
    FormRule { ops: RCP, types: F32, precision: PrecisionRule::Approx, ftz: Allow::Optional, ..BASE },
    FormRule { ops: RCP, types: F32, precision: PrecisionRule::Required(RND), ftz: Allow::Optional, ..BASE },
    FormRule { ops: RCP, types: F64, precision: PrecisionRule::Required(RND), ..BASE },
    // 9.7.3.14: rcp.approx.ftz.f64 (.ftz required: the only approximate f64 reciprocal).
    FormRule { ops: RCP_APPROX_FTZ_F64, types: F64, precision: PrecisionRule::Approx, ftz: Allow::Required, ..BASE },
    // 9.7.3.15: sqrt.approx{.ftz}.f32, sqrt.rnd{.ftz}.f32, sqrt.rnd.f64.
    FormRule { ops: SQRT, types: F32, precision: PrecisionRule::Approx, ftz: Allow::Optional, ..BASE },
    FormRule { ops: SQRT, types: F32, precision: PrecisionRule::Required(RND), ftz: Allow::Optional, ..BASE },
    FormRule { ops: SQRT, types: F64, precision: PrecisionRule::Required(RND), ..BASE },
    // 9.7.3.16: rsqrt.approx{.ftz}.f32, rsqrt.approx.f64.
    FormRule { ops: RSQRT, types: F32, precision: PrecisionRule::Approx, ftz: Allow::Optional, ..BASE },
    FormRule { ops: RSQRT, types: F64, precision: PrecisionRule::Approx, ..BASE },
    // 9.7.3.17: rsqrt.approx.ftz.f64.
    FormRule { ops: RSQRT_APPROX_FTZ_F64, types: F64, precision: PrecisionRule::Approx, ftz: Allow::Required, ..BASE },
    // 9.7.3.18-21: {sin,cos,lg2,ex2}.approx{.ftz}.f32.
    FormRule { ops: SIN_COS_LG2_EX2, types: F32, precision: PrecisionRule::Approx, ftz: Allow::Optional, ..BASE },
    // 9.7.3.22: tanh.approx.f32 (no .ftz: "subnormal numbers are supported").
    FormRule { ops: TANH, types: F32, precision: PrecisionRule::Approx, ..BASE },
    // 9.7.4.1-3: {add,sub,mul}{.rnd}{.ftz}{.sat}.{f16,f16x2}, .rnd = { .rn }
    // (ptxas 13.5: "Illegal rounding modifier" for .rz/.rm/.rp at every PTX version).
    FormRule { ops: H_ADD_SUB_MUL, types: F16S, precision: PrecisionRule::Optional(RN), ftz: Allow::Optional, clamps: SAT, inputs: 2, ..BASE },
    // 9.7.4.1-3: {add,sub,mul}{.rnd}.{bf16,bf16x2}.
    FormRule { ops: H_ADD_SUB_MUL, types: BF16S, precision: PrecisionRule::Optional(RN), inputs: 2, ..BASE },
    // 9.7.4.4: fma.rnd{.ftz}{.sat}.{f16,f16x2} and fma.rnd{.ftz}.relu.{f16,f16x2}, .rnd = { .rn }.
    FormRule { ops: H_FMA, types: F16S, precision: PrecisionRule::Required(RN), ftz: Allow::Optional, clamps: SAT, inputs: 3, ..BASE },
    FormRule { ops: H_FMA, types: F16S, precision: PrecisionRule::Required(RN), ftz: Allow::Optional, clamps: RELU_ONLY, inputs: 3, ..BASE },
    // 9.7.4.4: fma.rnd{.relu}.{bf16,bf16x2}, .rnd = { .rn }.
    FormRule { ops: H_FMA, types: BF16S, precision: PrecisionRule::Required(RN), clamps: RELU, inputs: 3, ..BASE },
    // Not in 9.7.4.4 (.rnd = { .rn }), but ptxas 13.5 accepts fma.{rz,rm,rp}{.relu}.{bf16,bf16x2}
    // from sm_80 / PTX 7.0. Its code for them is suspect (SASS: bf16 scalar goes through f32
    // FFMA.RZ then an f16 pack with .relu dropped; bf16x2 drops the rounding): docs/isa-table.md.
    FormRule { ops: H_FMA, types: BF16S, precision: PrecisionRule::Required(RZ_RM_RP), clamps: RELU, inputs: 3, source: Source::Ptxas, ..BASE },
    // 9.7.4.5 / 9.7.4.6: {neg,abs}{.ftz}.{f16,f16x2}, {neg,abs}.{bf16,bf16x2}.
    FormRule { ops: H_NEG, types: F16S, ftz: Allow::Optional, ..BASE },
    FormRule { ops: H_NEG, types: BF16S, ..BASE },
    FormRule { ops: H_ABS, types: F16S, ftz: Allow::Optional, ..BASE },
    FormRule { ops: H_ABS, types: BF16S, ..BASE },
    // 9.7.4.7-8: {min,max}{.ftz}{.NaN}{.xorsign.abs}.{f16,f16x2} d, a, b (2 inputs only).
    FormRule { ops: H_MIN_MAX, types: F16S, ftz: Allow::Optional, nan: Allow::Optional, abs: XORSIGN, inputs: 2, ..BASE },
    // 9.7.4.7-8: {min,max}{.NaN}{.xorsign.abs}.{bf16,bf16x2} d, a, b.
    FormRule { ops: H_MIN_MAX, types: BF16S, nan: Allow::Optional, abs: XORSIGN, inputs: 2, ..BASE },
    // 9.7.4.9: tanh.approx.{f16,f16x2,bf16,bf16x2}.
    FormRule { ops: H_TANH, types: HALVES, precision: PrecisionRule::Approx, ..BASE },
    // 9.7.4.10: ex2.approx.{f16,f16x2} (no .ftz), ex2.approx.ftz.{bf16,bf16x2} (.ftz required).
    FormRule { ops: H_EX2, types: F16S, precision: PrecisionRule::Approx, ..BASE },
    FormRule { ops: H_EX2, types: BF16S, precision: PrecisionRule::Approx, ftz: Allow::Required, ..BASE },
];

/// The rows that cover an opcode and type, in table order.
pub fn rules_for(op: Opcode, ty: Type) -> impl Iterator<Item = &'static FormRule> {
    rows_of(op).iter().copied().filter(move |r| r.covers(op, ty))
}

/// The rows that name `op`, in table order: an index built once, since the judge's
/// classification asks whether each rounding and `.ftz` variant of a mismatching form is
/// legal, and scanning the whole table for each was 7 % of the judge (`perf` of
/// `ptxfuzz bench --judge`, 2026-12-04).
pub fn rows_of(op: Opcode) -> &'static [&'static FormRule] {
    static INDEX: std::sync::OnceLock<Vec<Vec<&'static FormRule>>> = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| Opcode::ALL.iter().map(|&o| FORM_RULES.iter().filter(|r| r.section(o).is_some()).collect()).collect());
    Opcode::ALL.iter().position(|&o| o == op).map_or(&[], |k| index[k].as_slice())
}

/// The PTX ISA section of an opcode on a type (the first row's), e.g. `9.7.4.2` for `sub.f16`.
pub fn section_of(op: Opcode, ty: Type) -> &'static str {
    rules_for(op, ty)
        .find_map(|r| r.section(op))
        .or_else(|| FORM_RULES.iter().find_map(|r| r.section(op)))
        .unwrap_or("9.7.3")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_has_a_row() {
        for op in Opcode::ALL.into_iter().filter(|o| o.in_arith_table()) {
            assert!(FORM_RULES.iter().any(|r| r.section(op).is_some()), "{op:?}");
        }
    }

    #[test]
    fn the_index_by_opcode_holds_exactly_the_rows_naming_it_in_table_order() {
        for op in Opcode::ALL {
            let scanned: Vec<*const FormRule> = FORM_RULES.iter().filter(|r| r.section(op).is_some()).map(|r| r as *const _).collect();
            let indexed: Vec<*const FormRule> = rows_of(op).iter().map(|&r| r as *const _).collect();
            assert_eq!(indexed, scanned, "{op:?}");
        }
        assert!(!rows_of(Opcode::Add).is_empty());
    }

    #[test]
    fn every_row_admits_its_own_forms() {
        for rule in FORM_RULES {
            for &(op, _) in rule.ops {
                for &ty in rule.types {
                    let forms = rule.forms(op, ty);
                    assert!(!forms.is_empty());
                    for f in forms {
                        assert!(rule.admits(&f), "{f:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn rows_do_not_overlap() {
        // Two rows admitting the same form would make the table ambiguous about its section.
        for (i, a) in FORM_RULES.iter().enumerate() {
            for b in &FORM_RULES[i + 1..] {
                for &(op, _) in a.ops {
                    for &ty in a.types {
                        for f in a.forms(op, ty) {
                            assert!(!b.admits(&f), "{f:?} in two rows");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn syntax_reads_like_the_spec() {
        let row = rules_for(Opcode::Add, Type::F32).next().unwrap();
        assert_eq!(row.syntax(Opcode::Add, Type::F32).to_string(), "add{.rnd}{.ftz}{.sat}.f32 d, a, b");
        let min3 = rules_for(Opcode::Min, Type::F32).nth(1).unwrap();
        assert_eq!(min3.syntax(Opcode::Min, Type::F32).to_string(), "min{.ftz}{.NaN}{.abs}.f32 d, a, b, c");
        let hfma = rules_for(Opcode::Fma, Type::F16).nth(1).unwrap();
        assert_eq!(hfma.syntax(Opcode::Fma, Type::F16).to_string(), "fma.rn{.ftz}.relu.f16 d, a, b, c");
        let testp = rules_for(Opcode::Testp, Type::F64).next().unwrap();
        assert_eq!(testp.syntax(Opcode::Testp, Type::F64).to_string(), "testp.op.f64 p, a");
    }

    #[test]
    fn sections_follow_the_type_family() {
        assert_eq!(section_of(Opcode::Sub, Type::F16), "9.7.4.2");
        assert_eq!(section_of(Opcode::Sub, Type::F32), "9.7.3.4");
        assert_eq!(section_of(Opcode::Ex2, Type::Bf16x2), "9.7.4.10");
        assert_eq!(section_of(Opcode::Sin, Type::F64), "9.7.3.18");
    }
}
