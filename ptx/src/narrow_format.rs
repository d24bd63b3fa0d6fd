//! The 8-, 6- and 4-bit floating-point formats and ue8m0 (PTX ISA 5.2.3): their encodings,
//! one table row each with its source, and the value and class of an element. Below both
//! `crate::cvt::narrow` (the conversions) and the instruction model (`crate::isa`, whose
//! programs hold fp8 pairs), so neither imports the other for it.

use crate::format::FpClass;

/// A narrow format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Narrow {
    E4m3,
    E5m2,
    E2m3,
    E3m2,
    E2m1,
    Ue8m0,
}

/// One format's encoding.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub exp_bits: u32,
    /// Stored mantissa bits (no hidden bit).
    pub man_bits: u32,
    pub bias: i32,
    /// Has a sign bit (above the exponent).
    pub signed: bool,
    /// Magnitude encodings that are NaN (empty: the format has none); the first is the
    /// canonical NaN (all ones but the sign, as `Format::CANONICAL_NAN`).
    pub nans: &'static [u64],
    /// Magnitude encoding of infinity, if the format has one.
    pub inf: Option<u64>,
    /// Magnitude encoding of the largest finite value (MAX_NORM).
    pub max: u64,
    /// Whether the format has subnormals (and a zero): all but `ue8m0`.
    pub subnormals: bool,
    pub source: &'static str,
}

impl Layout {
    /// Width of one element in bits.
    pub fn bits(&self) -> u32 {
        self.exp_bits + self.man_bits + self.signed as u32
    }
}

/// The formats, one row each with its source.
pub const LAYOUTS: [(Narrow, &str, Layout); 6] = [
    (Narrow::E4m3, "e4m3", Layout { exp_bits: 4, man_bits: 3, bias: 7, signed: true, nans: &[0x7f], inf: None, max: 0x7e, subnormals: true, source: "PTX ISA 5.2.3: \"The e4m3 encoding does not support infinity and NaN values are limited to 0x7f and 0xff\"; bias 7, MAX_NORM 448 (OCP 8-bit FP spec, E4M3)" }),
    (Narrow::E5m2, "e5m2", Layout { exp_bits: 5, man_bits: 2, bias: 15, signed: true, nans: &[0x7f, 0x7d, 0x7e], inf: Some(0x7c), max: 0x7b, subnormals: true, source: "PTX ISA 5.2.3: 5 exponent, 2 mantissa bits; IEEE 754 conventions (OCP 8-bit FP spec, E5M2): infinity S.11111.00, NaN S.11111.{01,10,11}, MAX_NORM 57344" }),
    (Narrow::E2m3, "e2m3", Layout { exp_bits: 2, man_bits: 3, bias: 1, signed: true, nans: &[], inf: None, max: 0x1f, subnormals: true, source: "PTX ISA 5.2.3: e2m3 has no infinity or NaN; bias 1, MAX_NORM 7.5 (OCP MX spec v1.0, FP6 E2M3)" }),
    (Narrow::E3m2, "e3m2", Layout { exp_bits: 3, man_bits: 2, bias: 3, signed: true, nans: &[], inf: None, max: 0x1f, subnormals: true, source: "PTX ISA 5.2.3: e3m2 has no infinity or NaN; bias 3, MAX_NORM 28 (OCP MX spec v1.0, FP6 E3M2)" }),
    (Narrow::E2m1, "e2m1", Layout { exp_bits: 2, man_bits: 1, bias: 1, signed: true, nans: &[], inf: None, max: 0x7, subnormals: true, source: "PTX ISA 5.2.3: e2m1 has no infinity or NaN; bias 1, MAX_NORM 6 (OCP MX spec v1.0, FP4 E2M1)" }),
    (Narrow::Ue8m0, "ue8m0", Layout { exp_bits: 8, man_bits: 0, bias: 127, signed: false, nans: &[0xff], inf: None, max: 0xfe, subnormals: false, source: "PTX ISA 5.2.3: ue8m0 is an unsigned exponent, value 2^(e-127), 0xff NaN, no zero or infinity (OCP MX spec v1.0, E8M0)" }),
];

impl Narrow {
    pub const ALL: [Narrow; 6] = [Narrow::E4m3, Narrow::E5m2, Narrow::E2m3, Narrow::E3m2, Narrow::E2m1, Narrow::Ue8m0];

    fn row(self) -> &'static (Narrow, &'static str, Layout) {
        LAYOUTS.iter().find(|r| r.0 == self).expect("every format has a row")
    }
    pub fn layout(self) -> &'static Layout {
        &self.row().2
    }
    pub fn name(self) -> &'static str {
        self.row().1
    }
    /// Width of the packed `x2` register: `e2m1x2` is a `.b8`, the others `.b16`.
    pub fn packed_bits(self) -> u32 {
        if self == Narrow::E2m1 {
            8
        } else {
            16
        }
    }
    /// Bits of each half of the packed register (6-bit values sit in 8 with zeros above).
    pub fn slot_bits(self) -> u32 {
        self.packed_bits() / 2
    }
    /// The packed pair's PTX type, `e4m3x2` ...: what a register of two elements holds.
    pub fn pair_name(self) -> &'static str {
        match self {
            Narrow::E4m3 => "e4m3x2",
            Narrow::E5m2 => "e5m2x2",
            Narrow::E2m3 => "e2m3x2",
            Narrow::E3m2 => "e3m2x2",
            Narrow::E2m1 => "e2m1x2",
            Narrow::Ue8m0 => "ue8m0x2",
        }
    }
    pub fn from_pair_name(s: &str) -> Option<Narrow> {
        Narrow::ALL.into_iter().find(|n| n.pair_name() == s)
    }
    pub fn is_fp8(self) -> bool {
        matches!(self, Narrow::E4m3 | Narrow::E5m2)
    }
}

/// The value of a narrow element (NaN, infinity and zero included).
pub fn decode(n: Narrow, bits: u64) -> f64 {
    let l = n.layout();
    let mag = bits & ((1u64 << (l.exp_bits + l.man_bits)) - 1);
    let neg = l.signed && bits >> (l.exp_bits + l.man_bits) & 1 == 1;
    let v = if l.nans.contains(&mag) {
        f64::NAN
    } else if l.inf == Some(mag) {
        f64::INFINITY
    } else {
        let (e, m) = ((mag >> l.man_bits) as i32, mag & ((1 << l.man_bits) - 1));
        let unit = l.man_bits as i32;
        match (e, l.subnormals) {
            (0, true) => m as f64 * 2f64.powi(1 - l.bias - unit),
            _ => ((1u64 << l.man_bits) + m) as f64 * 2f64.powi(e - l.bias - unit),
        }
    };
    if neg {
        -v
    } else {
        v
    }
}


/// The IEEE-style class of an element (sign aside): ue8m0 has no zero, so its 0x00 is normal.
pub fn classify(n: Narrow, bits: u64) -> FpClass {
    let l = n.layout();
    let mag = bits & ((1u64 << (l.exp_bits + l.man_bits)) - 1);
    if l.nans.contains(&mag) {
        FpClass::Nan
    } else if l.inf == Some(mag) {
        FpClass::Infinite
    } else if !l.subnormals {
        FpClass::Normal
    } else if mag == 0 {
        FpClass::Zero
    } else if mag >> l.man_bits == 0 {
        FpClass::Subnormal
    } else {
        FpClass::Normal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_agrees_with_decode_on_every_element_of_every_format() {
        for n in Narrow::ALL {
            for bits in 0..1u64 << n.layout().bits() {
                let v = decode(n, bits);
                let want = if v.is_nan() {
                    FpClass::Nan
                } else if v.is_infinite() {
                    FpClass::Infinite
                } else if v == 0.0 {
                    FpClass::Zero
                } else if n.layout().subnormals && v.abs() < 2f64.powi(1 - n.layout().bias) {
                    FpClass::Subnormal
                } else {
                    FpClass::Normal
                };
                assert_eq!(classify(n, bits), want, "{} 0x{bits:02x}", n.name());
            }
        }
        // The rows the section names: e4m3 0x7f/0xff NaN, e5m2 0x7c infinity, ue8m0 0xff NaN.
        assert_eq!((classify(Narrow::E4m3, 0xff), classify(Narrow::E5m2, 0xfc)), (FpClass::Nan, FpClass::Infinite));
        assert_eq!((classify(Narrow::Ue8m0, 0xff), classify(Narrow::Ue8m0, 0)), (FpClass::Nan, FpClass::Normal));
    }
}
