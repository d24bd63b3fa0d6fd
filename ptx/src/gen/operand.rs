//! Operand values biased toward what breaks floating point, and whole input cases.
//!
//! About half the values come from a per-format list of special bit patterns (the bounds of
//! every class, NaN payloads, 1 and its neighbours, rounding ties, near-overflow and
//! near-underflow products), a quarter are random fractions under an interesting exponent,
//! a quarter uniformly random bits. Signs are random throughout.

use arbitrary::{Result, Unstructured};

use super::int_operand::{int_operand, int_related};
use crate::format::{Format, BF16, F16, F32, F64};
use crate::isa::Type;
use crate::program::ValType;

/// Special magnitudes of a format (sign is applied separately).
pub trait Specials: Format {
    const SPECIALS: [u64; 33] = [
        // Zero and infinity.
        0,
        Self::INF,
        // NaNs: NVIDIA's canonical NaN, the IEEE default quiet NaN, quiet with payload 1,
        // signalling NaNs with payloads 1, top-most and all-ones (9.7.3: payload rules for
        // f64; quieting of signalling NaNs).
        Self::CANONICAL_NAN,
        Self::EXP_MASK | Self::QUIET_BIT,
        Self::EXP_MASK | Self::QUIET_BIT | 1,
        Self::EXP_MASK | 1,
        Self::EXP_MASK | (Self::QUIET_BIT >> 1),
        Self::EXP_MASK | (Self::QUIET_BIT - 1),
        // Subnormals: smallest, largest, the middle one (halving/doubling edge).
        1,
        Self::MIN_NORMAL - 1,
        Self::MIN_NORMAL >> 1,
        // Normals: smallest and its successor, largest and its predecessor.
        Self::MIN_NORMAL,
        Self::MIN_NORMAL + 1,
        Self::MAX_FINITE,
        Self::MAX_FINITE - 1,
        // Just below twice the smallest normal: times 0.5 it is (1 - 2^-p) * 2^EMIN, below the
        // smallest normal but rounding up to it, the `.ftz` before/after rounding question
        // (so is the smallest normal times 1 - 2^-p, both in this list).
        Self::MIN_NORMAL | Self::FRAC_MASK,
        // 1.0, its neighbours, 2.0, 0.5 and its neighbours: .sat bounds and exact cases.
        Self::ONE,
        Self::ONE - 1,
        Self::ONE + 1,
        Self::ONE + (1 << Self::FRAC_BITS),
        Self::ONE - (1 << Self::FRAC_BITS),
        Self::ONE - (1 << Self::FRAC_BITS) + 1,
        Self::ONE - (1 << Self::FRAC_BITS) - 1,
        // 1.5 and 3.0: small exact operands.
        Self::ONE | Self::QUIET_BIT,
        Self::ONE + (1 << Self::FRAC_BITS) + Self::QUIET_BIT,
        // Rounding ties: 2^-p is half an ulp of 1 (1 + 2^-p is a tie), 3 * 2^-p makes
        // 1 + 1.5 ulp (the other tie parity).
        ((Self::BIAS - Self::PREC as i32) as u64) << Self::FRAC_BITS,
        (((Self::BIAS - Self::PREC as i32 + 1) as u64) << Self::FRAC_BITS) | Self::QUIET_BIT,
        // Product ties: (1 + 2^-h)^2 = 1 + 2^(1-h) + 2^-2h, a tie when 2h = p.
        Self::ONE | (1 << (Self::FRAC_BITS - Self::PREC.div_ceil(2))),
        Self::ONE | (1 << (Self::FRAC_BITS - Self::PREC / 2)),
        // Near overflow: squares of these straddle the largest finite value.
        (((Self::BIAS + Self::EMAX / 2) as u64) << Self::FRAC_BITS) | Self::FRAC_MASK,
        ((Self::BIAS + Self::EMAX / 2 + 1) as u64) << Self::FRAC_BITS,
        // Near underflow: squares straddle the smallest normal.
        ((Self::BIAS + Self::EMIN / 2) as u64) << Self::FRAC_BITS,
        (((Self::BIAS + Self::EMIN / 2 - 1) as u64) << Self::FRAC_BITS) | Self::FRAC_MASK,
    ];

    /// Biased exponents worth a random fraction: subnormal, smallest normal, around 1, the
    /// top finite binade, and all-ones (infinity or NaN, by the fraction).
    const EXPONENTS: [u64; 8] = [
        0,
        1,
        2,
        Self::BIAS as u64 - 1,
        Self::BIAS as u64,
        Self::BIAS as u64 + 1,
        (Self::EXP_MASK >> Self::FRAC_BITS) - 1,
        Self::EXP_MASK >> Self::FRAC_BITS,
    ];
}

impl<F: Format> Specials for F {}

/// Probability threshold out of 65536 for a share in [0, 1].
pub(crate) fn threshold(share: f64) -> u32 {
    (share.clamp(0.0, 1.0) * 65536.0).round() as u32
}

/// True with probability `thr / 65536`; false once the byte stream is exhausted (unless
/// `thr` is 65536), so an empty stream gives the plainest choices.
#[inline]
pub(crate) fn chance(u: &mut Unstructured, thr: u32) -> Result<bool> {
    let x = u16::from_le_bytes(u.bytes(2).map_or([0, 0], |b| [b[0], b[1]])) as u32;
    Ok(x + thr >= 65536)
}

/// Where the operand generator's choices come from. The generator is written once over this
/// trait: from a byte stream ([`Unstructured`]: the fuzz targets and the corpus, whose bytes
/// must always decode to the same values) or from any faster source of random bits with the
/// same distributions (a campaign's random cases: `worker::campaign::source`).
pub trait Draw {
    /// A fair coin.
    fn coin(&mut self) -> Result<bool>;
    /// True with probability `thr / 65536`.
    fn chance(&mut self, thr: u32) -> Result<bool>;
    /// Uniform in `0..n` (`n >= 1`; a bias below 2^-16 is acceptable).
    fn index(&mut self, n: usize) -> Result<usize>;
    /// 64 random bits.
    fn word(&mut self) -> Result<u64>;
    /// Uniform in `0..=3`.
    fn quarter(&mut self) -> Result<u8>;

    /// The choices behind one value of a format of `width` bits with `specials` special
    /// values ([`operand_with`] turns them into bits; of `word` it reads the low `width` bits
    /// and the top three). By default drawn one at a time, only those the value uses, in the
    /// order the corpus's byte format fixes: the sign, the special chance, then the index, or
    /// else the word and the exponent coin. A source whose draws cost next to nothing may draw
    /// them all at once, so that no branch depends on them.
    #[inline]
    fn choices(&mut self, special: u32, specials: usize, width: u32) -> Result<Choices> {
        let _ = width;
        let negative = self.coin()?;
        if self.chance(special)? {
            return Ok(Choices { negative, special: true, index: self.index(specials)?, word: 0, exponent: false });
        }
        let word = self.word()?;
        Ok(Choices { negative, special: false, index: 0, word, exponent: self.coin()? })
    }
}

/// What decides one operand value (see [`Draw::choices`]).
#[derive(Clone, Copy, Debug)]
pub struct Choices {
    pub negative: bool,
    /// A special value, `SPECIALS[index]`, rather than one from `word`.
    pub special: bool,
    pub index: usize,
    pub word: u64,
    /// `word`'s fraction under one of the interesting exponents, rather than `word` itself.
    pub exponent: bool,
}

/// The byte semantics of the generator since it was written (`arbitrary` 1.x: a coin is a
/// byte's low bit, an index a byte modulo `n`, a word 8 bytes little-endian; an exhausted
/// stream gives zeros); `a_byte_stream_decodes_to_the_same_cases_as_recorded` holds it.
impl Draw for Unstructured<'_> {
    #[inline]
    fn coin(&mut self) -> Result<bool> {
        self.arbitrary::<bool>()
    }
    #[inline]
    fn chance(&mut self, thr: u32) -> Result<bool> {
        chance(self, thr)
    }
    #[inline]
    fn index(&mut self, n: usize) -> Result<usize> {
        self.choose_index(n)
    }
    #[inline]
    fn word(&mut self) -> Result<u64> {
        self.arbitrary::<u64>()
    }
    #[inline]
    fn quarter(&mut self) -> Result<u8> {
        self.int_in_range(0u8..=3)
    }
}

/// One value of format `F` with the default half-special share.
pub fn operand<F: Format>(u: &mut (impl Draw + ?Sized)) -> Result<u64> {
    operand_with::<F>(u, threshold(0.5))
}

/// One value of format `F`: special with probability `special / 65536`, otherwise half random
/// fractions under an interesting exponent, half random bits.
pub fn operand_with<F: Format>(u: &mut (impl Draw + ?Sized), special: u32) -> Result<u64> {
    let c = u.choices(special, F::SPECIALS.len(), F::BITS)?;
    let sign = if c.negative { F::SIGN_MASK } else { 0 };
    // Every candidate computed, one selected: branch-free where the choices were.
    let listed = F::SPECIALS[c.index.min(F::SPECIALS.len() - 1)] | sign;
    let fraction = sign | (F::EXPONENTS[(c.word >> 61) as usize] << F::FRAC_BITS) | (c.word & F::FRAC_MASK);
    let raw = c.word & F::MASK; // its own sign
    Ok(if c.special {
        listed
    } else if c.exponent {
        fraction
    } else {
        raw
    })
}

/// One register value of type `ty` (packed types: lanes drawn independently, lane 0 low).
pub fn operand_for<D: Draw + ?Sized>(u: &mut D, ty: Type, special: u32) -> Result<u64> {
    let lane = |u: &mut D| match ty {
        Type::F16 | Type::F16x2 => operand_with::<F16>(u, special),
        Type::Bf16 | Type::Bf16x2 => operand_with::<BF16>(u, special),
        Type::F32 | Type::F32x2 => operand_with::<F32>(u, special),
        Type::F64 => operand_with::<F64>(u, special),
    };
    let lo = lane(u)?;
    if ty.lanes() == 2 {
        Ok(lo | lane(u)? << ty.scalar().bits())
    } else {
        Ok(lo)
    }
}

/// Values for a program's inputs (`types`, in order), appended to `out`. With probability
/// `relation / 65536` an input repeats an earlier input of the same type, negated, or one
/// ulp away (per lane; for an integer, one away), so cancellations and near-cancellations are
/// common. Integer inputs are drawn by [`int_operand`].
pub fn case_into(u: &mut (impl Draw + ?Sized), types: &[ValType], special: u32, relation: u32, out: &mut Vec<u64>) -> Result<()> {
    let base = out.len();
    for (i, &vt) in types.iter().enumerate() {
        if i > 0 && u.chance(relation)? {
            let j = u.index(i)?;
            if types[j] == vt {
                let v = out[base + j];
                let which = u.quarter()?;
                out.push(match vt {
                    ValType::Int(t) => int_related(t, v, which),
                    ValType::Pred => v,
                    _ => float_related(float_of(vt), v, which),
                });
                continue;
            }
        }
        out.push(match vt {
            ValType::Int(t) => int_operand(u, t, special)?,
            ValType::Pred => u.coin()? as u64,
            _ => operand_for(u, float_of(vt), special)?,
        });
    }
    Ok(())
}

/// `n` cases for inputs of `types`, appended to `out` case by case as [`case_into`] writes
/// them, with the same distribution as `n` calls of it but not the same stream: every column
/// drawn in one loop of its own format (no dispatch on the type per value, which was most of
/// the generator's time in an interp campaign, `perf`, docs/benchmarks.md), then the relations
/// (an input related to an earlier one of its type, with the same odds and the same choice of
/// which and how) in a second pass over the cases. For sources with no stream format to keep
/// (a campaign's random cases); the corpus and the fuzz targets decode through `case_into`.
pub fn cases_into(u: &mut (impl Draw + ?Sized), types: &[ValType], n: usize, special: u32, relation: u32, out: &mut Vec<u64>) -> Result<()> {
    let k = types.len();
    let start = out.len();
    out.resize(start + n * k, 0);
    let cases = &mut out[start..];
    for (j, &vt) in types.iter().enumerate() {
        let mut column = cases.iter_mut().skip(j).step_by(k.max(1));
        match vt {
            ValType::Int(t) => column.try_for_each(|v| Ok(*v = int_operand(u, t, special)?))?,
            ValType::Pred => column.try_for_each(|v| Ok(*v = u.coin()? as u64))?,
            _ => match float_of(vt) {
                Type::F16 | Type::F16x2 => float_column::<F16>(u, vt, special, column)?,
                Type::Bf16 | Type::Bf16x2 => float_column::<BF16>(u, vt, special, column)?,
                Type::F32 | Type::F32x2 => float_column::<F32>(u, vt, special, column)?,
                Type::F64 => float_column::<F64>(u, vt, special, column)?,
            },
        }
    }
    if k > 1 {
        for case in cases.chunks_exact_mut(k) {
            for i in 1..k {
                if u.chance(relation)? {
                    let j = u.index(i)?;
                    if types[j] == types[i] {
                        let which = u.quarter()?;
                        case[i] = match types[i] {
                            ValType::Int(t) => int_related(t, case[j], which),
                            ValType::Pred => case[j],
                            vt => float_related(float_of(vt), case[j], which),
                        };
                    }
                }
            }
        }
    }
    Ok(())
}

/// A column of values of `vt`, whose lanes are of format `F` (one or two lanes, lane 0 low,
/// drawn in that order as [`operand_for`] draws them).
fn float_column<'a, F: Format>(u: &mut (impl Draw + ?Sized), vt: ValType, special: u32, column: impl Iterator<Item = &'a mut u64>) -> Result<()> {
    let pair = float_of(vt).lanes() == 2;
    for v in column {
        let lo = operand_with::<F>(u, special)?;
        *v = if pair { lo | operand_with::<F>(u, special)? << F::BITS } else { lo };
    }
    Ok(())
}

/// The float type whose values a register of `vt` is drawn as: a program's inputs are floats
/// or integers (`Program::validate`); a caller's tf32 is drawn as an f32, an fp8 pair as the
/// f16 its `.b16` register could hold.
fn float_of(vt: ValType) -> Type {
    match vt {
        ValType::Float(t) => t,
        ValType::Tf32 => Type::F32,
        _ => Type::F16,
    }
}

/// `v` (of type `ty`) itself, negated in every lane, or one ulp up or down in magnitude in
/// every lane.
fn float_related(ty: Type, v: u64, which: u8) -> u64 {
    let w = ty.scalar().bits();
    let signs = (0..ty.lanes()).fold(0u64, |m, l| m | 1u64 << (l * w + w - 1));
    let ones = (0..ty.lanes()).fold(0u64, |m, l| m | 1u64 << (l * w));
    let v = match which {
        0 => v,
        1 => v ^ signs,
        // Adding all-ones is -1 per lane; wrapping stays in-lane, zero minus one becomes a
        // negative NaN.
        2 => lanewise_add(v, ones, w),
        _ => lanewise_add(v, mask(ty), w),
    };
    v & mask(ty)
}

fn mask(ty: Type) -> u64 {
    if ty.bits() == 64 {
        u64::MAX
    } else {
        (1u64 << ty.bits()) - 1
    }
}

/// Add `d` lane by lane (lanes of width `w`), without carries between lanes.
fn lanewise_add(v: u64, d: u64, w: u32) -> u64 {
    if w == 64 {
        return v.wrapping_add(d);
    }
    let m = (1u64 << w) - 1;
    (0..64 / w).fold(0, |acc, l| {
        let s = l * w;
        acc | ((((v >> s) & m).wrapping_add((d >> s) & m) & m) << s)
    })
}

/// Values for every input of a program.
pub fn case(u: &mut Unstructured, types: &[ValType], special_share: f64, relation_share: f64) -> Result<Vec<u64>> {
    let mut out = Vec::with_capacity(types.len());
    case_into(u, types, threshold(special_share), threshold(relation_share), &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::FpClass;

    fn classes<F: Format>() -> Vec<FpClass> {
        F::SPECIALS.iter().map(|&b| F::classify(b)).collect()
    }

    #[test]
    fn specials_cover_every_class_in_every_format() {
        for cls in [classes::<F16>(), classes::<BF16>(), classes::<F32>(), classes::<F64>()] {
            for want in [FpClass::Zero, FpClass::Subnormal, FpClass::Normal, FpClass::Infinite, FpClass::Nan] {
                assert!(cls.contains(&want), "{want:?} missing");
            }
        }
    }

    #[test]
    fn specials_fit_their_format_and_include_signalling_nans() {
        fn check<F: Format>() {
            for &b in &F::SPECIALS {
                assert_eq!(b & !F::MASK, 0, "{} {b:#x}", F::NAME);
                assert!(!F::sign(b), "{} {b:#x} carries a sign", F::NAME);
            }
            assert!(F::SPECIALS.iter().filter(|&&b| F::is_signalling_nan(b)).count() >= 3);
        }
        check::<F16>();
        check::<BF16>();
        check::<F32>();
        check::<F64>();
    }

    #[test]
    fn special_ties_are_what_they_claim_in_f32() {
        let half_ulp_of_one = f32::from_bits(F32::SPECIALS[25] as u32);
        assert_eq!(half_ulp_of_one, 2f32.powi(-24));
        let a = f32::from_bits(F32::SPECIALS[27] as u32);
        assert_eq!(a, 1.0 + 2f32.powi(-12));
        // Near overflow: the square of the first overflows only through the rounding.
        let big = f32::from_bits(F32::SPECIALS[29] as u32) as f64;
        assert!(big * big < f32::MAX as f64 * 2.0 && big * big > f32::MAX as f64 / 2.0);
        let one_minus = f32::from_bits(F32::ONE as u32 - 1);
        assert_eq!(f32::MIN_POSITIVE * one_minus, f32::MIN_POSITIVE, "the rounding-up-to-normal product");
    }

    #[test]
    fn roughly_half_of_operands_are_special() {
        let data = crate::gen::tests::bytes(1, 400_000);
        let mut u = Unstructured::new(&data);
        let (mut special, mut n) = (0, 0);
        while u.len() > 16 {
            let v = operand::<F32>(&mut u).unwrap();
            special += F32::SPECIALS.contains(&(v & !F32::SIGN_MASK)) as u32;
            n += 1;
        }
        let share = special as f64 / n as f64;
        assert!((0.4..0.65).contains(&share), "special share {share}");
    }

    #[test]
    fn related_inputs_cancel_exactly() {
        let data = crate::gen::tests::bytes(2, 200_000);
        let mut u = Unstructured::new(&data);
        let (mut negated, mut cases) = (0, 0);
        while u.len() > 64 {
            let c = case(&mut u, &[ValType::Float(Type::F32); 2], 0.5, 0.5).unwrap();
            negated += (c[0] ^ c[1] == 0x8000_0000) as u32;
            cases += 1;
        }
        assert!(negated * 20 > cases, "{negated} of {cases}");
    }

    /// The byte semantics of the generator are part of the fuzz corpus's format: a saved
    /// `explore` input must decode to the same case forever. FNV-1a of the cases that a fixed
    /// stream decodes to, for every type and with every odds edge, recorded before the
    /// operand code became generic over its source of choices ([`Draw`]).
    #[test]
    fn a_byte_stream_decodes_to_the_same_cases_as_recorded() {
        let data = crate::gen::seeded_bytes(7, 120_000);
        let mut u = Unstructured::new(&data);
        let types = [Type::F32, Type::F16x2, Type::F64, Type::Bf16, Type::F32, Type::F32x2, Type::F16, Type::Bf16x2]
            .map(ValType::Float);
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut n = 0;
        for (special, relation) in [(32768, 16384), (0, 65536), (65536, 0), (49152, 40000)] {
            for _ in 0..200 {
                let mut out = Vec::new();
                case_into(&mut u, &types, special, relation, &mut out).unwrap();
                for v in out {
                    h = (h ^ v).wrapping_mul(0x0000_0100_0000_01b3);
                    n += 1;
                }
            }
        }
        // And an exhausted stream: the plainest values.
        let mut out = Vec::new();
        case_into(&mut Unstructured::new(&[]), &types, 32768, 16384, &mut out).unwrap();
        assert_eq!(out.len(), types.len());
        for v in out {
            h = (h ^ v).wrapping_mul(0x0000_0100_0000_01b3);
        }
        assert!(u.len() > 0 && u.len() < data.len() / 2, "the test should spend most of the stream, not all: {}", u.len());
        assert_eq!((n, h), (6400, 0x8b15_bc1d_06f2_3bd3), "{h:#x}");
    }

    /// Column by column draws what case by case does: per input, the share of special values
    /// (each lane of a pair) and of negative ones, and per pair of inputs of one type, the
    /// share of equal and negated copies, within sampling noise of each other; an input of
    /// another type between them changes nothing.
    #[test]
    fn cases_into_has_the_distribution_of_case_into() {
        let types = [ValType::Float(Type::F32), ValType::Float(Type::F32), ValType::Float(Type::F16x2), ValType::Pred, ValType::Float(Type::F32)];
        let n = 40_000;
        let data = crate::gen::seeded_bytes(11, 8 << 20);
        let mut u = Unstructured::new(&data);
        let mut one = Vec::new();
        for _ in 0..n {
            case_into(&mut u, &types, 32768, 16384, &mut one).unwrap();
        }
        let mut cols = Vec::new();
        cases_into(&mut u, &types, n, 32768, 16384, &mut cols).unwrap();
        assert!(u.len() > 0, "the stream ran dry: the shares would be the exhausted stream's");
        assert_eq!(cols.len(), one.len());
        let stats = |v: &[u64]| {
            let f32_special = |x: u64| F32::SPECIALS.contains(&(x & !F32::SIGN_MASK));
            let f16_special = |x: u64| F16::SPECIALS.contains(&(x & 0x7fff));
            let mut s = [0f64; 9];
            for c in v.chunks(types.len()) {
                s[0] += f32_special(c[0]) as u8 as f64;
                s[1] += f32_special(c[1]) as u8 as f64;
                s[2] += f16_special(c[2]) as u8 as f64;
                s[3] += f16_special(c[2] >> 16) as u8 as f64;
                s[4] += (c[1] >> 31) as f64;
                s[5] += (c[1] == c[0]) as u8 as f64;
                s[6] += (c[1] ^ c[0] == 1 << 31) as u8 as f64;
                s[7] += (c[4] == c[1] || c[4] == c[0]) as u8 as f64;
                s[8] += (c[3] <= 1) as u8 as f64;
            }
            s.map(|x| x / n as f64)
        };
        let (a, b) = (stats(&one), stats(&cols));
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!((x - y).abs() < 0.015, "statistic {k}: case by case {x:.4}, by column {y:.4}");
        }
        assert!(a[5] > 0.02 && a[6] > 0.02 && a[8] == 1.0, "{a:?}");
    }

    #[test]
    fn lanewise_add_does_not_carry_across_lanes() {
        assert_eq!(lanewise_add(0xffff_0001, 0x0001_0001, 16), 0x0000_0002);
        assert_eq!(lanewise_add(5, u64::MAX, 64), 4);
    }
}
