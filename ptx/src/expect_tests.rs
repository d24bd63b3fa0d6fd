//! `Expectation`: acceptance, readings and bounds.

use super::*;

#[test]
fn an_fp8_pair_accepts_any_nan_of_its_format_where_the_lane_allows_any() {
    use crate::narrow_format::Narrow;
    let e = Expectation::narrow_pair(Narrow::E4m3, LaneExpectation::exact(0xc0), LaneExpectation::any_nan());
    assert_eq!((e.width(), e.lane_bits(), e.primary_bits()), (16, 8, 0x7fc0));
    // e4m3's NaNs are 0x7f and 0xff only (PTX ISA 5.2.3); 0x7e is its MAX_NORM.
    assert!(e.accepts(0x7fc0) && e.accepts(0xffc0) && !e.accepts(0x7ec0) && !e.accepts(0x7f40));
    assert!(e.is_primary(0xffc0) && !e.is_primary(0x7f00));
    assert_eq!(e.to_string(), "lane0: 0xc0 (-2) ; lane1: nan");
    let e5m2 = Expectation::narrow_pair(Narrow::E5m2, LaneExpectation::any_nan(), LaneExpectation::exact(0));
    assert!(e5m2.accepts(0x7d) && e5m2.accepts(0xfe) && !e5m2.accepts(0x7c));
}

#[test]
fn an_integer_result_fills_its_register_and_prints_hex_and_value() {
    let s8 = IntType { signed: true, bits: 8 };
    let e = Expectation::integer(s8, 0xfe);
    assert_eq!((e.width(), e.primary_bits()), (16, 0xfffe));
    assert!(e.accepts(0xfffe) && !e.accepts(0xfe));
    assert_eq!(e.to_string(), "0xfffe (-2)");
}

#[test]
fn accept_form_lists_alternatives_with_their_reading() {
    let e = Expectation::scalar(
        Scalar::F32,
        LaneExpectation::exact(0x0080_0000).or(Outcome::Bits(0), Reading::FtzBeforeRounding),
    );
    assert_eq!(e.to_string(), "0x00800000 | 0x00000000 (ftz-before-rounding)");
    assert!(e.accepts(0));
    assert!(e.accepts(0x0080_0000));
    assert!(!e.accepts(0x8000_0000));
    assert!(!e.is_primary(0));
}

#[test]
fn any_nan_accepts_every_nan_and_no_number() {
    let e = Expectation::scalar(Scalar::F32, LaneExpectation::any_nan());
    assert_eq!(e.to_string(), "nan");
    assert!(e.accepts(0x7fc0_0000));
    assert!(e.accepts(0xff80_0001));
    assert!(!e.accepts(0x7f80_0000));
    assert_eq!(e.primary_bits(), 0x7fff_ffff);
}

#[test]
fn packed_lanes_are_checked_independently() {
    let e = Expectation::packed(
        Scalar::F16,
        LaneExpectation::exact(0x3c00),
        LaneExpectation::any_nan(),
    );
    assert_eq!(e.width(), 32);
    assert_eq!(e.primary_bits(), 0x7fff_3c00);
    assert!(e.accepts(0x7e00_3c00));
    assert!(!e.accepts(0x3c00_3c00));
    assert_eq!(e.to_string(), "lane0: 0x3c00 ; lane1: nan");
}

#[test]
fn predicate_prints_as_digit() {
    let e = Expectation::predicate(true);
    assert_eq!(e.to_string(), "1");
    assert_eq!(e.width(), 1);
    assert!(e.accepts(1));
    assert!(!e.accepts(0));
}

#[test]
fn range_accepts_its_ends_and_rejects_neighbours_and_nan() {
    let e = Expectation::scalar(
        Scalar::F32,
        LaneExpectation::of(Outcome::range(0x3f7f_ffff, 0x3f80_0001, 0x3f80_0000, Ftz::Preserve)),
    );
    assert_eq!(e.to_string(), "0x3f7fffff..0x3f800001");
    for v in [0x3f7f_ffff, 0x3f80_0000, 0x3f80_0001] {
        assert!(e.accepts(v), "{v:#x}");
    }
    for v in [0x3f7f_fffe, 0x3f80_0002, 0xbf80_0000, 0x7fc0_0000, 0x7f80_0000] {
        assert!(!e.accepts(v), "{v:#x}");
    }
    assert_eq!(e.primary_bits(), 0x3f80_0000);
    assert!(e.is_primary(0x3f80_0001));
}

#[test]
fn negative_range_is_in_value_order() {
    // [-1 - ulp, -1 + ulp/2]: lo has the larger magnitude.
    let e = Expectation::scalar(
        Scalar::F32,
        LaneExpectation::of(Outcome::range(0xbf80_0001, 0xbf7f_ffff, 0xbf80_0000, Ftz::Preserve)),
    );
    assert!(e.accepts(0xbf80_0000));
    assert!(e.accepts(0xbf80_0001));
    assert!(!e.accepts(0xbf80_0002));
    assert!(!e.accepts(0x3f80_0000));
}

#[test]
fn range_across_zero_takes_both_zeros_and_subnormals_unless_ftz() {
    let across = |ftz| {
        Expectation::scalar(
            Scalar::F32,
            LaneExpectation::of(Outcome::range(0xb500_0000, 0x3500_0000, 0, ftz)),
        )
    };
    let plain = across(Ftz::Preserve);
    for v in [0, 0x8000_0000, 0x0000_0001, 0x8040_0000, 0x3500_0000, 0xb500_0000] {
        assert!(plain.accepts(v), "{v:#x}");
    }
    assert!(!plain.accepts(0x3500_0001));
    let ftz = across(Ftz::Flush);
    assert_eq!(ftz.to_string(), "0xb5000000..0x35000000 ftz");
    assert!(ftz.accepts(0) && ftz.accepts(0x8000_0000) && ftz.accepts(0x0080_0000));
    assert!(!ftz.accepts(0x0000_0001));
    assert!(!ftz.accepts(0x807f_ffff));
}

#[test]
fn range_ending_at_positive_zero_rejects_negative_zero() {
    // What a flushed positive subnormal leaves: +0 up to a normal, -0 excluded.
    let e = Expectation::scalar(
        Scalar::F32,
        LaneExpectation::of(Outcome::range(0, 0x0080_0001, 0, Ftz::Flush)),
    );
    assert!(e.accepts(0));
    assert!(!e.accepts(0x8000_0000));
    assert!(e.accepts(0x0080_0001));
}

#[test]
fn single_value_range_is_bits() {
    assert_eq!(Outcome::range(5, 5, 5, Ftz::Preserve), Outcome::Bits(5));
}

#[test]
fn unbounded_accepts_anything_and_reports_the_error() {
    let e = Expectation::scalar(Scalar::F32, LaneExpectation::of(Outcome::unbounded(0x3f80_0000)));
    assert_eq!(e.to_string(), "any (no documented bound; reference 0x3f800000)");
    assert!(e.accepts(0x7fc0_0000) && e.accepts(0) && e.accepts(0x3f80_0000));
    assert_eq!(e.primary_bits(), 0x3f80_0000);
    let u = e.undocumented(0x3f80_0003);
    assert_eq!(u.as_slice(), &[Undocumented { lane: 0, reference: 0x3f80_0000, got: 0x3f80_0003, ulps: Some(3) }]);
    assert_eq!(e.undocumented(0x7fc0_0000)[0].ulps, None);
    // Zeros are one value: -min_subnormal is one ulp below +0.
    let z = Expectation::scalar(Scalar::F32, LaneExpectation::of(Outcome::unbounded(0)));
    assert_eq!(z.undocumented(0x8000_0001)[0].ulps, Some(-1));
}

#[test]
fn unbounded_with_fixed_bits_rejects_them() {
    let e = Expectation::scalar(
        Scalar::F64,
        LaneExpectation::of(Outcome::Unbounded { reference: 0x3ff0_0000_0000_0000, zero_mask: 0xffff_ffff }),
    );
    assert!(e.accepts(0x3fe0_0000_0000_0000));
    assert!(!e.accepts(0x3fe0_0000_0000_0001));
    assert_eq!(
        e.to_string(),
        "any with 0x00000000ffffffff clear (no documented bound; reference 0x3ff0000000000000)"
    );
}

#[test]
fn documented_lanes_are_not_reported_as_undocumented() {
    let e = Expectation::packed(
        Scalar::F16,
        LaneExpectation::of(Outcome::range(0x3bff, 0x3c01, 0x3c00, Ftz::Preserve)),
        LaneExpectation::of(Outcome::unbounded(0x3c00)),
    );
    let u = e.undocumented(0x3c02_3c01);
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].lane, 1);
    assert_eq!(u[0].ulps, Some(2));
    assert_eq!(e.to_string(), "lane0: 0x3bff..0x3c01 ; lane1: any (no documented bound; reference 0x3c00)");
}

#[test]
fn each_lane_accepts_what_the_register_accepts_in_that_lane() {
    // Lane 0 a range, lane 1 exact with a NaN alternative: `lane_accepts` judges one lane's
    // bits as `accepts` judges that lane of the register.
    let e = Expectation::packed(
        Scalar::F16,
        LaneExpectation::of(Outcome::range(0x3bff, 0x3c01, 0x3c00, Ftz::Preserve)),
        LaneExpectation::exact(0x4000).or(Outcome::AnyNan, Reading::NanPayloadFromB),
    );
    for v in [0x3bfe, 0x3bff, 0x3c00, 0x3c01, 0x3c02, 0x4000, 0x7e00, 0x7c00] {
        assert_eq!(e.lane_accepts(0, v), e.accepts(0x4000_0000 | v), "lane 0 {v:#x}");
        assert_eq!(e.lane_accepts(1, v), e.accepts(v << 16 | 0x3c00), "lane 1 {v:#x}");
    }
    assert!(e.lane_accepts(1, 0x7e00));
    assert!(!e.lane_accepts(0, 0x7e00));
    assert!(!e.lane_accepts(2, 0x3c00), "no lane 2");
}
