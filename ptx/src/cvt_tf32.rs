//! `cvt` to tf32 (PTX ISA 9.7.9.21, issue 16 point 1): `cvt.rna{.satfinite}.tf32.f32` and
//! `cvt.{rn,rz}{.satfinite}{.relu}.tf32.f32`, their legality, their targets and the result.
//!
//! The layout is a reading. PTX ISA 5.2.3 gives tf32 "the same range as .f32 and reduced
//! precision (>=10 bits)" and says "the internal layout of tf32 format is implementation
//! defined". Here the result is the f32 encoding of the value rounded to 10 fraction bits, its
//! 13 low bits zero. Evidence: ptxas 13.5 expands `cvt.rna.tf32.f32` for sm_80 and sm_90 into
//! integer operations on the f32 encoding:
//!
//! ```text
//! FSETP.GEU.AND P0, PT, |R0|, +INF, PT      // P0: inf or NaN
//! @!P0 IMAD.IADD.U32 R0, R0, 0x1, R5        // R5 = 0x1000: half of the 13 low bits
//! LOP3.LUT R5, R0, 0xffffe000, RZ, 0xc0, !PT
//! ```
//!
//! The rn/rz forms become one `F2FP.TF32.F32.PACK_B` (sm_90), whose output no session has seen
//! on a GPU. That expansion also makes a prediction for a GPU run. A NaN whose payload lies
//! only in the 13 low bits comes out as ±inf, and with `.satfinite` as ±MAX_NORM, where the
//! section says "if the input value is NaN, then the result is NaN". Here such an input allows
//! any NaN, so a GPU run that confirms the expansion reports it as a finding.

use std::fmt;

use super::CvtError;
use crate::expect::{Expectation, LaneExpectation, Outcome, Reading};
use crate::format::Scalar;
use crate::isa::target::{PtxVersion, Requirement, Target};

pub use crate::rounding::Tf32Rounding;

/// One `cvt` form from f32 to tf32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tf32Cvt {
    pub rounding: Tf32Rounding,
    pub relu: bool,
    pub satfinite: bool,
}

/// Modifiers no tf32 syntax line has: `(modifier, the rule it breaks)`.
const REFUSED: &[(&str, &str)] = &[
    ("rm", "\".frnd2 = { .rn, .rz }\", and cvt.rna{.satfinite}.tf32.f32 (Syntax)"),
    ("rp", "\".frnd2 = { .rn, .rz }\", and cvt.rna{.satfinite}.tf32.f32 (Syntax)"),
    ("rni", "\"Integer rounding is illegal in all other instances\" (Integer Notes)"),
    ("rzi", "\"Integer rounding is illegal in all other instances\" (Integer Notes)"),
    ("rmi", "\"Integer rounding is illegal in all other instances\" (Integer Notes)"),
    ("rpi", "\"Integer rounding is illegal in all other instances\" (Integer Notes)"),
    ("ftz", "no .ftz on the tf32 syntax lines"),
    ("sat", "\".sat ... Applies to .f16, .f32, and .f64 types\" (tf32 has .satfinite)"),
    ("rs", "\"cvt.rs\" has .f16x2/.bf16x2 and the x4 narrow destinations, not tf32 (Syntax)"),
];

/// The rules on a parsed form, checked in order; each is true when the form breaks it.
type Rule = (fn(&Tf32Cvt) -> bool, &'static str);
const RULES: &[Rule] = &[(
    |c| c.rounding == Tf32Rounding::Rna && c.relu,
    "cvt.rna{.satfinite}.tf32.f32 has no .relu (Syntax; ptxas 13.5: \"Modifier '.relu' cannot be combined with modifier '.rna'\")",
)];

/// The largest finite tf32 value in the f32 layout: exponent 254, ten fraction bits set.
pub const MAX_NORM: u32 = 0x7f7f_e000;
/// The 13 low bits of the f32 encoding, which tf32 does not keep.
pub const DROPPED: u32 = 0x1fff;

impl Tf32Cvt {
    /// `cvt.rna{.satfinite}.tf32.f32` of `x` as the integer code ptxas 13.5 emits for sm_80 and
    /// sm_90 (`FSETP.GEU |x|, +INF`; unless inf or NaN `IADD x, 0x1000`; `LOP3 & 0xffffe000`;
    /// `.satfinite`: `FSETP.GEU |r|, +INF` then `IADD r, -0x2000`), or `None` for `.rn`/`.rz`.
    /// Numbers get `.rna` exactly; a NaN whose payload lies in the 13 cleared bits becomes an
    /// infinity (MAX_NORM with `.satfinite`), as the H200 gave (docs/hardware, 2026-11-29).
    pub fn via_integer(&self, x: u32) -> Option<u32> {
        if self.rounding != Tf32Rounding::Rna {
            return None;
        }
        let finite = |v: u32| (v & 0x7fff_ffff) < 0x7f80_0000;
        let mut r = if finite(x) { x.wrapping_add(0x1000) } else { x } & 0xffff_e000;
        // GEU is true for a NaN too: a NaN result steps back as well (and stays a NaN).
        if self.satfinite && !finite(r) {
            r -= 0x2000;
        }
        Some(r)
    }

    /// Whether `text` is a tf32 `cvt` (this module's to parse, or to refuse).
    pub fn claims(text: &str) -> bool {
        text.starts_with("cvt.") && text.split('.').any(|p| p == "tf32")
    }

    pub fn parse(text: &str) -> Result<Tf32Cvt, CvtError> {
        let bad = |why: &str| CvtError::Spelling { text: text.to_string(), why: why.to_string() };
        let parts: Vec<&str> = text.split('.').collect();
        let Some(["tf32", "f32"]) = parts.get(parts.len().saturating_sub(2)..) else {
            return Err(bad("tf32 is a destination, from .f32 only: cvt.rna.tf32.f32, cvt.rn.relu.tf32.f32"));
        };
        let (mut rounding, mut relu, mut satfinite) = (None, false, false);
        for &p in &parts[1..parts.len() - 2] {
            let seen = match p {
                "rna" | "rn" | "rz" => rounding.replace(Tf32Rounding::ALL.into_iter().find(|r| r.name() == p).unwrap()).is_some(),
                "relu" => std::mem::replace(&mut relu, true),
                "satfinite" => std::mem::replace(&mut satfinite, true),
                other => {
                    let form = text.to_string();
                    return match REFUSED.iter().find(|(m, _)| *m == other) {
                        Some(&(_, rule)) => Err(CvtError::Illegal { form, rule }),
                        None => Err(bad(&format!("unknown modifier '.{other}'"))),
                    };
                }
            };
            if seen {
                return Err(bad(&format!("'.{p}' or a second rounding given twice")));
            }
        }
        let Some(rounding) = rounding else {
            return Err(CvtError::Illegal {
                form: text.to_string(),
                rule: "\"Rounding modifier is mandatory in all of the following cases: ... All conversions involving ... .tf32\"",
            });
        };
        let c = Tf32Cvt { rounding, relu, satfinite };
        c.check()?;
        Ok(c)
    }

    /// The first rule of the syntax lines the form breaks, if any.
    pub fn check(&self) -> Result<(), CvtError> {
        super::first_broken_rule(self, RULES)
    }

    /// Every documented form: `.rna` with or without `.satfinite`, `.rn`/`.rz` with any of
    /// `.satfinite` and `.relu`.
    pub fn all() -> Vec<Tf32Cvt> {
        let mut out = Vec::new();
        for rounding in Tf32Rounding::ALL {
            for (relu, satfinite) in [(false, false), (false, true), (true, false), (true, true)] {
                let c = Tf32Cvt { rounding, relu, satfinite };
                if c.check().is_ok() {
                    out.push(c);
                }
            }
        }
        out
    }

    /// The sm and PTX ISA version (the section's PTX ISA and Target ISA Notes).
    pub fn requirement(&self) -> Requirement {
        let req = |sm, major, minor, section| Requirement::plain(sm, PtxVersion::new(major, minor), section);
        match (self.rounding, self.satfinite) {
            (Tf32Rounding::Rna, false) => req(80, 7, 0, "{.f16x2, .bf16, .bf16x2, .tf32} destination formats: PTX ISA 7.0, sm_80"),
            (Tf32Rounding::Rna, true) => req(80, 8, 1, "cvt.satfinite.{f16, bf16, f16x2, bf16x2, tf32}.f32: PTX ISA 8.1"),
            (_, false) => req(90, 7, 8, "cvt.tf32.f32.{relu}.{rn/rz}: PTX ISA 7.8, sm_90"),
            (_, true) => req(100, 8, 6, "cvt.{rn/rz}.satfinite.tf32.f32: PTX ISA 8.6, sm_100"),
        }
    }

    /// Whether `target` can run the form.
    pub fn check_target(&self, target: Target) -> Result<(), CvtError> {
        super::within(self, self.requirement(), target)
    }

    /// The allowed results on the f32 operand `a`, as an f32-layout register (the module's
    /// reading of the layout).
    pub fn eval(&self, ops: &[u64]) -> Result<Expectation, CvtError> {
        let &[a] = ops else {
            return Err(CvtError::Operands { form: self.to_string(), want: 1, got: ops.len() });
        };
        Ok(Expectation::scalar(Scalar::F32, self.lane(a as u32)))
    }

    /// The primary result on `a` (what [`Tf32Cvt::eval`] gives first), for the batch loop.
    pub fn primary(&self, a: u32) -> u64 {
        Expectation::scalar(Scalar::F32, self.lane(a)).primary_bits()
    }

    /// One result: the special rows of the section, then the value rounded on the tf32 grid
    /// (the f32 grid with 13 fewer fraction bits, subnormals included: tf32 has f32's range).
    fn lane(&self, x: u32) -> LaneExpectation {
        let (sign, mag) = (x & 0x8000_0000, x & 0x7fff_ffff);
        if mag > 0x7f80_0000 {
            // ".relu: NaN results are converted to canonical NaN"; ".satfinite: ... the result is
            // NaN in the specified destination format"; without either the section names no
            // NaN. Which encoding is canonical in an implementation-defined layout is open.
            let primary = if self.relu { 0x7fff_e000 } else { (x | 0x0040_0000) & !DROPPED };
            return LaneExpectation::exact(primary as u64).or(Outcome::AnyNan, Reading::NanUnspecified);
        }
        let down = mag & !DROPPED;
        let rest = mag & DROPPED;
        let up = match self.rounding {
            Tf32Rounding::Rz => false,
            Tf32Rounding::Rna => rest >= 0x1000,
            Tf32Rounding::Rn => rest > 0x1000 || (rest == 0x1000 && down & 0x2000 != 0),
        };
        // A carry out of the fraction steps the exponent; from 254 it reaches infinity.
        let mut r = if up { down + 0x2000 } else { down };
        // ".satfinite: ... If the absolute value of input ... is greater than MAX_NORM ..., the
        // result is sign-preserved MAX_NORM" (infinity included).
        if self.satfinite && r >= 0x7f80_0000 {
            r = MAX_NORM;
        }
        let signed = (sign | r) as u64;
        if !self.relu || sign == 0 {
            return LaneExpectation::exact(signed);
        }
        // ".relu clamps the result to 0 if negative"; whether a -0.0 result keeps its sign is
        // the open question `ptx::cvt` has too.
        let lane = LaneExpectation::exact(0);
        match r {
            0 => lane.or(Outcome::Bits(signed), Reading::ReluKeepsNegativeZero),
            _ => lane,
        }
    }
}

impl fmt::Display for Tf32Cvt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cvt.{}", self.rounding.name())?;
        for (on, name) in [(self.satfinite, "satfinite"), (self.relu, "relu")] {
            if on {
                write!(f, ".{name}")?;
            }
        }
        f.write_str(".tf32.f32")
    }
}

#[cfg(test)]
#[path = "cvt_tf32_tests.rs"]
mod tests;
