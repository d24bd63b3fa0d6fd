//! `cvt.rs` against the dither-and-truncate computation (add the random bits to the f32
//! encoding, clear the discarded bits, read the exact value in the destination), the share of
//! upward roundings over every `rbits`, the cases the text leaves open, the spellings.

use super::*;

fn form(s: &str) -> StochasticCvt {
    StochasticCvt::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The lane of `a` (the upper half) of `c` on `a` with the random half `r`.
fn upper(c: &StochasticCvt, a: u32, r: u32) -> LaneExpectation {
    c.eval(&[a as u64, 0, (r as u64) << 16]).unwrap().lanes[1].clone()
}

/// Sorted positive f16 values (infinity last) with their bits.
fn f16_values() -> Vec<(f64, u64)> {
    (0..=0x7c00u64).map(|b| (Scalar::F16.to_f64(b), b)).collect()
}

/// The f16 bits of the exact f16 value `v >= 0` (a search, not the crate's rounding).
fn f16_bits(table: &[(f64, u64)], v: f64) -> u64 {
    if v >= 65536.0 {
        return 0x7c00;
    }
    let i = table.partition_point(|&(t, _)| t < v);
    assert_eq!(table[i].0, v, "{v} is not an f16 value");
    table[i].1
}

/// Dither and truncate: the random bits added to the `dropped` low bits of the encoding.
fn dithered(x: u32, r: u32, dropped: u32) -> f64 {
    let y = (x as u64 + r as u64) & !((1u64 << dropped) - 1);
    f32::from_bits(y as u32).abs() as f64
}

/// A sample over all 2^32 encodings, each with its own random bits.
fn sample() -> impl Iterator<Item = (u32, u32)> {
    (0..u32::MAX / 4099).map(|i| {
        let x = i.wrapping_mul(4099);
        (x, x.wrapping_mul(2_654_435_761) >> 16)
    })
}

#[test]
fn bf16_lanes_agree_with_dither_and_truncate_on_every_finite_input_of_a_sample() {
    let c = form("cvt.rs.bf16x2.f32");
    for (x, r) in sample().filter(|(x, _)| !f32::from_bits(*x).is_nan()) {
        let y = ((x as u64 + r as u64) & !0xffff) >> 16;
        assert_eq!(upper(&c, x, r), LaneExpectation::exact(y), "0x{x:08x} rbits 0x{r:04x}");
    }
}

#[test]
fn f16_lanes_agree_with_dither_and_truncate_where_the_text_decides() {
    let (c, table) = (form("cvt.rs.f16x2.f32"), f16_values());
    let mut decided = 0;
    for (x, r) in sample() {
        let (v, r) = (f32::from_bits(x).abs() as f64, r & 0x1fff);
        if v.is_nan() || !(2f64.powi(-14)..65536.0).contains(&v) {
            continue;
        }
        let want = f16_bits(&table, dithered(x, r, 13)) | if x >> 31 == 1 { 0x8000 } else { 0 };
        assert_eq!(upper(&c, x, r), LaneExpectation::exact(want), "0x{x:08x} rbits 0x{r:04x}");
        decided += 1;
    }
    assert!(decided > 100_000, "{decided}");
}

#[test]
fn f16_lanes_the_text_leaves_open_allow_both_neighbours() {
    let (c, table) = (form("cvt.rs.f16x2.f32"), f16_values());
    for (x, r) in sample() {
        let v = f32::from_bits(x).abs() as f64;
        let undecided = !(2f64.powi(-14)..65536.0).contains(&v) || r >> 13 != 0;
        if v.is_nan() || v.is_infinite() || !undecided {
            continue;
        }
        let i = table.partition_point(|&(t, _)| t < v);
        if table[i].0 == v {
            continue;
        }
        let sign = if x >> 31 == 1 { 0x8000 } else { 0 };
        let (toward, away) = (table[i - 1].1 | sign, table[i].1 | sign);
        let (lo, hi) = if sign != 0 { (away, toward) } else { (toward, away) };
        match upper(&c, x, r).primary {
            Outcome::Range { lo: l, hi: h, reference, .. } => {
                assert_eq!((l, h), (lo, hi), "0x{x:08x}");
                assert!(reference == lo || reference == hi);
            }
            other => panic!("0x{x:08x} rbits 0x{r:04x}: {other:?}"),
        }
    }
}

#[test]
fn away_from_zero_is_taken_for_exactly_the_discarded_share_of_every_rbits() {
    // The point of stochastic rounding: over all random values, the chance of rounding away
    // is the discarded fraction, so the mean is the exact value.
    for (c, x, dropped) in [(form("cvt.rs.bf16x2.f32"), 0x3f81_2345u32, 16), (form("cvt.rs.f16x2.f32"), 0x3f80_1357, 13)] {
        let toward = upper(&c, x, 0).primary;
        let aways = (0..1u32 << dropped).filter(|&r| upper(&c, x, r).primary != toward).count();
        assert_eq!(aways as u32, x & ((1 << dropped) - 1), "{c}");
    }
}

#[test]
fn operand_a_takes_the_upper_half_of_rbits_and_b_the_lower() {
    let c = form("cvt.rs.bf16x2.f32");
    let x = 0x3f80_8000u64; // 1 + 2^-8: half a bf16 step above 1.0
    let e = c.eval(&[x, x, 0xffff_0000]).unwrap();
    assert_eq!(e.primary_bits(), 0x3f81_3f80, "a rounds away (upper), b toward zero (lower)");
}

#[test]
fn clamps_and_special_values_follow_the_saturation_rows() {
    let p = |s: &str, a: f32, r: u32| upper(&form(s), a.to_bits(), r).primary;
    assert_eq!(p("cvt.rs.relu.bf16x2.f32", -3.3, 0xffff), Outcome::Bits(0));
    assert_eq!(p("cvt.rs.satfinite.bf16x2.f32", f32::INFINITY, 0), Outcome::Bits(0x7f7f));
    assert_eq!(p("cvt.rs.satfinite.bf16x2.f32", f32::MAX, 0xffff), Outcome::Bits(0x7f7f));
    assert_eq!(p("cvt.rs.bf16x2.f32", f32::MAX, 0xffff), Outcome::Bits(0x7f80), "a carry past MAX_NORM is infinity");
    assert_eq!(p("cvt.rs.satfinite.f16x2.f32", 1e6, 0), Outcome::Bits(0x7bff));
    assert_eq!(p("cvt.rs.relu.f16x2.f32", f32::NAN, 0), Outcome::Bits(0x7fff));
    assert_eq!(p("cvt.rs.f16x2.f32", 2.0, 0x1fff), Outcome::Bits(0x4000), "exact values never round");
}

#[test]
fn spellings_targets_and_forms() {
    assert_eq!(StochasticCvt::all().len(), 8);
    for c in StochasticCvt::all() {
        assert_eq!(StochasticCvt::parse(&c.to_string()), Ok(c));
        assert_eq!(c.needs().target(), "sm_100a");
    }
    let err = |s: &str| StochasticCvt::parse(s).unwrap_err().to_string();
    assert!(err("cvt.rs.satfinite.e4m3x4.f32").contains("stochastic_quad"));
    assert!(err("cvt.rs.f16.f32").contains("not on the .rs syntax lines"));
    assert!(err("cvt.rs.f32.f16x2").contains("needs .f16x2 or .bf16x2, then .f32"));
    assert!(err("cvt.rs.relu.relu.f16x2.f32").contains("twice"));
    assert!(StochasticCvt::claims("cvt.rs.bf16x2.f32") && !StochasticCvt::claims("cvt.rn.bf16x2.f32"));
}

/// Every f32 input, each with its own random bits, both formats, against dither-and-truncate
/// where the text decides and the two neighbours where it does not (ignored: 2^33 lanes; run
/// with `cargo test --release -p ptx --lib -- --ignored stochastic_every_f32_input`).
#[test]
#[ignore]
fn stochastic_every_f32_input_agrees_with_dither_and_truncate() {
    let table = f16_values();
    std::thread::scope(|s| {
        for part in 0..2u64 {
            let table = &table;
            s.spawn(move || {
                let (bf, hf) = (form("cvt.rs.bf16x2.f32"), form("cvt.rs.f16x2.f32"));
                for x in (part << 31)..((part + 1) << 31) {
                    let x = x as u32;
                    let v = f32::from_bits(x).abs() as f64;
                    if v.is_nan() {
                        continue;
                    }
                    let r = x.wrapping_mul(2_654_435_761) >> 16;
                    let y = ((x as u64 + r as u64) & !0xffff) >> 16;
                    assert_eq!(upper(&bf, x, r), LaneExpectation::exact(y), "bf16 0x{x:08x} rbits 0x{r:04x}");
                    let sign = if x >> 31 == 1 { 0x8000 } else { 0 };
                    let got = upper(&hf, x, r);
                    if (2f64.powi(-14)..65536.0).contains(&v) && r >> 13 == 0 {
                        let want = f16_bits(table, dithered(x, r, 13)) | sign;
                        assert_eq!(got, LaneExpectation::exact(want), "f16 0x{x:08x} rbits 0x{r:04x}");
                    } else if let Outcome::Range { lo, hi, reference, .. } = got.primary {
                        let i = table.partition_point(|&(t, _)| t < v);
                        let (toward, away) = (table[i - 1].1 | sign, table[i].1 | sign);
                        let want = if sign != 0 { (away, toward) } else { (toward, away) };
                        assert_eq!((lo, hi), want, "f16 0x{x:08x}");
                        assert!(reference == lo || reference == hi, "f16 0x{x:08x}");
                    } else {
                        // No rounding left: the value is an f16 value (or clamps to one).
                        let i = table.partition_point(|&(t, _)| t < v);
                        let exact = table.get(i).is_some_and(|&(t, _)| t == v);
                        assert!(exact || v.is_infinite(), "f16 0x{x:08x}: {got:?}");
                    }
                }
            });
        }
    });
}
