//! Fast paths on the host's IEEE binary64 arithmetic, which rounds to nearest-even exactly
//! (Rust assumes the default floating-point environment: no FTZ/DAZ, round to nearest).
//! The host rounding mode is never changed; directed modes are derived from exact facts
//! about the round-to-nearest result (an error-free transformation or an integer check).
//!
//! Narrow formats (f16, bf16, f32; precision p <= 24, at most 8 exponent bits): operands
//! convert exactly to f64. Each op produces the exact result, or its round-to-odd form at
//! 53 bits (RO_53), or a value provably on the same side of every breakpoint, and then
//! [`round_f64`] rounds it once to the target in the target mode (see `rounding`'s module
//! comment: target breakpoints have <= p + 1 <= 25 bits, so an RO_53 value rounds alike).
//! f64: `.rn` is the host op. Directed modes start from the host's `.rn` result r and the
//! exact comparison of the exact value v with r (TwoSum error for add; an integer compare
//! of the exact product / remainder for mul, div, sqrt): since |v - r| <= ulp/2, the
//! directed result is r, or its neighbour toward zero when v is below r in magnitude and
//! the mode truncates, or away from zero when v is beyond r and the mode rounds away
//! ([`nudge`]). fma uses a branch-free integer core. Cases outside the proved ranges go to
//! the integer path in `exact`.

use std::cmp::Ordering;

use super::exact;
use crate::format::{Format, F64};
use crate::rounding::{increment, round_f64, round_odd, sign_bit, Rounding};

/// The bits of a host result, a NaN forced quiet: LLVM may fold `x * 1.0` to `x` and so
/// pass a signalling NaN through (Rust does not promise quieting); our contract does.
/// A NaN result is rare, so a well-predicted branch to a cold fix-up is the cheapest test.
#[inline(always)]
fn quiet64(x: f64) -> u64 {
    if x.is_nan() {
        return set_bit(x.to_bits(), 51);
    }
    x.to_bits()
}

/// [`quiet64`] for an f32 host result.
#[inline(always)]
fn quiet32(x: f32) -> u64 {
    if x.is_nan() {
        return set_bit(x.to_bits() as u64, 22);
    }
    x.to_bits() as u64
}

#[cold]
#[inline(never)]
fn set_bit(x: u64, bit: u32) -> u64 {
    x | (1 << bit)
}

// ---------------------------------------------------------------------------------------
// Narrow formats via f64.
// ---------------------------------------------------------------------------------------

/// The exact value of a narrow-format operand as an f64 (NaN stays NaN, payload shifted up).
#[inline]
pub(crate) fn to_f64<F: Format>(x: u64) -> f64 {
    if F::BITS == 32 && F::FRAC_BITS == 23 {
        return f32::from_bits(x as u32) as f64;
    }
    if F::BITS == 16 && F::EXP_BITS == 8 {
        // bf16 is the top half of an f32.
        return f32::from_bits((x as u32) << 16) as f64;
    }
    let sign = (x & F::SIGN_MASK) << (64 - F::BITS);
    let abs = x & (F::EXP_MASK | F::FRAC_MASK);
    // The fields moved to f64's positions: a normal encoding's exponent field rebiased is the
    // value's f64 encoding (an integer add); a subnormal's (or zero's) significand is an
    // integer times 2^(EMIN - FRAC_BITS), both exact f64 normals. Not `moved` read as an f64
    // subnormal and scaled: x86 takes a microcode assist on a subnormal operand, about 16 ns
    // a lane on the development VM; with a quarter of its operands special `add.rn.f16x2` ran
    // at 38 M ops/s that way and runs at 88 M now (`ptxfuzz bench --specials 25`,
    // docs/benchmarks.md). Inf and NaN keep their field all ones.
    let moved = abs << (52 - F::FRAC_BITS);
    let bits = if abs < F::EXP_MASK {
        let normal = moved + (((1023 - F::BIAS) as u64) << 52);
        let subnormal = ((abs as i64 as f64) * pow2(F::EMIN - F::FRAC_BITS as i32)).to_bits();
        if abs & F::EXP_MASK != 0 {
            normal
        } else {
            subnormal
        }
    } else {
        0x7ff0_0000_0000_0000 | (moved & ((1u64 << 52) - 1))
    };
    f64::from_bits(sign | bits)
}

/// 2^e for a normal-range exponent (compile-time constant at the call sites above).
#[inline]
const fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Round an f64 that is exact or RO_53 to narrow `F` (f32 `.rn` by the host conversion,
/// which is the same correctly rounded operation).
#[inline(always)]
fn from_f64<F: Format>(x: f64, mode: Rounding) -> u64 {
    if F::BITS == 32 && F::FRAC_BITS == 23 && mode == Rounding::Rn {
        return quiet32(x as f32);
    }
    round_f64::<F>(x.to_bits(), mode)
}

/// TwoSum (Knuth; Møller): `s + e = x + y` exactly, `s = RN(x + y)`, for finite x, y when
/// no operation overflows (underflow cannot make it inexact). An intermediate can overflow
/// although `s` does not, e.g. x ~ 2^1022, y = -MAX: `s - x` may round to -inf (TestFloat
/// has such a case); then `e` is not finite. Non-finite inputs also give a NaN or inf `e`.
#[inline]
fn two_sum(x: f64, y: f64) -> (f64, f64) {
    let s = x + y;
    let yy = s - x;
    let xx = s - yy;
    (s, (x - xx) + (y - yy))
}

/// RO_53(s + e) from `s = RN(s + e)` and the exact error `e` (|e| <= ulp(s)/2): when e != 0,
/// truncate toward zero (step `s` down in magnitude if `e` points toward zero) and set the
/// last bit. A NaN or infinite `s` or `e` (non-finite operands) leaves `s` unchanged.
#[inline]
fn round_to_odd(s: f64, e: f64) -> f64 {
    // Branch-free (e != 0 is data-dependent). `e.abs() > 0` is false for NaN; a finite
    // nonzero e implies finite operands and a finite s.
    let sb = s.to_bits();
    let inexact = e.abs() > 0.0;
    let toward_zero = inexact & ((sb ^ e.to_bits()) >> 63 != 0); // e opposes s: |v| < |s|
    f64::from_bits((sb - toward_zero as u64) | inexact as u64)
}

/// Whether adding two operands of `F` in f64 is always exact: the span from the largest
/// bit (EMAX, plus a carry) to the smallest subnormal's bit fits in 53 bits (true for f16).
#[inline]
const fn add_exact_in_f64<F: Format>() -> bool {
    F::EMAX + 2 - (F::EMIN - F::FRAC_BITS as i32) <= 53
}

/// Narrow `a + b`. f64 sum + TwoSum error -> RO_53 -> round. Operands are below 2^128, so
/// no TwoSum intermediate comes near f64 overflow, and sums are multiples of 2^-149.
#[inline]
pub(crate) fn add_narrow<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if F::BITS == 32 && F::FRAC_BITS == 23 && mode == Rounding::Rn {
        return quiet32(f32::from_bits(a as u32) + f32::from_bits(b as u32));
    }
    add_via_f64::<F>(a, b, false, mode)
}

/// Narrow `a - b` = `a + (-b)`; the f32 `.rn` case as one host subtraction.
#[inline]
pub(crate) fn sub_narrow<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if F::BITS == 32 && F::FRAC_BITS == 23 && mode == Rounding::Rn {
        return quiet32(f32::from_bits(a as u32) - f32::from_bits(b as u32));
    }
    add_via_f64::<F>(a, b, true, mode)
}

// The `*_via_f64` bodies are inlined: the interpreter's batch loops (`interp::batch`) have the
// mode as a constant and fold every mode test. (Out of line, the mode was a run-time argument
// and each call paid for the mode tests, the call and a non-inlined `from_f64`: add.rz.f32
// went from 72 to 58 instructions an op.)
//
// `a + b`, or `a - b` when `negate_b`: b is negated after its conversion (exact), so that both
// operands convert alike and LLVM can convert them together (f16 sub: 290 -> 520 M/s).
#[inline]
fn add_via_f64<F: Format>(a: u64, b: u64, negate_b: bool, mode: Rounding) -> u64 {
    let (x, y) = (to_f64::<F>(a), to_f64::<F>(b));
    let (y, b) = if negate_b { (-y, b ^ F::SIGN_MASK) } else { (y, b) };
    let s = if add_exact_in_f64::<F>() {
        x + y
    } else {
        let (s, e) = two_sum(x, y);
        round_to_odd(s, e)
    };
    // An exact zero sum: the host gave the .rn sign; .rm wants -0 unless both are +0.
    if s == 0.0 && mode == Rounding::Rm {
        return F::zero(F::sign(a) | F::sign(b));
    }
    from_f64::<F>(s, mode)
}

/// Narrow `a * b`: the product of two p <= 24 bit significands is exact in f64, and its
/// exponent stays within [-298, 256], far inside f64's normal range.
#[inline]
pub(crate) fn mul_narrow<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if F::BITS == 32 && F::FRAC_BITS == 23 && mode == Rounding::Rn {
        return quiet32(f32::from_bits(a as u32) * f32::from_bits(b as u32));
    }
    mul_via_f64::<F>(a, b, mode)
}

#[inline]
fn mul_via_f64<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    from_f64::<F>(to_f64::<F>(a) * to_f64::<F>(b), mode)
}

/// Narrow `a * b + c`: exact product, TwoSum with c, RO_53, round once. Every exact value
/// involved is a multiple of 2^-298 below 2^257: normal in f64, no overflow.
#[inline]
pub(crate) fn fma_narrow<F: Format>(a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    if F::BITS == 32 && F::FRAC_BITS == 23 && mode == Rounding::Rn {
        // The host's f32 fma (single rounding, as for f64 `.rn`): a shorter dependency chain
        // than the f64 route below (fma.rn.ftz.sat.f32: 170 -> 278 M ops/s).
        let f = |x: u64| f32::from_bits(x as u32);
        return quiet32(f(a).mul_add(f(b), f(c)));
    }
    let p = to_f64::<F>(a) * to_f64::<F>(b);
    let (s, e) = two_sum(p, to_f64::<F>(c));
    let s = round_to_odd(s, e);
    if s == 0.0 && mode == Rounding::Rm {
        // Exact zero: p and c are +-0 or opposite; p carries the product's sign exactly.
        return F::zero(p.is_sign_negative() | F::sign(c));
    }
    from_f64::<F>(s, mode)
}

/// Narrow `a / b`: q = RN_53(a/b) rounds like a/b in every mode, without a remainder.
///
/// Proof: write a = A 2^α, b = B 2^β with integers A, B < 2^p, and a breakpoint of the target
/// (grid point, midpoint, overflow threshold; subnormal grid included) g = G 2^γ, G < 2^(p+1).
/// If a/b != g, |a/b - g| = |A 2^α - G B 2^(β+γ)| / b, a nonzero multiple of 2^min(α, β+γ)
/// over b: if α <= β+γ it is >= 2^α / (B 2^β) > 2^-(p+1) a/b; otherwise >= 2^γ / B >
/// 2^-(2p+1) g. With p <= 24 both exceed 2^-49 of the value, while |q - a/b| <= 2^-53 a/b.
/// So q is not a breakpoint unless a/b is (then q = a/b: g has <= 25 bits), and no
/// breakpoint separates q from a/b. The quotient's exponent is within [-277, 277].
#[inline]
pub(crate) fn div_narrow<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    if F::BITS == 32 && F::FRAC_BITS == 23 && mode == Rounding::Rn {
        return quiet32(f32::from_bits(a as u32) / f32::from_bits(b as u32));
    }
    div_via_f64::<F>(a, b, mode)
}

#[inline]
fn div_via_f64<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    from_f64::<F>(to_f64::<F>(a) / to_f64::<F>(b), mode)
}

/// Narrow `sqrt(a)`: s = RN_53(sqrt(a)) rounds like sqrt(a) in every mode.
///
/// Proof as for division: a = A 2^α (A < 2^p), breakpoint g = G 2^γ (G < 2^(p+1)), a != g^2.
/// |sqrt(a) - g| = |a - g^2| / (sqrt(a) + g), the numerator a nonzero multiple of
/// 2^min(α, 2γ). Near g (else trivially far), sqrt(a) + g ~ 2g. If α <= 2γ the distance is
/// about 2^α / (2 sqrt a) > 2^-(p+2) sqrt(a) or more; otherwise about 2^(2γ) / (2g) =
/// g / (2 G^2) > 2^-(2p+3) g = 2^-51 g for p = 24. Both exceed |s - sqrt(a)| <= 2^-53 sqrt(a).
#[inline]
pub(crate) fn sqrt_narrow<F: Format>(a: u64, mode: Rounding) -> u64 {
    if F::BITS == 32 && F::FRAC_BITS == 23 && mode == Rounding::Rn {
        return quiet32(f32::from_bits(a as u32).sqrt());
    }
    sqrt_via_f64::<F>(a, mode)
}

#[inline]
fn sqrt_via_f64<F: Format>(a: u64, mode: Rounding) -> u64 {
    from_f64::<F>(to_f64::<F>(a).sqrt(), mode)
}

// ---------------------------------------------------------------------------------------
// f64: host .rn result, nudged by one ulp in directed modes.
// ---------------------------------------------------------------------------------------

/// The directed-mode result from the `.rn` result `r` (finite or an overflowed infinity)
/// and how the exact value compares with it in magnitude. The exact value has `r`'s sign
/// and lies within one ulp of it, so the answer is `r` or its neighbour toward zero
/// (bits - 1; from INF this is MAX_FINITE) or away from zero (bits + 1; from MAX_FINITE
/// this is INF). `Less` never comes with a zero `r`, `Greater` never with an infinite one.
#[inline]
fn nudge(r: u64, exact_vs_r: Ordering, mode: Rounding) -> u64 {
    // Branch-free: the comparison is data-dependent, the mode usually is not.
    let neg = r >> 63 != 0;
    let down = (exact_vs_r == Ordering::Less) & mode.directed_toward_zero(neg);
    let up = (exact_vs_r == Ordering::Greater) & mode.directed_away(neg);
    r.wrapping_add(up as u64).wrapping_sub(down as u64)
}

/// (significand, exponent) with value = sig * 2^(exp - 1075) for a finite f64.
#[inline]
fn parts(x: u64) -> (u64, i32) {
    let field = ((x >> 52) & 0x7ff) as i32;
    let frac = x & ((1u64 << 52) - 1);
    (frac | (((field != 0) as u64) << 52), field.max(1))
}

#[inline]
pub(crate) fn add_f64(a: u64, b: u64, mode: Rounding) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    if mode == Rounding::Rn {
        return quiet64(x + y);
    }
    let (s, e) = two_sum(x, y);
    if s == 0.0 {
        return F64::zero(mode.zero_sum_sign(F64::sign(a), F64::sign(b)));
    }
    if !s.is_finite() {
        if s.is_infinite() && x.is_finite() && y.is_finite() {
            return nudge(s.to_bits(), Ordering::Less, mode); // overflow
        }
        return quiet64(s);
    }
    if !e.is_finite() {
        return exact::add::<F64>(a, b, mode); // TwoSum's intermediate overflowed
    }
    // The exact sum s + e is beyond s (in magnitude) iff e is nonzero with s's sign.
    let sb = s.to_bits();
    let opposite = (e.to_bits() ^ sb) >> 63 != 0;
    let ord = match (e != 0.0, opposite) {
        (false, _) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (true, true) => Ordering::Less,
    };
    nudge(sb, ord, mode)
}

/// f64 `a - b` = `a + (-b)`; `.rn` as one host subtraction.
#[inline]
pub(crate) fn sub_f64(a: u64, b: u64, mode: Rounding) -> u64 {
    if mode == Rounding::Rn {
        return quiet64(f64::from_bits(a) - f64::from_bits(b));
    }
    add_f64(a, b ^ F64::SIGN_MASK, mode)
}

/// Whether an f64's exponent field is 0 (zero, subnormal) or all ones (inf, NaN).
#[inline(always)]
fn extreme(x: u64) -> bool {
    (((x >> 52) & 0x7ff) as u32).wrapping_sub(1) >= 0x7fe
}

#[inline]
pub(crate) fn mul_f64(a: u64, b: u64, mode: Rounding) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let p = x * y;
    if mode == Rounding::Rn {
        return quiet64(p);
    }
    let pb = p.to_bits();
    if extreme(pb) {
        // p is zero, subnormal, infinite or NaN (any other p means ordinary operands).
        if !x.is_finite() || !y.is_finite() || x == 0.0 || y == 0.0 {
            return quiet64(p); // exact: inf, signed zero or NaN
        }
        if p.is_infinite() {
            return nudge(pb, Ordering::Less, mode); // overflow: the exact product is finite
        }
        if p == 0.0 {
            return nudge(pb, Ordering::Greater, mode); // underflow below half the min subnormal
        }
    }
    // Compare the exact product ma mb 2^(ea+eb-2150) with |p| = mp 2^(ep-1075): both
    // integers once p is shifted by k; p normal or subnormal (then the grid is coarser but
    // |p - xy| is still at most half a step, so the nudge rule holds).
    let (ma, ea) = parts(a);
    let (mb, eb) = parts(b);
    let (mp, ep) = parts(pb);
    let k = ep + 1075 - ea - eb;
    if !(0..=74).contains(&k) {
        return exact::mul::<F64>(a, b, mode); // k < 0 needs a product of two subnormals
    }
    let exact_vs_p = (ma as u128 * mb as u128).cmp(&((mp as u128) << k));
    nudge(pb, exact_vs_p, mode)
}

#[inline]
pub(crate) fn div_f64(a: u64, b: u64, mode: Rounding) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let q = x / y;
    if mode == Rounding::Rn {
        return quiet64(q);
    }
    let qb = q.to_bits();
    if extreme(qb) {
        // q is zero, subnormal, infinite or NaN (any other q means ordinary operands).
        if !x.is_finite() || !y.is_finite() || x == 0.0 || y == 0.0 {
            return quiet64(q); // exact: NaN, inf, signed zero
        }
        if q.is_infinite() {
            return nudge(qb, Ordering::Less, mode); // overflow
        }
        if q == 0.0 {
            return nudge(qb, Ordering::Greater, mode); // underflow below half the min subnormal
        }
    }
    // |x|/|y| vs |q|  <=>  |x| vs |q| |y|  <=>  ma 2^k vs mq mb (q normal or subnormal).
    let (ma, ea) = parts(a);
    let (mb, eb) = parts(b);
    let (mq, eq) = parts(qb);
    let k = ea + 1075 - eq - eb;
    if !(0..=74).contains(&k) {
        return exact::div::<F64>(a, b, mode); // subnormal operands far apart
    }
    let exact_vs_q = ((ma as u128) << k).cmp(&(mq as u128 * mb as u128));
    nudge(qb, exact_vs_q, mode)
}

#[inline]
pub(crate) fn sqrt_f64(a: u64, mode: Rounding) -> u64 {
    let x = f64::from_bits(a);
    let s = x.sqrt();
    if mode == Rounding::Rn || x.partial_cmp(&0.0) != Some(Ordering::Greater) || x.is_infinite() {
        return quiet64(s); // exact: NaN, +-0, +inf, or negative -> NaN
    }
    // sqrt(x) vs s  <=>  x vs s^2  <=>  ma 2^k vs ms^2, k = ea + 1075 - 2 es. s is normal
    // (>= 2^-537) so ms^2 >= 2^104 while ma < 2^53: 0 < k and ma 2^k ~ ms^2 < 2^106.
    let sb = s.to_bits();
    let (ma, ea) = parts(a);
    let (ms, es) = parts(sb);
    let k = ea + 1075 - 2 * es;
    let exact_vs_s = ((ma as u128) << k).cmp(&(ms as u128 * ms as u128));
    nudge(sb, exact_vs_s, mode)
}

#[inline(always)]
pub(crate) fn fma_f64(a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    if mode == Rounding::Rn {
        // Rust guarantees a single rounding (an FMA instruction or libm's correctly rounded fma).
        return quiet64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)));
    }
    // Zero, subnormal, infinite or NaN operands (exponent field 0 or 0x7ff, i.e. field - 1
    // outside 0..0x7fe): the general integer path.
    let f = |x: u64| (((x >> 52) & 0x7ff) as u32).wrapping_sub(1);
    if f(a).max(f(b)).max(f(c)) >= 0x7fe {
        return fma_f64_general(a, b, c, mode);
    }
    fma_f64_normal(a, b, c, mode)
}

#[cold]
#[inline(never)]
fn fma_f64_general(a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    exact::fma::<F64>(a, b, c, mode)
}

/// f64 `a * b + c` for normal operands in integer arithmetic, without data-dependent
/// branches on the common path (which operand is larger, add or subtract, the sign).
///
/// Same construction as [`exact::fma`], specialised: the exact product (105 or 106 bits)
/// is shifted left by 20 (leading bit at 124 or 125), c by 72 (leading bit at 124); both
/// are below 2^126, so their sum is below 2^127 (bit 127 free for the sign). The product
/// then has >= 20 zero low bits, c >= 72. The one with the smaller exponent is shifted right
/// by the exponent difference d with lost bits jammed into bit 0; bits are lost only when
/// d > 20, and then the larger one is even and the sum or difference keeps >= 123
/// significant bits: `hi +- lo` is the exact value or its round-to-odd form.
#[inline(always)]
fn fma_f64_normal(a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    const FRAC: u64 = (1 << 52) - 1;
    let hidden = |x: u64| (x & FRAC) | (1 << 52);
    let field = |x: u64| ((x >> 52) & 0x7ff) as i32;
    let sp = (a ^ b) >> 63 != 0;
    let sc = c >> 63 != 0;
    // Product in [2^104, 2^106), shifted to [2^124, 2^126).
    let p = (hidden(a) as u128 * hidden(b) as u128) << 20;
    let ep = field(a) + field(b) - 2150 - 20; // value = p * 2^ep
    let cw = (hidden(c) as u128) << 72;
    let ecw = field(c) - 1075 - 72;
    let p_hi = ep >= ecw;
    let (hi, lo) = if p_hi { (p, cw) } else { (cw, p) };
    let (sh, sl) = if p_hi { (sp, sc) } else { (sc, sp) };
    let eh = if p_hi { ep } else { ecw };
    let d = (ep - ecw).unsigned_abs().min(127);
    let lost = lo.trailing_zeros() < d; // lo != 0
    let lo = (lo >> d) | lost as u128;
    // hi + lo or hi - lo, as two's complement; a negative difference (only when d == 0) is
    // negated and takes lo's sign.
    let neg = ((sh != sl) as u128).wrapping_neg();
    let sum = hi.wrapping_add((lo ^ neg).wrapping_sub(neg));
    let m = ((sum as i128) >> 127) as u128;
    let mag = (sum ^ m).wrapping_sub(m);
    let sign = sh ^ (m != 0);
    if mag == 0 {
        return F64::zero(mode.zero_sum_sign(sp, sc)); // exact cancellation
    }
    // Round: leading bit to 126, keep the top 63 bits with the rest jammed (RO_63), then the
    // constant-position rounding of a normal result; subnormal or overflowing results go
    // through the general core with the same RO description.
    let lz = mag.leading_zeros(); // >= 1: mag < 2^127
    let n = mag << (lz - 1);
    let sig = (n >> 64) as u64 | (n as u64 != 0) as u64;
    let e = eh + 127 - lz as i32; // exponent of the leading bit
    if !(F64::EMIN..=F64::EMAX).contains(&e) {
        return round_odd::<F64>(sign, e - 62, sig, mode);
    }
    let mask = (1u64 << 10) - 1;
    let inc = increment(mode, sign, mask, (sig >> 10) & 1);
    // A carry to 2^53 bumps the exponent, up to INF from EMAX (.rn and away modes only).
    let r = (sig + inc) >> 10;
    sign_bit::<F64>(sign) | ((((e - F64::EMIN) as u64) << 52) + r)
}
