//! Correctly rounded results and exact-value enclosures with MPFR (via `rug`), for every kernel.
//!
//! Two mechanisms:
//! - kernels MPFR computes correctly rounded (`native.rs`): evaluate at the target precision in
//!   the target direction, emulate subnormals (`subnormalize_ieee_round`), convert (one rounding).
//! - kernels MPFR lacks (`special.rs`): a rigorous enclosure [lo, hi] of the exact value at a
//!   working precision p; both ends are rounded to the format and, if they agree, that is the
//!   correctly rounded result; otherwise p is doubled (Ziv's strategy).
//!
//! Exact operations with integer or multiple results are in `exact_ops.rs`.

mod bessel;
mod exact_ops;
pub(crate) use exact_ops::frexp;
mod native;
mod special;

use crate::op::{Args, Dir, Fmt, Kernel, Op, Results, Value};
use crate::MathError;
use arrayvec::ArrayVec;
use rug::float::Round;
use rug::Float;

/// Up to two results per call (sincos, frexp, modf, remquo).
pub type Outputs = ArrayVec<Value, 2>;

/// Where the exact value of one result lies, at some working precision.
#[derive(Clone, Debug)]
pub enum Enc {
    /// The exact result is NaN.
    Nan,
    /// Exactly this value (also ±0 and ±infinity when exact).
    Point(Float),
    /// lo <= exact <= hi, lo < hi.
    Interval(Float, Float),
    /// Not decided at this precision (an inverse function's bracket check failed): try higher.
    Undecided,
}

impl Enc {
    /// An approximation `y` with |y - exact| <= |y| * 2^e.
    pub(crate) fn relative(y: Float, e: i32) -> Enc {
        if y.is_nan() {
            return Enc::Nan;
        }
        if y.is_zero() || y.is_infinite() {
            return Enc::Point(y);
        }
        let prec = y.prec() + 4;
        let err = Float::with_val(prec, y.abs_ref()) << e;
        let lo = Float::with_val_round(prec, &y - &err, Round::Down).0;
        let hi = Float::with_val_round(prec, &y + &err, Round::Up).0;
        Enc::Interval(lo, hi)
    }

    /// A value inside the enclosure, for display.
    pub fn mid(&self) -> Option<Float> {
        match self {
            Enc::Nan | Enc::Undecided => None,
            Enc::Point(v) => Some(v.clone()),
            Enc::Interval(lo, hi) => {
                if lo.is_infinite() || hi.is_infinite() {
                    return Some(if lo.is_infinite() { hi.clone() } else { lo.clone() });
                }
                let prec = lo.prec().max(hi.prec()) + 2;
                Some(Float::with_val(prec, lo + hi) >> 1u32)
            }
        }
    }
}

/// Exact value of a float argument.
pub(crate) fn arg_float(fmt: Fmt, bits: u64) -> Float {
    Float::with_val(fmt.prec(), arg_f64(fmt, bits))
}

/// A float argument as f64 (exact).
pub(crate) fn arg_f64(fmt: Fmt, bits: u64) -> f64 {
    match fmt {
        Fmt::F32 => f32::from_bits(bits as u32) as f64,
        Fmt::F64 => f64::from_bits(bits),
    }
}

/// The default quiet NaN of the format (results only need to be some NaN).
pub(crate) fn nan_bits(fmt: Fmt) -> u64 {
    match fmt {
        Fmt::F32 => 0x7fc0_0000,
        Fmt::F64 => 0x7ff8_0000_0000_0000,
    }
}

/// Round an exactly known value to the format (single rounding, subnormals and overflow
/// handled by `mpfr_get_flt`/`mpfr_get_d`).
pub(crate) fn round_to(fmt: Fmt, v: &Float, round: Round) -> u64 {
    if v.is_nan() {
        return nan_bits(fmt);
    }
    match fmt {
        Fmt::F32 => v.to_f32_round(round).to_bits() as u64,
        Fmt::F64 => v.to_f64_round(round).to_bits(),
    }
}

/// Arguments converted for MPFR: floats exactly, the int argument (if any) in `n`.
pub(crate) struct Inputs {
    pub f: Vec<Float>,
    pub n: i64,
}

impl Inputs {
    pub(crate) fn new(op: &Op, args: &[u64]) -> Result<Inputs, MathError> {
        check_arity(op, args)?;
        let fl = |b: u64| arg_float(op.fmt, b);
        Ok(match op.kernel.args() {
            Args::Floats(_) | Args::Array => Inputs { f: args.iter().map(|&b| fl(b)).collect(), n: 0 },
            Args::FloatInt(_) => Inputs { f: vec![fl(args[0])], n: args[1] as i64 },
            Args::IntFloat => Inputs { f: vec![fl(args[1])], n: args[0] as i64 },
        })
    }
}

/// Checks the number of arguments (and that int arguments fit their C type).
pub(crate) fn check_arity(op: &Op, args: &[u64]) -> Result<(), MathError> {
    let want = match op.kernel.args() {
        Args::Floats(n) => n,
        Args::FloatInt(_) | Args::IntFloat => 2,
        Args::Array => return Ok(()),
    };
    if args.len() != want {
        // No table row's name here: the kernel's, lower case (`pow` for powf and pow).
        return Err(MathError::Arity { function: format!("{:?}", op.kernel).to_lowercase(), want, got: args.len() });
    }
    let int_ok = |v: u64| i32::try_from(v as i64).is_ok();
    match op.kernel.args() {
        Args::FloatInt(crate::op::Ty::Int) if !int_ok(args[1]) => Err(MathError::IntRange(args[1] as i64)),
        Args::IntFloat if !int_ok(args[0]) => Err(MathError::IntRange(args[0] as i64)),
        _ => Ok(()),
    }
}

/// Working precisions tried by Ziv's loop, after the first (format precision + 32).
const MAX_PREC: u32 = 1 << 14;

/// Ziv's loop: the correctly rounded result from enclosures at increasing precision.
///
/// Each enclosure is rigorous, so when both ends round to the same value that value is the
/// correctly rounded result. Ends that keep disagreeing mean the exact value is a rounding
/// breakpoint (a representable number in a directed mode, a midpoint to nearest); the
/// kernels catch their exact cases before this loop, so reaching `MAX_PREC` is not expected:
/// there the middle of the enclosure is rounded.
pub(crate) fn ziv(fmt: Fmt, dir: Dir, mut enclose: impl FnMut(u32) -> Enc) -> u64 {
    let round = dir.round();
    let mut prec = fmt.prec() + 32;
    loop {
        let enc = enclose(prec);
        match &enc {
            Enc::Nan => return nan_bits(fmt),
            Enc::Point(v) => return round_to(fmt, v, round),
            Enc::Interval(lo, hi) => {
                let (a, b) = (round_to(fmt, lo, round), round_to(fmt, hi, round));
                if a == b {
                    return a;
                }
                if prec >= MAX_PREC {
                    return round_to(fmt, &enc.mid().expect("interval"), round);
                }
            }
            Enc::Undecided => {
                assert!(prec < MAX_PREC, "enclosure undecided at {prec} bits");
            }
        }
        prec *= 2;
    }
}

/// Correctly rounded results of `op` computed with MPFR (the reference for every kernel; the
/// fast path in `fast.rs` replaces it where CORE-MATH or the hardware is correctly rounded).
pub fn eval(op: &Op, args: &[u64]) -> Result<Outputs, MathError> {
    if let Some(out) = exact_ops::eval(op, args)? {
        return Ok(out);
    }
    let inputs = Inputs::new(op, args)?;
    let mut out = Outputs::new();
    if let Some(v) = bessel::stand_in(bessel_decision(op, args)?) {
        out.push(Value::float(op.fmt, round_to(op.fmt, &v, op.dir.round())));
        return Ok(out);
    }
    for i in 0..n_float_outputs(op.kernel) {
        let bits = if let Some(f) = native::function(op.kernel, i) {
            native::cr(op.fmt, op.dir, &inputs, f)
        } else {
            ziv(op.fmt, op.dir, |p| special::enclose(op.kernel, op.fmt, &inputs, p))
        };
        out.push(Value::float(op.fmt, bits));
    }
    Ok(out)
}

/// Enclosures of the exact results at working precision `prec` (at least; inverse functions
/// may raise it until decided). Integer results are exact and enclosed as points.
pub fn enclose(op: &Op, args: &[u64], prec: u32) -> Result<ArrayVec<Enc, 2>, MathError> {
    let mut out = ArrayVec::new();
    if let Some(exact) = exact_ops::eval(op, args)? {
        for v in exact {
            out.push(match v {
                Value::F32(b) => Enc::Point(Float::with_val(24, f32::from_bits(b))),
                Value::F64(b) => Enc::Point(Float::with_val(53, f64::from_bits(b))),
                Value::Int(i) => Enc::Point(Float::with_val(64, i)),
                Value::Long(i) => Enc::Point(Float::with_val(64, i)),
                Value::Unspecified => Enc::Nan,
            });
        }
        // NaN floats are enclosed as Nan.
        for e in out.iter_mut() {
            if matches!(e, Enc::Point(v) if v.is_nan()) {
                *e = Enc::Nan;
            }
        }
        return Ok(out);
    }
    let inputs = Inputs::new(op, args)?;
    if let Some(enc) = bessel::enclosure(bessel_decision(op, args)?) {
        out.push(enc);
        return Ok(out);
    }
    for i in 0..n_float_outputs(op.kernel) {
        let enc = if let Some(f) = native::function(op.kernel, i) {
            native::enclose(&inputs, f, prec)
        } else {
            let mut p = prec;
            loop {
                match special::enclose(op.kernel, op.fmt, &inputs, p) {
                    Enc::Undecided if p < MAX_PREC => p *= 2,
                    e => break e,
                }
            }
        };
        out.push(enc);
    }
    Ok(out)
}

/// For jn/yn: a bound's decision, MPFR, or `BeyondReference` (see `bessel.rs`); others: MPFR.
fn bessel_decision(op: &Op, args: &[u64]) -> Result<bessel::Decision, MathError> {
    if !matches!(op.kernel, Kernel::Jn | Kernel::Yn) {
        return Ok(bessel::Decision::Mpfr);
    }
    let (n, x) = (args[0] as i64, arg_f64(op.fmt, args[1]));
    match bessel::decide(op.kernel, op.fmt, n, x) {
        bessel::Decision::Beyond(why) => {
            let f = if op.fmt == Fmt::F32 { "f" } else { "" };
            let x = if op.fmt == Fmt::F32 { (x as f32).to_string() } else { x.to_string() };
            Err(MathError::BeyondReference { call: format!("{:?}{f}({n}, {x})", op.kernel).to_lowercase(), why })
        }
        d => Ok(d),
    }
}

fn n_float_outputs(kernel: Kernel) -> usize {
    match kernel.results() {
        Results::FloatFloat => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests;
