//! Register values as the finding page shows them: hex bits at the register's width, decimal
//! (per lane for packed types, through `ptx::value`), and the distance in ulps between the
//! interpreter's reference and the target's bits.

use maud::{html, Markup};
use ptx::isa::Type;
use ptx::program::ValType;
use ptx::value::{format_decimal, format_register_decimal, format_register_hex};
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
