//! IEEE rounding modes and the exact rounding core every IEEE-rounded instruction goes through.
//!
//! No host rounding-mode switching: values are rounded by integer arithmetic on an exact
//! (sign, significand, exponent) description of the infinitely precise result:
//! - [`round_pack`]: the value as a truncated significand plus a sticky flag (the general
//!   entry point: conversions, decimal parsing, anything that knows "sig and something more");
//! - [`round_odd`] / [`round_odd_wide`]: the value in *round-to-odd* ("jammed") form, the
//!   core that the arithmetic in `softfloat` produces directly;
//! - [`round_f64`]: an f64 (exact or RO_53) to a narrower format.
//!
//! Why round-to-odd is enough (Boldo & Melquiond, "Emulation of FMA and correctly rounded
//! sums: proved algorithms using rounding to odd", IEEE TC 2008), in the form used here:
//! every mode's result is decided by where the exact value `v` lies with respect to the
//! *breakpoints* of the target format: its representable numbers (directed modes) and the
//! midpoints between them (`.rn`), plus the overflow thresholds; all of these have at most
//! `PREC + 1` significant bits. Let `k >= PREC + 2` and `o = RO_k(v)`: `o = v` when `v` has
//! `k` bits, otherwise the one of the two `k`-bit neighbours of `v` whose last bit is 1.
//! A breakpoint has its `k`-th bit 0, so it is never `o` unless `o = v`, and no breakpoint
//! lies strictly between `v` and `o` (they are neighbours). Hence `v` and `o` round alike in
//! every mode. Round-to-odd also composes: `RO_j(RO_k(v)) = RO_j(v)` for `j <= k`, which is
//! why dropping low bits into a sticky bit ("jamming") at any stage keeps the description valid.

use crate::format::Format;

/// A PTX rounding modifier (PTX ISA 9.7.3.3: `.rn`, `.rz`, `.rm`, `.rp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rounding {
    /// `.rn`: to nearest, ties to even.
    Rn,
    /// `.rz`: toward zero.
    Rz,
    /// `.rm`: toward negative infinity.
    Rm,
    /// `.rp`: toward positive infinity.
    Rp,
}

/// The rounding of a `cvt` to tf32 (`crate::cvt::tf32`; PTX ISA 9.7.9.21): `.rna` has its own
/// syntax line, `.rn`/`.rz` are `.frnd2`. Here, below `cvt` and `isa`, because both name it
/// (`crate::isa::RoundTo::Tf32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tf32Rounding {
    /// Nearest, ties away from zero (Floating Point Notes: ".rna").
    Rna,
    /// Nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
}

impl Tf32Rounding {
    pub const ALL: [Tf32Rounding; 3] = [Tf32Rounding::Rna, Tf32Rounding::Rn, Tf32Rounding::Rz];

    pub fn name(self) -> &'static str {
        match self {
            Tf32Rounding::Rna => "rna",
            Tf32Rounding::Rn => "rn",
            Tf32Rounding::Rz => "rz",
        }
    }
}

impl Rounding {
    pub const ALL: [Rounding; 4] = [Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp];

    /// The PTX modifier without its dot: `rn`, `rz`, `rm`, `rp`.
    pub fn name(self) -> &'static str {
        match self {
            Rounding::Rn => "rn",
            Rounding::Rz => "rz",
            Rounding::Rm => "rm",
            Rounding::Rp => "rp",
        }
    }

    pub fn from_name(s: &str) -> Option<Rounding> {
        Some(match s {
            "rn" => Rounding::Rn,
            "rz" => Rounding::Rz,
            "rm" => Rounding::Rm,
            "rp" => Rounding::Rp,
            _ => return None,
        })
    }

    /// Whether a value of this sign is rounded away from zero when inexact
    /// (directed modes only; `.rn` decides by the discarded bits).
    #[inline]
    pub fn directed_away(self, negative: bool) -> bool {
        match self {
            Rounding::Rn | Rounding::Rz => false,
            Rounding::Rm => negative,
            Rounding::Rp => !negative,
        }
    }

    /// Whether a value of this sign is truncated toward zero when inexact
    /// (directed modes only; `.rn` decides by the discarded bits).
    #[inline]
    pub fn directed_toward_zero(self, negative: bool) -> bool {
        match self {
            Rounding::Rn => false,
            Rounding::Rz => true,
            Rounding::Rm => !negative,
            Rounding::Rp => negative,
        }
    }

    /// The sign of an exact zero sum `x + y` of operands with signs `sx`, `sy`
    /// (IEEE 754-2019 6.3: `+0` unless both are negative, but `-0` under `.rm`
    /// whenever either is negative). Also the sign of an exact zero `a*b + c`.
    #[inline]
    pub fn zero_sum_sign(self, sx: bool, sy: bool) -> bool {
        if self == Rounding::Rm {
            sx | sy
        } else {
            sx & sy
        }
    }
}

/// The increment that rounds a significand whose low bits under `mask` (= 2^k - 1, k >= 1)
/// are discarded: added before shifting right by k. `.rn`: half minus one, plus the kept
/// part's last bit (ties to even); directed: all of `mask` when rounding away from zero.
/// Written with arithmetic masks, not `if`s: a data-dependent select can become a branch.
#[inline(always)]
pub(crate) fn increment(mode: Rounding, sign: bool, mask: u64, kept_lsb: u64) -> u64 {
    let s = sign as u64;
    match mode {
        Rounding::Rn => (mask >> 1) + kept_lsb,
        Rounding::Rz => 0,
        Rounding::Rm => mask & s.wrapping_neg(),
        Rounding::Rp => mask & s.wrapping_sub(1),
    }
}

/// The sign bit of `F` for `sign`, without a select.
#[inline(always)]
pub(crate) fn sign_bit<F: Format>(sign: bool) -> u64 {
    (sign as u64) << (F::BITS - 1)
}

/// The result of a finite value whose magnitude is beyond the largest finite number after
/// rounding with an unbounded exponent: infinity, or the largest finite number in the modes
/// that round this sign toward zero (IEEE 754-2019 7.4).
#[inline]
pub fn overflow<F: Format>(sign: bool, mode: Rounding) -> u64 {
    let mag = if mode.directed_toward_zero(sign) { F::MAX_FINITE } else { F::INF };
    F::zero(sign) | mag
}

/// Round `(-1)^sign * v` to `F` where `v` is described by `sig * 2^exp`:
///
/// - either exactly (`v = sig * 2^exp`, any `sig`, including 0 which gives a zero of this sign),
/// - or in round-to-odd form: `v` lies strictly between `(sig - 1) * 2^exp` and
///   `(sig + 1) * 2^exp`, `sig` is odd (its bit 0 is the sticky bit), and `sig` has at least
///   `F::PREC + 2` significant bits (see the module comment for why this is enough).
///
/// Handles gradual underflow (subnormal results), ties-to-even and overflow per mode.
/// An inexact zero result carries `sign`, as IEEE requires for a rounded result.
#[inline]
pub fn round_odd<F: Format>(sign: bool, exp: i32, sig: u64, mode: Rounding) -> u64 {
    if sig == 0 {
        return F::zero(sign);
    }
    let lz = sig.leading_zeros();
    // Put the leading bit at bit 62 so that adding the rounding increment cannot carry out.
    // With lz == 0 the lowest bit is jammed: RO composes, and 63 bits still exceed PREC + 2.
    let (n, e) = if lz == 0 {
        ((sig >> 1) | (sig & 1), exp + 63)
    } else {
        (sig << (lz - 1), exp + 63 - lz as i32)
    };
    // v is in [2^e, 2^(e+1)).
    if e > F::EMAX {
        return overflow::<F>(sign, mode);
    }
    // Bits of n to discard: 63 - PREC for a normal result, more below EMIN (gradual underflow).
    let shift = (63 - F::PREC as i32) + (F::EMIN - e).max(0);
    if shift > 63 {
        // v < 2^(EMIN - PREC) = half the smallest subnormal: not even a tie.
        let mag = mode.directed_away(sign) as u64;
        return F::zero(sign) | mag;
    }
    let shift = shift as u32;
    let mask = (1u64 << shift) - 1;
    let inc = increment(mode, sign, mask, (n >> shift) & 1);
    // n < 2^63 and inc < 2^63: no overflow. r has PREC bits (hidden bit at FRAC_BITS), or
    // fewer when subnormal; a rounding carry to 2^PREC bumps the exponent field, to
    // MIN_NORMAL from the subnormal range, or to INF from EMAX (only .rn and away modes).
    let r = (n + inc) >> shift;
    let biased = (e - F::EMIN).max(0) as u64;
    sign_bit::<F>(sign) | ((biased << F::FRAC_BITS) + r)
}

/// [`round_odd`] for a 128-bit significand (same exact / round-to-odd contract).
#[inline]
pub fn round_odd_wide<F: Format>(sign: bool, exp: i32, sig: u128, mode: Rounding) -> u64 {
    let hi = (sig >> 64) as u64;
    if hi == 0 {
        return round_odd::<F>(sign, exp, sig as u64, mode);
    }
    // Keep the top 64 bits, jam the rest: RO_64 of an RO value is RO of the exact value.
    let sh = 64 - hi.leading_zeros();
    let lost = (sig & ((1u128 << sh) - 1)) != 0;
    round_odd::<F>(sign, exp + sh as i32, (sig >> sh) as u64 | lost as u64, mode)
}

/// Round the exact value `(-1)^sign * (sig + delta) * 2^exp` to `F`, where `0 < delta < 1`
/// when `sticky` and `delta = 0` otherwise (`sig` is the value truncated at `2^exp`).
///
/// Precondition when `sticky`: the interval `(sig, sig + 1) * 2^exp` must not contain a
/// rounding breakpoint of `F`; `sig >= 2^F::PREC` (a guard bit beyond the precision)
/// guarantees it. Then `(2 sig + 1) * 2^(exp - 1)` is the round-to-odd form of the value.
/// Zero `sig` without `sticky` gives a zero of this sign; overflow, gradual underflow and
/// ties-to-even are handled as in [`round_odd`].
#[inline]
pub fn round_pack<F: Format>(
    sign: bool,
    exp: i32,
    sig: u128,
    sticky: bool,
    mode: Rounding,
) -> u64 {
    if !sticky {
        return round_odd_wide::<F>(sign, exp, sig, mode);
    }
    // (2*sig + 1) * 2^(exp-1) is the odd neighbour of v one bit further down.
    if sig >> 127 != 0 {
        return round_odd_wide::<F>(sign, exp + 1, (sig >> 1) | 1, mode);
    }
    round_odd_wide::<F>(sign, exp - 1, (sig << 1) | 1, mode)
}

/// Round the `f64` with bits `x` to `F` (any narrower format) in `mode`: the conversion
/// `cvt.<mode>.F.f64`, and the last step of the host fast paths. NaN gives a quiet NaN
/// keeping the sign and the top payload bits.
#[inline]
pub fn round_f64<F: Format>(x: u64, mode: Rounding) -> u64 {
    let sign = x >> 63 != 0;
    let ax = x & !(1u64 << 63);
    // Fast path, results in F's normal range, |x| in [2^EMIN, 2^(EMAX+1)): rebias the f64
    // encoding so its exponent field holds F's biased exponent, then round away the extra
    // 52 - FRAC_BITS fraction bits at a constant position; a carry out of the fraction
    // bumps the exponent, up to INF from EMAX (.rn and the away modes only: .rz adds 0).
    let lo = ((F::EMIN + 1023) as u64) << 52;
    let hi = ((F::EMAX + 1 + 1023) as u64) << 52;
    if F::FRAC_BITS < 52 && F::EMIN > -1022 && ax.wrapping_sub(lo) < hi - lo {
        let sh = 52 - F::FRAC_BITS;
        let t = ax - (((1023 - F::BIAS) as u64) << 52);
        let mask = (1u64 << sh) - 1;
        let inc = increment(mode, sign, mask, (t >> sh) & 1);
        return sign_bit::<F>(sign) | ((t + inc) >> sh);
    }
    round_f64_general::<F>(x, mode)
}

/// [`round_f64`] outside F's normal range: zeros, subnormal or overflowing results, NaN, inf.
#[inline]
fn round_f64_general<F: Format>(x: u64, mode: Rounding) -> u64 {
    let sign = x >> 63 != 0;
    let field = ((x >> 52) & 0x7ff) as i32;
    let frac = x & ((1u64 << 52) - 1);
    if field == 0x7ff {
        if frac == 0 {
            return F::inf(sign);
        }
        return F::zero(sign) | F::INF | F::QUIET_BIT | (frac >> (52 - F::FRAC_BITS));
    }
    // x = sig * 2^(e - 52); an f64 zero or subnormal reads as sig < 2^52 at e = -1022.
    let sig = frac | (((field != 0) as u64) << 52);
    let e = field.max(1) - 1023;
    if F::FRAC_BITS >= 52 || F::EMIN <= -1022 {
        return round_odd::<F>(sign, e - 52, sig, mode); // not a narrower format
    }
    // Branch-free (the result's class is data-dependent): discard 52 - FRAC_BITS bits, more
    // below EMIN (gradual underflow). Past 54 bits everything is below half the smallest
    // subnormal (x < 2^(EMIN - FRAC_BITS - 1)); clamping at 54 keeps that answer: sig <
    // 2^53 never reaches the .rn half-way increment 2^53 - 1 + 1, and the away modes' full
    // mask 2^54 - 1 lifts any nonzero sig to one min subnormal. A zero stays zero.
    let shift = ((52 - F::FRAC_BITS) as i32 + (F::EMIN - e).max(0)).min(54) as u32;
    let mask = (1u64 << shift) - 1;
    let inc = increment(mode, sign, mask, (sig >> shift) & 1);
    // r has the hidden bit at FRAC_BITS for a normal result; a carry to 2^PREC bumps the
    // exponent (to MIN_NORMAL from subnormals, to INF from EMAX: .rn and away modes only).
    let r = (sig + inc) >> shift;
    let mag = (((e - F::EMIN).max(0) as u64) << F::FRAC_BITS) + r;
    let ovf = if mode.directed_toward_zero(sign) { F::MAX_FINITE } else { F::INF };
    sign_bit::<F>(sign) | if e > F::EMAX { ovf } else { mag }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{BF16, F16, F32, F64};
    use Rounding::*;

    #[test]
    fn names_round_trip() {
        for m in Rounding::ALL {
            assert_eq!(Rounding::from_name(m.name()), Some(m));
        }
        assert_eq!(Rounding::from_name("rna"), None);
    }

    #[test]
    fn exact_values_pack_unchanged() {
        // 1.0 = 1 * 2^0, = 2^60 * 2^-60, = 2^64 * 2^-64 (wide).
        for m in Rounding::ALL {
            assert_eq!(round_odd::<F32>(false, 0, 1, m), 0x3f80_0000);
            assert_eq!(round_odd::<F32>(true, -60, 1 << 60, m), 0xbf80_0000);
            assert_eq!(round_odd_wide::<F64>(false, -64, 1 << 64, m), F64::ONE);
            assert_eq!(round_odd::<F16>(false, 0, 0, m), 0);
            assert_eq!(round_odd::<F16>(true, 0, 0, m), 0x8000);
        }
    }

    #[test]
    fn ties_round_to_even_only_in_rn() {
        // 1 + 2^-24 is the midpoint between 1 and 1 + 2^-23 (f32): exact tie.
        let v = (1u64 << 24) + 1; // * 2^-24
        assert_eq!(round_odd::<F32>(false, -24, v, Rn), 0x3f80_0000);
        assert_eq!(round_odd::<F32>(false, -24, v, Rp), 0x3f80_0001);
        assert_eq!(round_odd::<F32>(false, -24, v, Rz), 0x3f80_0000);
        assert_eq!(round_odd::<F32>(true, -24, v, Rm), 0xbf80_0001);
        // 1 + 3 * 2^-24: tie between odd 1+2^-23 and even 1+2^-22: rounds up.
        assert_eq!(round_odd::<F32>(false, -24, v + 2, Rn), 0x3f80_0002);
        // Just above the tie, in round-to-odd form (sticky): rounds up.
        assert_eq!(round_odd::<F32>(false, -25, (v << 1) | 1, Rn), 0x3f80_0001);
        assert_eq!(round_pack::<F32>(false, -24, v as u128, true, Rn), 0x3f80_0001);
        // Truncated + sticky, both sides of a tie (as decimal parsing uses it): x = 1 + 2^-24
        // with two guard bits; just below and just above.
        let four_v = (v as u128) << 2;
        assert_eq!(round_pack::<F32>(false, -26, four_v - 1, true, Rn), 0x3f80_0000);
        assert_eq!(round_pack::<F32>(false, -26, four_v, true, Rn), 0x3f80_0001);
        assert_eq!(round_pack::<F32>(false, -26, four_v, false, Rn), 0x3f80_0000);
        assert_eq!(round_pack::<F16>(true, -26, four_v - 1, true, Rz), 0xbc00);
    }

    #[test]
    fn overflow_gives_inf_or_max_finite_per_mode() {
        let big = 1u64 << 40; // 2^40 * 2^200 = 2^240 > f32 range
        assert_eq!(round_odd::<F32>(false, 200, big, Rn), F32::INF);
        assert_eq!(round_odd::<F32>(false, 200, big, Rz), F32::MAX_FINITE);
        assert_eq!(round_odd::<F32>(false, 200, big, Rm), F32::MAX_FINITE);
        assert_eq!(round_odd::<F32>(false, 200, big, Rp), F32::INF);
        assert_eq!(round_odd::<F32>(true, 200, big, Rm), F32::INF | F32::SIGN_MASK);
        assert_eq!(round_odd::<F32>(true, 200, big, Rp), F32::MAX_FINITE | F32::SIGN_MASK);
        // f16 max = 65504; 65520 is the midpoint to 2^16: ties-to-even goes to inf.
        assert_eq!(round_odd::<F16>(false, 0, 65520, Rn), F16::INF);
        assert_eq!(round_odd::<F16>(false, 0, 65519, Rn), F16::MAX_FINITE);
        assert_eq!(round_odd::<F16>(false, 0, 65505, Rp), F16::INF);
        assert_eq!(round_odd::<F16>(false, 0, 65535, Rz), F16::MAX_FINITE);
    }

    #[test]
    fn gradual_underflow_rounds_to_subnormals() {
        // f32 min subnormal 2^-149; 1.5 * 2^-149 rounds to 2 * 2^-149 (tie, even) in rn.
        assert_eq!(round_odd::<F32>(false, -150, 3, Rn), 2);
        assert_eq!(round_odd::<F32>(false, -150, 3, Rz), 1);
        // 2^-151 (a quarter of the min subnormal): 0 or min subnormal.
        assert_eq!(round_odd::<F32>(false, -151, 1, Rn), 0);
        assert_eq!(round_odd::<F32>(false, -151, 1, Rp), 1);
        assert_eq!(round_odd::<F32>(true, -151, 1, Rm), 0x8000_0001);
        assert_eq!(round_odd::<F32>(true, -151, 1, Rp), 0x8000_0000);
        // Exactly half the min subnormal: tie to even (0) in rn.
        assert_eq!(round_odd::<F32>(false, -150, 1, Rn), 0);
        assert_eq!(round_odd::<F32>(false, -150, 1, Rp), 1);
        // Far below: 2^-1000.
        assert_eq!(round_odd::<F32>(false, -1000, 1, Rn), 0);
        assert_eq!(round_odd::<F32>(false, -1000, 1, Rp), 1);
        // Rounding up out of the subnormal range gives MIN_NORMAL.
        let below_min_normal = (1u64 << 24) - 1; // (2^24 - 1) * 2^-150
        assert_eq!(round_odd::<F32>(false, -150, below_min_normal, Rn), F32::MIN_NORMAL);
        assert_eq!(round_odd::<F32>(false, -150, below_min_normal, Rz), F32::MIN_NORMAL - 1);
        // bf16 shares f32's range: min subnormal 2^-133.
        assert_eq!(round_odd::<BF16>(false, -133, 1, Rn), 1);
        assert_eq!(round_odd::<F64>(false, -1074, 1, Rz), 1);
        assert_eq!(round_odd::<F64>(false, -1076, 3, Rn), 1);
    }

    #[test]
    fn wide_significands_are_jammed_not_truncated() {
        // 2^100 + 1 at exp 0: far beyond f64 precision, just above 2^100.
        let v = (1u128 << 100) | 1;
        assert_eq!(round_odd_wide::<F64>(false, 0, v, Rp), 0x4630_0000_0000_0001);
        assert_eq!(round_odd_wide::<F64>(false, 0, v, Rn), 0x4630_0000_0000_0000);
        // Top bit set (128-bit value).
        let v = (1u128 << 127) | 1;
        assert_eq!(round_odd_wide::<F64>(false, -127, v, Rp), F64::ONE + 1);
        assert_eq!(round_odd_wide::<F64>(false, -127, v, Rz), F64::ONE);
    }

    #[test]
    fn round_f64_handles_specials_and_modes() {
        let one_third = (1.0f64 / 3.0).to_bits();
        assert_eq!(round_f64::<F32>(one_third, Rn), (1.0f32 / 3.0).to_bits() as u64);
        // 1/3 rounds up to nearest in f32 (0x3eaaaaab): rz is one below.
        assert_eq!(round_f64::<F32>(one_third, Rp), 0x3eaa_aaab);
        assert_eq!(round_f64::<F32>(one_third, Rz), 0x3eaa_aaaa);
        assert_eq!(round_f64::<F32>(f64::INFINITY.to_bits(), Rz), F32::INF);
        assert!(F16::is_nan(round_f64::<F16>(f64::NAN.to_bits(), Rn)));
        assert_eq!(round_f64::<F16>((-0.0f64).to_bits(), Rp), 0x8000);
        assert_eq!(round_f64::<F16>(1e300f64.to_bits(), Rm), F16::MAX_FINITE);
        assert_eq!(round_f64::<BF16>(1.0f64.to_bits(), Rn), BF16::ONE);
        assert_eq!(round_f64::<F32>(f64::MIN_POSITIVE.to_bits(), Rp), 1);
        assert_eq!(round_f64::<F32>(5e-324f64.to_bits(), Rn), 0);
    }

    /// round_f64's constant-shift and branch-free paths against the general core.
    fn round_f64_matches_round_pack<F: Format>() {
        let mut z = 0x1234_5678_9abc_def0u64;
        for i in 0..400_000u64 {
            z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut x = (z ^ (z >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x ^= x >> 32;
            // Half the cases with an exponent near F's range (subnormal, overflow edges).
            if i % 2 == 0 {
                let e = (F::EMIN - F::PREC as i32 - 3) + (x >> 52) as i32 % (F::EMAX - F::EMIN + F::PREC as i32 + 8);
                x = (x & 0x800f_ffff_ffff_ffff) | (((e + 1023) as u64) << 52);
            }
            let field = ((x >> 52) & 0x7ff) as i32;
            if field == 0x7ff {
                continue;
            }
            let sig = (x & ((1 << 52) - 1)) | (((field != 0) as u64) << 52);
            for m in Rounding::ALL {
                let want = round_odd::<F>(x >> 63 != 0, field.max(1) - 1075, sig, m);
                assert_eq!(round_f64::<F>(x, m), want, "{} {x:#x} .{}", F::NAME, m.name());
            }
        }
    }

    #[test]
    fn round_f64_agrees_with_round_pack_on_random_values() {
        round_f64_matches_round_pack::<F16>();
        round_f64_matches_round_pack::<BF16>();
        round_f64_matches_round_pack::<F32>();
    }

    #[test]
    fn zero_sum_sign_is_negative_only_in_rm_or_both_negative() {
        assert!(!Rn.zero_sum_sign(false, true));
        assert!(Rm.zero_sum_sign(false, true));
        assert!(Rz.zero_sum_sign(true, true));
        assert!(!Rp.zero_sum_sign(false, false));
    }
}
