//! Tininess of an fma result as IEEE 754 defines it "after rounding": the exact a*b+c rounded to
//! the format's precision with an unbounded exponent, compared with the smallest normal.

use crate::format::Scalar;
use crate::rounding::Rounding;

/// Decode a 16/32-bit float into f64 (exact), subnormals flushed to a signed zero (the .ftz inputs).
fn decode(s: Scalar, bits: u64) -> f64 {
    let (e_bits, m_bits) = match s {
        Scalar::F16 => (5, 10),
        Scalar::BF16 => (8, 7),
        Scalar::F32 => (8, 23),
        Scalar::F64 => return f64::from_bits(bits),
    };
    let sign = if bits >> (e_bits + m_bits) & 1 == 1 { -1.0 } else { 1.0 };
    let e = (bits >> m_bits) & ((1 << e_bits) - 1);
    let m = bits & ((1 << m_bits) - 1);
    let bias = (1i32 << (e_bits - 1)) - 1;
    if e == 0 {
        return sign * 0.0;
    }
    sign * (1.0 + m as f64 / (1u64 << m_bits) as f64) * 2f64.powi(e as i32 - bias)
}

/// Whether the fma of lane values `a*b+c` (f16/f32 bits, .ftz inputs) is tiny after rounding in
/// `mode` with an unbounded exponent. `None` for f64 (not exact in f64 arithmetic here).
pub fn fma_tiny_unbounded(s: Scalar, mode: Rounding, a: u64, b: u64, c: u64) -> Option<bool> {
    let (p, emin) = match s {
        Scalar::F16 => (11, -14),
        Scalar::BF16 => (8, -126),
        Scalar::F32 => (24, -126),
        Scalar::F64 => return None,
    };
    let prod = decode(s, a) * decode(s, b); // exact: at most 48 significant bits
    let c = decode(s, c);
    let sum = prod + c;
    // TwoSum: sum + err is the exact value.
    let bb = sum - prod;
    let err = (prod - (sum - bb)) + (c - bb);
    if sum == 0.0 {
        return Some(err != 0.0);
    }
    let negative = sum < 0.0;
    let m = 2f64.powi(emin);
    let ulp = 2f64.powi(emin - p);
    // Largest |v| still tiny, per rounding direction relative to the magnitude.
    let away = match mode {
        Rounding::Rn => None,
        Rounding::Rz => Some(false),
        Rounding::Rp => Some(!negative),
        Rounding::Rm => Some(negative),
    };
    let mag_err = if negative { -err } else { err };
    // d = |v| - threshold, sign exact: |sum| - t is exact near t (Sterbenz), err exact.
    let below = |t: f64| {
        let d = (sum.abs() - t) + mag_err;
        d
    };
    Some(match away {
        None => below(m - ulp / 2.0) < 0.0,
        Some(false) => below(m) < 0.0,
        Some(true) => below(m - ulp) <= 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fma_exactly_one_unit_below_the_smallest_normal_is_tiny_but_a_hair_below_is_not() {
        assert_eq!(fma_tiny_unbounded(Scalar::F32, Rounding::Rn, 0x3f7fffff, 0x80800000, 0x80000002), Some(true));
        assert_eq!(fma_tiny_unbounded(Scalar::F32, Rounding::Rn, 0x2f5395eb, 0x019287b5, 0x80800000), Some(false));
    }
}
