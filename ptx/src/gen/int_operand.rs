//! Integer input values biased toward what breaks an integer-to-float `cvt` or an integer
//! `selp`: the type's bounds, the edges of each float format's exact integers and the rounding
//! ties just past them, and magnitudes spread evenly over every bit length.

use arbitrary::Result;

use super::operand::Draw;
use crate::integer::IntType;

/// Special magnitudes (sign applied separately; the type's `min` and `max` are offered
/// besides). Every float format holds the integers up to 2^p exactly (p = 8 bf16, 11 f16,
/// 24 f32, 53 f64; PTX ISA 9.7.9.21 rounds the others by the `cvt`'s rounding modifier), so
/// 2^p + 1 is the first tie (even goes down), 2^p + 3 the first tie that goes up, and each
/// format's largest finite value and its overflow threshold decide `.rn`'s infinity.
const MAGNITUDES: [u64; 38] = [
    0,
    1,
    2,
    3,
    127,
    128,
    255,
    256,
    // bf16 (p = 8).
    257,
    259,
    2047,
    2048,
    // f16 (p = 11).
    2049,
    2051,
    32767,
    32768,
    // f16's largest finite value, the largest integer `.rn` still rounds to it, and the
    // first that rounds to infinity (halfway to 2^16).
    65504,
    65519,
    65520,
    65535,
    65536,
    // f32 (p = 24).
    (1 << 24) - 1,
    1 << 24,
    (1 << 24) + 1,
    (1 << 24) + 3,
    // A tie with high bits (2^40 + 2^16: f32's ulp there is 2^17), one just above it (the
    // sticky bit), and an odd tie.
    (1 << 40) | (1 << 16),
    (1 << 40) | (1 << 16) | 1,
    (1 << 40) | (3 << 16),
    (1 << 31) - 1,
    1 << 31,
    (1 << 32) - 1,
    // f64 (p = 53).
    (1 << 53) + 1,
    (1 << 53) + 3,
    (1 << 63) - 1,
    1 << 63,
    // f32's rounding of the largest 64-bit values: 2^64 - 2^39 is the last tie below 2^64.
    u64::MAX - (1 << 39) + 1,
    u64::MAX - (1 << 40),
    u64::MAX,
];

/// One register value of integer type `t` (sign- or zero-extended into its register, as a
/// `cvt` to `t` writes it): special with probability `special / 65536`, otherwise half
/// uniformly random bits, half a random magnitude of uniformly random bit length (so that
/// small integers, which every float holds exactly, are as common as the huge ones).
pub fn int_operand<D: Draw + ?Sized>(u: &mut D, t: IntType, special: u32) -> Result<u64> {
    let negative = t.signed && u.coin()?;
    let value: i128 = if u.chance(special)? {
        let limit = t.max() as u128;
        let n = MAGNITUDES.iter().filter(|&&m| m as u128 <= limit).count();
        match u.index(n + 2)? {
            i if i == n => t.max(),
            i if i == n + 1 => t.min(),
            i => {
                let m = MAGNITUDES.iter().filter(|&&m| m as u128 <= limit).nth(i).copied().unwrap_or(0) as i128;
                if negative { -m } else { m }
            }
        }
    } else {
        let word = u.word()?;
        if u.coin()? {
            return Ok(t.extend(word, t.reg_bits()));
        }
        // 1 ..= the magnitude's bits (a signed type's sign bit is not one of them).
        let len = 1 + u.index((t.bits - t.signed as u32) as usize)? as u32;
        let m = (word & low_bits(len - 1)) | 1u64 << (len - 1);
        if negative { -(m as i128) } else { m as i128 }
    };
    Ok(t.extend(value as u64, t.reg_bits()))
}

/// An input related to an earlier one `v` of the same integer type: equal, negated, one
/// more or one less (wrapping within the type), so that `selp` and conversions meet neighbours.
pub fn int_related(t: IntType, v: u64, which: u8) -> u64 {
    let x = t.value(v);
    let y = match which {
        0 => x,
        1 => x.wrapping_neg(),
        2 => x + 1,
        _ => x - 1,
    };
    t.extend(y as u64, t.reg_bits())
}

fn low_bits(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbitrary::Unstructured;

    const S8: IntType = IntType { signed: true, bits: 8 };
    const U32: IntType = IntType { signed: false, bits: 32 };
    const S64: IntType = IntType { signed: true, bits: 64 };

    fn draws(t: IntType, special: u32, n: usize) -> Vec<u64> {
        (0..n as u64)
            .map(|s| int_operand(&mut Unstructured::new(&crate::gen::seeded_bytes(s, 64)), t, special).unwrap())
            .collect()
    }

    #[test]
    fn every_value_is_in_range_and_extended_into_its_register() {
        for t in IntType::ALL {
            for v in draws(t, 20000, 2000) {
                assert_eq!(t.extend(v, t.reg_bits()), v, "{} 0x{v:x} is not as a cvt writes it", t.name());
                if t.reg_bits() < 64 {
                    assert_eq!(v >> t.reg_bits(), 0, "{} 0x{v:x}", t.name());
                }
            }
        }
    }

    #[test]
    fn specials_reach_the_bounds_and_the_first_f32_tie() {
        let v = draws(S64, 65535, 4000);
        assert!(v.contains(&(i64::MIN as u64)) && v.contains(&(i64::MAX as u64)));
        assert!(v.contains(&((1 << 24) + 1)) && v.contains(&((-(1i64 << 24) - 1) as u64)));
        let v = draws(S8, 65535, 1000);
        assert!(v.contains(&0xff80) && v.contains(&0x7f) && v.contains(&0xffff), "-128, 127, -1");
        assert!(v.iter().all(|&x| S8.value(x) >= -128 && S8.value(x) <= 127));
    }

    #[test]
    fn random_magnitudes_spread_over_bit_lengths() {
        // With no specials, about half the values are random bits (mostly 32 bits long) and
        // half of uniform length: small values must be common.
        let v = draws(U32, 0, 4000);
        let small = v.iter().filter(|&&x| x < 1 << 16).count();
        assert!((600..1400).contains(&small), "{small} of 4000 below 2^16");
    }

    #[test]
    fn relations_stay_in_the_type() {
        assert_eq!(int_related(S8, 0xff80, 1), 0xff80, "-(-128) wraps to -128");
        assert_eq!(int_related(S8, 0x7f, 2), 0xff80, "127 + 1 wraps");
        assert_eq!(int_related(U32, 0, 3), 0xffff_ffff);
        assert_eq!(int_related(S64, 5, 1), (-5i64) as u64);
    }
}
