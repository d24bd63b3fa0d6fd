//! `Model`: one alternative semantics of an instruction, computed by the interpreter itself,
//! and whether it reproduces a hardware result. The catalogue (`super::catalogue`) names them.

use crate::expect::{Expectation, LaneExpectation};
use crate::format::{FpClass, Scalar};
use crate::interp::eval;
use crate::isa::{Clamp, Instr, Opcode, Precision, Type};

/// An alternative semantics of one instruction. Each is the reference interpreter run on a
/// changed form, changed operands, or with its result changed, never a table of answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Model {
    /// The interpreter on another form (another type read over the same bits, a modifier
    /// dropped or replaced, another rounding mode), on the same operand bits.
    Form(Instr),
    /// The result is operand `i`, unchanged (the instruction folded away).
    Operand(usize),
    /// The result is a NaN operand with its quiet bit set, sign and payload kept.
    QuietedNanOperand,
    /// The result is the canonical NaN of the format.
    CanonicalNan,
    /// Subnormal operand lanes flushed to signed zero, then the form as written.
    InputsFlushed,
    /// The form as written, then subnormal result lanes flushed to signed zero.
    ResultFlushed,
    /// A `.ftz` form's flushing applied to its operands only: subnormal operand lanes
    /// flushed, then the form without `.ftz` (subnormal results kept).
    FtzInputsOnly,
    /// A `.ftz` form's flushing applied to its result only: the form without `.ftz` on the
    /// operands as given, then subnormal result lanes flushed.
    FtzResultOnly,
    /// fma/mad as a mul then an add, each rounded in the form's mode.
    Unfused,
    /// Each lane read as `read` (over the same bits), widened exactly to f32, the operation
    /// computed as `OP.rounding.f32` (no clamp, no `.ftz`), the f32 result rounded to `read`
    /// to nearest: what ptxas 13.5 emits for `fma.{rz,rm,rp}{.relu}.bf16` on sm_90
    /// (`HADD2.F32` per operand, `FFMA.RZ`/`.RM`/`.RP`, `F2FP.F16.F32.PACK_AB`; docs/triage.md).
    ViaF32 { read: Scalar, rounding: crate::Rounding },
    /// A packed result with its two lanes swapped.
    LanesSwapped,
    /// A packed result with lane `i`'s result in both lanes.
    LaneBroadcast(usize),
    /// The instruction as written, by the spec: a result the interpreter's set allows. Only
    /// evidence where a hardware profile judged the result ([`super::explain_judged`]): the
    /// target took another of the spec's readings than the GPU.
    SpecAllowed,
    /// An approximate result within `ulps` of the correctly rounded reference, in every lane
    /// the documented bound rejects.
    WithinUlps(u64),
    /// `selp` giving the operand its predicate did not select: `c ? b : a`.
    SelectionInverted,
    /// `cvt.rna{.satfinite}.tf32.f32` as ptxas 13.5 compiles it for sm_80/sm_90 ([`tf32_via_integer`]).
    Tf32ViaInteger,
}

/// `cvt.rna{.satfinite}.tf32.f32` of `x` as ptxas 13.5 compiles it ([`crate::cvt::tf32::Tf32Cvt::via_integer`]),
/// or `None` for another form.
pub(crate) fn tf32_via_integer(instr: &Instr, x: u64) -> Option<u64> {
    instr.as_tf32()?.via_integer(x as u32).map(u64::from)
}

/// The quiet bit of a NaN in `s` (the top fraction bit).
pub(crate) fn quiet_bit(s: Scalar) -> u64 {
    let fraction = match s {
        Scalar::F16 => 10,
        Scalar::BF16 => 7,
        Scalar::F32 => 23,
        Scalar::F64 => 52,
    };
    1u64 << (fraction - 1)
}

pub(crate) fn lane(ty: Type, bits: u64, i: usize) -> u64 {
    let s = ty.scalar();
    (bits >> (i as u32 * s.bits())) & s.mask()
}

pub(crate) fn pack(ty: Type, lanes: &[u64]) -> u64 {
    let w = ty.scalar().bits();
    lanes.iter().enumerate().fold(0, |acc, (i, &v)| acc | (v << (i as u32 * w)))
}

fn map_lanes(ty: Type, bits: u64, f: impl Fn(u64) -> u64) -> u64 {
    let lanes: Vec<u64> = (0..ty.lanes() as usize).map(|i| f(lane(ty, bits, i))).collect();
    pack(ty, &lanes)
}

/// A subnormal flushed to the zero of its sign; every other value unchanged.
fn flush(s: Scalar, v: u64) -> u64 {
    if s.classify(v) == FpClass::Subnormal {
        v & (1u64 << (s.bits() - 1))
    } else {
        v
    }
}

/// The operands with every subnormal float lane flushed, each read in its own source type (a
/// mixed-precision form's half `a` as its `.atype`, its `c` as f32); predicates, integers and
/// fp8 pairs unchanged.
fn flushed_operands(instr: &Instr, operands: &[u64]) -> Vec<u64> {
    let float = |k: usize| !instr.reads_predicate(k) && instr.int_source_at(k).is_none() && instr.narrow_source().is_none();
    operands
        .iter()
        .enumerate()
        .map(|(k, &o)| match float(k) {
            true => {
                let t = instr.src_type_at(k);
                map_lanes(t, o, |v| flush(t.scalar(), v))
            }
            false => o,
        })
        .collect()
}

/// One lane of an expectation as an expectation of its own, to ask it about one lane.
pub(crate) fn lane_expectation(e: &Expectation, i: usize) -> Expectation {
    // The same kind of lane (float, integer, fp8 element), only lane `i`.
    let lane: LaneExpectation = e.lanes[i].clone();
    Expectation { lanes: std::iter::once(lane).collect(), ..e.clone() }
}

impl Model {
    /// Whether this semantics gives `got` for `operands` (an allowed result of the changed
    /// computation, readings of the spec's open questions included).
    pub fn reproduces(&self, instr: &Instr, operands: &[u64], got: u64) -> bool {
        let ty = instr.ty;
        let s = ty.scalar();
        let reference = || eval(instr, operands).ok();
        match self {
            Model::Form(form) => eval(form, operands).is_ok_and(|e| e.accepts(got)),
            Model::SpecAllowed => reference().is_some_and(|e| e.accepts(got)),
            Model::Operand(i) => operands.get(*i) == Some(&got),
            Model::Tf32ViaInteger => operands.len() == 1 && tf32_via_integer(instr, operands[0]) == Some(got),
            Model::SelectionInverted => {
                instr.op == Opcode::Selp && operands.len() == 3 && operands[usize::from(operands[2] & 1 == 1)] == got
            }
            Model::QuietedNanOperand => {
                let nan = (0..ty.lanes() as usize).all(|l| s.is_nan(lane(ty, got, l)));
                nan && operands.iter().any(|&o| map_lanes(ty, o, |v| if s.is_nan(v) { v | quiet_bit(s) } else { v }) == got)
            }
            Model::CanonicalNan => (0..ty.lanes() as usize).all(|l| lane(ty, got, l) == s.mask() >> 1),
            Model::InputsFlushed => eval(instr, &flushed_operands(instr, operands)).is_ok_and(|e| e.accepts(got)),
            Model::ResultFlushed => reference()
                .is_some_and(|e| map_lanes(ty, e.primary_bits(), |v| flush(s, v)) == got),
            Model::FtzInputsOnly | Model::FtzResultOnly => {
                let mut kept = *instr;
                kept.ftz = crate::isa::Ftz::Preserve;
                if *self == Model::FtzInputsOnly {
                    eval(&kept, &flushed_operands(instr, operands)).is_ok_and(|e| e.accepts(got))
                } else {
                    eval(&kept, operands).is_ok_and(|e| map_lanes(ty, e.primary_bits(), |v| flush(s, v)) == got)
                }
            }
            Model::Unfused => unfused(instr, operands).is_some_and(|e| e.accepts(got)),
            Model::ViaF32 { read, rounding } => via_f32(instr, *read, *rounding, operands) == Some(got),
            // A packed setp's lanes are its one-bit predicates p (bit 0) and q (bit 1).
            Model::LanesSwapped if instr.writes_predicate_pair() => {
                got < 4 && reference().is_some_and(|e| e.accepts((got & 1) << 1 | got >> 1))
            }
            Model::LanesSwapped => ty.lanes() == 2
                && reference().is_some_and(|e| e.accepts(pack(ty, &[lane(ty, got, 1), lane(ty, got, 0)]))),
            Model::LaneBroadcast(i) if instr.writes_predicate_pair() => {
                (got == 0 || got == 3) && reference().is_some_and(|e| lane_expectation(&e, *i).accepts(got & 1))
            }
            Model::LaneBroadcast(i) => ty.lanes() == 2
                && lane(ty, got, 0) == lane(ty, got, 1)
                && reference().is_some_and(|e| lane_expectation(&e, *i).accepts(lane(ty, got, 0))),
            Model::WithinUlps(max) => reference().is_some_and(|e| {
                (0..ty.lanes() as usize).all(|l| {
                    let v = lane(ty, got, l);
                    lane_expectation(&e, l).accepts(v)
                        || lane_excess(&e, l, v).is_some_and(|x| x <= *max)
                })
            }),
        }
    }
}

/// How many ulps lane `l`'s result `v` lies from the nearest result the expectation allows
/// (its range ends or its exact bits); `None` when `v` or every allowed result is NaN.
pub(crate) fn lane_excess(e: &Expectation, l: usize, v: u64) -> Option<u64> {
    use crate::expect::Outcome;
    let s = e.scalar?;
    let lane = &e.lanes[l];
    let outcomes = std::iter::once(lane.primary).chain(lane.alternatives.iter().map(|(o, _)| *o));
    outcomes
        .filter_map(|o| match o {
            Outcome::Bits(b) => s.ulps_between(b, v),
            Outcome::Range { lo, hi, .. } => {
                Some(s.ulps_between(lo, v)?.min(s.ulps_between(hi, v)?))
            }
            _ => None,
        })
        .min()
}

/// fma/mad computed as `mul` then `add`, each rounded in the form's mode (clamp and `.ftz`
/// applied by the add, as the fused form applies them to its one result).
fn unfused(instr: &Instr, operands: &[u64]) -> Option<Expectation> {
    if !matches!(instr.op, Opcode::Fma | Opcode::Mad) || operands.len() != 3 {
        return None;
    }
    if let Some(half) = instr.atype {
        // A mixed-precision fma: its halves widened exactly, then the f32 fma unfused.
        let widen = crate::interp::widened_halves(half)?;
        let wide = [widen[operands[0] as usize & 0xffff] as u64, widen[operands[1] as usize & 0xffff] as u64, operands[2]];
        return unfused(&Instr { atype: None, ..*instr }, &wide);
    }
    let mut mul = Instr::new(Opcode::Mul, instr.ty);
    mul.precision = match instr.precision {
        Precision::Default => Precision::Rounded(crate::Rounding::Rn),
        p => p,
    };
    mul.ftz = instr.ftz;
    let product = eval(&mul, &operands[..2]).ok()?.primary_bits();
    let mut add = mul;
    add.op = Opcode::Add;
    add.clamp = instr.clamp;
    if add.clamp == Clamp::Relu {
        // add has no .relu: clamp the sum afterwards with max(x, 0) semantics of fma .relu
        add.clamp = Clamp::None;
        let sum = eval(&add, &[product, operands[2]]).ok()?.primary_bits();
        let s = instr.ty.scalar();
        let relu = map_lanes(instr.ty, sum, |v| {
            if s.is_nan(v) {
                s.mask() >> 1
            } else if v >> (s.bits() - 1) & 1 == 1 {
                0
            } else {
                v
            }
        });
        return Some(Expectation::exact_register(instr.ty, relu));
    }
    eval(&add, &[product, operands[2]]).ok()
}

/// [`Model::ViaF32`]: the lanes of `operands` read as `read`, the operation in f32 with
/// `rounding`, each lane's f32 result rounded to `read` to nearest (a NaN to the canonical NaN,
/// as `F2FP` gives it). `None` for an operation other than add/sub/mul/fma/mad.
pub(crate) fn via_f32(instr: &Instr, read: Scalar, rounding: crate::Rounding, operands: &[u64]) -> Option<u64> {
    use crate::format::{BF16, F16};
    use crate::rounding::round_f64;
    if !matches!(instr.op, Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Fma | Opcode::Mad) || read.bits() != 16 {
        return None;
    }
    let ty = instr.ty;
    let mut op = Instr::new(if instr.op == Opcode::Mad { Opcode::Fma } else { instr.op }, Type::F32);
    op.precision = Precision::Rounded(rounding);
    let mut lanes = Vec::with_capacity(ty.lanes() as usize);
    for l in 0..ty.lanes() as usize {
        let widened: Vec<u64> =
            operands.iter().map(|&o| (read.to_f64(lane(ty, o, l)) as f32).to_bits() as u64).collect();
        let r = f32::from_bits(eval(&op, &widened).ok()?.primary_bits() as u32) as f64;
        lanes.push(match read {
            _ if r.is_nan() => read.mask() >> 1,
            Scalar::F16 => round_f64::<F16>(r.to_bits(), crate::Rounding::Rn),
            _ => round_f64::<BF16>(r.to_bits(), crate::Rounding::Rn),
        });
    }
    Some(pack(ty, &lanes))
}
