//! Stochastic rounding, `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits` (PTX ISA
//! 9.7.9.21, issue 16 point 1): the spelling, its target and the result set, lane by lane.
//!
//! The section's rule: "Operation's result is rounded in the direction toward zero or away from
//! zero based on the carry out of the integer addition of the supplied random bits (rbits) to
//! the truncated off (discarded) bits of mantissa from the input." For `.bf16x2`, `a` takes the
//! upper 16 bits of `rbits` and `b` the lower; for `.f16x2`, "13 LSBs from upper 16-bits are
//! used as random bits for operand a with 3 MSBs are 0", and likewise for `b`.
//!
//! | case | result | why |
//! |---|---|---|
//! | bf16, every finite input | the carry rule on the 16 low bits of the f32 encoding | bf16 keeps f32's exponent range, so those are always the discarded bits |
//! | f16, 2^-14 <= \|x\| < 2^16 | the carry rule on the 13 low bits | the discarded bits of a normal f16 result |
//! | f16, \|x\| < 2^-14 (subnormal or zero result) | either neighbour; primary: carry of `rbits` added to the top 13 discarded bits | more than 13 bits are discarded; the text does not say which 13 meet `rbits` |
//! | f16, \|x\| >= 2^16 without `.satfinite` | MAX_NORM or infinity; primary: infinity | the value is beyond f16's exponents: no "truncated off bits" |
//! | f16, a 3 MSB of the `rbits` half set | either neighbour; primary: the 13 LSBs' carry | the text requires them 0 |
//! | NaN, infinity, `.relu`, `.satfinite` | as `ptx::cvt`'s `.rn`/`.rz` forms | the section's Saturation modifier rows apply to every rounding |
//!
//! Carrying a value of one bf16 step past MAX_NORM gives infinity (the carry reaches the
//! exponent), and with `.satfinite` MAX_NORM. The x4 destinations (`.e4m3x4` ...), four
//! sources in braces, are `crate::cvt::stochastic_quad`'s.

use std::fmt;

use super::eval::convert_lane;
use super::narrow::{Requirement, Variant};
use super::{Cvt, CvtError, CvtRounding};
use crate::expect::{Expectation, LaneExpectation, Outcome};
use crate::format::{Format, Scalar, BF16, F16, F32};
use crate::isa::{Ftz, PtxVersion};
use crate::rounding::Rounding;

/// One `cvt.rs` form: two f32 sources and `rbits` into a packed f16x2 or bf16x2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StochasticCvt {
    /// `Scalar::F16` or `Scalar::BF16`: the lanes of the packed destination.
    pub dst: Scalar,
    pub relu: bool,
    pub satfinite: bool,
}

impl StochasticCvt {
    /// Whether `text` is a `cvt.rs` (this module's to parse, or to refuse).
    pub fn claims(text: &str) -> bool {
        text.starts_with("cvt.") && text.split('.').any(|p| p == "rs")
    }

    pub fn parse(text: &str) -> Result<StochasticCvt, CvtError> {
        let bad = |why: &str| CvtError::Spelling { text: text.to_string(), why: why.to_string() };
        let parts: Vec<&str> = text.split('.').collect();
        let (mut rs, mut relu, mut satfinite, mut types) = (false, false, false, Vec::new());
        for &p in &parts[1..] {
            let seen = match p {
                "rs" => std::mem::replace(&mut rs, true),
                "relu" => std::mem::replace(&mut relu, true),
                "satfinite" => std::mem::replace(&mut satfinite, true),
                "f16x2" | "bf16x2" | "f32" => {
                    types.push(p);
                    false
                }
                "e4m3x4" | "e5m2x4" | "e2m3x4" | "e3m2x4" | "e2m1x4" => {
                    return Err(bad("an x4 destination takes four sources, d, {a, b, e, f}, rbits: ptx::cvt::stochastic_quad parses it"))
                }
                other => return Err(bad(&format!("'.{other}' is not on the .rs syntax lines: cvt.rs{{.relu}}{{.satfinite}}.{{f16x2,bf16x2}}.f32"))),
            };
            if seen {
                return Err(bad(&format!("'.{p}' given twice")));
            }
        }
        let dst = match types[..] {
            ["f16x2", "f32"] => Scalar::F16,
            ["bf16x2", "f32"] => Scalar::BF16,
            _ => return Err(bad("needs .f16x2 or .bf16x2, then .f32: cvt.rs.f16x2.f32 d, a, b, rbits")),
        };
        Ok(StochasticCvt { dst, relu, satfinite })
    }

    /// The eight documented forms.
    pub fn all() -> Vec<StochasticCvt> {
        let mut out = Vec::new();
        for dst in [Scalar::F16, Scalar::BF16] {
            for (relu, satfinite) in [(false, false), (false, true), (true, false), (true, true)] {
                out.push(StochasticCvt { dst, relu, satfinite });
            }
        }
        out
    }

    /// ".rs rounding mode is supported on ... sm_100a, sm_103a"; ".rs rounding mode introduced
    /// in PTX ISA version 8.7" (ptxas 13.5 refuses sm_100, sm_100f, sm_110a and sm_120a).
    pub fn needs(&self) -> Requirement {
        Requirement { sm: 100, variant: Variant::A, ptx: PtxVersion::new(8, 7), section: ".rs rounding mode: PTX ISA 8.7, sm_100a and sm_103a" }
    }

    /// Sources: `a`, `b` (f32) and `rbits` (b32).
    pub fn inputs(&self) -> usize {
        3
    }

    /// The allowed results on `a`, `b`, `rbits`: `d[31:16]` from `a` and the upper half of
    /// `rbits`, `d[15:0]` from `b` and the lower half.
    pub fn eval(&self, ops: &[u64]) -> Result<Expectation, CvtError> {
        let &[a, b, rbits] = ops else {
            return Err(CvtError::Operands { form: self.to_string(), want: 3, got: ops.len() });
        };
        let lane = |x: u64, r: u64| match self.dst {
            Scalar::F16 => self.lane::<F16>(x as u32, r as u32 & 0xffff),
            _ => self.lane::<BF16>(x as u32, r as u32 & 0xffff),
        };
        Ok(Expectation::packed(self.dst, lane(b, rbits), lane(a, rbits >> 16)))
    }

    /// `ptx::cvt`'s form with rounding `mode` and this form's clamps.
    fn with(&self, mode: Rounding) -> Cvt {
        Cvt { dst: self.dst, packed: false, src: Scalar::F32, rounding: CvtRounding::Float(mode), ftz: false, sat: false, relu: self.relu, satfinite: self.satfinite }
    }

    /// One lane: `x` (f32 bits) rounded into `D` with the 16 random bits `half` of `rbits`.
    fn lane<D: Format>(&self, x: u32, half: u32) -> LaneExpectation {
        let negative = x >> 31 == 1;
        let toward = convert_lane::<F32, D>(&self.with(Rounding::Rz), x as u64);
        let away = convert_lane::<F32, D>(&self.with(if negative { Rounding::Rm } else { Rounding::Rp }), x as u64);
        // Exact values, NaN, infinity and the clamps leave nothing to round.
        let (Outcome::Bits(t), Outcome::Bits(w)) = (toward.primary, away.primary) else {
            return toward;
        };
        if t == w {
            return toward;
        }
        // The bits f32 has below D's last fraction bit, and as many random bits.
        let dropped = F32::FRAC_BITS - D::FRAC_BITS;
        let r = half & ((1 << dropped) - 1);
        let magnitude = f32::from_bits(x).abs() as f64;
        // D's normal binades (all of f32's for bf16, which has its exponents): there the
        // discarded bits are exactly the low `dropped` bits.
        let normal = self.dst.to_f64(D::MIN_NORMAL)..2f64.powi(D::EMAX + 1);
        let direct = D::EXP_BITS == F32::EXP_BITS || normal.contains(&magnitude);
        let carry = if direct {
            ((x & ((1 << dropped) - 1)) + r) >> dropped == 1
        } else if D::is_inf(w) {
            true
        } else {
            // The top `dropped` bits of the position between the neighbours (exact in f64).
            let (lo, hi) = (self.dst.to_f64(t).abs(), self.dst.to_f64(w).abs());
            let top = ((magnitude - lo) / (hi - lo) * (1u64 << dropped) as f64).floor() as u32;
            (top + r) >> dropped == 1
        };
        let primary = if carry { w } else { t };
        if direct && half >> dropped == 0 {
            return LaneExpectation::exact(primary);
        }
        let (lo, hi) = if negative { (w, t) } else { (t, w) };
        LaneExpectation::of(Outcome::Range { lo, hi, reference: primary, ftz: Ftz::Preserve })
    }
}

impl fmt::Display for StochasticCvt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cvt.rs")?;
        for (on, name) in [(self.relu, "relu"), (self.satfinite, "satfinite")] {
            if on {
                write!(f, ".{name}")?;
            }
        }
        write!(f, ".{}x2.f32", self.dst.name())
    }
}

#[cfg(test)]
#[path = "cvt_stochastic_tests.rs"]
mod tests;
