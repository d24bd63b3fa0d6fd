//! Mixed-precision add/sub/fma against rustc_apfloat (another implementation): the half
//! operand converted by apfloat, the f32 operation rounded by apfloat in the form's mode,
//! `.sat` applied to its result; every f16 and bf16 `a` against a spread of `c` (and `b`),
//! spellings, rules and the requirement.

use rustc_apfloat::ieee::{BFloat, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

use super::*;

fn form(s: &str) -> Mixed {
    Mixed::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn widen(half: Scalar, x: u64) -> Single {
    let mut loses = false;
    let w: Single = match half {
        Scalar::F16 => Half::from_bits(x as u128).convert(&mut loses).value,
        _ => BFloat::from_bits(x as u128).convert(&mut loses).value,
    };
    assert!(!loses, "every half value is an f32");
    w
}

/// The result by apfloat, or `None` for a NaN (the f32 form's NaN rules decide its bits).
fn reference(m: &Mixed, ops: &[u64]) -> Option<u32> {
    let round = match m.rounding.unwrap_or(Rounding::Rn) {
        Rounding::Rn => Round::NearestTiesToEven,
        Rounding::Rz => Round::TowardZero,
        Rounding::Rm => Round::TowardNegative,
        Rounding::Rp => Round::TowardPositive,
    };
    let a = widen(m.half, ops[0]);
    let c = Single::from_bits(*ops.last().unwrap() as u128);
    let r = match m.op {
        Op::Add => a.add_r(c, round).value,
        Op::Sub => a.sub_r(c, round).value,
        Op::Fma => a.mul_add_r(widen(m.half, ops[1]), c, round).value,
    };
    let r = match (m.sat, r.is_nan()) {
        (true, true) => Single::ZERO,
        (_, true) => return None,
        (true, _) if r.is_negative() => Single::ZERO,
        (true, _) if r > Single::from_bits(0x3f80_0000) => Single::from_bits(0x3f80_0000),
        _ => r,
    };
    Some(r.to_bits() as u32)
}

/// f32 addends around the half values' range: specials, small and large, near cancellation.
fn addends() -> Vec<u64> {
    let mut v = vec![0, 0x8000_0000, 0x7f80_0000, 0x7fc0_0000, 1, 0x3f80_0000, 0xbf80_0000, 0x3380_0001, 0xc77f_e000, 0x7f7f_ffff];
    let mut s = 0x243f_6a88_85a3_08d3u64;
    for _ in 0..4 {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        v.push(s >> 32);
    }
    v
}

/// Every half `a` for the default-rounding forms, every seventh for the others (CI time).
#[test]
fn every_half_a_with_a_spread_of_c_agrees_with_apfloat() {
    let cs = addends();
    for m in Mixed::all().into_iter().filter(|m| m.op != Op::Fma) {
        let step = if m.rounding.is_none() && !m.sat { 1 } else { 7 };
        for a in (0..=0xffffu64).step_by(step) {
            for &c in &cs {
                let got = eval(&m, &[a, c]).unwrap();
                match reference(&m, &[a, c]) {
                    Some(want) => assert_eq!(got.primary_bits(), want as u64, "{m} 0x{a:04x} 0x{c:08x}"),
                    None => assert!(f32::from_bits(got.primary_bits() as u32).is_nan(), "{m} 0x{a:04x} 0x{c:08x}"),
                }
            }
        }
    }
}

#[test]
fn fma_of_two_halves_and_an_f32_agrees_with_apfloat() {
    let cs = addends();
    let mut s = 1u64;
    for m in Mixed::all().into_iter().filter(|m| m.op == Op::Fma) {
        for a in (0..=0xffffu64).step_by(7) {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (b, c) = ((s >> 48) & 0xffff, cs[(s >> 20) as usize % cs.len()]);
            let got = eval(&m, &[a, b, c]).unwrap();
            match reference(&m, &[a, b, c]) {
                Some(want) => assert_eq!(got.primary_bits(), want as u64, "{m} 0x{a:04x} 0x{b:04x} 0x{c:08x}"),
                None => assert!(f32::from_bits(got.primary_bits() as u32).is_nan(), "{m}"),
            }
        }
    }
}

#[test]
fn the_product_is_exact_before_the_one_rounding() {
    // f16 (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20; minus 1 + 2^-9 leaves 2^-20, exactly, only when
    // the product is not rounded first.
    let a = 0x3c01;
    let c = (-(1.0f32 + 2f32.powi(-9))).to_bits() as u64;
    assert_eq!(eval(&form("fma.rn.f32.f16"), &[a, a, c]).unwrap().primary_bits(), 2f32.powi(-20).to_bits() as u64);
    // add.f32.bf16: bf16 1.0 + 2^-24 rounds to nearest even (1.0); rp goes up.
    let tiny = 2f32.powi(-24).to_bits() as u64;
    assert_eq!(eval(&form("add.f32.bf16"), &[0x3f80, tiny]).unwrap().primary_bits(), 0x3f80_0000);
    assert_eq!(eval(&form("add.rp.f32.bf16"), &[0x3f80, tiny]).unwrap().primary_bits(), 0x3f80_0001);
    // sub is a - c; .sat clamps to [0, 1].
    assert_eq!(eval(&form("sub.rn.sat.f32.f16"), &[0x3c00, 0x4000_0000]).unwrap().primary_bits(), 0);
}

#[test]
fn spellings_rules_and_the_sm_100_requirement() {
    let all = Mixed::all();
    assert_eq!(all.len(), 2 * 2 * 5 * 2 + 2 * 4 * 2);
    for m in &all {
        assert_eq!(&form(&m.to_string()), m);
        assert_eq!((m.requirement().sm, m.requirement().ptx), (100, PtxVersion::new(8, 6)));
    }
    // The sections' examples put .sat after the types.
    assert_eq!(form("fma.rz.sat.f32.f16.sat").to_string(), "fma.rz.sat.f32.f16");
    assert_eq!(form("add.rz.f32.bf16.sat").to_string(), "add.rz.sat.f32.bf16");
    let err = |s: &str| Mixed::parse(s).unwrap_err().to_string();
    assert!(err("fma.f32.f16").contains("no default") && err("fma.f32.f16").contains("9.7.5.3"));
    assert!(err("add.ftz.f32.f16").contains("subnormal numbers are supported"));
    assert!(err("add.f16.f32").contains(".f32 then"));
    assert!(is_mixed("add.rn.f32.bf16") && !is_mixed("add.rn.f32") && !is_mixed("cvt.rn.f32.f16"));
    assert!(eval(&form("add.f32.f16"), &[0x1_0000, 0]).unwrap_err().to_string().contains(".f16"));
}
