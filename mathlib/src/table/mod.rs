//! The error-bound tables of the CUDA C++ Programming Guide, appendix "Mathematical Functions",
//! as data: row types, the conditions under which a row applies, and row selection.
//!
//! The rows themselves are in `rows.rs` (`FUNCTIONS`), the `-use_fast_math` substitutions
//! (Table 9) in `fast_math.rs`.

mod fast_math;
mod rows;

pub use fast_math::{FastMath, FAST_MATH};
pub use rows::FUNCTIONS;

use crate::op::Op;
use std::fmt;

/// The appendix table a row comes from. Tables 8 and 10 have empty captions in the source; their
/// numbers follow from their position between Tables 7, 9 and 11.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpecTable {
    /// Single-precision standard functions with maximum ulp error.
    T7,
    /// Double-precision standard functions (H.1).
    T8,
    /// Functions affected by `-use_fast_math` (H.2): a mapping, no bounds.
    T9,
    /// Single-precision intrinsic functions (H.2).
    T10,
    /// Double-precision intrinsic functions (H.2).
    T11,
}

impl SpecTable {
    pub const ALL: [SpecTable; 5] =
        [SpecTable::T7, SpecTable::T8, SpecTable::T9, SpecTable::T10, SpecTable::T11];

    pub const fn number(self) -> u8 {
        match self {
            SpecTable::T7 => 7,
            SpecTable::T8 => 8,
            SpecTable::T9 => 9,
            SpecTable::T10 => 10,
            SpecTable::T11 => 11,
        }
    }

    /// Full citation of the table.
    pub const fn citation(self) -> &'static str {
        match self {
            SpecTable::T7 => "CUDA C++ Programming Guide, Appendix Mathematical Functions, Table 7 (H.1, single-precision standard functions)",
            SpecTable::T8 => "CUDA C++ Programming Guide, Appendix Mathematical Functions, Table 8 (H.1, double-precision standard functions)",
            SpecTable::T9 => "CUDA C++ Programming Guide, Appendix Mathematical Functions, Table 9 (H.2, functions affected by -use_fast_math)",
            SpecTable::T10 => "CUDA C++ Programming Guide, Appendix Mathematical Functions, Table 10 (H.2, single-precision intrinsic functions)",
            SpecTable::T11 => "CUDA C++ Programming Guide, Appendix Mathematical Functions, Table 11 (H.2, double-precision intrinsic functions)",
        }
    }
}

impl fmt::Display for SpecTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Table {}", self.number())
    }
}

/// A compute capability, `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cc {
    pub major: u8,
    pub minor: u8,
}

impl Cc {
    pub const fn new(major: u8, minor: u8) -> Cc {
        Cc { major, minor }
    }
}

impl fmt::Display for Cc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The nvcc flags the tables depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flags {
    /// `-prec-div=true` (nvcc's default).
    pub prec_div: bool,
    /// `-prec-sqrt=true` (nvcc's default).
    pub prec_sqrt: bool,
    /// `-use_fast_math`: Table 9's functions become their intrinsics.
    pub fast_math: bool,
}

impl Flags {
    /// nvcc defaults: the appendix (H.2) says `/` is IEEE-compliant "when compiled with
    /// -prec-div=true or without any -prec-div option ... since its default value is true";
    /// `-prec-sqrt` likewise defaults to true.
    pub const DEFAULT: Flags = Flags { prec_div: true, prec_sqrt: true, fast_math: false };

    /// `-use_fast_math`. Per the nvcc documentation (not this appendix) it also implies
    /// `-prec-div=false -prec-sqrt=false` (and `-ftz=true -fmad=true`, which these tables
    /// do not model).
    pub const FAST_MATH: Flags = Flags { prec_div: false, prec_sqrt: false, fast_math: true };
}

impl Default for Flags {
    fn default() -> Flags {
        Flags::DEFAULT
    }
}

/// What the code was built for: flags and target compute capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Build {
    pub flags: Flags,
    pub cc: Cc,
}

impl Default for Build {
    /// nvcc's default flags for sm_75, the oldest target the installed ptxas accepts.
    fn default() -> Build {
        Build { flags: Flags::DEFAULT, cc: Cc::new(7, 5) }
    }
}

/// A requirement on the nvcc flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagReq {
    Any,
    PrecDiv(bool),
    PrecSqrt(bool),
}

/// A requirement on the compute capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcReq {
    Any,
    AtLeast(Cc),
    Below(Cc),
    /// Strictly greater ("Requires compute capability > 2", Table 11).
    Above(Cc),
}

/// A requirement on the arguments. `arg` indexes the C argument list (`jnf(n,x)`: x is 1).
/// Bounds are real numbers compared exactly with the argument's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgRange {
    Full,
    /// |arg| < limit
    AbsBelow { arg: usize, limit: f64 },
    /// |arg| >= limit
    AbsNotBelow { arg: usize, limit: f64 },
    /// lo <= arg <= hi
    Within { arg: usize, lo: f64, hi: f64 },
    /// arg < lo or arg > hi
    Outside { arg: usize, lo: f64, hi: f64 },
    /// lo <= |arg| <= hi
    AbsWithin { arg: usize, lo: f64, hi: f64 },
    /// lo < |arg| < hi
    AbsBetweenOpen { arg: usize, lo: f64, hi: f64 },
    /// |x| < scale * n, with n the int argument
    AbsBelowScaledN { x: usize, n: usize, scale: f64 },
    /// |x| >= scale * n
    AbsNotBelowScaledN { x: usize, n: usize, scale: f64 },
    /// |x| > scale * n
    AbsAboveScaledN { x: usize, n: usize, scale: f64 },
    /// the int argument equals `value`
    IntEquals { arg: usize, value: i64 },
}

/// When a row applies. Rows of one function are tried in table order and the first match wins;
/// `otherwise` marks rows the appendix introduces with "otherwise" (documentation only: their
/// own requirements already exclude the earlier rows or are `Any` in first-match order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Condition {
    pub args: ArgRange,
    pub flags: FlagReq,
    pub cc: CcReq,
    pub otherwise: bool,
}

/// An absolute error bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AbsErr {
    /// 2^e, as the appendix writes it (`2^-21.41`).
    Pow2(f64),
    /// A decimal value (`2.2 x 10^-6`).
    Value(f64),
}

impl AbsErr {
    pub fn value(self) -> f64 {
        match self {
            AbsErr::Pow2(e) => e.exp2(),
            AbsErr::Value(v) => v,
        }
    }
}

/// Behaviour the appendix documents instead of a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// H.2 prose on `__fdividef(x,y)` for 2^126 < |y| < 2^128: "delivers a result of zero",
    /// and NaN when x is infinite.
    ZeroOrNanIfXInfinite,
}

impl Behaviour {
    /// What a user reads in a report for this behaviour (never the Rust variant's name).
    pub fn text(self) -> &'static str {
        match self {
            Behaviour::ZeroOrNanIfXInfinite => "a zero result, NaN when x is infinite or NaN",
        }
    }

    /// Where the behaviour is documented, and its words: prose of the appendix, not the
    /// table cell of the row (which documents the bound of the other argument range).
    pub fn source(self) -> (&'static str, &'static str) {
        match self {
            Behaviour::ZeroOrNanIfXInfinite => (
                "H.2 prose",
                "for 2^126 < |y| < 2^128, __fdividef(x,y) delivers a result of zero ... if x is infinity, __fdividef(x,y) delivers a NaN (as a result of multiplying infinity by zero)",
            ),
        }
    }
}

/// The documented error of a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// At most this many ulps from the correctly rounded result (0: correctly rounded).
    Ulp(f64),
    /// `base + floor(|slope * x|)` ulps (`__expf`, `__exp10f`).
    UlpLinear { base: f64, slope: f64 },
    /// `ceil(base + per_n * n)` ulps, n the int argument (`ynf`).
    UlpPerN { base: f64, per_n: f64 },
    /// |result - exact| at most this.
    Abs(AbsErr),
    /// "IEEE-compliant": correctly rounded in the row's rounding direction.
    Ieee,
    /// A documented result instead of a bound.
    Documented(Behaviour),
    /// Each result has the bound of the named function's row ("Same as __sinf(x) and __cosf(x)").
    SameAs(&'static [&'static str]),
    /// The error follows from the implementation formula given; no number is documented.
    Derived(&'static str),
    /// No bound is documented; the text says why.
    NoneDocumented(&'static str),
}

impl Bound {
    /// Whether the row gives a checkable bound (and so needs a reference).
    pub fn has_bound(&self) -> bool {
        !matches!(self, Bound::Derived(_) | Bound::NoneDocumented(_))
    }
}

/// One row: a function (one name, one rounding direction) under one condition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MathFn {
    pub table: SpecTable,
    /// Lookup name: the C name (`sinf`, `__fadd_rz`); the operators of Tables 7 and 8 are named
    /// like CUDA's intrinsics without underscores (`fadd` is Table 7's `x+y`, `drcp` is Table 8's
    /// `1/x`); Table 7's `1/sqrtf(x)` is `1/sqrtf`.
    pub name: &'static str,
    /// The function cell exactly as the appendix prints it (`__fadd_[rn,rz,ru,rd](x,y)`).
    pub entry: &'static str,
    /// What the reference computes.
    pub op: Op,
    pub condition: Condition,
    pub bound: Bound,
    /// The bound cell, whitespace-normalised text of the appendix, superscripts written with `^`
    /// (`2^-21.41`, `2.2 x 10^-6`): the plain-text appendix flattens them to `2 -21.41 ,`.
    pub text: &'static str,
}

impl MathFn {
    pub fn citation(&self) -> &'static str {
        self.table.citation()
    }

    /// Whether the row is one of Tables 7/8's operators (`x+y`, `1/x`, `1/sqrtf(x)`) rather than
    /// a function call: its `entry` is then C over `x` and `y`.
    pub fn is_operator(&self) -> bool {
        !self.name.starts_with("__") && !self.entry.starts_with(&format!("{}(", self.name))
    }

    /// Whether the row's flag and compute-capability requirements hold for `build`.
    pub fn applies_to_build(&self, build: &Build) -> bool {
        let flags_ok = match self.condition.flags {
            FlagReq::Any => true,
            FlagReq::PrecDiv(v) => build.flags.prec_div == v,
            FlagReq::PrecSqrt(v) => build.flags.prec_sqrt == v,
        };
        let cc_ok = match self.condition.cc {
            CcReq::Any => true,
            CcReq::AtLeast(c) => build.cc >= c,
            CcReq::Below(c) => build.cc < c,
            CcReq::Above(c) => build.cc > c,
        };
        flags_ok && cc_ok
    }

    /// Whether the row's argument condition holds. `args` as for [`crate::reference`].
    pub fn applies_to_args(&self, args: &[u64]) -> bool {
        let float = |i: usize| crate::exact::arg_f64(self.op.fmt, args.get(i).copied().unwrap_or(0));
        let int = |i: usize| args.get(i).copied().unwrap_or(0) as i64;
        match self.condition.args {
            ArgRange::Full => true,
            ArgRange::AbsBelow { arg, limit } => float(arg).abs() < limit,
            ArgRange::AbsNotBelow { arg, limit } => float(arg).abs() >= limit,
            ArgRange::Within { arg, lo, hi } => (lo..=hi).contains(&float(arg)),
            ArgRange::Outside { arg, lo, hi } => float(arg) < lo || float(arg) > hi,
            ArgRange::AbsWithin { arg, lo, hi } => (lo..=hi).contains(&float(arg).abs()),
            ArgRange::AbsBetweenOpen { arg, lo, hi } => {
                let a = float(arg).abs();
                lo < a && a < hi
            }
            // scale * n is exact in f64 for the tables' scales (1, 1.5) and any int n.
            ArgRange::AbsBelowScaledN { x, n, scale } => float(x).abs() < scale * int(n) as f64,
            ArgRange::AbsNotBelowScaledN { x, n, scale } => {
                float(x).abs() >= scale * int(n) as f64
            }
            ArgRange::AbsAboveScaledN { x, n, scale } => float(x).abs() > scale * int(n) as f64,
            ArgRange::IntEquals { arg, value } => int(arg) == value,
        }
    }
}

/// All rows named `name`, in table order.
pub fn rows_named(name: &str) -> impl Iterator<Item = &'static MathFn> + '_ {
    FUNCTIONS.iter().filter(move |r| r.name == name)
}

/// The name a call compiles to under `flags`: with `-use_fast_math`, Table 9's functions are
/// replaced by their intrinsics (`sinf` -> `__sinf`, `fdiv` -> `__fdividef`).
pub fn effective_name<'a>(name: &'a str, flags: &Flags) -> &'a str {
    if flags.fast_math {
        if let Some(m) = FAST_MATH.iter().find(|m| m.name == name) {
            return m.intrinsic;
        }
    }
    name
}

/// The row that bounds `name(args)` when built with `build`: the first row of the function
/// (after `-use_fast_math` substitution) whose requirements hold. `None`: no row applies, so
/// no bound is documented for these arguments (for example `jnf` with n != 128).
pub fn select(name: &str, build: &Build, args: &[u64]) -> Option<&'static MathFn> {
    let name = effective_name(name, &build.flags);
    rows_named(name).find(|r| r.applies_to_build(build) && r.applies_to_args(args))
}

#[cfg(test)]
mod tests;
