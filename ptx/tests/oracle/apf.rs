//! The oracle's IEEE arithmetic: `rustc_apfloat` (LLVM's APFloat) for add/sub/mul/fma/div/rcp,
//! the exact big-integer square root of `exact.rs` for sqrt. Plain IEEE 754, no PTX rules:
//! a NaN result is some NaN, compared by NaN-ness only (apfloat's NaN signs and payloads are
//! its own).

use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, Round};

use ptx::{Format, Rounding, BF16, F16, F32, F64};

use crate::exact;

/// A format the oracle computes in: the ptx layout plus the matching apfloat type.
pub trait OracleFormat: Format {
    type A: Float;
}
impl OracleFormat for F16 {
    type A = Half;
}
impl OracleFormat for BF16 {
    type A = BFloat;
}
impl OracleFormat for F32 {
    type A = Single;
}
impl OracleFormat for F64 {
    type A = Double;
}

/// An IEEE operation of the oracle (sub is a - b, rcp is 1 / a).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IeeeOp {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Rcp,
    Sqrt,
}

fn round(mode: Rounding) -> Round {
    match mode {
        Rounding::Rn => Round::NearestTiesToEven,
        Rounding::Rz => Round::TowardZero,
        Rounding::Rm => Round::TowardNegative,
        Rounding::Rp => Round::TowardPositive,
    }
}

fn from<F: OracleFormat>(bits: u64) -> F::A {
    F::A::from_bits(bits as u128)
}

/// The correctly rounded IEEE result of `op` on finite-or-special operands (`ops[0..arity]`).
pub fn ieee<F: OracleFormat>(op: IeeeOp, ops: &[u64], mode: Rounding) -> u64 {
    let r = round(mode);
    let v = match op {
        IeeeOp::Add => from::<F>(ops[0]).add_r(from::<F>(ops[1]), r).value,
        IeeeOp::Sub => from::<F>(ops[0]).sub_r(from::<F>(ops[1]), r).value,
        IeeeOp::Mul => from::<F>(ops[0]).mul_r(from::<F>(ops[1]), r).value,
        IeeeOp::Fma => from::<F>(ops[0]).mul_add_r(from::<F>(ops[1]), from::<F>(ops[2]), r).value,
        IeeeOp::Div => from::<F>(ops[0]).div_r(from::<F>(ops[1]), r).value,
        IeeeOp::Rcp => from::<F>(F::ONE).div_r(from::<F>(ops[0]), r).value,
        // apfloat has no square root: the exact integer one.
        IeeeOp::Sqrt => return exact::sqrt::<F>(ops[0], mode),
    };
    v.to_bits() as u64 & F::MASK
}

/// The same operation through the big-integer implementation (the cross-check).
pub fn ieee_exact<F: OracleFormat>(op: IeeeOp, ops: &[u64], mode: Rounding) -> u64 {
    match op {
        IeeeOp::Add => exact::add::<F>(ops[0], ops[1], mode),
        IeeeOp::Sub => exact::sub::<F>(ops[0], ops[1], mode),
        IeeeOp::Mul => exact::mul::<F>(ops[0], ops[1], mode),
        IeeeOp::Fma => exact::fma::<F>(ops[0], ops[1], ops[2], mode),
        IeeeOp::Div => exact::div::<F>(ops[0], ops[1], mode),
        IeeeOp::Rcp => exact::div::<F>(F::ONE, ops[0], mode),
        IeeeOp::Sqrt => exact::sqrt::<F>(ops[0], mode),
    }
}

// Run by the oracle binary only (see `self_tests!` in oracle.rs).
self_tests! {
#[cfg(test)]
mod tests {
    use super::*;
    use crate::operands::{Rng, Shape};

    fn same<F: Format>(x: u64, y: u64) -> bool {
        x == y || (F::is_nan(x) && F::is_nan(y))
    }

    /// Two independent implementations (LLVM's APFloat, our big integers) agree bit for bit
    /// on special-biased operands, every op and mode. This is what lets bf16, which TestFloat
    /// does not cover, trust apfloat's `BFloat`.
    fn cross_check<F: OracleFormat>(cases: usize, seed: u64) {
        let mut rng = Rng::new(seed);
        let ops = [IeeeOp::Add, IeeeOp::Sub, IeeeOp::Mul, IeeeOp::Fma, IeeeOp::Div, IeeeOp::Rcp];
        let mut bad = Vec::new();
        for i in 0..cases {
            let op = ops[i % ops.len()];
            let mode = Rounding::ALL[(i / ops.len()) % 4];
            let shape = match op {
                IeeeOp::Add | IeeeOp::Sub => Shape::Sum,
                IeeeOp::Mul => Shape::Product,
                IeeeOp::Fma => Shape::MulAdd,
                IeeeOp::Div => Shape::Quotient,
                IeeeOp::Rcp => Shape::Reciprocal,
                IeeeOp::Sqrt => Shape::Root,
            };
            let mut v = [0u64; 3];
            rng.operands::<F>(shape, &mut v);
            let (x, y) = (ieee::<F>(op, &v, mode), ieee_exact::<F>(op, &v, mode));
            if !same::<F>(x, y) && bad.len() < 10 {
                bad.push(format!("{op:?}.{} {} {v:x?}: apfloat {x:x}, exact {y:x}", mode.name(), F::NAME));
            }
        }
        assert!(bad.is_empty(), "apfloat and the big-integer oracle disagree (seed {seed:#x}):\n{}", bad.join("\n"));
    }

    #[test]
    fn apfloat_agrees_with_big_integers_bf16() {
        cross_check::<BF16>(300_000, 0xbf16);
    }
    #[test]
    fn apfloat_agrees_with_big_integers_f16() {
        cross_check::<F16>(200_000, 0xf16);
    }
    #[test]
    fn apfloat_agrees_with_big_integers_f32() {
        cross_check::<F32>(200_000, 0xf32);
    }
    #[test]
    fn apfloat_agrees_with_big_integers_f64() {
        cross_check::<F64>(200_000, 0xf64);
    }

    #[test]
    fn hand_computed_results() {
        let rn = Rounding::Rn;
        assert_eq!(ieee::<F16>(IeeeOp::Add, &[0x3c00, 0x3c00], rn), 0x4000);
        assert_eq!(ieee::<BF16>(IeeeOp::Mul, &[0x4040, 0x4040], rn), 0x4110); // 3 * 3 = 9
        assert_eq!(ieee::<F32>(IeeeOp::Rcp, &[0x4000_0000], rn), 0x3f00_0000);
        assert_eq!(ieee::<F32>(IeeeOp::Rcp, &[0x8000_0000], rn), 0xff80_0000); // 1/-0 = -inf
        assert_eq!(ieee::<F64>(IeeeOp::Sub, &[0x3ff0_0000_0000_0000, 0x3ff0_0000_0000_0000], Rounding::Rm), 1 << 63);
        assert_eq!(ieee::<F32>(IeeeOp::Div, &[0x3f80_0000, 0x4040_0000], Rounding::Rz), 0x3eaa_aaaa);
        assert_eq!(ieee::<F32>(IeeeOp::Div, &[0x3f80_0000, 0x4040_0000], Rounding::Rp), 0x3eaa_aaab);
        assert!(F32::is_nan(ieee::<F32>(IeeeOp::Fma, &[0, 0x7f80_0000, 0x3f80_0000], rn)));
    }
}
}
