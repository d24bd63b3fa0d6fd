//! Register values as the finding page shows them: hex bits at the register's width, decimal
//! (per lane for packed types, through `ptx::value`), the interpreter's allowed set in both,
//! and the distance in ulps between the interpreter's reference and the target's bits.

use maud::{html, Markup};
use ptx::expect::Expectation;
use ptx::isa::Type;
use ptx::program::ValType;
use ptx::value::{format_decimal, format_narrow_decimal, format_register_decimal, format_register_hex};
use ptx::Scalar;

/// One register value, ready to print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    pub hex: String,
    pub decimal: String,
    /// Per lane (lane 0 first) hex and decimal, for packed types only.
    pub lanes: Vec<(String, String)>,
}

/// How a value of type `ty` with these bits reads.
pub fn show(ty: ValType, bits: u64) -> Shown {
    match ty {
        ValType::Pred => Shown {
            hex: format!("0x{:x}", bits & 1),
            decimal: if bits & 1 == 1 { "true".into() } else { "false".into() },
            lanes: Vec::new(),
        },
        // A packed setp's p (bit 0, the lower halves) and q (bit 1).
        ValType::PredPair => {
            let word = |b: u64| if b & 1 == 1 { "true" } else { "false" };
            Shown {
                hex: format!("0x{:x}", bits & 3),
                decimal: format!("{}|{}", word(bits), word(bits >> 1)),
                lanes: vec![("p".into(), word(bits).into()), ("q".into(), word(bits >> 1).into())],
            }
        }
        // A cvt's integer, as its register holds it (an 8-bit one extended to 16 bits).
        ValType::Int(t) => Shown {
            hex: format!("0x{:0w$x}", bits & reg_mask(t.reg_bits()), w = (t.reg_bits() / 4) as usize),
            decimal: t.value(bits).to_string(),
            lanes: Vec::new(),
        },
        // An fp8 pair: each element's hex, exact decimal and class (PTX ISA 5.2.3's encodings).
        ValType::Narrow(n) => {
            let w = n.slot_bits();
            let element = |i: u32| (bits >> (i * w)) & ((1 << w) - 1);
            let lanes: Vec<(String, String)> = (0..2)
                .map(|i| {
                    let e = element(i);
                    let class = fp_class_name(ptx::narrow_format::classify(n, e));
                    (format!("0x{e:02x}"), format!("{} ({class})", format_narrow_decimal(n, e)))
                })
                .collect();
            let pair = n.packed_bits();
            Shown {
                // The whole register: `0x38c0` for a .b16 pair, `0x6a` for e2m1x2's .b8.
                hex: format!("0x{:0w$x}", bits & ((1 << pair) - 1), w = (pair / 4) as usize),
                decimal: (0..2).map(|i| format_narrow_decimal(n, element(i))).collect::<Vec<_>>().join(","),
                lanes,
            }
        }
        // A tf32 keeps the f32 layout (ptx::cvt::tf32): it reads as that f32.
        ValType::Tf32 => show(ValType::Float(Type::F32), bits),
        ValType::Float(t) => {
            let s = t.scalar();
            let lanes = if t.lanes() > 1 {
                (0..t.lanes())
                    .map(|i| {
                        let lane = (bits >> (i * s.bits())) & s.mask();
                        (format!("0x{lane:0w$x}", w = (s.bits() / 4) as usize), format_decimal(s, lane))
                    })
                    .collect()
            } else {
                Vec::new()
            };
            Shown { hex: format_register_hex(t, bits), decimal: format_register_decimal(t, bits), lanes }
        }
    }
}

fn fp_class_name(c: ptx::format::FpClass) -> &'static str {
    use ptx::format::FpClass;
    match c {
        FpClass::Zero => "zero",
        FpClass::Subnormal => "subnormal",
        FpClass::Normal => "normal",
        FpClass::Infinite => "inf",
        FpClass::Nan => "nan",
    }
}

fn reg_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// Distance in ulps between two lane values: the steps between adjacent values of the format,
/// both zeros one value; `None` when either is a NaN.
pub fn ulps(s: Scalar, a: u64, b: u64) -> Option<u64> {
    s.ulps_between(a, b)
}

/// The ulp distance of a whole register, lane by lane (`3`, `0 ; 12`), "n/a" where a lane is
/// a NaN or the register is a predicate; for an integer, its difference.
pub fn register_ulps(ty: ValType, reference: u64, actual: u64) -> String {
    // An integer's distance is its difference (actual - reference), with its sign.
    if let ValType::Int(t) = ty {
        return (t.value(actual) - t.value(reference)).to_string();
    }
    if let ValType::Narrow(n) = ty {
        // Steps of the element's format, element by element (sign-magnitude read as an integer).
        // The sign is the element's top bit (bit 5 of a 6-bit element, bit 3 of e2m1), and
        // ue8m0 has none (PTX ISA 5.2.3, `ptx::narrow_format::LAYOUTS`).
        let (w, layout) = (n.slot_bits(), n.layout());
        let sign = if layout.signed { 1u64 << (layout.bits() - 1) } else { 0 };
        return (0..2)
            .map(|i| {
                let element = |v: u64| (v >> (i * w)) & ((1 << w) - 1);
                let (x, y) = (element(reference), element(actual));
                let nan = |v| ptx::narrow_format::classify(n, v) == ptx::format::FpClass::Nan;
                let key = |v: u64| if v & sign != 0 { -((v & (sign - 1)) as i64) } else { v as i64 };
                if nan(x) || nan(y) { "n/a".to_string() } else { (key(y) - key(x)).unsigned_abs().to_string() }
            })
            .collect::<Vec<_>>()
            .join(" ; ");
    }
    let t = match ty {
        ValType::Float(t) => t,
        // On the f32 grid its layout is (a tf32 result is at most 2^13 f32 ulps per tf32 step).
        ValType::Tf32 => Type::F32,
        _ => return "n/a".into(),
    };
    let s = t.scalar();
    (0..t.lanes())
        .map(|i| {
            let (x, y) = ((reference >> (i * s.bits())) & s.mask(), (actual >> (i * s.bits())) & s.mask());
            ulps(s, x, y).map_or("n/a".to_string(), |d| d.to_string())
        })
        .collect::<Vec<_>>()
        .join(" ; ")
}

/// A value cell: hex, decimal, and each lane of a packed type.
pub fn cell(ty: ValType, bits: u64) -> Markup {
    let v = show(ty, bits);
    html! {
        code class="hex" { (v.hex) }
        " "
        span class="dec" { (v.decimal) }
        @if !v.lanes.is_empty() {
            ul class="lanes" {
                @for (i, (h, d)) in v.lanes.iter().enumerate() {
                    li class="lane" { "lane" (i) ": " code { (h) } " " span class="dec" { (d) } }
                }
            }
        }
    }
}

/// The interpreter's allowed set, as the results table's "Expected (allowed)" column shows it:
/// the hex set (`0x3f22..0x3f23`, alternatives ` | `, lanes ` ; `) and, for a float result, the
/// same set in decimal (`0.6328125..0.63671875`), as the other columns show both. An integer's
/// or an 8-bit pair's hex set already gives each value in decimal.
pub fn expected(e: &Expectation) -> Markup {
    html! {
        code class="hex" { (e.to_string()) }
        @if let Some(d) = e.decimal() {
            " " span class="dec" { (d) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx::isa::Type;

    #[test]
    fn an_expected_float_set_shows_its_decimals() {
        use ptx::expect::{LaneExpectation, Outcome};
        use ptx::isa::Ftz;
        let one = |o: Outcome| Expectation::scalar(Scalar::BF16, LaneExpectation::of(o));
        let dec = |b| format_decimal(Scalar::BF16, b);
        let html = expected(&one(Outcome::Bits(0x7f7f))).into_string();
        assert_eq!(html, format!(r#"<code class="hex">0x7f7f</code> <span class="dec">{}</span>"#, dec(0x7f7f)));
        assert!(dec(0x7f7f).starts_with("3.39e38"), "{}", dec(0x7f7f));
        let html = expected(&one(Outcome::Range { lo: 0x3f22, hi: 0x3f23, reference: 0x3f22, ftz: Ftz::Preserve })).into_string();
        assert_eq!(html, format!(r#"<code class="hex">0x3f22..0x3f23</code> <span class="dec">{}..{}</span>"#, dec(0x3f22), dec(0x3f23)));
        // A predicate has no decimal beyond its bits.
        assert_eq!(expected(&Expectation::predicate(true)).into_string(), r#"<code class="hex">1</code>"#);
    }

    #[test]
    fn packed_values_show_every_lane() {
        let v = show(ValType::Float(Type::F16x2), 0x4000_3c00);
        assert_eq!(v.hex, "0x40003c00");
        assert_eq!(v.decimal, "1,2");
        assert_eq!(v.lanes, [("0x3c00".to_string(), "1".to_string()), ("0x4000".to_string(), "2".to_string())]);
        assert!(show(ValType::Float(Type::F32), 0x3f80_0000).lanes.is_empty());
        assert_eq!(show(ValType::Pred, 1).decimal, "true");
        let pair = show(ValType::PredPair, 2);
        assert_eq!((pair.hex.as_str(), pair.decimal.as_str()), ("0x2", "false|true"));
        let s8 = ptx::integer::IntType { signed: true, bits: 8 };
        let v = show(ValType::Int(s8), 0xfffe);
        assert_eq!((v.hex.as_str(), v.decimal.as_str()), ("0xfffe", "-2"));
    }

    #[test]
    fn an_fp8_pair_shows_each_element_in_hex_decimal_and_class() {
        let e4m3 = ValType::Narrow(ptx::narrow_format::Narrow::E4m3);
        // 0x38c0 is cvt.rn.satfinite.e4m3x2.f32 of (1.0, -2.0): -2 in the low byte.
        let v = show(e4m3, 0x38c0);
        assert_eq!((v.hex.as_str(), v.decimal.as_str()), ("0x38c0", "-2,1"));
        assert_eq!(v.lanes, [("0xc0".to_string(), "-2 (normal)".to_string()), ("0x38".to_string(), "1 (normal)".to_string())]);
        assert_eq!(show(e4m3, 0x7f01).lanes[1].1, "nan (nan)");
        assert_eq!(show(e4m3, 0x7f01).lanes[0].1, "0.001953125 (subnormal)");
        // Steps of the format, both zeros one value; a NaN element has none.
        assert_eq!(register_ulps(e4m3, 0x3880, 0x7f01), "1 ; n/a");
    }

    #[test]
    fn narrower_elements_use_their_own_width_and_sign_bit() {
        use ptx::narrow_format::Narrow;
        // e2m1x2 is one .b8: 0x6a is (low) 0xa = -1 and (high) 0x6 = 4.
        let fp4 = ValType::Narrow(Narrow::E2m1);
        let v = show(fp4, 0x6a);
        assert_eq!((v.hex.as_str(), v.decimal.as_str()), ("0x6a", "-1,4"));
        // -0.5 (0x9) to +0.5 (0x1) is two steps through the one zero; 4 to 6 two steps.
        assert_eq!(register_ulps(fp4, 0x69, 0x71), "2 ; 1");
        // e2m3's sign is bit 5: 0x21 is the negative of 0x01.
        let fp6 = ValType::Narrow(Narrow::E2m3);
        assert_eq!(register_ulps(fp6, 0x0021, 0x0001), "2 ; 0");
        // ue8m0 has no sign: 0x80 and 0x7f are one step apart, not 255.
        assert_eq!(register_ulps(ValType::Narrow(Narrow::Ue8m0), 0x7f80, 0x8080), "0 ; 1");
    }

    #[test]
    fn ulps_count_steps_with_one_zero_and_no_nan() {
        assert_eq!(ulps(Scalar::F32, 0x3f80_0000, 0x3f80_0001), Some(1));
        assert_eq!(ulps(Scalar::F32, 0x8000_0000, 0), Some(0));
        assert_eq!(ulps(Scalar::F32, 0x8000_0001, 0x0000_0001), Some(2));
        assert_eq!(ulps(Scalar::F32, 0x7fc0_0000, 0), None);
        assert_eq!(register_ulps(ValType::Float(Type::F16x2), 0x3c00_3c00, 0x7e00_3c01), "1 ; n/a");
        assert_eq!(register_ulps(ValType::Pred, 1, 0), "n/a");
        let s32 = ptx::integer::IntType { signed: true, bits: 32 };
        assert_eq!(register_ulps(ValType::Int(s32), 2, 0xffff_ffff), "-3");
        // A tf32 reads as the f32 its layout is.
        assert_eq!(show(ValType::Tf32, 0x3f80_2000).decimal, show(ValType::Float(Type::F32), 0x3f80_2000).decimal);
        assert_eq!(register_ulps(ValType::Tf32, 0x3f80_0000, 0x3f80_2000), "8192");
    }
}
