//! Exact operations with integer or paired results: frexp, modf, remquo, logb, ilogb and the
//! rounding-to-integer conversions. Their results are exact, so there is nothing to round;
//! values the C standard leaves unspecified (`lrint(NaN)`, frexp's exponent of infinity) are
//! `Value::Unspecified`.

use super::{arg_f64, check_arity, Outputs};
use crate::op::{Fmt, Kernel, Op, Value};
use crate::MathError;
use rug::Float;

/// Results of `op` if it is one of this module's kernels.
pub(crate) fn eval(op: &Op, args: &[u64]) -> Result<Option<Outputs>, MathError> {
    use Kernel::*;
    if !matches!(op.kernel, Frexp | Modf | Remquo | Logb | Ilogb | Lrint | Lround | Llrint | Llround) {
        return Ok(None);
    }
    check_arity(op, args)?;
    let fmt = op.fmt;
    let x = arg_f64(fmt, args[0]);
    let fl = |v: f64| Value::float(fmt, to_bits(fmt, v));
    let mut out = Outputs::new();
    match op.kernel {
        Frexp => {
            let (m, e) = frexp(x);
            out.push(fl(m));
            out.push(if x.is_finite() { Value::Int(e) } else { Value::Unspecified });
        }
        Modf => {
            // C: the fraction has the sign of x (modf(-3) = (-0, -3)); modf(±inf) = (±0, ±inf).
            let int = x.trunc();
            let frac = if x.is_infinite() { 0f64.copysign(x) } else { (x - int).copysign(x) };
            out.push(fl(frac));
            out.push(fl(int));
        }
        Remquo => {
            let y = arg_f64(fmt, args[1]);
            let (fx, fy) = (Float::with_val(53, x), Float::with_val(53, y));
            // mpfr_remquo: the remainder (exact) and the low 31 bits of the quotient, with the
            // sign of x/y. C requires only the sign and the low 3 bits (see `allowed`).
            let (r, q) = fx.remainder_quo31(&fy);
            out.push(fl(r.to_f64()));
            let defined = x.is_finite() && !y.is_nan() && y != 0.0;
            out.push(if defined { Value::Int(q) } else { Value::Unspecified });
        }
        Logb => {
            out.push(fl(match x {
                _ if x.is_nan() => x,
                _ if x.is_infinite() => f64::INFINITY,
                0.0 => f64::NEG_INFINITY,
                _ => frexp(x).1 as f64 - 1.0,
            }));
        }
        Ilogb => {
            // FP_ILOGB0 and FP_ILOGBNAN are implementation-defined (C: INT_MIN or -INT_MAX,
            // INT_MIN or INT_MAX); INT_MIN is shown, `allowed` accepts either value.
            out.push(Value::Int(match x {
                _ if x.is_nan() => i32::MIN,
                _ if x.is_infinite() => i32::MAX,
                0.0 => i32::MIN,
                _ => frexp(x).1 - 1,
            }));
        }
        Lrint | Llrint => out.push(to_long(x.round_ties_even())),
        Lround | Llround => out.push(to_long(x.round())),
        _ => unreachable!(),
    }
    Ok(Some(out))
}

/// A value of the format, given exactly as f64.
fn to_bits(fmt: Fmt, v: f64) -> u64 {
    match fmt {
        Fmt::F32 => (v as f32).to_bits() as u64,
        Fmt::F64 => v.to_bits(),
    }
}

/// Integer conversion of an integral value; unspecified (C 7.12.9.5) outside `long`.
fn to_long(r: f64) -> Value {
    // -2^63 <= r < 2^63, both bounds exact in f64.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if (-TWO_63..TWO_63).contains(&r) {
        Value::Long(r as i64)
    } else {
        Value::Unspecified
    }
}

/// C frexp on f64: x = m * 2^e, 0.5 <= |m| < 1; (x, 0) for zero, infinity and NaN.
pub(crate) fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (x, bias) = if x.is_subnormal() { (x * 2f64.powi(64), 64) } else { (x, 0) };
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1022;
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, e - bias)
}
