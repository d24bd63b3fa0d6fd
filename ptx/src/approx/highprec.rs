//! Test-only independent high-precision reference: fixed-point big integers (2^-1024
//! resolution) with Taylor/atanh series, no CORE-MATH, no floating point. The random checks
//! compare the acceptance model against it.

use std::sync::OnceLock;

use num_bigint::{BigInt, Sign};
use num_traits::{One, Signed, Zero};

/// Fraction bits.
pub const P: u32 = 1024;

/// A real number n / 2^P.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fx(pub BigInt);

impl Fx {
    pub fn int(v: i64) -> Fx {
        Fx(BigInt::from(v) << P)
    }
    /// The exact value of a finite f64 (None if it needs more than P fraction bits).
    pub fn from_f64(v: f64) -> Option<Fx> {
        assert!(v.is_finite());
        if v == 0.0 {
            return Some(Fx(BigInt::zero()));
        }
        let bits = v.to_bits();
        let e_field = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1u64 << 52) - 1);
        let (m, e) = if e_field == 0 { (frac, -1074) } else { (frac | 1 << 52, e_field - 1075) };
        let shift = P as i64 + e;
        if shift < 0 && m.trailing_zeros() < (-shift) as u32 {
            return None;
        }
        let n = if shift >= 0 { BigInt::from(m) << shift as usize } else { BigInt::from(m >> (-shift) as u32) };
        Some(Fx(if v < 0.0 { -n } else { n }))
    }
    pub fn add(&self, o: &Fx) -> Fx {
        Fx(&self.0 + &o.0)
    }
    pub fn sub(&self, o: &Fx) -> Fx {
        Fx(&self.0 - &o.0)
    }
    pub fn mul(&self, o: &Fx) -> Fx {
        Fx((&self.0 * &o.0) >> P)
    }
    pub fn div(&self, o: &Fx) -> Fx {
        Fx((&self.0 << P) / &o.0)
    }
    pub fn div_int(&self, d: i64) -> Fx {
        Fx(&self.0 / d)
    }
    pub fn shl(&self, k: i64) -> Fx {
        if k >= 0 {
            Fx(&self.0 << k as usize)
        } else {
            Fx(&self.0 >> (-k) as usize)
        }
    }
    pub fn abs(&self) -> Fx {
        Fx(self.0.abs())
    }
    pub fn is_negative(&self) -> bool {
        self.0.sign() == Sign::Minus
    }
    /// Nearest integer (ties away).
    pub fn round(&self) -> BigInt {
        let half = BigInt::one() << (P - 1);
        if self.is_negative() {
            -((-&self.0 + half) >> P)
        } else {
            (&self.0 + half) >> P
        }
    }
    /// Approximate f64 value (for reports only).
    pub fn to_f64(&self) -> f64 {
        let bits = self.0.bits() as i64;
        let shift = (bits - 60).max(0);
        let top: i64 = i64::try_from(&self.0 >> shift as usize).unwrap();
        top as f64 * 2f64.powi((shift - P as i64) as i32)
    }
}

/// sum of x^(2k+1)/(2k+1), |x| < 1 (atanh series).
fn atanh(x: &Fx) -> Fx {
    let x2 = x.mul(x);
    let mut term = x.clone();
    let mut sum = Fx(BigInt::zero());
    let mut k = 1i64;
    while !term.0.is_zero() {
        sum = sum.add(&term.div_int(k));
        term = term.mul(&x2);
        k += 2;
    }
    sum
}

/// atan(1/n) for an integer n >= 2.
fn atan_inv(n: i64) -> Fx {
    let mut term = Fx::int(1).div_int(n); // 1/n^(2k+1)
    let mut sum = Fx(BigInt::zero());
    let mut k = 1i64;
    let mut sign = 1;
    while !term.0.is_zero() {
        let t = term.div_int(k);
        sum = if sign > 0 { sum.add(&t) } else { sum.sub(&t) };
        term = term.div_int(n * n);
        k += 2;
        sign = -sign;
    }
    sum
}

pub fn ln2() -> &'static Fx {
    static C: OnceLock<Fx> = OnceLock::new();
    C.get_or_init(|| atanh(&Fx::int(1).div_int(3)).shl(1))
}

pub fn pi() -> &'static Fx {
    static C: OnceLock<Fx> = OnceLock::new();
    // Machin: pi = 16 atan(1/5) - 4 atan(1/239).
    C.get_or_init(|| atan_inv(5).shl(4).sub(&atan_inv(239).shl(2)))
}

/// exp(r) for |r| <= 1 (Taylor).
fn exp_small(r: &Fx) -> Fx {
    let mut term = Fx::int(1);
    let mut sum = Fx::int(1);
    let mut k = 1i64;
    while !term.0.is_zero() {
        term = term.mul(r).div_int(k);
        sum = sum.add(&term);
        k += 1;
    }
    sum
}

/// 2^x, or None when 2^x > 2^2000 (beyond what the checks need).
pub fn exp2(x: &Fx) -> Option<Fx> {
    let k = x.round();
    let Ok(k64) = i64::try_from(&k) else {
        return if x.is_negative() { Some(Fx(BigInt::zero())) } else { None };
    };
    if k64 > 2000 {
        return None;
    }
    if k64 < -(P as i64) {
        return Some(Fx(BigInt::zero()));
    }
    let f = x.sub(&Fx(k << P));
    Some(exp_small(&f.mul(ln2())).shl(k64))
}

/// ln(x) for x > 0.
pub fn ln(x: &Fx) -> Fx {
    // x = m 2^e, m in [1, 2): ln x = e ln2 + 2 atanh((m-1)/(m+1)).
    let e = x.0.bits() as i64 - 1 - P as i64;
    let m = x.shl(-e);
    let one = Fx::int(1);
    let z = m.sub(&one).div(&m.add(&one));
    ln2().mul(&Fx::int(e)).add(&atanh(&z).shl(1))
}

pub fn log2(x: &Fx) -> Fx {
    ln(x).div(ln2())
}

/// (sin x, cos x) for |x| < 2^130.
pub fn sin_cos(x: &Fx) -> (Fx, Fx) {
    let half_pi = pi().shl(-1);
    let k = x.div(&half_pi).round();
    let r = x.sub(&Fx(&k * &half_pi.0));
    // Taylor for sin r and cos r, |r| <= pi/4.
    let r2 = r.mul(&r);
    let (mut s, mut c) = (r.clone(), Fx::int(1));
    let (mut ts, mut tc) = (r.clone(), Fx::int(1));
    let mut n = 1i64;
    while !ts.0.is_zero() || !tc.0.is_zero() {
        ts = ts.mul(&r2).div_int((n + 1) * (n + 2));
        tc = tc.mul(&r2).div_int(n * (n + 1));
        if (n / 2) % 2 == 0 {
            s = s.sub(&ts);
            c = c.sub(&tc);
        } else {
            s = s.add(&ts);
            c = c.add(&tc);
        }
        n += 2;
    }
    let q = i64::try_from(k % 4i32).unwrap().rem_euclid(4);
    let neg = |v: Fx| Fx(-v.0);
    match q {
        0 => (s, c),
        1 => (c, neg(s)),
        2 => (neg(s), neg(c)),
        _ => (neg(c), s),
    }
}

pub fn tanh(x: &Fx) -> Fx {
    if x.abs() > Fx::int(600) {
        // |tanh x| = 1 - 2e^-2|x| + ... within 2^-1700 of 1: one unit below.
        let v = Fx(Fx::int(1).0 - 1);
        return if x.is_negative() { Fx(-v.0) } else { v };
    }
    // e^{2x} = 2^{2x / ln 2}
    let e = exp2(&x.shl(1).div(ln2())).unwrap();
    let one = Fx::int(1);
    e.sub(&one).div(&e.add(&one))
}

pub fn sqrt(x: &Fx) -> Fx {
    Fx(BigInt::from_biguint(Sign::Plus, (x.0.magnitude() << P as usize).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &Fx, b: f64, tol: f64) {
        assert!((a.to_f64() - b).abs() <= tol * b.abs().max(1e-300), "{} vs {b}", a.to_f64());
    }

    #[test]
    fn constants_and_functions_agree_with_known_values() {
        close(pi(), std::f64::consts::PI, 1e-15);
        close(ln2(), std::f64::consts::LN_2, 1e-15);
        close(&exp2(&Fx::from_f64(0.5).unwrap()).unwrap(), std::f64::consts::SQRT_2, 1e-15);
        assert_eq!(exp2(&Fx::int(-3)).unwrap(), Fx::from_f64(0.125).unwrap());
        close(&log2(&Fx::from_f64(10.0).unwrap()), std::f64::consts::LOG2_10, 1e-15);
        let (s, c) = sin_cos(&Fx::from_f64(1.0).unwrap());
        close(&s, 0.8414709848078965, 1e-15);
        close(&c, 0.5403023058681398, 1e-15);
        let (s, _) = sin_cos(&Fx::from_f64(1e22).unwrap());
        close(&s, -0.8522008497671888, 1e-15); // the classic hard reduction
        close(&tanh(&Fx::from_f64(0.5).unwrap()), 0.46211715726000974, 1e-15);
        close(&sqrt(&Fx::int(2)), std::f64::consts::SQRT_2, 1e-15);
    }
}
