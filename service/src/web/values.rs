//! Register values as the finding page shows them: hex bits at the register's width, decimal
//! (per lane for packed types, through `ptx::value`), and the distance in ulps between the
//! interpreter's reference and the target's bits.

use maud::{html, Markup};
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
            Shown {
                hex: format!("0x{:04x}", bits & 0xffff),
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
        let w = n.slot_bits();
        return (0..2)
            .map(|i| {
                let (x, y) = ((reference >> (i * w)) & 0xff, (actual >> (i * w)) & 0xff);
                let nan = |v| ptx::narrow_format::classify(n, v) == ptx::format::FpClass::Nan;
                let key = |v: u64| if v & 0x80 != 0 { -((v & 0x7f) as i64) } else { v as i64 };
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

#[cfg(test)]
mod tests {
    use super::*;
    use ptx::isa::Type;

    #[test]
    fn packed_values_show_every_lane() {
        let v = show(ValType::Float(Type::F16x2), 0x4000_3c00);
        assert_eq!(v.hex, "0x40003c00");
        assert_eq!(v.decimal, "1,2");
        assert_eq!(v.lanes, [("0x3c00".to_string(), "1".to_string()), ("0x4000".to_string(), "2".to_string())]);
        assert!(show(ValType::Float(Type::F32), 0x3f80_0000).lanes.is_empty());
        assert_eq!(show(ValType::Pred, 1).decimal, "true");
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
