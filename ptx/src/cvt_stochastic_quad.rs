//! Stochastic rounding to the x4 destinations, `cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,e2m3x4,
//! e3m2x4,e2m1x4}.f32 d, {a, b, e, f}, rbits` (PTX ISA 9.7.9.21, issue 16 point 1): four f32
//! values into four 8-, 6- or 4-bit elements, `a` in the top slot of `d` (a `.b32`; `.b16` for
//! `e2m1x4`), rounded toward or away from zero by the carry of random bits added to the
//! discarded bits, as the f16x2/bf16x2 forms are (`crate::cvt::stochastic`).
//!
//! What the section's text fixes, and what it leaves to its figures:
//!
//! | question | text | this module |
//! |---|---|---|
//! | which half of `rbits` | 8-bit and 6-bit: "upper 16 bits are used for operands a, b", the lower for e, f; e2m1x4: "upper 8-bits from both 16-bits half of rbits are used for operands a, b", the lower 8 bits of both for e, f | followed |
//! | which byte of that half is whose | Figures 40 and 41 only | primary: the first-named operand takes the higher byte (a = rbits[31:24], b = [23:16], e = [15:8], f = [7:0]; e2m1x4: a = [31:24], b = [15:8], e = [23:16], f = [7:0]) |
//! | which discarded bits the byte meets | not stated | primary: the top 8 of the discarded bits (below a subnormal or normal result alike: the position between the two neighbours, as `cvt::stochastic` reads the f16 subnormals) |
//! | the result | "rounded in the direction toward zero or away from zero" | either neighbour is accepted ([`Reading::RbitsLayout`]); the primary is the carry rule above |
//! | NaN, infinity, `.relu`, `.satfinite` (mandatory) | the section's Saturation rows | as `cvt::narrow`'s `.rn` forms: the same special rows ([`crate::cvt::narrow`]) |
//!
//! ptxas 13.5 assembles every form for sm_100a (PTX 8.7) and sm_103a (PTX 8.8), refuses them on
//! sm_100, sm_100f, sm_110a and sm_120a, and refuses a spelling without `.satfinite` (".satfinite
//! modifier required"); it emits two `F2FP.SATFINITE.*.F32.PACK_AB_MERGE_C.RS`, the first on
//! a, b with `rbits`, the second on e, f with the first's result as its merge operand: the
//! halves of the text's layout. Not an instruction of programs yet (a four-register source):
//! `ptxfuzz eval` and the batched form kernels (`crate::form_kernel`) run it.

use std::fmt;

use super::narrow::{self, Allowed, Direction, Narrow, NarrowCvt, Requirement, Variant, Wide};
use super::CvtError;
use crate::expect::{Expectation, LaneExpectation, Outcome, Reading};
use crate::isa::PtxVersion;
use crate::narrow_format::decode;
use crate::rounding::Rounding;

/// One `cvt.rs` form to an x4 destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QuadCvt {
    /// The element format: e4m3, e5m2, e2m3, e3m2 or e2m1 (no ue8m0x4 in the syntax).
    pub dst: Narrow,
    pub relu: bool,
}

/// The x4 destination types of the syntax lines (`.f8x4type`, `.f6x4type`, `.f4x4type`).
const QUADS: [(Narrow, &str); 5] =
    [(Narrow::E4m3, "e4m3x4"), (Narrow::E5m2, "e5m2x4"), (Narrow::E2m3, "e2m3x4"), (Narrow::E3m2, "e3m2x4"), (Narrow::E2m1, "e2m1x4")];

/// Random bits per element: 16 bits of `rbits` for each pair of elements (the text's halves).
const RANDOM_BITS: u32 = 8;

impl QuadCvt {
    /// Whether `text` names an x4 destination of `.rs` (this module's to parse, or to refuse).
    pub fn claims(text: &str) -> bool {
        text.starts_with("cvt.") && text.split('.').any(|p| QUADS.iter().any(|q| q.1 == p))
    }

    pub fn parse(text: &str) -> Result<QuadCvt, CvtError> {
        let bad = |why: &str| CvtError::Spelling { text: text.to_string(), why: why.to_string() };
        if !text.split('.').any(|p| p == "rs") {
            return Err(bad("an x4 destination is written only by cvt.rs (stochastic rounding): cvt.rs.satfinite.e4m3x4.f32 d, {a, b, e, f}, rbits"));
        }
        let (mut rs, mut relu, mut satfinite, mut dst, mut f32) = (false, false, false, None, false);
        for p in text.split('.').skip(1) {
            let seen = match p {
                "rs" => std::mem::replace(&mut rs, true),
                "relu" => std::mem::replace(&mut relu, true),
                "satfinite" => std::mem::replace(&mut satfinite, true),
                "f32" if dst.is_some() => std::mem::replace(&mut f32, true),
                p => match QUADS.iter().find(|q| q.1 == p) {
                    Some(&(n, _)) if dst.is_none() => {
                        dst = Some(n);
                        false
                    }
                    _ => return Err(bad(&format!("'.{p}' is not on the x4 syntax lines: cvt.rs{{.relu}}.satfinite.{{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}}.f32"))),
                },
            };
            if seen {
                return Err(bad(&format!("'.{p}' given twice")));
            }
        }
        let (Some(dst), true) = (dst, f32) else {
            return Err(bad("needs the x4 type, then .f32: cvt.rs.satfinite.e4m3x4.f32 d, {a, b, e, f}, rbits"));
        };
        let c = QuadCvt { dst, relu };
        if !satfinite {
            return Err(CvtError::Illegal { form: text.to_string(), rule: "the x4 destinations of cvt.rs take .satfinite, which is mandatory (\"cvt.rs{.relu}.satfinite.f8x4type.f32\")" });
        }
        Ok(c)
    }

    /// The ten documented forms.
    pub fn all() -> Vec<QuadCvt> {
        QUADS.iter().flat_map(|&(dst, _)| [false, true].map(|relu| QuadCvt { dst, relu })).collect()
    }

    /// As the f16x2/bf16x2 `.rs` forms: ".rs rounding mode introduced in PTX ISA version 8.7",
    /// sm_100a and sm_103a (ptxas 13.5 agrees for every x4 type, above).
    pub fn needs(&self) -> Requirement {
        Requirement { sm: 100, variant: Variant::A, ptx: PtxVersion::new(8, 7), section: ".rs rounding mode: PTX ISA 8.7, sm_100a and sm_103a" }
    }

    /// Sources: `a`, `b`, `e`, `f` (f32) and `rbits` (b32).
    pub fn inputs(&self) -> usize {
        5
    }

    /// Width of the destination register: four slots of the pair forms' width.
    pub fn dst_bits(&self) -> u32 {
        2 * self.dst.packed_bits()
    }

    /// The PTX name of the destination type (`e4m3x4`, ...).
    pub fn quad_name(&self) -> &'static str {
        QUADS.iter().find(|q| q.0 == self.dst).map(|q| q.1).expect("every QuadCvt format is in QUADS")
    }

    /// The random byte of `rbits` that element `k` (0 = `a` ... 3 = `f`) takes in this
    /// module's reading of Figures 40 and 41 (the module table).
    pub fn random_byte(&self, k: usize, rbits: u32) -> u32 {
        let shift = match (self.dst, k) {
            (Narrow::E2m1, 1) => 8,
            (Narrow::E2m1, 2) => 16,
            (_, k) => 24 - 8 * k as u32,
        };
        rbits >> shift & 0xff
    }

    /// The allowed results on `a`, `b`, `e`, `f`, `rbits`: four lanes, `f`'s in the low bits.
    pub fn eval(&self, ops: &[u64]) -> Result<Expectation, CvtError> {
        let &[a, b, e, f, rbits] = ops else {
            return Err(CvtError::Operands { form: self.to_string(), want: 5, got: ops.len() });
        };
        let lane = |k: usize, x: u64| self.lane(x as u32, self.random_byte(k, rbits as u32));
        Ok(Expectation::narrow_quad(self.dst, [lane(3, f), lane(2, e), lane(1, b), lane(0, a)]))
    }

    /// The narrow `cvt` with rounding `mode` and this form's clamps (`cvt::narrow`'s rows).
    fn with(&self, mode: Rounding) -> NarrowCvt {
        NarrowCvt { dir: Direction::Down { dst: self.dst, src: Wide::F32 }, rounding: Some(mode), relu: self.relu, satfinite: true }
    }

    /// One element: `x` (f32 bits) rounded with the random byte `r`.
    fn lane(&self, x: u32, r: u32) -> LaneExpectation {
        let v = f32::from_bits(x) as f64;
        // Toward and away from zero: `cvt::narrow` rounds the magnitude, so .rz and .rp are they.
        let toward = narrow::down(&self.with(Rounding::Rz), self.dst, v);
        let away = narrow::down(&self.with(Rounding::Rp), self.dst, v);
        let (Allowed::One(t), Allowed::One(w)) = (toward, away) else {
            // NaN (any NaN, or MAX_NORM for the formats without one) and a .relu zero.
            return toward.lane();
        };
        if t == w {
            return LaneExpectation::exact(t);
        }
        // The position between the neighbours in units of 2^-8 of their step (exact in f64):
        // for a normal result the top 8 discarded bits of the f32 fraction.
        let (lo, hi) = (decode(self.dst, t).abs(), decode(self.dst, w).abs());
        let top = ((v.abs() - lo) / (hi - lo) * (1u64 << RANDOM_BITS) as f64).floor() as u32;
        let carry = (top + r) >> RANDOM_BITS == 1;
        let (primary, other) = if carry { (w, t) } else { (t, w) };
        LaneExpectation::exact(primary).or(Outcome::Bits(other), Reading::RbitsLayout)
    }
}

impl fmt::Display for QuadCvt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cvt.rs{}.satfinite.{}.f32", if self.relu { ".relu" } else { "" }, self.quad_name())
    }
}

#[cfg(test)]
#[path = "cvt_stochastic_quad_tests.rs"]
mod tests;
