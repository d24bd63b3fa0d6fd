//! The result of a `setp`, `set` or `selp` form (PTX ISA 9.7.6.1-3, 9.7.7.1-2): the
//! comparison `t = (a CmpOp b)` lane by lane, its combination with the predicate `c`, and the
//! destination's encoding of true and false. The Floating Point Notes as a table:
//!
//! | operator | either operand NaN | both numbers | source |
//! |---|---|---|---|
//! | `eq ne lt le gt ge` | false (`ne` too) | the IEEE comparison (-0 equals +0) | "If either operand is NaN, the result is False." |
//! | `equ neu ltu leu gtu geu` | true | as the ordered one | "If either operand is NaN, then the result of these comparisons is True." |
//! | `num` | false | true | "num returns True if both operands are numeric values (not NaN)" |
//! | `nan` | true | false | "nan returns True if either operand is NaN" |
//!
//! `.ftz` flushes subnormal inputs to sign-preserving zero first ("setp.ftz.dtype.f32 flushes
//! subnormal inputs", "setp.ftz.{f16,f16x2} flushes subnormal inputs"), so a subnormal then
//! equals zero.

use super::{BoolOp, CmpOp, Compare, CompareError, Kind, Ty};
use crate::format::{Format, Scalar, BF16, F16, F32};

/// What a form gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compared {
    /// `setp`: `p` and `q` (for a packed source, the low and the high lane; the scalar
    /// half-precision forms have no `q`: their syntax is `setp.CmpOp{.ftz}.f16 p, a, b`).
    Predicates { p: bool, q: Option<bool> },
    /// `set` or `selp`: the destination register's bits.
    Register { ty: Ty, bits: u64 },
}

/// The lanes of `ty`: (lane type, count, lane width).
fn lanes(ty: Ty) -> (Ty, u32, u32) {
    match ty {
        Ty::Packed(s) => (Ty::Float(s), 2, 16),
        t => (t, 1, t.bits()),
    }
}

fn flushes(c: &Compare, s: Scalar) -> bool {
    c.ftz && matches!(s, Scalar::F32 | Scalar::F16)
}

/// `a CmpOp b` on one lane of type `ty`.
fn test(c: &Compare, op: CmpOp, ty: Ty, a: u64, b: u64) -> bool {
    use std::cmp::Ordering::*;
    let ord = match ty {
        Ty::Float(s) => {
            let (na, nb) = (s.is_nan(a), s.is_nan(b));
            if na || nb {
                return matches!(op, CmpOp::Equ | CmpOp::Neu | CmpOp::Ltu | CmpOp::Leu | CmpOp::Gtu | CmpOp::Geu | CmpOp::Nan);
            }
            let value = |x: u64| {
                let v = s.to_f64(x);
                if flushes(c, s) && v != 0.0 && v.abs() < s.to_f64(min_normal(s)) {
                    0.0
                } else {
                    v
                }
            };
            value(a).partial_cmp(&value(b)).expect("not NaN")
        }
        Ty::Int(t) => t.value(a).cmp(&t.value(b)),
        Ty::Bits(_) | Ty::Packed(_) => a.cmp(&b),
    };
    match op {
        CmpOp::Eq | CmpOp::Equ => ord == Equal,
        CmpOp::Ne | CmpOp::Neu => ord != Equal,
        CmpOp::Lt | CmpOp::Lo | CmpOp::Ltu => ord == Less,
        CmpOp::Le | CmpOp::Ls | CmpOp::Leu => ord != Greater,
        CmpOp::Gt | CmpOp::Hi | CmpOp::Gtu => ord == Greater,
        CmpOp::Ge | CmpOp::Hs | CmpOp::Geu => ord != Less,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}

fn min_normal(s: Scalar) -> u64 {
    match s {
        Scalar::F16 => F16::MIN_NORMAL,
        Scalar::BF16 => BF16::MIN_NORMAL,
        Scalar::F32 => F32::MIN_NORMAL,
        Scalar::F64 => crate::format::F64::MIN_NORMAL,
    }
}

/// The bits a `set` destination lane of type `d` holds for true (false is 0 in every type).
pub fn true_bits(d: Ty) -> u64 {
    match d {
        Ty::Float(Scalar::F32) => F32::ONE,
        Ty::Float(Scalar::F16) | Ty::Packed(Scalar::F16) => F16::ONE,
        Ty::Float(Scalar::BF16) | Ty::Packed(Scalar::BF16) => BF16::ONE,
        // 0xffff for .u16/.s16 (and each lane of a packed source), 0xffffffff for .u32/.s32.
        t => (1u64 << t.bits()) - 1,
    }
}

/// The result of `c` on `ops`: `a`, `b` (bits of the source type) and, with a Boolean operator
/// or for `selp`, the predicate `c` (0 or 1, after any `!`).
pub fn eval(c: &Compare, ops: &[u64]) -> Result<Compared, CompareError> {
    if ops.len() != c.inputs() {
        return Err(CompareError::Operands { form: c.to_string(), want: c.inputs(), got: ops.len() });
    }
    let mask = |bits: u32| if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (a, b) = (ops[0] & mask(c.ty.bits()), ops[1] & mask(c.ty.bits()));
    let pred = ops.get(2).is_some_and(|&p| p & 1 == 1);
    let Some(op) = c.cmp else {
        return Ok(Compared::Register { ty: c.ty, bits: if pred { a } else { b } });
    };
    let combine = |t: bool| c.bool_op.map_or(t, |o: BoolOp| o.apply(t, pred));
    let (lane_ty, n, w) = lanes(c.ty);
    // At most two lanes: an array, not a Vec (this runs once per case in campaigns).
    let mut t = [false; 2];
    for (i, ti) in t.iter_mut().enumerate().take(n as usize) {
        *ti = test(c, op, lane_ty, a >> (i as u32 * w) & mask(w), b >> (i as u32 * w) & mask(w));
    }
    let t = &t[..n as usize];
    Ok(match c.kind {
        Kind::Setp if n == 2 => Compared::Predicates { p: combine(t[0]), q: Some(combine(t[1])) },
        Kind::Setp if c.ty.half().is_some() => Compared::Predicates { p: combine(t[0]), q: None },
        Kind::Setp => Compared::Predicates { p: combine(t[0]), q: Some(combine(!t[0])) },
        Kind::Set { dtype } => {
            // A packed source fills one 16-bit lane per comparison: 1.0 of the half format
            // for a packed destination, 0xffff for .u32/.s32.
            let lane_true = if n == 2 && matches!(dtype, Ty::Int(_)) { 0xffff } else { true_bits(dtype) };
            let bits = t.iter().enumerate().fold(0u64, |acc, (i, &ti)| acc | if combine(ti) { lane_true << (i as u32 * w) } else { 0 });
            Compared::Register { ty: dtype, bits }
        }
        Kind::Selp => unreachable!("selp has no comparison"),
    })
}
