//! The oracle's PTX rules, written from the spec text (PTX ISA 9.7.3, 9.7.4) independently of
//! `ptx::interp`: .ftz on inputs and results, .sat, .relu, NaN results, min/max, abs, neg,
//! copysign, testp. Each lane gets an [`Allowed`] set: the oracle's primary reading and, where
//! the spec is ambiguous, the other readings it also accepts.

use arrayvec::ArrayVec;
use std::fmt;

use ptx::isa::{AbsMode, Clamp, Ftz, Instr, NanMode, Opcode, TestpOp};
use ptx::{Format, Rounding, Scalar, BF16, F16, F32, F64};

use crate::apf::{ieee, IeeeOp, OracleFormat};

/// One result the oracle allows for a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    Bits(u64),
    /// Any NaN encoding: 9.7.3 "Single-precision instructions return an unspecified NaN".
    AnyNan,
}

/// The results the oracle allows for one lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allowed {
    pub primary: Out,
    pub alts: ArrayVec<Out, 4>,
}

impl Allowed {
    pub fn exact(bits: u64) -> Allowed {
        Allowed { primary: Out::Bits(bits), alts: ArrayVec::new() }
    }
    pub fn any_nan() -> Allowed {
        Allowed { primary: Out::AnyNan, alts: ArrayVec::new() }
    }
    pub fn or(mut self, alt: Out) -> Allowed {
        if alt != self.primary && !self.alts.contains(&alt) {
            self.alts.push(alt);
        }
        self
    }
    fn outs(&self) -> impl Iterator<Item = Out> + '_ {
        std::iter::once(self.primary).chain(self.alts.iter().copied())
    }
    /// Apply a rule to every reading: the primary's primary stays primary.
    fn then(self, f: impl Fn(Out) -> Allowed) -> Allowed {
        let first = f(self.primary);
        let mut acc = Allowed { primary: first.primary, alts: ArrayVec::new() };
        for o in first.alts.iter().copied() {
            acc = acc.or(o);
        }
        for alt in self.alts {
            for o in f(alt).outs() {
                acc = acc.or(o);
            }
        }
        acc
    }
    /// Whether `bits` (one lane) is among the allowed results.
    pub fn contains(&self, scalar: Scalar, bits: u64) -> bool {
        self.outs().any(|o| match o {
            Out::Bits(b) => b == bits,
            Out::AnyNan => scalar.is_nan(bits),
        })
    }
    pub fn allows_any_nan(&self) -> bool {
        self.outs().any(|o| o == Out::AnyNan)
    }
    /// One definite result: no alternative reading and not "any NaN".
    pub fn is_definite(&self) -> bool {
        self.alts.is_empty() && self.primary != Out::AnyNan
    }
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, o) in self.outs().enumerate() {
            if i > 0 {
                write!(f, " | ")?;
            }
            match o {
                Out::Bits(b) => write!(f, "{b:#x}")?,
                Out::AnyNan => write!(f, "nan")?,
            }
        }
        Ok(())
    }
}

/// The oracle's verdict on a whole instruction.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// testp: the predicate.
    Pred(bool),
    /// One allowed set per lane, lane 0 in the low bits.
    Lanes(ArrayVec<Allowed, 2>),
}

/// Evaluate an IEEE-rounded (non-approximate) form on register operands.
pub fn oracle(instr: &Instr, regs: &[u64]) -> Verdict {
    match instr.ty.scalar() {
        Scalar::F16 => oracle_in::<F16>(instr, regs),
        Scalar::BF16 => oracle_in::<BF16>(instr, regs),
        Scalar::F32 => oracle_in::<F32>(instr, regs),
        Scalar::F64 => oracle_in::<F64>(instr, regs),
    }
}

fn oracle_in<F: OracleFormat>(instr: &Instr, regs: &[u64]) -> Verdict {
    if instr.op == Opcode::Testp {
        return Verdict::Pred(testp::<F>(instr.testp.expect("testp form has an op"), regs[0]));
    }
    let mut lanes = ArrayVec::new();
    for l in 0..instr.ty.lanes() {
        let mut ops = [0u64; 3];
        for (o, r) in ops.iter_mut().zip(regs) {
            *o = (r >> (l * F::BITS)) & F::MASK;
        }
        lanes.push(lane::<F>(instr, &ops[..regs.len()]));
    }
    Verdict::Lanes(lanes)
}

/// One lane of a form.
pub fn lane<F: OracleFormat>(instr: &Instr, ops: &[u64]) -> Allowed {
    // 9.7.3: ".ftz ... flushing subnormal inputs and results to sign-preserving zero".
    let ftz = instr.ftz == Ftz::Flush;
    let mut x = [0u64; 3];
    for (d, &s) in x.iter_mut().zip(ops) {
        *d = if ftz { F::flush(s) } else { s };
    }
    let x = &x[..ops.len()];
    let r = match instr.op {
        Opcode::Add => arith::<F>(IeeeOp::Add, instr, x),
        Opcode::Sub => arith::<F>(IeeeOp::Sub, instr, x),
        Opcode::Mul => arith::<F>(IeeeOp::Mul, instr, x),
        // 9.7.3.7: mad.{f32,f64} is the same as fma.
        Opcode::Fma | Opcode::Mad => arith::<F>(IeeeOp::Fma, instr, x),
        Opcode::Div => arith::<F>(IeeeOp::Div, instr, x),
        Opcode::Rcp => arith::<F>(IeeeOp::Rcp, instr, x),
        Opcode::Sqrt => arith::<F>(IeeeOp::Sqrt, instr, x),
        Opcode::Min | Opcode::Max => min_max::<F>(instr, x),
        Opcode::Abs | Opcode::Neg => abs_neg::<F>(instr.op, x[0]),
        Opcode::Copysign => copysign::<F>(x[0], x[1]),
        op => panic!("the oracle does not model {op:?} (approximate)"),
    };
    // Results are flushed too (a no-op for results that are inputs, like min/max).
    if ftz {
        r.then(|o| match o {
            Out::Bits(b) => Allowed::exact(F::flush(b)),
            Out::AnyNan => Allowed::any_nan(),
        })
    } else {
        r
    }
}

/// add, sub, mul, fma/mad, div, rcp, sqrt: IEEE rounding, then the PTX result rules.
/// `x` is already input-flushed.
fn arith<F: OracleFormat>(op: IeeeOp, instr: &Instr, x: &[u64]) -> Allowed {
    // 9.7.3.3: "The default value of rounding modifier is .rn".
    let mode = instr.precision.rounding().expect("an IEEE-rounded form");
    let ftz = instr.ftz == Ftz::Flush;
    let r = if let Some(&nan) = x.iter().find(|&&v| F::is_nan(v)) {
        // 9.7.3: "NaN payloads are supported for double-precision instructions"; the
        // interpreter's reading (first NaN operand, quieted) is the one tested here.
        if F::BITS == 64 {
            Allowed::exact(F::quiet(nan))
        } else {
            Allowed::any_nan()
        }
    } else {
        let v = ieee::<F>(op, x, mode);
        if F::is_nan(v) {
            // Invalid operation (inf - inf, 0 * inf, 0/0, sqrt(-x)): a NaN with no payload to keep.
            Allowed::any_nan()
        } else if ftz && F::abs(v) == F::MIN_NORMAL && F::abs(ieee::<F>(op, x, Rounding::Rz)) < F::MIN_NORMAL {
            // The exact result is below the smallest normal but rounds up to it: flushed
            // after rounding it stays; flushed before rounding it is zero (Reading::FtzBeforeRounding).
            Allowed::exact(v).or(Out::Bits(F::zero(F::sign(v))))
        } else if ftz {
            Allowed::exact(F::flush(v))
        } else {
            Allowed::exact(v)
        }
    };
    match instr.clamp {
        Clamp::None => r,
        Clamp::Sat => r.then(sat::<F>),
        Clamp::Relu => r.then(relu::<F>),
    }
}

fn is_nan_out<F: Format>(o: Out) -> bool {
    match o {
        Out::AnyNan => true,
        Out::Bits(b) => F::is_nan(b),
    }
}

/// 9.7.3.3: ".sat clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0f".
/// A -0 result is inside [0, 1]: +0 (the primary) or kept (Reading::SatKeepsNegativeZero).
fn sat<F: Format>(o: Out) -> Allowed {
    let Out::Bits(v) = o else { return Allowed::exact(0) };
    if F::is_nan(v) {
        Allowed::exact(0)
    } else if v == F::SIGN_MASK {
        Allowed::exact(0).or(Out::Bits(v))
    } else if F::sign(v) {
        Allowed::exact(0)
    } else if v > F::ONE {
        Allowed::exact(F::ONE)
    } else {
        Allowed::exact(v)
    }
}

/// 9.7.4 fma .relu: "d = max(a*b+c, 0)", a NaN result becomes the canonical NaN.
/// max(-0, +0) is +0 by 9.7.3.12's ordering; "clamps to 0 if negative" would keep -0: both allowed.
fn relu<F: Format>(o: Out) -> Allowed {
    if is_nan_out::<F>(o) {
        return Allowed::exact(F::CANONICAL_NAN);
    }
    let Out::Bits(v) = o else { unreachable!() };
    if v == F::SIGN_MASK {
        Allowed::exact(0).or(Out::Bits(v))
    } else if F::sign(v) {
        Allowed::exact(0)
    } else {
        Allowed::exact(v)
    }
}

/// 9.7.3.11/12 (min/max), their pseudocode step by step; `x` is already input-flushed.
fn min_max<F: Format>(instr: &Instr, x: &[u64]) -> Allowed {
    let is_min = instr.op == Opcode::Min;
    let nan_mode = instr.nan;
    // "xorsign considers the sign bit of both inputs before applying .abs".
    let xorsign = F::sign(x[0]) != F::sign(x[1]);
    let abs = instr.abs != AbsMode::None;
    let v = |b: u64| -> Option<u64> {
        if F::is_nan(b) {
            None
        } else if abs {
            Some(F::abs(b))
        } else {
            Some(b)
        }
    };
    // None is "NaN". min_nan/max_nan: any NaN wins; min_num/max_num: a NaN loses to a number.
    let two = |p: Option<u64>, q: Option<u64>| -> Option<u64> {
        match (p, q) {
            (Some(p), Some(q)) => {
                // "-0.0 < +0.0 here".
                let p_first = if is_min { F::order_key(p) < F::order_key(q) } else { F::order_key(p) > F::order_key(q) };
                Some(if p_first { p } else { q })
            }
            _ if nan_mode == NanMode::Propagate => None,
            (None, None) => None,
            (Some(p), None) => Some(p),
            (None, Some(q)) => Some(q),
        }
    };
    let mut d = two(v(x[0]), v(x[1]));
    if x.len() == 3 {
        d = two(d, v(x[2]));
    }
    match d {
        // ".NaN: the result is canonical NaN if any of the inputs is NaN"; min_num of two
        // NaNs is an unspecified NaN.
        None if nan_mode == NanMode::Propagate => Allowed::exact(F::CANONICAL_NAN),
        None => Allowed::any_nan(),
        Some(m) if instr.abs == AbsMode::XorsignAbs => {
            Allowed::exact(F::abs(m) | if xorsign { F::SIGN_MASK } else { 0 })
        }
        Some(m) => Allowed::exact(m),
    }
}

/// 9.7.3.9/10: abs clears, neg flips the sign. "For abs.f32, NaN input yields unspecified
/// NaN. For abs.f64, NaN input is passed through unchanged" (or, Reading::SignBitOnly, with
/// its sign cleared); neg: "NaN inputs yield an unspecified NaN".
fn abs_neg<F: Format>(op: Opcode, a: u64) -> Allowed {
    if F::is_nan(a) {
        return if op == Opcode::Abs && F::BITS == 64 {
            Allowed::exact(a).or(Out::Bits(F::abs(a)))
        } else {
            Allowed::any_nan()
        };
    }
    Allowed::exact(if op == Opcode::Abs { F::abs(a) } else { a ^ F::SIGN_MASK })
}

/// 9.7.3.2: "Copy sign bit of a into value of b". f32 NaNs are unspecified (9.7.3); an f64
/// signalling NaN may come back quiet.
fn copysign<F: Format>(a: u64, b: u64) -> Allowed {
    if F::is_nan(b) && F::BITS != 64 {
        return Allowed::any_nan();
    }
    let r = F::abs(b) | (a & F::SIGN_MASK);
    if F::is_signalling_nan(r) {
        Allowed::exact(r).or(Out::Bits(F::quiet(r)))
    } else {
        Allowed::exact(r)
    }
}

/// 9.7.3.1; "positive and negative zero are considered normal numbers".
pub fn testp<F: Format>(op: TestpOp, a: u64) -> bool {
    let (nan, inf, sub) = (F::is_nan(a), F::is_inf(a), F::is_subnormal(a));
    match op {
        TestpOp::Finite => !nan && !inf,
        TestpOp::Infinite => inf,
        TestpOp::Number => !nan,
        TestpOp::NotANumber => nan,
        TestpOp::Normal => !nan && !inf && !sub,
        TestpOp::Subnormal => sub,
    }
}

// Run by the oracle binary only (see `self_tests!` in oracle.rs).
self_tests! {
#[cfg(test)]
mod tests {
    use super::*;
    use ptx::isa::{Precision, Type};

    fn form(op: Opcode, ty: Type, f: impl FnOnce(&mut Instr)) -> Instr {
        let mut i = Instr::new(op, ty);
        f(&mut i);
        i
    }

    fn one(instr: &Instr, ops: &[u64]) -> Allowed {
        match oracle(instr, ops) {
            Verdict::Lanes(l) => l[0].clone(),
            Verdict::Pred(_) => panic!(),
        }
    }

    #[test]
    fn sat_clamps_and_flushes_nan_to_positive_zero() {
        let add = form(Opcode::Add, Type::F32, |i| i.clamp = Clamp::Sat);
        assert_eq!(one(&add, &[0x3f80_0000, 0x3f80_0000]), Allowed::exact(0x3f80_0000)); // 2 -> 1
        assert_eq!(one(&add, &[0xbf80_0000, 0]), Allowed::exact(0)); // -1 -> +0
        assert_eq!(one(&add, &[0x7f80_0000, 0xff80_0000]), Allowed::exact(0)); // NaN -> +0
        assert_eq!(one(&add, &[0x3f00_0000, 0]), Allowed::exact(0x3f00_0000));
        let m0 = one(&add, &[0x8000_0000, 0x8000_0000]); // -0 + -0 = -0
        assert_eq!(m0.primary, Out::Bits(0));
        assert!(m0.contains(Scalar::F32, 0x8000_0000));
    }

    #[test]
    fn ftz_flushes_inputs_and_results_keeping_sign() {
        let mul = form(Opcode::Mul, Type::F32, |i| i.ftz = Ftz::Flush);
        // subnormal * 2^100: the input is flushed first, so -0 * 2^100 = -0.
        assert_eq!(one(&mul, &[0x8000_0001, 0x7180_0000]), Allowed::exact(0x8000_0000));
        // 2^-100 * -2^-30 = -2^-130: a subnormal result, flushed to -0.
        assert_eq!(one(&mul, &[0x0d80_0000, 0xb080_0000]), Allowed::exact(0x8000_0000));
        // (2 - 2^-23) * 2^-63 * 2^-64 is exactly halfway below 2^-126 and rounds up to it:
        // flushing before rounding would give +0.
        let r = one(&mul, &[0x207f_ffff, 0x1f80_0000]);
        assert_eq!(r.primary, Out::Bits(0x0080_0000));
        assert!(r.contains(Scalar::F32, 0));
        let plain = form(Opcode::Mul, Type::F32, |_| {});
        assert_eq!(one(&plain, &[0x207f_ffff, 0x1f80_0000]), Allowed::exact(0x0080_0000));
        // In .rz it stays below: a subnormal, flushed, no ambiguity.
        let rz = form(Opcode::Mul, Type::F32, |i| {
            i.ftz = Ftz::Flush;
            i.precision = ptx::isa::Precision::Rounded(Rounding::Rz);
        });
        assert_eq!(one(&rz, &[0x207f_ffff, 0x1f80_0000]), Allowed::exact(0));
    }

    #[test]
    fn f64_nan_operand_comes_back_quieted_and_f32_nan_is_any() {
        let add = form(Opcode::Add, Type::F64, |i| i.precision = Precision::Rounded(Rounding::Rz));
        let snan = 0x7ff0_0000_0000_0123;
        assert_eq!(one(&add, &[0x3ff0_0000_0000_0000, snan]), Allowed::exact(0x7ff8_0000_0000_0123));
        assert_eq!(one(&add, &[0xfff8_0000_0000_0042, snan]), Allowed::exact(0xfff8_0000_0000_0042));
        let add32 = form(Opcode::Add, Type::F32, |_| {});
        assert_eq!(one(&add32, &[0x7f80_0001, 0]), Allowed::any_nan());
    }

    #[test]
    fn min_max_follow_the_pseudocode() {
        let min = form(Opcode::Min, Type::F32, |_| {});
        let max = form(Opcode::Max, Type::F32, |_| {});
        assert_eq!(one(&min, &[0, 0x8000_0000]), Allowed::exact(0x8000_0000));
        assert_eq!(one(&max, &[0x8000_0000, 0]), Allowed::exact(0));
        assert_eq!(one(&min, &[0x7fc0_0000, 0x3f80_0000]), Allowed::exact(0x3f80_0000));
        assert_eq!(one(&min, &[0x7fc0_0000, 0x7f80_0001]), Allowed::any_nan());
        let min_nan = form(Opcode::Min, Type::F32, |i| i.nan = NanMode::Propagate);
        assert_eq!(one(&min_nan, &[0x7f80_0001, 0x3f80_0000]), Allowed::exact(0x7fff_ffff));
        // xorsign.abs: |-2| vs |3| -> 2, sign (-)^(+) = -.
        let xs = form(Opcode::Min, Type::F32, |i| i.abs = AbsMode::XorsignAbs);
        assert_eq!(one(&xs, &[0xc000_0000, 0x4040_0000]), Allowed::exact(0xc000_0000));
        assert_eq!(one(&xs, &[0xc000_0000, 0xc040_0000]), Allowed::exact(0x4000_0000));
        // max.abs with three inputs: max(|-5|, |1|, |NaN|) = 5.
        let max3 = form(Opcode::Max, Type::F32, |i| {
            i.abs = AbsMode::Abs;
            i.inputs = 3;
        });
        assert_eq!(one(&max3, &[0xc0a0_0000, 0x3f80_0000, 0xffc0_0000]), Allowed::exact(0x40a0_0000));
        // Packed: lane-wise, bf16x2.
        let minp = form(Opcode::Min, Type::Bf16x2, |_| {});
        match oracle(&minp, &[0x3f80_4000, 0x4000_3f80]) {
            Verdict::Lanes(l) => {
                assert_eq!(l[0], Allowed::exact(0x3f80));
                assert_eq!(l[1], Allowed::exact(0x3f80));
            }
            _ => panic!(),
        }
    }

    #[test]
    fn abs_neg_copysign_testp() {
        let abs64 = form(Opcode::Abs, Type::F64, |_| {});
        let nan = 0xfff0_0000_0000_0001;
        assert_eq!(one(&abs64, &[nan]).primary, Out::Bits(nan));
        let neg = form(Opcode::Neg, Type::F16, |i| i.ftz = Ftz::Flush);
        assert_eq!(one(&neg, &[0x0001]), Allowed::exact(0x8000)); // flushed +0, negated
        assert_eq!(one(&neg, &[0x3c00]), Allowed::exact(0xbc00));
        let cs = form(Opcode::Copysign, Type::F32, |_| {});
        assert_eq!(one(&cs, &[0x8000_0000, 0x3f80_0000]), Allowed::exact(0xbf80_0000));
        assert!(testp::<F32>(TestpOp::Normal, 0x8000_0000));
        assert!(!testp::<F32>(TestpOp::Normal, 0x0000_0001));
        assert!(testp::<F32>(TestpOp::Subnormal, 0x8000_0001));
        assert!(!testp::<F32>(TestpOp::Finite, 0x7f80_0000));
        assert!(testp::<F64>(TestpOp::NotANumber, 0xfff0_0000_0000_0001));
    }

    #[test]
    fn relu_clamps_negatives_and_canonicalises_nan() {
        let fma = form(Opcode::Fma, Type::Bf16, |i| {
            i.precision = Precision::Rounded(Rounding::Rn);
            i.clamp = Clamp::Relu;
        });
        assert_eq!(one(&fma, &[0xbf80, 0x3f80, 0]), Allowed::exact(0)); // -1 -> +0
        assert_eq!(one(&fma, &[0x7f80, 0, 0]), Allowed::exact(0x7fff)); // 0 * inf -> canonical NaN
        assert_eq!(one(&fma, &[0x3f80, 0x3f80, 0x3f80]), Allowed::exact(0x4000));
    }
}
}
