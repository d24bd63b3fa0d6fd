//! IEEE-rounded arithmetic (add, sub, mul, fma/mad, div, rcp, sqrt) on one lane, with the PTX
//! modifiers around the correctly rounded core: `.ftz`, `.sat`, `.relu` and the NaN rules.
//!
//! Order (9.7.3.3-8, 9.7.4): flush subnormal inputs (`.ftz`), round once (`crate::softfloat`),
//! flush a subnormal result (`.ftz`), then clamp (`.sat` / `.relu`).

use super::expect::{LaneExpectation, Outcome, Reading};
use super::nan;
use crate::format::Format;
use crate::isa::{Clamp, Ftz};
use crate::rounding::Rounding;

use crate::softfloat as sf;

/// The IEEE-rounded operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArithOp {
    Add,
    Sub,
    Mul,
    /// fma and mad (9.7.3.7: "mad.{f32,f64} is the same as fma.{f32,f64}").
    Fma,
    Div,
    /// 9.7.3.13: d = 1 / a, rounded once.
    Rcp,
    Sqrt,
}

impl ArithOp {
    /// Number of source operands.
    #[inline(always)]
    pub(super) const fn inputs(self) -> usize {
        match self {
            ArithOp::Rcp | ArithOp::Sqrt => 1,
            ArithOp::Fma => 3,
            _ => 2,
        }
    }

    /// The correctly rounded result; NaN results are some NaN (the caller applies the NaN rules).
    #[inline(always)]
    fn compute<F: Format>(self, x: &[u64; 3], mode: Rounding) -> u64 {
        match self {
            ArithOp::Add => sf::add::<F>(x[0], x[1], mode),
            ArithOp::Sub => sf::sub::<F>(x[0], x[1], mode),
            ArithOp::Mul => sf::mul::<F>(x[0], x[1], mode),
            ArithOp::Fma => sf::fma::<F>(x[0], x[1], x[2], mode),
            ArithOp::Div => sf::div::<F>(x[0], x[1], mode),
            ArithOp::Rcp => sf::div::<F>(F::ONE, x[0], mode),
            ArithOp::Sqrt => sf::sqrt::<F>(x[0], mode),
        }
    }
}

/// The modifiers of an arithmetic form that act on values.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mods {
    pub mode: Rounding,
    pub ftz: Ftz,
    pub clamp: Clamp,
}

/// `.ftz` on the inputs: 9.7.3.3: ".ftz flushes subnormal inputs and results to
/// sign-preserving zero".
#[inline(always)]
fn flush_inputs<F: Format>(op: ArithOp, ftz: Ftz, mut x: [u64; 3]) -> [u64; 3] {
    if ftz == Ftz::Flush {
        for v in &mut x[..op.inputs()] {
            *v = flush::<F>(*v);
        }
    }
    x
}

/// [`Format::flush`], for f32 as a float select (compare, mask), which x86 does without a
/// branch or a move to the integer registers (`add.rn.ftz.f32`: 39 -> 32 instructions an op).
#[inline(always)]
fn flush<F: Format>(x: u64) -> u64 {
    if F::BITS == 32 && F::FRAC_BITS == 23 {
        let v = f32::from_bits(x as u32);
        // A NaN compares false and stays; zeros "flush" to themselves.
        let d = if v.abs() < f32::MIN_POSITIVE { f32::from_bits(x as u32 & 0x8000_0000) } else { v };
        return d.to_bits() as u64;
    }
    F::flush(x)
}

/// `.ftz` on a non-NaN result, then `.sat` / `.relu`: the primary reading.
#[inline(always)]
fn finish<F: Format>(r: u64, m: Mods) -> u64 {
    let flushed = if m.ftz == Ftz::Flush { flush::<F>(r) } else { r };
    clamp::<F>(flushed, m.clamp)
}

/// Evaluate one lane; `x` holds the lane's operands (unused slots are ignored).
#[inline(always)]
pub(super) fn lane<F: Format>(op: ArithOp, m: Mods, x: [u64; 3]) -> LaneExpectation {
    let n = op.inputs();
    let ftz = m.ftz == Ftz::Flush;
    let x = flush_inputs::<F>(op, m.ftz, x);
    let r = op.compute::<F>(&x, m.mode);
    if F::is_nan(r) {
        return nan_result::<F>(m.clamp, &x[..n]);
    }
    let d = finish::<F>(r, m);
    let mut lane = LaneExpectation::exact(d);
    // Open question (docs/semantics.md, "ftz: before or after rounding"): a result rounded up
    // to the smallest normal from an exact value below it. Recomputing toward zero tells
    // whether the exact value was below the smallest normal.
    if ftz && F::abs(r) == F::MIN_NORMAL && m.mode != Rounding::Rz {
        let toward_zero = op.compute::<F>(&x, Rounding::Rz);
        if F::abs(toward_zero) < F::MIN_NORMAL {
            let zero = clamp::<F>(F::zero(F::sign(r)), m.clamp);
            lane = lane.or(Outcome::Bits(zero), Reading::FtzBeforeRounding);
        }
    }
    // Open question: does a clamp keep the sign of a -0.0 result?
    let flushed = if ftz { F::flush(r) } else { r };
    if flushed == F::SIGN_MASK {
        match m.clamp {
            Clamp::None => {}
            Clamp::Sat => lane = lane.or(Outcome::Bits(flushed), Reading::SatKeepsNegativeZero),
            Clamp::Relu => lane = lane.or(Outcome::Bits(flushed), Reading::ReluKeepsNegativeZero),
        }
    }
    lane
}

/// The primary outcome of [`lane`] as bits, without building the expectation (the batch
/// path, `super::batch`): the same steps, minus the alternatives, which never change the
/// primary. A NaN "any" reads as the canonical NaN, as `Expectation::primary_bits` gives it.
#[inline(always)]
pub(super) fn primary<F: Format>(op: ArithOp, m: Mods, x: [u64; 3]) -> u64 {
    let x = flush_inputs::<F>(op, m.ftz, x);
    let r = op.compute::<F>(&x, m.mode);
    if F::is_nan(r) {
        return nan_primary::<F>(op, m.clamp, x);
    }
    finish::<F>(r, m)
}

/// [`primary`] of a NaN result: the primary of [`nan_result`], out of the hot loop.
#[cold]
#[inline(never)]
fn nan_primary<F: Format>(op: ArithOp, clamp: Clamp, x: [u64; 3]) -> u64 {
    // `nan_result`'s primary, row by row.
    match clamp {
        Clamp::Sat => 0,
        Clamp::Relu => F::CANONICAL_NAN,
        Clamp::None => nan::arith_primary::<F>(&x[..op.inputs()]),
    }
}

/// `.sat` and `.relu` on a non-NaN result.
#[inline(always)]
fn clamp<F: Format>(d: u64, clamp: Clamp) -> u64 {
    match clamp {
        Clamp::None => d,
        // 9.7.3.3: ".sat clamps the result to [0.0, 1.0]". Every negative value, -0.0
        // included, becomes +0.0 (primary reading; -0.0 is the alternative). Positive
        // encodings order like their values, so the upper clamp is an integer min.
        Clamp::Sat => min_unpredictable::<F>(zero_if_negative::<F>(d), F::ONE),
        // 9.7.4 fma: ".relu: d = max(a*b+c, 0)"; with max's -0.0 < +0.0 (9.7.3.12), a -0.0
        // result becomes +0.0 (primary reading).
        Clamp::Relu => zero_if_negative::<F>(d),
    }
}

// The clamps decide on the result's sign or size, which on mixed data is a coin toss; LLVM
// turns `if`, `min`/`max` and sign masks alike into selects, and x86's cmov-to-branch pass
// then makes those branches inside the batch loops (mispredicted half the time: `add.sat.f32`
// ran at a quarter of `add.f32`). A shift by a data-dependent amount stays a shift. Lanes
// with clamps are at most 32 bits wide (9.7.3/9.7.4: f16, bf16, f32), so shifting by 32
// clears a lane; f64 (never clamped) takes the plain form.

/// `d`, or +0 when `d` has its sign bit set.
#[inline(always)]
fn zero_if_negative<F: Format>(d: u64) -> u64 {
    if F::BITS > 32 {
        return if F::sign(d) { 0 } else { d };
    }
    d >> (((d >> (F::BITS - 1)) & 1) << 5)
}

/// `min(x, y)` for `x, y < 2^32` (lane encodings), without a select.
#[inline(always)]
fn min_unpredictable<F: Format>(x: u64, y: u64) -> u64 {
    if F::BITS > 32 {
        return x.min(y);
    }
    // t = x - y wraps (top bit set) iff x < y; then keep it, else shift it out (t < 2^32).
    let t = x.wrapping_sub(y);
    y.wrapping_add(t >> ((!t >> 63) << 5))
}

/// A NaN result, after the clamps that replace it.
#[cold]
fn nan_result<F: Format>(clamp: Clamp, inputs: &[u64]) -> LaneExpectation {
    match clamp {
        // 9.7.3.3: "NaN results are flushed to +0.0f".
        Clamp::Sat => LaneExpectation::exact(0),
        // 9.7.4 fma: ".relu ... NaN result -> canonical NaN".
        Clamp::Relu => LaneExpectation::exact(F::CANONICAL_NAN),
        Clamp::None => nan::arith::<F>(inputs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{BF16, F16, F32, F64};

    fn m(mode: Rounding, ftz: Ftz, clamp: Clamp) -> Mods {
        Mods { mode, ftz, clamp }
    }
    const RN: Mods = Mods { mode: Rounding::Rn, ftz: Ftz::Preserve, clamp: Clamp::None };

    fn f32b(v: f32) -> u64 {
        v.to_bits() as u64
    }

    #[test]
    fn sum_of_opposites_is_positive_zero_in_rn_and_negative_zero_in_rm() {
        let (a, b) = (f32b(1.5), f32b(-1.5));
        assert_eq!(lane::<F32>(ArithOp::Add, RN, [a, b, 0]), LaneExpectation::exact(0));
        let rm = m(Rounding::Rm, Ftz::Preserve, Clamp::None);
        assert_eq!(lane::<F32>(ArithOp::Add, rm, [a, b, 0]), LaneExpectation::exact(0x8000_0000));
        let (a, b) = (1.5f64.to_bits(), (-1.5f64).to_bits());
        assert_eq!(lane::<F64>(ArithOp::Add, rm, [a, b, 0]), LaneExpectation::exact(F64::SIGN_MASK));
        assert_eq!(lane::<F64>(ArithOp::Sub, RN, [a, a, 0]), LaneExpectation::exact(0));
    }

    #[test]
    fn f32_flush_is_format_flush() {
        let edges = [0u64, 1, 0x7f_ffff, 0x80_0000, 0x80_0001, 0x3f80_0000, 0x7f80_0000, 0x7f80_0001, 0x7fc0_0000];
        let mut x = 0x1234_5678u64;
        let randoms = (0..1_000_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Every exponent, with small ones (zero field: subnormals) often.
            if x & 3 == 0 { x & 0x807f_ffff } else { x & 0xffff_ffff }
        });
        for v in edges.iter().flat_map(|&e| [e, e | 0x8000_0000]).chain(randoms) {
            assert_eq!(flush::<F32>(v), F32::flush(v), "{v:#x}");
        }
    }

    #[test]
    fn ftz_flushes_subnormal_inputs() {
        let ftz = m(Rounding::Rn, Ftz::Flush, Clamp::None);
        // 2^-149 + 0: without .ftz the subnormal survives; with it, the input is +0.
        assert_eq!(lane::<F32>(ArithOp::Add, RN, [1, 0, 0]), LaneExpectation::exact(1));
        assert_eq!(lane::<F32>(ArithOp::Add, ftz, [1, 0, 0]), LaneExpectation::exact(0));
        // -2^-149 * 2^100: 2^-49 without .ftz, -0.0 with it (input flushed, sign kept).
        let big = f32b(2f32.powi(100));
        assert_eq!(lane::<F32>(ArithOp::Mul, RN, [0x8000_0001, big, 0]), LaneExpectation::exact(f32b(-(2f32.powi(-49)))));
        assert_eq!(lane::<F32>(ArithOp::Mul, ftz, [0x8000_0001, big, 0]), LaneExpectation::exact(0x8000_0000));
    }

    #[test]
    fn ftz_flushes_subnormal_result_to_signed_zero() {
        let ftz = m(Rounding::Rn, Ftz::Flush, Clamp::None);
        let (a, b) = (f32b(2f32.powi(-70)), f32b(-(2f32.powi(-70))));
        assert_eq!(lane::<F32>(ArithOp::Mul, RN, [a, b, 0]), LaneExpectation::exact(f32b(-(2f32.powi(-140)))));
        assert_eq!(lane::<F32>(ArithOp::Mul, ftz, [a, b, 0]), LaneExpectation::exact(0x8000_0000));
        // f16: 2^-10 * 2^-10 = 2^-20 is subnormal in f16.
        let h = 0x1400; // 2^-10
        assert_eq!(lane::<F16>(ArithOp::Mul, RN, [h, h, 0]), LaneExpectation::exact(0x0010));
        assert_eq!(lane::<F16>(ArithOp::Mul, ftz, [h, h, 0]), LaneExpectation::exact(0));
    }

    #[test]
    fn ftz_before_rounding_alternative_when_exact_value_rounds_up_to_min_normal() {
        let ftz = m(Rounding::Rn, Ftz::Flush, Clamp::None);
        // (1 - 2^-24) * 2^-126 rounds (ties to even) up to 2^-126 = MIN_NORMAL.
        let a = f32b(1.0 - 2f32.powi(-24));
        let b = f32b(2f32.powi(-126));
        let lane_rn = lane::<F32>(ArithOp::Mul, ftz, [a, b, 0]);
        assert_eq!(lane_rn.primary, Outcome::Bits(F32::MIN_NORMAL));
        assert_eq!(lane_rn.alternatives.as_slice(), &[(Outcome::Bits(0), Reading::FtzBeforeRounding)]);
        // Negative, rounding toward -inf: -MIN_NORMAL or -0.0.
        let rm = m(Rounding::Rm, Ftz::Flush, Clamp::None);
        let neg = lane::<F32>(ArithOp::Mul, rm, [a | F32::SIGN_MASK, b, 0]);
        assert_eq!(neg.primary, Outcome::Bits(F32::MIN_NORMAL | F32::SIGN_MASK));
        assert_eq!(neg.alternatives.as_slice(), &[(Outcome::Bits(F32::SIGN_MASK), Reading::FtzBeforeRounding)]);
    }

    #[test]
    fn no_ftz_before_rounding_alternative_when_readings_agree() {
        let ftz = m(Rounding::Rn, Ftz::Flush, Clamp::None);
        let b = f32b(2f32.powi(-126));
        // Exactly MIN_NORMAL: normal under both readings.
        assert!(lane::<F32>(ArithOp::Mul, ftz, [F32::ONE, b, 0]).alternatives.is_empty());
        // Exact product (1 + 2^-24 - 2^-47) * 2^-126, just above MIN_NORMAL: not tiny, whichever
        // way it rounds.
        let a = f32b((1.0 + 2f32.powi(-23)) * 0.5);
        let c = f32b((1.0 - 2f32.powi(-24)) * 2f32.powi(-125));
        for mode in [Rounding::Rn, Rounding::Rz, Rounding::Rm] {
            let mods = m(mode, Ftz::Flush, Clamp::None);
            assert_eq!(lane::<F32>(ArithOp::Mul, mods, [a, c, 0]), LaneExpectation::exact(F32::MIN_NORMAL), "{mode:?}");
        }
        // Rounds down into the subnormals: flushed under both readings.
        let a = f32b(1.0 - 2f32.powi(-22));
        assert_eq!(lane::<F32>(ArithOp::Mul, ftz, [a, b, 0]), LaneExpectation::exact(0));
        // Without .ftz, no question arises.
        let a = f32b(1.0 - 2f32.powi(-24));
        assert_eq!(lane::<F32>(ArithOp::Mul, RN, [a, b, 0]), LaneExpectation::exact(F32::MIN_NORMAL));
    }

    /// Every f16 product (a sampled grid): the alternative appears exactly when the exact product
    /// (exact in f64) is below the smallest normal in magnitude while the rounded one is not.
    #[test]
    fn ftz_before_rounding_alternative_matches_exact_products_f16() {
        use crate::format::Scalar;
        let min_normal = Scalar::F16.to_f64(F16::MIN_NORMAL);
        for mode in Rounding::ALL {
            let mods = m(mode, Ftz::Flush, Clamp::None);
            for a in (0x2000u64..0x2400).chain(0xa000..0xa400) {
                for b in (0x1000u64..0x1400).step_by(3) {
                    let lane = lane::<F16>(ArithOp::Mul, mods, [a, b, 0]);
                    let exact = Scalar::F16.to_f64(a) * Scalar::F16.to_f64(b);
                    let Outcome::Bits(d) = lane.primary else { panic!("NaN from finite product") };
                    let expect_alt = exact.abs() < min_normal && F16::abs(d) == F16::MIN_NORMAL;
                    assert_eq!(
                        lane.alternatives.iter().any(|(_, r)| *r == Reading::FtzBeforeRounding),
                        expect_alt,
                        "{a:#x} * {b:#x} {mode:?} -> {lane:?}"
                    );
                    assert!(!F16::is_subnormal(d), "ftz left a subnormal: {d:#x}");
                }
            }
        }
    }

    #[test]
    fn sat_clamps_to_unit_interval() {
        let sat = m(Rounding::Rn, Ftz::Preserve, Clamp::Sat);
        assert_eq!(lane::<F32>(ArithOp::Add, sat, [f32b(0.75), f32b(0.5), 0]), LaneExpectation::exact(F32::ONE));
        assert_eq!(lane::<F32>(ArithOp::Add, sat, [f32b(0.25), f32b(0.5), 0]), LaneExpectation::exact(f32b(0.75)));
        assert_eq!(lane::<F32>(ArithOp::Sub, sat, [f32b(0.25), f32b(0.5), 0]), LaneExpectation::exact(0));
        assert_eq!(lane::<F32>(ArithOp::Mul, sat, [F32::INF, F32::ONE, 0]), LaneExpectation::exact(F32::ONE));
        assert_eq!(lane::<F32>(ArithOp::Mul, sat, [F32::inf(true), F32::ONE, 0]), LaneExpectation::exact(0));
    }

    #[test]
    fn sat_of_nan_is_positive_zero() {
        let sat = m(Rounding::Rn, Ftz::Preserve, Clamp::Sat);
        assert_eq!(lane::<F32>(ArithOp::Add, sat, [0xffc0_0000, F32::ONE, 0]), LaneExpectation::exact(0));
        assert_eq!(lane::<F32>(ArithOp::Add, sat, [F32::INF, F32::inf(true), 0]), LaneExpectation::exact(0));
        assert_eq!(lane::<F16>(ArithOp::Fma, sat, [0, F16::INF, F16::ONE]), LaneExpectation::exact(0));
    }

    #[test]
    fn sat_of_negative_zero_is_positive_zero_with_negative_zero_alternative() {
        let sat = m(Rounding::Rn, Ftz::Preserve, Clamp::Sat);
        let lane = lane::<F32>(ArithOp::Mul, sat, [F32::SIGN_MASK, F32::ONE, 0]);
        assert_eq!(lane.primary, Outcome::Bits(0));
        assert_eq!(lane.alternatives.as_slice(), &[(Outcome::Bits(F32::SIGN_MASK), Reading::SatKeepsNegativeZero)]);
    }

    #[test]
    fn ftz_sat_flushes_then_clamps_negative_subnormal() {
        let both = m(Rounding::Rn, Ftz::Flush, Clamp::Sat);
        let (a, b) = (f32b(2f32.powi(-70)), f32b(-(2f32.powi(-70))));
        let flushed = lane::<F32>(ArithOp::Mul, both, [a, b, 0]);
        assert_eq!(flushed.primary, Outcome::Bits(0));
        assert_eq!(flushed.alternatives.as_slice(), &[(Outcome::Bits(F32::SIGN_MASK), Reading::SatKeepsNegativeZero)]);
        // Without .ftz, a negative subnormal is below 0 and clamps to +0.0 under both readings.
        let sat = m(Rounding::Rn, Ftz::Preserve, Clamp::Sat);
        assert_eq!(lane::<F32>(ArithOp::Mul, sat, [a, b, 0]), LaneExpectation::exact(0));
    }

    #[test]
    fn relu_clamps_negative_results_and_gives_canonical_nan() {
        let relu = m(Rounding::Rn, Ftz::Preserve, Clamp::Relu);
        let (one, two, neg_three) = (0x3c00, 0x4000, 0xc200);
        assert_eq!(lane::<F16>(ArithOp::Fma, relu, [one, two, neg_three]), LaneExpectation::exact(0));
        assert_eq!(lane::<F16>(ArithOp::Fma, relu, [one, two, one]), LaneExpectation::exact(0x4200));
        assert_eq!(lane::<F16>(ArithOp::Fma, relu, [0, F16::INF, one]), LaneExpectation::exact(0x7fff));
        assert_eq!(lane::<BF16>(ArithOp::Fma, relu, [0xffc1, one, one]), LaneExpectation::exact(0x7fff));
        assert_eq!(lane::<BF16>(ArithOp::Fma, relu, [0x3f80, 0xc000, 0x3f80]), LaneExpectation::exact(0));
    }

    #[test]
    fn relu_of_negative_zero_is_positive_zero_with_negative_zero_alternative() {
        let relu = m(Rounding::Rn, Ftz::Preserve, Clamp::Relu);
        let lane = lane::<F16>(ArithOp::Fma, relu, [F16::SIGN_MASK, 0x3c00, F16::SIGN_MASK]);
        assert_eq!(lane.primary, Outcome::Bits(0));
        assert_eq!(lane.alternatives.as_slice(), &[(Outcome::Bits(F16::SIGN_MASK), Reading::ReluKeepsNegativeZero)]);
    }

    #[test]
    fn single_precision_nan_results_are_any_nan() {
        assert_eq!(lane::<F32>(ArithOp::Add, RN, [0x7f80_0001, F32::ONE, 0]), LaneExpectation::any_nan());
        assert_eq!(lane::<F32>(ArithOp::Sqrt, RN, [f32b(-1.0), 0, 0]), LaneExpectation::any_nan());
        assert_eq!(lane::<BF16>(ArithOp::Mul, RN, [0, BF16::INF, 0]), LaneExpectation::any_nan());
    }

    #[test]
    fn f64_nan_payload_propagates_quieted() {
        let (q, s) = (0xfff8_0000_0000_1234u64, 0x7ff0_0000_0000_0042u64);
        assert_eq!(lane::<F64>(ArithOp::Mul, RN, [F64::ONE, q, 0]), LaneExpectation::exact(q));
        let lane_s = lane::<F64>(ArithOp::Fma, RN, [F64::ONE, F64::ONE, s]);
        assert_eq!(lane_s.primary, Outcome::Bits(s | F64::QUIET_BIT));
        assert_eq!(lane_s.alternatives.as_slice(), &[(Outcome::Bits(s), Reading::SignallingNanNotQuieted)]);
        let both = lane::<F64>(ArithOp::Div, RN, [q, s, 0]);
        assert_eq!(both.primary, Outcome::Bits(q));
        assert_eq!(both.alternatives.as_slice(), &[(Outcome::Bits(s | F64::QUIET_BIT), Reading::NanPayloadFromB)]);
        assert_eq!(lane::<F64>(ArithOp::Rcp, RN, [q, 0, 0]), LaneExpectation::exact(q));
        assert_eq!(lane::<F64>(ArithOp::Sqrt, RN, [s, 0, 0]).primary, Outcome::Bits(s | F64::QUIET_BIT));
    }

    #[test]
    fn f64_invalid_operations_give_any_nan() {
        let inf = F64::INF;
        assert_eq!(lane::<F64>(ArithOp::Sub, RN, [inf, inf, 0]), LaneExpectation::any_nan());
        assert_eq!(lane::<F64>(ArithOp::Fma, RN, [0, inf, F64::ONE]), LaneExpectation::any_nan());
        assert_eq!(lane::<F64>(ArithOp::Div, RN, [0, 0, 0]), LaneExpectation::any_nan());
        assert_eq!(lane::<F64>(ArithOp::Sqrt, RN, [(-2.0f64).to_bits(), 0, 0]), LaneExpectation::any_nan());
    }

    #[test]
    fn rcp_is_one_over_a_rounded_once() {
        let third = lane::<F32>(ArithOp::Rcp, RN, [f32b(3.0), 0, 0]);
        assert_eq!(third, LaneExpectation::exact(f32b(1.0 / 3.0)));
        // 1/3 rounds up to nearest (0x3eaaaaab), so toward zero is one ulp below.
        let rz = m(Rounding::Rz, Ftz::Preserve, Clamp::None);
        assert_eq!(lane::<F32>(ArithOp::Rcp, rz, [f32b(3.0), 0, 0]), LaneExpectation::exact(f32b(1.0 / 3.0) - 1));
        assert_eq!(lane::<F64>(ArithOp::Rcp, RN, [F64::SIGN_MASK, 0, 0]), LaneExpectation::exact(F64::inf(true)));
        // 1 / subnormal under .ftz: the input is a zero, the result an infinity.
        let ftz = m(Rounding::Rn, Ftz::Flush, Clamp::None);
        assert_eq!(lane::<F32>(ArithOp::Rcp, ftz, [1, 0, 0]), LaneExpectation::exact(F32::INF));
    }

    #[test]
    fn sqrt_keeps_negative_zero() {
        assert_eq!(lane::<F32>(ArithOp::Sqrt, RN, [F32::SIGN_MASK, 0, 0]), LaneExpectation::exact(F32::SIGN_MASK));
        assert_eq!(lane::<F64>(ArithOp::Sqrt, RN, [4.0f64.to_bits(), 0, 0]), LaneExpectation::exact(2.0f64.to_bits()));
    }

    /// The wiring (operand order, which op) against the host's IEEE round-to-nearest arithmetic.
    #[test]
    fn round_to_nearest_matches_host_arithmetic() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..20_000 {
            let (a, b, c): (f32, f32, f32) = (rng.gen::<f32>() * 4.0 - 2.0, rng.gen::<f32>() * 4.0 - 1.0, rng.gen::<f32>() - 0.5);
            let x = [f32b(a), f32b(b), f32b(c)];
            let check = |op, want: f32| assert_eq!(lane::<F32>(op, RN, x), LaneExpectation::exact(f32b(want)), "{op:?} {a} {b} {c}");
            check(ArithOp::Add, a + b);
            check(ArithOp::Sub, a - b);
            check(ArithOp::Mul, a * b);
            check(ArithOp::Div, a / b);
            check(ArithOp::Fma, a.mul_add(b, c));
            check(ArithOp::Rcp, 1.0 / a);
            let root = lane::<F32>(ArithOp::Sqrt, RN, [f32b(a.abs()), 0, 0]);
            assert_eq!(root, LaneExpectation::exact(f32b(a.abs().sqrt())), "sqrt {a}");
            let (a, b, c) = (a as f64 * 1e10, b as f64, c as f64 * 1e-3);
            let x = [a.to_bits(), b.to_bits(), c.to_bits()];
            let check = |op, want: f64| assert_eq!(lane::<F64>(op, RN, x), LaneExpectation::exact(want.to_bits()), "{op:?} {a} {b} {c}");
            check(ArithOp::Add, a + b);
            check(ArithOp::Sub, a - b);
            check(ArithOp::Mul, a * b);
            check(ArithOp::Div, a / b);
            check(ArithOp::Fma, a.mul_add(b, c));
            check(ArithOp::Rcp, 1.0 / a);
            let root = lane::<F64>(ArithOp::Sqrt, RN, [a.abs().to_bits(), 0, 0]);
            assert_eq!(root, LaneExpectation::exact(a.abs().sqrt().to_bits()), "sqrt {a}");
        }
    }
}
