//! Operand values as users write them: hex bit patterns or decimal literals, and back.
//!
//! A register value is always its raw bits; packed types hold lane 0 in the low bits. Decimal
//! literals are rounded to nearest-even, correctly (no double rounding through f64).

use std::cmp::Ordering;

use crate::format::{Format, Scalar, BF16, F16};
use crate::isa::Type;
use crate::rounding::{round_pack, Rounding};

/// Why an operand text is not a value of the register type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("operand '{text}' is empty or not a number: give hex bits (0x3f800000) or a decimal (1.5, -0, inf, nan)")]
    NotANumber { text: String },
    #[error("operand '{text}' has more than {bits} bits: a .{ty} register holds {bits} bits")]
    TooWide { text: String, bits: u32, ty: &'static str },
    #[error("operand '{text}': a .{ty} register has {lanes} lanes; give one hex word, one decimal for all lanes, or {lanes} comma-separated decimals (lane 0 first)")]
    Lanes { text: String, ty: &'static str, lanes: u32 },
    #[error("operand '{text}' is outside .{ty} ({min}..={max}): give a value in range, or the register's bits as hex (0x..)")]
    OutOfRange { text: String, ty: &'static str, min: i128, max: i128 },
    #[error("operand '{text}': lane {lane} ('{part}') is empty or not a number: give {lanes} comma-separated decimals (lane 0 first), one decimal for all lanes, or one hex word")]
    Lane { text: String, lane: usize, part: String, lanes: u32 },
    #[error("operand '{text}' is a PTX {kind} literal ({prefix} and {digits} hex digits), which a .{ty} register does not take: give 0x bits of the register's width{hint}")]
    PtxLiteral { text: String, kind: &'static str, prefix: &'static str, digits: usize, ty: &'static str, hint: &'static str },
}

/// A PTX hex float literal: `0fXXXXXXXX` (an f32's 8 hex digits) or `0dXXXXXXXXXXXXXXXX` (an
/// f64's 16), the spelling PTX source uses for exact values. `None` when `text` is not one.
fn ptx_literal(ty: Type, text: &str) -> Option<Result<u64, ValueError>> {
    let b = text.as_bytes();
    if b.len() < 3 || b[0] != b'0' || !b[2..].iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let (kind, prefix, digits, fits) = match b[1] {
        b'f' | b'F' => ("f32", "0f", 8, ty == Type::F32),
        b'd' | b'D' => ("f64", "0d", 16, ty == Type::F64),
        _ => return None,
    };
    if b.len() - 2 != digits || !fits {
        let hint = match ty {
            Type::F32 => " or 0f and 8 hex digits",
            Type::F64 => " or 0d and 16 hex digits",
            _ => "",
        };
        return Some(Err(ValueError::PtxLiteral { text: text.to_string(), kind, prefix, digits, ty: ty.name(), hint }));
    }
    Some(parse_hex(&text[2..]).ok_or_else(|| ValueError::NotANumber { text: text.to_string() }))
}

/// Parse an operand of register type `ty`: `0x...` bits (one word for packed types), a decimal
/// literal (broadcast to every lane), or comma-separated decimals, lane 0 first.
pub fn parse_operand(ty: Type, text: &str) -> Result<u64, ValueError> {
    let bits = ty.bits();
    if let Some(v) = ptx_literal(ty, text) {
        return v;
    }
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let v = parse_hex(hex).ok_or_else(|| ValueError::NotANumber { text: text.to_string() })?;
        if bits < 64 && v >> bits != 0 {
            return Err(ValueError::TooWide { text: text.to_string(), bits, ty: ty.name() });
        }
        return Ok(v);
    }
    let scalar = ty.scalar();
    let lane_bits = scalar.bits();
    let parts: Vec<&str> = text.split(',').collect();
    let lanes = ty.lanes();
    let values: Vec<u64> = match parts.len() {
        1 => vec![parse_decimal(scalar, text)?; lanes as usize],
        // A lane's error names the whole operand: `1,` alone would say operand ''.
        n if n == lanes as usize => parts
            .iter()
            .enumerate()
            .map(|(lane, p)| {
                parse_decimal(scalar, p.trim()).map_err(|e| match e {
                    ValueError::NotANumber { .. } => ValueError::Lane { text: text.to_string(), lane, part: p.trim().to_string(), lanes },
                    e => e,
                })
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(ValueError::Lanes { text: text.to_string(), ty: ty.name(), lanes }),
    };
    Ok(values.iter().enumerate().fold(0u64, |acc, (i, v)| acc | v << (i as u32 * lane_bits)))
}

/// A decimal literal that rounding to nearest took out of its format's finite nonzero values:
/// beyond the largest finite value it reads as infinity, below half the smallest subnormal as
/// zero. A user who wrote `70000` for an f16 operand meant a number, and the result of
/// `add.rn.f16 70000 1` is `inf` because of the operand, not the add. (Precision lost inside
/// the range is ordinary rounding, as PTX's own float literals round, and goes unnoted.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeNote {
    /// The literal as written (one lane's, for comma-separated lanes).
    pub text: String,
    pub scalar: Scalar,
    /// What it reads as: an infinity or a zero of `scalar`.
    pub bits: u64,
}

impl std::fmt::Display for RangeNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let beyond = if self.scalar.classify(self.bits) == crate::format::FpClass::Infinite {
            "is beyond the largest finite"
        } else {
            "is nearer zero than half the smallest subnormal"
        };
        write!(
            f,
            "operand '{}' {beyond} .{} value: it reads as 0x{:0w$x} ({})",
            self.text,
            self.scalar.name(),
            self.bits,
            format_decimal(self.scalar, self.bits),
            w = (self.scalar.bits() / 4) as usize
        )
    }
}

/// The decimal literals of an operand text of type `ty` (as `parse_operand` reads it) that
/// rounding took to an infinity or a zero; empty for hex bits, `inf`, `nan` and zeros.
pub fn range_notes(ty: Type, text: &str) -> Vec<RangeNote> {
    if text.starts_with("0x") || text.starts_with("0X") {
        return vec![];
    }
    let scalar = ty.scalar();
    text.split(',')
        .map(str::trim)
        .filter_map(|lane| {
            let bits = parse_decimal(scalar, lane).ok()?;
            // normalize_decimal reads digits only: `inf` and `nan` were asked for by name.
            let (_, digits, _) = normalize_decimal(&lane.to_ascii_lowercase())?;
            let class = scalar.classify(bits);
            let lost = match class {
                crate::format::FpClass::Infinite => true,
                crate::format::FpClass::Zero => !digits.is_empty(),
                _ => false,
            };
            lost.then(|| RangeNote { text: lane.to_string(), scalar, bits })
        })
        .collect()
}

/// Hex digits without prefix; `_` separators allowed. At most 16 significant digits.
pub fn parse_hex(hex: &str) -> Option<u64> {
    let mut v: u64 = 0;
    let mut any = false;
    for c in hex.bytes() {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            b'_' => continue,
            _ => return None,
        };
        if v >> 60 != 0 {
            return None;
        }
        v = v << 4 | d as u64;
        any = true;
    }
    any.then_some(v)
}

/// A decimal literal, correctly rounded to nearest-even in `scalar`'s format.
pub fn parse_decimal(scalar: Scalar, text: &str) -> Result<u64, ValueError> {
    let err = || ValueError::NotANumber { text: text.to_string() };
    let lower = text.to_ascii_lowercase();
    let (neg, body) = match lower.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, lower.strip_prefix('+').unwrap_or(&lower)),
    };
    let sign = if neg { 1u64 << (scalar.bits() - 1) } else { 0 };
    if body == "nan" {
        return Ok(sign | scalar.mask() >> 1);
    }
    if body == "inf" || body == "infinity" {
        return Ok(sign | inf_bits(scalar));
    }
    if body.is_empty() || !body.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-')) {
        return Err(err());
    }
    match scalar {
        // Rust's float parsing is correctly rounded to nearest-even for f32 and f64.
        Scalar::F32 => lower.parse::<f32>().map(|v| v.to_bits() as u64).map_err(|_| err()),
        Scalar::F64 => lower.parse::<f64>().map(|v| v.to_bits()).map_err(|_| err()),
        Scalar::F16 => narrow_from_decimal::<F16>(&lower).ok_or_else(err),
        Scalar::BF16 => narrow_from_decimal::<BF16>(&lower).ok_or_else(err),
    }
}

fn inf_bits(scalar: Scalar) -> u64 {
    match scalar {
        Scalar::F16 => F16::INF,
        Scalar::BF16 => BF16::INF,
        Scalar::F32 => 0x7f80_0000,
        Scalar::F64 => 0x7ff0_0000_0000_0000,
    }
}

/// Decimal to a 16-bit format without double rounding: x = RN64(d) is the exact decimal d or
/// within half an f64 ulp of it; rounding x again can only go wrong when d is not x, so the
/// sign of d - x (found by comparing decimal digit strings) goes into the sticky information.
fn narrow_from_decimal<F: Format>(text: &str) -> Option<u64> {
    let x: f64 = text.parse().ok()?;
    if x.is_infinite() {
        // The decimal is beyond f64's range, so far beyond every 16-bit format's.
        return Some(F::inf(x < 0.0));
    }
    if x == 0.0 {
        return Some(F::zero(x.is_sign_negative()));
    }
    let direction = compare_decimal(text, x)?;
    let bits = x.to_bits();
    let negative = x < 0.0;
    let exp_field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (sig, exp) = if exp_field == 0 { (frac, -1074) } else { (frac | 1 << 52, exp_field - 1075) };
    // Two extra bits below x's last bit: the decimal lies strictly between x and its neighbour.
    let (sig, sticky) = match (direction, negative) {
        (Ordering::Equal, _) => ((sig as u128) << 2, false),
        // |d| > |x|
        (Ordering::Greater, false) | (Ordering::Less, true) => ((sig as u128) << 2, true),
        // |d| < |x|
        _ => (((sig as u128) << 2) - 1, true),
    };
    Some(round_pack::<F>(negative, exp - 2, sig, sticky, Rounding::Rn))
}

/// Compare the decimal `text` with the exact value of `x`: Less if text < x.
fn compare_decimal(text: &str, x: f64) -> Option<Ordering> {
    let (neg_t, digits_t, exp_t) = normalize_decimal(text)?;
    // `{:e}` with enough precision prints the exact binary value (f64 has at most 767 digits).
    let exact = format!("{:.800e}", x);
    let (neg_x, digits_x, exp_x) = normalize_decimal(&exact)?;
    debug_assert_eq!(neg_t, neg_x);
    let mag = if digits_t.is_empty() || digits_x.is_empty() {
        digits_t.len().cmp(&digits_x.len())
    } else {
        exp_t.cmp(&exp_x).then_with(|| digits_t.cmp(&digits_x))
    };
    Some(if neg_t { mag.reverse() } else { mag })
}

/// (negative, significant digits without leading/trailing zeros, decimal exponent of the first digit).
fn normalize_decimal(text: &str) -> Option<(bool, Vec<u8>, i64)> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut first_exp = exp + int.len() as i64 - 1;
    while digits.first() == Some(&b'0') {
        digits.remove(0);
        first_exp -= 1;
    }
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    Some((neg, digits, first_exp))
}

/// The value of one lane in decimal: the shortest text that reads back to the same bits.
pub fn format_decimal(scalar: Scalar, bits: u64) -> String {
    let v = scalar.to_f64(bits);
    if v.is_nan() {
        return if bits >> (scalar.bits() - 1) & 1 == 1 { "-nan".into() } else { "nan".into() };
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let shortest = match scalar {
        Scalar::F64 => v,
        Scalar::F32 => v as f32 as f64,
        Scalar::F16 | Scalar::BF16 => {
            // Fewest significant digits that parse back to the same bits (at most 5 for bf16, 6 for f16).
            return (1..=17)
                .map(|p| format!("{:.*e}", p - 1, v))
                .find(|s| parse_decimal(scalar, s).ok() == Some(bits))
                .map(|s| tidy(&s, v))
                .unwrap_or_else(|| format!("{v:e}"));
        }
    };
    let s = if scalar == Scalar::F32 { format!("{:e}", v as f32) } else { format!("{shortest:e}") };
    tidy(&s, v)
}

/// Plain notation for ordinary magnitudes, scientific otherwise.
fn tidy(sci: &str, v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || (1e-5..1e16).contains(&a) {
        let (neg, digits, exp) = normalize_decimal(sci).expect("formatted by Rust");
        let digits = String::from_utf8(digits).expect("ascii digits");
        let sign = if neg { "-" } else { "" };
        if digits.is_empty() {
            return format!("{sign}0");
        }
        if exp >= 0 {
            let e = exp as usize + 1;
            if digits.len() <= e {
                format!("{sign}{digits}{}", "0".repeat(e - digits.len()))
            } else {
                format!("{sign}{}.{}", &digits[..e], &digits[e..])
            }
        } else {
            format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize))
        }
    } else {
        sci.to_string()
    }
}

/// A register value in decimal: one lane, or lanes joined by commas (lane 0 first).
pub fn format_register_decimal(ty: Type, bits: u64) -> String {
    let s = ty.scalar();
    let w = s.bits();
    (0..ty.lanes())
        .map(|i| format_decimal(s, (bits >> (i * w)) & s.mask()))
        .collect::<Vec<_>>()
        .join(",")
}

/// An element of an fp8 pair (`e4m3x2`, ...) in decimal: exact (every element is a short
/// binary fraction), `nan`/`inf` with their sign.
pub fn format_narrow_decimal(n: crate::narrow_format::Narrow, bits: u64) -> String {
    let v = crate::narrow_format::decode(n, bits);
    let negative = n.layout().signed && bits >> (n.layout().bits() - 1) & 1 == 1;
    match (v.is_nan(), v.is_infinite(), negative) {
        (true, _, true) => "-nan".into(),
        (true, _, false) => "nan".into(),
        (_, true, true) => "-inf".into(),
        (_, true, false) => "inf".into(),
        // -0.0 prints as "-0", as `format_decimal` prints a negative zero.
        _ => format!("{v}"),
    }
}

/// A register value in hex, zero-padded to the register width.
pub fn format_register_hex(ty: Type, bits: u64) -> String {
    format!("0x{:0w$x}", bits, w = (ty.bits() / 4) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_rounded_to_infinity_or_zero_are_noted_and_others_are_not() {
        let notes = range_notes(Type::F16, "70000");
        assert_eq!(notes, vec![RangeNote { text: "70000".into(), scalar: Scalar::F16, bits: 0x7c00 }]);
        assert_eq!(notes[0].to_string(), "operand '70000' is beyond the largest finite .f16 value: it reads as 0x7c00 (inf)");
        assert_eq!(range_notes(Type::F32, "-1e-50")[0].bits, 0x8000_0000);
        assert!(range_notes(Type::F32, "-1e-50")[0].to_string().contains("nearer zero than half the smallest subnormal .f32 value: it reads as 0x80000000 (-0)"));
        // Lanes apart: only the lane that left the range.
        let lanes = range_notes(Type::F16x2, "1,1e9");
        assert_eq!(lanes.len(), 1);
        assert_eq!(lanes[0].text, "1e9");
        // Asked for by name or bits, in range, or rounded only in precision: nothing to say.
        for (ty, text) in [(Type::F32, "inf"), (Type::F32, "-nan"), (Type::F32, "0x7f800000"), (Type::F32, "-0"), (Type::F32, "0.0e5"), (Type::F32, "0.1"), (Type::F16, "65504"), (Type::F16, "65519"), (Type::Bf16, "1e38"), (Type::F64, "1e308")] {
            assert!(range_notes(ty, text).is_empty(), "{ty:?} {text}: {:?}", range_notes(ty, text));
        }
        // 65520 is the first f16 decimal that rounds to infinity; 6e-8 to the smallest subnormal.
        assert_eq!(range_notes(Type::F16, "65520").len(), 1);
        assert!(range_notes(Type::F16, "6e-8").is_empty());
        assert_eq!(range_notes(Type::F16, "2e-8").len(), 1);
    }

    #[test]
    fn fp8_elements_print_exactly_with_their_special_values() {
        use crate::narrow_format::Narrow;
        assert_eq!(format_narrow_decimal(Narrow::E4m3, 0x7e), "448");
        assert_eq!(format_narrow_decimal(Narrow::E4m3, 0x01), "0.001953125");
        assert_eq!((format_narrow_decimal(Narrow::E4m3, 0xff), format_narrow_decimal(Narrow::E4m3, 0x80)), ("-nan".into(), "-0".into()));
        assert_eq!((format_narrow_decimal(Narrow::E5m2, 0x7c), format_narrow_decimal(Narrow::E5m2, 0xfc)), ("inf".into(), "-inf".into()));
        assert_eq!(format_narrow_decimal(Narrow::E5m2, 0x7b), "57344");
    }

    #[test]
    fn hex_operand_must_fit_register() {
        assert_eq!(parse_operand(Type::F32, "0x3f800000"), Ok(0x3f80_0000));
        assert!(matches!(parse_operand(Type::F16, "0x10000"), Err(ValueError::TooWide { .. })));
        assert!(matches!(parse_operand(Type::F32, "0xzz"), Err(ValueError::NotANumber { .. })));
    }

    #[test]
    fn decimal_operands_round_to_nearest_even() {
        assert_eq!(parse_operand(Type::F32, "1.5"), Ok(0x3fc0_0000));
        assert_eq!(parse_operand(Type::F32, "-0"), Ok(0x8000_0000));
        assert_eq!(parse_operand(Type::F64, "inf"), Ok(0x7ff0_0000_0000_0000));
        assert_eq!(parse_operand(Type::F16, "1"), Ok(0x3c00));
        assert_eq!(parse_operand(Type::Bf16, "-2"), Ok(0xc000));
        assert_eq!(parse_operand(Type::F16, "65520"), Ok(0x7c00), "rounds up to inf");
        assert_eq!(parse_operand(Type::F16, "65519.99"), Ok(0x7bff));
    }

    #[test]
    fn f16_decimal_just_above_a_midpoint_rounds_up_without_double_rounding() {
        // 1 + 2^-11 is the midpoint between f16 1.0 and 1.0009765625; ties go to even (1.0).
        assert_eq!(parse_decimal(Scalar::F16, "1.00048828125"), Ok(0x3c00));
        // A decimal a hair above the midpoint rounds to the same f64 (the midpoint), but must round up.
        assert_eq!(parse_decimal(Scalar::F16, "1.00048828125000000001"), Ok(0x3c01));
        assert_eq!(parse_decimal(Scalar::F16, "1.00048828124999999999"), Ok(0x3c00));
        assert_eq!(parse_decimal(Scalar::F16, "-1.00048828125000000001"), Ok(0xbc01));
    }

    #[test]
    fn packed_operands_take_one_word_or_lanes() {
        assert_eq!(parse_operand(Type::F16x2, "1"), Ok(0x3c00_3c00));
        assert_eq!(parse_operand(Type::F16x2, "1,-2"), Ok(0xc000_3c00));
        assert!(matches!(parse_operand(Type::F16x2, "1,2,3"), Err(ValueError::Lanes { .. })));
        assert_eq!(parse_operand(Type::F32x2, "0x3f80000040000000"), Ok(0x3f80_0000_4000_0000));
        // A bad lane names the whole operand and the lane, not an empty operand ''.
        let e = parse_operand(Type::F16x2, "1,").unwrap_err().to_string();
        assert!(e.starts_with("operand '1,': lane 1 ('') is empty or not a number"), "{e}");
    }

    #[test]
    fn ptx_hex_float_literals_are_bit_patterns_of_their_width() {
        assert_eq!(parse_operand(Type::F32, "0f3f800000"), Ok(0x3f80_0000));
        assert_eq!(parse_operand(Type::F32, "0F7FC00000"), Ok(0x7fc0_0000));
        assert_eq!(parse_operand(Type::F64, "0d3ff0000000000000"), Ok(0x3ff0_0000_0000_0000));
        let e = parse_operand(Type::F64, "0f3f800000").unwrap_err().to_string();
        assert!(e.contains("is a PTX f32 literal (0f and 8 hex digits), which a .f64 register does not take") && e.contains("or 0d and 16"), "{e}");
        let e = parse_operand(Type::F32, "0f3f80").unwrap_err().to_string();
        assert!(e.contains("(0f and 8 hex digits)"), "{e}");
        assert!(parse_operand(Type::F16, "0d3ff0000000000000").unwrap_err().to_string().contains("a .f16 register does not take"));
    }

    #[test]
    fn decimal_output_is_shortest_round_trip() {
        assert_eq!(format_decimal(Scalar::F32, 0x3f80_0000), "1");
        assert_eq!(format_decimal(Scalar::F32, 0x3dcc_cccd), "0.1");
        assert_eq!(format_decimal(Scalar::F32, 0x0000_0001), "1e-45");
        assert_eq!(format_decimal(Scalar::F16, 0x2e66), "0.1");
        assert_eq!(format_decimal(Scalar::F32, 0x8000_0000), "-0");
        assert_eq!(format_decimal(Scalar::F64, 0x7ff8_0000_0000_0000), "nan");
        assert_eq!(format_decimal(Scalar::F32, 0xff80_0000), "-inf");
        assert_eq!(format_register_decimal(Type::F16x2, 0xc000_3c00), "1,-2");
        assert_eq!(format_register_hex(Type::F16, 0x3c00), "0x3c00");
    }

    #[test]
    fn garbage_operands_are_errors_not_panics() {
        for t in ["", "-", "1.2.3", "e5", "0x", "--1", "1e", "abc", "\u{1F600}", "0x1_0000_0000_0000_0000"] {
            for ty in Type::ALL {
                let _ = parse_operand(ty, t);
            }
        }
        assert!(parse_operand(Type::F32, "abc").is_err());
    }
}
