//! Exact big-integer IEEE arithmetic written for the tests: every result is computed exactly
//! (value = mag * 2^exp, plus a sticky remainder for div and sqrt) and rounded once.
//!
//! This is the oracle's square root, and a second, independent implementation of
//! add/sub/mul/fma/div that cross-checks `rustc_apfloat` (see `tests` below and `apf.rs`).
//! Nothing here is shared with `ptx::softfloat`.

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, Signed, Zero};
use ptx::{Format, Rounding};

/// A finite value (-1)^neg * (mag + sticky) * 2^exp, where `sticky` stands for a positive
/// amount strictly below 1 (a nonzero remainder of a division or square root).
#[derive(Clone, Debug)]
pub struct Exact {
    pub neg: bool,
    pub mag: BigUint,
    pub exp: i64,
    pub sticky: bool,
}

/// Round an exact value to the format `F` (IEEE 754 section 4.3, with gradual underflow).
/// A zero magnitude without sticky gives a zero of the value's sign; the caller decides
/// that sign where IEEE's exact-zero rules apply.
pub fn round<F: Format>(x: &Exact, mode: Rounding) -> u64 {
    let sign = if x.neg { F::SIGN_MASK } else { 0 };
    if x.mag.is_zero() && !x.sticky {
        return sign;
    }
    let frac = F::FRAC_BITS as i64;
    let emin_quantum = F::EMIN as i64 - frac; // exponent of the subnormal quantum
    // Quantum of the result: PREC bits below the leading bit, never below the subnormal one.
    let top = if x.mag.is_zero() { x.exp - 1 } else { x.exp + x.mag.bits() as i64 - 1 };
    let q = (top - frac).max(emin_quantum);
    let shift = q - x.exp;
    let (mut kept, rem_cmp_half, inexact) = if shift <= 0 {
        assert!(!x.sticky, "exact::round: a sticky remainder needs guard bits below the quantum");
        (&x.mag << ((-shift) as usize), std::cmp::Ordering::Less, false)
    } else {
        let s = shift as usize;
        let kept = &x.mag >> s;
        let rem = &x.mag - (&kept << s);
        let half = BigUint::one() << (s - 1);
        // The sticky part is below one unit of `rem`, so it only breaks a tie.
        let cmp = rem.cmp(&half).then(if x.sticky { std::cmp::Ordering::Greater } else { std::cmp::Ordering::Equal });
        let inexact = !rem.is_zero() || x.sticky;
        (kept, cmp, inexact)
    };
    let up = match mode {
        Rounding::Rn => match rem_cmp_half {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => kept.bit(0),
            std::cmp::Ordering::Less => false,
        },
        Rounding::Rz => false,
        Rounding::Rm => inexact && x.neg,
        Rounding::Rp => inexact && !x.neg,
    };
    if up {
        kept += 1u32;
    }
    let mut q = q;
    if kept.bits() as i64 > frac + 1 {
        // Rounding carried into a new leading bit: 1.11..1 -> 10.00..0.
        kept >>= 1usize;
        q += 1;
    }
    let kept: u64 = u64::try_from(&kept).expect("significand fits in 64 bits");
    if kept < F::MIN_NORMAL {
        // Subnormal or zero: the quantum is the subnormal one and the encoding is the significand.
        debug_assert_eq!(q, emin_quantum);
        return sign | kept;
    }
    let biased = q + frac + F::BIAS as i64;
    if biased >= (1 << F::EXP_BITS) - 1 {
        return sign | overflow::<F>(x.neg, mode);
    }
    sign | ((biased as u64) << F::FRAC_BITS) | (kept & F::FRAC_MASK)
}

/// IEEE 754 section 7.4: an overflowing result is infinity or the largest finite number,
/// depending on the rounding direction and sign.
fn overflow<F: Format>(neg: bool, mode: Rounding) -> u64 {
    let to_inf = match mode {
        Rounding::Rn => true,
        Rounding::Rz => false,
        Rounding::Rm => neg,
        Rounding::Rp => !neg,
    };
    if to_inf {
        F::INF
    } else {
        F::MAX_FINITE
    }
}

/// A finite operand as a signed big integer times a power of two.
fn value<F: Format>(bits: u64) -> (BigInt, i64) {
    let (neg, sig, exp) = F::unpack(bits);
    let m = BigInt::from(sig);
    (if neg { -m } else { m }, exp as i64)
}

fn from_signed(v: BigInt, exp: i64) -> Exact {
    Exact { neg: v.sign() == Sign::Minus, mag: v.abs().to_biguint().expect("abs"), exp, sticky: false }
}

/// The NaN this module returns for invalid operations and NaN operands: the comparison
/// with other implementations goes by NaN-ness only.
fn nan<F: Format>() -> u64 {
    F::CANONICAL_NAN
}

/// IEEE 754 section 6.3: the sign of an exact zero sum of operands of opposite signs (or of
/// a nonzero sum that cancelled) is + except in roundTowardNegative.
fn zero_sum_sign(mode: Rounding) -> bool {
    mode == Rounding::Rm
}

/// x + y over finite operands, the exact-zero sign rule applied.
fn add_finite<F: Format>(x: (BigInt, i64), y: (BigInt, i64), xz: Option<bool>, yz: Option<bool>, mode: Rounding) -> u64 {
    let e = x.1.min(y.1);
    let sum = (x.0 << (x.1 - e) as usize) + (y.0 << (y.1 - e) as usize);
    if sum.is_zero() {
        // Both zeros of one sign keep it; anything else that sums to zero is +0 (-0 in .rm).
        let neg = match (xz, yz) {
            (Some(a), Some(b)) if a == b => a,
            _ => zero_sum_sign(mode),
        };
        return F::zero(neg);
    }
    round::<F>(&from_signed(sum, e), mode)
}

/// `Some(sign)` when the operand is a zero.
fn zero_sign<F: Format>(bits: u64) -> Option<bool> {
    F::is_zero(bits).then(|| F::sign(bits))
}

pub fn add<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if F::is_nan(a) || F::is_nan(b) {
        return nan::<F>();
    }
    match (F::is_inf(a), F::is_inf(b)) {
        (true, true) if F::sign(a) != F::sign(b) => return nan::<F>(),
        (true, _) => return a,
        (_, true) => return b,
        _ => {}
    }
    add_finite::<F>(value::<F>(a), value::<F>(b), zero_sign::<F>(a), zero_sign::<F>(b), mode)
}

pub fn sub<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if F::is_nan(b) {
        return nan::<F>();
    }
    add::<F>(a, b ^ F::SIGN_MASK, mode)
}

pub fn mul<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if F::is_nan(a) || F::is_nan(b) {
        return nan::<F>();
    }
    let neg = F::sign(a) != F::sign(b);
    if F::is_inf(a) || F::is_inf(b) {
        if F::is_zero(a) || F::is_zero(b) {
            return nan::<F>();
        }
        return F::inf(neg);
    }
    let (x, ex) = value::<F>(a);
    let (y, ey) = value::<F>(b);
    let p = x * y;
    if p.is_zero() {
        return F::zero(neg);
    }
    round::<F>(&from_signed(p, ex + ey), mode)
}

/// a * b + c with one rounding.
pub fn fma<F: Format>(a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    if F::is_nan(a) || F::is_nan(b) || F::is_nan(c) {
        return nan::<F>();
    }
    let pneg = F::sign(a) != F::sign(b);
    let pinf = F::is_inf(a) || F::is_inf(b);
    if pinf && (F::is_zero(a) || F::is_zero(b)) {
        return nan::<F>();
    }
    if pinf {
        if F::is_inf(c) && F::sign(c) != pneg {
            return nan::<F>();
        }
        return F::inf(pneg);
    }
    if F::is_inf(c) {
        return c;
    }
    let (x, ex) = value::<F>(a);
    let (y, ey) = value::<F>(b);
    let p = x * y;
    let pz = p.is_zero().then_some(pneg);
    add_finite::<F>((p, ex + ey), value::<F>(c), pz, zero_sign::<F>(c), mode)
}

pub fn div<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if F::is_nan(a) || F::is_nan(b) {
        return nan::<F>();
    }
    let neg = F::sign(a) != F::sign(b);
    match (F::is_inf(a), F::is_inf(b), F::is_zero(a), F::is_zero(b)) {
        (true, true, _, _) | (_, _, true, true) => return nan::<F>(),
        (true, _, _, _) | (_, _, _, true) => return F::inf(neg),
        (_, true, _, _) | (_, _, true, _) => return F::zero(neg),
        _ => {}
    }
    let (_, sa, ea) = F::unpack(a);
    let (_, sb, eb) = F::unpack(b);
    // Enough quotient bits for a full significand plus guard bits, even for subnormal operands.
    let k = (2 * F::PREC + 4) as usize;
    let num = BigUint::from(sa) << k;
    let den = BigUint::from(sb);
    let q = &num / &den;
    let r = num - &q * &den;
    let x = Exact { neg, mag: q, exp: ea as i64 - eb as i64 - k as i64, sticky: !r.is_zero() };
    round::<F>(&x, mode)
}

/// IEEE 754 squareRoot: sqrt(-0) = -0, sqrt(x < 0) = NaN.
pub fn sqrt<F: Format>(a: u64, mode: Rounding) -> u64 {
    if F::is_nan(a) {
        return nan::<F>();
    }
    if F::is_zero(a) {
        return a;
    }
    if F::sign(a) {
        return nan::<F>();
    }
    if F::is_inf(a) {
        return a;
    }
    let (_, sig, exp) = F::unpack(a);
    let (mut m, mut e) = (BigUint::from(sig), exp as i64);
    if e % 2 != 0 {
        m <<= 1usize;
        e -= 1;
    }
    // Scale by 4^k so the root has at least PREC + 2 bits whatever the operand's precision.
    let k = (F::PREC + 4) as usize;
    m <<= 2 * k;
    e -= 2 * k as i64;
    let r = m.sqrt();
    let sticky = &r * &r != m;
    round::<F>(&Exact { neg: false, mag: r, exp: e / 2, sticky }, mode)
}

// Run by the oracle binary only (see `self_tests!` in oracle.rs).
self_tests! {
#[cfg(test)]
mod tests {
    use super::*;
    use ptx::{BF16, F16, F32, F64};

    fn eq_or_both_nan<F: Format>(x: u64, y: u64) -> bool {
        x == y || (F::is_nan(x) && F::is_nan(y))
    }

    #[test]
    fn round_half_way_cases_follow_each_mode() {
        // 1 + 2^-24 is halfway between 1 and 1 + 2^-23 in f32.
        let x = Exact { neg: false, mag: (BigUint::one() << 24usize) + 1u32, exp: -24, sticky: false };
        assert_eq!(round::<F32>(&x, Rounding::Rn), 0x3f80_0000);
        assert_eq!(round::<F32>(&x, Rounding::Rp), 0x3f80_0001);
        assert_eq!(round::<F32>(&x, Rounding::Rz), 0x3f80_0000);
        let y = Exact { neg: true, ..x.clone() };
        assert_eq!(round::<F32>(&y, Rounding::Rm), 0xbf80_0001);
        assert_eq!(round::<F32>(&y, Rounding::Rp), 0xbf80_0000);
        // 1 + 3 * 2^-24 ties to even upward.
        let z = Exact { neg: false, mag: (BigUint::one() << 24usize) + 3u32, exp: -24, sticky: false };
        assert_eq!(round::<F32>(&z, Rounding::Rn), 0x3f80_0002);
    }

    #[test]
    fn round_sticky_breaks_a_tie() {
        let x = Exact { neg: false, mag: (BigUint::one() << 24usize) + 1u32, exp: -24, sticky: true };
        assert_eq!(round::<F32>(&x, Rounding::Rn), 0x3f80_0001);
    }

    #[test]
    fn round_gives_subnormals_and_rounds_up_to_min_normal() {
        // 2^-149 is the smallest f32 subnormal; 2^-150 ties to even (zero), a hair more rounds up.
        let one = |e: i64, sticky| Exact { neg: false, mag: BigUint::one(), exp: e, sticky };
        assert_eq!(round::<F32>(&one(-149, false), Rounding::Rn), 1);
        assert_eq!(round::<F32>(&one(-150, false), Rounding::Rn), 0);
        assert_eq!(round::<F32>(&one(-150, true), Rounding::Rn), 1);
        assert_eq!(round::<F32>(&one(-200, false), Rounding::Rp), 1);
        assert_eq!(round::<F32>(&one(-200, false), Rounding::Rm), 0);
        // (2^24 - 1) * 2^-150 = 2^-126 - 2^-150 is halfway between the largest subnormal and
        // the smallest normal: ties to the even one, the smallest normal.
        let x = Exact { neg: false, mag: BigUint::from((1u32 << 24) - 1), exp: -150, sticky: false };
        assert_eq!(round::<F32>(&x, Rounding::Rn), 0x0080_0000);
        assert_eq!(round::<F32>(&x, Rounding::Rz), 0x007f_ffff);
    }

    #[test]
    fn round_overflows_by_mode() {
        let big = Exact { neg: false, mag: BigUint::one(), exp: 128, sticky: false };
        assert_eq!(round::<F32>(&big, Rounding::Rn), 0x7f80_0000);
        assert_eq!(round::<F32>(&big, Rounding::Rz), 0x7f7f_ffff);
        let nbig = Exact { neg: true, ..big };
        assert_eq!(round::<F32>(&nbig, Rounding::Rp), 0xff7f_ffff);
        assert_eq!(round::<F32>(&nbig, Rounding::Rm), 0xff80_0000);
        // f16: 65520 rounds to infinity in .rn, 65519 to 65504.
        let x = Exact { neg: false, mag: BigUint::from(65520u32), exp: 0, sticky: false };
        assert_eq!(round::<F16>(&x, Rounding::Rn), 0x7c00);
        let y = Exact { neg: false, mag: BigUint::from(65519u32), exp: 0, sticky: false };
        assert_eq!(round::<F16>(&y, Rounding::Rn), 0x7bff);
    }

    #[test]
    fn hand_computed_results() {
        assert_eq!(add::<F32>(0x3f80_0000, 0x3f80_0000, Rounding::Rn), 0x4000_0000); // 1 + 1
        assert_eq!(sub::<F32>(0x3f80_0000, 0x3f80_0000, Rounding::Rn), 0); // 1 - 1 = +0
        assert_eq!(sub::<F32>(0x3f80_0000, 0x3f80_0000, Rounding::Rm), 0x8000_0000); // -0 in .rm
        assert_eq!(add::<F32>(0x8000_0000, 0x8000_0000, Rounding::Rn), 0x8000_0000); // -0 + -0
        assert_eq!(mul::<F16>(0x3e00, 0x3e00, Rounding::Rn), 0x4080); // 1.5 * 1.5 = 2.25
        assert_eq!(div::<F64>(0x3ff0_0000_0000_0000, 0x4008_0000_0000_0000, Rounding::Rn), 0x3fd5_5555_5555_5555); // 1/3
        assert_eq!(div::<F64>(0x3ff0_0000_0000_0000, 0x4008_0000_0000_0000, Rounding::Rp), 0x3fd5_5555_5555_5556);
        assert_eq!(sqrt::<F32>(0x4080_0000, Rounding::Rn), 0x4000_0000); // sqrt 4 = 2
        assert_eq!(sqrt::<F64>(0x4000_0000_0000_0000, Rounding::Rn), 2f64.sqrt().to_bits());
        assert_eq!(sqrt::<F32>(0x8000_0000, Rounding::Rn), 0x8000_0000); // sqrt -0 = -0
        assert!(F32::is_nan(sqrt::<F32>(0xbf80_0000, Rounding::Rn)));
        assert_eq!(sqrt::<F16>(0x0001, Rounding::Rn), 0x0c00); // sqrt 2^-24 = 2^-12
        assert_eq!(add::<BF16>(0x3f80, 0x3b80, Rounding::Rn), 0x3f80); // 1 + 2^-8 ties to 1
        assert_eq!(add::<BF16>(0x3f81, 0x3b80, Rounding::Rn), 0x3f82); // ties to even, up
        // fma(2, 3, -6) = +0, and -0 in .rm
        assert_eq!(fma::<F32>(0x4000_0000, 0x4040_0000, 0xc0c0_0000, Rounding::Rn), 0);
        assert_eq!(fma::<F32>(0x4000_0000, 0x4040_0000, 0xc0c0_0000, Rounding::Rm), 0x8000_0000);
        // (1 + 2^-23)(1 + 2^-22) - 1 = 3 * 2^-23 + 2^-45, whose last bit a separate multiply loses.
        assert_eq!(fma::<F32>(0x3f80_0001, 0x3f80_0002, 0xbf80_0000, Rounding::Rn), 0x34c0_0001);
    }

    /// The host's f64 and f32 arithmetic is IEEE round-to-nearest: a third implementation.
    #[test]
    fn agrees_with_host_arithmetic_in_rn() {
        let mut s = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..20_000 {
            let (a, b, c) = (next(), next(), next());
            let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let rn = Rounding::Rn;
            assert!(eq_or_both_nan::<F64>(add::<F64>(a, b, rn), (x + y).to_bits()), "{a:x}+{b:x}");
            assert!(eq_or_both_nan::<F64>(mul::<F64>(a, b, rn), (x * y).to_bits()), "{a:x}*{b:x}");
            assert!(eq_or_both_nan::<F64>(div::<F64>(a, b, rn), (x / y).to_bits()), "{a:x}/{b:x}");
            assert!(eq_or_both_nan::<F64>(fma::<F64>(a, b, c, rn), x.mul_add(y, z).to_bits()));
            assert!(eq_or_both_nan::<F64>(sqrt::<F64>(a, rn), x.sqrt().to_bits()), "sqrt {a:x}");
            let (a, b) = (a & 0xffff_ffff, b >> 32);
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            assert!(eq_or_both_nan::<F32>(div::<F32>(a, b, rn), (x / y).to_bits() as u64));
            assert!(eq_or_both_nan::<F32>(sqrt::<F32>(a, rn), x.sqrt().to_bits() as u64));
        }
    }
}
}
