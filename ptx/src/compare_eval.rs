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

/// How a lane's bits are ordered, decided once per form: comparisons then read integer keys
/// (no conversion to `f64` per case; the batch kernels run [`Comparator`] over millions of
/// cases).
#[derive(Clone, Copy, Debug)]
enum Order {
    /// Sign and magnitude: a magnitude above `inf` is a NaN (unordered), one below `flush` reads
    /// as zero (`.ftz`'s "flushes subnormal inputs to sign-preserving zero", and both zeros are
    /// equal: the key of either is 0).
    Float { sign: u64, inf: u64, flush: u64 },
    /// Two's complement of a `bits`-wide value (`.s16/.s32/.s64`).
    Signed { bits: u32 },
    /// `.u16/.u32/.u64` and `.b16/.b32/.b64`: unsigned order of the value's bits.
    Unsigned { mask: u64 },
}

impl Order {
    fn of(c: &Compare, lane: Ty) -> Order {
        match lane {
            Ty::Float(s) => {
                let sign = 1u64 << (s.bits() - 1);
                let inf = s.mask() & !sign & !((1u64 << s.frac_bits()) - 1);
                // The smallest normal magnitude: `.ftz` applies to f32 and f16 only.
                let flush = if c.ftz && matches!(s, Scalar::F32 | Scalar::F16) { 1u64 << s.frac_bits() } else { 0 };
                Order::Float { sign, inf, flush }
            }
            Ty::Int(t) if t.signed => Order::Signed { bits: t.bits },
            t => Order::Unsigned { mask: mask(t.bits()) },
        }
    }

    /// The lane's place in the order as an `i64` key (unsigned values shifted down by 2^63,
    /// which keeps their order), and whether it is a NaN (then the key is meaningless).
    #[inline]
    fn key(self, x: u64) -> (bool, i64) {
        match self {
            Order::Float { sign, inf, flush } => {
                let mag = x & (sign - 1);
                let key = if mag < flush { 0 } else { mag as i64 };
                (mag > inf, if x & sign != 0 { -key } else { key })
            }
            Order::Signed { bits } => (false, ((x << (64 - bits)) as i64) >> (64 - bits)),
            Order::Unsigned { mask } => (false, ((x & mask) ^ 1 << 63) as i64),
        }
    }
}

/// The truth table of `op` over the four outcomes of comparing two lanes, the table above as
/// bits: bit 0 unordered (a NaN), bit 1 less, bit 2 equal, bit 3 greater.
fn truth(op: CmpOp) -> u8 {
    const UNORDERED: u8 = 1;
    const LESS: u8 = 2;
    const EQUAL: u8 = 4;
    const GREATER: u8 = 8;
    match op {
        CmpOp::Eq => EQUAL,
        CmpOp::Ne => LESS | GREATER,
        CmpOp::Lt | CmpOp::Lo => LESS,
        CmpOp::Le | CmpOp::Ls => LESS | EQUAL,
        CmpOp::Gt | CmpOp::Hi => GREATER,
        CmpOp::Ge | CmpOp::Hs => EQUAL | GREATER,
        CmpOp::Equ => UNORDERED | EQUAL,
        CmpOp::Neu => UNORDERED | LESS | GREATER,
        CmpOp::Ltu => UNORDERED | LESS,
        CmpOp::Leu => UNORDERED | LESS | EQUAL,
        CmpOp::Gtu => UNORDERED | GREATER,
        CmpOp::Geu => UNORDERED | EQUAL | GREATER,
        CmpOp::Num => LESS | EQUAL | GREATER,
        CmpOp::Nan => UNORDERED,
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
    Ok(Comparator::new(c).compared(ops))
}

/// A form decoded once, for [`eval`] and for loops over many cases (the interpreter's batch
/// kernel): the lane order, the operator's and the `.BoolOp`'s truth tables, widths and the
/// destination's true value.
#[derive(Clone, Copy, Debug)]
pub struct Comparator {
    c: Compare,
    order: Order,
    /// [`truth`] of the operator (0 for `selp`).
    truth: u8,
    /// The `.BoolOp` with the predicate: bit `2 * t + c` is the combined result.
    combine: u8,
    /// Lanes (1, or 2 for a packed source) and their width.
    lanes: u32,
    width: u32,
    /// The source type's bits in a register.
    src_mask: u64,
    /// What a true lane of `set` writes (false writes 0).
    lane_true: u64,
}

impl Comparator {
    pub fn new(c: &Compare) -> Comparator {
        let (lane_ty, lanes, width) = self::lanes(c.ty);
        let lane_true = match c.kind {
            // A packed source fills one 16-bit lane per comparison: 1.0 of the half format
            // for a packed destination, 0xffff for .u32/.s32.
            Kind::Set { dtype: Ty::Int(_) } if lanes == 2 => 0xffff,
            Kind::Set { dtype } => true_bits(dtype),
            _ => 0,
        };
        let combine = (0..4u8).fold(0, |acc, i| {
            let (t, p) = (i >> 1 == 1, i & 1 == 1);
            acc | (c.bool_op.map_or(t, |o: BoolOp| o.apply(t, p)) as u8) << i
        });
        Comparator {
            c: *c,
            order: Order::of(c, lane_ty),
            truth: c.cmp.map_or(0, truth),
            combine,
            lanes,
            width,
            src_mask: mask(c.ty.bits()),
            lane_true,
        }
    }

    /// `a CmpOp b` on lane `i`.
    #[inline]
    fn lane(&self, a: u64, b: u64, i: u32) -> bool {
        let m = mask(self.width);
        let ((na, ka), (nb, kb)) = (self.order.key(a >> (i * self.width) & m), self.order.key(b >> (i * self.width) & m));
        let outcome = if na || nb { 0 } else { 2 + ka.cmp(&kb) as i32 };
        self.truth >> outcome & 1 == 1
    }

    /// `eval`'s result on `ops` (`a`, `b` and, where the form reads it, the predicate `c`; the
    /// caller gives at least `a` and `b`).
    #[inline]
    pub fn compared(&self, ops: &[u64]) -> Compared {
        let c = &self.c;
        let (a, b) = (ops[0] & self.src_mask, ops[1] & self.src_mask);
        let pred = ops.get(2).is_some_and(|&p| p & 1 == 1) as u8;
        if c.cmp.is_none() {
            return Compared::Register { ty: c.ty, bits: if pred == 1 { a } else { b } };
        }
        let combine = |t: bool| self.combine >> (2 * t as u8 + pred) & 1 == 1;
        let t0 = self.lane(a, b, 0);
        let t1 = self.lanes == 2 && self.lane(a, b, 1);
        match c.kind {
            Kind::Setp if self.lanes == 2 => Compared::Predicates { p: combine(t0), q: Some(combine(t1)) },
            Kind::Setp if c.ty.half().is_some() => Compared::Predicates { p: combine(t0), q: None },
            Kind::Setp => Compared::Predicates { p: combine(t0), q: Some(combine(!t0)) },
            Kind::Set { dtype } => {
                let on = |t: bool, i: u32| if combine(t) { self.lane_true << (i * self.width) } else { 0 };
                let bits = on(t0, 0) | if self.lanes == 2 { on(t1, 1) } else { 0 };
                Compared::Register { ty: dtype, bits }
            }
            Kind::Selp => unreachable!("selp has no comparison"),
        }
    }
}

fn mask(bits: u32) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}
