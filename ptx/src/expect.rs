//! `Expectation`: the set of results the PTX ISA allows for one destination register.
//!
//! Each lane has a primary outcome (the reading the interpreter believes most likely) and
//! named alternatives, one per open question of the spec (`docs/semantics.md`). Hardware
//! results that match only an alternative settle that question.
//!
//! Approximate instructions (issue 4, `crate::approx`) add two outcomes: a [`Outcome::Range`]
//! of values within the documented error bound, and [`Outcome::Unbounded`] where the spec
//! documents no bound (every result accepted, the correctly rounded reference recorded so the
//! comparison can report the error instead of flagging it).

use arrayvec::ArrayVec;
use std::fmt;

use crate::format::{FpClass, Scalar};
use crate::integer::IntType;
use crate::isa::Ftz;
use crate::narrow_format::{classify, decode, Narrow};

/// One allowed result for a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Exactly these bits.
    Bits(u64),
    /// Any NaN encoding (the spec leaves the NaN unspecified, e.g. 9.7.3: "Single-precision
    /// instructions return an unspecified NaN").
    AnyNan,
    /// Any non-NaN value `v` with `lo <= v <= hi` in value order, `-0.0` just below `+0.0`
    /// (the order of `Format::order_key`). A range may cross zero: `lo` negative and `hi`
    /// positive take in both zeros and, unless `ftz` is `Flush`, every subnormal between.
    /// `lo`/`hi` may be infinities (an ulp bound next to overflow reaches `inf`).
    /// With `ftz: Flush` no subnormal is accepted inside the range (a `.ftz` result is never
    /// subnormal). `reference` is the correctly rounded result (flushed under `.ftz`), always
    /// inside the range; it is what `primary_bits` reports.
    Range { lo: u64, hi: u64, reference: u64, ftz: Ftz },
    /// The spec documents no error bound here (e.g. sin.approx outside [-100pi, 100pi],
    /// rsqrt.approx.f64): every result whose bits under `zero_mask` are zero is accepted
    /// (`zero_mask` holds what the spec fixes even so, e.g. 9.7.3.14 `d[31:0] = 0`; usually 0).
    /// `reference` (the correctly rounded value) is recorded so that a comparison can report
    /// the error, see [`Expectation::undocumented`].
    Unbounded { reference: u64, zero_mask: u64 },
}

impl Outcome {
    /// A range, or the single value when `lo == hi`.
    pub fn range(lo: u64, hi: u64, reference: u64, ftz: Ftz) -> Outcome {
        if lo == hi {
            Outcome::Bits(lo)
        } else {
            Outcome::Range { lo, hi, reference, ftz }
        }
    }

    /// No documented bound: accept anything, record `reference`.
    pub fn unbounded(reference: u64) -> Outcome {
        Outcome::Unbounded { reference, zero_mask: 0 }
    }

    /// Whether the lane value `v` of a float lane in format `s` is this outcome (what
    /// [`Expectation::accepts`] asks of each outcome of a float lane).
    #[inline]
    pub fn matches_in(self, s: Scalar, v: u64) -> bool {
        match self {
            Outcome::Bits(b) => b == v,
            Outcome::AnyNan => s.is_nan(v),
            Outcome::Range { lo, hi, ftz, .. } => {
                let class = s.classify(v);
                let k = order_key(s, v);
                class != FpClass::Nan
                    && !(ftz == Ftz::Flush && class == FpClass::Subnormal)
                    && order_key(s, lo) <= k
                    && k <= order_key(s, hi)
            }
            Outcome::Unbounded { zero_mask, .. } => v & zero_mask == 0,
        }
    }
}

/// A named reading of an ambiguous rule. Each names the open question it answers; see
/// `docs/semantics.md` for the spec text behind each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reading {
    /// `.ftz` flushes when the exact result is below the smallest normal, even if it rounds up to it.
    FtzBeforeRounding,
    /// `.sat` keeps the sign of a -0.0 result (clamping to [0,1] with -0 == +0).
    SatKeepsNegativeZero,
    /// `.relu` keeps the sign of a -0.0 result (max(x, 0) with -0 == +0).
    ReluKeepsNegativeZero,
    /// f64 NaN operands: the payload of the second NaN operand wins.
    NanPayloadFromB,
    /// f64 NaN operands: the payload of the third NaN operand wins (fma/mad).
    NanPayloadFromC,
    /// A signalling f64 NaN passes through without its quiet bit being set.
    SignallingNanNotQuieted,
    /// The result NaN is not the input's: any NaN (payload rules not applied).
    NanUnspecified,
    /// abs/neg act on the sign bit of a NaN alone (the IEEE-754 reading that 9.7.3.9/10 anticipate).
    SignBitOnly,
    /// The mul and add of a contractible (no rounding modifier) pair fused into one fma.
    Contracted,
    /// A `cvt.rs` to an x4 destination rounds an element the other way: which byte of `rbits`
    /// meets which element, and which of its discarded bits, is drawn only in Figures 40 and
    /// 41 of 9.7.9.21 (`crate::cvt::stochastic_quad`).
    RbitsLayout,
}

impl Reading {
    pub fn name(self) -> &'static str {
        match self {
            Reading::FtzBeforeRounding => "ftz-before-rounding",
            Reading::SatKeepsNegativeZero => "sat-keeps-negative-zero",
            Reading::ReluKeepsNegativeZero => "relu-keeps-negative-zero",
            Reading::NanPayloadFromB => "nan-payload-from-b",
            Reading::NanPayloadFromC => "nan-payload-from-c",
            Reading::SignallingNanNotQuieted => "snan-not-quieted",
            Reading::NanUnspecified => "nan-unspecified",
            Reading::SignBitOnly => "sign-bit-only",
            Reading::Contracted => "contracted",
            Reading::RbitsLayout => "rbits-layout",
        }
    }
}

/// The allowed results for one lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneExpectation {
    pub primary: Outcome,
    pub alternatives: ArrayVec<(Outcome, Reading), 4>,
}

impl LaneExpectation {
    pub fn exact(bits: u64) -> LaneExpectation {
        LaneExpectation { primary: Outcome::Bits(bits), alternatives: ArrayVec::new() }
    }

    pub fn any_nan() -> LaneExpectation {
        LaneExpectation { primary: Outcome::AnyNan, alternatives: ArrayVec::new() }
    }

    /// A lane whose primary outcome is `primary`, with no alternative.
    pub fn of(primary: Outcome) -> LaneExpectation {
        LaneExpectation { primary, alternatives: ArrayVec::new() }
    }

    /// Whether the float lane value `v` (format `s`) is allowed by an outcome the spec
    /// documents: any but [`Outcome::Unbounded`]. A result every lane of which is documented is
    /// accepted with nothing to record ([`Expectation::undocumented`] is empty).
    #[inline]
    pub fn documents(&self, s: Scalar, v: u64) -> bool {
        let documented = |o: Outcome| !matches!(o, Outcome::Unbounded { .. }) && o.matches_in(s, v);
        documented(self.primary) || self.alternatives.iter().any(|&(o, _)| documented(o))
    }

    /// Add an alternative unless it is already allowed (by the primary or another alternative).
    pub fn or(mut self, outcome: Outcome, reading: Reading) -> LaneExpectation {
        let dup = outcome == self.primary || self.alternatives.iter().any(|(o, _)| *o == outcome);
        if !dup && !self.alternatives.is_full() {
            self.alternatives.push((outcome, reading));
        }
        self
    }
}

/// The allowed results for a whole destination register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// Lane format; `None` for a predicate result (testp), whose bits are 0 or 1, and for an
    /// integer one.
    pub scalar: Option<Scalar>,
    /// The integer type of an integer result (a `cvt` to `.s32`, ...): one exact lane as wide
    /// as the register that holds it ([`IntType::reg_bits`]).
    pub integer: Option<IntType>,
    /// The format of a pair of 8-bit elements (a `cvt` to `.e4m3x2`, ...): two lanes of
    /// [`Narrow::slot_bits`] each, element 0 in the low half.
    pub narrow: Option<Narrow>,
    /// One entry per lane, lane 0 in the low bits: four only for the x4 destinations of
    /// `cvt.rs` ([`Expectation::narrow_quad`]).
    pub lanes: ArrayVec<LaneExpectation, 4>,
}

impl Expectation {
    pub fn predicate(value: bool) -> Expectation {
        let mut lanes = ArrayVec::new();
        lanes.push(LaneExpectation::exact(value as u64));
        Expectation { scalar: None, integer: None, narrow: None, lanes }
    }

    /// The two predicates of a packed `setp` (9.7.7.2): two one-bit lanes, `p` in bit 0.
    pub fn predicate_pair(p: bool, q: bool) -> Expectation {
        let mut lanes = ArrayVec::new();
        lanes.push(LaneExpectation::exact(p as u64));
        lanes.push(LaneExpectation::exact(q as u64));
        Expectation { scalar: None, integer: None, narrow: None, lanes }
    }

    /// Exactly `bits`, a value of `t` as its register holds it (sign- or zero-extended).
    pub fn integer(t: IntType, bits: u64) -> Expectation {
        let mut lanes = ArrayVec::new();
        lanes.push(LaneExpectation::exact(t.extend(bits, t.reg_bits())));
        Expectation { scalar: None, integer: Some(t), narrow: None, lanes }
    }

    /// Exactly the register bits `bits` that hold an integer of `t` (an integer input read
    /// back unchanged: its bits above the type's width stay as they were given).
    pub fn integer_register(t: IntType, bits: u64) -> Expectation {
        let mut lanes = ArrayVec::new();
        lanes.push(LaneExpectation::exact(bits));
        Expectation { scalar: None, integer: Some(t), narrow: None, lanes }
    }

    pub fn scalar(scalar: Scalar, lane: LaneExpectation) -> Expectation {
        let mut lanes = ArrayVec::new();
        lanes.push(lane);
        Expectation { scalar: Some(scalar), integer: None, narrow: None, lanes }
    }

    pub fn packed(scalar: Scalar, lo: LaneExpectation, hi: LaneExpectation) -> Expectation {
        let mut lanes = ArrayVec::new();
        lanes.push(lo);
        lanes.push(hi);
        Expectation { scalar: Some(scalar), integer: None, narrow: None, lanes }
    }

    /// A pair of `n` elements (a `cvt` to `.e4m3x2`, ...), `lo` the element in the low half.
    pub fn narrow_pair(n: Narrow, lo: LaneExpectation, hi: LaneExpectation) -> Expectation {
        let mut lanes = ArrayVec::new();
        lanes.push(lo);
        lanes.push(hi);
        Expectation { scalar: None, integer: None, narrow: Some(n), lanes }
    }

    /// Four `n` elements (a `cvt.rs` to `.e4m3x4`, ...), `lanes[0]` the element in the low
    /// bits (`f`'s, 9.7.9.21: "d[7:0] = convert(f)").
    pub fn narrow_quad(n: Narrow, lanes: [LaneExpectation; 4]) -> Expectation {
        Expectation { scalar: None, integer: None, narrow: Some(n), lanes: ArrayVec::from(lanes) }
    }

    /// Exactly the bits of a register of type `ty` (an input read back unchanged).
    pub fn exact_register(ty: crate::isa::Type, bits: u64) -> Expectation {
        let s = ty.scalar();
        let w = s.bits();
        let lane = |l: u32| LaneExpectation::exact((bits >> (l * w)) & s.mask());
        if ty.lanes() == 2 {
            Expectation::packed(s, lane(0), lane(1))
        } else {
            Expectation::scalar(s, lane(0))
        }
    }

    /// Width of one lane in bits: the scalar's, an integer's register, an 8-bit element's
    /// slot, 1 for a predicate.
    pub fn lane_bits(&self) -> u32 {
        match (self.scalar, self.integer, self.narrow) {
            (Some(s), _, _) => s.bits(),
            (None, Some(t), _) => t.reg_bits(),
            (None, None, Some(n)) => n.slot_bits(),
            (None, None, None) => 1,
        }
    }

    /// Whether lane value `v` is a NaN of the lane's format (never for a predicate or integer).
    pub fn lane_is_nan(&self, v: u64) -> bool {
        match (self.scalar, self.narrow) {
            (Some(s), _) => s.is_nan(v),
            (None, Some(n)) => classify(n, v) == FpClass::Nan,
            (None, None) => false,
        }
    }

    /// Register width in bits (1 for a predicate).
    pub fn width(&self) -> u32 {
        self.lane_bits() * self.lanes.len() as u32
    }

    /// The primary result as register bits; a NaN primary gives the canonical NaN of the lane,
    /// a range or an unbounded outcome its correctly rounded reference.
    pub fn primary_bits(&self) -> u64 {
        let mut out = 0u64;
        for (i, lane) in self.lanes.iter().enumerate() {
            let bits = match lane.primary {
                Outcome::Bits(b) => b,
                // The canonical NaN: all ones but the sign (an 8-bit format's first NaN row).
                Outcome::AnyNan => match (self.scalar, self.narrow) {
                    (Some(s), _) => s.mask() >> 1,
                    (None, Some(n)) => n.layout().nans[0],
                    (None, None) => unreachable!("a predicate or an integer is never NaN"),
                },
                Outcome::Range { reference, .. } | Outcome::Unbounded { reference, .. } => reference,
            };
            out |= bits << (i as u32 * self.lane_bits());
        }
        out
    }

    /// Whether `bits` (the whole register) is an allowed result.
    pub fn accepts(&self, bits: u64) -> bool {
        (0..self.lanes.len()).all(|i| self.lane_accepts(i, self.extract(bits, i)))
    }

    /// Whether lane `lane` allows the lane value `v` (its bits alone, lane 0's position), as
    /// [`Expectation::accepts`] judges each lane.
    pub fn lane_accepts(&self, lane: usize, v: u64) -> bool {
        self.lanes.get(lane).is_some_and(|l| {
            self.lane_outcome_matches(l.primary, v) || l.alternatives.iter().any(|(o, _)| self.lane_outcome_matches(*o, v))
        })
    }

    /// Whether `bits` is the primary result in every lane.
    pub fn is_primary(&self, bits: u64) -> bool {
        self.lanes
            .iter()
            .enumerate()
            .all(|(i, lane)| self.lane_outcome_matches(lane.primary, self.extract(bits, i)))
    }

    fn extract(&self, bits: u64, lane: usize) -> u64 {
        let w = self.lane_bits();
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        (bits >> (lane as u32 * w)) & mask
    }

    fn lane_outcome_matches(&self, outcome: Outcome, v: u64) -> bool {
        match (self.scalar, outcome) {
            (Some(s), o) => o.matches_in(s, v),
            (None, Outcome::Bits(b)) => b == v,
            (None, Outcome::AnyNan) => self.lane_is_nan(v),
            // A range is of float values: a predicate, integer or narrow lane has none.
            (None, Outcome::Range { .. }) => false,
            (None, Outcome::Unbounded { zero_mask, .. }) => v & zero_mask == 0,
        }
    }

    /// Lanes of `bits` accepted only because the spec documents no bound there: each with the
    /// recorded reference, the result, and their distance in ulps (steps between adjacent
    /// values, both zeros one step; `None` if either is NaN). A comparison reports these as
    /// measured errors, not as disagreements.
    pub fn undocumented(&self, bits: u64) -> ArrayVec<Undocumented, 2> {
        let mut out = ArrayVec::new();
        let Some(s) = self.scalar else { return out };
        for (i, lane) in self.lanes.iter().enumerate() {
            let v = self.extract(bits, i);
            if lane.documents(s, v) {
                continue;
            }
            let unbounded = std::iter::once(lane.primary)
                .chain(lane.alternatives.iter().map(|(o, _)| *o))
                .find_map(|o| match o {
                    Outcome::Unbounded { reference, zero_mask } if v & zero_mask == 0 => Some(reference),
                    _ => None,
                });
            if let Some(reference) = unbounded {
                out.push(Undocumented::of(s, i, v, reference));
            }
        }
        out
    }

    /// Hex digits for one lane (4 for 16-bit lanes, 8 for 32, 16 for 64).
    fn lane_digits(&self) -> usize {
        (self.lane_bits() as usize).div_ceil(4)
    }

    /// The allowed values of a float result in decimal, as `ptxfuzz eval --accept` prints them
    /// after the hex set (alternatives ` | `, lanes ` ; `: `0.1884893..0.18849063`). A range of
    /// negative values reads in hex from the larger bits down (`0xbf0f0802..0xbf0f0800`); its
    /// decimals show it is in value order. `None` for an integer, predicate or fp8 result,
    /// whose hex set ([`fmt::Display`]) already gives its values.
    pub fn decimal(&self) -> Option<String> {
        let s = self.scalar.filter(|_| self.integer.is_none() && self.narrow.is_none())?;
        let dec = |b: u64| crate::value::format_decimal(s, b);
        let lanes: Vec<String> = self
            .lanes
            .iter()
            .map(|lane| {
                std::iter::once(lane.primary)
                    .chain(lane.alternatives.iter().map(|(o, _)| *o))
                    .map(|o| match o {
                        Outcome::Bits(b) => dec(b),
                        Outcome::AnyNan => "nan".to_string(),
                        Outcome::Range { lo, hi, .. } => format!("{}..{}", dec(lo), dec(hi)),
                        Outcome::Unbounded { reference, .. } => format!("any (reference {})", dec(reference)),
                    })
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
            .collect();
        Some(lanes.join(" ; "))
    }

    fn fmt_outcome(&self, f: &mut fmt::Formatter<'_>, o: Outcome) -> fmt::Result {
        let w = self.lane_digits();
        match o {
            // An integer: its register's hex and its value ("0xfffe (-2)").
            Outcome::Bits(b) if self.integer.is_some() => {
                write!(f, "0x{b:0w$x} ({})", self.integer.map_or(0, |t| t.value(b)))
            }
            // An 8-bit element: its hex and its value ("0x38 (1)").
            Outcome::Bits(b) if self.narrow.is_some() => {
                write!(f, "0x{b:0w$x} ({})", self.narrow.map_or(0.0, |n| decode(n, b)))
            }
            Outcome::Bits(b) if self.scalar.is_none() => write!(f, "{b}"),
            Outcome::Bits(b) => write!(f, "0x{b:0w$x}"),
            Outcome::AnyNan => write!(f, "nan"),
            Outcome::Range { lo, hi, ftz, .. } => {
                write!(f, "0x{lo:0w$x}..0x{hi:0w$x}")?;
                if ftz == Ftz::Flush {
                    write!(f, " ftz")?;
                }
                Ok(())
            }
            Outcome::Unbounded { reference, zero_mask: 0 } => {
                write!(f, "any (no documented bound; reference 0x{reference:0w$x})")
            }
            Outcome::Unbounded { reference, zero_mask } => write!(
                f,
                "any with 0x{zero_mask:0w$x} clear (no documented bound; reference 0x{reference:0w$x})"
            ),
        }
    }
}

/// A lane accepted only for want of a documented bound (see [`Expectation::undocumented`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undocumented {
    pub lane: usize,
    pub reference: u64,
    pub got: u64,
    /// `got - reference` in ulps, both zeros one value; `None` when either is NaN.
    pub ulps: Option<i64>,
}

impl Undocumented {
    /// Lane `lane` (format `s`) gave `got` where the recorded reference is `reference`.
    #[inline]
    pub fn of(s: Scalar, lane: usize, got: u64, reference: u64) -> Undocumented {
        let ulps = (!s.is_nan(got) && !s.is_nan(reference)).then(|| value_key(s, got) - value_key(s, reference));
        Undocumented { lane, reference, got, ulps }
    }
}

/// Total order on non-NaN values with -0 just below +0 (`Format::order_key`, by run-time format).
fn order_key(s: Scalar, bits: u64) -> i64 {
    let sign = 1u64 << (s.bits() - 1);
    let a = (bits & (sign - 1)) as i64;
    if bits & sign != 0 {
        -a - 1
    } else {
        a
    }
}

/// Position on the value line counted in ulps, both zeros at 0.
fn value_key(s: Scalar, bits: u64) -> i64 {
    let sign = 1u64 << (s.bits() - 1);
    let a = (bits & (sign - 1)) as i64;
    if bits & sign != 0 {
        -a
    } else {
        a
    }
}

/// `--accept` form: `0x00800000 | 0x00000000 (ftz-before-rounding)`; packed registers print
/// each lane as `lane0: ... ; lane1: ...`. A range prints as `0x3f7fffff..0x3f800001` (value
/// order, so a negative range reads `0xbf800001..0xbf7fffff`), with ` ftz` when subnormals
/// inside it are excluded; no documented bound as `any (no documented bound; reference 0x...)`.
impl fmt::Display for Expectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, lane) in self.lanes.iter().enumerate() {
            if self.lanes.len() > 1 {
                if i > 0 {
                    write!(f, " ; ")?;
                }
                write!(f, "lane{i}: ")?;
            }
            self.fmt_outcome(f, lane.primary)?;
            for (o, r) in &lane.alternatives {
                write!(f, " | ")?;
                self.fmt_outcome(f, *o)?;
                write!(f, " ({})", r.name())?;
            }
        }
        Ok(())
    }
}

/// Why the interpreter cannot evaluate an instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("{form} expects {expected} operand(s), got {got}")]
    Arity { form: String, expected: usize, got: usize },
    #[error("{form}: operand {index} (0x{value:x}) does not fit a {bits}-bit register")]
    OperandWidth { form: String, index: usize, value: u64, bits: u32 },
    #[error("{form}: approximate forms are not yet modelled (issue 4: the acceptance model for .approx/.full, sin, cos, lg2, ex2, tanh, rsqrt)")]
    NotModelled { form: String },
    #[error("{form}: {reason}; build forms with Instr::parse, or check them with Instr::validate")]
    Malformed { form: String, reason: &'static str },
}

#[cfg(test)]
#[path = "expect_tests.rs"]
mod tests;
