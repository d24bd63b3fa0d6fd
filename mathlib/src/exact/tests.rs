//! Tests of the reference: known values, CORE-MATH vs MPFR agreement, hardware vs MPFR,
//! directed rounding, and independent high-precision checks of the composed functions.

use super::*;
use crate::fast;
use crate::op::{Dir, Fmt, Kernel, Op, Value};
use rand::{Rng, SeedableRng};
use rug::float::Constant;

fn op32(k: Kernel) -> Op {
    Op::new(k, Fmt::F32)
}
fn op64(k: Kernel) -> Op {
    Op::new(k, Fmt::F64)
}
fn b32(x: f32) -> u64 {
    x.to_bits() as u64
}
fn b64(x: f64) -> u64 {
    x.to_bits()
}
fn r32(k: Kernel, args: &[f32]) -> f32 {
    let a: Vec<u64> = args.iter().map(|&x| b32(x)).collect();
    match fast::eval(&op32(k), &a).unwrap()[0] {
        Value::F32(b) => f32::from_bits(b),
        v => panic!("{v:?}"),
    }
}
fn r64(k: Kernel, args: &[f64]) -> f64 {
    let a: Vec<u64> = args.iter().map(|&x| b64(x)).collect();
    match fast::eval(&op64(k), &a).unwrap()[0] {
        Value::F64(b) => f64::from_bits(b),
        v => panic!("{v:?}"),
    }
}
fn m32(k: Kernel, args: &[f32]) -> f32 {
    let a: Vec<u64> = args.iter().map(|&x| b32(x)).collect();
    match eval(&op32(k), &a).unwrap()[0] {
        Value::F32(b) => f32::from_bits(b),
        v => panic!("{v:?}"),
    }
}

/// Same value, or both NaN.
fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}
type F64Fn = fn(f64) -> f64;

fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn known_values() {
    use Kernel::*;
    assert_eq!(r32(Sin, &[1.0]), 0.84147096); // 0x3f576aa4
    assert_eq!(r32(Sin, &[1.0]).to_bits(), 0x3f57_6aa4);
    assert_eq!(r32(Exp, &[0.0]), 1.0);
    assert_eq!(r64(Tgamma, &[5.0]), 24.0);
    assert_eq!(r32(Tgamma, &[5.0]), 24.0);
    assert_eq!(r64(J0, &[0.0]), 1.0);
    assert_eq!(r32(J0, &[0.0]), 1.0);
    assert_eq!(r64(Erfinv, &[0.0]), 0.0);
    assert!(r64(Erfinv, &[-0.0]).is_sign_negative());
    assert_eq!(r64(Normcdf, &[0.0]), 0.5);
    assert_eq!(r32(Normcdf, &[0.0]), 0.5);
    assert_eq!(r64(Normcdfinv, &[0.5]), 0.0);
    assert_eq!(r64(Erfcinv, &[1.0]), 0.0);
    assert_eq!(r64(Cbrt, &[27.0]), 3.0);
    assert_eq!(r64(Rcbrt, &[8.0]), 0.5);
    assert_eq!(r32(Rcbrt, &[-0.125]), -2.0);
    assert_eq!(r64(Hypot, &[3.0, 4.0]), 5.0);
    assert_eq!(r64(Rhypot, &[3.0, 4.0]), 0.2);
    assert_eq!(r64(Norm3d, &[2.0, 3.0, 6.0]), 7.0);
    assert_eq!(r32(Rnorm4d, &[1.0, 1.0, 1.0, 1.0]), 0.5);
    assert_eq!(r64(I0, &[0.0]), 1.0);
    assert_eq!(r64(Lgamma, &[1.0]), 0.0);
    assert_eq!(r64(Pow, &[2.0, 10.0]), 1024.0);
    assert_eq!(r64(Exp10, &[3.0]), 1000.0);
    assert_eq!(r32(Sinpi, &[0.5]), 1.0);
    assert_eq!(r64(Cospi, &[1.0]), -1.0);
    // Standard values (20+ digit references), correctly rounded.
    assert_eq!(r64(Erfinv, &[0.5]), 0.476_936_276_204_469_9);
    assert_eq!(r64(Erfcinv, &[0.5]), 0.476_936_276_204_469_9);
    assert_eq!(r64(Normcdfinv, &[0.25]), -0.674_489_750_196_081_7); // -0.67448975019608174320...
    assert_eq!(r64(Normcdf, &[1.0]), 0.841_344_746_068_542_9); // 0.84134474606854292578...
    assert_eq!(r64(Erfcx, &[1.0]), 0.427_583_576_155_807); // 0.42758357615580700441...
    assert_eq!(r64(I0, &[1.0]), 1.266_065_877_752_008_4); // 1.26606587775200833559...
    assert_eq!(r64(I1, &[1.0]), 0.565_159_103_992_485); // 0.56515910399248502720...
    assert_eq!(r64(I0, &[10.0]), 2_815.716_628_466_254_4); // 2815.71662846625447...
}

#[test]
fn special_values_follow_c99_and_ieee() {
    use Kernel::*;
    assert_eq!(r64(Rsqrt, &[-0.0]), f64::NEG_INFINITY);
    assert_eq!(m32(Rsqrt, &[-0.0]), f32::NEG_INFINITY);
    assert_eq!(r64(Hypot, &[f64::INFINITY, f64::NAN]), f64::INFINITY);
    assert_eq!(r64(Norm3d, &[f64::NAN, 1.0, f64::NEG_INFINITY]), f64::INFINITY);
    assert_eq!(r64(Rnorm3d, &[f64::NAN, 1.0, f64::NEG_INFINITY]), 0.0);
    assert_eq!(r64(Rhypot, &[0.0, -0.0]), f64::INFINITY);
    assert_eq!(r64(Erfinv, &[1.0]), f64::INFINITY);
    assert_eq!(r64(Erfinv, &[-1.0]), f64::NEG_INFINITY);
    assert!(r64(Erfinv, &[1.5]).is_nan());
    assert_eq!(r64(Erfcinv, &[0.0]), f64::INFINITY);
    assert_eq!(r64(Erfcinv, &[2.0]), f64::NEG_INFINITY);
    assert_eq!(r64(Normcdfinv, &[0.0]), f64::NEG_INFINITY);
    assert_eq!(r64(Normcdfinv, &[1.0]), f64::INFINITY);
    assert_eq!(r64(Normcdf, &[f64::NEG_INFINITY]), 0.0);
    assert_eq!(r64(Erfcx, &[f64::INFINITY]), 0.0);
    assert_eq!(r64(Erfcx, &[-30.0]), f64::INFINITY);
    assert_eq!(r32(Erfcx, &[-20000.0]), f32::INFINITY);
    assert_eq!(r64(I1, &[f64::NEG_INFINITY]), f64::NEG_INFINITY);
    assert_eq!(r64(I0, &[-800.0]), f64::INFINITY);
    assert!(r64(I1, &[-0.0]).is_sign_negative());
    assert_eq!(r64(Rcbrt, &[-0.0]), f64::NEG_INFINITY);
    assert!(r64(Tgamma, &[-2.0]).is_nan());
    assert_eq!(r64(Lgamma, &[-2.0]), f64::INFINITY);
    assert_eq!(r64(Pow, &[f64::NAN, 0.0]), 1.0);
    assert_eq!(r64(Fdim, &[1.0, 2.0]).to_bits(), 0);
}

#[test]
fn exact_operations() {
    use Kernel::*;
    let ev = |k: Kernel, a: &[u64]| eval(&op64(k), a).unwrap();
    assert_eq!(&ev(Frexp, &[b64(8.0)])[..], &[Value::F64(b64(0.5)), Value::Int(4)]);
    assert_eq!(&ev(Frexp, &[b64(f64::from_bits(1))])[..], &[Value::F64(b64(0.5)), Value::Int(-1073)]);
    assert_eq!(&ev(Modf, &[b64(-3.0)])[..], &[Value::F64(b64(-0.0)), Value::F64(b64(-3.0))]);
    assert_eq!(&ev(Remquo, &[b64(7.0), b64(2.0)])[..], &[Value::F64(b64(-1.0)), Value::Int(4)]);
    assert_eq!(&ev(Ilogb, &[b64(8.0)])[..], &[Value::Int(3)]);
    assert_eq!(&ev(Logb, &[b64(0.0)])[..], &[Value::F64(b64(f64::NEG_INFINITY))]);
    assert_eq!(&ev(Logb, &[b64(f64::from_bits(1))])[..], &[Value::F64(b64(-1074.0))]);
    assert_eq!(&ev(Lrint, &[b64(2.5)])[..], &[Value::Long(2)]);
    assert_eq!(&ev(Lround, &[b64(2.5)])[..], &[Value::Long(3)]);
    assert_eq!(&ev(Llrint, &[b64(1e30)])[..], &[Value::Unspecified]);
    // ldexp rounds once into the subnormal range: 1.5 * 2^-149 ties to even 2^-148.
    let ld = eval(&op32(Ldexp), &[b32(1.5), (-149i64) as u64]).unwrap();
    assert_eq!(ld[0], Value::F32(2));
    let ld = eval(&op64(Scalbln), &[b64(1.0), (-5_000_000_000i64) as u64]).unwrap();
    assert_eq!(ld[0], Value::F64(0));
    assert_eq!(m32(Fmod, &[7.5, 2.0]), 1.5);
    assert_eq!(m32(Remainder, &[7.5, 2.0]), -0.5);
    assert_eq!(m32(Round, &[-2.5]), -3.0);
    assert_eq!(m32(Rint, &[-2.5]), -2.0);
    assert!(m32(Trunc, &[-0.5]).is_sign_negative());
}

#[test]
fn hypot_midpoint_ties_to_even() {
    // 14997999^2 + 8008000^2 = 17002001^2: the exact result is an f32 midpoint (25 bits).
    use Kernel::*;
    assert_eq!(m32(Hypot, &[14997999.0, 8008000.0]), 17002000.0);
    assert_eq!(r32(Hypot, &[14997999.0, 8008000.0]), 17002000.0);
    assert_eq!(m32(Norm3d, &[14997999.0, 0.0, 8008000.0]), 17002000.0);
    assert_eq!(m32(Norm4d, &[0.0, 14997999.0, 0.0, 8008000.0]), 17002000.0);
}

/// Random f32: all bit patterns, plus values of moderate magnitude where functions vary.
fn random_f32(rng: &mut impl Rng) -> f32 {
    match rng.gen_range(0..4) {
        0 => f32::from_bits(rng.gen()),
        1 => rng.gen_range(-10.0f32..10.0),
        2 => rng.gen_range(-1.0f32..1.0),
        _ => rng.gen_range(-100.0f32..100.0),
    }
}

fn random_f64(rng: &mut impl Rng) -> f64 {
    match rng.gen_range(0..4) {
        0 => f64::from_bits(rng.gen()),
        1 => rng.gen_range(-10.0..10.0),
        2 => rng.gen_range(-1.0..1.0),
        _ => rng.gen_range(-100.0..100.0),
    }
}

const SPECIALS: [f32; 10] = [0.0, -0.0, 1.0, -1.0, 0.5, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE, 1e-45];

#[test]
fn core_math_agrees_with_mpfr_on_a_random_sample() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let mut checked = 0;
    for k in all_kernels() {
        let Some(f) = fast::core_math_f32(k) else { continue };
        let arity = if matches!(f, fast::CoreMath::Binary(_)) { 2 } else { 1 };
        let op = op32(k);
        let mut cases: Vec<Vec<f32>> = (0..3000).map(|_| (0..arity).map(|_| random_f32(&mut rng)).collect()).collect();
        for &s in &SPECIALS {
            cases.push(vec![s; arity]);
        }
        for args in cases {
            let bits: Vec<u64> = args.iter().map(|&x| b32(x)).collect();
            let (cm, mp) = (fast::eval(&op, &bits).unwrap(), eval(&op, &bits).unwrap());
            for (a, b) in cm.iter().zip(mp.iter()) {
                let (Value::F32(a), Value::F32(b)) = (*a, *b) else { panic!() };
                let (a, b) = (f32::from_bits(a), f32::from_bits(b));
                assert!(same32(a, b), "{k:?}{args:?}: CORE-MATH {a:e} ({:#x}), MPFR {b:e} ({:#x})", a.to_bits(), b.to_bits());
            }
            checked += 1;
        }
    }
    assert!(checked > 90_000, "{checked}");
}

#[test]
fn core_math_f64_agrees_with_mpfr_on_a_random_sample() {
    // An independent check of the f64 MPFR path: CORE-MATH's double functions.
    use core_math as cm;
    let mut rng = rand::rngs::StdRng::seed_from_u64(64);
    let unary: [(Kernel, F64Fn); 8] = [
        (Kernel::Sin, cm::sin),
        (Kernel::Exp, cm::exp),
        (Kernel::Log1p, cm::log1p),
        (Kernel::Erfc, cm::erfc),
        (Kernel::Cbrt, cm::cbrt),
        (Kernel::Tgamma, cm::tgamma),
        (Kernel::Sinpi, cm::sinpi),
        (Kernel::Rsqrt, cm::rsqrt),
    ];
    for (k, f) in unary {
        for _ in 0..1500 {
            let x = random_f64(&mut rng);
            let (a, b) = (f(x), r64(k, &[x]));
            assert!(same64(a, b), "{k:?}({x:e}): CORE-MATH {a:e}, MPFR {b:e}");
        }
    }
    for _ in 0..1500 {
        let (x, y) = (random_f64(&mut rng), random_f64(&mut rng));
        assert!(same64(cm::pow(x, y), r64(Kernel::Pow, &[x, y])), "pow({x:e}, {y:e})");
        assert!(same64(cm::atan2(x, y), r64(Kernel::Atan2, &[x, y])), "atan2({x:e}, {y:e})");
    }
}

#[test]
fn hardware_operations_agree_with_mpfr() {
    use Kernel::*;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for k in [Add, Sub, Mul, Div, Fma, Rcp, Sqrt] {
        let n = match k {
            Fma => 3,
            Rcp | Sqrt => 1,
            _ => 2,
        };
        for _ in 0..4000 {
            let a: Vec<u64> = (0..n).map(|_| b32(random_f32(&mut rng))).collect();
            let (hw, mp) = (fast::eval(&op32(k), &a).unwrap()[0], eval(&op32(k), &a).unwrap()[0]);
            let (Value::F32(x), Value::F32(y)) = (hw, mp) else { panic!() };
            assert!(same32(f32::from_bits(x), f32::from_bits(y)), "{k:?}{a:x?}: {x:#x} vs {y:#x}");
            let a: Vec<u64> = (0..n).map(|_| b64(random_f64(&mut rng))).collect();
            let (hw, mp) = (fast::eval(&op64(k), &a).unwrap()[0], eval(&op64(k), &a).unwrap()[0]);
            let (Value::F64(x), Value::F64(y)) = (hw, mp) else { panic!() };
            assert!(same64(f64::from_bits(x), f64::from_bits(y)), "{k:?}{a:x?}: {x:#x} vs {y:#x}");
        }
    }
}

#[test]
fn directed_rounding_brackets_the_exact_value() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    for _ in 0..5000 {
        let (x, y) = (random_f32(&mut rng), random_f32(&mut rng));
        let exact = Float::with_val(400, x as f64) / y as f64;
        if !exact.is_finite() || x.is_nan() || y.is_nan() {
            continue;
        }
        let res = |d: Dir| {
            let op = Op { kernel: Kernel::Div, fmt: Fmt::F32, dir: d };
            match eval(&op, &[b32(x), b32(y)]).unwrap()[0] {
                Value::F32(b) => f32::from_bits(b),
                _ => unreachable!(),
            }
        };
        let (dn, up, z) = (res(Dir::Rd), res(Dir::Ru), res(Dir::Rz));
        // dn <= exact <= up, adjacent or equal (infinities when overflowing).
        assert!(exact >= dn as f64 || dn == f32::MAX, "rd {x:e}/{y:e}");
        assert!(exact <= up as f64 || up == -f32::MAX, "ru {x:e}/{y:e}");
        assert!(up.to_bits() == dn.to_bits() || dn.next_up() == up || (dn == 0.0 && up == 0.0), "{x:e}/{y:e}: {dn:e} {up:e}");
        assert_eq!(z.to_bits(), if exact.is_sign_negative() { up.to_bits() } else { dn.to_bits() }, "rz {x:e}/{y:e}");
        assert!(same32(res(Dir::Rn), x / y));
    }
    // Exact zero sums: -0 when rounding down, +0 otherwise (IEEE 754 6.3).
    let add = |d| eval(&Op { kernel: Kernel::Add, fmt: Fmt::F64, dir: d }, &[b64(1.0), b64(-1.0)]).unwrap()[0];
    assert_eq!(add(Dir::Rd), Value::F64(b64(-0.0)));
    assert_eq!(add(Dir::Rz), Value::F64(0));
}

/// The correctly rounded value of `exact` (at high precision, not near a breakpoint).
fn check_cr64(what: &str, got: f64, exact: &Float) {
    let want = exact.to_f64();
    assert!(same64(got, want), "{what}: got {got:e}, exact {exact}");
}

#[test]
fn composed_functions_match_direct_high_precision_formulas() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let p = 320;
    let sqrt2 = || Float::with_val(p, 2).sqrt();
    for _ in 0..300 {
        let x = rng.gen_range(-40.0..40.0f64);
        // normcdf(x) = erfc(-x/sqrt 2)/2
        let e = Float::with_val(p, -Float::with_val(p, x) / sqrt2()).erfc() / 2u32;
        check_cr64(&format!("normcdf({x})"), r64(Kernel::Normcdf, &[x]), &e);
        // erfcx(x) = exp(x^2) erfc(x), for x where the direct formula is finite
        if x > -26.0 {
            let e = Float::with_val(p, x).square().exp() * Float::with_val(p, x).erfc();
            check_cr64(&format!("erfcx({x})"), r64(Kernel::Erfcx, &[x]), &e);
        }
        // rcbrt
        let x3 = rng.gen_range(-1e6..1e6f64);
        let e = Float::with_val(p, x3).cbrt().recip();
        check_cr64(&format!("rcbrt({x3})"), r64(Kernel::Rcbrt, &[x3]), &e);
    }
    // erfcx asymptotic branch (x >= 16384) against the direct formula
    for x in [16384.0, 20000.5, 25000.0] {
        let e = Float::with_val(p, x).square().exp() * Float::with_val(p, x).erfc();
        check_cr64(&format!("erfcx({x})"), r64(Kernel::Erfcx, &[x]), &e);
    }
    // I0, I1 against the series summed at 400 bits
    for _ in 0..100 {
        let x = rng.gen_range(-700.0..700.0f64);
        let (i0, i1) = bessel_series(x, 800);
        check_cr64(&format!("i0({x})"), r64(Kernel::I0, &[x]), &i0);
        check_cr64(&format!("i1({x})"), r64(Kernel::I1, &[x]), &i1);
    }
}

/// I0(x), I1(x) by the plain series at precision p (positive terms: accurate).
fn bessel_series(x: f64, p: u32) -> (Float, Float) {
    let q = Float::with_val(p, x).square() / 4u32;
    let (mut t0, mut t1) = (Float::with_val(p, 1), Float::with_val(p, x) / 2u32);
    let (mut s0, mut s1) = (t0.clone(), t1.clone());
    for k in 1..4000u32 {
        t0 = t0 * &q / (k * k);
        t1 = t1 * &q / (k * (k + 1));
        s0 += &t0;
        s1 += &t1;
    }
    (s0, s1)
}

#[test]
fn inverse_functions_are_correctly_rounded() {
    // y is the correctly rounded root of g(y) = t iff g is on the right side of t at the
    // midpoints between y and its neighbours (g monotone); checked at 300 bits.
    let mut rng = rand::rngs::StdRng::seed_from_u64(10);
    let p = 300;
    let mid = |a: f64, b: f64| (Float::with_val(p, a) + b) / 2u32;
    let check = |name: &str, y: f64, t: f64, g: &dyn Fn(&Float) -> Float, increasing: bool| {
        let (below, above) = (g(&mid(y.next_down(), y)), g(&mid(y, y.next_up())));
        let ok = if increasing { below <= t && t <= above } else { below >= t && t >= above };
        assert!(ok, "{name}({t:e}) = {y:e}: g(mid-) {below}, g(mid+) {above}");
    };
    let erf = |v: &Float| Float::with_val(p, v.erf_ref());
    let erfc = |v: &Float| Float::with_val(p, v.erfc_ref());
    let phi = |v: &Float| Float::with_val(p, Float::with_val(p, -v) / Float::with_val(p, 2).sqrt()).erfc() / 2u32;
    for i in 0..400 {
        let t = match i % 4 {
            0 => rng.gen_range(-1.0..1.0f64),
            1 => 1.0 - 2f64.powf(-rng.gen_range(1.0..52.0)),
            2 => 2f64.powf(-rng.gen_range(1.0..1070.0)),
            _ => rng.gen_range(0.0..1.0),
        };
        check("erfinv", r64(Kernel::Erfinv, &[t]), t, &erf, true);
        let t2 = if i % 2 == 0 { t.abs() } else { 2.0 - t.abs() };
        check("erfcinv", r64(Kernel::Erfcinv, &[t2]), t2, &erfc, false);
        let q = t.abs();
        if q > 0.0 && q < 1.0 {
            check("normcdfinv", r64(Kernel::Normcdfinv, &[q]), q, &phi, true);
        }
    }
    // single precision, through the same code
    for _ in 0..300 {
        let t = rng.gen_range(-1.0..1.0f32);
        let y = r32(Kernel::Erfinv, &[t]) as f64;
        let y32 = y as f32;
        let (lo, hi) = (mid(y, y32.next_down() as f64), mid(y, y32.next_up() as f64));
        assert!(erf(&lo) <= t && t <= erf(&hi), "erfinvf({t:e}) = {y:e}");
    }
}

#[test]
fn subnormal_argument_of_i1_resolves_the_midpoint() {
    // I1(2^-1074) = 2^-1075 + 2^-3226 + ...: just above the midpoint 2^-1075, so it rounds up.
    assert_eq!(r64(Kernel::I1, &[f64::from_bits(1)]).to_bits(), 1);
    assert_eq!(r32(Kernel::I1, &[f32::from_bits(1)]).to_bits(), 1);
    let _ = Constant::Pi;
}

/// Every kernel, for sweeps.
pub(crate) fn all_kernels() -> Vec<Kernel> {
    let mut v: Vec<Kernel> = crate::table::FUNCTIONS.iter().map(|r| r.op.kernel).collect();
    v.sort_by_key(|k| format!("{k:?}"));
    v.dedup();
    v
}
