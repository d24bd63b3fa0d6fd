//! Tests of the acceptance rule: widths of ulp ranges, absolute bounds, special results.

use super::*;
use crate::table::{rows_named, Flags, FUNCTIONS};
use rand::{Rng, SeedableRng};

fn b32(x: f32) -> u64 {
    x.to_bits() as u64
}

fn only_row(name: &str) -> &'static MathFn {
    let mut rows = rows_named(name);
    let r = rows.next().unwrap();
    assert!(rows.next().is_none(), "{name} has variants");
    r
}

fn steps(a: &Accept) -> i64 {
    match *a {
        Accept::Range { fmt, lo, hi } => ordinal(fmt, hi) - ordinal(fmt, lo) + 1,
        Accept::Exact { .. } => 1,
        _ => panic!("{a:?}"),
    }
}

#[test]
fn ulp_range_contains_the_reference_and_has_2k_plus_1_values() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let mut n = 0;
    for row in FUNCTIONS.iter().filter(|r| matches!(r.bound, Bound::Ulp(_))) {
        let Bound::Ulp(k) = row.bound else { unreachable!() };
        let n_args = row.op.arg_types(3).len();
        for _ in 0..20 {
            let args: Vec<u64> = (0..n_args)
                .map(|i| match (row.op.arg_types(3)[i], row.op.fmt) {
                    (crate::Ty::Int | crate::Ty::Long, _) => rng.gen_range(-3i64..4) as u64,
                    (_, Fmt::F32) => b32(rng.gen_range(0.1f32..0.9)),
                    (_, Fmt::F64) => rng.gen_range(0.1f64..0.9).to_bits(),
                })
                .collect();
            if !row.applies_to_args(&args) {
                continue;
            }
            let a = allowed(row, &args).unwrap();
            for (acc, v) in a.outputs.iter().zip(&a.reference) {
                assert!(acc.contains(v.bits()), "{} {args:x?}: {acc} misses {v}", row.name);
                if let Accept::Range { fmt, lo, hi } = *acc {
                    assert_eq!(steps(acc), 2 * k as i64 + 1, "{} {args:x?}", row.name);
                    let outside = |b: u64, d: i64| from_ordinal(fmt, ordinal(fmt, b) + d);
                    assert!(!acc.contains(outside(lo, -1)) && !acc.contains(outside(hi, 1)));
                } else if !matches!(acc, Accept::Int(_) | Accept::Quotient { .. } | Accept::AnyNan { .. }) {
                    assert_eq!(k, 0.0, "{}: {acc}", row.name);
                }
                n += 1;
            }
        }
    }
    assert!(n > 2000, "{n}");
}

#[test]
fn zero_ulp_and_ieee_rows_accept_only_the_correctly_rounded_bits() {
    let args = [b32(1.0), b32(3.0)];
    let a = allowed(only_row("__fdiv_ru"), &args).unwrap();
    assert_eq!(a.outputs[0], Accept::Exact { fmt: Fmt::F32, bits: 0x3eaa_aaab });
    let a = allowed(only_row("__fdiv_rd"), &args).unwrap();
    assert_eq!(a.outputs[0], Accept::Exact { fmt: Fmt::F32, bits: 0x3eaa_aaaa });
    // sign of zero matters at 0 ulp: truncf(-0.5) = -0
    let a = allowed(only_row("truncf"), &[b32(-0.5)]).unwrap();
    assert!(a.accepts(&[b32(-0.0)]) && !a.accepts(&[b32(0.0)]));
}

#[test]
fn nan_results_accept_any_nan_and_poles_only_infinity() {
    let a = allowed(only_row("logf"), &[b32(-1.0)]).unwrap();
    assert!(a.accepts(&[0x7fc0_0000]) && a.accepts(&[0xffc0_0001]) && !a.accepts(&[0]));
    // logf(0) = -inf exactly: a 1-ulp bound does not admit -FLT_MAX.
    let a = allowed(only_row("logf"), &[b32(0.0)]).unwrap();
    assert!(a.accepts(&[b32(f32::NEG_INFINITY)]) && !a.accepts(&[b32(-f32::MAX)]));
    // expf(100) overflows: the exact value is finite, FLT_MAX is 1 step from the rounded inf.
    let a = allowed(only_row("expf"), &[b32(100.0)]).unwrap();
    assert!(a.accepts(&[b32(f32::INFINITY)]) && a.accepts(&[b32(f32::MAX)]) && a.accepts(&[b32(f32::MAX.next_down())]));
    assert!(!a.accepts(&[b32(f32::MAX.next_down().next_down())]));
}

#[test]
fn absolute_bound_covers_exactly_the_values_within_it() {
    let row = select("__sinf", &Build::default(), &[b32(1.0)]).unwrap();
    let a = allowed(row, &[b32(1.0)]).unwrap();
    let Accept::Range { lo, hi, .. } = a.outputs[0] else { panic!("{:?}", a.outputs[0]) };
    let (lo, hi) = (f32::from_bits(lo as u32) as f64, f32::from_bits(hi as u32) as f64);
    let (exact, e) = (1f64.sin(), (-21.41f64).exp2());
    assert!(exact - e <= lo && hi <= exact + e, "{lo} {hi}");
    assert!((lo as f32).next_down() as f64 <= exact - e && (hi as f32).next_up() as f64 >= exact + e);
    // ulp(0.84) = 2^-24: about 2 * 2^-21.41 / 2^-24 = 12 values.
    assert!((11..=13).contains(&steps(&a.outputs[0])), "{}", a.outputs[0]);
}

#[test]
fn linear_and_per_n_ulp_bounds_use_the_arguments() {
    let a = allowed(only_row("__expf"), &[b32(10.0)]).unwrap();
    assert_eq!(steps(&a.outputs[0]), 2 * (2 + 11) + 1); // 2 + floor(11.6)
    let ynf = select("ynf", &Build::default(), &[3, b32(2.5)]).unwrap();
    let a = allowed(ynf, &[3, b32(2.5)]).unwrap();
    assert_eq!(steps(&a.outputs[0]), 2 * 10 + 1); // ceil(2 + 7.5)
}

#[test]
fn sincos_intrinsic_takes_the_bounds_of_sin_and_cos() {
    let a = allowed(only_row("__sincosf"), &[b32(1.0)]).unwrap();
    assert!(a.outputs.iter().all(|o| matches!(o, Accept::Range { .. })));
    assert!(a.accepts(&[a.reference[0].bits(), a.reference[1].bits()]));
    let a = allowed(only_row("__sincosf"), &[b32(4.0)]).unwrap();
    assert!(!a.is_bounded());
}

#[test]
fn integer_results_follow_the_c_standard() {
    let a = allowed(only_row("ilogbf"), &[b32(0.0)]).unwrap();
    assert!(a.accepts(&[i32::MIN as i64 as u64]) && a.accepts(&[(-i32::MAX) as i64 as u64]));
    let a = allowed(only_row("remquof"), &[b32(7.0), b32(2.0)]).unwrap();
    // remainder -1, quotient 4: any quo = 4 mod 8 with non-negative sign
    assert!(a.accepts(&[b32(-1.0), 4]) && a.accepts(&[b32(-1.0), 12]) && !a.accepts(&[b32(-1.0), 5]));
    let a = allowed(only_row("lrintf"), &[b32(f32::NAN)]).unwrap();
    assert!(!a.is_bounded());
}

#[test]
fn fast_math_selects_the_intrinsic_and_its_documented_zero() {
    let fast = Build { flags: Flags::FAST_MATH, ..Build::default() };
    let args = [b32(1.0), b32(2f32.powi(127))];
    let a = allowed_for("fdiv", &fast, &args).unwrap().unwrap();
    assert_eq!(a.row.name, "__fdividef");
    assert!(a.accepts(&[b32(0.0)]) && a.accepts(&[b32(-0.0)]) && !a.accepts(&[a.reference[0].bits()]));
    let a = allowed_for("fdiv", &Build::default(), &args).unwrap().unwrap();
    assert!(a.accepts(&[a.reference[0].bits()]));
    assert!(allowed_for("tanf", &fast, &[b32(1.0)]).unwrap().is_some_and(|a| !a.is_bounded()));
    assert!(allowed_for("nosuchf", &fast, &[0]).is_err());
}

#[test]
fn a_row_outside_its_condition_is_an_error() {
    let row = rows_named("j0f").next().unwrap(); // |x| < 8
    assert!(matches!(allowed(row, &[b32(9.0)]), Err(MathError::Condition { .. })));
}
