//! The result set of a float-to-float `cvt` (PTX ISA 9.7.9.21, "Floating Point Notes",
//! "Integer Notes", "Saturation modifier"), lane by lane, bit-exact. The special values, as
//! a table of the section's sentences:
//!
//! | input / modifier | result | source |
//! |---|---|---|
//! | NaN, no clamp | any NaN; primary: the payload kept, quieted (IEEE 754 6.2.3) | the section names no NaN result ("For cvt.f32.bf16, NaN input yields unspecified NaN") |
//! | NaN, `.sat` | +0.0 | "NaN results are flushed to positive zero" |
//! | NaN, `.relu` | the canonical NaN | "NaN results are converted to canonical NaN" |
//! | NaN, `.satfinite` (no `.relu`) | any NaN | "if the input value is NaN, then the result is NaN in the specified destination format" |
//! | \|x\| > MAX_NORM (inf too), `.satfinite` | MAX_NORM with x's sign | "the result is sign-preserved MAX_NORM of the destination format" |
//! | negative, `.relu` | +0.0 (-0.0 also allowed for a -0.0 result: `relu-keeps-negative-zero`) | ".relu clamps the result to 0 if negative" |
//! | `.sat` | clamped to [0.0, 1.0] (-0.0 also allowed for -0.0: `sat-keeps-negative-zero`) | ".sat limits the result to the range [0.0, 1.0]" |
//! | f32 subnormal in or out, `.ftz` | sign-preserving zero | ".ftz may be specified to flush single-precision subnormal inputs and results" |
//! | `.rni/.rzi/.rmi/.rpi` | the integral value, same format | "The result is an integral value, stored in floating-point format." |

use super::{Cvt, CvtError, CvtRounding};
use crate::expect::{Expectation, LaneExpectation, Outcome, Reading};
use crate::format::{Format, Scalar, BF16, F16, F32, F64};
use crate::rounding::{round_f64, round_odd, Rounding};

/// The allowed results of `c` on `ops` (one operand, or `a`, `b` for a packed destination:
/// `d[31:16] = convert(a)`, `d[15:0] = convert(b)`).
pub fn eval(c: &Cvt, ops: &[u64]) -> Result<Expectation, CvtError> {
    if ops.len() != c.inputs() {
        return Err(CvtError::Operands { form: c.to_string(), want: c.inputs(), got: ops.len() });
    }
    let f = Primary::new(c).lane;
    let lane = |x: u64| f(c, x & c.src.mask());
    Ok(match c.packed {
        true => Expectation::packed(c.dst, lane(ops[1]), lane(ops[0])),
        false => Expectation::scalar(c.dst, lane(ops[0])),
    })
}

/// The primary result of one form on many cases, its lane function chosen once (for
/// `interp::Kernel`, which compares the primary bits first and builds the whole set only for a
/// difference): the same `convert_lane` as [`eval`], so the two cannot disagree.
#[derive(Clone, Copy)]
pub struct Primary {
    c: Cvt,
    lane: fn(&Cvt, u64) -> LaneExpectation,
}

impl Primary {
    pub fn new(c: &Cvt) -> Primary {
        macro_rules! to {
            ($s:ty) => {
                match c.dst {
                    Scalar::F16 => convert_lane::<$s, F16>,
                    Scalar::BF16 => convert_lane::<$s, BF16>,
                    Scalar::F32 => convert_lane::<$s, F32>,
                    Scalar::F64 => convert_lane::<$s, F64>,
                }
            };
        }
        let lane = match c.src {
            Scalar::F16 => to!(F16),
            Scalar::BF16 => to!(BF16),
            Scalar::F32 => to!(F32),
            Scalar::F64 => to!(F64),
        };
        Primary { c: *c, lane }
    }

    /// The destination's bits on `a` (and `b` for a packed destination: `a` to the upper half).
    #[inline]
    pub fn bits(&self, a: u64, b: u64) -> u64 {
        let m = self.c.src.mask();
        let one = |x: u64| match (self.lane)(&self.c, x & m).primary {
            Outcome::Bits(v) => v,
            // As `Expectation::primary_bits` writes an unspecified NaN.
            Outcome::AnyNan => self.c.dst.mask() >> 1,
            Outcome::Range { reference, .. } | Outcome::Unbounded { reference, .. } => reference,
        };
        if self.c.packed {
            one(a) << self.c.dst.bits() | one(b)
        } else {
            one(a)
        }
    }
}

/// The NaN `x` of `src` as a NaN of `dst`: sign kept, the payload's top bits kept where `dst` has
/// fewer fraction bits, quieted when `quiet` (the interpreter's primary; a hardware profile's
/// `cvt_nan` rows choose it or the unquieted move).
pub fn nan_moved(src: Scalar, dst: Scalar, x: u64, quiet: bool) -> u64 {
    let (sf, df) = (src.frac_bits(), dst.frac_bits());
    let frac = x & ((1 << sf) - 1);
    let frac = if df >= sf { frac << (df - sf) } else { frac >> (sf - df) };
    let sign = (x >> (src.bits() - 1)) & 1;
    let exp = (dst.mask() >> 1) & !((1 << df) - 1);
    let q = if quiet { 1 << (df - 1) } else { 0 };
    sign << (dst.bits() - 1) | exp | q | frac
}

/// One lane of `c`: `x` in the source format `S`, the result in `D`.
pub fn convert_lane<S: Format, D: Format>(c: &Cvt, x: u64) -> LaneExpectation {
    if S::is_nan(x) {
        return if c.relu {
            LaneExpectation::exact(D::CANONICAL_NAN)
        } else if c.sat {
            LaneExpectation::exact(0)
        } else if c.satfinite {
            LaneExpectation::any_nan()
        } else {
            LaneExpectation::exact(nan_moved(c.src, c.dst, x, true)).or(Outcome::AnyNan, Reading::NanUnspecified)
        };
    }
    let ftz_in = c.ftz && S::BITS == 32 && S::is_subnormal(x);
    let x = if ftz_in { S::zero(S::sign(x)) } else { x };
    let v = c.src.to_f64(x);
    let round = |mode: Rounding| -> u64 {
        match c.rounding {
            CvtRounding::Integer(_) => {
                let r = match mode {
                    Rounding::Rn => v.round_ties_even(),
                    Rounding::Rz => v.trunc(),
                    Rounding::Rm => v.floor(),
                    Rounding::Rp => v.ceil(),
                };
                round_f64::<D>(r.to_bits(), Rounding::Rn)
            }
            _ if S::is_inf(x) => {
                if S::sign(x) {
                    D::SIGN_MASK | D::INF
                } else {
                    D::INF
                }
            }
            _ => {
                let (sign, sig, exp) = S::unpack(x);
                round_odd::<D>(sign, exp, sig, mode)
            }
        }
    };
    let mode = match c.rounding {
        CvtRounding::None => Rounding::Rn,
        CvtRounding::Float(m) | CvtRounding::Integer(m) => m,
    };
    let max = D::MAX_FINITE;
    let mut r = if c.satfinite && v.abs() > c.dst.to_f64(max) { max | if v < 0.0 { D::SIGN_MASK } else { 0 } } else { round(mode) };
    let ftz_out = c.ftz && D::BITS == 32;
    if ftz_out {
        r = D::flush(r);
    }
    let clamp = |r: u64| -> u64 {
        if c.relu && D::sign(r) {
            0
        } else if c.sat && D::sign(r) {
            0
        } else if c.sat && c.dst.to_f64(r) > 1.0 {
            D::ONE
        } else {
            r
        }
    };
    let mut lane = LaneExpectation::exact(clamp(r));
    // Open question (docs/semantics.md, "ftz: before or after rounding"), as for arithmetic:
    // an f32 result rounded up to the smallest normal from below it may be flushed instead.
    if ftz_out && D::abs(r) == D::MIN_NORMAL && mode != Rounding::Rz && c.rounding != CvtRounding::None {
        let toward_zero = round(Rounding::Rz);
        if D::abs(toward_zero) < D::MIN_NORMAL {
            lane = lane.or(Outcome::Bits(clamp(D::zero(D::sign(r)))), Reading::FtzBeforeRounding);
        }
    }
    // Open question: does a clamp keep the sign of a -0.0 result?
    if r == D::SIGN_MASK {
        if c.sat {
            lane = lane.or(Outcome::Bits(r), Reading::SatKeepsNegativeZero);
        } else if c.relu {
            lane = lane.or(Outcome::Bits(r), Reading::ReluKeepsNegativeZero);
        }
    }
    lane
}
