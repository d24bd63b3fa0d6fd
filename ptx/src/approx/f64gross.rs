//! rcp.approx.ftz.f64 (9.7.3.14) and rsqrt.approx.ftz.f64 (9.7.3.17): "gross"
//! approximations on the upper word of the operand, followed to the bit.
//!
//! Semantics: `tmp = a[63:32]` (1.11.20 format, the low word ignored), `d[63:32] = 1.0/tmp`
//! (or `1.0/sqrt(tmp)`), `d[31:0] = 0`; subnormal inputs and results flushed to
//! sign-preserving zero; input NaNs (of the upper word) give exactly `0x7fffffff00000000`.
//! An upper word of `0x7ff00000` is infinity whatever the low word.
//!
//! The spec gives no error bound for these approximations, so the model decides:
//! - special inputs (the 9.7.3.14/17 tables) are exact;
//! - otherwise the expectation is [`Outcome::Unbounded`] with `zero_mask = 0xffffffff`:
//!   any result whose low word is zero is accepted (the one thing the spec fixes), and the
//!   reference recorded is `1/tmp` (`1/sqrt(tmp)`) correctly rounded to 1.11.20 (21
//!   significant bits), flushed, low word zero; a comparison reports the distance;
//! - rsqrt of a negative normal (not in the table; `1/sqrt` of a negative is NaN) expects
//!   the gross canonical NaN, with "any NaN" as the [`Reading::NanUnspecified`] alternative,
//!   since the spec names that encoding for input NaNs only; likewise `-Inf`.

use arrayvec::ArrayVec;

use crate::format::{Format, F64};
use crate::expect::{LaneExpectation, Outcome, Reading};

/// The NaN the gross forms return for an input NaN (9.7.3.14, 9.7.3.17).
pub const GROSS_NAN: u64 = 0x7fff_ffff_0000_0000;
/// The bits the spec fixes to zero: `d[31:0] = 0x00000000`.
pub const LOW_WORD: u64 = 0xffff_ffff;
/// Significant bits of the 1.11.20 format (20 fraction bits and the hidden bit).
const PREC: u32 = 21;

/// The operand as the instruction sees it: the upper word, low word zero.
#[inline]
pub fn upper(a: u64) -> u64 {
    a & !LOW_WORD
}

/// NaN lane for a NaN that is not an input NaN (rsqrt of -inf or a negative normal).
pub fn invalid_nan() -> LaneExpectation {
    LaneExpectation { primary: Outcome::Bits(GROSS_NAN), alternatives: ArrayVec::new() }
        .or(Outcome::AnyNan, Reading::NanUnspecified)
}

/// Round sig * 2^exp (sig > 0, `sticky` = nonzero bits below sig) to `PREC` bits, nearest-even,
/// and pack as an f64 (low word zero by construction); a subnormal result flushes to zero.
fn pack(negative: bool, sig: u128, exp: i32, sticky: bool) -> u64 {
    let width = 128 - sig.leading_zeros();
    let drop = width - PREC;
    let mut n = (sig >> drop) as u64;
    let rem = sig & ((1u128 << drop) - 1);
    let half = 1u128 << (drop - 1);
    if rem > half || (rem == half && (sticky || n & 1 == 1)) {
        n += 1;
    }
    let mut e = exp + drop as i32; // value = n * 2^e, n in [2^20, 2^21]
    if n == 1 << PREC {
        n >>= 1;
        e += 1;
    }
    let unbiased = e + (PREC as i32 - 1); // exponent of the leading bit
    let sign = F64::zero(negative);
    if unbiased < F64::EMIN {
        // 9.7.3.14: "Subnormal inputs and results are flushed to sign-preserving zero."
        return sign;
    }
    debug_assert!(unbiased <= F64::EMAX, "1/tmp of a normal tmp never overflows");
    let field = (unbiased + F64::BIAS) as u64;
    sign | field << 52 | (n & ((1 << (PREC - 1)) - 1)) << (52 - (PREC - 1))
}

/// 1/tmp rounded to 1.11.20, for a normal upper word `tmp` (low word zero).
pub fn rcp_reference(tmp: u64) -> u64 {
    let (neg, sig, exp) = F64::unpack(tmp);
    // sig = m * 2^32 with m the 21-bit significand of the upper word.
    let m = (sig >> 32) as u128;
    let e = exp + 32; // tmp = m * 2^e
    let num = 1u128 << 100;
    let q = num / m;
    let r = num % m;
    // 1/tmp = (2^100 / m) * 2^(-100 - e)
    pack(neg, q, -100 - e, r != 0)
}

/// 1/sqrt(tmp) rounded to 1.11.20, for a positive normal upper word `tmp`.
pub fn rsqrt_reference(tmp: u64) -> u64 {
    let (_, sig, exp) = F64::unpack(tmp);
    let mut m = (sig >> 32) as u128;
    let mut e = exp + 32;
    if e % 2 != 0 {
        m <<= 1;
        e -= 1;
    }
    // 1/sqrt(m 2^e) = sqrt(2^K / m) * 2^(-K/2 - e/2); K even, 2^K/m ~ 2^(K-22) gives
    // ~ (K-22)/2 bits of root.
    const K: u32 = 120;
    let x = (1u128 << K) / m;
    let s = isqrt(x);
    // floor(sqrt(floor(X))) = floor(sqrt(X)); exact only if s^2 m = 2^K.
    let sticky = s * s * m != 1u128 << K;
    pack(false, s, -(K as i32) / 2 - e / 2, sticky)
}

/// Integer square root, floor.
fn isqrt(x: u128) -> u128 {
    let mut s = (x as f64).sqrt() as u128;
    while s * s > x {
        s -= 1;
    }
    while (s + 1) * (s + 1) <= x {
        s += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(bits: u64) -> f64 {
        f64::from_bits(bits)
    }

    #[test]
    fn references_are_exact_for_powers_of_two() {
        assert_eq!(rcp_reference(2f64.to_bits()), 0.5f64.to_bits());
        assert_eq!(rcp_reference((-0.25f64).to_bits()), (-4.0f64).to_bits());
        assert_eq!(rsqrt_reference(4f64.to_bits()), 0.5f64.to_bits());
        assert_eq!(rsqrt_reference(0.25f64.to_bits()), 2f64.to_bits());
    }

    #[test]
    fn references_have_a_zero_low_word_and_21_bits() {
        for tmp in [3.0f64, 1.0 / 3.0, 1e300, 7e-300, 123456.789] {
            let t = upper(tmp.to_bits());
            for r in [rcp_reference(t), rsqrt_reference(t)] {
                assert_eq!(r & LOW_WORD, 0, "{tmp}");
            }
            // Within half an ulp of 1.11.20 (2^-21 relative) of the f64 value.
            let exact = 1.0 / f(t);
            assert!(((f(rcp_reference(t)) - exact) / exact).abs() <= 2f64.powi(-21), "{tmp}");
            let exact = core_math::rsqrt(f(t));
            assert!(((f(rsqrt_reference(t)) - exact) / exact).abs() <= 2f64.powi(-21), "{tmp}");
        }
    }

    #[test]
    fn reference_rounds_to_nearest_in_1_11_20() {
        // 1/3: 0x3fd5555555555555 -> 21 bits: 1.0101...01|0101.. rounds down.
        assert_eq!(rcp_reference(3f64.to_bits()), 0x3fd5_5555_0000_0000);
        // 1/1.5 = 0.101010...: 0x3fe5555555555555 -> rounds down to 0x3fe55555 at 20 fraction bits.
        assert_eq!(rcp_reference(1.5f64.to_bits()), 0x3fe5_5555_0000_0000);
        // 1/(1+2^-20): 1 - 2^-20 + 2^-40 ...: in [0.5,1) the ulp is 2^-21, so 1 - 2^-20 exactly.
        let t = (1.0 + 2f64.powi(-20)).to_bits();
        assert_eq!(f(rcp_reference(t)), 1.0 - 2f64.powi(-20));
    }

    #[test]
    fn tiny_results_flush_to_signed_zero() {
        // 1/2^1023 = 2^-1023 is subnormal in f64: flushed.
        assert_eq!(rcp_reference(2f64.powi(1023).to_bits()), 0);
        assert_eq!(rcp_reference((-2f64.powi(1023)).to_bits()), 0x8000_0000_0000_0000);
        assert_eq!(rcp_reference(2f64.powi(1022).to_bits()), 2f64.powi(-1022).to_bits());
    }
}
