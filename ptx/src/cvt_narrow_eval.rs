//! The result of a narrow-format `cvt` (PTX ISA 9.7.9.21), lane by lane: the value rounded
//! on the destination's grid, then the section's special rows:
//!
//! | input / modifier | result | source |
//! |---|---|---|
//! | NaN, e2m1/e2m3/e3m2 | +MAX_NORM | ".satfinite: ... For .e2m1x2, .e2m3x2, .e3m2x2 ... NaN results are converted to positive MAX_NORM" |
//! | NaN, e4m3/e5m2, `.relu` | the canonical NaN, 0x7f (all ones but the sign) | ".relu: ... NaN results are converted to canonical NaN" |
//! | NaN, e4m3/e5m2 | any NaN of the format (primary 0x7f) | ".satfinite: ... if the input value is NaN, then the result is NaN in the specified destination format" |
//! | NaN, ue8m0 | 0xff, its only NaN | same sentence |
//! | \|x\| > MAX_NORM (inf too), `.satfinite` | MAX_NORM with x's sign (ue8m0: positive) | "the result is sign-preserved MAX_NORM ... and a positive MAX_NORM in .ue8m0x2" |
//! | negative, `.relu` | +0 (-0 also allowed for a -0 result: `relu-keeps-negative-zero`, as in `ptx::cvt`) | ".relu clamps the result to 0 if negative" |
//! | ue8m0: zero, negative, overflow without `.satfinite`, below 2^-127 with `.rz` | unspecified (primary: 0x00, the magnitude's, 0xff, 0x00) | the format has no zero, sign or infinity, and the section is silent |
//! | narrow NaN to f16x2/bf16x2 | any NaN (canonical with `.relu`) | the section names no NaN result for up-conversion |
//! | 6-bit slot whose 2 MSBs are not 0 | unspecified (primary: the low 6 bits') | "Each 8-bit input value with 2 MSB bits 0" |

use super::{decode, Direction, Narrow, NarrowCvt, NarrowError, Wide};
use crate::expect::{LaneExpectation, Outcome, Reading};
use crate::format::{Scalar, BF16, F16};
use crate::rounding::{round_f64, Rounding};

/// The values a lane may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allowed {
    /// The one value the section allows.
    One(u64),
    /// Any NaN of the lane's format; `primary` is the canonical one.
    AnyNan { primary: u64, of: NanOf },
    /// Either value (`why` names the reading that allows `other`).
    Either { primary: u64, other: u64, why: &'static str },
    /// The section does not define the result; `primary` is this module's reading.
    Unspecified { primary: u64, why: &'static str },
}

/// Whose NaNs an [`Allowed::AnyNan`] means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanOf {
    Narrow(Narrow),
    Half(Scalar),
}

impl Allowed {
    pub fn primary(&self) -> u64 {
        match *self {
            Allowed::One(p) | Allowed::AnyNan { primary: p, .. } | Allowed::Either { primary: p, .. } | Allowed::Unspecified { primary: p, .. } => p,
        }
    }

    /// This lane as an expectation: the section's "either" rows are `relu-keeps-negative-zero`,
    /// a lane it leaves open accepts anything with this module's reading recorded.
    pub fn lane(self) -> LaneExpectation {
        match self {
            Allowed::One(b) => LaneExpectation::exact(b),
            Allowed::AnyNan { .. } => LaneExpectation::any_nan(),
            Allowed::Either { primary, other, .. } => LaneExpectation::exact(primary).or(Outcome::Bits(other), Reading::ReluKeepsNegativeZero),
            Allowed::Unspecified { primary, .. } => LaneExpectation::of(Outcome::unbounded(primary)),
        }
    }

    /// Whether `bits` is an allowed result of this lane.
    pub fn allows(&self, bits: u64) -> bool {
        match *self {
            Allowed::One(p) => bits == p,
            Allowed::AnyNan { of: NanOf::Narrow(n), .. } => decode(n, bits).is_nan(),
            Allowed::AnyNan { of: NanOf::Half(s), .. } => s.to_f64(bits).is_nan(),
            Allowed::Either { primary, other, .. } => bits == primary || bits == other,
            Allowed::Unspecified { .. } => true,
        }
    }
}

/// A conversion's result: the destination register (`bits`, the primary value of each lane)
/// and what each lane allows, lane 0 the low half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Narrowed {
    pub bits: u64,
    pub width: u32,
    pub lanes: [Allowed; 2],
}

impl Narrowed {
    pub fn allows(&self, bits: u64) -> bool {
        let half = self.width / 2;
        let m = (1u64 << half) - 1;
        bits >> self.width == 0 && self.lanes.iter().enumerate().all(|(i, l)| l.allows(bits >> (half * i as u32) & m))
    }
}

/// The allowed results of `c` on `ops`: two `.f32` words `a`, `b`, or one packed register.
pub fn eval(c: &NarrowCvt, ops: &[u64]) -> Result<Narrowed, NarrowError> {
    if ops.len() != c.inputs() {
        return Err(NarrowError::Operands { form: c.to_string(), want: c.inputs(), got: ops.len() });
    }
    let src_bits = match c.dir {
        Direction::Down { .. } => 32,
        Direction::Up { src, .. } => src.packed_bits(),
    };
    if let Some(&v) = ops.iter().find(|&&v| v >> src_bits != 0) {
        return Err(NarrowError::Width { form: c.to_string(), value: v, bits: src_bits });
    }
    let width = c.dst_bits();
    // (high, low) inputs: `a` (or the upper half of `a`) goes to the upper half of `d`.
    let (hi, lo) = match (c.dir, ops) {
        (Direction::Down { src: Wide::F32, .. }, &[a, b]) => (a, b),
        (_, &[a]) => (a >> (src_bits / 2), a & ((1u64 << (src_bits / 2)) - 1)),
        _ => unreachable!("operand count checked above"),
    };
    let lane = |x: u64| match c.dir {
        Direction::Down { dst, src } => {
            let s = match src {
                Wide::F32 => Scalar::F32,
                Wide::F16x2 => Scalar::F16,
                Wide::Bf16x2 => Scalar::BF16,
            };
            down(c, dst, s.to_f64(x))
        }
        Direction::Up { dst, src } => up(c, dst, src, x),
    };
    let lanes = [lane(lo), lane(hi)];
    let half = width / 2;
    Ok(Narrowed { bits: lanes[1].primary() << half | lanes[0].primary(), width, lanes })
}

/// One wide value to the narrow format `n` (also the x4 `.rs` forms' neighbours, with `.rz`
/// and `.rp`: `crate::cvt::stochastic_quad`).
pub(crate) fn down(c: &NarrowCvt, n: Narrow, x: f64) -> Allowed {
    let l = n.layout();
    let sign_bit = if l.signed { 1u64 << (l.exp_bits + l.man_bits) } else { 0 };
    if x.is_nan() {
        return match (l.nans.first(), c.relu) {
            (None, _) => Allowed::One(l.max),
            (Some(&canonical), true) => Allowed::One(canonical),
            (Some(&canonical), false) if n != Narrow::Ue8m0 => Allowed::AnyNan { primary: canonical, of: NanOf::Narrow(n) },
            (Some(&nan), false) => Allowed::One(nan),
        };
    }
    let neg = x.is_sign_negative();
    if n == Narrow::Ue8m0 && (neg || x == 0.0) {
        // A negative magnitude below 2^-127 with .rz underflows as a positive one does: its
        // primary is 0x00 as in the underflow row (found by the `forms` fuzz target).
        let primary = match magnitude(c, n, x.abs()) {
            Rounded::Encoded(m) => m,
            Rounded::Underflow => 0,
            Rounded::Overflow => l.max,
        };
        return Allowed::Unspecified { primary, why: "ue8m0 has no zero and no sign; the section does not say what a zero or negative input gives" };
    }
    let mag = match magnitude(c, n, x.abs()) {
        Rounded::Encoded(m) => m,
        Rounded::Overflow if c.satfinite => l.max,
        Rounded::Overflow => return Allowed::Unspecified { primary: l.nans[0], why: "ue8m0 has no infinity; the section says what an overflow gives only with .satfinite" },
        Rounded::Underflow => return Allowed::Unspecified { primary: 0, why: "below 2^-127 rounded toward zero: ue8m0 has no zero" },
    };
    let signed = if neg { sign_bit | mag } else { mag };
    match (c.relu && neg, mag) {
        (true, 0) => Allowed::Either { primary: 0, other: signed, why: "relu-keeps-negative-zero" },
        (true, _) => Allowed::One(0),
        (false, _) => Allowed::One(signed),
    }
}

/// A magnitude rounded on a narrow format's grid.
enum Rounded {
    /// The magnitude's encoding (no sign bit).
    Encoded(u64),
    /// A nonzero ue8m0 magnitude that rounded to zero, which the format cannot hold.
    Underflow,
    /// Past MAX_NORM (infinity too).
    Overflow,
}

/// The encoding of `a` (`>= 0`) rounded on `n`'s grid in the form's mode, the mode's
/// direction taken for `a`'s sign in the caller's input. The grid: steps of
/// 2^(max(e, emin) - man_bits), exact in f64.
fn magnitude(c: &NarrowCvt, n: Narrow, a: f64) -> Rounded {
    let l = n.layout();
    if a.is_infinite() {
        return Rounded::Overflow;
    }
    if a == 0.0 {
        return Rounded::Encoded(0);
    }
    // The smallest normal exponent; ue8m0 has no subnormals, its encoding 0 is 2^-127.
    let emin = if l.subnormals { 1 - l.bias } else { -l.bias };
    let e = (a.to_bits() >> 52) as i32 - 1023; // a is normal in f64: every f32 is
    let q = e.max(emin) - l.man_bits as i32;
    let scaled = a * 2f64.powi(-q);
    let r = match c.rounding.unwrap_or(Rounding::Rn) {
        Rounding::Rn => scaled.round_ties_even(),
        // Only ue8m0 takes .rz/.rp, and only positive magnitudes reach here.
        Rounding::Rz | Rounding::Rm => scaled.trunc(),
        Rounding::Rp => scaled.ceil(),
    };
    let v = r * 2f64.powi(q);
    if v > decode(n, l.max) {
        return Rounded::Overflow;
    }
    if v == 0.0 {
        return if l.subnormals { Rounded::Encoded(0) } else { Rounded::Underflow };
    }
    let ev = (v.to_bits() >> 52) as i32 - 1023;
    Rounded::Encoded(if ev < emin {
        (v * 2f64.powi(l.man_bits as i32 - emin)) as u64
    } else {
        let frac = (v * 2f64.powi(l.man_bits as i32 - ev)) as u64 - (1 << l.man_bits);
        (((ev + l.bias) as u64) << l.man_bits) | frac
    })
}

/// One narrow element to f16 (bf16 for ue8m0): exact, every value of these formats is one.
fn up(c: &NarrowCvt, dst: Wide, n: Narrow, x: u64) -> Allowed {
    let s = if dst == Wide::Bf16x2 { Scalar::BF16 } else { Scalar::F16 };
    let canonical = 0x7fff;
    let element = x & ((1u64 << n.layout().bits()) - 1);
    let v = decode(n, element);
    let result = if v.is_nan() {
        match c.relu {
            true => Allowed::One(canonical),
            false => Allowed::AnyNan { primary: canonical, of: NanOf::Half(s) },
        }
    } else {
        let bits = match s {
            Scalar::BF16 => round_f64::<BF16>(v.to_bits(), Rounding::Rn),
            _ => round_f64::<F16>(v.to_bits(), Rounding::Rn),
        };
        match (c.relu && v.is_sign_negative(), v == 0.0) {
            (true, true) => Allowed::Either { primary: 0, other: bits, why: "relu-keeps-negative-zero" },
            (true, false) => Allowed::One(0),
            (false, _) => Allowed::One(bits),
        }
    };
    if element != x {
        return Allowed::Unspecified { primary: result.primary(), why: "\"Each 8-bit input value with 2 MSB bits 0\": these are not" };
    }
    result
}
