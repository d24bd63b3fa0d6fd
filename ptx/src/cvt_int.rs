//! `cvt` between a floating-point and an integer type (PTX ISA 9.7.9.21, issue 16 point 1):
//! float to `.u8 .. .s64` with `.rni/.rzi/.rmi/.rpi`, integer to `f16/bf16/f32/f64` with
//! `.rn/.rz/.rm/.rp`; `.ftz`, `.sat`. Legality is a table of the section's sentences, the
//! requirements its notes, the results bit-exact (every one is a single value: the section
//! leaves nothing open here). Integer-to-integer `cvt` is not a floating-point form and is not
//! covered.
//!
//! The section contradicts itself on one point: its Examples write `cvt.f32.s32 f,i;` and
//! `cvt.s32.f64 j,r;` without a rounding modifier, while "Rounding modifier is mandatory in
//! all of the following cases: ... All float-to-int conversions, All int-to-float
//! conversions". The rule wins here (ptxas accepts both spellings, as it accepts other
//! undocumented ones).
//!
//! | input | result | source |
//! |---|---|---|
//! | NaN, source not `.f64` and destination not `.s64/.u64` | 0 | Integer Notes: "Zero if source is not .f64 and destination is not .s64, .u64." |
//! | NaN, otherwise | `1 << (bits - 1)` (MININT for signed) | "Otherwise 1 << (BitWidth(dst) - 1)" |
//! | beyond the destination's range (infinities too) | MININT or MAXINT (0 for a negative value and an unsigned type) | "For float-to-integer conversions, the result is clamped to the destination range by default; i.e, .sat is redundant." |
//! | f32 subnormal, `.ftz` | as a zero of its sign (so `.rpi` of 1e-40 is 0, not 1) | "For cvt.ftz.dtype.f32 float-to-integer conversions ... subnormal inputs are flushed to sign-preserving zero" |
//! | integer to float, `.sat` | clamped to [0.0, 1.0] | ".sat limits the result to the range [0.0, 1.0] ... Applies to .f16, .f32, and .f64 types" |
//! | integer to float beyond the format | rounded per mode (infinity, or MAX_FINITE toward zero) | IEEE 754 7.4 |

use std::fmt;

use super::{CvtError, CvtRounding};
use crate::expect::{Expectation, LaneExpectation};
use crate::format::{Format, Scalar, BF16, F16, F32, F64};
use crate::isa::target::{PtxVersion, Requirement, Target};
use crate::rounding::{round_odd, Rounding};

pub use crate::integer::IntType;

/// One `cvt` form between a float and an integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CvtInt {
    pub float: Scalar,
    pub int: IntType,
    /// Float to integer (else integer to float).
    pub to_int: bool,
    pub rounding: CvtRounding,
    pub ftz: bool,
    pub sat: bool,
}

type Rule = (fn(&CvtInt) -> bool, &'static str);
/// The legality rules, in the order they are checked: a predicate true when the form breaks
/// the sentence it quotes.
const RULES: &[Rule] = &[
    (
        |c| c.to_int && !matches!(c.rounding, CvtRounding::Integer(_)),
        "\"Integer rounding is required for float-to-integer conversions\" and \"Rounding modifier is mandatory in ... All float-to-int conversions\" (.rni, .rzi, .rmi, .rpi)",
    ),
    (
        |c| !c.to_int && !matches!(c.rounding, CvtRounding::Float(_)),
        "\"Floating-point rounding is required ... for integer-to-float conversions\" and \"Rounding modifier is mandatory in ... All int-to-float conversions\" (.rn, .rz, .rm, .rp)",
    ),
    (|c| c.ftz && c.float != Scalar::F32, "\"Modifier .ftz can only be specified when either .dtype or .atype is .f32\""),
    (
        |c| c.sat && c.float == Scalar::BF16,
        "\".sat ... Applies to .f16, .f32, and .f64 types\" (read as both types, as for float-to-float: ptxas 13.5 refuses .sat with a bf16 source, integer destinations included)",
    ),
];

impl CvtInt {
    /// Whether `text` names an integer type (so it is this module's form, not a float one).
    pub fn claims(text: &str) -> bool {
        text.split('.').any(|p| IntType::parse(p).is_some())
    }

    /// Parse a spelling: `cvt`, modifiers, the destination and source types (modifiers may
    /// follow the types, as the section's example `cvt.s8.bf16.rpi` does).
    pub fn parse(text: &str) -> Result<CvtInt, CvtError> {
        let bad = |why: &str| CvtError::Spelling { text: text.to_string(), why: why.to_string() };
        let mut parts = text.split('.');
        if parts.next() != Some("cvt") {
            return Err(bad("not a cvt"));
        }
        let (mut rounding, mut ftz, mut sat) = (CvtRounding::None, false, false);
        let mut types: Vec<Result<Scalar, IntType>> = Vec::new();
        for p in parts {
            let m = Rounding::ALL.into_iter().find(|m| p.strip_suffix('i').unwrap_or(p) == m.name());
            let seen = match (p, m) {
                ("ftz", _) => std::mem::replace(&mut ftz, true),
                ("sat", _) => std::mem::replace(&mut sat, true),
                (_, Some(m)) if p.ends_with('i') => std::mem::replace(&mut rounding, CvtRounding::Integer(m)) != CvtRounding::None,
                (_, Some(m)) => std::mem::replace(&mut rounding, CvtRounding::Float(m)) != CvtRounding::None,
                _ => {
                    match (IntType::parse(p), p) {
                        (Some(t), _) => types.push(Err(t)),
                        (None, "f16") => types.push(Ok(Scalar::F16)),
                        (None, "bf16") => types.push(Ok(Scalar::BF16)),
                        (None, "f32") => types.push(Ok(Scalar::F32)),
                        (None, "f64") => types.push(Ok(Scalar::F64)),
                        _ => return Err(bad(&format!("unknown modifier or type '.{p}' for a cvt between a float and an integer type"))),
                    }
                    false
                }
            };
            if seen {
                return Err(bad(&format!("'.{p}' or a second rounding given twice")));
            }
        }
        let (float, int, to_int) = match types[..] {
            [Ok(f), Err(i)] => (f, i, false),
            [Err(i), Ok(f)] => (f, i, true),
            [Err(_), Err(_)] => return Err(bad("integer-to-integer cvt is not a floating-point form (not covered)")),
            _ => return Err(bad("needs a destination and a source type, one of them an integer type")),
        };
        let c = CvtInt { float, int, to_int, rounding, ftz, sat };
        c.check()?;
        Ok(c)
    }

    /// The first documented rule the form breaks, if any.
    pub fn check(&self) -> Result<(), CvtError> {
        super::first_broken_rule(self, RULES)
    }

    /// The sm and PTX ISA version the form needs (the section's PTX ISA and Target ISA Notes).
    pub fn requirement(&self) -> Requirement {
        let req = |sm, major, minor, section| Requirement::plain(sm, PtxVersion::new(major, minor), section);
        match self.float {
            Scalar::BF16 => req(90, 7, 8, "cvt.bf16.{u8/s8/u16/s16/u32/s32/u64/s64} and cvt.{u8/s8/u16/s16/u32/s32/u64/s64}.bf16: PTX ISA 7.8, sm_90"),
            _ => req(20, 1, 0, "cvt: PTX ISA 1.0 (f64: sm_13)"),
        }
    }

    /// Whether `target` can run the form.
    pub fn check_target(&self, target: Target) -> Result<(), CvtError> {
        super::within(self, self.requirement(), target)
    }

    /// Every documented form.
    pub fn all() -> Vec<CvtInt> {
        let mut out = Vec::new();
        for float in [Scalar::F16, Scalar::BF16, Scalar::F32, Scalar::F64] {
            for int in IntType::ALL {
                for to_int in [true, false] {
                    for m in Rounding::ALL {
                        for rounding in [CvtRounding::Float(m), CvtRounding::Integer(m)] {
                            for (ftz, sat) in [(false, false), (true, false), (false, true), (true, true)] {
                                let c = CvtInt { float, int, to_int, rounding, ftz, sat };
                                if c.check().is_ok() {
                                    out.push(c);
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The result of `x` (source bits): integer bits (the destination's width, two's
    /// complement), or float bits. Every result is a single value.
    pub fn eval_bits(&self, x: u64) -> u64 {
        if self.to_int {
            to_int(self, x)
        } else {
            match self.float {
                Scalar::F16 => to_float::<F16>(self, x),
                Scalar::BF16 => to_float::<BF16>(self, x),
                Scalar::F32 => to_float::<F32>(self, x),
                Scalar::F64 => to_float::<F64>(self, x),
            }
        }
    }

    /// [`Self::eval_bits`] with the operand count checked, as `ptx::cvt::eval` does.
    pub fn eval(&self, ops: &[u64]) -> Result<Converted, CvtError> {
        let &[x] = ops else {
            return Err(CvtError::Operands { form: self.to_string(), want: 1, got: ops.len() });
        };
        let bits = self.eval_bits(x);
        Ok(match self.to_int {
            true => Converted::Int(self.int, bits),
            false => Converted::Float(Expectation::scalar(self.float, LaneExpectation::exact(bits))),
        })
    }

    /// The source operand's width in bits.
    pub fn src_bits(&self) -> u32 {
        if self.to_int {
            self.float.bits()
        } else {
            self.int.bits
        }
    }
}

/// What a float-integer `cvt` gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Converted {
    /// An integer of this type (bits at its width).
    Int(IntType, u64),
    /// A float (a single allowed value).
    Float(Expectation),
}

fn to_int(c: &CvtInt, x: u64) -> u64 {
    let s = c.float;
    let x = x & s.mask();
    if s.is_nan(x) {
        // Integer Notes: zero unless the source is .f64 or the destination 64 bits wide.
        return if s != Scalar::F64 && c.int.bits != 64 { 0 } else { 1u64 << (c.int.bits - 1) };
    }
    let mut v = s.to_f64(x);
    if c.ftz && s == Scalar::F32 && v != 0.0 && v.abs() < f32::MIN_POSITIVE as f64 {
        v = 0.0;
    }
    let m = match c.rounding {
        CvtRounding::Integer(m) => m,
        _ => unreachable!("checked: float-to-int has integer rounding"),
    };
    // Rounding an f64 to an integral f64 is exact.
    let r = match m {
        Rounding::Rn => v.round_ties_even(),
        Rounding::Rz => v.trunc(),
        Rounding::Rm => v.floor(),
        Rounding::Rp => v.ceil(),
    };
    // Clamped to the range by default (infinities included); inside it, |r| < 2^64 is exact.
    let (lo, hi) = (c.int.min(), c.int.max());
    let n = if r <= lo as f64 {
        lo
    } else if r >= hi as f64 + 1.0 {
        hi
    } else {
        (r as i128).clamp(lo, hi)
    };
    (n as u64) & c.int.mask()
}

fn to_float<D: Format>(c: &CvtInt, x: u64) -> u64 {
    let v = c.int.value(x);
    let m = match c.rounding {
        CvtRounding::Float(m) => m,
        _ => unreachable!("checked: int-to-float has float rounding"),
    };
    // |v| <= 2^64 - 1 fits the significand exactly: one rounding.
    let r = round_odd::<D>(v < 0, 0, v.unsigned_abs() as u64, m);
    if c.sat {
        if v < 0 {
            return 0;
        }
        if v >= 1 {
            return D::ONE;
        }
    }
    r
}

impl fmt::Display for CvtInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cvt")?;
        match self.rounding {
            CvtRounding::None => {}
            CvtRounding::Float(m) => write!(f, ".{}", m.name())?,
            CvtRounding::Integer(m) => write!(f, ".{}i", m.name())?,
        }
        for (on, name) in [(self.ftz, "ftz"), (self.sat, "sat")] {
            if on {
                write!(f, ".{name}")?;
            }
        }
        let (i, fl) = (self.int.name(), self.float.name());
        match self.to_int {
            true => write!(f, ".{i}.{fl}"),
            false => write!(f, ".{fl}.{i}"),
        }
    }
}

#[cfg(test)]
#[path = "cvt_int_tests.rs"]
mod tests;
