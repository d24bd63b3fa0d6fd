//! The x4 `cvt.rs` forms against dither-and-truncate on the f32 encoding (add the random byte
//! below the kept bits, clear the discarded ones, look the exact value up among the format's
//! encodings), the share of roundings away over every byte, each element's byte of `rbits`,
//! the special rows, the spellings.

use super::*;
use crate::narrow_format::LAYOUTS;

fn form(s: &str) -> QuadCvt {
    QuadCvt::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The lane of `a` (the top slot) of `c` on `a` with the random byte `r` in `a`'s place.
fn top(c: &QuadCvt, a: u32, r: u32) -> LaneExpectation {
    c.eval(&[a as u64, 0, 0, 0, (r as u64) << 24]).unwrap().lanes[3].clone()
}

/// The non-negative values of `n` with their encodings, in value order (NaN and infinity out).
fn values(n: Narrow) -> Vec<(f64, u64)> {
    let mut v: Vec<(f64, u64)> = (0..1u64 << (n.layout().bits() - 1)).map(|e| (decode(n, e), e)).filter(|p| p.0.is_finite()).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// The encoding of the exact non-negative value `v` among `values` (a search, not the crate's
/// rounding).
fn encoding(values: &[(f64, u64)], v: f64) -> u64 {
    let i = values.partition_point(|p| p.0 < v);
    assert_eq!(values[i].0, v, "{v} is not a value of the format");
    values[i].1
}

#[test]
fn the_primary_is_dither_and_truncate_in_every_normal_binade() {
    for c in QuadCvt::all().into_iter().filter(|c| !c.relu) {
        let l = c.dst.layout();
        let dropped = 23 - l.man_bits;
        let max = decode(c.dst, l.max);
        let table = values(c.dst);
        // Every normal binade of the format, 24 fractions each, both signs, every byte.
        for e in (1 - l.bias)..=(l.max >> l.man_bits) as i32 - l.bias {
            for k in 0..24u32 {
                let mag = ((e + 127) as u32) << 23 | k.wrapping_mul(0x9e37_79b9) >> 9;
                for sign in [0u32, 1 << 31] {
                    let x = sign | mag;
                    for r in 0..256u32 {
                        let dithered = (mag + (r << (dropped - 8))) & !((1 << dropped) - 1);
                        let v = (f32::from_bits(dithered) as f64).min(max);
                        let want = encoding(&table, v) | if sign != 0 { 1 << (l.bits() - 1) } else { 0 };
                        let lane = top(&c, x, r);
                        assert_eq!(lane.primary, Outcome::Bits(want), "{c} 0x{x:08x} byte 0x{r:02x}");
                    }
                }
            }
        }
    }
}

#[test]
fn away_from_zero_is_taken_for_exactly_the_top_discarded_share_of_every_byte() {
    // 1 + 0x5a/256 of an e4m3 step above 1.0, and the same in e2m1's subnormal step (0.5).
    for (s, x, share) in [("cvt.rs.satfinite.e4m3x4.f32", 0x3f80_0000u32 | 0x5a << 12, 0x5a), ("cvt.rs.satfinite.e2m1x4.f32", (0.5f32 * (1.0 + 0x31 as f32 / 256.0)).to_bits(), 0x31)] {
        let c = form(s);
        let toward = top(&c, x, 0).primary;
        assert_eq!((0..256).filter(|&r| top(&c, x, r).primary != toward).count(), share, "{s}");
    }
}

#[test]
fn either_neighbour_is_accepted_and_nothing_else() {
    let c = form("cvt.rs.satfinite.e5m2x4.f32");
    // 1.1 lies between e5m2's 1.0 (0x3c) and 1.25 (0x3d).
    let e = c.eval(&[1.1f32.to_bits() as u64, 0, 0, 0, 0]).unwrap();
    assert_eq!(e.lanes[3].alternatives.as_slice(), &[(Outcome::Bits(0x3d), Reading::RbitsLayout)]);
    for byte in 0..=0xffu64 {
        assert_eq!(e.accepts(byte << 24), byte == 0x3c || byte == 0x3d, "0x{byte:02x}");
    }
    // An exact value has one result whatever the bits.
    let exact = c.eval(&[1.25f32.to_bits() as u64, 0, 0, 0, 0xffff_ffff]).unwrap();
    assert_eq!((exact.primary_bits(), exact.lanes[3].alternatives.len()), (0x3d00_0000, 0));
}

#[test]
fn each_element_takes_its_byte_of_the_halves_the_text_names() {
    // Every element halfway between two e4m3 (e2m1) values: its byte 0x80 carries, 0x7f not.
    let half_e4m3 = (1.0f32 + 1.0 / 16.0).to_bits() as u64;
    let half_e2m1 = 1.25f32.to_bits() as u64;
    for (s, x, (lo, hi), bytes) in [
        ("cvt.rs.satfinite.e4m3x4.f32", half_e4m3, (0x38, 0x39), [24, 16, 8, 0]),
        ("cvt.rs.satfinite.e2m1x4.f32", half_e2m1, (0x2, 0x3), [24, 8, 16, 0]),
    ] {
        let c = form(s);
        let w = c.dst_bits() / 4;
        for (k, &shift) in bytes.iter().enumerate() {
            // Element k (a, b, e, f) sits in slot 3 - k; only its byte is 0x80, the rest 0x7f.
            let rbits = 0x7f7f_7f7fu64 & !(0xff << shift) | 0x80 << shift;
            let d = c.eval(&[x, x, x, x, rbits]).unwrap().primary_bits();
            for slot in 0..4 {
                let want = if slot == 3 - k as u32 { hi } else { lo };
                assert_eq!(d >> (w * slot) & ((1 << w) - 1), want, "{s}: element {k} slot {slot}");
            }
        }
    }
}

#[test]
fn special_values_and_clamps_follow_the_narrow_rows() {
    let p = |s: &str, a: f32, r: u32| top(&form(s), a.to_bits(), r);
    // e4m3 and e5m2 keep a NaN (any of theirs); the 6- and 4-bit formats give +MAX_NORM.
    assert_eq!(p("cvt.rs.satfinite.e4m3x4.f32", f32::NAN, 0).primary, Outcome::AnyNan);
    assert_eq!(p("cvt.rs.relu.satfinite.e5m2x4.f32", f32::NAN, 0).primary, Outcome::Bits(0x7f));
    assert_eq!(p("cvt.rs.satfinite.e2m1x4.f32", -f32::NAN, 0).primary, Outcome::Bits(0x7));
    assert_eq!(p("cvt.rs.satfinite.e3m2x4.f32", f32::NAN, 0).primary, Outcome::Bits(0x1f));
    // Infinity and anything past MAX_NORM saturate, carry or not.
    assert_eq!(p("cvt.rs.satfinite.e4m3x4.f32", f32::NEG_INFINITY, 0xff).primary, Outcome::Bits(0xfe));
    assert_eq!(p("cvt.rs.satfinite.e5m2x4.f32", 60000.0, 0xff).primary, Outcome::Bits(0x7b));
    assert_eq!(p("cvt.rs.satfinite.e2m3x4.f32", 7.6, 0xff).primary, Outcome::Bits(0x1f));
    // .relu: a negative is +0, a -0 result may keep its sign.
    assert_eq!(p("cvt.rs.relu.satfinite.e2m1x4.f32", -2.5, 0xff).primary, Outcome::Bits(0));
    let tiny = p("cvt.rs.relu.satfinite.e4m3x4.f32", -1e-6, 0);
    assert_eq!((tiny.primary, tiny.alternatives[0].1), (Outcome::Bits(0), Reading::ReluKeepsNegativeZero));
    // A subnormal result: 1.5 * 2^-9 is halfway between e4m3's 2^-9 (0x01) and 2^-8 (0x02).
    let sub = (1.5f32 * 2f32.powi(-9)).to_bits();
    assert_eq!(top(&form("cvt.rs.satfinite.e4m3x4.f32"), sub, 0x80).primary, Outcome::Bits(0x02));
    assert_eq!(top(&form("cvt.rs.satfinite.e4m3x4.f32"), sub, 0x7f).primary, Outcome::Bits(0x01));
}

#[test]
fn spellings_targets_and_widths() {
    assert_eq!(QuadCvt::all().len(), 10);
    for c in QuadCvt::all() {
        assert_eq!(QuadCvt::parse(&c.to_string()), Ok(c));
        assert_eq!(c.needs().target(), "sm_100a");
        assert_eq!(c.dst_bits(), if c.dst == Narrow::E2m1 { 16 } else { 32 }, "{c}");
        assert!(LAYOUTS.iter().any(|r| r.0 == c.dst) && c.dst != Narrow::Ue8m0);
    }
    let err = |s: &str| QuadCvt::parse(s).unwrap_err().to_string();
    assert!(err("cvt.rs.e4m3x4.f32").contains(".satfinite, which is mandatory"));
    assert!(err("cvt.rs.satfinite.satfinite.e4m3x4.f32").contains("twice"));
    assert!(err("cvt.rs.satfinite.ue8m0x4.f32").contains("not on the x4 syntax lines"));
    assert!(err("cvt.rs.satfinite.e4m3x4.e5m2x4.f32").contains("not on the x4 syntax lines"));
    assert!(err("cvt.rs.satfinite.e4m3x4").contains("then .f32"));
    assert!(err("cvt.rn.satfinite.e4m3x4.f32").contains("only by cvt.rs"));
    assert!(c_operands_error().contains("takes 5"));
}

fn c_operands_error() -> String {
    form("cvt.rs.satfinite.e4m3x4.f32").eval(&[0, 0, 0]).unwrap_err().to_string()
}
