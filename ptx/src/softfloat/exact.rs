//! Pure-integer, format-generic IEEE arithmetic: the fallback for the cases the host fast
//! paths cannot prove, and the independent reference those paths are tested against.
//!
//! Every function computes an exact description of the result (a `u128` significand,
//! exact or round-to-odd with a sticky bit) and hands it to the rounding core
//! ([`round_odd_wide`]), which owns all rounding, underflow and overflow decisions.
//! NaN results: a NaN operand is propagated quieted (first of a, b, c); an invalid
//! operation gives `F::CANONICAL_NAN`. PTX's NaN rules are applied by the interpreter.

use crate::format::Format;
use crate::rounding::{round_odd, round_odd_wide, Rounding};

/// The NaN result for NaN operands (some operand is a NaN): the first one, quieted.
#[inline]
fn propagate<F: Format>(ops: &[u64]) -> u64 {
    for &x in ops {
        if F::is_nan(x) {
            return F::quiet(x);
        }
    }
    F::CANONICAL_NAN
}

/// Whether `x` is a NaN or an infinity (exponent field all ones).
#[inline]
fn non_finite<F: Format>(x: u64) -> bool {
    x & F::EXP_MASK == F::EXP_MASK
}

/// Shift right by `d`, OR-ing every lost bit into bit 0 (keeps a round-to-odd description).
#[inline]
pub(crate) fn shr_jam128(x: u128, d: u32) -> u128 {
    if d == 0 {
        x
    } else if d < 128 {
        (x >> d) | ((x << (128 - d)) != 0) as u128
    } else {
        (x != 0) as u128
    }
}

/// `a + b`.
pub fn add<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if non_finite::<F>(a) || non_finite::<F>(b) {
        if F::is_nan(a) || F::is_nan(b) {
            return propagate::<F>(&[a, b]);
        }
        if F::is_inf(a) && F::is_inf(b) && F::sign(a) != F::sign(b) {
            return F::CANONICAL_NAN; // inf - inf: invalid
        }
        return if F::is_inf(a) { a } else { b };
    }
    let (sa, ma, ea) = F::unpack(a);
    let (sb, mb, eb) = F::unpack(b);
    if ma == 0 || mb == 0 {
        return match (ma == 0, mb == 0) {
            (true, true) => F::zero(mode.zero_sum_sign(sa, sb)),
            (true, false) => b, // exact: 0 + b = b
            _ => a,
        };
    }
    // hi has the larger exponent; place its significand at bit 64 so that a partner up to
    // 64 binades lower is aligned exactly; further down it is jammed, and then hi's 64 zero
    // low bits keep the sum odd and with >= 64 - 53 + 53 bits: a valid RO description.
    let ((sh, mh, eh), (sl, ml, el)) = if ea >= eb {
        ((sa, ma, ea), (sb, mb, eb))
    } else {
        ((sb, mb, eb), (sa, ma, ea))
    };
    let hi = (mh as u128) << 64;
    let lo = shr_jam128((ml as u128) << 64, (eh - el) as u32);
    let exp = eh - 64;
    if sh == sl {
        return round_odd_wide::<F>(sh, exp, hi + lo, mode);
    }
    match hi.cmp(&lo) {
        std::cmp::Ordering::Greater => round_odd_wide::<F>(sh, exp, hi - lo, mode),
        std::cmp::Ordering::Less => round_odd_wide::<F>(sl, exp, lo - hi, mode),
        // Exact cancellation (only possible when nothing was jammed).
        std::cmp::Ordering::Equal => F::zero(mode.zero_sum_sign(sh, sl)),
    }
}

/// `a - b` = `a + (-b)` (IEEE 754-2019 5.4.1), NaN operands aside.
pub fn sub<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if F::is_nan(b) {
        return propagate::<F>(&[a, b]);
    }
    add::<F>(a, b ^ F::SIGN_MASK, mode)
}

/// `a * b`.
pub fn mul<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    let sign = F::sign(a) != F::sign(b);
    if non_finite::<F>(a) || non_finite::<F>(b) {
        if F::is_nan(a) || F::is_nan(b) {
            return propagate::<F>(&[a, b]);
        }
        if F::is_zero(a) || F::is_zero(b) {
            return F::CANONICAL_NAN; // inf * 0: invalid
        }
        return F::inf(sign);
    }
    let (_, ma, ea) = F::unpack(a);
    let (_, mb, eb) = F::unpack(b);
    // The product of two PREC-bit significands is exact in 2 * PREC <= 106 bits.
    round_odd_wide::<F>(sign, ea + eb, ma as u128 * mb as u128, mode)
}

/// `a * b + c` with a single rounding.
pub fn fma<F: Format>(a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    let sp = F::sign(a) != F::sign(b);
    let sc = F::sign(c);
    if non_finite::<F>(a) || non_finite::<F>(b) || non_finite::<F>(c) {
        if F::is_nan(a) || F::is_nan(b) || F::is_nan(c) {
            return propagate::<F>(&[a, b, c]);
        }
        let p_inf = F::is_inf(a) || F::is_inf(b);
        if p_inf && (F::is_zero(a) || F::is_zero(b)) {
            return F::CANONICAL_NAN; // inf * 0: invalid
        }
        if p_inf && F::is_inf(c) && sp != sc {
            return F::CANONICAL_NAN; // inf - inf: invalid
        }
        return if p_inf { F::inf(sp) } else { c };
    }
    let (_, ma, ea) = F::unpack(a);
    let (_, mb, eb) = F::unpack(b);
    let (_, mc, ec) = F::unpack(c);
    let p = ma as u128 * mb as u128;
    if p == 0 {
        // Exact zero product: the sum is c, or a signed zero by the zero-sum rule.
        return if mc == 0 { F::zero(mode.zero_sum_sign(sp, sc)) } else { c };
    }
    if mc == 0 {
        return round_odd_wide::<F>(sp, ea + eb, p, mode);
    }
    // Normalise both to a leading bit at 125 (two bits of headroom for the carry). Then p
    // (<= 106 bits) has >= 19 zero low bits, c (<= 53 bits) >= 72: the lower one is jammed
    // only when shifted by more than 19, where the higher one is even and the sum keeps
    // >= 124 bits: a valid round-to-odd description.
    let lp = p.leading_zeros() - 2;
    let (p, ep) = (p << lp, ea + eb - lp as i32);
    let lc = (mc as u128).leading_zeros() - 2;
    let (cw, ec) = ((mc as u128) << lc, ec - lc as i32);
    let ((sh, hi, eh), (sl, lo, el)) = if ep >= ec {
        ((sp, p, ep), (sc, cw, ec))
    } else {
        ((sc, cw, ec), (sp, p, ep))
    };
    let d = (eh - el).min(200) as u32;
    let lo = shr_jam128(lo, d);
    if sh == sl {
        return round_odd_wide::<F>(sh, eh, hi + lo, mode);
    }
    match hi.cmp(&lo) {
        std::cmp::Ordering::Greater => round_odd_wide::<F>(sh, eh, hi - lo, mode),
        std::cmp::Ordering::Less => round_odd_wide::<F>(sl, eh, lo - hi, mode),
        std::cmp::Ordering::Equal => F::zero(mode.zero_sum_sign(sh, sl)),
    }
}

/// Normalise a nonzero significand to a leading bit at bit 63: (sig, exp) with the value kept.
#[inline]
fn normalize64(m: u64, e: i32) -> (u64, i32) {
    let lz = m.leading_zeros();
    (m << lz, e - lz as i32)
}

/// `a / b`.
pub fn div<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    let sign = F::sign(a) != F::sign(b);
    if F::is_nan(a) || F::is_nan(b) {
        return propagate::<F>(&[a, b]);
    }
    match (F::is_inf(a), F::is_inf(b)) {
        (true, true) => return F::CANONICAL_NAN, // inf / inf: invalid
        (true, false) => return F::inf(sign),
        (false, true) => return F::zero(sign),
        _ => {}
    }
    match (F::is_zero(a), F::is_zero(b)) {
        (true, true) => return F::CANONICAL_NAN, // 0 / 0: invalid
        (true, false) => return F::zero(sign),
        (false, true) => return F::inf(sign), // division by zero
        _ => {}
    }
    let (_, ma, ea) = F::unpack(a);
    let (_, mb, eb) = F::unpack(b);
    let (ma, ea) = normalize64(ma, ea);
    let (mb, eb) = normalize64(mb, eb);
    // (ma * 2^64) / mb is in (2^63, 2^65): >= 64 quotient bits, remainder jammed.
    let n = (ma as u128) << 64;
    let q = n / mb as u128;
    let rem = n - q * mb as u128;
    round_odd_wide::<F>(sign, ea - eb - 64, q | (rem != 0) as u128, mode)
}

/// `sqrt(a)`; `sqrt(-0) = -0` (IEEE 754-2019 5.4.1).
pub fn sqrt<F: Format>(a: u64, mode: Rounding) -> u64 {
    if F::is_nan(a) {
        return F::quiet(a);
    }
    if F::is_zero(a) {
        return a;
    }
    if F::sign(a) {
        return F::CANONICAL_NAN; // negative: invalid
    }
    if F::is_inf(a) {
        return a;
    }
    let (_, m, e) = F::unpack(a);
    // n = m * 2^k with its leading bit at 125 or 126 and e - k even: sqrt(n) has 63 bits.
    let lz = (m as u128).leading_zeros();
    let mut k = lz as i32 - 2;
    if (e - k) & 1 != 0 {
        k -= 1;
    }
    let n = (m as u128) << k;
    let s = n.isqrt();
    let rem = n - s * s;
    round_odd::<F>(false, (e - k) / 2, s as u64 | (rem != 0) as u64, mode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F16, F32, F64};
    use Rounding::*;

    fn f32b(x: f32) -> u64 {
        x.to_bits() as u64
    }

    /// 2^e exactly, subnormals included (`powi` is not exact in debug builds: it computes
    /// 2^-e first, which overflows for tiny results).
    fn p2(e: i32) -> f32 {
        if e >= -126 {
            f32::from_bits(((e + 127) as u32) << 23)
        } else {
            f32::from_bits(1 << (e + 149))
        }
    }

    #[test]
    fn exact_ops_agree_with_host_rn_on_simple_values() {
        assert_eq!(add::<F32>(f32b(1.5), f32b(2.25), Rn), f32b(3.75));
        assert_eq!(sub::<F32>(f32b(1.0), f32b(3.0), Rn), f32b(-2.0));
        assert_eq!(mul::<F32>(f32b(0.1), f32b(3.0), Rn), f32b(0.1 * 3.0));
        assert_eq!(div::<F32>(f32b(1.0), f32b(3.0), Rn), f32b(1.0 / 3.0));
        assert_eq!(sqrt::<F32>(f32b(2.0), Rn), f32b(2f32.sqrt()));
        assert_eq!(fma::<F32>(f32b(0.1), f32b(10.0), f32b(-1.0), Rn), f32b(0.1f32.mul_add(10.0, -1.0)));
        let third = 1.0f64 / 3.0;
        assert_eq!(div::<F64>(F64::ONE, 3f64.to_bits(), Rn), third.to_bits());
        assert_eq!(div::<F64>(F64::ONE, 3f64.to_bits(), Rp), third.to_bits() + 1);
    }

    #[test]
    fn add_far_apart_jams_the_small_operand() {
        // 1 + 2^-100: rp goes one ulp up, rz stays at 1; the same with a negative small one.
        let tiny = p2(-100);
        assert_eq!(add::<F32>(f32b(1.0), f32b(tiny), Rp), f32b(1.0) + 1);
        assert_eq!(add::<F32>(f32b(1.0), f32b(tiny), Rz), f32b(1.0));
        assert_eq!(add::<F32>(f32b(1.0), f32b(-tiny), Rz), f32b(1.0) - 1);
        assert_eq!(add::<F32>(f32b(1.0), f32b(-tiny), Rn), f32b(1.0));
    }

    #[test]
    fn fma_far_apart_and_cancelling() {
        // a*b = 1 + 2^-23 + 2^-46 exactly... use (1+2^-12)^2 = 1 + 2^-11 + 2^-24, minus 1.
        let x = f32b(1.0 + p2(-12));
        assert_eq!(fma::<F32>(x, x, f32b(-1.0), Rn), f32b(p2(-11) + p2(-24)));
        // c far below the product: only its sign matters for directed modes.
        let tiny = f32b(p2(-140));
        assert_eq!(fma::<F32>(f32b(1.0), f32b(1.0), tiny, Rp), f32b(1.0) + 1);
        assert_eq!(fma::<F32>(f32b(1.0), f32b(1.0), tiny | F32::SIGN_MASK, Rz), f32b(1.0) - 1);
        // Product far below c.
        assert_eq!(fma::<F32>(tiny, tiny, f32b(-1.0), Rm), f32b(-1.0));
        assert_eq!(fma::<F32>(tiny, tiny, f32b(-1.0), Rz), f32b(-1.0) - 1);
    }

    #[test]
    fn div_and_sqrt_of_subnormals() {
        // f16: min subnormal / 2 = half of it: tie to even -> 0 in rn; rp -> min subnormal.
        let two = 0x4000;
        assert_eq!(div::<F16>(0x0001, two, Rn), 0);
        assert_eq!(div::<F16>(0x0001, two, Rp), 1);
        // sqrt(2^-24) = 2^-12 exactly.
        assert_eq!(sqrt::<F16>(0x0001, Rn), 0x0c00);
        // sqrt of the f64 min subnormal 2^-1074 = 2^-537.
        assert_eq!(sqrt::<F64>(1, Rz), f64::from_bits(((1023 - 537) as u64) << 52).to_bits());
    }

    #[test]
    fn shr_jam_keeps_lost_bits_sticky() {
        assert_eq!(shr_jam128(0b1011, 2), 0b11);
        assert_eq!(shr_jam128(0b1000, 2), 0b10);
        assert_eq!(shr_jam128(1, 300), 1);
        assert_eq!(shr_jam128(0, 300), 0);
    }
}
