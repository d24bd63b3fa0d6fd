//! The judge's first look at an approximate result that is not the primary: is every lane
//! within its documented bound, or where none is documented, what error to record? Decided
//! from the primary result the batch path already holds (the correctly rounded value,
//! `primary.rs`), without the CORE-MATH reference that [`Form::lane`] evaluates. `perf` of
//! `ptxfuzz bench --judge --trace` (2026-12-04): `Form::lane` was a quarter of the traced
//! judge's time, most of it the binary64 reference (`cr_sin`, `cr_tanh`, ...) and the range
//! around it, for results a bound away from the primary; and a fifth of the approximate
//! results off the fast path fall where no bound is documented, each judged by building the
//! whole expectation only to record its error.
//!
//! An answer promises what the full expectation says ([`Form::eval`]: accepted, with these
//! lanes undocumented), so the judge's verdicts cannot change (`checks`' test holds the two
//! together on every form); `None` means "look properly".

use arrayvec::ArrayVec;

use super::accept::ulp_range;
use super::bounds::{self, BoundKind};
use super::reference::{exact, pow2, to_f64};
use super::{nan_lane, Form, Func};
use crate::expect::{LaneExpectation, Undocumented};
use crate::format::{Format, Scalar, BF16, F16, F32, F64};
use crate::isa::Ftz;

/// One lane's answer.
enum Near {
    /// Within what the spec documents (the exact special value, the NaN rule, the bound).
    Documented,
    /// Accepted for want of a documented bound; the reference recorded with the error.
    Unbounded { reference: u64 },
    /// Only the full look can tell.
    Unknown,
}

impl Form {
    /// Whether `got` is accepted on `operands`, decided from `primary`, which must be
    /// [`Form::primary`] of each lane packed as the register holds them (the batch path's
    /// result on these operands): `Some(lanes)` where the full expectation accepts `got`, with
    /// `lanes` what [`Expectation::undocumented`](crate::expect::Expectation::undocumented)
    /// lists for it (empty: every lane documented); `None` where it cannot tell cheaply.
    /// `operands` must pass [`Form::takes`] and `got` [`Form::fits`].
    #[inline]
    pub fn accepted_near(&self, operands: &[u64], got: u64, primary: u64) -> Option<ArrayVec<Undocumented, 2>> {
        let (w, mask) = (self.scalar.bits(), self.scalar.mask());
        let mut undocumented = ArrayVec::new();
        for i in 0..self.lanes {
            let (a, g, p) = (self.lane_ops(operands, i)[0], (got >> (i * w)) & mask, (primary >> (i * w)) & mask);
            let near = match self.scalar {
                Scalar::F32 => self.near_in::<F32>(a, g, p),
                Scalar::F16 => self.near_in::<F16>(a, g, p),
                Scalar::BF16 => self.near_in::<BF16>(a, g, p),
                Scalar::F64 => self.near_in::<F64>(a, g, p),
            };
            match near {
                Near::Documented => {}
                Near::Unbounded { reference } => undocumented.push(Undocumented::of(self.scalar, i as usize, g, reference)),
                Near::Unknown => return None,
            }
        }
        Some(undocumented)
    }

    /// One lane of [`Form::accepted_near`]; the steps are [`Form::lane`]'s for a one-operand
    /// form, with the correctly rounded result taken from the primary.
    #[inline]
    fn near_in<F: Format>(&self, a: u64, got: u64, primary: u64) -> Near {
        // Division and the f64 upper-word forms take their own paths in `lane_in`.
        if matches!(self.func, Func::DivApprox | Func::DivFull | Func::RcpGross | Func::RsqrtGross) {
            return Near::Unknown;
        }
        let a = self.flush_in::<F>(a);
        let documented = |yes: bool| if yes { Near::Documented } else { Near::Unknown };
        if let Some(exact) = self.exact_lane::<F>(a) {
            // `lane_in`'s own answer: cheap, no function evaluated.
            return documented(exact.map_or_else(|| nan_lane::<F>(a), LaneExpectation::exact).documents(self.scalar, got));
        }
        let x = to_f64::<F>(a);
        let kind = bounds::select(self.rows, x).map_or(BoundKind::Undocumented, |r| r.kind);
        if matches!(kind, BoundKind::Undocumented) {
            // `lane_in` records the flushed correctly rounded result: the primary itself.
            return Near::Unbounded { reference: primary };
        }
        // A NaN, or a subnormal under `.ftz`, is never within a bound: `lane` says why not.
        let flush = self.ftz == Ftz::Flush;
        if F::is_nan(got) || (flush && F::is_subnormal(got)) {
            return Near::Unknown;
        }
        // The primary is the correctly rounded result, flushed under `.ftz`: a zero there may
        // have been a subnormal, which the bound is placed around, so it cannot stand for it.
        let cr = primary;
        if (flush && F::is_zero(cr)) || F::is_nan(cr) || F::is_inf(cr) {
            return Near::Unknown;
        }
        documented(match kind {
            // `lane_in`'s own range around the same `cr`; `exact` is only read when `cr` is
            // infinite, which it is not here.
            BoundKind::Ulps(n) => ulp_range::<F>(cr, n, || exact(self.func, x), self.ftz).matches_in(self.scalar, got),
            BoundKind::Abs { scale, .. } => within::<F>(cr, got, |_| scale),
            BoundKind::Rel { scale, .. } => within::<F>(cr, got, |y: f64| scale * y),
            BoundKind::Undocumented => false,
        })
    }
}

/// Whether `got` is within the bound `d(|y|)` of every value `y` that the f64 reference of
/// `lane_in` can be, given that `cr` is that value rounded to `F`: `accept::bound_range`'s
/// interval `[y - d - t, y + d + t]` then holds `got`, so its range does, and `finish` keeps it
/// (`got` is neither NaN nor, under `.ftz`, subnormal).
///
/// Why: `cr` and `y` are the function value rounded to nearest in `F` and in f64, so
/// `|y - cr| <= h` with `h` half of `cr`'s ulp (its spacing away from zero, the larger one at a
/// power of two) plus `2^-52 |cr|`. So if `|got - cr| <= d_min - 2h`, with `d_min <= d(|y|)`
/// for every such `y`, then `|got - y| <= d(|y|) - h`. The factor `1 - 2^-30` takes in every
/// rounding of this f64 arithmetic (each at most `2^-53` of a term no larger than `d_min`),
/// and `bound_range`'s own widening `t` those of its interval. A result this close to the edge
/// of its bound is left to `lane`.
#[inline]
fn within<F: Format>(cr: u64, got: u64, d: impl Fn(f64) -> f64) -> bool {
    let (c, g) = (to_f64::<F>(cr), to_f64::<F>(got));
    let next = to_f64::<F>(F::abs(cr) + 1);
    if !next.is_finite() {
        return false;
    }
    let h = (next - c.abs()) / 2.0 + c.abs() * pow2(-52);
    let d_min = d(c.abs() - h);
    let room = d_min * (1.0 - pow2(-30)) - 2.0 * h;
    room > 0.0 && (g - c).abs() <= room
}
