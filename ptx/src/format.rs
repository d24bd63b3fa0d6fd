//! IEEE-754 binary formats used by PTX (f16, bf16, f32, f64), generic over one trait.
//!
//! Values travel as raw bit patterns in a `u64` (low bits used for narrow formats), so one
//! code path serves every width; the `Format` trait carries the layout constants, in the
//! style of `rustc_apfloat`'s `Semantics`.

/// The layout of one binary floating-point format.
pub trait Format: Copy + Clone + Send + Sync + 'static {
    /// PTX spelling of the scalar type (`f16`, `bf16`, `f32`, `f64`).
    const NAME: &'static str;
    /// Width of the encoding in bits.
    const BITS: u32;
    /// Width of the biased exponent field.
    const EXP_BITS: u32;
    /// Width of the stored fraction (precision minus the hidden bit).
    const FRAC_BITS: u32;
    /// NVIDIA's canonical NaN (PTX ISA 9.7.3.11 `.NaN`: "canonical NaN"): all ones but the sign.
    const CANONICAL_NAN: u64 = (1u64 << (Self::BITS - 1)) - 1;

    /// Precision in bits, hidden bit included.
    const PREC: u32 = Self::FRAC_BITS + 1;
    const BIAS: i32 = (1 << (Self::EXP_BITS - 1)) - 1;
    /// Exponent of the smallest normal number (value = 1.f * 2^EMIN).
    const EMIN: i32 = 1 - Self::BIAS;
    /// Exponent of the largest finite number.
    const EMAX: i32 = Self::BIAS;
    const SIGN_MASK: u64 = 1u64 << (Self::BITS - 1);
    const EXP_MASK: u64 = ((1u64 << Self::EXP_BITS) - 1) << Self::FRAC_BITS;
    const FRAC_MASK: u64 = (1u64 << Self::FRAC_BITS) - 1;
    /// The most significant fraction bit: set in quiet NaNs, clear in signalling NaNs.
    const QUIET_BIT: u64 = 1u64 << (Self::FRAC_BITS - 1);
    /// Mask of the whole encoding.
    const MASK: u64 = if Self::BITS == 64 { u64::MAX } else { (1u64 << Self::BITS) - 1 };
    const INF: u64 = Self::EXP_MASK;
    /// Largest finite magnitude.
    const MAX_FINITE: u64 = Self::EXP_MASK - 1;
    /// Smallest positive normal.
    const MIN_NORMAL: u64 = 1u64 << Self::FRAC_BITS;
    const ONE: u64 = (Self::BIAS as u64) << Self::FRAC_BITS;

    #[inline]
    fn sign(bits: u64) -> bool {
        bits & Self::SIGN_MASK != 0
    }
    #[inline]
    fn abs(bits: u64) -> u64 {
        bits & !Self::SIGN_MASK & Self::MASK
    }
    #[inline]
    fn is_nan(bits: u64) -> bool {
        Self::abs(bits) > Self::EXP_MASK
    }
    #[inline]
    fn is_signalling_nan(bits: u64) -> bool {
        Self::is_nan(bits) && bits & Self::QUIET_BIT == 0
    }
    #[inline]
    fn is_inf(bits: u64) -> bool {
        Self::abs(bits) == Self::EXP_MASK
    }
    #[inline]
    fn is_zero(bits: u64) -> bool {
        Self::abs(bits) == 0
    }
    #[inline]
    fn is_subnormal(bits: u64) -> bool {
        let a = Self::abs(bits);
        a != 0 && a < Self::MIN_NORMAL
    }
    /// Quiet a NaN: set the quiet bit, keep sign and payload.
    #[inline]
    fn quiet(bits: u64) -> u64 {
        bits | Self::QUIET_BIT
    }
    /// `.ftz`: a subnormal becomes a zero of the same sign (PTX ISA 9.7.3: "sign-preserving zero").
    #[inline]
    fn flush(bits: u64) -> u64 {
        if Self::is_subnormal(bits) {
            bits & Self::SIGN_MASK
        } else {
            bits
        }
    }
    #[inline]
    fn zero(sign: bool) -> u64 {
        if sign {
            Self::SIGN_MASK
        } else {
            0
        }
    }
    #[inline]
    fn inf(sign: bool) -> u64 {
        Self::zero(sign) | Self::INF
    }
    #[inline]
    fn classify(bits: u64) -> FpClass {
        let a = Self::abs(bits);
        if a > Self::EXP_MASK {
            FpClass::Nan
        } else if a == Self::EXP_MASK {
            FpClass::Infinite
        } else if a >= Self::MIN_NORMAL {
            FpClass::Normal
        } else if a == 0 {
            FpClass::Zero
        } else {
            FpClass::Subnormal
        }
    }
    /// Biased exponent field.
    #[inline]
    fn exp_field(bits: u64) -> i32 {
        ((bits & Self::EXP_MASK) >> Self::FRAC_BITS) as i32
    }
    /// Decompose a finite value into (sign, significand, exponent) with
    /// value = (-1)^sign * sig * 2^exp and the hidden bit made explicit.
    #[inline]
    fn unpack(bits: u64) -> (bool, u64, i32) {
        let sign = Self::sign(bits);
        let e = Self::exp_field(bits);
        let f = bits & Self::FRAC_MASK;
        if e == 0 {
            (sign, f, Self::EMIN - Self::FRAC_BITS as i32)
        } else {
            (sign, f | (1u64 << Self::FRAC_BITS), e - Self::BIAS - Self::FRAC_BITS as i32)
        }
    }
    /// Ordered comparison key: a total order on non-NaN values with -0 < +0,
    /// as 9.7.3.11/12 order zeros for min and max.
    #[inline]
    fn order_key(bits: u64) -> i64 {
        let a = Self::abs(bits) as i64;
        if Self::sign(bits) {
            -a - 1
        } else {
            a
        }
    }
}

/// IEEE-754 binary16 (`.f16`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct F16;
/// bfloat16 (`.bf16`): f32's exponent range with 8 bits of precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BF16;
/// IEEE-754 binary32 (`.f32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct F32;
/// IEEE-754 binary64 (`.f64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct F64;

impl Format for F16 {
    const NAME: &'static str = "f16";
    const BITS: u32 = 16;
    const EXP_BITS: u32 = 5;
    const FRAC_BITS: u32 = 10;
}
impl Format for BF16 {
    const NAME: &'static str = "bf16";
    const BITS: u32 = 16;
    const EXP_BITS: u32 = 8;
    const FRAC_BITS: u32 = 7;
}
impl Format for F32 {
    const NAME: &'static str = "f32";
    const BITS: u32 = 32;
    const EXP_BITS: u32 = 8;
    const FRAC_BITS: u32 = 23;
}
impl Format for F64 {
    const NAME: &'static str = "f64";
    const BITS: u32 = 64;
    const EXP_BITS: u32 = 11;
    const FRAC_BITS: u32 = 52;
}

/// The IEEE class of a value, sign aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FpClass {
    Zero,
    Subnormal,
    Normal,
    Infinite,
    Nan,
}

/// Which scalar format a lane uses, for code that dispatches at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    F16,
    BF16,
    F32,
    F64,
}

impl Scalar {
    pub fn bits(self) -> u32 {
        match self {
            Scalar::F16 | Scalar::BF16 => 16,
            Scalar::F32 => 32,
            Scalar::F64 => 64,
        }
    }
    /// Width of the fraction field (the significand without its hidden bit).
    pub fn frac_bits(self) -> u32 {
        match self {
            Scalar::F16 => F16::FRAC_BITS,
            Scalar::BF16 => BF16::FRAC_BITS,
            Scalar::F32 => F32::FRAC_BITS,
            Scalar::F64 => F64::FRAC_BITS,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Scalar::F16 => F16::NAME,
            Scalar::BF16 => BF16::NAME,
            Scalar::F32 => F32::NAME,
            Scalar::F64 => F64::NAME,
        }
    }
    pub fn classify(self, bits: u64) -> FpClass {
        match self {
            Scalar::F16 => F16::classify(bits),
            Scalar::BF16 => BF16::classify(bits),
            Scalar::F32 => F32::classify(bits),
            Scalar::F64 => F64::classify(bits),
        }
    }
    pub fn is_nan(self, bits: u64) -> bool {
        self.classify(bits) == FpClass::Nan
    }
    /// Distance in ulps between two values of this format: the number of representable values
    /// stepped over, both zeros counting as one value and infinity one step past the largest
    /// finite value; `None` when either is NaN.
    pub fn ulps_between(self, a: u64, b: u64) -> Option<u64> {
        if self.is_nan(a) || self.is_nan(b) {
            return None;
        }
        let key = |v: u64| {
            let sign = 1u64 << (self.bits() - 1);
            let magnitude = (v & (sign - 1)) as i128;
            if v & sign != 0 {
                -magnitude
            } else {
                magnitude
            }
        };
        Some((key(a) - key(b)).unsigned_abs() as u64)
    }
    /// The exact value as an `f64` (every f16, bf16 and f32 converts exactly); NaN stays NaN.
    pub fn to_f64(self, bits: u64) -> f64 {
        match self {
            Scalar::F64 => f64::from_bits(bits),
            Scalar::F32 => f32::from_bits(bits as u32) as f64,
            Scalar::BF16 => f32::from_bits((bits as u32) << 16) as f64,
            Scalar::F16 => {
                let (s, sig, e) = F16::unpack(bits);
                let v = match F16::classify(bits) {
                    FpClass::Nan => f64::NAN,
                    FpClass::Infinite => f64::INFINITY,
                    _ => sig as f64 * (e as f64).exp2(),
                };
                if s {
                    -v
                } else {
                    v
                }
            }
        }
    }
    pub fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_ieee_layouts() {
        assert_eq!(F32::INF, 0x7f80_0000);
        assert_eq!(F32::MIN_NORMAL, 0x0080_0000);
        assert_eq!(F32::ONE, 0x3f80_0000);
        assert_eq!(F32::CANONICAL_NAN, 0x7fff_ffff);
        assert_eq!(F16::ONE, 0x3c00);
        assert_eq!(BF16::ONE, 0x3f80);
        assert_eq!(F64::ONE, 0x3ff0_0000_0000_0000);
        assert_eq!(F64::CANONICAL_NAN, 0x7fff_ffff_ffff_ffff);
        assert_eq!(F16::EMIN, -14);
        assert_eq!(F64::MASK, u64::MAX);
    }

    #[test]
    fn flush_keeps_sign_of_subnormal() {
        assert_eq!(F32::flush(0x8000_0001), 0x8000_0000);
        assert_eq!(F32::flush(0x0000_0001), 0);
        assert_eq!(F32::flush(0x0080_0000), 0x0080_0000);
    }

    #[test]
    fn order_key_puts_negative_zero_below_positive_zero() {
        assert!(F32::order_key(0x8000_0000) < F32::order_key(0));
        assert!(F32::order_key(0xbf80_0000) < F32::order_key(0x8000_0000));
        assert!(F16::order_key(0x3c00) > F16::order_key(0x0001));
    }

    #[test]
    fn to_f64_is_exact_for_f16_subnormals() {
        assert_eq!(Scalar::F16.to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(Scalar::BF16.to_f64(0x3f80), 1.0);
    }
}
