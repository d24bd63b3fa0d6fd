//! Kernels MPFR lacks, composed at working precision p with rigorous enclosures (directed
//! rounding throughout, or a bracket checked with directed rounding), for Ziv's loop:
//! rcbrt, erfinv, erfcinv, normcdf, normcdfinv, erfcx, cyl_bessel_i0/i1.

use super::Enc;
use super::Inputs;
use crate::op::{Fmt, Kernel};
use rug::float::{Constant, Round};
use rug::ops::AssignRound;
use rug::Float;
use std::cmp::Ordering;

pub(crate) fn enclose(kernel: Kernel, _fmt: Fmt, inputs: &Inputs, p: u32) -> Enc {
    let x = &inputs.f[0];
    if x.is_nan() {
        return Enc::Nan;
    }
    match kernel {
        Kernel::Rcbrt => rcbrt(x, p),
        Kernel::Erfinv => erfinv(x, p),
        Kernel::Erfcinv => erfcinv(x, p),
        Kernel::Normcdf => normcdf(x, p),
        Kernel::Normcdfinv => normcdfinv(x, p),
        Kernel::Erfcx => erfcx(x, p),
        Kernel::I0 => bessel_i(x, p, false),
        Kernel::I1 => bessel_i(x, p, true),
        k => unreachable!("{k:?} is native or exact"),
    }
}

fn f(prec: u32, v: impl Into<f64>) -> Float {
    Float::with_val(prec, v.into())
}

fn rounded<T>(prec: u32, v: T, r: Round) -> Float
where
    Float: AssignRound<T, Round = Round, Ordering = Ordering>,
{
    let mut y = Float::new(prec);
    y.assign_round(v, r);
    y
}

fn negate(e: Enc) -> Enc {
    match e {
        Enc::Point(v) => Enc::Point(-v),
        Enc::Interval(lo, hi) => Enc::Interval(-hi, -lo),
        e => e,
    }
}

/// 1/cbrt(x): odd; cbrt increasing, so 1/RU(cbrt) <= rcbrt <= 1/RD(cbrt) for x > 0.
/// Exact results (x = 2^(3k)) give equal ends. rcbrt(±0) = ±inf, rcbrt(±inf) = ±0.
fn rcbrt(x: &Float, p: u32) -> Enc {
    if x.is_zero() || x.is_infinite() {
        let inf = if x.is_zero() { f64::INFINITY } else { 0.0 };
        return Enc::Point(f(8, if x.is_sign_negative() { -inf } else { inf }));
    }
    let a = Float::with_val(x.prec(), x.abs_ref());
    let c_lo = rounded(p, a.cbrt_ref(), Round::Down);
    let c_hi = rounded(p, a.cbrt_ref(), Round::Up);
    let lo = rounded(p, c_hi.recip_ref(), Round::Down);
    let hi = rounded(p, c_lo.recip_ref(), Round::Up);
    let e = if lo == hi { Enc::Point(lo) } else { Enc::Interval(lo, hi) };
    if x.is_sign_negative() {
        negate(e)
    } else {
        e
    }
}

/// Bounds of the standard normal CDF Phi(a) = erfc(-a/sqrt 2)/2: `upper` gives a value
/// at least Phi(a), otherwise at most Phi(a). erfc is decreasing, so an upper bound needs a
/// lower bound of t = -a/sqrt(2): the sqrt(2) bound and division direction are chosen so.
fn phi_bound(a: &Float, w: u32, upper: bool) -> Float {
    let s = Float::with_val(a.prec(), -a);
    let sqrt2_lo = rounded(w, Float::with_val(4, 2).sqrt_ref(), Round::Down);
    let sqrt2_hi = rounded(w, Float::with_val(4, 2).sqrt_ref(), Round::Up);
    let nonneg = !s.is_sign_negative();
    let t = match (upper, nonneg) {
        (true, true) => rounded(w, &s / &sqrt2_hi, Round::Down),
        (true, false) => rounded(w, &s / &sqrt2_lo, Round::Down),
        (false, true) => rounded(w, &s / &sqrt2_lo, Round::Up),
        (false, false) => rounded(w, &s / &sqrt2_hi, Round::Up),
    };
    let e = rounded(w, t.erfc_ref(), if upper { Round::Up } else { Round::Down });
    e >> 1u32
}

/// normcdf(x) = Phi(x), enclosed by the directed bounds. Phi(0) = 1/2 exactly (t = 0).
fn normcdf(x: &Float, p: u32) -> Enc {
    let w = p + 8;
    let lo = phi_bound(x, w, false);
    let hi = phi_bound(x, w, true);
    if lo == hi {
        Enc::Point(lo)
    } else {
        Enc::Interval(lo, hi)
    }
}

/// Newton's method for a root of a monotone function `g` (value and derivative computed by
/// `step`), from `y`, at working precision `w`; returns the last iterate.
fn newton(mut y: Float, w: u32, mut step: impl FnMut(&Float) -> Float) -> Float {
    for _ in 0..400 {
        let d = step(&y);
        if d.is_zero() || d.is_nan() {
            break;
        }
        let small = match (d.get_exp(), y.get_exp()) {
            (Some(ed), Some(ey)) => ed < ey - w as i32 + 4,
            _ => false,
        };
        y = Float::with_val(w, &y - &d);
        if small {
            break;
        }
    }
    y
}

/// The root y > 0 of erfc(y) = t for 0 < t < 1, as a checked bracket at precision p.
///
/// Newton on h(y) = ln erfc(y) - ln t, which is concave and decreasing, so after the first
/// step the iterates approach the root monotonically. The bracket [y-d, y+d] is then proven
/// with directed rounding: RD(erfc(y-d)) >= t and RU(erfc(y+d)) <= t.
fn inv_erfc(t: &Float, p: u32) -> Enc {
    let w = p + 16;
    let ln_t = rounded(w, t.ln_ref(), Round::Nearest);
    let start = Float::with_val(w, -&ln_t).max(&f(w, 0.0)).sqrt();
    let two_over_sqrt_pi = {
        let pi = Float::with_val(w, Constant::Pi);
        Float::with_val(w, pi.sqrt().recip()) << 1
    };
    let y = newton(start, w, |y| {
        let e = Float::with_val(w, y.erfc_ref());
        let h = Float::with_val(w, e.ln_ref()) - &ln_t;
        let y2 = Float::with_val(w, y.square_ref());
        // h'(y) = -(2/sqrt(pi)) exp(-y^2) / erfc(y)
        let g: Float = Float::with_val(w, (-y2).exp()) * &two_over_sqrt_pi;
        let dh = -g / e;
        h / dh
    });
    bracket(&y, p, |v, r| rounded(w, v.erfc_ref(), r), t, false)
}

/// The root y >= 0 of erf(y) = a for 0 <= a <= 1/2 (erf concave increasing on y > 0: Newton
/// from a*sqrt(pi)/2, left of the root, increases monotonically to it).
fn inv_erf(a: &Float, p: u32) -> Enc {
    if a.is_zero() {
        return Enc::Point(a.clone());
    }
    let w = p + 16;
    let sqrt_pi = Float::with_val(w, Float::with_val(w, Constant::Pi).sqrt_ref());
    let start = Float::with_val(w, a * &sqrt_pi) >> 1;
    let y = newton(start, w, |y| {
        let g = Float::with_val(w, y.erf_ref()) - a;
        let y2 = Float::with_val(w, y.square_ref());
        let dg = Float::with_val(w, (-y2).exp()) / &sqrt_pi * 2u32;
        g / dg
    });
    bracket(&y, p, |v, r| rounded(w, v.erf_ref(), r), a, true)
}

/// Proves that the root of g(y) = target lies in [y - d, y + d] for a monotone g evaluated
/// with rounding `r` by `g`, widening d a few times; `Undecided` if that fails.
fn bracket(
    y: &Float,
    p: u32,
    g: impl Fn(&Float, Round) -> Float,
    target: &Float,
    increasing: bool,
) -> Enc {
    let w = p + 16;
    for widen in [2i32, 6, 10] {
        let d = Float::with_val(w, y.abs_ref()) >> (p as i32 - widen);
        let lo = rounded(w, y - &d, Round::Down);
        let hi = rounded(w, y + &d, Round::Up);
        let ok = if increasing {
            g(&lo, Round::Up) <= *target && g(&hi, Round::Down) >= *target
        } else {
            g(&lo, Round::Down) >= *target && g(&hi, Round::Up) <= *target
        };
        if ok {
            return Enc::Interval(lo, hi);
        }
    }
    Enc::Undecided
}

/// erfinv(x), |x| <= 1. erfinv(±0) = ±0, erfinv(±1) = ±inf, NaN outside [-1, 1].
/// |x| > 1/2 uses erfc: erfinv(x) = erfcinv(1 - x), 1 - |x| exact (Sterbenz).
fn erfinv(x: &Float, p: u32) -> Enc {
    let a = Float::with_val(x.prec(), x.abs_ref());
    let e = match a.partial_cmp(&1.0) {
        Some(Ordering::Greater) => return Enc::Nan,
        Some(Ordering::Equal) => Enc::Point(f(8, f64::INFINITY)),
        _ if a <= 0.5 => inv_erf(&a, p),
        _ => inv_erfc(&Float::with_val(x.prec() + 1, 1 - &a), p),
    };
    if x.is_sign_negative() {
        negate(e)
    } else {
        e
    }
}

/// erfcinv(t), 0 <= t <= 2: erfcinv(0) = +inf, erfcinv(1) = 0, erfcinv(2) = -inf.
/// t in [1/2, 3/2]: erfinv(1 - t) (exact by Sterbenz); t > 3/2: -erfcinv(2 - t) (exact).
fn erfcinv(t: &Float, p: u32) -> Enc {
    if *t < 0.0 || *t > 2.0 {
        return Enc::Nan;
    }
    if t.is_zero() {
        return Enc::Point(f(8, f64::INFINITY));
    }
    if *t == 2.0 {
        return Enc::Point(f(8, f64::NEG_INFINITY));
    }
    if *t < 0.5 {
        inv_erfc(t, p)
    } else if *t <= 1.5 {
        let u = Float::with_val(t.prec() + 1, 1 - t);
        if u.is_zero() {
            return Enc::Point(f(8, 0.0));
        }
        erfinv(&u, p)
    } else {
        negate(inv_erfc(&Float::with_val(t.prec() + 1, 2 - t), p))
    }
}

/// normcdfinv(q), 0 <= q <= 1: -inf at 0, 0 at 1/2, +inf at 1. For q > 1/2,
/// normcdfinv(q) = -normcdfinv(1 - q) with 1 - q exact (Sterbenz), so Phi is only evaluated
/// where it is small and erfc keeps full relative accuracy.
fn normcdfinv(q: &Float, p: u32) -> Enc {
    if *q < 0.0 || *q > 1.0 {
        return Enc::Nan;
    }
    if q.is_zero() {
        return Enc::Point(f(8, f64::NEG_INFINITY));
    }
    if *q == 1.0 {
        return Enc::Point(f(8, f64::INFINITY));
    }
    if *q == 0.5 {
        return Enc::Point(f(8, 0.0));
    }
    if *q > 0.5 {
        return negate(normcdfinv(&Float::with_val(q.prec() + 1, 1 - q), p));
    }
    // Seed: y = -sqrt(2) * erfcinv(2q), then prove the bracket on Phi itself.
    let w = p + 16;
    let two_q = Float::with_val(q.prec(), q * 2u32);
    let z = match inv_erfc(&two_q, p + 8) {
        Enc::Interval(lo, hi) => Float::with_val(w, &lo + &hi) >> 1u32,
        _ => return Enc::Undecided,
    };
    let scaled: Float = z * Float::with_val(w, Float::with_val(4, 2).sqrt_ref());
    let y = -scaled;
    bracket(&y, p, |v, r| phi_bound(v, w, r == Round::Up), q, true)
}

/// erfcx(x) = exp(x^2) erfc(x). For x < 16384 directly (exp(x^2) and erfc(x) both within
/// MPFR's exponent range, each correctly rounded: relative error <= 3 * 2^-w). For larger x
/// the asymptotic series erfcx(x) = 1/(x sqrt(pi)) * sum (-1)^n (2n-1)!!/(2x^2)^n, whose
/// truncation error is below the first omitted term. For x <= -16384 the value exceeds
/// 2^(10^8), far beyond every format: enclosed by [2^(10^6), +inf].
fn erfcx(x: &Float, p: u32) -> Enc {
    let w = p + 16;
    if x.is_infinite() {
        return Enc::Point(f(8, if x.is_sign_negative() { f64::INFINITY } else { 0.0 }));
    }
    if *x <= -16384.0 {
        return Enc::Interval(Float::with_val(8, 1) << 1_000_000, f(8, f64::INFINITY));
    }
    if *x < 16384.0 {
        let x2 = Float::with_val(2 * x.prec(), x.square_ref());
        let y = Float::with_val(w, x2.exp_ref()) * Float::with_val(w, x.erfc_ref());
        return Enc::relative(y, -(w as i32) + 3);
    }
    // a = 1/(2x^2) <= 2^-29; terms t_n = t_{n-1} * (2n-1) a.
    let a = Float::with_val(w, Float::with_val(2 * x.prec(), x.square_ref()) << 1).recip();
    let (mut sum, mut term) = (f(w, 1.0), f(w, 1.0));
    let mut n = 1u32;
    loop {
        term = Float::with_val(w, &term * &a) * (2 * n - 1);
        if term.get_exp().is_none_or(|e| e < -(w as i32) - 4) {
            break;
        }
        if n % 2 == 1 {
            sum -= &term;
        } else {
            sum += &term;
        }
        n += 1;
    }
    let sqrt_pi = Float::with_val(w, Float::with_val(w, Constant::Pi).sqrt_ref());
    let y = sum / (Float::with_val(w, x * &sqrt_pi));
    // n roundings of relative size 2^-w on terms < 1, plus the omitted term < 2^-(w+4).
    Enc::relative(y, -(w as i32) + 2 + (32 - n.leading_zeros()) as i32)
}

/// Modified Bessel functions of the first kind, I0 (even) and I1 (odd), by their series
/// I0(x) = sum (x^2/4)^k / (k!)^2, I1(x) = (x/2) sum (x^2/4)^k / (k! (k+1)!).
/// All terms are positive: the lower sum rounds every operation down, the upper sum up and
/// adds the tail, bounded by the last term once the term ratio is <= 1/2.
/// |x| >= 1000: I0, I1 > 10^421 (the k = 400 term alone), beyond every format: [2^1100, inf].
fn bessel_i(x: &Float, p: u32, order1: bool) -> Enc {
    let neg = order1 && x.is_sign_negative();
    let sign = |e: Enc| if neg { negate(e) } else { e };
    if x.is_infinite() || *x.as_abs() >= 1000.0 {
        return sign(Enc::Interval(Float::with_val(8, 1) << 1100, f(8, f64::INFINITY)));
    }
    if x.is_zero() {
        return Enc::Point(if order1 { x.clone() } else { f(8, 1.0) });
    }
    let w = p + 16;
    let ax = Float::with_val(x.prec(), x.abs_ref());
    let q = Float::with_val(2 * ax.prec(), ax.square_ref()) >> 2; // x^2/4, exact
    let sum = |r: Round| -> Float {
        let mut term = if order1 { rounded(w, &ax >> 1u32, r) } else { f(w, 1.0) };
        let mut s = term.clone();
        let mut k = 0u32;
        loop {
            let denom = if order1 { (k + 1) * (k + 2) } else { (k + 1) * (k + 1) };
            term = rounded(w, &term * &q, r);
            term = rounded(w, &term / denom, r);
            s = rounded(w, &s + &term, r);
            k += 1;
            // next ratio q/((k+1)(k+1 or k+2)) <= 1/2 and the term negligible: stop.
            let ratio_small = Float::with_val(w, &q * 2u32) <= (k + 1) * (k + 1);
            let negligible = match (term.get_exp(), s.get_exp()) {
                (Some(et), Some(es)) => et < es - w as i32 - 2,
                _ => true,
            };
            if ratio_small && negligible {
                if r == Round::Up {
                    s = rounded(w, &s + &term, r); // tail <= last term
                }
                return s;
            }
        }
    };
    let (lo, hi) = (sum(Round::Down), sum(Round::Up));
    sign(Enc::Interval(lo, hi))
}
