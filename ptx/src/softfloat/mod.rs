//! Correctly rounded IEEE-754 arithmetic on raw bits, generic over the format, all four modes.
//!
//! No subnormal flushing, no saturation, no PTX NaN rules here: a NaN result is some quiet
//! NaN and the interpreter decides which NaN PTX allows. Zeros are signed exactly as IEEE
//! 754-2019 6.3 says (`x + (-x)` is `+0`, but `-0` under `.rm`; `sqrt(-0) = -0`).
//!
//! Two implementations, one contract:
//! - [`exact`]: pure integer arithmetic (u128 significands) into the rounding core; works
//!   for every format and is the reference;
//! - `fast`: the host's round-to-nearest binary64 arithmetic plus exact corrections (no
//!   host rounding-mode switching, no double rounding; the proofs are in `fast`'s comments).
//!
//! The functions below pick the fast path when one is proved for the format and fall back
//! to [`exact`] otherwise; tests check the two against each other and against TestFloat.

pub mod exact;
mod fast;

use crate::format::Format;
use crate::rounding::Rounding;

/// Which implementation serves a format: the f64 host paths, the narrow-through-f64 paths
/// (proved for precision <= 24 and exponent range <= f32's), or the integer one.
enum Path {
    Binary64,
    Narrow,
    Integer,
}

#[inline(always)]
const fn path<F: Format>() -> Path {
    if F::BITS == 64 && F::EXP_BITS == 11 && F::FRAC_BITS == 52 {
        Path::Binary64
    } else if F::PREC <= 24 && F::EXP_BITS <= 8 {
        Path::Narrow
    } else {
        Path::Integer
    }
}

/// `a + b`.
#[inline]
pub fn add<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    match path::<F>() {
        Path::Binary64 => fast::add_f64(a, b, mode),
        Path::Narrow => fast::add_narrow::<F>(a, b, mode),
        Path::Integer => exact::add::<F>(a, b, mode),
    }
}

/// `a - b`, which IEEE defines as `a + (-b)`.
#[inline]
pub fn sub<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    match path::<F>() {
        Path::Binary64 => fast::sub_f64(a, b, mode),
        Path::Narrow => fast::sub_narrow::<F>(a, b, mode),
        Path::Integer => exact::sub::<F>(a, b, mode),
    }
}

/// `a * b`.
#[inline]
pub fn mul<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    match path::<F>() {
        Path::Binary64 => fast::mul_f64(a, b, mode),
        Path::Narrow => fast::mul_narrow::<F>(a, b, mode),
        Path::Integer => exact::mul::<F>(a, b, mode),
    }
}

/// `a * b + c` with a single rounding.
#[inline(always)]
pub fn fma<F: Format>(a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    match path::<F>() {
        Path::Binary64 => fast::fma_f64(a, b, c, mode),
        Path::Narrow => fast::fma_narrow::<F>(a, b, c, mode),
        Path::Integer => exact::fma::<F>(a, b, c, mode),
    }
}

/// `a / b`.
#[inline]
pub fn div<F: Format>(a: u64, b: u64, mode: Rounding) -> u64 {
    match path::<F>() {
        Path::Binary64 => fast::div_f64(a, b, mode),
        Path::Narrow => fast::div_narrow::<F>(a, b, mode),
        Path::Integer => exact::div::<F>(a, b, mode),
    }
}

/// `sqrt(a)`.
#[inline]
pub fn sqrt<F: Format>(a: u64, mode: Rounding) -> u64 {
    match path::<F>() {
        Path::Binary64 => fast::sqrt_f64(a, mode),
        Path::Narrow => fast::sqrt_narrow::<F>(a, mode),
        Path::Integer => exact::sqrt::<F>(a, mode),
    }
}

#[cfg(test)]
mod tests;
