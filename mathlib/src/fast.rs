//! The fast correctly rounded path: CORE-MATH (`core-math` crate) for the single-precision
//! functions it has, the IEEE hardware operations of the host (+, -, *, /, sqrt, fma,
//! round-to-nearest, no flush-to-zero on x86-64 SSE) for the basic operations; everything else
//! falls back to MPFR (`exact::eval`).

use crate::exact::{self, Outputs};
use crate::op::{Dir, Fmt, Kernel, Op, Value};
use crate::MathError;

/// A CORE-MATH single-precision function.
#[derive(Clone, Copy)]
pub enum CoreMath {
    Unary(fn(f32) -> f32),
    Binary(fn(f32, f32) -> f32),
    Pair(fn(f32) -> (f32, f32)),
}

/// The CORE-MATH function computing `kernel` in single precision, if CORE-MATH has it.
/// (CORE-MATH's functions are correctly rounded to nearest for every input.)
pub fn core_math_f32(kernel: Kernel) -> Option<CoreMath> {
    use core_math as cm;
    use CoreMath::*;
    use Kernel::*;
    Some(match kernel {
        Rsqrt => Unary(cm::rsqrtf),
        Cbrt => Unary(cm::cbrtf),
        Hypot => Binary(cm::hypotf),
        Exp => Unary(cm::expf),
        Exp2 => Unary(cm::exp2f),
        Exp10 => Unary(cm::exp10f),
        Expm1 => Unary(cm::expm1f),
        Log => Unary(cm::logf),
        Log2 => Unary(cm::log2f),
        Log10 => Unary(cm::log10f),
        Log1p => Unary(cm::log1pf),
        Sin => Unary(cm::sinf),
        Cos => Unary(cm::cosf),
        Tan => Unary(cm::tanf),
        Sincos => Pair(cm::sincosf),
        Sinpi => Unary(cm::sinpif),
        Cospi => Unary(cm::cospif),
        Asin => Unary(cm::asinf),
        Acos => Unary(cm::acosf),
        Atan => Unary(cm::atanf),
        Atan2 => Binary(cm::atan2f),
        Sinh => Unary(cm::sinhf),
        Cosh => Unary(cm::coshf),
        Tanh => Unary(cm::tanhf),
        Asinh => Unary(cm::asinhf),
        Acosh => Unary(cm::acoshf),
        Atanh => Unary(cm::atanhf),
        Pow => Binary(cm::powf),
        Erf => Unary(cm::erff),
        Erfc => Unary(cm::erfcf),
        Lgamma => Unary(cm::lgammaf),
        Tgamma => Unary(cm::tgammaf),
        _ => return None,
    })
}

fn one(v: Value) -> Outputs {
    let mut o = Outputs::new();
    o.push(v);
    o
}

fn f32s(args: &[u64], i: usize) -> f32 {
    f32::from_bits(args[i] as u32)
}

fn f64s(args: &[u64], i: usize) -> f64 {
    f64::from_bits(args[i])
}

/// Correctly rounded results of `op` for `args` (bits of each argument; integers as
/// two's complement). The main entry point for reference values.
pub fn eval(op: &Op, args: &[u64]) -> Result<Outputs, MathError> {
    use Kernel::*;
    if op.dir == Dir::Rn {
        let n_floats = match op.kernel {
            Add | Sub | Mul | Div => 2,
            Fma => 3,
            Rcp | Sqrt => 1,
            _ => 0,
        };
        if n_floats > 0 && args.len() == n_floats {
            return Ok(one(match op.fmt {
                Fmt::F32 => {
                    let (a, b, c) = (f32s(args, 0), args.get(1).map(|_| f32s(args, 1)), args.get(2));
                    let b = b.unwrap_or(0.0);
                    let r = match op.kernel {
                        Add => a + b,
                        Sub => a - b,
                        Mul => a * b,
                        Div => a / b,
                        Fma => a.mul_add(b, f32::from_bits(*c.unwrap() as u32)),
                        Rcp => 1.0 / a,
                        _ => a.sqrt(),
                    };
                    Value::F32(r.to_bits())
                }
                Fmt::F64 => {
                    let (a, b) = (f64s(args, 0), args.get(1).map(|_| f64s(args, 1)).unwrap_or(0.0));
                    let r = match op.kernel {
                        Add => a + b,
                        Sub => a - b,
                        Mul => a * b,
                        Div => a / b,
                        Fma => a.mul_add(b, f64s(args, 2)),
                        Rcp => 1.0 / a,
                        _ => a.sqrt(),
                    };
                    Value::F64(r.to_bits())
                }
            }));
        }
        if op.fmt == Fmt::F32 {
            if let Some(f) = core_math_f32(op.kernel) {
                let want = if matches!(f, CoreMath::Binary(_)) { 2 } else { 1 };
                if args.len() == want {
                    return Ok(match f {
                        CoreMath::Unary(f) => one(Value::F32(f(f32s(args, 0)).to_bits())),
                        CoreMath::Binary(f) => one(Value::F32(f(f32s(args, 0), f32s(args, 1)).to_bits())),
                        CoreMath::Pair(f) => {
                            let (s, c) = f(f32s(args, 0));
                            let mut o = Outputs::new();
                            o.push(Value::F32(s.to_bits()));
                            o.push(Value::F32(c.to_bits()));
                            o
                        }
                    });
                }
            }
        }
    }
    exact::eval(op, args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::hint::black_box;
    use std::time::Instant;

    /// Evaluations per second of `fast::eval` on `n` random argument tuples.
    fn rate(op: &Op, n_args: usize, n: usize, rng: &mut impl Rng) -> f64 {
        let gen = |rng: &mut dyn rand::RngCore| -> u64 {
            let x: f64 = match rng.gen_range(0..3) {
                0 => f32::from_bits(rng.gen()) as f64,
                1 => rng.gen_range(-10.0..10.0),
                _ => rng.gen_range(-1.0..1.0),
            };
            match op.fmt {
                Fmt::F32 => (x as f32).to_bits() as u64,
                Fmt::F64 => x.to_bits(),
            }
        };
        let args: Vec<[u64; 3]> = (0..n).map(|_| [gen(rng), gen(rng), gen(rng)]).collect();
        let start = Instant::now();
        for a in &args {
            black_box(eval(black_box(op), &a[..n_args]).unwrap());
        }
        n as f64 / start.elapsed().as_secs_f64()
    }

    /// `cargo test --release -p mathlib bench_ -- --ignored --nocapture`
    #[test]
    #[ignore = "benchmark: prints evaluations per second"]
    fn bench_reference_evaluations_per_second() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut kernels: Vec<Kernel> = Vec::new();
        for r in crate::table::FUNCTIONS {
            if !kernels.contains(&r.op.kernel) {
                kernels.push(r.op.kernel);
            }
        }
        let mut slowest = f64::INFINITY;
        println!("CORE-MATH-backed single precision (fast::eval, one thread):");
        for k in kernels.iter().copied() {
            let Some(f) = core_math_f32(k) else { continue };
            let n_args = if matches!(f, CoreMath::Binary(_)) { 2 } else { 1 };
            let r = rate(&Op::new(k, Fmt::F32), n_args, 2_000_000, &mut rng);
            slowest = slowest.min(r);
            println!("  {:<10} {:>7.1} M evals/s", format!("{k:?}"), r / 1e6);
        }
        println!("  slowest: {:.1} M evals/s", slowest / 1e6);
        println!("MPFR-backed (for comparison):");
        use Kernel::*;
        for (k, fmt, n_args) in [
            (Sin, Fmt::F64, 1),
            (Exp, Fmt::F64, 1),
            (Pow, Fmt::F64, 2),
            (J0, Fmt::F32, 1),
            (J0, Fmt::F64, 1),
            (Erfinv, Fmt::F32, 1),
            (Erfinv, Fmt::F64, 1),
            (Normcdfinv, Fmt::F64, 1),
            (Erfcx, Fmt::F64, 1),
            (I0, Fmt::F64, 1),
            (Rcbrt, Fmt::F32, 1),
            (Norm3d, Fmt::F64, 3),
        ] {
            let r = rate(&Op::new(k, fmt), n_args, 20_000, &mut rng);
            println!("  {:<10} {:?} {:>9.0} evals/s", format!("{k:?}"), fmt, r);
        }
    }
}
