//! The sweep pre-filter's decision (issue 12, point 4): from an input, the target's output and
//! a reference computed in f64 with a proven error bound, say whether the output is certainly
//! in the allowed set (`Pass`: the CPU judge need not see it) or might not be (`Keep`: the CPU
//! judges it, as it judges a random sample of the passed ones).
//!
//! The decision uses only IEEE f64 operations rounded to nearest (`div.rn.f64`,
//! `sqrt.rn.f64`, `mul.rn.f64`, `sub.rn.f64`, `cvt.rn.f32.f64`), which a GPU computes exactly
//! as this code does, so a GPU kernel can run it bit for bit; this module is its definition
//! and its test bed. It is conservative by construction: every input it is unsure of is kept
//! (special values, inputs or outputs outside the normal f32 range, a sign that differs), and
//! every bound used is wider than the error it covers:
//!
//! - the reference `r` is within `REL_ERR` of the exact value: rcp and sqrt are one correctly
//!   rounded operation (error <= 2^-53 r); rsqrt is `1 / sqrt(x)`, two (<= 3 * 2^-53 r);
//! - `[lo, hi] = [r (1 - E), r (1 + E)]` with `E = 2 REL_ERR + 2^-52` holds the exact value
//!   even after the two multiplications' own roundings (each <= 2^-53 of its result);
//! - an ulp bound `n` passes when `n` ulps around the output reach both `rn(lo)` and `rn(hi)`:
//!   rounding to nearest is monotone, so the correctly rounded result lies between them;
//! - a relative bound `s` passes when `|h - y| <= s lo (1 - 2^-40)` for both ends `y = lo, hi`:
//!   then for the exact `y` in between, `|h - y| <= s y` up to the f64 roundings of the test
//!   (<= 2^-51 y), which the judge's own widening of the interval (2^-48 (|y| + s|y|),
//!   `accept::bound_range`) covers many times over.
//!
//! The IEEE-rounded 16-bit `add`/`sub`/`mul` forms have their own pre-filter, which computes
//! the correctly rounded result itself ([`rounded`]). Forms without a reference of proven
//! bound here (sin, cos, lg2, ex2, tanh, div, the other half and f64 forms, and every form a
//! hardware profile models bit for bit) have no pre-filter: every input goes to the CPU.

use super::bounds::{self, BoundKind};
use super::{Form, Func};
use crate::format::{Format, Scalar, F32};

/// What the pre-filter says of one (input, output) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Certainly allowed: the CPU judge need not see it (it sees a sample of these anyway).
    Pass,
    /// Maybe not allowed: the CPU judge decides.
    Keep,
}

/// The f64 reference a GPU computes for a form, with its proven relative error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reference {
    /// `div.rn.f64 1, x`: correctly rounded.
    Rcp,
    /// `sqrt.rn.f64 x`: correctly rounded.
    Sqrt,
    /// `div.rn.f64 1, (sqrt.rn.f64 x)`: two roundings and the quotient's sensitivity to the
    /// first, (1 + u)^2 / (1 - u) - 1 < 3u with u = 2^-53.
    Rsqrt,
}

impl Reference {
    fn of(func: Func) -> Option<Reference> {
        match func {
            Func::Rcp => Some(Reference::Rcp),
            Func::Sqrt => Some(Reference::Sqrt),
            Func::Rsqrt => Some(Reference::Rsqrt),
            _ => None,
        }
    }

    /// Bound on |r - exact| / |exact|.
    fn rel_err(self) -> f64 {
        match self {
            Reference::Rcp | Reference::Sqrt => f64::EPSILON / 2.0,
            Reference::Rsqrt => 3.0 * f64::EPSILON / 2.0,
        }
    }

    fn eval(self, x: f64) -> f64 {
        match self {
            Reference::Rcp => 1.0 / x,
            Reference::Sqrt => x.sqrt(),
            Reference::Rsqrt => 1.0 / x.sqrt(),
        }
    }
}

/// The pre-filter of one form.
#[derive(Clone, Debug)]
pub struct Prefilter {
    kind: Kind,
}

/// The two kinds of pre-filter.
#[derive(Clone, Debug)]
enum Kind {
    /// An approximate f32 form: an f64 reference of proven error and the form's bound.
    Approx { reference: Reference, bound: BoundKind },
    /// An IEEE-rounded 16-bit binary form: the correctly rounded result itself.
    Rounded(rounded::Rounded),
}

/// 1 - 2^-40: the share of a relative bound the pre-filter spends (module docs).
const REL_SHARE: f64 = 1.0 - 1.0 / (1u64 << 40) as f64;

impl Prefilter {
    /// The pre-filter of `form`, or `None` where no reference of proven bound exists here
    /// (then every input is kept). Only scalar f32 forms whose bound is one row over every
    /// input that reaches it.
    pub fn new(form: &Form) -> Option<Prefilter> {
        if form.scalar != Scalar::F32 || form.lanes != 1 {
            return None;
        }
        let reference = Reference::of(form.func)?;
        // The row of a normal positive input (rcp's covers every input, sqrt/rsqrt's the
        // positive finite ones); the pre-filter keeps every other input.
        let bound = bounds::select(form.rows, 1.0)?.kind;
        if !matches!(bound, BoundKind::Ulps(_) | BoundKind::Rel { .. }) {
            return None;
        }
        Some(Prefilter { kind: Kind::Approx { reference, bound } })
    }

    /// The pre-filter of any form that has one: an approximate f32 form's ([`Prefilter::new`])
    /// or an IEEE-rounded 16-bit binary form's ([`rounded`]).
    pub fn of(instr: &crate::isa::Instr) -> Option<Prefilter> {
        if let Some(r) = rounded::Rounded::new(instr) {
            return Some(Prefilter { kind: Kind::Rounded(r) });
        }
        Form::of(instr).as_ref().and_then(Prefilter::new)
    }

    /// The verdict on input `x` and the target's output `h` (the sweep's input number and the
    /// output's bits: f32 bits for an approximate form).
    pub fn judge(&self, x: u32, h: u32) -> Verdict {
        let (reference, bound) = match &self.kind {
            Kind::Approx { reference, bound } => (*reference, *bound),
            Kind::Rounded(r) => return r.judge(x, h),
        };
        let x = x as u64;
        // Only normal inputs: zeros, subnormals (flushed or not), infinities and NaNs are the
        // special-value table's and the CPU's business, as are sqrt's and rsqrt's negatives.
        if !is_normal(x) || (F32::sign(x) && reference != Reference::Rcp) {
            return Verdict::Keep;
        }
        let r = reference.eval(f32::from_bits(x as u32) as f64);
        decide(bound, r, reference.rel_err(), h)
    }
}

/// The decision for output `h` from a reference `r` within `rel_err` (relative) of the exact
/// value, under `bound`: the margin logic of the module docs, apart from how `r` was computed
/// so that it can be tested against any exact value and any reference error.
fn decide(bound: BoundKind, r: f64, rel_err: f64, h: u32) -> Verdict {
    let h = h as u64;
    // Zeros, subnormals, infinities and NaNs as outputs, and a sign other than the
    // reference's: kept.
    if !is_normal(h) || F32::sign(h) != (r < 0.0) {
        return Verdict::Keep;
    }
    let widen = 2.0 * rel_err + f64::EPSILON;
    let (r, hv) = (r.abs(), f32::from_bits(h as u32).abs() as f64);
    let (lo, hi) = (r * (1.0 - widen), r * (1.0 + widen));
    // Results near the ends of the normal range may round to a subnormal, a flushed zero or
    // infinity: kept.
    if lo < f32::MIN_POSITIVE as f64 || hi > f32::MAX as f64 {
        return Verdict::Keep;
    }
    let pass = match bound {
        BoundKind::Ulps(n) => {
            let k = (h & !F32::SIGN_MASK) as i64;
            let cr_lo = (lo as f32).to_bits() as i64;
            let cr_hi = (hi as f32).to_bits() as i64;
            k - cr_lo <= n as i64 && cr_hi - k <= n as i64
        }
        BoundKind::Rel { scale, .. } => {
            let d = scale * lo * REL_SHARE;
            hv - lo <= d && hi - hv <= d
        }
        BoundKind::Abs { .. } | BoundKind::Undocumented => false,
    };
    if pass {
        Verdict::Pass
    } else {
        Verdict::Keep
    }
}

fn is_normal(bits: u64) -> bool {
    let e = (bits >> 23) & 0xff;
    e != 0 && e != 0xff
}

/// Whether passed input number `i` of a sweep is one the CPU judges anyway: one in
/// `AUDIT_EVERY`, spread by a multiplicative hash so that no binade is skipped. A passed input
/// the judge rejects means the pre-filter is wrong, which the sweep reports loudly.
pub fn audited(i: u64) -> bool {
    (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 54) == 0
}

/// One passed input in this many is audited (2^64 / 2^54).
pub const AUDIT_EVERY: u64 = 1 << 10;

#[path = "prefilter_ptx.rs"]
mod ptx_text;
#[path = "prefilter_rounded.rs"]
pub mod rounded;
pub use ptx_text::{PTX_REGS, PTX_REG_DECLS};

#[cfg(test)]
#[path = "prefilter_tests.rs"]
mod tests;
