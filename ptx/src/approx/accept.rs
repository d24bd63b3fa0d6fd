//! From a bound to the set of accepted results: ulp ranges around the correctly rounded
//! result, absolute/relative ranges around the exact value, and `.ftz` flushing of results.
//!
//! Positions on a format's value line are "value keys": the magnitude bits with the sign
//! applied, so adjacent values differ by one and both zeros sit at 0 (an ulp bound counts
//! -min_subnormal and +min_subnormal two ulps apart, as their difference is). `inf` is one
//! step beyond the largest finite value.
//!
//! Borderline cases of abs/rel bounds are decided in favour of acceptance: the interval
//! [y - d, y + d] (y the exact value as a correctly rounded f64, d the bound) is widened by
//! t = 2^-48 (|y| + d), which exceeds every error of its computation (y: 2^-53 |y|; d, from
//! a scale rounded upward: 2^-52 d; the subtraction: 2^-53 (|y| + d)). So a result within
//! the bound is never rejected, and an accepted result is beyond the bound by at most
//! 2^-47 (|y| + d) — about 2^-23 of an f32 ulp: no f32 or half value is that close to
//! the edge except by coincidence, and the tests count such cases.

use super::reference::{pow2, round_nearest, to_f64};
use crate::format::Format;
use crate::expect::Outcome;
use crate::isa::Ftz;

/// Value key: ulps from zero, negative below; both zeros 0.
#[inline]
pub(crate) fn vkey<F: Format>(bits: u64) -> i64 {
    let a = F::abs(bits) as i64;
    if F::sign(bits) {
        -a
    } else {
        a
    }
}

/// Bits of a value key; key 0 gives `zero`.
#[inline]
fn from_vkey<F: Format>(k: i64, zero: u64) -> u64 {
    match k {
        0 => zero,
        k if k < 0 => F::SIGN_MASK | (-k) as u64,
        k => k as u64,
    }
}

/// Order key: value order with -0 just below +0 (the order of `Outcome::Range`).
#[inline]
fn okey<F: Format>(bits: u64) -> i64 {
    F::order_key(bits)
}

/// The accepted set for "at most `n` ulps from the correctly rounded result `cr`".
/// `exact` (the value to f64 precision) is called only when `cr` is infinite: an overflowed
/// result counts its steps on the grid continued past the largest finite value (spacing
/// 2^(EMAX+2-PREC) beyond 2^(EMAX+1), where `inf` stands), so that finite results are
/// accepted only when the exact value lies within `n` such steps of the format's end.
pub(crate) fn ulp_range<F: Format>(cr: u64, n: u32, exact: impl FnOnce() -> f64, ftz: Ftz) -> Outcome {
    let n = n as i64;
    let kinf = F::INF as i64;
    let (lo, hi) = if F::is_inf(cr) {
        let y = exact().abs();
        let beyond = if y.is_finite() {
            let t = (y - pow2(F::EMAX + 1)) / pow2(F::EMAX + 2 - F::PREC as i32);
            // Round to the nearest step; near a half step take the smaller count (the more
            // accepting reading).
            (t + 0.5 - 1e-6).floor().clamp(0.0, 1e9) as i64
        } else {
            i64::MAX / 4
        };
        let far_lo = (kinf + beyond - n).min(kinf);
        if F::sign(cr) {
            (-kinf, -far_lo)
        } else {
            (far_lo, kinf)
        }
    } else {
        let k = vkey::<F>(cr);
        ((k - n).max(-kinf), (k + n).min(kinf))
    };
    finish::<F>(from_vkey::<F>(lo, F::SIGN_MASK), from_vkey::<F>(hi, 0), cr, ftz)
}

/// The accepted set for |result - y| <= d (`d` = the absolute bound, or the relative bound
/// times |y|), with the correctly rounded `cr` always included: where the bound is finer
/// than the format (relative bounds on subnormal results) the best possible result is the
/// correctly rounded one, and the spec cannot mean to reject it.
pub(crate) fn bound_range<F: Format>(y: f64, d: f64, cr: u64, ftz: Ftz) -> Outcome {
    if !y.is_finite() || d == 0.0 {
        // An f64 overflow (or, for a relative bound, underflow to 0) of ex2: the exact value
        // is beyond every format, and no value is within a relative bound of it but the
        // correctly rounded one (a true zero of a function is in its special-value table).
        return finish::<F>(cr, cr, cr, ftz);
    }
    let t = (y.abs() + d) * pow2(-48);
    let lo = ceil_to::<F>(y - d - t);
    let hi = floor_to::<F>(y + d + t);
    if okey::<F>(lo) > okey::<F>(hi) {
        return finish::<F>(cr, cr, cr, ftz);
    }
    finish::<F>(lo, hi, cr, ftz)
}

/// Smallest value of `F` at or above `v`; a zero result is -0 (so that both zeros are in).
#[inline]
fn ceil_to<F: Format>(v: f64) -> u64 {
    let r = round_nearest::<F>(v);
    let k = if to_f64::<F>(r) < v { vkey::<F>(r) + 1 } else { vkey::<F>(r) };
    from_vkey::<F>(k, F::SIGN_MASK)
}

/// Largest value of `F` at or below `v`; a zero result is +0.
#[inline]
fn floor_to<F: Format>(v: f64) -> u64 {
    let r = round_nearest::<F>(v);
    let k = if to_f64::<F>(r) > v { vkey::<F>(r) - 1 } else { vkey::<F>(r) };
    from_vkey::<F>(k, 0)
}

/// Flush the range under `.ftz` (a subnormal end becomes the zero of its sign: results are
/// flushed sign-preserving, 9.7.3.x "flushes subnormal inputs and results"), take in the
/// reference, and build the outcome; the `ftz` mark is kept only if subnormals lie inside.
#[inline]
fn finish<F: Format>(mut lo: u64, mut hi: u64, cr: u64, ftz: Ftz) -> Outcome {
    let flush = ftz == Ftz::Flush;
    let reference = if flush { F::flush(cr) } else { cr };
    if flush {
        lo = F::flush(lo);
        hi = F::flush(hi);
    }
    if okey::<F>(reference) < okey::<F>(lo) {
        lo = reference;
    }
    if okey::<F>(reference) > okey::<F>(hi) {
        hi = reference;
    }
    // Subnormals inside: the range holds +min_subnormal (order key 1) or -min_subnormal (-2).
    let (l, h) = (okey::<F>(lo), okey::<F>(hi));
    let has_subnormals = (l <= 1 && 1 <= h) || (l <= -2 && -2 <= h);
    let mark = if flush && has_subnormals { Ftz::Flush } else { Ftz::Preserve };
    Outcome::range(lo, hi, reference, mark)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F16, F32};

    fn range(o: Outcome) -> (u64, u64) {
        match o {
            Outcome::Range { lo, hi, .. } => (lo, hi),
            Outcome::Bits(b) => (b, b),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn one_ulp_around_one_spans_two_binades() {
        let o = ulp_range::<F32>(0x3f80_0000, 1, || unreachable!(), Ftz::Preserve);
        assert_eq!(range(o), (0x3f7f_ffff, 0x3f80_0001));
    }

    #[test]
    fn ulps_count_both_zeros_as_one_value() {
        let o = ulp_range::<F32>(0x0000_0001, 2, || unreachable!(), Ftz::Preserve);
        assert_eq!(range(o), (0x8000_0001, 0x0000_0003));
    }

    #[test]
    fn ulps_reach_infinity_one_step_past_max() {
        let o = ulp_range::<F32>(0x7f7f_ffff, 1, || unreachable!(), Ftz::Preserve);
        assert_eq!(range(o), (0x7f7f_fffe, 0x7f80_0000));
    }

    #[test]
    fn overflow_far_beyond_the_format_accepts_only_infinity() {
        let o = ulp_range::<F32>(0xff80_0000, 2, || -1e300, Ftz::Preserve);
        assert_eq!(o, Outcome::Bits(0xff80_0000));
        // Exactly 2^128: inf stands there, MAX is one step and its predecessor two steps away.
        let o = ulp_range::<F32>(0x7f80_0000, 2, || pow2(128), Ftz::Preserve);
        assert_eq!(range(o), (0x7f7f_fffe, 0x7f80_0000));
        // One step beyond 2^128: only MAX and inf.
        let o = ulp_range::<F32>(0x7f80_0000, 2, || pow2(128) + pow2(105), Ftz::Preserve);
        assert_eq!(range(o), (0x7f7f_ffff, 0x7f80_0000));
    }

    #[test]
    fn ftz_flushes_subnormal_ends_keeping_their_sign() {
        // Around the smallest normal: the lower end is a subnormal, flushed to +0.
        let o = ulp_range::<F32>(0x0080_0000, 1, || unreachable!(), Ftz::Flush);
        assert_eq!(o, Outcome::Range { lo: 0, hi: 0x0080_0001, reference: 0x0080_0000, ftz: Ftz::Flush });
        // Entirely subnormal and positive: only +0.
        let o = ulp_range::<F32>(0x0000_0100, 2, || unreachable!(), Ftz::Flush);
        assert_eq!(o, Outcome::Bits(0));
        let o = ulp_range::<F32>(0x8000_0100, 2, || unreachable!(), Ftz::Flush);
        assert_eq!(o, Outcome::Bits(0x8000_0000));
    }

    #[test]
    fn ftz_mark_is_dropped_when_no_subnormal_is_inside() {
        let o = ulp_range::<F32>(0x3f80_0000, 2, || unreachable!(), Ftz::Flush);
        assert!(matches!(o, Outcome::Range { ftz: Ftz::Preserve, .. }));
    }

    #[test]
    fn absolute_bound_crosses_zero_with_both_zeros() {
        let o = bound_range::<F32>(1e-10, pow2(-20), 0x2edb_e6ff, Ftz::Preserve);
        let (lo, hi) = range(o);
        assert!(f32::from_bits(lo as u32) < 0.0 && f32::from_bits(hi as u32) > 0.0);
        // The ends: within 2^-20 of 1e-10 and their outer neighbours not.
        let (l, h) = (f32::from_bits(lo as u32) as f64, f32::from_bits(hi as u32) as f64);
        assert!(1e-10 - l <= pow2(-20) && h - 1e-10 <= pow2(-20));
        assert!(1e-10 - f32::from_bits(lo as u32 + 1) as f64 > pow2(-20));
        assert!(f32::from_bits(hi as u32 + 1) as f64 - 1e-10 > pow2(-20));
    }

    #[test]
    fn relative_bound_finer_than_the_format_keeps_the_correctly_rounded_value() {
        // f16 subnormals are multiples of 2^-24: 0.7 * 2^-24 has no f16 within 2^-9.9 of it.
        let y = 0.7 * pow2(-24);
        let o = bound_range::<F16>(y, y * pow2(-9), 0x0001, Ftz::Preserve);
        assert_eq!(o, Outcome::Bits(0x0001));
    }

    #[test]
    fn ceil_and_floor_pick_the_signed_zero_that_keeps_both_zeros() {
        assert_eq!(ceil_to::<F32>(-1e-60), 0x8000_0000);
        assert_eq!(floor_to::<F32>(1e-60), 0);
        assert_eq!(ceil_to::<F32>(1e-60), 1);
        assert_eq!(floor_to::<F32>(3.5e38), 0x7f7f_ffff);
        assert_eq!(ceil_to::<F16>(65504.5), 0x7c00);
    }
}
