//! Exact values and correctly rounded results of the approximated functions, from CORE-MATH
//! (correctly rounded binary32 and binary64 functions) and IEEE-754 basic operations; never
//! the host libm.
//!
//! - [`exact`]: the function value at an input, as the correctly rounded f64 (CORE-MATH's
//!   binary64 functions; `1/x`, `a/b` and `sqrt` are IEEE basic operations, also correctly
//!   rounded). Its error is at most 2^-53 relative, 2^29 times finer than an f32 ulp: enough
//!   to place f32 and half bounds, see `accept.rs` for how borderline cases are decided.
//! - [`correctly_rounded`]: the result rounded to nearest in the lane format. binary32 comes
//!   straight from CORE-MATH's binary32 functions (or the IEEE f32 operation), so no double
//!   rounding. f16 and bf16 round the f64 value once more; that is exact unless the f64
//!   value sits exactly on a half-way point of the narrow format, which an exhaustive test
//!   shows never happens for ex2 and tanh on any f16 or bf16 input.

use super::Func;
use crate::format::{Format, F32};

/// A power of two as an exact f64 (normal range).
#[inline]
pub(crate) fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// The exact value of a lane in `F` as an f64 (every f16, bf16, f32 value converts exactly).
#[inline]
pub(crate) fn to_f64<F: Format>(bits: u64) -> f64 {
    match F::BITS {
        64 => f64::from_bits(bits),
        32 => f32::from_bits(bits as u32) as f64,
        _ => {
            if F::is_nan(bits) {
                return f64::NAN;
            }
            let v = if F::is_inf(bits) {
                f64::INFINITY
            } else {
                let (_, sig, e) = F::unpack(bits);
                sig as f64 * pow2(e)
            };
            if F::sign(bits) {
                -v
            } else {
                v
            }
        }
    }
}

/// The function value at `x` to f64 precision (correctly rounded f64).
#[inline]
pub(crate) fn exact(func: Func, x: f64) -> f64 {
    match func {
        // IEEE-754 division: correctly rounded.
        Func::Rcp | Func::RcpGross => 1.0 / x,
        // IEEE-754 square root: correctly rounded.
        Func::Sqrt => x.sqrt(),
        Func::Rsqrt | Func::RsqrtGross => core_math::rsqrt(x),
        Func::Sin => core_math::sin(x),
        Func::Cos => core_math::cos(x),
        Func::Lg2 => core_math::log2(x),
        Func::Ex2 => core_math::exp2(x),
        Func::Tanh => core_math::tanh(x),
        Func::DivApprox | Func::DivFull => unreachable!("division takes two operands: use exact_div"),
    }
}

/// a / b to f64 precision (f32 operands: the f64 quotient is correctly rounded).
#[inline]
pub(crate) fn exact_div(a: f64, b: f64) -> f64 {
    a / b
}

/// The binary32 result rounded to nearest.
#[inline]
pub(crate) fn correctly_rounded_f32(func: Func, x: f32) -> f32 {
    match func {
        Func::Rcp => 1.0 / x,
        Func::Sqrt => x.sqrt(),
        Func::Rsqrt => core_math::rsqrtf(x),
        Func::Sin => core_math::sinf(x),
        Func::Cos => core_math::cosf(x),
        Func::Lg2 => core_math::log2f(x),
        Func::Ex2 => core_math::exp2f(x),
        Func::Tanh => core_math::tanhf(x),
        Func::RcpGross | Func::RsqrtGross | Func::DivApprox | Func::DivFull => {
            unreachable!("not a binary32 unary function")
        }
    }
}

/// The result of `func` at the lane value `x`, rounded to nearest-even in `F`.
#[inline]
pub(crate) fn correctly_rounded<F: Format>(func: Func, x: u64) -> u64 {
    if F::BITS == 32 {
        correctly_rounded_f32(func, f32::from_bits(x as u32)).to_bits() as u64
    } else {
        round_nearest::<F>(exact(func, to_f64::<F>(x)))
    }
}

/// a / b in f32, rounded to nearest-even (the IEEE f32 division).
#[inline]
pub(crate) fn correctly_rounded_div(a: u64, b: u64) -> u64 {
    (f32::from_bits(a as u32) / f32::from_bits(b as u32)).to_bits() as u64
}

/// `v` rounded to nearest-even in `F` (overflow to infinity, gradual underflow); a NaN
/// gives `F`'s canonical NaN.
#[inline]
pub(crate) fn round_nearest<F: Format>(v: f64) -> u64 {
    if F::BITS == 32 {
        // Rust's f64 -> f32 conversion rounds to nearest-even, subnormals included.
        return (v as f32).to_bits() as u64;
    }
    if F::BITS == 64 {
        return v.to_bits();
    }
    if v.is_nan() {
        return F::CANONICAL_NAN;
    }
    let sign = if v.is_sign_negative() { F::SIGN_MASK } else { 0 };
    if v.is_infinite() {
        return sign | F::INF;
    }
    let bits = v.to_bits();
    let e_field = ((bits >> 52) & 0x7ff) as i32;
    if e_field == 0 {
        // Zero or an f64 subnormal: far below half the smallest subnormal of any 16-bit format.
        return sign;
    }
    let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let e = e_field - 1023; // v = m * 2^(e - 52)
    // Quantum of the result: 2^(q) with q = max(e, EMIN) - FRAC_BITS.
    let q = e.max(F::EMIN) - F::FRAC_BITS as i32;
    let shift = (q - (e - 52)) as u32; // bits of m below the quantum, >= 52 - FRAC_BITS
    if shift >= 64 {
        return sign;
    }
    let mut n = m >> shift;
    let rem = m & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rem > half || (rem == half && n & 1 == 1) {
        n += 1;
    }
    // Encoding with the quantum's exponent: ((E + BIAS - 1) << FRAC) + n covers normal,
    // subnormal (E = EMIN) and a carry into the next binade alike.
    let base = ((q + F::FRAC_BITS as i32 + F::BIAS - 1) as u64) << F::FRAC_BITS;
    let mag = base + n;
    sign | mag.min(F::INF)
}

/// Whether `F` is binary32 (the fast paths).
#[inline]
pub(crate) fn is_f32<F: Format>() -> bool {
    F::BITS == F32::BITS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{BF16, F16};

    #[test]
    fn round_nearest_matches_f32_conversion_for_narrow_formats_on_exact_values() {
        // Every f16 value converts to f64 and back unchanged.
        for bits in 0..=0xffffu64 {
            if F16::is_nan(bits) {
                continue;
            }
            assert_eq!(round_nearest::<F16>(to_f64::<F16>(bits)), bits, "{bits:#x}");
            assert_eq!(round_nearest::<BF16>(to_f64::<BF16>(bits)), bits, "{bits:#x}");
        }
    }

    #[test]
    fn round_nearest_ties_to_even_and_overflows_and_underflows() {
        // 1 + 2^-11 is half-way between f16 1.0 and 1 + 2^-10: ties to even (1.0).
        assert_eq!(round_nearest::<F16>(1.0 + pow2(-11)), 0x3c00);
        assert_eq!(round_nearest::<F16>(1.0 + 3.0 * pow2(-11)), 0x3c02);
        assert_eq!(round_nearest::<F16>(65504.0), 0x7bff);
        assert_eq!(round_nearest::<F16>(65519.99), 0x7bff);
        assert_eq!(round_nearest::<F16>(65520.0), 0x7c00);
        // Smallest f16 subnormal 2^-24: half of it ties to 0, a bit more rounds up.
        assert_eq!(round_nearest::<F16>(pow2(-25)), 0);
        assert_eq!(round_nearest::<F16>(pow2(-25) * 1.0001), 1);
        assert_eq!(round_nearest::<F16>(-pow2(-25) * 3.0), 0x8002);
        // Largest subnormal rounding up into the normal range.
        assert_eq!(round_nearest::<F16>(pow2(-14) * (1.0 - pow2(-12))), 0x0400);
        assert_eq!(round_nearest::<BF16>(1.0 + pow2(-8)), 0x3f80);
        assert_eq!(round_nearest::<BF16>(-(1.0 + 3.0 * pow2(-8))), 0xbf82);
        assert_eq!(round_nearest::<BF16>(1e-300), 0);
    }

    #[test]
    fn f32_reference_comes_from_core_math_and_ieee_operations() {
        assert_eq!(correctly_rounded::<F32>(Func::Ex2, 0x4000_0000), 0x4080_0000); // 2^2 = 4
        assert_eq!(correctly_rounded::<F32>(Func::Lg2, 0x4100_0000), 0x4040_0000); // lg2 8 = 3
        assert_eq!(correctly_rounded::<F32>(Func::Rcp, 0x4000_0000), 0x3f00_0000);
        assert_eq!(correctly_rounded::<F32>(Func::Rsqrt, 0x4080_0000), 0x3f00_0000);
        assert_eq!(exact(Func::Sqrt, 2.0), std::f64::consts::SQRT_2);
        assert_eq!(correctly_rounded_div(0x3f80_0000, 0x4040_0000), (1.0f32 / 3.0).to_bits() as u64);
    }
}
