//! Kernels that MPFR evaluates correctly rounded at any precision, directly or after an exact
//! preprocessing (the norms: exact sum of squares, then one correctly rounded sqrt/rec_sqrt).

use super::{nan_bits, round_to, Enc, Inputs};
use crate::op::{Dir, Fmt, Kernel};
use rug::float::Round;
use rug::ops::{AssignRound, NegAssign, Pow};
use rug::{Assign, Float};
use std::cmp::Ordering;

/// Computes one result into `y` (whose precision is set) rounded in direction `round`; returns
/// the ternary value (sign of rounded - exact).
pub(crate) type NativeFn = fn(&Inputs, &mut Float, Round) -> Ordering;

/// The MPFR evaluation of result `output` of `kernel`, if MPFR has it.
pub(crate) fn function(kernel: Kernel, output: usize) -> Option<NativeFn> {
    use Kernel::*;
    let f: NativeFn = match (kernel, output) {
        (Add, _) => |i, y, r| y.assign_round(&i.f[0] + &i.f[1], r),
        (Sub, _) => |i, y, r| y.assign_round(&i.f[0] - &i.f[1], r),
        (Mul, _) => |i, y, r| y.assign_round(&i.f[0] * &i.f[1], r),
        (Div, _) => |i, y, r| y.assign_round(&i.f[0] / &i.f[1], r),
        (Fma, _) => |i, y, r| y.assign_round(i.f[0].mul_add_ref(&i.f[1], &i.f[2]), r),
        (Rcp, _) => |i, y, r| y.assign_round(i.f[0].recip_ref(), r),
        (Sqrt, _) => |i, y, r| y.assign_round(i.f[0].sqrt_ref(), r),
        (Rsqrt, _) => |i, y, r| rsqrt(&i.f[0], y, r),
        (Cbrt, _) => |i, y, r| y.assign_round(i.f[0].cbrt_ref(), r),
        (Hypot, _) => |i, y, r| y.assign_round(i.f[0].hypot_ref(&i.f[1]), r),
        (Rhypot | Rnorm3d | Rnorm4d | Rnorm, _) => |i, y, r| norm(&i.f, y, r, true),
        (Norm3d | Norm4d | Norm, _) => |i, y, r| norm(&i.f, y, r, false),
        (Exp, _) => |i, y, r| y.assign_round(i.f[0].exp_ref(), r),
        (Exp2, _) => |i, y, r| y.assign_round(i.f[0].exp2_ref(), r),
        (Exp10, _) => |i, y, r| y.assign_round(i.f[0].exp10_ref(), r),
        (Expm1, _) => |i, y, r| y.assign_round(i.f[0].exp_m1_ref(), r),
        (Log, _) => |i, y, r| y.assign_round(i.f[0].ln_ref(), r),
        (Log2, _) => |i, y, r| y.assign_round(i.f[0].log2_ref(), r),
        (Log10, _) => |i, y, r| y.assign_round(i.f[0].log10_ref(), r),
        (Log1p, _) => |i, y, r| y.assign_round(i.f[0].ln_1p_ref(), r),
        (Sin, _) | (Sincos, 0) => |i, y, r| y.assign_round(i.f[0].sin_ref(), r),
        (Cos, _) | (Sincos, _) => |i, y, r| y.assign_round(i.f[0].cos_ref(), r),
        (Tan, _) => |i, y, r| y.assign_round(i.f[0].tan_ref(), r),
        // MPFR 4.2's sinpi/cospi follow IEEE 754-2019 sinPi/cosPi (signs of exact zeros).
        (Sinpi, _) | (Sincospi, 0) => |i, y, r| y.assign_round(i.f[0].sin_pi_ref(), r),
        (Cospi, _) | (Sincospi, _) => |i, y, r| y.assign_round(i.f[0].cos_pi_ref(), r),
        (Asin, _) => |i, y, r| y.assign_round(i.f[0].asin_ref(), r),
        (Acos, _) => |i, y, r| y.assign_round(i.f[0].acos_ref(), r),
        (Atan, _) => |i, y, r| y.assign_round(i.f[0].atan_ref(), r),
        // atan2(y, x): the first argument is y.
        (Atan2, _) => |i, y, r| y.assign_round(i.f[0].atan2_ref(&i.f[1]), r),
        (Sinh, _) => |i, y, r| y.assign_round(i.f[0].sinh_ref(), r),
        (Cosh, _) => |i, y, r| y.assign_round(i.f[0].cosh_ref(), r),
        (Tanh, _) => |i, y, r| y.assign_round(i.f[0].tanh_ref(), r),
        (Asinh, _) => |i, y, r| y.assign_round(i.f[0].asinh_ref(), r),
        (Acosh, _) => |i, y, r| y.assign_round(i.f[0].acosh_ref(), r),
        (Atanh, _) => |i, y, r| y.assign_round(i.f[0].atanh_ref(), r),
        // mpfr_pow implements the C99 / IEEE 754-2008 special cases of pow.
        (Pow, _) => |i, y, r| y.assign_round((&i.f[0]).pow(&i.f[1]), r),
        (Erf, _) => |i, y, r| y.assign_round(i.f[0].erf_ref(), r),
        (Erfc, _) => |i, y, r| y.assign_round(i.f[0].erfc_ref(), r),
        (Tgamma, _) => |i, y, r| y.assign_round(i.f[0].gamma_ref(), r),
        (Lgamma, _) => |i, y, r| {
            // lgamma is log|Gamma(x)|; y's precision >= the argument's, so the copy is exact.
            y.assign(&i.f[0]);
            y.ln_abs_gamma_round(r).1
        },
        (J0, _) => |i, y, r| y.assign_round(i.f[0].j0_ref(), r),
        (J1, _) => |i, y, r| y.assign_round(i.f[0].j1_ref(), r),
        (Y0, _) => |i, y, r| y.assign_round(i.f[0].y0_ref(), r),
        (Y1, _) => |i, y, r| y.assign_round(i.f[0].y1_ref(), r),
        (Jn, _) => |i, y, r| bessel_n(i, y, r, false),
        (Yn, _) => |i, y, r| bessel_n(i, y, r, true),
        (Ldexp | Scalbn | Scalbln, _) => |i, y, r| {
            // x * 2^n is exact in MPFR's exponent range; |n| > 20000 gives the same result
            // as 20000 in both formats (overflow or underflow), so clamp to stay in range.
            y.assign(&i.f[0]);
            *y <<= i.n.clamp(-20000, 20000) as i32;
            let _ = r;
            Ordering::Equal
        },
        (Fmod, _) => |i, y, r| y.assign_round(&i.f[0] % &i.f[1], r),
        (Remainder, _) => |i, y, r| y.assign_round(i.f[0].remainder_ref(&i.f[1]), r),
        (Fdim, _) => |i, y, r| {
            let (a, b) = (&i.f[0], &i.f[1]);
            if a.is_nan() || b.is_nan() {
                y.assign(f64::NAN);
                Ordering::Equal
            } else if a > b {
                y.assign_round(a - b, r)
            } else {
                y.assign(0.0);
                Ordering::Equal
            }
        },
        (Trunc, _) => |i, y, r| y.assign_round(i.f[0].trunc_ref(), r),
        (Round, _) => |i, y, r| y.assign_round(i.f[0].round_ref(), r),
        (Rint | Nearbyint, _) => |i, y, r| y.assign_round(i.f[0].round_even_ref(), r),
        (Ceil, _) => |i, y, r| y.assign_round(i.f[0].ceil_ref(), r),
        (Floor, _) => |i, y, r| y.assign_round(i.f[0].floor_ref(), r),
        _ => return None,
    };
    Some(f)
}

/// jn/yn(n, x) as (-1)^n times the function of order |n|: MPFR 4.2 passes a negative n
/// unchanged to its asymptotic expansion, which then always fails (it reads n as unsigned),
/// and falls back on the power series, whose cost grows with |x| without bound (it aborts in
/// GMP for |x| near 1e23). `exact/bessel.rs` keeps |n| = 2^31 (beyond an i32) from here.
fn bessel_n(i: &Inputs, y: &mut Float, r: Round, second_kind: bool) -> Ordering {
    let m = i32::try_from(i.n.unsigned_abs()).expect("|n| <= i32::MAX (bessel::decide)");
    let negate = i.n < 0 && m % 2 == 1;
    // -f rounded in direction r is -(f rounded in the opposite direction).
    let r1 = match (negate, r) {
        (true, Round::Up) => Round::Down,
        (true, Round::Down) => Round::Up,
        (_, r) => r,
    };
    let x = &i.f[0];
    let t = if second_kind { y.assign_round(x.yn_ref(m), r1) } else { y.assign_round(x.jn_ref(m), r1) };
    if negate {
        y.neg_assign();
        return t.reverse();
    }
    t
}

/// 1/sqrt(x). IEEE 754-2019 rSqrt(±0) = ±infinity (and CUDA documents rsqrt(±0) = ±inf);
/// mpfr_rec_sqrt returns +inf for -0, so zeros are handled here.
fn rsqrt(x: &Float, y: &mut Float, r: Round) -> Ordering {
    if x.is_zero() {
        y.assign(if x.is_sign_negative() { f64::NEG_INFINITY } else { f64::INFINITY });
        return Ordering::Equal;
    }
    y.assign_round(x.recip_sqrt_ref(), r)
}

/// sqrt(sum x_i^2), or its reciprocal: the sum of squares is formed exactly (enough precision
/// for every exponent span), so the one MPFR sqrt / rec_sqrt rounding is the only one.
/// C99 hypot and CUDA's norm functions: an infinite argument gives +inf (reciprocal: +0) even
/// when another argument is NaN.
fn norm(xs: &[Float], y: &mut Float, r: Round, reciprocal: bool) -> Ordering {
    if xs.iter().any(|x| x.is_infinite()) {
        y.assign(if reciprocal { 0.0 } else { f64::INFINITY });
        return Ordering::Equal;
    }
    if xs.iter().any(|x| x.is_nan()) {
        y.assign(f64::NAN);
        return Ordering::Equal;
    }
    let exps = xs.iter().filter_map(|x| x.get_exp());
    let (lo, hi) = exps.fold((i32::MAX, i32::MIN), |(lo, hi), e| (lo.min(e), hi.max(e)));
    let xprec = xs.iter().map(|x| x.prec()).max().unwrap_or(1);
    let span = if lo > hi { 0 } else { (hi - lo) as u32 };
    let prec = 2 * span + 2 * xprec + 8 + (usize::BITS - xs.len().leading_zeros());
    let mut sum = Float::new(prec);
    for x in xs {
        let sq = Float::with_val(2 * xprec, x.square_ref());
        sum += &sq;
    }
    if reciprocal {
        y.assign_round(sum.recip_sqrt_ref(), r)
    } else {
        y.assign_round(sum.sqrt_ref(), r)
    }
}

/// Correctly rounded result in format `fmt` and direction `dir`.
pub(crate) fn cr(fmt: Fmt, dir: Dir, inputs: &Inputs, f: NativeFn) -> u64 {
    let round = dir.round();
    let mut y = Float::new(fmt.prec());
    let t = f(inputs, &mut y, round);
    if y.is_nan() {
        return nan_bits(fmt);
    }
    // MPFR rounded to `prec` bits with an unbounded exponent; re-round in the subnormal range
    // using the first rounding's direction (no double-rounding error), then convert: values
    // beyond the largest finite number overflow per direction in mpfr_get_flt / mpfr_get_d.
    let _ = y.subnormalize_ieee_round(t, round);
    round_to(fmt, &y, round)
}

/// Enclosure at precision `prec`: the results rounded down and up.
pub(crate) fn enclose(inputs: &Inputs, f: NativeFn, prec: u32) -> Enc {
    let mut lo = Float::new(prec);
    let t = f(inputs, &mut lo, Round::Down);
    if lo.is_nan() {
        return Enc::Nan;
    }
    if t == Ordering::Equal {
        return Enc::Point(lo);
    }
    let mut hi = Float::new(prec);
    f(inputs, &mut hi, Round::Up);
    Enc::Interval(lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sign rule J_-n = (-1)^n J_n (and Y alike), with its swapped rounding, against MPFR's
    /// own negative orders where MPFR is right: small |x|, which its power series serves.
    #[test]
    fn negative_orders_round_as_mpfr_does_where_mpfr_handles_them() {
        for second_kind in [false, true] {
            for n in -7i64..=-1 {
                for x in [0.375f64, 1.0, 2.5, 7.25] {
                    for r in [Round::Nearest, Round::Up, Round::Down, Round::Zero] {
                        let i = Inputs { f: vec![Float::with_val(53, x)], n };
                        let mut ours = Float::new(24);
                        let t = bessel_n(&i, &mut ours, r, second_kind);
                        let mut mpfr = Float::new(24);
                        let u = if second_kind {
                            mpfr.assign_round(i.f[0].yn_ref(n as i32), r)
                        } else {
                            mpfr.assign_round(i.f[0].jn_ref(n as i32), r)
                        };
                        assert_eq!((ours.to_f32().to_bits(), t), (mpfr.to_f32().to_bits(), u), "{} n={n} x={x} {r:?}", if second_kind { "yn" } else { "jn" });
                    }
                }
            }
        }
    }
}
