//! The catalogue: every named perturbation of one instruction, simplest first, in ONE table.
//! Each entry proposes the [`Model`]s it stands for, given the form (and, for a bound, the
//! cases); `super::explain` takes the first model that reproduces every case.

use super::model::{lane, lane_excess, tf32_via_integer, Model};
use super::Case;
use crate::format::Scalar;
use crate::interp::eval;
use crate::isa::{AbsMode, Clamp, CmpOp, Comparison, Ftz, Instr, Opcode, Precision, Type};
use crate::value::format_decimal;
use crate::Rounding;

/// One named perturbation. `id` is stable (it keys clusters in the database).
pub struct Entry {
    pub id: &'static str,
    /// One line: what the hardware computed instead.
    pub description: &'static str,
    /// The PTX ISA section (or rule) the behaviour departs from.
    pub spec: &'static str,
    /// The models this entry stands for on `instr`, each with a detail line.
    pub candidates: fn(&Instr, &[Case]) -> Vec<(Model, String)>,
}

/// The catalogue, simplest perturbation first. A format read as another, a modifier or a
/// rounding mode replaced come before the fold (an fma whose result happens to equal its
/// addend is a rounding effect, not a fold), and the fold before a dropped `.abs`
/// (`min.xorsign.abs r, r` folded also reads as `.abs` dropped).
pub const CATALOGUE: &[Entry] = &[
    // First: selp moves bits, so a wrong choice is the one cause that needs no arithmetic
    // (a subnormal a and a zero b also read as "inputs flushed").
    Entry {
        id: "selection-inverted",
        description: "selp gives the operand its predicate did not select",
        spec: "9.7.6.3 selp: d = (c == 1) ? a : b",
        candidates: |i, _| if i.op == Opcode::Selp { vec![(Model::SelectionInverted, "c ? b : a".into())] } else { vec![] },
    },
    // Next the one form ptxas compiles to integer code: it reproduces every result of
    // `cvt.rna.tf32.f32`, so no other entry can explain its NaN cases better.
    Entry {
        id: "tf32-via-integer",
        description: "cvt.rna.tf32.f32 compiled to integer code on the f32 encoding (add 0x1000 unless inf or NaN, clear the 13 low bits; .satfinite steps back from infinity): a NaN whose payload lies only in those 13 bits comes out as infinity, or MAX_NORM with .satfinite",
        spec: "9.7.9.21 cvt (a NaN operand gives a NaN result)",
        candidates: |i, _| if tf32_via_integer(i, 0).is_some() { vec![(Model::Tf32ViaInteger, "ptxas 13.5: FSETP.GEU, IADD 0x1000, LOP3 0xffffe000".into())] } else { vec![] },
    },
    Entry {
        id: "bf16-as-f16",
        description: "bf16 operands read as f16, computed as f16 and the result packed as f16 (a bf16 form compiled as f16 arithmetic)",
        spec: "9.7.4 (bf16 operands and result)",
        candidates: |i, _| if i.ty.lanes() == 1 { reinterpreted(i, Scalar::BF16) } else { vec![] },
    },
    Entry {
        id: "f16-as-bf16",
        description: "f16 operands read as bf16 and the result packed as bf16",
        spec: "9.7.4 (f16 operands and result)",
        candidates: |i, _| if i.ty.lanes() == 1 { reinterpreted(i, Scalar::F16) } else { vec![] },
    },
    Entry {
        id: "clamp-dropped",
        description: "the .sat/.relu clamp is not applied",
        spec: "9.7.3 .sat / 9.7.4.4 .relu",
        candidates: |i, _| {
            let mut f = *i;
            f.clamp = Clamp::None;
            if i.clamp == Clamp::None { vec![] } else { vec![(Model::Form(f), format!("{f} instead of {i}"))] }
        },
    },
    // Another rounding mode before the flushing entries: a case whose exact result is a
    // subnormal that rounds to zero fits "flushed" and "to nearest" alike, and the H100's
    // packed bf16 fma ignores its rounding mode, never flushes (HFMA2.MMA.BF16_V2).
    Entry {
        id: "other-rounding",
        description: "the result is rounded in another rounding mode",
        spec: "9.7.3 / 9.7.4 rounding modifiers",
        candidates: other_rounding,
    },
    // Half of .ftz before none of it: a case with normal operands and a kept subnormal result
    // shows only that results are not flushed, which is what `ftz-inputs-only` claims.
    Entry {
        id: "ftz-inputs-only",
        description: ".ftz flushes subnormal operands but not subnormal results",
        spec: "9.7.3 .ftz (operands and results)",
        candidates: |i, _| if i.ftz == Ftz::Flush { vec![(Model::FtzInputsOnly, String::new())] } else { vec![] },
    },
    Entry {
        id: "ftz-result-only",
        description: ".ftz flushes subnormal results but not subnormal operands",
        spec: "9.7.3 .ftz (operands and results)",
        candidates: |i, _| if i.ftz == Ftz::Flush { vec![(Model::FtzResultOnly, String::new())] } else { vec![] },
    },
    Entry {
        id: "ftz-ignored",
        description: ".ftz is not applied: subnormal inputs and results kept",
        spec: "9.7.3 .ftz",
        candidates: |i, _| toggled_ftz(i, Ftz::Flush),
    },
    Entry {
        id: "ftz-applied",
        description: "subnormal inputs and results flushed although the form has no .ftz",
        spec: "9.7.3 (subnormal support without .ftz)",
        candidates: |i, _| toggled_ftz(i, Ftz::Preserve),
    },
    Entry {
        id: "result-flushed",
        description: "subnormal results flushed to signed zero (inputs kept)",
        spec: "9.7.3 (subnormal results)",
        candidates: |i, _| if i.ftz == Ftz::Flush { vec![] } else { vec![(Model::ResultFlushed, String::new())] },
    },
    Entry {
        id: "inputs-flushed",
        description: "subnormal operands flushed to signed zero before the operation (results kept)",
        spec: "9.7.3 (subnormal operands)",
        candidates: |i, _| if i.ftz == Ftz::Flush { vec![] } else { vec![(Model::InputsFlushed, String::new())] },
    },
    // The packed half forms read in the other format come after another rounding mode: the
    // H100's packed `fma.{rz,rm,rp}.bf16x2` keeps bf16 and rounds to nearest (SASS
    // `HFMA2.MMA.BF16_V2`, docs/triage.md), and a minimized packed case often fits f16 too.
    Entry {
        id: "packed-as-other-half",
        description: "a packed half form's lanes read in the other 16-bit format (bf16x2 as f16x2, f16x2 as bf16x2)",
        spec: "9.7.4 (packed half operands and result)",
        candidates: |i, _| {
            if i.ty.lanes() != 2 {
                return vec![];
            }
            [Scalar::BF16, Scalar::F16].into_iter().flat_map(|from| reinterpreted(i, from)).collect()
        },
    },
    // Before the fold: an fma whose product rounded to a zero (or absorbed into the addend)
    // returns its addend, which reads as a fold too.
    Entry {
        id: "fma-unfused",
        description: "fma/mad computed as a mul then an add, each rounded (double rounding)",
        spec: "9.7.3.5 fma (one rounding)",
        candidates: |_, _| vec![(Model::Unfused, "mul then add".into())],
    },
    // Before another operator: on one case, p and q exchanged also reads as the outcome of the
    // reverse order (lt of (1, 3) against (2, 2) swapped is gt's), but one wiring mistake is
    // the simpler cause.
    Entry {
        id: "predicates-swapped",
        description: "a packed setp's two predicates exchanged: p from the upper halves, q from the lower",
        spec: "9.7.7.2 setp.f16x2/.bf16x2: p for the lower halves, q for the upper",
        candidates: |i, _| if i.writes_predicate_pair() { vec![(Model::LanesSwapped, "q|p".into())] } else { vec![] },
    },
    Entry {
        id: "other-comparison",
        description: "the outcome of another comparison operator: the ordered one for the unordered one or the reverse (NaN operands), or another order",
        spec: "9.7.6.1-2, 9.7.7.1-2 setp/set .CmpOp (Floating Point Notes: ordered and unordered comparisons)",
        candidates: other_comparison,
    },
    Entry {
        id: "folded-to-operand",
        description: "the instruction is folded away: the result is one of its operands, unchanged",
        spec: "9.7.3 (the instruction's own semantics)",
        candidates: folded,
    },
    Entry {
        id: "abs-dropped",
        description: "the .abs / .xorsign.abs modifier of min/max is not applied",
        spec: "9.7.3.11 min/max .abs, .xorsign",
        candidates: |i, _| {
            let mut f = *i;
            f.abs = AbsMode::None;
            if i.abs == AbsMode::None { vec![] } else { vec![(Model::Form(f), format!("{f} instead of {i}"))] }
        },
    },
    Entry {
        id: "nan-operand-quieted",
        description: "the result is a NaN operand with its quiet bit set, sign and payload kept",
        spec: "9.7.3.9/9.7.3.10 abs/neg of NaN; 9.7.3 NaN results",
        candidates: |_, _| vec![(Model::QuietedNanOperand, String::new())],
    },
    Entry {
        id: "nan-canonical",
        description: "the result is the canonical NaN, the operand's payload lost",
        spec: "9.7.3 NaN results (f64 payload propagation)",
        // Only with a NaN operand, whose payload was lost: a NaN made from numbers (inf - inf
        // after a mul rounded to infinity) is another entry's evidence.
        candidates: |i, cases| {
            let s = i.ty.scalar();
            let nan_operand = cases.iter().any(|c| c.operands.iter().any(|&o| (0..i.ty.lanes() as usize).any(|l| s.is_nan(lane(i.ty, o, l)))));
            if nan_operand { vec![(Model::CanonicalNan, String::new())] } else { vec![] }
        },
    },
    Entry {
        id: "lanes-swapped",
        description: "a packed result with its two lanes swapped",
        spec: "9.7.4 packed half types (lane order)",
        candidates: |i, _| if i.ty.lanes() == 2 && !i.writes_predicate_pair() { vec![(Model::LanesSwapped, String::new())] } else { vec![] },
    },
    Entry {
        id: "lane-broadcast",
        description: "one lane's result written to both lanes of a packed result",
        spec: "9.7.4 packed half types",
        candidates: |i, _| {
            if i.ty.lanes() != 2 {
                return vec![];
            }
            (0..2).map(|l| (Model::LaneBroadcast(l), format!("lane {l} in both"))).collect()
        },
    },
    Entry {
        id: "bound-exceeded",
        description: "an approximate result outside its documented error bound, by a few ulps",
        spec: "9.7.3.13-22 / 9.7.4.7-9 approximate forms' error bounds",
        candidates: bound,
    },
    // Last, and reached only through `explain_judged`: against the spec a result the spec
    // allows needs no explaining, so `explain` never returns this row. Against a hardware
    // profile (`campaign --judge sm_90`) it is the commonest finding of a spec-faithful
    // emulator: an f64 NaN's payload, a `.ftz` result at the smallest normal, an approximation
    // within its bound but not the GPU's bits.
    Entry {
        id: "spec-allowed",
        description: "a result the PTX ISA allows but the judged GPU does not give: the target took another of the spec's readings (a NaN's payload, tininess, an approximation within its bound) than the hardware",
        spec: "the hardware profile (ptx/profiles/), where the PTX ISA leaves a choice",
        candidates: |_, _| vec![(Model::SpecAllowed, String::new())],
    },
];

/// The farthest an approximate result may lie past its bound and still count as "bound
/// exceeded" rather than a wrong result: beyond it the finding stays unexplained.
pub const MAX_BOUND_EXCESS_ULPS: u64 = 64;

fn folded(i: &Instr, cases: &[Case]) -> Vec<(Model, String)> {
    // A NaN result equal to a NaN operand is a NaN rule, not a fold: ask for a number.
    let s = i.ty.scalar();
    let any_number = cases.iter().any(|c| !(0..i.ty.lanes() as usize).any(|l| s.is_nan(lane(i.ty, c.got, l))));
    if !any_number {
        return vec![];
    }
    (0..i.inputs as usize).map(|k| (Model::Operand(k), format!("result = operand {}", ["a", "b", "c"][k.min(2)]))).collect()
}

/// A `setp` or `set` computed with each other legal `.CmpOp`, the unordered twin of an ordered
/// operator (and the reverse) first: NaN handling is where comparisons go wrong.
fn other_comparison(i: &Instr, _: &[Case]) -> Vec<(Model, String)> {
    let Some(c) = i.cmp else { return vec![] };
    let twin = |o: CmpOp| match o {
        CmpOp::Eq => Some(CmpOp::Equ),
        CmpOp::Ne => Some(CmpOp::Neu),
        CmpOp::Lt => Some(CmpOp::Ltu),
        CmpOp::Le => Some(CmpOp::Leu),
        CmpOp::Gt => Some(CmpOp::Gtu),
        CmpOp::Ge => Some(CmpOp::Geu),
        CmpOp::Equ => Some(CmpOp::Eq),
        CmpOp::Neu => Some(CmpOp::Ne),
        CmpOp::Ltu => Some(CmpOp::Lt),
        CmpOp::Leu => Some(CmpOp::Le),
        CmpOp::Gtu => Some(CmpOp::Gt),
        CmpOp::Geu => Some(CmpOp::Ge),
        _ => None,
    };
    twin(c.op)
        .into_iter()
        .chain(CmpOp::ALL.into_iter().filter(|&o| o != c.op && Some(o) != twin(c.op)))
        .map(|op| Instr { cmp: Some(Comparison { op, ..c }), ..*i })
        .filter(|f| f.validate().is_ok())
        .map(|f| (Model::Form(f), format!("{f} instead of {i}")))
        .collect()
}

fn reinterpreted(i: &Instr, from: Scalar) -> Vec<(Model, String)> {
    // Only IEEE-rounded forms: an approximate form read in another format accepts a range of
    // results wide enough (a flushed zero, a saturated one) to match a single case by chance.
    if i.is_approximate() {
        return vec![];
    }
    if let Some(half) = i.atype {
        // A mixed-precision form: its half operands widened from the other format (the f32
        // result has no other format to be packed in).
        let other = match (from, half) {
            (Scalar::BF16, Type::Bf16) => Type::F16,
            (Scalar::F16, Type::F16) => Type::Bf16,
            _ => return vec![],
        };
        let g = Instr { atype: Some(other), ..*i };
        return vec![(Model::Form(g), format!("computed as {g}"))];
    }
    let ty = match (from, i.ty) {
        (Scalar::BF16, Type::Bf16) => Type::F16,
        (Scalar::BF16, Type::Bf16x2) => Type::F16x2,
        (Scalar::F16, Type::F16) => Type::Bf16,
        (Scalar::F16, Type::F16x2) => Type::Bf16x2,
        _ => return vec![],
    };
    let mut f = *i;
    f.ty = ty;
    // First what ptxas 13.5 emits for the directed-rounding bf16 fma on sm_90 (HADD2.F32 of
    // each operand's bits as f16, FFMA in the form's mode, F2FP.F16.F32 to nearest, .relu
    // gone): `fma.rm.relu.bf16` of 1.0, 1.0, 0x6a80 gives 0x6a82, 1.875^2 + 3328 = 3331.515625
    // exact in f32, then to nearest in f16.
    let mut out = Vec::new();
    if let Some(r) = i.precision.rounding().filter(|&r| r != Rounding::Rn) {
        if matches!(i.op, Opcode::Fma | Opcode::Mad | Opcode::Add | Opcode::Sub | Opcode::Mul) {
            let read = ty.scalar();
            let detail = format!("read as {}, {}.{}.f32, rounded to {} to nearest", read.name(), i.op.name(), r.name(), read.name());
            out.push((Model::ViaF32 { read, rounding: r }, detail));
        }
    }
    // Then the form's twin computed in the other format, as written or flushing subnormals.
    // Not with another rounding mode or without its clamp: a minimized case often fits those
    // by chance, and another rounding mode in the form's own format is `other-rounding` (the
    // H100's `fma.rz.bf16x2` is `HFMA2.MMA.BF16_V2`, bf16 to nearest, not f16).
    for ftz in [i.ftz, Ftz::Flush] {
        let mut g = f;
        g.ftz = ftz;
        if !out.iter().any(|(m, _)| *m == Model::Form(g)) {
            out.push((Model::Form(g), format!("computed as {g}")));
        }
    }
    out
}

fn toggled_ftz(i: &Instr, had: Ftz) -> Vec<(Model, String)> {
    if i.ftz != had {
        return vec![];
    }
    let mut f = *i;
    f.ftz = if had == Ftz::Flush { Ftz::Preserve } else { Ftz::Flush };
    vec![(Model::Form(f), format!("{f} instead of {i}"))]
}

fn other_rounding(i: &Instr, _: &[Case]) -> Vec<(Model, String)> {
    let Some(mode) = i.precision.rounding() else { return vec![] };
    [Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp]
        .into_iter()
        .filter(|&r| r != mode)
        .map(|r| {
            let mut f = *i;
            f.precision = Precision::Rounded(r);
            (Model::Form(f), format!("rounded as {f}"))
        })
        .collect()
}

/// For approximate forms: the largest distance past the bound over the cases, with the
/// largest error against the correctly rounded reference and the input range it was seen on.
fn bound(i: &Instr, cases: &[Case]) -> Vec<(Model, String)> {
    if !i.is_approximate() {
        return vec![];
    }
    let s = i.ty.scalar();
    let (mut excess, mut ulps, mut abs) = (0u64, 0u64, 0f64);
    // The input range, with the bits of its ends (hex beside decimal in the detail).
    let (mut lo, mut hi) = ((f64::INFINITY, 0u64), (f64::NEG_INFINITY, 0u64));
    for c in cases {
        let Ok(e) = eval(i, &c.operands) else { return vec![] };
        for l in 0..i.ty.lanes() as usize {
            let v = lane(i.ty, c.got, l);
            if super::model::lane_expectation(&e, l).accepts(v) {
                continue;
            }
            let Some(x) = lane_excess(&e, l, v) else { return vec![] };
            let reference = lane(i.ty, e.primary_bits(), l);
            excess = excess.max(x);
            ulps = ulps.max(s.ulps_between(reference, v).unwrap_or(0));
            abs = abs.max((s.to_f64(reference) - s.to_f64(v)).abs());
            for &o in &c.operands {
                let bits = lane(i.ty, o, l);
                let x = s.to_f64(bits);
                if x < lo.0 {
                    lo = (x, bits);
                }
                if x > hi.0 {
                    hi = (x, bits);
                }
            }
        }
    }
    if excess == 0 || excess > MAX_BOUND_EXCESS_ULPS {
        return vec![];
    }
    let digits = s.bits() as usize / 4;
    // Decimals as everywhere else: the shortest text that reads back to the same bits.
    let at = |(_, b): (f64, u64)| format!("{b:#0w$x} ({})", format_decimal(s, b), w = digits + 2);
    let inputs = if lo.1 == hi.1 { format!("the input {}", at(lo)) } else { format!("inputs in [{}, {}]", at(lo), at(hi)) };
    let detail = format!("{excess} ulp past the bound ({ulps} ulp, {} absolute from the correctly rounded result) on {inputs}", format_decimal(Scalar::F64, abs.to_bits()));
    vec![(Model::WithinUlps(excess), detail)]
}
