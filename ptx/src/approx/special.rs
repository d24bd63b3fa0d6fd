//! The special-value tables of the approximate instructions, exactly as the PTX ISA prints
//! them: for these inputs the result is exact, not approximate.
//!
//! Tables apply after `.ftz` has flushed the input (so the `±subnormal` rows of the `.ftz`
//! forms restate what the `±0.0` rows give). A result "NaN" is any NaN for f32 and half
//! types; the gross f64 forms name their NaN (`0x7fffffff00000000`).

use super::Func;
use crate::format::{Format, FpClass, Scalar};

/// The class of an input as the tables name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    NegInf,
    NegNormal,
    NegSubnormal,
    NegZero,
    PosZero,
    PosSubnormal,
    PosNormal,
    PosInf,
    Nan,
}

impl Class {
    /// Number of classes (the variants above, numbered from 0).
    pub const COUNT: usize = 9;

    #[inline]
    pub fn of<F: Format>(bits: u64) -> Class {
        let neg = F::sign(bits);
        match (F::classify(bits), neg) {
            (FpClass::Nan, _) => Class::Nan,
            (FpClass::Infinite, true) => Class::NegInf,
            (FpClass::Infinite, false) => Class::PosInf,
            (FpClass::Normal, true) => Class::NegNormal,
            (FpClass::Normal, false) => Class::PosNormal,
            (FpClass::Subnormal, true) => Class::NegSubnormal,
            (FpClass::Subnormal, false) => Class::PosSubnormal,
            (FpClass::Zero, true) => Class::NegZero,
            (FpClass::Zero, false) => Class::PosZero,
        }
    }
}

/// A result the tables name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    NegZero,
    PosZero,
    NegInf,
    PosInf,
    PosOne,
    NegOne,
    /// Some NaN (any NaN for f32/half; the f64 payload rule for rsqrt.approx.f64).
    Nan,
    /// The canonical NaN of the gross f64 forms, `0x7fffffff00000000` (9.7.3.14, 9.7.3.17).
    GrossNan,
    /// The input itself (9.7.3.22 note: tanh passes subnormal inputs through).
    Input,
}

impl Special {
    /// The result bits in format `F` (`None` for the NaN results, which the caller shapes).
    #[inline]
    pub fn bits<F: Format>(self, input: u64) -> Option<u64> {
        Some(match self {
            Special::NegZero => F::zero(true),
            Special::PosZero => F::zero(false),
            Special::NegInf => F::inf(true),
            Special::PosInf => F::inf(false),
            Special::PosOne => F::ONE,
            Special::NegOne => F::ONE | F::SIGN_MASK,
            Special::GrossNan => super::f64gross::GROSS_NAN,
            Special::Input => input,
            Special::Nan => return None,
        })
    }

    /// The value as an f64 (NaN for the NaN results).
    pub fn value(self, input: f64) -> f64 {
        match self {
            Special::NegZero => -0.0,
            Special::PosZero => 0.0,
            Special::NegInf => f64::NEG_INFINITY,
            Special::PosInf => f64::INFINITY,
            Special::PosOne => 1.0,
            Special::NegOne => -1.0,
            Special::Nan | Special::GrossNan => f64::NAN,
            Special::Input => input,
        }
    }
}

/// One special-value table of the spec.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Table {
    pub forms: &'static str,
    pub section: &'static str,
    pub rows: &'static [(Class, Special)],
}

impl Table {
    #[inline]
    pub fn lookup(&self, class: Class) -> Option<Special> {
        self.rows.iter().find(|(c, _)| *c == class).map(|(_, s)| *s)
    }

    /// The table as an array indexed by `Class as usize` (for `Form`'s per-lane lookups).
    pub fn by_class(&self) -> [Option<Special>; Class::COUNT] {
        let mut out = [None; Class::COUNT];
        for &(c, s) in self.rows {
            out[c as usize] = Some(s);
        }
        out
    }
}

use Class::*;
use Special as S;

pub static RCP: Table = Table {
    forms: "rcp.approx{.ftz}.f32",
    section: "9.7.3.13",
    rows: &[(NegInf, S::NegZero), (NegZero, S::NegInf), (PosZero, S::PosInf), (PosInf, S::PosZero), (Nan, S::Nan)],
};

pub static RCP_GROSS: Table = Table {
    forms: "rcp.approx.ftz.f64 (on a[63:32])",
    section: "9.7.3.14",
    rows: &[
        (NegInf, S::NegZero),
        (NegSubnormal, S::NegInf),
        (NegZero, S::NegInf),
        (PosZero, S::PosInf),
        (PosSubnormal, S::PosInf),
        (PosInf, S::PosZero),
        // "Input NaNs map to a canonical NaN with encoding 0x7fffffff00000000."
        (Nan, S::GrossNan),
    ],
};

pub static SQRT: Table = Table {
    forms: "sqrt.approx{.ftz}.f32",
    section: "9.7.3.15",
    rows: &[
        (NegInf, S::Nan),
        (NegNormal, S::Nan),
        (NegZero, S::NegZero),
        (PosZero, S::PosZero),
        (PosInf, S::PosInf),
        (Nan, S::Nan),
    ],
};

pub static RSQRT: Table = Table {
    forms: "rsqrt.approx{.ftz}.f32, rsqrt.approx.f64",
    section: "9.7.3.16",
    rows: &[
        (NegInf, S::Nan),
        (NegNormal, S::Nan),
        (NegZero, S::NegInf),
        (PosZero, S::PosInf),
        (PosInf, S::PosZero),
        (Nan, S::Nan),
    ],
};

pub static RSQRT_GROSS: Table = Table {
    forms: "rsqrt.approx.ftz.f64 (on a[63:32])",
    section: "9.7.3.17",
    rows: &[
        // "NaN": not an input NaN, so the canonical-NaN sentence does not name it; see
        // `f64gross` for the NaN the model expects.
        (NegInf, S::Nan),
        (NegSubnormal, S::NegInf),
        (NegZero, S::NegInf),
        (PosZero, S::PosInf),
        (PosSubnormal, S::PosInf),
        (PosInf, S::PosZero),
        (Nan, S::GrossNan),
    ],
};

pub static SIN: Table = Table {
    forms: "sin.approx{.ftz}.f32",
    section: "9.7.3.18",
    rows: &[(NegInf, S::Nan), (NegZero, S::NegZero), (PosZero, S::PosZero), (PosInf, S::Nan), (Nan, S::Nan)],
};

pub static COS: Table = Table {
    forms: "cos.approx{.ftz}.f32",
    section: "9.7.3.19",
    rows: &[(NegInf, S::Nan), (NegZero, S::PosOne), (PosZero, S::PosOne), (PosInf, S::Nan), (Nan, S::Nan)],
};

pub static LG2: Table = Table {
    forms: "lg2.approx{.ftz}.f32",
    section: "9.7.3.20",
    rows: &[
        (NegInf, S::Nan),
        (NegNormal, S::Nan),
        (NegZero, S::NegInf),
        (PosZero, S::NegInf),
        (PosInf, S::PosInf),
        (Nan, S::Nan),
    ],
};

pub static EX2: Table = Table {
    forms: "ex2.approx{.ftz}.f32",
    section: "9.7.3.21",
    rows: &[(NegInf, S::PosZero), (NegZero, S::PosOne), (PosZero, S::PosOne), (PosInf, S::PosInf), (Nan, S::Nan)],
};

pub static TANH: Table = Table {
    forms: "tanh.approx.f32",
    section: "9.7.3.22",
    rows: &[
        (NegInf, S::NegOne),
        (NegZero, S::NegZero),
        (PosZero, S::PosZero),
        (PosInf, S::PosOne),
        (Nan, S::Nan),
        // Note: "The subnormal inputs gets passed through to the output".
        (NegSubnormal, S::Input),
        (PosSubnormal, S::Input),
    ],
};

pub static TANH_HALF: Table = Table {
    forms: "tanh.approx.{f16,f16x2,bf16,bf16x2}",
    section: "9.7.4.9",
    rows: &[(NegInf, S::NegOne), (NegZero, S::NegZero), (PosZero, S::PosZero), (PosInf, S::PosOne), (Nan, S::Nan)],
};

pub static EX2_BF16: Table = Table {
    forms: "ex2.approx.ftz.{bf16,bf16x2}",
    section: "9.7.4.10",
    rows: &[
        (NegInf, S::PosZero),
        (NegSubnormal, S::PosOne),
        (NegZero, S::PosOne),
        (PosZero, S::PosOne),
        (PosSubnormal, S::PosOne),
        (PosInf, S::PosInf),
        (Nan, S::Nan),
    ],
};

pub static EX2_F16: Table = Table {
    forms: "ex2.approx.{f16,f16x2}",
    section: "9.7.4.10",
    rows: &[(NegInf, S::PosZero), (NegZero, S::PosOne), (PosZero, S::PosOne), (PosInf, S::PosInf), (Nan, S::Nan)],
};

/// div has no table. 9.7.3.8: "For 2^126 < |b| < 2^128, if a is infinity, div.approx.f32
/// returns NaN, otherwise it returns a sign-preserving zero." — read as the zero with the
/// sign of the quotient (sign(a) xor sign(b)); a NaN `a` still gives NaN (NaN operands
/// propagate, 9.7.3: "unspecified NaN"), which the caller checks first.
pub const DIV_APPROX_LARGE_DIVISOR_SECTION: &str = "9.7.3.8";

/// Whether 2^126 < |b| < 2^128 (f32 `b`): the case of the div.approx rule above.
#[inline]
pub fn div_large_divisor(b: u64) -> bool {
    let a = b & 0x7fff_ffff;
    a > 0x7e80_0000 && a < 0x7f80_0000
}

/// The table of a function in a lane format.
pub fn table(func: Func, scalar: Scalar) -> Option<&'static Table> {
    Some(match (func, scalar) {
        (Func::Rcp, Scalar::F32) => &RCP,
        (Func::RcpGross, Scalar::F64) => &RCP_GROSS,
        (Func::Sqrt, Scalar::F32) => &SQRT,
        (Func::Rsqrt, Scalar::F32 | Scalar::F64) => &RSQRT,
        (Func::RsqrtGross, Scalar::F64) => &RSQRT_GROSS,
        (Func::Sin, Scalar::F32) => &SIN,
        (Func::Cos, Scalar::F32) => &COS,
        (Func::Lg2, Scalar::F32) => &LG2,
        (Func::Ex2, Scalar::F32) => &EX2,
        (Func::Ex2, Scalar::F16) => &EX2_F16,
        (Func::Ex2, Scalar::BF16) => &EX2_BF16,
        (Func::Tanh, Scalar::F32) => &TANH,
        (Func::Tanh, Scalar::F16 | Scalar::BF16) => &TANH_HALF,
        _ => return None,
    })
}

/// Every table, for printing.
pub static TABLES: [&Table; 13] =
    [&RCP, &RCP_GROSS, &SQRT, &RSQRT, &RSQRT_GROSS, &SIN, &COS, &LG2, &EX2, &TANH, &TANH_HALF, &EX2_BF16, &EX2_F16];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F32, F64};

    #[test]
    fn by_class_indexes_every_row_of_every_table() {
        // `Class::COUNT` is the number of variants: the last one's index plus one.
        assert_eq!(Nan as usize + 1, Class::COUNT);
        for t in TABLES {
            let a = t.by_class();
            for c in [NegInf, NegNormal, NegSubnormal, NegZero, PosZero, PosSubnormal, PosNormal, PosInf, Nan] {
                assert_eq!(a[c as usize], t.lookup(c), "{} {c:?}", t.forms);
            }
        }
    }

    #[test]
    fn classes_follow_the_encoding() {
        assert_eq!(Class::of::<F32>(0xff80_0000), NegInf);
        assert_eq!(Class::of::<F32>(0x8000_0001), NegSubnormal);
        assert_eq!(Class::of::<F32>(0x8000_0000), NegZero);
        assert_eq!(Class::of::<F32>(0x7fc0_0000), Nan);
        assert_eq!(Class::of::<F32>(0xffc0_0000), Nan);
        assert_eq!(Class::of::<F64>(0x0010_0000_0000_0000), PosNormal);
    }

    #[test]
    fn every_table_names_each_class_at_most_once_and_covers_nan_and_infinities() {
        for t in TABLES {
            for (i, (c, _)) in t.rows.iter().enumerate() {
                assert!(t.rows[i + 1..].iter().all(|(d, _)| d != c), "{} repeats {c:?}", t.forms);
            }
            for c in [NegInf, PosInf, NegZero, PosZero, Nan] {
                assert!(t.lookup(c).is_some(), "{} lacks {c:?}", t.forms);
            }
        }
    }

    #[test]
    fn large_divisor_interval_is_open_at_both_ends() {
        assert!(!div_large_divisor(0x7e80_0000)); // 2^126
        assert!(div_large_divisor(0x7e80_0001));
        assert!(div_large_divisor(0xff7f_ffff)); // -MAX
        assert!(!div_large_divisor(0x7f80_0000)); // inf
        assert_eq!(f32::from_bits(0x7e80_0000), 2f32.powi(126));
    }
}
