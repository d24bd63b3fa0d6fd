//! `cvt` between floating-point formats (PTX ISA 9.7.9.21, issue 16 point 1, first part): the
//! spelling, its legality as the section documents it (a table, one row per rule, each with
//! its sentence), and the bit-exact result set.
//!
//! Covered: `cvt{.frnd}{.ftz}{.sat}.dtype.atype` and `cvt{.irnd}{.ftz}{.sat}.t.t` on `f16`,
//! `bf16`, `f32`, `f64`; `cvt.frnd2{.relu}{.satfinite}.{f16,bf16}.f32` and the packed
//! `.{f16x2,bf16x2}.f32 d, a, b`; between a float and an integer type in [`int`]; the 8-, 6-
//! and 4-bit formats and ue8m0 in [`narrow`]; `tf32` (with `.rna`) in [`tf32`]; the stochastic
//! `.rs` to `.f16x2`/`.bf16x2` in [`stochastic`], to the x4 narrow destinations in
//! [`stochastic_quad`]. Not yet: `.s2f6x2`. Every family but the x4 `.rs` forms (a
//! four-register source) is an instruction of programs too (`Opcode::Cvt`, mapped in
//! `crate::isa::conversion`).
//!
//! ptxas 13.5 accepts more spellings than the section documents (e.g. `cvt.rn.f32.bf16`, a
//! rounding on a widening conversion, and `cvt.bf16.f16` without one); those are refused here
//! as undocumented, like the other ptxas-only forms of `ptx::isa::table`. A test checks that
//! ptxas assembles every documented spelling.

use std::fmt;

use crate::format::Scalar;
use crate::isa::target::{PtxVersion, Requirement, Target};
use crate::rounding::Rounding;

/// The section every rule cites.
pub const SECTION: &str = "PTX ISA 9.7.9.21 (cvt)";

/// How a `cvt` rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvtRounding {
    /// No modifier: the conversion loses nothing.
    None,
    /// `.rn`, `.rz`, `.rm`, `.rp`: to the destination format.
    Float(Rounding),
    /// `.rni`, `.rzi`, `.rmi`, `.rpi`: to an integral value in the same format.
    Integer(Rounding),
}

/// One `cvt` form between floating-point formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cvt {
    pub dst: Scalar,
    /// `.f16x2`/`.bf16x2`: two `.f32` sources, `a` into the upper half.
    pub packed: bool,
    pub src: Scalar,
    pub rounding: CvtRounding,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub satfinite: bool,
}

/// Why a `cvt` spelling is not a documented form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CvtError {
    #[error("'{text}': {why} (eval takes cvt between f16, bf16, f32, f64 and the integer types u8..s64, and to tf32, e.g. cvt.rn.bf16.f32, cvt.rni.s32.f32, cvt.rna.tf32.f32, cvt.rs.bf16x2.f32)")]
    Spelling { text: String, why: String },
    #[error("{form}: {rule} ({SECTION})")]
    Illegal { form: String, rule: &'static str },
    #[error("{form} needs sm_{sm} and PTX {ptx} ({SECTION}); the target is sm_{target_sm}, PTX {target_ptx}")]
    Target { form: String, sm: u32, ptx: PtxVersion, target_sm: u32, target_ptx: PtxVersion },
    #[error("{form} takes {want} operand(s), not {got}")]
    Operands { form: String, want: usize, got: usize },
}

fn scalar_of(name: &str) -> Option<(Scalar, bool)> {
    Some(match name {
        "f16" => (Scalar::F16, false),
        "bf16" => (Scalar::BF16, false),
        "f32" => (Scalar::F32, false),
        "f64" => (Scalar::F64, false),
        "f16x2" => (Scalar::F16, true),
        "bf16x2" => (Scalar::BF16, true),
        _ => return None,
    })
}

/// Whether every value of `src` is a value of `dst` (a conversion that loses nothing).
fn holds(dst: Scalar, src: Scalar) -> bool {
    dst == src || dst == Scalar::F64 || (dst == Scalar::F32 && src != Scalar::F64)
}

/// The legality rules, in the order they are checked: `(rule, the sentence it quotes)`, each
/// a predicate that is true when the form breaks it.
/// The first of `rules` (each true when a form breaks it, checked in order) that `form`
/// breaks, as the error that quotes it: the legality tables of the float, integer and tf32
/// families share it.
fn first_broken_rule<T: fmt::Display>(form: &T, rules: &[(fn(&T) -> bool, &'static str)]) -> Result<(), CvtError> {
    match rules.iter().find(|(breaks, _)| breaks(form)) {
        Some(&(_, rule)) => Err(CvtError::Illegal { form: form.to_string(), rule }),
        None => Ok(()),
    }
}

type Rule = (fn(&Cvt) -> bool, &'static str);
const RULES: &[Rule] = &[
    (|c| c.packed && c.src != Scalar::F32, "the packed .f16x2/.bf16x2 destinations take two .f32 sources (Syntax)"),
    (
        |c| matches!(c.rounding, CvtRounding::Integer(_)) && (c.dst != c.src || c.packed),
        "\"Integer rounding is required ... for same-size float-to-float conversions where the value is rounded to an integer. Integer rounding is illegal in all other instances.\"",
    ),
    (
        |c| c.rounding == CvtRounding::None && (c.packed || !holds(c.dst, c.src)),
        "\"Rounding modifier is mandatory ... float-to-float conversions, when destination type is smaller than source type\" (and f16/bf16, which hold each other's values neither way, and all .f16x2/.bf16x2 conversions)",
    ),
    (
        |c| matches!(c.rounding, CvtRounding::Float(_)) && !c.packed && holds(c.dst, c.src) && !(c.src == Scalar::BF16 && c.dst != Scalar::BF16),
        "\"Floating-point rounding is required for float-to-float conversions that result in loss of precision ... Floating-point rounding is illegal in all other instances.\" (a bf16 source widening to f32/f64 may carry one: the section's example \"cvt.f64.bf16.rp f, b\")",
    ),
    (|c| c.ftz && c.dst != Scalar::F32 && c.src != Scalar::F32, "\"Modifier .ftz can only be specified when either .dtype or .atype is .f32\""),
    (
        |c| c.sat && (c.packed || c.dst == Scalar::BF16 || c.src == Scalar::BF16 || c.relu || c.satfinite),
        "\".sat ... Applies to .f16, .f32, and .f64 types\" (read as both types: ptxas 13.5 refuses .sat with a bf16 source too; not with .relu/.satfinite, which have their own syntax lines)",
    ),
    (
        |c| (c.relu || c.satfinite) && (c.src != Scalar::F32 || !matches!(c.dst, Scalar::F16 | Scalar::BF16)),
        "\".relu\" and \".satfinite\" here: cvt.frnd2{.relu}{.satfinite}.{f16,f16x2,bf16,bf16x2}.f32 (Syntax)",
    ),
    (
        |c| (c.relu || c.satfinite || c.packed) && !matches!(c.rounding, CvtRounding::Float(Rounding::Rn | Rounding::Rz)),
        "\".frnd2 = { .rn, .rz }\" for .relu, .satfinite and the packed destinations (Syntax)",
    ),
    (|c| (c.relu || c.satfinite || c.packed) && c.ftz, "no .ftz in the syntax lines of .relu, .satfinite and .f16x2/.bf16x2"),
];

impl Cvt {
    /// Parse a spelling: `cvt`, then modifiers, then the destination and source types
    /// (modifiers may also follow the types, as the section's examples write `cvt.f64.bf16.rp`).
    pub fn parse(text: &str) -> Result<Cvt, CvtError> {
        let bad = |why: &str| CvtError::Spelling { text: text.to_string(), why: why.to_string() };
        let mut parts = text.split('.');
        if parts.next() != Some("cvt") {
            return Err(bad("not a cvt"));
        }
        let mut types = Vec::new();
        let (mut rounding, mut ftz, mut sat, mut relu, mut satfinite) = (CvtRounding::None, false, false, false, false);
        for p in parts {
            let r = |m: Rounding| Some(m);
            let (float, integer) = match p {
                "rn" => (r(Rounding::Rn), None),
                "rz" => (r(Rounding::Rz), None),
                "rm" => (r(Rounding::Rm), None),
                "rp" => (r(Rounding::Rp), None),
                "rni" => (None, r(Rounding::Rn)),
                "rzi" => (None, r(Rounding::Rz)),
                "rmi" => (None, r(Rounding::Rm)),
                "rpi" => (None, r(Rounding::Rp)),
                _ => (None, None),
            };
            let seen = match (float, integer, p) {
                (Some(m), _, _) => std::mem::replace(&mut rounding, CvtRounding::Float(m)) != CvtRounding::None,
                (_, Some(m), _) => std::mem::replace(&mut rounding, CvtRounding::Integer(m)) != CvtRounding::None,
                (_, _, "ftz") => std::mem::replace(&mut ftz, true),
                (_, _, "sat") => std::mem::replace(&mut sat, true),
                (_, _, "relu") => std::mem::replace(&mut relu, true),
                (_, _, "satfinite") => std::mem::replace(&mut satfinite, true),
                (_, _, t) => match scalar_of(t) {
                    Some(s) => {
                        types.push(s);
                        false
                    }
                    None => return Err(bad(&format!("unknown modifier or type '.{t}' (tf32 and .rna: ptx::cvt::tf32; .rs: ptx::cvt::stochastic; integer types: ptx::cvt::int; 8-, 6- and 4-bit: ptx::cvt::narrow)"))),
                },
            };
            if seen {
                return Err(bad(&format!("'.{p}' or a second rounding given twice")));
            }
        }
        let [(dst, packed), (src, src_packed)] = types[..] else {
            return Err(bad("needs a destination and a source type"));
        };
        if src_packed {
            return Err(bad("a packed source type is not a float-to-float cvt"));
        }
        let c = Cvt { dst, packed, src, rounding, ftz, sat, relu, satfinite };
        c.check()?;
        Ok(c)
    }

    /// The first documented rule the form breaks, if any.
    pub fn check(&self) -> Result<(), CvtError> {
        first_broken_rule(self, RULES)
    }

    /// The sm and PTX ISA version the form needs (the section's PTX ISA and Target ISA Notes).
    pub fn requirement(&self) -> Requirement {
        let req = |sm, major, minor, section| Requirement::plain(sm, PtxVersion::new(major, minor), section);
        let bf16 = self.dst == Scalar::BF16 || self.src == Scalar::BF16;
        let other = if self.dst == Scalar::BF16 { self.src } else { self.dst };
        if self.satfinite {
            req(80, 8, 1, "cvt.satfinite.{f16, bf16, f16x2, bf16x2, tf32}.f32: PTX ISA 8.1")
        } else if bf16 && matches!(other, Scalar::F16 | Scalar::F64 | Scalar::BF16) {
            req(90, 7, 8, "cvt.bf16.{f16/f64/bf16} and cvt.{f16/f64}.bf16: PTX ISA 7.8, sm_90")
        } else if self.src == Scalar::BF16 && self.ftz {
            req(90, 7, 8, ".ftz qualifier for cvt.f32.bf16: PTX ISA 7.8, sm_90")
        } else if self.src == Scalar::BF16 {
            req(80, 7, 1, "cvt.f32.bf16: PTX ISA 7.1, sm_80")
        } else if self.relu || self.packed || self.dst == Scalar::BF16 {
            req(80, 7, 0, ".relu and {.f16x2, .bf16, .bf16x2} destinations: PTX ISA 7.0, sm_80")
        } else {
            req(20, 1, 0, "cvt: PTX ISA 1.0 (f64: sm_13)")
        }
    }

    /// Whether `target` can run the form.
    pub fn check_target(&self, target: Target) -> Result<(), CvtError> {
        within(self, self.requirement(), target)
    }

    /// Source operands: two for a packed destination.
    pub fn inputs(&self) -> usize {
        if self.packed {
            2
        } else {
            1
        }
    }

    /// Every documented form (the grid of the types and modifiers above, filtered by the rules).
    pub fn all() -> Vec<Cvt> {
        let scalars = [Scalar::F16, Scalar::BF16, Scalar::F32, Scalar::F64];
        let mut roundings = vec![CvtRounding::None];
        for m in Rounding::ALL {
            roundings.extend([CvtRounding::Float(m), CvtRounding::Integer(m)]);
        }
        let mut out = Vec::new();
        for (dst, packed) in scalars.iter().map(|&s| (s, false)).chain([(Scalar::F16, true), (Scalar::BF16, true)]) {
            for src in scalars {
                for &rounding in &roundings {
                    for bits in 0..16u8 {
                        let b = |i: u8| bits >> i & 1 == 1;
                        let c = Cvt { dst, packed, src, rounding, ftz: b(0), sat: b(1), relu: b(2), satfinite: b(3) };
                        if c.check().is_ok() {
                            out.push(c);
                        }
                    }
                }
            }
        }
        out
    }
}

/// `Ok` when `target` meets `r`, the requirement of `form` (every `cvt` family's check).
fn within(form: &impl fmt::Display, r: Requirement, target: Target) -> Result<(), CvtError> {
    if target.sm < r.sm || target.ptx < r.ptx {
        return Err(CvtError::Target { form: form.to_string(), sm: r.sm, ptx: r.ptx, target_sm: target.sm, target_ptx: target.ptx });
    }
    Ok(())
}

impl fmt::Display for Cvt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cvt")?;
        match self.rounding {
            CvtRounding::None => {}
            CvtRounding::Float(m) => write!(f, ".{}", m.name())?,
            CvtRounding::Integer(m) => write!(f, ".{}i", m.name())?,
        }
        for (on, name) in [(self.ftz, "ftz"), (self.sat, "sat"), (self.relu, "relu"), (self.satfinite, "satfinite")] {
            if on {
                write!(f, ".{name}")?;
            }
        }
        write!(f, ".{}{}.{}", self.dst.name(), if self.packed { "x2" } else { "" }, self.src.name())
    }
}

#[path = "cvt_eval.rs"]
mod eval;

#[path = "cvt_int.rs"]
pub mod int;

#[path = "cvt_narrow.rs"]
pub mod narrow;

#[path = "cvt_tf32.rs"]
pub mod tf32;

#[path = "cvt_stochastic.rs"]
pub mod stochastic;

#[path = "cvt_stochastic_quad.rs"]
pub mod stochastic_quad;

#[path = "cvt_any.rs"]
mod any;

#[cfg(test)]
#[path = "cvt_tests.rs"]
mod tests;

pub use any::{AnyCvt, AnyCvtError};
pub use eval::{eval, nan_moved, Primary};
