//! `allowed(row, args)`: which results a row's documented bound accepts.
//!
//! How "ulp error" is measured. The appendix (Table 7's caption) states the maximum error as
//! "the absolute value of the difference in ulps between a correctly rounded single-precision
//! result and the result returned by the CUDA library function". We count that difference as
//! the number of steps between the two values in the format's ordered set of values (±0 are
//! one point; the infinities are the steps after the largest finite numbers), which equals the
//! difference divided by the ulp inside a binade. So a bound of k ulps accepts the 2k+1
//! values from k steps below to k steps above the correctly rounded result; a bound of 0 accepts
//! the correctly rounded result's bits only (the sign of a zero included). An exactly infinite
//! result (a pole, an infinite argument) accepts only itself. A NaN result accepts any NaN.
//!
//! An absolute bound e accepts every value v of the format with |v - exact| <= e (the exact
//! value enclosed at 160 bits, the enclosure widened by e), and always the correctly rounded
//! result.

use crate::exact::{self, Enc, Outputs};
use crate::op::{Fmt, Kernel, Value};
use crate::table::{select, Behaviour, Bound, Build, MathFn};
use crate::{fast, MathError};
use arrayvec::ArrayVec;
use rug::float::Round;
use rug::Float;
use std::fmt;

/// Which values of one result are accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accept {
    /// These bits only.
    Exact { fmt: Fmt, bits: u64 },
    /// Every non-NaN value of `fmt` numerically in [lo, hi] (endpoint bits).
    Range { fmt: Fmt, lo: u64, hi: u64 },
    /// Any NaN of `fmt`.
    AnyNan { fmt: Fmt },
    /// This integer.
    Int(i64),
    /// Any of these integers (implementation-defined C constants such as FP_ILOGB0).
    IntOneOf([i64; 2]),
    /// remquo's quotient: C 7.12.10.3 requires the sign of x/y and the magnitude congruent to
    /// the integral quotient's modulo 2^n with n >= 3; checked modulo 8.
    Quotient { negative: bool, low3: u8 },
    /// No documented bound: anything goes. The text says why.
    NoBound(&'static str),
}

/// Total order index of a non-NaN value: ±0 -> 0, negative values negative.
fn ordinal(fmt: Fmt, bits: u64) -> i64 {
    let (sign, mag) = match fmt {
        Fmt::F32 => (bits >> 31 & 1, bits & 0x7fff_ffff),
        Fmt::F64 => (bits >> 63, bits & 0x7fff_ffff_ffff_ffff),
    };
    if sign == 1 {
        -(mag as i64)
    } else {
        mag as i64
    }
}

fn from_ordinal(fmt: Fmt, o: i64) -> u64 {
    let sign = match fmt {
        Fmt::F32 => 1u64 << 31,
        Fmt::F64 => 1u64 << 63,
    };
    if o < 0 {
        sign | o.unsigned_abs()
    } else {
        o as u64
    }
}

fn inf_ordinal(fmt: Fmt) -> i64 {
    match fmt {
        Fmt::F32 => 0x7f80_0000,
        Fmt::F64 => 0x7ff0_0000_0000_0000,
    }
}

fn is_nan(fmt: Fmt, bits: u64) -> bool {
    match fmt {
        Fmt::F32 => f32::from_bits(bits as u32).is_nan(),
        Fmt::F64 => f64::from_bits(bits).is_nan(),
    }
}

impl Accept {
    /// Whether result `bits` is accepted (integers as two's complement).
    pub fn contains(&self, bits: u64) -> bool {
        match *self {
            Accept::Exact { bits: b, .. } => bits == b,
            Accept::Range { fmt, lo, hi } => {
                !is_nan(fmt, bits) && (ordinal(fmt, lo)..=ordinal(fmt, hi)).contains(&ordinal(fmt, bits))
            }
            Accept::AnyNan { fmt } => is_nan(fmt, bits),
            Accept::Int(i) => bits as i64 == i,
            Accept::IntOneOf(v) => v.contains(&(bits as i64)),
            Accept::Quotient { negative, low3 } => {
                let q = bits as i32;
                let sign_ok = q == 0 || (q < 0) == negative;
                sign_ok && (q.unsigned_abs() & 7) as u8 == low3
            }
            Accept::NoBound(_) => true,
        }
    }

    /// A range of `k` steps each side of `bits`, clamped to the infinities.
    fn ulps(fmt: Fmt, bits: u64, k: f64) -> Accept {
        if k < 1.0 {
            return Accept::Exact { fmt, bits };
        }
        let k = k.min(1e15) as i64;
        let (o, inf) = (ordinal(fmt, bits), inf_ordinal(fmt));
        let lo = (o - k).max(-inf);
        let hi = (o + k).min(inf);
        Accept::Range { fmt, lo: from_ordinal(fmt, lo), hi: from_ordinal(fmt, hi) }
    }
}

/// The results a row's bound accepts for one call, with the reference values.
#[derive(Clone, Debug, PartialEq)]
pub struct Allowed {
    pub row: &'static MathFn,
    /// Correctly rounded results (in the row's rounding direction).
    pub reference: Outputs,
    /// One per result, in the order of `MathFn::op.result_types()`.
    pub outputs: ArrayVec<Accept, 2>,
}

impl Allowed {
    /// Whether every result is accepted.
    pub fn accepts(&self, results: &[u64]) -> bool {
        results.len() == self.outputs.len() && self.outputs.iter().zip(results).all(|(a, &r)| a.contains(r))
    }

    /// Whether some result has a documented bound.
    pub fn is_bounded(&self) -> bool {
        self.outputs.iter().any(|a| !matches!(a, Accept::NoBound(_)))
    }
}

/// What `row`'s bound accepts for `args` (bits, as for [`crate::reference`]). The row must
/// apply to the arguments: pick it with [`crate::table::select`].
pub fn allowed(row: &'static MathFn, args: &[u64]) -> Result<Allowed, MathError> {
    if !row.applies_to_args(args) {
        return Err(MathError::Condition { name: row.name, text: row.text });
    }
    let reference = fast::eval(&row.op, args)?;
    let mut outputs = ArrayVec::new();
    for (i, v) in reference.iter().enumerate() {
        outputs.push(accept(row, args, i, v)?);
    }
    Ok(Allowed { row, reference, outputs })
}

/// Rows and acceptance for `name(args)` under `build`; `None` when no row applies (no bound is
/// documented for these arguments).
pub fn allowed_for(name: &str, build: &Build, args: &[u64]) -> Result<Option<Allowed>, MathError> {
    crate::reference::row(name)?;
    select(name, build, args).map(|row| allowed(row, args)).transpose()
}

fn accept(row: &'static MathFn, args: &[u64], i: usize, v: &Value) -> Result<Accept, MathError> {
    let fmt = row.op.fmt;
    let x = || exact::arg_f64(fmt, args[0]);
    let bits = match *v {
        Value::Unspecified => return Ok(Accept::NoBound("the C standard leaves this result unspecified")),
        Value::Int(q) if row.op.kernel == Kernel::Remquo => {
            return Ok(Accept::Quotient { negative: q < 0, low3: (q.unsigned_abs() & 7) as u8 })
        }
        Value::Int(_) if row.op.kernel == Kernel::Ilogb && x() == 0.0 => {
            return Ok(Accept::IntOneOf([i32::MIN as i64, -(i32::MAX as i64)])) // FP_ILOGB0
        }
        Value::Int(_) if row.op.kernel == Kernel::Ilogb && x().is_nan() => {
            return Ok(Accept::IntOneOf([i32::MIN as i64, i32::MAX as i64])) // FP_ILOGBNAN
        }
        Value::Int(n) => return Ok(Accept::Int(n as i64)),
        Value::Long(n) => return Ok(Accept::Int(n)),
        Value::F32(b) => b as u64,
        Value::F64(b) => b,
    };
    let nan = is_nan(fmt, bits);
    let bounded = |k: f64| -> Result<Accept, MathError> {
        if nan {
            return Ok(Accept::AnyNan { fmt });
        }
        if k >= 1.0 && is_infinite(fmt, bits) && exactly_infinite(row, args, i)? {
            return Ok(Accept::Exact { fmt, bits });
        }
        Ok(Accept::ulps(fmt, bits, k))
    };
    match row.bound {
        Bound::Ulp(k) => bounded(k),
        Bound::Ieee => bounded(0.0),
        Bound::UlpLinear { base, slope } => bounded(base + (slope * x()).abs().floor()),
        Bound::UlpPerN { base, per_n } => bounded((base + per_n * args[0] as i64 as f64).ceil()),
        Bound::Abs(e) if nan => {
            let _ = e;
            Ok(Accept::AnyNan { fmt })
        }
        Bound::Abs(e) => abs_range(row, args, i, bits, e.value()),
        Bound::Documented(Behaviour::ZeroOrNanIfXInfinite) => Ok(if x().is_infinite() || x().is_nan() {
            Accept::AnyNan { fmt }
        } else {
            Accept::Range { fmt, lo: 0, hi: 0 } // a zero of either sign
        }),
        Bound::SameAs(names) => {
            let Some(other) = select(names[i], &Build::default(), args) else {
                return Ok(Accept::NoBound("the referenced function has no bound for these arguments"));
            };
            Ok(allowed(other, args)?.outputs[0])
        }
        Bound::Derived(_) => Ok(Accept::NoBound("derived from the implementation; no number documented")),
        Bound::NoneDocumented(why) => Ok(Accept::NoBound(why)),
    }
}

fn is_infinite(fmt: Fmt, bits: u64) -> bool {
    ordinal(fmt, bits).abs() == inf_ordinal(fmt)
}

/// Whether result `i`'s exact value is infinite (not merely overflowing).
fn exactly_infinite(row: &MathFn, args: &[u64], i: usize) -> Result<bool, MathError> {
    let enc = exact::enclose(&row.op, args, 64)?;
    Ok(matches!(&enc[i], Enc::Point(v) if v.is_infinite()))
}

/// Values within `e` of the exact result, plus the correctly rounded one.
fn abs_range(row: &MathFn, args: &[u64], i: usize, cr: u64, e: f64) -> Result<Accept, MathError> {
    let fmt = row.op.fmt;
    let enc = exact::enclose(&row.op, args, 160)?;
    let (lo, hi) = match &enc[i] {
        Enc::Nan => return Ok(Accept::AnyNan { fmt }),
        Enc::Point(v) if v.is_infinite() => return Ok(Accept::Exact { fmt, bits: cr }),
        Enc::Point(v) => (v.clone(), v.clone()),
        Enc::Interval(lo, hi) => (lo.clone(), hi.clone()),
        Enc::Undecided => unreachable!("enclose decides"),
    };
    let prec = lo.prec().max(hi.prec()) + 64;
    let lo = Float::with_val_round(prec, &lo - e, Round::Down).0;
    let hi = Float::with_val_round(prec, &hi + e, Round::Up).0;
    // The smallest value >= lo and the largest <= hi.
    let lo = exact::round_to(fmt, &lo, Round::Up);
    let hi = exact::round_to(fmt, &hi, Round::Down);
    let (o_lo, o_hi, o_cr) = (ordinal(fmt, lo), ordinal(fmt, hi), ordinal(fmt, cr));
    Ok(Accept::Range {
        fmt,
        lo: from_ordinal(fmt, o_lo.min(o_cr)),
        hi: from_ordinal(fmt, o_hi.max(o_cr)),
    })
}

impl fmt::Display for Accept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |fmt: Fmt, b: u64| Value::float(fmt, b).to_string();
        match *self {
            Accept::Exact { fmt, bits } => write!(f, "exactly {}", show(fmt, bits)),
            Accept::Range { fmt, lo, hi } => {
                let n = ordinal(fmt, hi) - ordinal(fmt, lo) + 1;
                write!(f, "{} ..= {} ({n} values)", show(fmt, lo), show(fmt, hi))
            }
            Accept::AnyNan { .. } => f.write_str("any NaN"),
            Accept::Int(i) => write!(f, "exactly {i}"),
            Accept::IntOneOf([a, b]) => write!(f, "{a} or {b}"),
            Accept::Quotient { negative, low3 } => {
                write!(f, "{} sign, |quo| = {low3} mod 8", if negative { "negative" } else { "non-negative" })
            }
            Accept::NoBound(why) => write!(f, "no bound documented ({why})"),
        }
    }
}

#[cfg(test)]
mod tests;
