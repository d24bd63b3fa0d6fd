//! `reference(name, args)`: the correctly rounded results of a table function, with the exact
//! values as high-precision decimals for display.

use crate::exact::{self, Enc, Outputs};
use crate::op::{Op, Value};
use crate::table::{rows_named, MathFn};
use crate::{fast, MathError};
use arrayvec::ArrayVec;
use rug::float::Round;
use std::fmt;

/// Working precision of the displayed exact values.
const DISPLAY_PREC: u32 = 160;
/// Significant decimal digits shown.
const DISPLAY_DIGITS: usize = 30;

/// The exact (unrounded) value of one result.
#[derive(Clone, Debug, PartialEq)]
pub struct Exact {
    /// Decimal with `DISPLAY_DIGITS` significant digits (`8.41470984807896506652502321630e-1`),
    /// or `inf`, `-inf`, `nan`, `unspecified`.
    pub decimal: String,
    /// The nearest f64 (infinite beyond the f64 range).
    pub approx: f64,
}

impl fmt::Display for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.decimal)
    }
}

/// Correctly rounded results (in the row's format and rounding direction) and exact values.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub op: Op,
    pub values: Outputs,
    pub exact: ArrayVec<Exact, 2>,
}

/// The first row named `name` (all rows of a name share one `Op`).
pub fn row(name: &str) -> Result<&'static MathFn, MathError> {
    rows_named(name).next().ok_or_else(|| MathError::UnknownFunction(name.to_string()))
}

/// Reference results of table function `name` (`sinf`, `__fadd_rz`, `fdiv`, ...) for `args`:
/// bits of each float argument, integers as two's complement; `normf`/`norm` take the array
/// elements. Correctly rounded to the function's result format; see [`fast::eval`] for the
/// values alone, which is much faster.
pub fn reference(name: &str, args: &[u64]) -> Result<Reference, MathError> {
    reference_op(&row(name)?.op, args)
}

/// [`reference`] for an [`Op`].
pub fn reference_op(op: &Op, args: &[u64]) -> Result<Reference, MathError> {
    let values = fast::eval(op, args)?;
    let encs = exact::enclose(op, args, DISPLAY_PREC)?;
    let exact = values.iter().zip(encs.iter()).map(|(v, e)| exact_of(v, e)).collect();
    Ok(Reference { op: *op, values, exact })
}

fn exact_of(v: &Value, e: &Enc) -> Exact {
    match *v {
        Value::Unspecified => return Exact { decimal: "unspecified".into(), approx: f64::NAN },
        Value::Int(i) => return Exact { decimal: i.to_string(), approx: i as f64 },
        Value::Long(i) => return Exact { decimal: i.to_string(), approx: i as f64 },
        _ => {}
    }
    // A bound's enclosure (jn/yn of large order underflowing or overflowing, `exact/bessel.rs`)
    // reaches zero or infinity: its middle is no approximation, so say where the value lies.
    if let Enc::Interval(lo, hi) = e {
        if lo.is_zero() || hi.is_zero() || lo.is_infinite() || hi.is_infinite() {
            let show = |v: &rug::Float| match () {
                _ if v.is_infinite() => if v.is_sign_negative() { "-inf" } else { "inf" }.to_string(),
                _ if v.is_zero() => if v.is_sign_negative() { "-0" } else { "0" }.to_string(),
                _ => v.to_string_radix_round(10, Some(6), Round::Nearest),
            };
            let approx = if lo.is_zero() || hi.is_zero() { 0.0 } else { e.mid().map_or(f64::NAN, |m| m.to_f64()) };
            let approx = if lo.is_sign_negative() { -approx.abs() } else { approx };
            return Exact { decimal: format!("strictly between {} and {} (a bound)", show(lo), show(hi)), approx };
        }
    }
    match e.mid() {
        None => Exact { decimal: "nan".into(), approx: f64::NAN },
        Some(m) if m.is_infinite() => Exact {
            decimal: if m.is_sign_negative() { "-inf" } else { "inf" }.into(),
            approx: m.to_f64(),
        },
        Some(m) if m.is_zero() => {
            Exact { decimal: if m.is_sign_negative() { "-0" } else { "0" }.into(), approx: m.to_f64() }
        }
        Some(m) => Exact {
            decimal: m.to_string_radix_round(10, Some(DISPLAY_DIGITS), Round::Nearest),
            approx: m.to_f64(),
        },
    }
}
