//! The bounds' decisions against MPFR's exact results where MPFR is still quick (orders in the
//! hundreds and thousands), and the large orders answered without MPFR.

use super::super::{native, round_to, Inputs};
use super::*;
use crate::op::Dir;
use std::time::{Duration, Instant};

const DIRS: [Dir; 4] = [Dir::Rn, Dir::Rz, Dir::Ru, Dir::Rd];

/// MPFR's correctly rounded jn/yn(n, x) (the slow path).
fn mpfr(kernel: Kernel, fmt: Fmt, dir: Dir, n: i64, x: f64) -> u64 {
    let f = native::function(kernel, 0).unwrap();
    let inputs = Inputs { f: vec![Float::with_val(fmt.prec(), x)], n };
    native::cr(fmt, dir, &inputs, f)
}

/// Checks a bound's decision against MPFR in both formats and every direction; returns
/// whether the bound decided (so a test can insist that some inputs were decided).
fn agrees(kernel: Kernel, n: i64, x: f64) -> bool {
    let mut decided = false;
    for fmt in [Fmt::F32, Fmt::F64] {
        let x = if fmt == Fmt::F32 { x as f32 as f64 } else { x };
        let d = decide(kernel, fmt, n, x);
        let Some(v) = stand_in(d) else { continue };
        decided = true;
        for dir in DIRS {
            let fast = round_to(fmt, &v, dir.round());
            assert_eq!(fast, mpfr(kernel, fmt, dir, n, x), "{kernel:?}({n}, {x}) {fmt:?} {dir:?}: {d:?}");
        }
        // The enclosure holds MPFR's value at 64 bits (rounded outward).
        let f = native::function(kernel, 0).unwrap();
        let inputs = Inputs { f: vec![Float::with_val(fmt.prec(), x)], n };
        let Some(Enc::Interval(lo, hi)) = enclosure(d) else { panic!("{d:?}") };
        let (a, b) = match native::enclose(&inputs, f, 64) {
            Enc::Interval(a, b) => (a, b),
            Enc::Point(a) => (a.clone(), a),
            e => panic!("{e:?}"),
        };
        {
            assert!(lo <= a && b <= hi, "{kernel:?}({n}, {x}) {fmt:?}: [{a}, {b}] outside [{lo}, {hi}]");
        }
    }
    decided
}

#[test]
fn jn_underflow_bound_agrees_with_mpfr_for_orders_200_to_2000() {
    let mut decided = 0;
    for n in [200i64, 201, 333, 500, 999, 1000, 1501, 2000] {
        for frac in [1e-30, 1e-3, 0.1, 0.5, 0.8, 0.9, 0.95, 0.99] {
            for (sn, sx) in [(1, 1.0), (-1, 1.0), (1, -1.0), (-1, -1.0)] {
                decided += agrees(Kernel::Jn, sn * n, sx * frac * n as f64) as u32;
            }
        }
    }
    assert!(decided > 100, "{decided} decided");
}

#[test]
fn yn_overflow_bound_agrees_with_mpfr_for_orders_200_to_1000() {
    let mut decided = 0;
    for n in [200i64, 201, 333, 500, 777, 1000] {
        for frac in [1e-30, 1e-3, 0.01, 0.1, 0.3] {
            for sn in [1, -1] {
                decided += agrees(Kernel::Yn, sn * n, frac * n as f64) as u32;
            }
        }
    }
    assert!(decided >= 50, "{decided} decided");
}

#[test]
fn huge_orders_are_decided_without_mpfr() {
    use crate::op::{Op, Value};
    let t0 = Instant::now();
    let f32s = |v: f32| v.to_bits() as u64;
    let op = |kernel, fmt| Op { kernel, fmt, dir: Dir::Rn };
    let j32 = op(Kernel::Jn, Fmt::F32);
    let y32 = op(Kernel::Yn, Fmt::F32);
    let y64 = op(Kernel::Yn, Fmt::F64);
    let ev = |o: &Op, n: i64, x: u64| super::super::eval(o, &[n as u64, x]).map(|v| v[0]);
    let neg_inf32 = Value::F32(f32::NEG_INFINITY.to_bits());
    assert_eq!(ev(&y32, 100_000, f32s(1.0)), Ok(neg_inf32));
    assert_eq!(ev(&y32, 2_147_483_647, f32s(1.0)), Ok(neg_inf32));
    assert_eq!(ev(&y32, -2_147_483_648, f32s(1.0)), Ok(neg_inf32));
    assert_eq!(ev(&y64, 2_147_483_647, 1f64.to_bits()), Ok(Value::F64(f64::NEG_INFINITY.to_bits())));
    assert_eq!(ev(&j32, 100_000_000, f32s(5e7)), Ok(Value::F32(0)));
    assert_eq!(ev(&j32, 2_000_000_000, f32s(1e9)), Ok(Value::F32(0)));
    // J_{-3}(-2^-140) = J_3(2^-140) > 0; J_{-3}(2^-140) < 0: signed zeros.
    assert_eq!(ev(&j32, -3, f32s(-(2f32.powi(-126)))), Ok(Value::F32(0)));
    assert_eq!(ev(&j32, -3, f32s(2f32.powi(-126))), Ok(Value::F32(0x8000_0000)));
    // A negative order with |x| >= n^2: the asymptotic expansion of order |n| (MPFR given the
    // negative order aborted in GMP for this input, drawn by `math-check jnf --samples 10`).
    let j = ev(&j32, -400_718_842, f32s(-1.0306e23)).unwrap();
    assert!(f32::from_bits(j.bits() as u32).abs() < 1e-11, "{j}");
    // The transition region and |x| between n and n^2: reported, not attempted (MPFR would
    // run for hours, or abort in GMP).
    for (o, n, x) in [(&j32, 2_147_483_647, 1e10f32), (&j32, 100_000_000, 1e8), (&j32, 400_718_842, 1e16), (&y32, 100_000, 1e5)] {
        let e = ev(o, n, f32s(x)).unwrap_err();
        assert!(matches!(e, crate::MathError::BeyondReference { .. }), "{e}");
        assert!(e.to_string().contains("beyond the reference"), "{e}");
    }
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
}
