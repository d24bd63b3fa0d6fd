//! Float-integer `cvt` against independent computations: float to integer through Rust's
//! saturating `as` casts of the rounded value (every f16 and bf16 input, a sample of f32 and
//! f64 with every binade), integer to float by a search over the destination's values with
//! exact integer comparison (every 8- and 16-bit input, a sample of 32- and 64-bit ones with
//! the edges); the NaN and clamp rows entry by entry; spellings and requirements.

use super::*;

fn cvt(s: &str) -> CvtInt {
    CvtInt::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Float to integer by another route: the f64 value rounded with std's methods, then Rust's
/// `as` cast, which saturates (and gives 0 for NaN, which this is not called with).
fn int_reference(int: IntType, v: f64, m: Rounding) -> u64 {
    let r = match m {
        Rounding::Rn => v.round_ties_even(),
        Rounding::Rz => v.trunc(),
        Rounding::Rm => v.floor(),
        Rounding::Rp => v.ceil(),
    };
    let n: i128 = match (int.signed, int.bits) {
        (true, 8) => r as i8 as i128,
        (true, 16) => r as i16 as i128,
        (true, 32) => r as i32 as i128,
        (true, _) => r as i64 as i128,
        (false, 8) => r as u8 as i128,
        (false, 16) => r as u16 as i128,
        (false, 32) => r as u32 as i128,
        (false, _) => r as u64 as i128,
    };
    n as u64 & int.mask()
}

/// Exact order of the integer `v` and the float value `x` (finite, or ±inf).
fn cmp_int_float(v: i128, x: f64) -> std::cmp::Ordering {
    if x.is_infinite() || x.abs() >= 2f64.powi(100) {
        return if x > 0.0 { std::cmp::Ordering::Less } else { std::cmp::Ordering::Greater };
    }
    if x.abs() >= 2f64.powi(53) {
        // An integer: exact as i128.
        return v.cmp(&(x as i128));
    }
    if v.unsigned_abs() > 1 << 60 {
        return if v > 0 { std::cmp::Ordering::Greater } else { std::cmp::Ordering::Less };
    }
    (v as f64).partial_cmp(&x).unwrap()
}

/// Integer `v` rounded to `dst` without the crate's rounding core: the greatest value <= v and
/// the least >= v by binary search over the positive encodings (infinity past the largest
/// finite value), then the mode's choice (ties to the even encoding).
fn float_reference(dst: Scalar, v: i128, m: Rounding) -> u64 {
    let sign = if v < 0 { 1u64 << (dst.bits() - 1) } else { 0 };
    let a = v.unsigned_abs() as i128;
    if a == 0 {
        return 0;
    }
    let inf = match dst {
        Scalar::F16 => F16::INF,
        Scalar::BF16 => BF16::INF,
        Scalar::F32 => F32::INF,
        Scalar::F64 => F64::INF,
    };
    let max = inf - 1;
    let value = |b: u64| dst.to_f64(b);
    // Largest encoding <= a (a >= 1 so it exists).
    let (mut lo, mut hi) = (0u64, max);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if cmp_int_float(a, value(mid)) != std::cmp::Ordering::Less {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let below = lo;
    if cmp_int_float(a, value(below)) == std::cmp::Ordering::Equal {
        return sign | below;
    }
    let above = below + 1; // inf when below is the largest finite value
    let neg = v < 0;
    let away = matches!((m, neg), (Rounding::Rp, false) | (Rounding::Rm, true));
    let toward = m == Rounding::Rz || matches!((m, neg), (Rounding::Rp, true) | (Rounding::Rm, false));
    let pick = if away {
        above
    } else if toward {
        below
    } else {
        // Nearest: compare 2a with below + above (the upper neighbour of MAX is 2^(emax+1)).
        let top = if above == inf { value(max) + (value(max) - value(max - 1)) } else { value(above) };
        let (l, h) = (value(below) as i128, top as i128);
        match (2 * a).cmp(&(l + h)) {
            std::cmp::Ordering::Less => below,
            std::cmp::Ordering::Greater => above,
            std::cmp::Ordering::Equal if below & 1 == 0 => below,
            _ => above,
        }
    };
    sign | pick
}

fn floats() -> [Scalar; 4] {
    [Scalar::F16, Scalar::BF16, Scalar::F32, Scalar::F64]
}

fn check_to_int(float: Scalar, xs: impl Iterator<Item = u64> + Clone) -> usize {
    let mut n = 0;
    for int in IntType::ALL {
        for m in Rounding::ALL {
            let c = CvtInt { float, int, to_int: true, rounding: CvtRounding::Integer(m), ftz: false, sat: false };
            for x in xs.clone() {
                if float.is_nan(x) {
                    continue;
                }
                let want = int_reference(int, float.to_f64(x), m);
                assert_eq!(c.eval_bits(x), want, "{c} of {x:#x} ({})", float.to_f64(x));
                n += 1;
            }
        }
    }
    n
}

#[test]
fn every_f16_and_bf16_input_converts_to_every_integer_type_as_the_saturating_reference() {
    assert!(check_to_int(Scalar::F16, 0..1 << 16) > 2_000_000);
    assert!(check_to_int(Scalar::BF16, 0..1 << 16) > 2_000_000);
}

#[test]
fn f32_and_f64_inputs_with_every_binade_convert_as_the_saturating_reference() {
    let f32s = (0..1u64 << 32).step_by(40_009).chain((0..256u64).flat_map(|e| [e << 23, e << 23 | 1, e << 23 | 0x40_0000, (e << 23) - 1]));
    check_to_int(Scalar::F32, f32s);
    let f64s = (0..1u64 << 20).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).chain((0..2048u64).flat_map(|e| [e << 52, e << 52 | 1 << 51, (e << 52) - 1]));
    check_to_int(Scalar::F64, f64s);
}

#[test]
fn every_8_and_16_bit_integer_converts_to_every_float_format_correctly_rounded() {
    for int in IntType::ALL.into_iter().filter(|t| t.bits <= 16) {
        for float in floats() {
            for m in Rounding::ALL {
                let c = CvtInt { float, int, to_int: false, rounding: CvtRounding::Float(m), ftz: false, sat: false };
                for x in 0..=int.mask() {
                    assert_eq!(c.eval_bits(x), float_reference(float, int.value(x), m), "{c} of {}", int.value(x));
                }
            }
        }
    }
}

#[test]
fn wide_integers_and_their_edges_convert_correctly_rounded() {
    let mut xs: Vec<u64> = (0..20_000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    for k in 0..64 {
        let p = 1u64 << k;
        xs.extend([p, p.wrapping_sub(1), p + 1, p.wrapping_neg(), p.wrapping_neg().wrapping_add(1)]);
    }
    // Ties and their neighbours at the f32 and f64 precisions, and the f16 overflow threshold.
    xs.extend([(1 << 24) + 1, (1 << 24) + 3, (1 << 53) + 1, (1 << 53) + 3, 65_520, 65_519, 65_536, u64::MAX, i64::MIN as u64]);
    for int in IntType::ALL.into_iter().filter(|t| t.bits >= 32) {
        for float in floats() {
            for m in Rounding::ALL {
                let c = CvtInt { float, int, to_int: false, rounding: CvtRounding::Float(m), ftz: false, sat: false };
                for &x in &xs {
                    let x = x & int.mask();
                    assert_eq!(c.eval_bits(x), float_reference(float, int.value(x), m), "{c} of {}", int.value(x));
                }
            }
        }
    }
}

#[test]
fn the_nan_clamp_ftz_and_sat_rows_hold_entry_by_entry() {
    let e = |s: &str, x: u64| cvt(s).eval_bits(x);
    // NaN: zero unless the source is .f64 or the destination is 64 bits wide.
    assert_eq!(e("cvt.rni.s32.f32", 0x7fc0_0000), 0);
    assert_eq!(e("cvt.rzi.u16.f16", 0x7e00), 0);
    assert_eq!(e("cvt.rni.s8.bf16", 0xffc1), 0);
    assert_eq!(e("cvt.rni.s32.f64", 0x7ff8_0000_0000_0000), 0x8000_0000, "MININT");
    assert_eq!(e("cvt.rni.u32.f64", 0x7ff8_0000_0000_0001), 0x8000_0000, "(MAXINT >> 1) + 1");
    assert_eq!(e("cvt.rni.u8.f64", 0xfff8_0000_0000_0000), 0x80);
    assert_eq!(e("cvt.rni.s64.f32", 0x7fc0_0000), 1 << 63);
    assert_eq!(e("cvt.rmi.u64.f16", 0x7e00), 1 << 63);
    // Clamped by default; .sat changes nothing.
    assert_eq!(e("cvt.rzi.s8.f32", 300f32.to_bits() as u64), 0x7f);
    assert_eq!(e("cvt.rzi.sat.s8.f32", 300f32.to_bits() as u64), 0x7f);
    assert_eq!(e("cvt.rzi.s8.f32", (-300f32).to_bits() as u64), 0x80);
    assert_eq!(e("cvt.rni.u32.f32", (-1.5f32).to_bits() as u64), 0);
    assert_eq!(e("cvt.rni.u32.f32", f32::INFINITY.to_bits() as u64), 0xffff_ffff);
    assert_eq!(e("cvt.rni.s64.f64", f64::NEG_INFINITY.to_bits()), 1 << 63);
    assert_eq!(e("cvt.rpi.u64.f32", 1.8446744e19f32.to_bits() as u64), u64::MAX, "2^64 clamps");
    // Integer rounding of ties and of -0.5.
    assert_eq!(e("cvt.rni.s32.f32", 2.5f32.to_bits() as u64), 2);
    assert_eq!(e("cvt.rni.s32.f32", (-0.5f32).to_bits() as u64), 0);
    assert_eq!(e("cvt.rmi.s32.f32", (-0.5f32).to_bits() as u64), 0xffff_ffff);
    // .ftz: an f32 subnormal input is a zero, so rounding up gives 0, not 1.
    let tiny = 1e-40f32.to_bits() as u64;
    assert_eq!(e("cvt.rpi.s32.f32", tiny), 1);
    assert_eq!(e("cvt.rpi.ftz.s32.f32", tiny), 0);
    assert_eq!(e("cvt.rmi.ftz.s32.f32", (-1e-40f32).to_bits() as u64), 0);
    // Integer to float: .sat clamps to [0, 1]; beyond the format, the mode decides.
    assert_eq!(e("cvt.rn.sat.f32.s32", (-5i32) as u32 as u64), 0);
    assert_eq!(e("cvt.rn.sat.f16.u32", 7), 0x3c00);
    assert_eq!(e("cvt.rn.sat.f64.s8", 0), 0);
    assert_eq!(e("cvt.rn.f16.u32", 70_000), 0x7c00, "overflow to nearest: inf");
    assert_eq!(e("cvt.rz.f16.u32", 70_000), 0x7bff, "toward zero: MAX_FINITE");
    assert_eq!(e("cvt.rn.f16.s32", 65_520), 0x7c00, "the f16 overflow threshold rounds to inf");
    assert_eq!(e("cvt.rn.f32.s32", (1 << 24) + 1), 0x4b80_0000, "a tie to even");
    assert_eq!(e("cvt.rp.f32.s64", (1 << 24) + 1), 0x4b80_0001);
    assert_eq!(e("cvt.rn.bf16.u64", u64::MAX), 0x5f80, "2^64");
    assert_eq!(e("cvt.rz.f32.s64", i64::MIN as u64), 0xdf00_0000, "-2^63");
}

#[test]
fn documented_spellings_parse_back_and_undocumented_ones_name_their_rule() {
    let all = CvtInt::all();
    // Per integer type and mode, each way: .sat except with bf16, .ftz with f32 only
    // (f16 2, bf16 1, f32 4, f64 2).
    assert_eq!(all.len(), 8 * 4 * (9 + 9), "{}", all.len());
    for c in &all {
        assert_eq!(&CvtInt::parse(&c.to_string()).unwrap(), c);
        assert!(CvtInt::claims(&c.to_string()));
    }
    assert_eq!(cvt("cvt.s8.bf16.rpi"), cvt("cvt.rpi.s8.bf16"), "the section's example order");
    let rule = |s: &str| match CvtInt::parse(s) {
        Err(CvtError::Illegal { rule, .. }) => rule,
        other => panic!("{s}: {other:?}"),
    };
    assert!(rule("cvt.s32.f32").contains("Integer rounding is required for float-to-integer"));
    assert!(rule("cvt.rn.s32.f32").contains("Integer rounding is required"));
    assert!(rule("cvt.f32.s32").contains("for integer-to-float conversions"), "the Examples' spelling, refused by the rule");
    assert!(rule("cvt.rni.f32.s32").contains("for integer-to-float conversions"));
    assert!(rule("cvt.rni.ftz.s32.f64").contains(".ftz can only be specified"));
    assert!(rule("cvt.rn.sat.bf16.s32").contains("Applies to .f16, .f32, and .f64"));
    assert!(rule("cvt.rni.sat.s32.bf16").contains("refuses .sat with a bf16 source"));
    assert!(matches!(CvtInt::parse("cvt.s32.u8"), Err(CvtError::Spelling { .. })));
    assert!(matches!(CvtInt::parse("cvt.rni.s32.tf32"), Err(CvtError::Spelling { .. })));
    assert!(!CvtInt::claims("cvt.rn.bf16.f32"));
}

#[test]
fn bf16_forms_need_sm_90_and_the_others_any_sm() {
    assert_eq!(cvt("cvt.rni.s32.bf16").requirement().sm, 90);
    assert_eq!(cvt("cvt.rz.bf16.u64").requirement().ptx, PtxVersion::new(7, 8));
    assert_eq!(cvt("cvt.rni.s32.f16").requirement().sm, 20);
    let t = Target::new(80, PtxVersion::new(8, 0));
    assert!(cvt("cvt.rni.s32.bf16").check_target(t).is_err());
    assert!(cvt("cvt.rn.f64.s64").check_target(t).is_ok());
    assert!(matches!(cvt("cvt.rn.f32.s32").eval(&[1, 2]), Err(CvtError::Operands { want: 1, got: 2, .. })));
}
