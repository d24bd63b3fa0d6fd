//! Tests of the mismatch classes: each rule of `classify`'s table, and the premises of its gates.

use super::*;

fn instr(t: &str) -> Instr {
    Instr::parse_default(t).unwrap()
}

fn f(x: f32) -> u64 {
    x.to_bits() as u64
}

/// Classify `got` for `form` on `ops`, asserting the interpreter rejects it first.
fn class_of(form: &str, ops: &[u64], got: u64) -> Classified {
    let i = instr(form);
    let e = interp::eval(&i, ops).unwrap();
    assert!(!e.accepts(got), "{form} {ops:x?}: 0x{got:x} is allowed");
    classify(Some(&i), ops, &e, got)
}

#[test]
fn rz_computed_as_rn_is_rounding() {
    // 1 + 2^-24 + 2^-30: .rz truncates to 1, .rn rounds up to 1 + 2^-23.
    let a = f(1.0);
    let b = f(2f32.powi(-24) + 2f32.powi(-30));
    let c = class_of("add.rz.f32", &[a, b], f(1.0 + 2f32.powi(-23)));
    assert_eq!(c.class, MismatchClass::Rounding);
    assert_eq!(c.ulps, Some(1));
}

#[test]
fn an_integer_off_by_another_rounding_is_rounding_else_gross() {
    // 2.5 to s32: .rni gives 2 (ties to even); 3 is .rpi's answer, 7 nobody's.
    let c = class_of("cvt.rni.s32.f32", &[f(2.5)], 3);
    assert_eq!((c.class, c.ulps), (MismatchClass::Rounding, Some(1)));
    let c = class_of("cvt.rni.s32.f32", &[f(2.5)], 0xffff_fff9);
    assert_eq!((c.class, c.ulps), (MismatchClass::Gross, Some(-9)));
    // An f32 subnormal: .rpi without .ftz gives 1, with it 0.
    let c = class_of("cvt.rpi.s32.f32", &[1], 0);
    assert_eq!(c.class, MismatchClass::Ftz);
}

#[test]
fn an_fp8_element_is_judged_in_its_own_format() {
    // cvt.rn.satfinite.e4m3x2.f32 of (1.0, -2.0) is 0x38c0: -2 in the low element.
    let form = "cvt.rn.satfinite.e4m3x2.f32";
    let ops = [f(1.0), f(-2.0)];
    // +2 for -2: the sign alone, on lane 0.
    let c = class_of(form, &ops, 0x3840);
    assert_eq!((c.lane, c.class), (0, MismatchClass::Sign));
    // One e4m3 step above 1.0 in the high element: rounding, 1 step.
    let c = class_of(form, &ops, 0x39c0);
    assert_eq!((c.lane, c.class, c.ulps), (1, MismatchClass::Rounding, Some(1)));
    // A NaN for a number, and far off.
    assert_eq!(class_of(form, &ops, 0x7fc0).class, MismatchClass::NanVsNumber);
    assert_eq!(class_of(form, &ops, 0x50c0).class, MismatchClass::Gross);
    // .satfinite ignored (e5m2 has infinity): 1e6 saturates to 0x7b, not 0x7c.
    let c = class_of("cvt.rn.satfinite.e5m2x2.f32", &[f(1e6), 0], 0x7c00);
    assert_eq!((c.lane, c.class, c.ulps), (1, MismatchClass::Rounding, Some(1)));
    // .relu kept a negative value: sat.
    let c = class_of("cvt.rn.satfinite.relu.e4m3x2.f32", &[f(1.0), f(-2.0)], 0x38c0);
    assert_eq!(c.class, MismatchClass::Sat);
}

#[test]
fn another_modes_result_far_off_in_ulps_is_still_rounding() {
    // (1 - 2^-24)/2 * 2^-125 (1 - 2^-24) is just above 2^-126 - 2^-149: .rn gives that
    // subnormal, which .ftz flushes to +0; .rp gives 2^-126, 2^23 ulps away. The distance
    // alone would say gross; rule 9's evaluation in the other modes says rounding.
    let c = class_of("mul.rn.ftz.f32", &[0x3eff_ffff, 0x00ff_ffff], 0x0080_0000);
    assert_eq!((c.class, c.ulps), (MismatchClass::Rounding, Some(1 << 23)));
}

#[test]
fn far_off_number_is_gross() {
    let c = class_of("add.rn.f32", &[f(1.0), f(2.0)], f(4.0));
    assert_eq!(c.class, MismatchClass::Gross);
    assert_eq!(c.ulps, Some(1 << 22));
}

#[test]
fn unflushed_result_of_ftz_form_is_ftz() {
    // 2^-126 * 0.5 is subnormal: .ftz must give +0.
    let c = class_of("mul.rn.ftz.f32", &[f(2f32.powi(-126)), f(0.5)], 0x0040_0000);
    assert_eq!(c.class, MismatchClass::Ftz);
    // A flushed result where no .ftz is asked for.
    let c = class_of("mul.rn.f32", &[f(2f32.powi(-126)), f(0.5)], 0);
    assert_eq!(c.class, MismatchClass::Ftz);
}

/// Classify `got` for `form` on `ops` against the sm_90 profile's answer.
fn class_on_sm90(form: &str, ops: &[u64], got: u64) -> Classified {
    let i = instr(form);
    let sm90 = ptx::profile::Profile::named("sm_90").unwrap();
    let e = super::super::narrow(&sm90, &i, ops, interp::eval(&i, ops).unwrap());
    assert!(!e.accepts(got), "{form} {ops:x?}: 0x{got:x} is sm_90's");
    classify(Some(&i), ops, &e, got)
}

#[test]
fn a_result_the_spec_allows_but_the_gpu_does_not_give_is_not_ftz_without_a_tiny_value() {
    // cos.approx.f32 of 1.0: the correctly rounded 0x3f0a5140, one ulp below the H100's
    // 0x3f0a5141 (`--judge sm_90`). The `.ftz` form allows it too, as the form itself
    // does, but nothing here is subnormal: the H100's exact answer is what it missed.
    let c = class_on_sm90("cos.approx.f32", &[f(1.0)], 0x3f0a_5140);
    assert_eq!(c.class, MismatchClass::SpecialCaseTable);
    // 0.5 * (2 - 2^-23) 2^-126 = (1 - 2^-24) 2^-126 rounds to 2^-126, which the spec's
    // reading keeps (tininess after rounding) and the H100 flushes to +0 under `.ftz`
    // (before rounding): a result at the smallest normal is flushing at play.
    let c = class_on_sm90("mul.rn.ftz.f32", &[f(0.5), 0x00ff_ffff], 0x0080_0000);
    assert_eq!(c.class, MismatchClass::Ftz);
}

#[test]
fn the_unclamped_form_allows_more_only_where_clamping_acts() {
    // Rule 2's gate: whatever the form without `.sat`/`.relu` allows and the form does not
    // lies where clamping acts, so gating the rule there changes no spec-judged class.
    use super::super::flush::tests::{candidates, operands};
    let mut rng = crate::campaign::source::Rng::new(21);
    let forms: Vec<Instr> = ptx::gen::legal_forms().iter().copied().filter(|f| f.clamp != Clamp::None).collect();
    let (mut cases, mut differing) = (0u64, 0u64);
    for f in &forms {
        let u = Instr { clamp: Clamp::None, ..*f };
        for _ in 0..2000 {
            let ops = operands(f, &mut rng);
            let (Ok(own), Ok(other)) = (interp::eval(f, &ops), interp::eval(&u, &ops)) else {
                continue;
            };
            let Some(s) = own.scalar.filter(|_| own.integer.is_none()) else {
                continue;
            };
            cases += 1;
            for (lane, l) in other.lanes.iter().enumerate() {
                let mut values = vec![rng.next_u64() & s.mask()];
                candidates(s, &l.primary, &mut rng, &mut values);
                for (o, _) in &l.alternatives {
                    candidates(s, o, &mut rng, &mut values);
                }
                for v in values.into_iter().filter(|&v| other.lane_accepts(lane, v) && !own.lane_accepts(lane, v)) {
                    differing += 1;
                    assert!(clamp_acts_on(f.clamp, s.to_f64(v)), "{f} on {ops:x?}: {u} allows 0x{v:x} in lane {lane}, {f} does not");
                }
            }
        }
    }
    assert!(forms.len() > 20 && cases > 50_000 && differing > 5_000, "{} forms, {cases} cases, {differing} differing", forms.len());
}

#[test]
fn clamping_acts_outside_its_identity_range() {
    for x in [0.0, -0.0, 1.0, 1.5, -2.0, f64::NAN, f64::INFINITY] {
        assert!(clamp_acts_on(Clamp::Sat, x), "{x}");
    }
    assert!(!clamp_acts_on(Clamp::Sat, 0.5) && !clamp_acts_on(Clamp::Sat, f64::MIN_POSITIVE));
    for x in [0.0, -0.0, -1.0, f64::NAN, f64::NEG_INFINITY] {
        assert!(clamp_acts_on(Clamp::Relu, x), "{x}");
    }
    assert!(!clamp_acts_on(Clamp::Relu, 3.0) && !clamp_acts_on(Clamp::None, -1.0));
}

#[test]
fn a_ftz_zero_against_the_smallest_normal_is_ftz() {
    // (1 - 2^-24) 2^-126 in .rp: the spec's bounded rounding gives 2^-126, which the
    // H100 flushes to +0 (`--judge sm_90`); the subnormal c is flushed either way. The form
    // without `.sat` allows 2^-126 too, but clamping does nothing there: not `sat`.
    let ops = [f(0.5), 0x00ff_ffff, 0x0000_0001];
    let c = class_on_sm90("fma.rp.ftz.sat.f32", &ops, 0x0080_0000);
    assert_eq!(c.class, MismatchClass::Ftz);
    // The spec allows both readings, so judged by it the H100's +0 is no mismatch at all.
    assert!(interp::eval(&instr("fma.rp.ftz.sat.f32"), &ops).unwrap().accepts(0));
    // Without `.ftz` the same edge is a rounding question.
    let c = class_of("mul.rz.f32", &ops[..2], 0x0080_0000);
    assert_eq!(c.class, MismatchClass::Rounding);
}

#[test]
fn the_f64_rsqrt_pair_is_ftz_only_where_the_form_itself_does_not_allow_the_result() {
    // Judged by the spec: rsqrt.approx.f64's result (the whole 64-bit word) for the `.ftz`
    // form, which works on the upper word: the other function, `ftz`.
    let x = [3f64.to_bits()];
    let got = interp::eval(&instr("rsqrt.approx.f64"), &x).unwrap().primary_bits();
    assert_eq!(class_of("rsqrt.approx.ftz.f64", &x, got).class, MismatchClass::Ftz);
    // Under sm_90 the interpreter's 0x4fe1c01b00000000 lies in the form's own range but is
    // not the H100's 0x4fe1c01a00000000: a model question, as for rsqrt.approx.f64.
    let c = class_on_sm90("rsqrt.approx.ftz.f64", &[0x200a_0000_0000_0000], 0x4fe1_c01b_0000_0000);
    assert_eq!(c.class, MismatchClass::SpecialCaseTable);
}

#[test]
fn sat_letting_nan_through_is_sat() {
    let c = class_of("add.rn.sat.f32", &[0x7fc0_0000, f(1.0)], 0x7fc0_0000);
    assert_eq!(c.class, MismatchClass::Sat);
    let c = class_of("add.rn.sat.f32", &[f(1.0), f(1.0)], f(2.0));
    assert_eq!(c.class, MismatchClass::Sat);
}

#[test]
fn nan_for_a_number_and_number_for_nan() {
    let c = class_of("add.rn.f32", &[f(1.0), f(1.0)], 0x7fc0_0000);
    assert_eq!(c.class, MismatchClass::NanVsNumber);
    assert_eq!(c.ulps, None);
    let c = class_of("add.rn.f32", &[0x7f80_0000, 0xff80_0000], f(0.0));
    assert_eq!(c.class, MismatchClass::NanVsNumber);
}

#[test]
fn wrong_f64_payload_is_nan_payload() {
    let qnan1 = 0x7ff8_0000_0000_0001;
    let c = class_of("add.rn.f64", &[qnan1, 1f64.to_bits()], 0x7ff8_0000_0000_0002);
    assert_eq!(c.class, MismatchClass::NanPayload);
}

#[test]
fn another_nan_than_the_profiles_cvt_nan_is_nan_payload_not_ftz() {
    // Under sm_90, cvt.rz.f32.bf16 of a signalling NaN moves the bits (the H200's capture);
    // the quieted NaN differs only in its payload, though cvt.rz.ftz.f32.bf16 allows it too.
    let i = instr("cvt.rz.f32.bf16");
    let profile = ptx::profile::Profile::named("sm_90").unwrap();
    let e = crate::compare::narrow(&profile, &i, &[0x7fbf], interp::eval(&i, &[0x7fbf]).unwrap());
    assert_eq!(e.primary_bits(), 0x7fbf_0000);
    let c = classify(Some(&i), &[0x7fbf], &e, 0x7fff_0000);
    assert_eq!(c.class, MismatchClass::NanPayload);
}

#[test]
fn min_of_two_zeros_returning_the_first_is_signed_zero() {
    // 9.7.3.11: min(+0, -0) is -0.
    let c = class_of("min.f32", &[0, 0x8000_0000], 0);
    assert_eq!(c.class, MismatchClass::SignedZero);
}

#[test]
fn a_number_off_only_in_its_sign_is_sign() {
    let c = class_of("neg.f32", &[f(1.0)], f(1.0));
    assert_eq!(c.class, MismatchClass::Sign);
    // The H100 finding (../shared/hw/h100-sm90/findings/min.NaN.xorsign.abs.f16x2~...):
    // its recorded result, judged on the operands of its min (the neg of its input).
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/hw/h100-sm90/findings/min.NaN.xorsign.abs.f16x2~gross~normal.normal~sm90/repro.json"
    );
    let r: api::Reproducer = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let x = u64::from_str_radix(&r.inputs[0][2..], 16).unwrap();
    let got = u64::from_str_radix(&r.actual[0][2..], 16).unwrap();
    let neg = interp::eval(&instr("neg.f16x2"), &[x]).unwrap().primary_bits();
    let c = class_of("min.NaN.xorsign.abs.f16x2", &[neg, neg], got);
    assert_eq!(c.class, MismatchClass::Sign);
}

#[test]
fn approximate_out_of_bound_and_special_rows() {
    let i = instr("rcp.approx.f32");
    let e = interp::eval(&i, &[f(3.0)]).unwrap();
    let Outcome::Range { hi, .. } = e.lanes[0].primary else { panic!("{e}") };
    let c = classify(Some(&i), &[f(3.0)], &e, hi + 2);
    assert_eq!(c.class, MismatchClass::BoundExceeded);
    assert_eq!(c.excess, Some(2));
    // 9.7.3.13 table: rcp.approx(+inf) = +0.
    let c = class_of("rcp.approx.f32", &[0x7f80_0000], f(1e-30));
    assert_eq!(c.class, MismatchClass::SpecialCaseTable);
}

#[test]
fn packed_lanes_report_the_first_disagreeing_lane() {
    // f16x2: lane 0 right (1+1=2), lane 1 wrong.
    let ops = [0x3c00_3c00, 0x3c00_3c00];
    let c = class_of("add.rn.f16x2", &ops, 0x4400_4000);
    assert_eq!(c.lane, 1);
    assert_eq!(c.class, MismatchClass::Gross);
}

#[test]
fn wrong_predicate_is_gross() {
    let c = class_of("testp.normal.f32", &[f(1.0)], 0);
    assert_eq!(c.class, MismatchClass::Gross);
}

#[test]
fn a_comparisons_other_outcome_is_comparison_and_anything_else_is_not() {
    let (one, two) = (f(1.0), f(2.0));
    assert_eq!(class_of("setp.lt.f32", &[one, two], 0).class, MismatchClass::Comparison);
    // selp: the operand c did not select; a third value is a wrong number, not a choice.
    assert_eq!(class_of("selp.f32", &[one, two, 1], two).class, MismatchClass::Comparison);
    assert_eq!(class_of("selp.f32", &[one, two, 0], one).class, MismatchClass::Comparison);
    assert_eq!(class_of("selp.f32", &[one, two, 1], f(8.0)).class, MismatchClass::Gross);
    // An integer selp the same way: its operands are the register's bits.
    assert_eq!(class_of("selp.s32", &[0xffff_fffe, 7, 1], 7).class, MismatchClass::Comparison);
    assert_ne!(class_of("selp.u16", &[3, 7, 0], 8).class, MismatchClass::Comparison);
    // set: 0.0 for 1.0, lane by lane (lane 1 of the pair inverted here).
    assert_eq!(class_of("set.lt.f16.f32", &[one, two], 0).class, MismatchClass::Comparison);
    let c = class_of("set.lt.f16x2.f16x2", &[0x3c00_3c00, 0x4000_3c00], 0x0000_0000);
    assert_eq!((c.class, c.lane), (MismatchClass::Comparison, 1));
    assert_ne!(class_of("set.lt.f32.f32", &[one, two], f(0.5)).class, MismatchClass::Comparison);
    // An integer .dtype: zero for all ones, each half of a packed source its own lane.
    assert_eq!(class_of("set.lt.s32.f32", &[one, two], 0).class, MismatchClass::Comparison);
    let c = class_of("set.lt.u32.f16x2", &[0x3c00_3c00, 0x4000_3c00], 0xffff_ffff);
    assert_eq!((c.class, c.lane), (MismatchClass::Comparison, 0));
    assert_eq!(class_of("set.lt.u32.f32", &[one, two], 1).class, MismatchClass::Gross);
    // testp's wrong predicate is not a comparison's.
    assert_eq!(class_of("testp.normal.f32", &[one], 0).class, MismatchClass::Gross);
}

#[test]
fn class_names_round_trip() {
    for c in MismatchClass::ALL {
        assert_eq!(MismatchClass::from_name(c.name()), Some(c));
    }
}
