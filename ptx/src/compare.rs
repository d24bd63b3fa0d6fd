//! Comparison and selection (issue 16 point 2): `setp` and `set` (PTX ISA 9.7.6.1, 9.7.6.2
//! and their half-precision forms 9.7.7.1, 9.7.7.2) with every comparison operator, the
//! ordered and unordered ones, `num`, `nan`, `.ftz`, the `.BoolOp` combination with a
//! predicate `{!}c`, and `selp` (9.7.6.3). The spelling, its legality (a table of the
//! sections' syntax lines and notes, one row per rule, each with its source), the sm and PTX
//! version each form needs, and the result ([`eval`]): every result is a single value. The
//! float forms whose operands a program's registers hold (scalar `setp` with or without
//! `.BoolOp`, `set` to a float or integer type, `selp.f32`/`.f64`) are instructions of programs too
//! (`crate::isa::comparison`).
//!
//! One reading is this module's: 9.7.7.1's Semantics pseudo-code writes `if (dtype == .f16x2 ||
//! stype == .bf16x2)` and `else if (dtype == .f16 || stype == .bf16)`, which would give
//! `set.u32.bf16x2` 1.0 lanes and `set.u32.bf16` 1.0; its Description ("0xffffffff is written
//! for destination types .u32/.s32 ... 1.0 in target precision floating point format is written
//! for destination type .f16, .bf16") and its own syntax lines say the destination type
//! decides, which is what this module does.

use std::fmt;

use crate::cvt::int::IntType;
use crate::format::Scalar;
use crate::isa::target::{PtxVersion, Requirement, Target};

#[path = "compare_eval.rs"]
mod eval;
pub use eval::{eval, true_bits, Comparator, Compared};

/// `.CmpOp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

impl CmpOp {
    pub const ALL: [CmpOp; 18] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::Lo,
        CmpOp::Ls,
        CmpOp::Hi,
        CmpOp::Hs,
        CmpOp::Equ,
        CmpOp::Neu,
        CmpOp::Ltu,
        CmpOp::Leu,
        CmpOp::Gtu,
        CmpOp::Geu,
        CmpOp::Num,
        CmpOp::Nan,
    ];

    pub fn name(self) -> &'static str {
        use CmpOp::*;
        match self {
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            Lo => "lo",
            Ls => "ls",
            Hi => "hi",
            Hs => "hs",
            Equ => "equ",
            Neu => "neu",
            Ltu => "ltu",
            Leu => "leu",
            Gtu => "gtu",
            Geu => "geu",
            Num => "num",
            Nan => "nan",
        }
    }

    /// `lo, ls, hi, hs`: the unsigned spellings of `lt, le, gt, ge`.
    fn unsigned_only(self) -> bool {
        matches!(self, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs)
    }

    /// The unordered comparisons and `num`, `nan`: the Floating Point Notes' operators.
    fn float_only(self) -> bool {
        matches!(self, CmpOp::Equ | CmpOp::Neu | CmpOp::Ltu | CmpOp::Leu | CmpOp::Gtu | CmpOp::Geu | CmpOp::Num | CmpOp::Nan)
    }
}

/// `.BoolOp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

impl BoolOp {
    pub const ALL: [BoolOp; 3] = [BoolOp::And, BoolOp::Or, BoolOp::Xor];

    pub fn name(self) -> &'static str {
        match self {
            BoolOp::And => "and",
            BoolOp::Or => "or",
            BoolOp::Xor => "xor",
        }
    }

    pub fn apply(self, t: bool, c: bool) -> bool {
        match self {
            BoolOp::And => t && c,
            BoolOp::Or => t || c,
            BoolOp::Xor => t ^ c,
        }
    }
}

/// An operand type of these instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `.b16`, `.b32`, `.b64`.
    Bits(u32),
    Int(IntType),
    Float(Scalar),
    /// `.f16x2`, `.bf16x2`.
    Packed(Scalar),
}

impl Ty {
    /// Every type these sections name.
    pub const ALL: [Ty; 15] = [
        Ty::Bits(16),
        Ty::Bits(32),
        Ty::Bits(64),
        Ty::Int(IntType { signed: false, bits: 16 }),
        Ty::Int(IntType { signed: false, bits: 32 }),
        Ty::Int(IntType { signed: false, bits: 64 }),
        Ty::Int(IntType { signed: true, bits: 16 }),
        Ty::Int(IntType { signed: true, bits: 32 }),
        Ty::Int(IntType { signed: true, bits: 64 }),
        Ty::Float(Scalar::F16),
        Ty::Float(Scalar::BF16),
        Ty::Float(Scalar::F32),
        Ty::Float(Scalar::F64),
        Ty::Packed(Scalar::F16),
        Ty::Packed(Scalar::BF16),
    ];

    pub fn parse(name: &str) -> Option<Ty> {
        Ty::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn name(self) -> String {
        match self {
            Ty::Bits(n) => format!("b{n}"),
            Ty::Int(t) => t.name().to_string(),
            Ty::Float(s) => s.name().to_string(),
            Ty::Packed(s) => format!("{}x2", s.name()),
        }
    }

    pub fn bits(self) -> u32 {
        match self {
            Ty::Bits(n) => n,
            Ty::Int(t) => t.bits,
            Ty::Float(s) => s.bits(),
            Ty::Packed(_) => 32,
        }
    }

    /// The source types of 9.7.6.1/2 (`.stype` of `set`, `.type` of `setp` and `selp`).
    fn regular(self) -> bool {
        matches!(self, Ty::Bits(_) | Ty::Int(_) | Ty::Float(Scalar::F32 | Scalar::F64))
    }

    fn half(self) -> Option<Scalar> {
        match self {
            Ty::Float(s @ (Scalar::F16 | Scalar::BF16)) | Ty::Packed(s) => Some(s),
            _ => None,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::Float(_) | Ty::Packed(_))
    }
}

/// Which instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `setp`: predicates `p[|q]`.
    Setp,
    /// `set`: a register of type `dtype`.
    Set { dtype: Ty },
    /// `selp`: `d = c ? a : b`.
    Selp,
}

/// One `setp`, `set` or `selp` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Compare {
    pub kind: Kind,
    /// `None` for `selp`.
    pub cmp: Option<CmpOp>,
    pub bool_op: Option<BoolOp>,
    pub ftz: bool,
    /// The source type (`.type` or `.stype`).
    pub ty: Ty,
}

/// Why a spelling is not a documented form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("'{text}': {why} (e.g. setp.ltu.f32, set.eq.u32.f16x2, selp.f32)")]
    Spelling { text: String, why: String },
    #[error("{form}: {rule} ({section})")]
    Illegal { form: String, rule: &'static str, section: &'static str },
    #[error("{form} needs sm_{sm} and PTX {ptx} ({section}); the target is sm_{target_sm}, PTX {target_ptx}")]
    Target { form: String, sm: u32, ptx: PtxVersion, section: &'static str, target_sm: u32, target_ptx: PtxVersion },
    #[error("{form} takes {want} operand(s), not {got}")]
    Operands { form: String, want: usize, got: usize },
}

const SET: &str = "PTX ISA 9.7.6.1 (set)";
const SETP: &str = "PTX ISA 9.7.6.2 (setp)";
const SELP: &str = "PTX ISA 9.7.6.3 (selp)";
const HALF_SET: &str = "PTX ISA 9.7.7.1 (half-precision set)";
const HALF_SETP: &str = "PTX ISA 9.7.7.2 (half-precision setp)";

fn section(c: &Compare) -> &'static str {
    match (c.kind, c.ty.half().is_some()) {
        (Kind::Selp, _) => SELP,
        (Kind::Setp, false) => SETP,
        (Kind::Setp, true) => HALF_SETP,
        (Kind::Set { dtype }, half) => match half || dtype.half().is_some() {
            true => HALF_SET,
            false => SET,
        },
    }
}

/// Whether `set.dtype.stype` is one of the syntax lines.
fn set_pair(dtype: Ty, stype: Ty) -> bool {
    let int = |bits: &[u32]| matches!(dtype, Ty::Int(t) if bits.contains(&t.bits));
    match stype {
        // 9.7.6.1: .dtype = { .u32, .s32, .f32 } over every regular .stype; 9.7.7.1:
        // set{.ftz}.f16.stype and set.bf16.stype over those and .f16.
        s if s.regular() => int(&[32]) || matches!(dtype, Ty::Float(Scalar::F32 | Scalar::F16 | Scalar::BF16)),
        Ty::Float(Scalar::F16) => int(&[16, 32]) || matches!(dtype, Ty::Float(Scalar::F16 | Scalar::BF16)),
        // set.dtype.bf16 with .dtype = { .u16, .s16, .u32, .s32 }.
        Ty::Float(Scalar::BF16) => int(&[16, 32]),
        // set.dtype.f16x2 with { .f16x2, .u32, .s32 }, set.dtype.bf16x2 with { .bf16x2, .u32, .s32 }.
        Ty::Packed(s) => int(&[32]) || dtype == Ty::Packed(s),
        _ => false,
    }
}

type Rule = (fn(&Compare) -> bool, &'static str);
/// The legality rules, in the order they are checked: a predicate true when the form breaks
/// the text it quotes (the section is the form's own, [`section`]).
const RULES: &[Rule] = &[
    (|c| c.kind == Kind::Selp && !c.ty.regular(), ".type = { .b16, .b32, .b64, .u16, .u32, .u64, .s16, .s32, .s64, .f32, .f64 }"),
    (|c| c.kind == Kind::Selp && (c.cmp.is_some() || c.bool_op.is_some() || c.ftz), "selp.type d, a, b, c takes no comparison, Boolean operator or .ftz"),
    (|c| c.kind != Kind::Selp && c.cmp.is_none(), "a comparison operator (.CmpOp) is required"),
    (
        |c| matches!(c.kind, Kind::Set { dtype } if !set_pair(dtype, c.ty)),
        "set.dtype.stype: .dtype = { .u32, .s32, .f32 } over .stype (9.7.6.1); .f16/.bf16 over those and .f16, .u16/.s16/.u32/.s32 over .f16/.bf16, .f16x2/.u32/.s32 over .f16x2, .bf16x2/.u32/.s32 over .bf16x2 (9.7.7.1)",
    ),
    (
        |c| c.cmp.is_some_and(CmpOp::unsigned_only) && !matches!(c.ty, Ty::Int(IntType { signed: false, .. })),
        "\"For unsigned values, the comparison operators lo, ls, hi, and hs ... may be used instead of lt, le, gt, ge\" (Integer Notes)",
    ),
    (|c| c.cmp.is_some_and(|o| !matches!(o, CmpOp::Eq | CmpOp::Ne)) && matches!(c.ty, Ty::Bits(_)), "\"The untyped, bit-size comparisons are eq and ne.\" (Integer Notes)"),
    (
        |c| c.cmp.is_some_and(CmpOp::float_only) && !c.ty.is_float(),
        "the unordered comparisons, num and nan are the Floating Point Notes' operators: \"To aid comparison operations in the presence of NaN values, unordered versions are included\"",
    ),
    (
        |c| c.ftz && (!matches!(c.ty, Ty::Float(Scalar::F32 | Scalar::F16) | Ty::Packed(Scalar::F16)) || matches!(c.kind, Kind::Set { dtype } if dtype.half() == Some(Scalar::BF16))),
        "\"Modifier .ftz applies only to .f32 comparisons\" (9.7.6.1/2); the half-precision syntax lines carry {.ftz} for .f16 and .f16x2 sources, never on a .bf16 line (ptxas 13.5 also refuses set.ftz.f16.stype for the .stype that are not .f32 or .f16)",
    ),
];

impl Compare {
    /// Parse `setp...`, `set...` or `selp...`.
    pub fn parse(text: &str) -> Result<Compare, CompareError> {
        let bad = |why: &str| CompareError::Spelling { text: text.to_string(), why: why.to_string() };
        let mut parts = text.split('.');
        let head = parts.next().unwrap_or("");
        let (mut cmp, mut bool_op, mut ftz, mut types) = (None, None, false, Vec::new());
        for p in parts {
            if let Some(o) = CmpOp::ALL.into_iter().find(|o| o.name() == p) {
                if cmp.replace(o).is_some() {
                    return Err(bad("two comparison operators"));
                }
            } else if let Some(b) = BoolOp::ALL.into_iter().find(|b| b.name() == p) {
                if bool_op.replace(b).is_some() {
                    return Err(bad("two Boolean operators"));
                }
            } else if p == "ftz" {
                if std::mem::replace(&mut ftz, true) {
                    return Err(bad("'.ftz' given twice"));
                }
            } else if let Some(t) = Ty::parse(p) {
                types.push(t);
            } else {
                return Err(bad(&format!("unknown modifier or type '.{p}'")));
            }
        }
        let (kind, ty) = match (head, &types[..]) {
            ("setp" | "selp", &[t]) => (if head == "setp" { Kind::Setp } else { Kind::Selp }, t),
            ("set", &[dtype, stype]) => (Kind::Set { dtype }, stype),
            ("setp" | "selp", _) => return Err(bad("needs exactly one type")),
            ("set", _) => return Err(bad("needs a destination and a source type")),
            _ => return Err(bad("not a setp, set or selp")),
        };
        let c = Compare { kind, cmp, bool_op, ftz, ty };
        c.check()?;
        Ok(c)
    }

    /// The first documented rule the form breaks, if any.
    pub fn check(&self) -> Result<(), CompareError> {
        match RULES.iter().find(|(breaks, _)| breaks(self)) {
            Some(&(_, rule)) => Err(CompareError::Illegal { form: self.to_string(), rule, section: section(self) }),
            None => Ok(()),
        }
    }

    /// The sm and PTX ISA version the form needs (the sections' PTX ISA and Target ISA Notes).
    pub fn requirement(&self) -> Requirement {
        let req = |sm, major, minor, section| Requirement::plain(sm, PtxVersion::new(major, minor), section);
        let bf16 = |t: Ty| t.half() == Some(Scalar::BF16);
        let dtype = match self.kind {
            Kind::Set { dtype } => Some(dtype),
            _ => None,
        };
        if bf16(self.ty) || dtype.is_some_and(bf16) {
            req(90, 7, 8, "setp.{bf16/bf16x2}, set.{u16, u32, s16, s32}.bf16, set.{u32, s32, bf16x2}.bf16x2, set.bf16.stype: PTX ISA 7.8, sm_90")
        } else if self.ty.half().is_some() && dtype.is_some_and(|d| matches!(d, Ty::Int(_))) {
            req(53, 6, 5, "set.{u16, u32, s16, s32}.f16 and set.{u32, s32}.f16x2: PTX ISA 6.5, sm_53")
        } else if self.ty.half().is_some() || dtype.is_some_and(|d| d.half().is_some()) {
            req(53, 4, 2, "half-precision set and setp: PTX ISA 4.2, sm_53")
        } else {
            req(20, 1, 0, "set, setp, selp: PTX ISA 1.0 (.f64: sm_13)")
        }
    }

    /// Whether `target` can run the form.
    pub fn check_target(&self, target: Target) -> Result<(), CompareError> {
        let r = self.requirement();
        if target.sm < r.sm || target.ptx < r.ptx {
            return Err(CompareError::Target { form: self.to_string(), sm: r.sm, ptx: r.ptx, section: r.section, target_sm: target.sm, target_ptx: target.ptx });
        }
        Ok(())
    }

    /// Source operands: `a, b`, then the predicate `c` with a Boolean operator or in `selp`.
    pub fn inputs(&self) -> usize {
        if self.bool_op.is_some() || self.kind == Kind::Selp {
            3
        } else {
            2
        }
    }

    /// Every documented form.
    pub fn all() -> Vec<Compare> {
        let mut out = Vec::new();
        let kinds = [Kind::Setp, Kind::Selp].into_iter().chain(Ty::ALL.into_iter().map(|dtype| Kind::Set { dtype }));
        for kind in kinds {
            for ty in Ty::ALL {
                for cmp in std::iter::once(None).chain(CmpOp::ALL.map(Some)) {
                    for bool_op in std::iter::once(None).chain(BoolOp::ALL.map(Some)) {
                        for ftz in [false, true] {
                            let c = Compare { kind, cmp, bool_op, ftz, ty };
                            if c.check().is_ok() {
                                out.push(c);
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for Compare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.kind {
            Kind::Setp => "setp",
            Kind::Set { .. } => "set",
            Kind::Selp => "selp",
        })?;
        if let Some(o) = self.cmp {
            write!(f, ".{}", o.name())?;
        }
        if let Some(b) = self.bool_op {
            write!(f, ".{}", b.name())?;
        }
        if self.ftz {
            f.write_str(".ftz")?;
        }
        if let Kind::Set { dtype } = self.kind {
            write!(f, ".{}", dtype.name())?;
        }
        write!(f, ".{}", self.ty.name())
    }
}

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;
