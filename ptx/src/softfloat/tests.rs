//! Unit tests of the tricky IEEE cases, each through both the dispatched (fast) path and the
//! integer path, for every format where the case makes sense.

use super::*;
use crate::format::{BF16, F16, F32, F64};
use crate::rounding::round_f64;
use Rounding::*;

/// 2^e exactly as an f64, subnormals included (`powi` is not exact in debug builds: it
/// computes 2^-e first, which overflows for tiny results).
fn p2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (e + 1074))
    }
}

/// An exactly representable value of F from an f64.
fn v<F: Format>(x: f64) -> u64 {
    let r = round_f64::<F>(x.to_bits(), Rz);
    assert_eq!(round_f64::<F>(x.to_bits(), Rp), r, "{x} is not exact in {}", F::NAME);
    r
}

/// The op through the public (fast) path and the integer path must both give `want`.
#[track_caller]
fn both<F: Format>(name: &str, fast: u64, exact: u64, want: u64) {
    assert_eq!(fast, want, "{} {name}: fast path {fast:#x}, want {want:#x}", F::NAME);
    assert_eq!(exact, want, "{} {name}: integer path {exact:#x}, want {want:#x}", F::NAME);
}

#[track_caller]
fn add_is<F: Format>(a: u64, b: u64, m: Rounding, want: u64) {
    both::<F>(&format!("{a:#x} + {b:#x} .{}", m.name()), add::<F>(a, b, m), exact::add::<F>(a, b, m), want);
}

#[track_caller]
fn sub_is<F: Format>(a: u64, b: u64, m: Rounding, want: u64) {
    both::<F>(&format!("{a:#x} - {b:#x} .{}", m.name()), sub::<F>(a, b, m), exact::sub::<F>(a, b, m), want);
}

#[track_caller]
fn mul_is<F: Format>(a: u64, b: u64, m: Rounding, want: u64) {
    both::<F>(&format!("{a:#x} * {b:#x} .{}", m.name()), mul::<F>(a, b, m), exact::mul::<F>(a, b, m), want);
}

#[track_caller]
fn fma_is<F: Format>(a: u64, b: u64, c: u64, m: Rounding, want: u64) {
    let name = format!("fma({a:#x}, {b:#x}, {c:#x}) .{}", m.name());
    both::<F>(&name, fma::<F>(a, b, c, m), exact::fma::<F>(a, b, c, m), want);
}

#[track_caller]
fn div_is<F: Format>(a: u64, b: u64, m: Rounding, want: u64) {
    both::<F>(&format!("{a:#x} / {b:#x} .{}", m.name()), div::<F>(a, b, m), exact::div::<F>(a, b, m), want);
}

#[track_caller]
fn sqrt_is<F: Format>(a: u64, m: Rounding, want: u64) {
    both::<F>(&format!("sqrt({a:#x}) .{}", m.name()), sqrt::<F>(a, m), exact::sqrt::<F>(a, m), want);
}

#[track_caller]
fn nan_for_all_modes<F: Format>(name: &str, f: impl Fn(Rounding) -> (u64, u64)) {
    for m in Rounding::ALL {
        let (fast, exact) = f(m);
        assert!(F::is_nan(fast), "{} {name} .{}: fast path gave {fast:#x}, want NaN", F::NAME, m.name());
        assert!(F::is_nan(exact), "{} {name} .{}: integer path gave {exact:#x}, want NaN", F::NAME, m.name());
        assert!(
            !F::is_signalling_nan(fast) && !F::is_signalling_nan(exact),
            "{} {name} .{}: NaN must be quiet: fast {fast:#x}, integer {exact:#x}",
            F::NAME,
            m.name()
        );
    }
}

fn exact_cancellation_is_plus_zero_except_rm<F: Format>() {
    let x = v::<F>(1.5);
    let nx = x ^ F::SIGN_MASK;
    let (pz, nz) = (F::zero(false), F::zero(true));
    for m in Rounding::ALL {
        let z = if m == Rm { nz } else { pz };
        add_is::<F>(x, nx, m, z);
        add_is::<F>(nx, x, m, z);
        sub_is::<F>(x, x, m, z);
        add_is::<F>(pz, nz, m, z);
        sub_is::<F>(pz, pz, m, z);
        add_is::<F>(nz, nz, m, nz);
        add_is::<F>(pz, pz, m, pz);
        sub_is::<F>(nz, pz, m, nz);
        // fma with c = -a*b exactly: 3 * 5 - 15.
        fma_is::<F>(v::<F>(3.0), v::<F>(5.0), v::<F>(-15.0), m, z);
        fma_is::<F>(v::<F>(-3.0), v::<F>(5.0), v::<F>(15.0), m, z);
        // Zero product plus zero: the zero-sum rule on the product's sign.
        fma_is::<F>(nz, x, pz, m, z);
        fma_is::<F>(nz, x, nz, m, nz);
        fma_is::<F>(nz, nx, nz, m, z);
        // x + 0 = x in every mode.
        add_is::<F>(x, nz, m, x);
        fma_is::<F>(pz, x, nx, m, nx);
    }
}

#[test]
fn exact_cancellation_sign_follows_ieee() {
    exact_cancellation_is_plus_zero_except_rm::<F16>();
    exact_cancellation_is_plus_zero_except_rm::<BF16>();
    exact_cancellation_is_plus_zero_except_rm::<F32>();
    exact_cancellation_is_plus_zero_except_rm::<F64>();
}

fn ties_and_one_ulp_cases<F: Format>() {
    let one = F::ONE;
    let ulp_half = p2(-(F::PREC as i32)); // half an ulp of 1
    let half = v::<F>(ulp_half);
    // 1 + ulp/2 is a tie: .rn to even (1), .rp up, .rz/.rm down.
    add_is::<F>(one, half, Rn, one);
    add_is::<F>(one, half, Rp, one + 1);
    add_is::<F>(one, half, Rz, one);
    add_is::<F>(one, half, Rm, one);
    // (1 + ulp) + ulp/2 is a tie to the even 1 + 2 ulp.
    add_is::<F>(one + 1, half, Rn, one + 2);
    // 1 - ulp/4: just below 1 (ulp below 1 is half as big): 1 - ulp/4 is a tie there.
    let quarter = v::<F>(ulp_half / 2.0);
    sub_is::<F>(one, quarter, Rn, one);
    sub_is::<F>(one, quarter, Rz, one - 1);
    sub_is::<F>(one, quarter, Rm, one - 1);
    sub_is::<F>(one, quarter, Rp, one);
    // A tiny addend far below: only its sign decides directed modes.
    let tiny = F::MIN_NORMAL;
    add_is::<F>(one, tiny, Rn, one);
    add_is::<F>(one, tiny, Rp, one + 1);
    add_is::<F>(one, tiny | F::SIGN_MASK, Rz, one - 1);
    add_is::<F>(one | F::SIGN_MASK, tiny, Rm, one | F::SIGN_MASK);
    add_is::<F>(one | F::SIGN_MASK, tiny, Rz, (one - 1) | F::SIGN_MASK);
    // (1 + ulp)^2 = 1 + 2ulp + ulp^2: above 1 + 2ulp by far less than half an ulp.
    mul_is::<F>(one + 1, one + 1, Rn, one + 2);
    mul_is::<F>(one + 1, one + 1, Rp, one + 3);
    mul_is::<F>(one + 1, one + 1, Rz, one + 2);
    // fma: (1 + ulp)^2 - (1 + 2ulp) = ulp^2 exactly, however small.
    let ulp2 = v::<F>(ulp_half * ulp_half * 4.0);
    for m in Rounding::ALL {
        fma_is::<F>(one + 1, one + 1, (one + 2) | F::SIGN_MASK, m, ulp2);
    }
    // fma(1+ulp, 1+ulp, -1) = 2ulp + ulp^2: a tie above 2ulp (ulp^2 is half of ulp(2ulp)).
    let two_ulp = v::<F>(4.0 * ulp_half);
    fma_is::<F>(one + 1, one + 1, one | F::SIGN_MASK, Rn, two_ulp);
    fma_is::<F>(one + 1, one + 1, one | F::SIGN_MASK, Rp, two_ulp + 1);
    // Division: 1/3 is never a tie; rp is one above rz.
    let three = v::<F>(3.0);
    let rz = div::<F>(one, three, Rz);
    div_is::<F>(one, three, Rp, rz + 1);
    div_is::<F>(one | F::SIGN_MASK, three, Rm, (rz + 1) | F::SIGN_MASK);
    // sqrt(2): irrational, rp = rz + 1; sqrt(4) exact in every mode.
    let two = v::<F>(2.0);
    let s = sqrt::<F>(two, Rz);
    sqrt_is::<F>(two, Rp, s + 1);
    for m in Rounding::ALL {
        sqrt_is::<F>(v::<F>(4.0), m, two);
        div_is::<F>(v::<F>(1.5), v::<F>(0.5), m, three);
    }
}

#[test]
fn ties_go_to_even_and_directed_modes_step_one_ulp() {
    ties_and_one_ulp_cases::<F16>();
    ties_and_one_ulp_cases::<BF16>();
    ties_and_one_ulp_cases::<F32>();
    ties_and_one_ulp_cases::<F64>();
}

fn overflow_cases<F: Format>() {
    let max = F::MAX_FINITE;
    let nmax = max | F::SIGN_MASK;
    let (inf, ninf) = (F::inf(false), F::inf(true));
    let two = v::<F>(2.0);
    let one = F::ONE;
    let expect = |m: Rounding, neg: bool| {
        let toward = m.directed_toward_zero(neg);
        F::zero(neg) | if toward { F::MAX_FINITE } else { F::INF }
    };
    for m in Rounding::ALL {
        add_is::<F>(max, max, m, expect(m, false));
        add_is::<F>(nmax, nmax, m, expect(m, true));
        mul_is::<F>(max, two, m, expect(m, false));
        mul_is::<F>(nmax, two, m, expect(m, true));
        fma_is::<F>(max, two, nmax, m, max); // exact: 2max - max
        fma_is::<F>(max, two, one, m, expect(m, false));
        div_is::<F>(max, v::<F>(0.5), m, expect(m, false));
        div_is::<F>(nmax, v::<F>(0.25), m, expect(m, true));
        // Infinities in are exact infinities out.
        add_is::<F>(inf, nmax, m, inf);
        mul_is::<F>(ninf, two, m, ninf);
        sqrt_is::<F>(inf, m, inf);
    }
    // max + half an ulp of max is the .rn overflow threshold (a tie: max is odd -> inf).
    let half_ulp = v::<F>(p2(F::EMAX - F::PREC as i32));
    add_is::<F>(max, half_ulp, Rn, inf);
    add_is::<F>(max, half_ulp, Rz, max);
    add_is::<F>(max, half_ulp, Rp, inf);
    add_is::<F>(max, half_ulp - 1, Rn, max);
    add_is::<F>(max, half_ulp - 1, Rp, inf);
}

#[test]
fn overflow_gives_inf_or_max_finite_per_mode() {
    overflow_cases::<F16>();
    overflow_cases::<BF16>();
    overflow_cases::<F32>();
    overflow_cases::<F64>();
}

fn subnormal_cases<F: Format>() {
    let min_sub = 1u64;
    let min_normal = F::MIN_NORMAL;
    let half = v::<F>(0.5);
    let two = v::<F>(2.0);
    for m in Rounding::ALL {
        // Exact subnormal results.
        mul_is::<F>(min_normal, half, m, min_normal >> 1);
        div_is::<F>(min_normal, two, m, min_normal >> 1);
        sub_is::<F>(min_normal, min_sub, m, min_normal - 1);
        add_is::<F>(min_sub, min_sub, m, 2);
        fma_is::<F>(min_normal, half, min_sub, m, (min_normal >> 1) + 1);
        // sqrt of an even power of two in the subnormal range is exact.
        let e = F::EMIN - F::FRAC_BITS as i32;
        let e = e + (e & 1);
        sqrt_is::<F>(v::<F>(p2(e)), m, v::<F>(p2(e / 2)));
    }
    // min_sub * 0.5: exactly half the smallest subnormal: .rn ties to 0 (even).
    mul_is::<F>(min_sub, half, Rn, 0);
    mul_is::<F>(min_sub, half, Rz, 0);
    mul_is::<F>(min_sub, half, Rp, min_sub);
    mul_is::<F>(min_sub | F::SIGN_MASK, half, Rm, min_sub | F::SIGN_MASK);
    mul_is::<F>(min_sub | F::SIGN_MASK, half, Rp, F::SIGN_MASK); // inexact -0
    // 3 * min_sub * 0.5 = 1.5 min_sub: tie to the even 2 min_sub.
    mul_is::<F>(3, half, Rn, 2);
    mul_is::<F>(3, half, Rz, 1);
    // min_sub / 3 and min_sub^2: far below, zero or min_sub.
    div_is::<F>(min_sub, v::<F>(3.0), Rn, 0);
    div_is::<F>(min_sub, v::<F>(3.0), Rp, min_sub);
    mul_is::<F>(min_sub, min_sub, Rn, 0);
    mul_is::<F>(min_sub, min_sub | F::SIGN_MASK, Rm, min_sub | F::SIGN_MASK);
    fma_is::<F>(min_sub, min_sub, F::zero(true), Rz, 0);
    fma_is::<F>(min_sub, min_sub, F::zero(true), Rp, 1);
    // Rounding up out of the subnormal range into MIN_NORMAL.
    let below = min_normal - 1; // largest subnormal
    let nearly_one = F::ONE - 1;
    // below / nearly_one is just above below, rp goes up to the next (MIN_NORMAL).
    div_is::<F>(below, nearly_one, Rp, min_normal);
    div_is::<F>(below, nearly_one, Rz, below);
}

#[test]
fn subnormal_results_are_gradual_not_flushed() {
    subnormal_cases::<F16>();
    subnormal_cases::<BF16>();
    subnormal_cases::<F32>();
    subnormal_cases::<F64>();
}

fn special_cases<F: Format>() {
    let (pz, nz) = (F::zero(false), F::zero(true));
    let (inf, ninf) = (F::inf(false), F::inf(true));
    let one = F::ONE;
    let none = one | F::SIGN_MASK;
    let qnan = F::CANONICAL_NAN;
    let snan = F::EXP_MASK | 1;
    for m in Rounding::ALL {
        sqrt_is::<F>(nz, m, nz);
        sqrt_is::<F>(pz, m, pz);
        div_is::<F>(one, pz, m, inf);
        div_is::<F>(none, pz, m, ninf);
        div_is::<F>(one, nz, m, ninf);
        div_is::<F>(pz, none, m, nz);
        div_is::<F>(one, ninf, m, nz);
        mul_is::<F>(nz, one, m, nz);
        mul_is::<F>(nz, nz, m, pz);
    }
    nan_for_all_modes::<F>("inf - inf", |m| (add::<F>(inf, ninf, m), exact::add::<F>(inf, ninf, m)));
    nan_for_all_modes::<F>("inf - inf (sub)", |m| (sub::<F>(inf, inf, m), exact::sub::<F>(inf, inf, m)));
    nan_for_all_modes::<F>("inf * 0", |m| (mul::<F>(inf, nz, m), exact::mul::<F>(inf, nz, m)));
    nan_for_all_modes::<F>("0 / 0", |m| (div::<F>(pz, nz, m), exact::div::<F>(pz, nz, m)));
    nan_for_all_modes::<F>("inf / inf", |m| (div::<F>(ninf, inf, m), exact::div::<F>(ninf, inf, m)));
    nan_for_all_modes::<F>("sqrt(-1)", |m| (sqrt::<F>(none, m), exact::sqrt::<F>(none, m)));
    nan_for_all_modes::<F>("sqrt(-inf)", |m| (sqrt::<F>(ninf, m), exact::sqrt::<F>(ninf, m)));
    nan_for_all_modes::<F>("fma(inf, 0, 1)", |m| (fma::<F>(inf, pz, one, m), exact::fma::<F>(inf, pz, one, m)));
    nan_for_all_modes::<F>("fma(0, inf, qnan)", |m| (fma::<F>(pz, inf, qnan, m), exact::fma::<F>(pz, inf, qnan, m)));
    nan_for_all_modes::<F>("fma(inf, 1, -inf)", |m| (fma::<F>(inf, one, ninf, m), exact::fma::<F>(inf, one, ninf, m)));
    nan_for_all_modes::<F>("snan + 1", |m| (add::<F>(snan, one, m), exact::add::<F>(snan, one, m)));
    nan_for_all_modes::<F>("1 * snan", |m| (mul::<F>(one, snan, m), exact::mul::<F>(one, snan, m)));
    nan_for_all_modes::<F>("fma(1, 1, snan)", |m| (fma::<F>(one, one, snan, m), exact::fma::<F>(one, one, snan, m)));
    nan_for_all_modes::<F>("qnan / 0", |m| (div::<F>(qnan, pz, m), exact::div::<F>(qnan, pz, m)));
    nan_for_all_modes::<F>("sqrt(snan)", |m| (sqrt::<F>(snan, m), exact::sqrt::<F>(snan, m)));
    for m in Rounding::ALL {
        fma_is::<F>(inf, one, inf, m, inf);
        fma_is::<F>(one, none, ninf, m, ninf);
        fma_is::<F>(pz, one, ninf, m, ninf);
    }
}

#[test]
fn special_operands_give_ieee_specials() {
    special_cases::<F16>();
    special_cases::<BF16>();
    special_cases::<F32>();
    special_cases::<F64>();
}

#[test]
fn f32_fma_rounds_once_where_f64_fma_then_cast_would_double_round() {
    // (1 + 2^-12)^2 + 2^-100 = 1 + 2^-11 + 2^-24 + 2^-100: just above the f32 tie between
    // 1 + 2^-11 (even) and 1 + 2^-11 + 2^-23. RN64 drops 2^-100 and lands on the tie, so
    // `(a as f64).mul_add(b, c) as f32` would give the even 0x3f80_1000.
    let a = (1.0f32 + p2(-12) as f32).to_bits() as u64;
    let tiny = (p2(-100) as f32).to_bits() as u64;
    fma_is::<F32>(a, a, tiny, Rn, 0x3f80_1001);
    fma_is::<F32>(a, a, tiny | F32::SIGN_MASK, Rn, 0x3f80_1000);
    fma_is::<F32>(a, a, tiny, Rz, 0x3f80_1000);
    fma_is::<F32>(a, a, tiny | F32::SIGN_MASK, Rz, 0x3f80_1000);
    fma_is::<F32>(a, a, tiny, Rp, 0x3f80_1001);
    fma_is::<F32>(a, a | F32::SIGN_MASK, tiny, Rm, 0xbf80_1001);
    fma_is::<F32>(a, a | F32::SIGN_MASK, tiny, Rn, 0xbf80_1000);
    fma_is::<F32>(a, a, 0, Rn, 0x3f80_1000);
}

/// SplitMix64, for the randomised tests below.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A fraction field, all random or with its low bits cleared (few significant bits:
    /// exact products, ties).
    fn frac(&mut self, sparse: bool) -> u64 {
        let f = self.next() & F64::FRAC_MASK;
        if sparse {
            f & !(F64::FRAC_MASK >> (self.next() % 20))
        } else {
            f
        }
    }

    /// An f64 with unbiased exponent uniform in [-span, span] and fraction `frac`.
    fn with_exp(&mut self, frac: u64, span: u64) -> u64 {
        (1023 - span + (self.next() >> 11) % (2 * span + 1)) << 52 | frac
    }
}

/// The f64 directed fma's fast path against the general integer path, on the cases that
/// stress the rounding: random significands, c cancelling a*b to a few ulps or exactly, c far
/// below (only a sticky bit), results on binade boundaries; exponents mostly near 0, and out
/// to +-400 (c: +-800).
#[test]
fn f64_directed_fma_fast_path_matches_integer_path() {
    let mut g = Gen(0x5eed);
    let mut checked = 0;
    for i in 0..400_000u64 {
        let r = g.next();
        let sign = |k: u32| (r >> k & 1) << 63;
        let span = if i % 16 == 0 { 400 } else { 30 };
        let fa = g.frac(i % 3 == 0);
        let a = g.with_exp(fa, span) | sign(0);
        let fb = g.frac(i % 5 == 0);
        let b = g.with_exp(fb, span) | sign(1);
        let p = exact::mul::<F64>(a, b, Rn);
        let c = match i % 6 {
            // c = -RN(ab) moved by a few ulps: heavy cancellation, exact zeros.
            0 | 1 => ((p ^ F64::SIGN_MASK) as i64 + (g.next() % 9) as i64 - 4) as u64,
            // c far below ab: only a sticky bit, or about an ulp's worth.
            2 => {
                let e = (p & F64::EXP_MASK).saturating_sub((50 + g.next() % 60) << 52).max(1 << 52);
                e | g.frac(false) | sign(2)
            }
            // c = the power of two next to ab: results on binade boundaries.
            3 => (p & (F64::SIGN_MASK | F64::EXP_MASK)) ^ sign(3),
            _ => {
                let fc = g.frac(i % 7 == 0);
                g.with_exp(fc, 2 * span) | sign(4)
            }
        };
        if F64::is_nan(c) || F64::is_inf(c) || c & F64::EXP_MASK == 0 {
            continue;
        }
        for m in [Rz, Rm, Rp] {
            let (fast, reference) = (fma::<F64>(a, b, c, m), exact::fma::<F64>(a, b, c, m));
            assert_eq!(fast, reference, "fma({a:#x}, {b:#x}, {c:#x}) .{}: {fast:#x} vs {reference:#x}", m.name());
            checked += 1;
        }
    }
    assert!(checked > 1_000_000, "{checked}");
}

#[test]
fn every_f16_encoding_converts_to_its_exact_f64_value_subnormals_included() {
    // The fast paths' `to_f64` builds an f16 subnormal from its integer significand (no f64
    // subnormal on the way); `Scalar::to_f64` is an independent derivation (exp2 of the
    // unpacked exponent).
    for x in 0..=0xffffu64 {
        let (fast, reference) = (super::fast::to_f64::<F16>(x), crate::format::Scalar::F16.to_f64(x));
        if F16::is_nan(x) {
            assert!(fast.is_nan() && fast.is_sign_negative() == F16::sign(x), "{x:#06x}");
        } else {
            assert_eq!(fast.to_bits(), reference.to_bits(), "{x:#06x}: {fast:e} against {reference:e}");
        }
    }
}
