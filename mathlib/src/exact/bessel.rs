//! jn/yn of large order: results proven to underflow or overflow by a bound, decided before
//! MPFR (whose series costs grow with the order and the argument), and a cap on MPFR's work.
//!
//! MPFR's jn/yn use the Hankel asymptotic expansion when |x| is large against n^2, and power
//! series otherwise, whose cost grows like n (jn: |n|! at a precision growing with |x|) and n^2
//! (yn: (n!)^2 as an integer); for |x| in the billions the series asks for precisions GMP cannot
//! allocate (it aborts the process) or asserts on z^2 overflowing a word. Hence, per input:
//! 1. J_n(x) for 0 < |x| <= |n| is bounded by Kapteyn's inequality (DLMF 10.14.5):
//!    |J_n(n z)| <= exp(n (s - ln((1 + s) / z))), s = sqrt(1 - z^2), 0 < z <= 1;
//!    when that is below the format's half smallest subnormal the result is that of any value
//!    of the known sign below it. J_n(x) > 0 for 0 < x < j_{n,1}, and j_{n,1} > n.
//! 2. Y_m(x), m >= 2, 0 < x < m - 1: the Wronskian J_{n+1} Y_n - J_n Y_{n+1} = 2/(pi x)
//!    (DLMF 10.5.4) with n = m - 1, J_n, J_{n+1} > 0 and Y_n < 0 there (x is below their first
//!    zeros, all above n), gives Y_m(x) < 0 and |Y_m(x)| >= 2 / (pi x J_n(x)); with step 1's
//!    bound on J_n, beyond the largest finite value the result overflows.
//! 3. Otherwise MPFR, where its cost is known to be small (`quick`), or `BeyondReference`.
//! Negative orders and arguments by J_{-n} = (-1)^n J_n, J_n(-x) = (-1)^n J_n(x),
//! Y_{-n} = (-1)^n Y_n.

use super::Enc;
use crate::op::{Fmt, Kernel};
use rug::Float;

/// What decides jn/yn(n, x).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Decision {
    /// |exact| < 2^`below` (below half the smallest subnormal), of sign `negative`.
    Underflow { negative: bool, below: i32 },
    /// |exact| > 2^`above` (beyond the largest finite value), of sign `negative`.
    Overflow { negative: bool, above: i32 },
    /// MPFR computes it quickly.
    Mpfr,
    /// Neither: MPFR would take minutes or more (or abort).
    Beyond(&'static str),
}

/// Where MPFR's cost was measured small (a few tenths of a second per evaluation at 160 bits
/// on one core; `math eval` evaluates up to three times): |x| >= n^2 (MPFR's asymptotic
/// expansion needs |x| > n^2/2, and is tried above `ASYMPTOTIC_ABOVE`), or the series within these bounds
/// (jn(30000, 30000): 0.2 s, jn(1000, 10000): 0.1 s; yn(1000, 1000): 0.2 s, yn(100, 5000): 1.4 s).
const QUICK: &[(Kernel, u64, f64)] = &[
    // (kernel, largest |n|, largest |x|) of the series
    (Kernel::Jn, 30_000, 10_000.0),
    (Kernel::Yn, 1_000, 1_500.0),
];

/// The asymptotic expansion is tried by MPFR above |x| = prec/2 + 3 (83 at 160 bits).
const ASYMPTOTIC_ABOVE: f64 = 100.0;

fn quick(kernel: Kernel, m: u64, a: f64) -> bool {
    let mf = m as f64;
    if m > i32::MAX as u64 {
        return false; // n = -2^31: MPFR's order of |n| takes an i32 (`native::bessel_n`)
    }
    if a >= mf * mf && a > ASYMPTOTIC_ABOVE {
        return true;
    }
    QUICK.iter().any(|&(k, max_m, max_a)| k == kernel && m <= max_m && a <= max_a)
}

/// ln of Kapteyn's bound on |J_m(x)|, 0 < a = |x| <= m, m >= 1, rounded up: the f64
/// evaluation's error (a few ulps of ln z and s, times m) is added.
fn ln_j_bound(m: u64, a: f64) -> f64 {
    let mf = m as f64;
    let z = a / mf;
    let s = ((1.0 - z) * (1.0 + z)).sqrt();
    let l = s.ln_1p() - z.ln();
    let f = s - l;
    mf * f + mf * (l.abs() + s + 1.0) * 1e-14 + 1e-6
}

/// How jn/yn(n, x) is decided in format `fmt` (exponent bounds of its subnormals and finite
/// values; the sign rules are those of the real functions).
pub(crate) fn decide(kernel: Kernel, fmt: Fmt, n: i64, x: f64) -> Decision {
    if !x.is_finite() || x == 0.0 || (kernel == Kernel::Yn && x < 0.0) {
        return Decision::Mpfr; // special values, and yn's NaN: immediate in MPFR
    }
    let (below, above) = match fmt {
        // Half the smallest subnormal is 2^-150 / 2^-1075; the largest finite < 2^128 / 2^1024.
        Fmt::F32 => (-151, 129),
        Fmt::F64 => (-1076, 1025),
    };
    let m = n.unsigned_abs();
    let a = x.abs();
    let odd = m % 2 == 1;
    let ln2 = std::f64::consts::LN_2;
    match kernel {
        Kernel::Jn if m >= 1 && a <= m as f64 && ln_j_bound(m, a) < below as f64 * ln2 => {
            Decision::Underflow { negative: odd && ((x < 0.0) != (n < 0)), below }
        }
        Kernel::Yn if m >= 2 && a < (m - 1) as f64 => {
            // ln |Y_m(x)| >= ln(2 / (pi x)) - ln J_{m-1}(x), rounded down.
            let ln_y = (2.0 / (std::f64::consts::PI * a)).ln() - 1e-12 - ln_j_bound(m - 1, a);
            if ln_y > above as f64 * ln2 {
                Decision::Overflow { negative: !(n < 0 && odd), above }
            } else if quick(kernel, m, a) {
                Decision::Mpfr
            } else {
                Decision::Beyond(BEYOND)
            }
        }
        k if quick(k, m, a) => Decision::Mpfr,
        _ => Decision::Beyond(BEYOND),
    }
}

const BEYOND: &str = "no bound decides the result and MPFR's series for this order and argument \
would take minutes or more (|x| >= n^2, or jn with |n| <= 30000 and |x| <= 10000, or yn with \
|n| <= 1000 and |x| <= 1500, are computed)";

/// A value standing in for the exact one: beyond the threshold on the same side, so it rounds
/// as the exact value does in every direction (both are below half the smallest subnormal, or
/// both beyond the largest finite value).
pub(crate) fn stand_in(d: Decision) -> Option<Float> {
    let (negative, exp): (bool, i32) = match d {
        Decision::Underflow { negative, .. } => (negative, -100_000),
        Decision::Overflow { negative, .. } => (negative, 100_000),
        _ => return None,
    };
    let v = Float::with_val(2, 1) << exp;
    Some(if negative { -v } else { v })
}

/// The enclosure proven by the bound: between zero and 2^below, or beyond 2^above.
pub(crate) fn enclosure(d: Decision) -> Option<Enc> {
    let (negative, lo, hi) = match d {
        Decision::Underflow { negative, below } => (negative, Float::with_val(2, 0), Float::with_val(2, 1) << below),
        Decision::Overflow { negative, above } => {
            (negative, Float::with_val(2, 1) << above, Float::with_val(2, f64::INFINITY))
        }
        _ => return None,
    };
    Some(if negative { Enc::Interval(-hi, -lo) } else { Enc::Interval(lo, hi) })
}

#[cfg(test)]
mod tests;
