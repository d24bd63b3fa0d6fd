//! Operand values for the forms outside `Instr` ([`crate::form::Operand`]): floats biased as
//! [`super::operand_with`] draws them, plus rounding ties of every narrower format (what a
//! conversion gets wrong first); integers at the bounds that matter to conversions; narrow
//! pairs, untyped bits and predicates uniform. Where a form's whole operand space is small (an
//! 8- or 16-bit source), [`exhaustive`] and [`nth_case`] enumerate it instead.

use arbitrary::Result;

use super::operand::{operand_with, Draw};
use crate::cvt::int::IntType;
use crate::form::Operand;
use crate::format::{BF16, F16, F32, F64};
use crate::Scalar;

/// Low fraction bits of an f32 that a narrower format drops: tf32 and f16 (13), bf16 (16),
/// e4m3 and e2m3 (20), e5m2 and e3m2 (21), e2m1 (22) (the mantissa widths of PTX ISA 5.2.5's
/// formats). A value whose dropped bits are `10...0` is a tie there.
const F32_DROPPED: [u32; 5] = [13, 16, 20, 21, 22];
/// The same for an f64 going to f32 (29), f16 (42) and bf16 (45).
const F64_DROPPED: [u32; 3] = [29, 42, 45];

/// One float of `s`: the generator's biased value, or a quarter of the time (f32, f64) a tie
/// of a narrower format, or one bit pattern either side of it.
fn float<D: Draw + ?Sized>(u: &mut D, s: Scalar, special: u32) -> Result<u64> {
    let (v, dropped): (u64, &[u32]) = match s {
        Scalar::F16 => return operand_with::<F16>(u, special),
        Scalar::BF16 => return operand_with::<BF16>(u, special),
        Scalar::F32 => (operand_with::<F32>(u, special)?, &F32_DROPPED),
        Scalar::F64 => (operand_with::<F64>(u, special)?, &F64_DROPPED),
    };
    if u.quarter()? != 0 {
        return Ok(v);
    }
    let k = dropped[u.index(dropped.len())?];
    let tie = 1u64 << (k - 1);
    let low = match u.quarter()? {
        0 | 1 => tie,
        2 => tie - 1,
        _ => tie + 1,
    };
    Ok(v & !((1u64 << k) - 1) | low)
}

/// Integers at the edges of conversions: 0, ±1, the type's bounds and their neighbours, and
/// the first integers each float format cannot hold (2^p + 1 for precisions 8, 11, 24, 53),
/// negated half the time; otherwise uniform bits.
fn int<D: Draw + ?Sized>(u: &mut D, t: IntType) -> Result<u64> {
    if u.coin()? {
        return Ok(u.word()? & t.mask());
    }
    let (min, max) = (t.min(), t.max());
    let edges = [0, 1, min, min + 1, max, max - 1, 257, 2049, (1 << 24) + 1, (1 << 53) + 1, 65504, 65520];
    let v = edges[u.index(edges.len())?];
    let v = if t.signed && u.coin()? { -v } else { v };
    Ok(v.clamp(min, max) as u64 & t.mask())
}

/// One value of operand kind `k`.
pub fn form_operand<D: Draw + ?Sized>(u: &mut D, k: Operand, special: u32) -> Result<u64> {
    Ok(match k {
        Operand::Float(s) => float(u, s, special)?,
        Operand::Packed(s) => float(u, s, special)? | float(u, s, special)? << 16,
        Operand::Int(t) => int(u, t)?,
        Operand::NarrowPair { bits } | Operand::Bits(bits) => u.word()? & mask(bits),
        Operand::Pred => u.coin()? as u64,
    })
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// One case of a form with these operands, appended to `out`. With probability
/// `relation / 65536` an operand repeats the one before it (same kind), or that one with its
/// sign flipped: equal and opposite operands are where comparisons and `selp` differ.
pub fn form_case_into<D: Draw + ?Sized>(u: &mut D, operands: &[Operand], special: u32, relation: u32, out: &mut Vec<u64>) -> Result<()> {
    for (i, &k) in operands.iter().enumerate() {
        if i > 0 && operands[i - 1] == k && k != Operand::Pred && u.chance(relation)? {
            let prev = out[out.len() - 1];
            let sign = match k {
                Operand::Packed(_) => 0x8000_8000,
                k => 1u64 << (k.bits() - 1),
            };
            out.push(if u.coin()? { prev } else { prev ^ sign });
            continue;
        }
        out.push(form_operand(u, k, special)?);
    }
    Ok(())
}

/// The number of cases of the whole operand space, if it is at most `limit`.
pub fn exhaustive(operands: &[Operand], limit: u64) -> Option<u64> {
    let bits: u32 = operands.iter().map(|k| k.bits()).sum();
    (bits < 64 && 1u64 << bits <= limit).then(|| 1u64 << bits)
}

/// Case number `i` of the enumeration of the operand space, appended to `out` (the first
/// operand in the low bits of `i`).
pub fn nth_case(operands: &[Operand], i: u64, out: &mut Vec<u64>) {
    let mut rest = i;
    for k in operands {
        out.push(rest & mask(k.bits()));
        rest >>= k.bits();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbitrary::Unstructured;

    #[test]
    fn every_value_fits_its_operand_and_ties_are_drawn() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let mut u = Unstructured::new(&data);
        let kinds = [
            Operand::Float(Scalar::F32),
            Operand::Packed(Scalar::BF16),
            Operand::Int(IntType { signed: true, bits: 8 }),
            Operand::NarrowPair { bits: 8 },
            Operand::Pred,
        ];
        let (mut bf16_ties, mut n) = (0, 0);
        while u.len() > 64 {
            let mut out = Vec::new();
            form_case_into(&mut u, &kinds, 32768, 8192, &mut out).unwrap();
            for (v, k) in out.iter().zip(kinds) {
                assert_eq!(v & !mask(k.bits()), 0, "{v:#x} wider than {k:?}");
            }
            bf16_ties += (out[0] & 0xffff == 0x8000) as u32;
            n += 1;
        }
        assert!(bf16_ties * 100 > n, "{bf16_ties} bf16 ties in {n} f32 values");
    }

    #[test]
    fn the_enumeration_covers_the_space_once() {
        let kinds = [Operand::NarrowPair { bits: 8 }, Operand::Pred];
        assert_eq!(exhaustive(&kinds, 512), Some(512));
        assert_eq!(exhaustive(&kinds, 511), None);
        assert_eq!(exhaustive(&[Operand::Float(Scalar::F64)], u64::MAX), None);
        let mut seen = std::collections::HashSet::new();
        for i in 0..512 {
            let mut out = Vec::new();
            nth_case(&kinds, i, &mut out);
            assert!(out[0] < 256 && out[1] < 2);
            assert!(seen.insert(out));
        }
    }

    #[test]
    fn integer_edges_stay_in_range() {
        let data = vec![0u8; 64];
        let mut u = Unstructured::new(&data);
        // An exhausted stream gives the plainest choice: the first edge, 0.
        assert_eq!(int(&mut u, IntType { signed: false, bits: 8 }).unwrap(), 0);
        for b in 0..=255u8 {
            let data = [0, b, 0, b, 1];
            let mut u = Unstructured::new(&data);
            let v = int(&mut u, IntType { signed: true, bits: 8 }).unwrap();
            assert!(v <= 0xff, "{v:#x}");
        }
    }
}
